"""`railbird audit verify`: walk the audit hash chain; non-zero exit naming the first bad entry."""

from __future__ import annotations

import argparse

from api.audit import service as audit
from api.db import make_engine, make_sessions, migrate
from railbird.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One action: verify."""
    parser.add_argument("action", choices=["verify"], help="verify the chain")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """0 when every entry verifies, 1 at the first broken link."""
    engine = make_engine(settings.resolved_database_url())
    migrate(engine)
    with make_sessions(engine)() as session:
        report = audit.verify(session)
    engine.dispose()
    if report.ok:
        print(f"audit chain OK: {report.checked} entries, head {report.head}")
        return 0
    print(f"audit chain BROKEN at entry seq={report.bad_seq}: {report.problem} "
          f"({report.checked} entries verified before it)")
    return 1
