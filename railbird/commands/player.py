"""`railbird player`: export everything held about a player, erase it, or apply evidence retention."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime

from api.db import make_engine, make_sessions, migrate
from api.errors import ServiceError
from api.ids import utc_now
from api.privacy import players
from railbird.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Subcommands: export ID, erase ID [--force], purge-expired [--days N]."""
    sub = parser.add_subparsers(dest="action", required=True)
    export = sub.add_parser("export", help="print everything held about a player as JSON")
    export.add_argument("player_id")
    erase = sub.add_parser("erase", help="erase a player's text, pseudonymise their id (audited)")
    erase.add_argument("player_id")
    erase.add_argument("--force", action="store_true", help="erase even with sanctions in force (lifts them)")
    purge = sub.add_parser("purge-expired", help="redact evidence of cases closed > N days ago")
    purge.add_argument("--days", type=int, default=None, help="default RAILBIRD_RETENTION_DAYS")


def _json_default(value: object) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value)


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Dispatch; refusals (e.g. sanctions in force) print the reason and exit 1."""
    engine = make_engine(settings.resolved_database_url())
    migrate(engine)
    try:
        with make_sessions(engine)() as session:
            if args.action == "export":
                data = players.export_player(session, player_id=args.player_id)
                json.dump(data, sys.stdout, default=_json_default, ensure_ascii=False, indent=2)
                print()
                return 0
            if args.action == "erase":
                report = players.erase_player(session, player_id=args.player_id,
                                              key=settings.pseudonym_key or settings.service_token,
                                              actor="cli", now=utc_now(), force=args.force)
                print(f"erased: now {report.pseudonym}; {report.findings} findings, {report.cases} cases, "
                      f"{report.sanctions} sanctions, {report.events} events rewritten")
                return 0
            days = settings.retention_days if args.days is None else args.days
            if days <= 0:
                print("retention is off (0 days); nothing redacted")
                return 0
            count = players.redact_expired(session, days=days, now=utc_now())
            print(f"redacted the evidence of {count} findings in cases closed more than {days} days ago")
            return 0
    except ServiceError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
