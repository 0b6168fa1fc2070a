"""`railbird models`: register a candidate chat model, compare it with the model in force, list,
promote, roll back (the registry of api/models_registry, on the API's database and data dir)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy.orm import Session

from api.db import make_engine, make_sessions, migrate
from api.errors import ServiceError
from api.ids import utc_now
from api.models_registry import service
from api.models_registry.store import ArtifactStore
from api.models_registry.views import registry_config
from railbird.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Subcommands: register, compare, list, promote, rollback, retire."""
    sub = parser.add_subparsers(dest="action", required=True)
    reg = sub.add_parser("register", help="check an artifact and register it as a candidate")
    reg.add_argument("file", type=Path)
    reg.add_argument("--sha256", default=None, help="expected digest (refused when the file differs)")
    reg.add_argument("--note", default="", help="what this candidate is (shown on the promotion page)")
    reg.add_argument("--by", default="cli", help="who registers it (recorded and audited)")
    cmp = sub.add_parser("compare", help="measure a version against the model in force on every evaluation set")
    cmp.add_argument("version", type=int)
    cmp.add_argument("--labels", default=None,
                     help="decisions: a labels export file (JSON lines), or the API's /v1/labels/export URL")
    cmp.add_argument("--token-stdin", action="store_true", help="with a --labels URL: read a senior/admin token")
    cmp.add_argument("--recent", type=float, default=0.2, help="share of the newest decisions tested (default 0.2)")
    cmp.add_argument("--no-public", action="store_true", help="leave the public sets out (quick look only)")
    cmp.add_argument("--by", default="cli")
    cmp.add_argument("--out", type=Path, default=None, help="also write the comparison JSON here")
    sub.add_parser("list", help="versions, statuses and the model in force")
    pro = sub.add_parser("promote", help="put a version in force")
    pro.add_argument("version", type=int)
    pro.add_argument("--reason", required=True)
    pro.add_argument("--confirm-regressions", action="store_true", help="promote despite the warnings listed")
    pro.add_argument("--by", default="cli")
    back = sub.add_parser("rollback", help="back to the version in force before the current promotion")
    back.add_argument("--reason", required=True)
    back.add_argument("--by", default="cli")
    ret = sub.add_parser("retire", help="take a candidate out of consideration")
    ret.add_argument("version", type=int)
    ret.add_argument("--reason", required=True)
    ret.add_argument("--by", default="cli")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Dispatch; a refusal prints its reason and exits 1, unusable input exits 2."""
    config = registry_config(data_dir=settings.data_dir, chat_model_path=settings.chat_model_path,
                             cache_dir=settings.resolved_cache_dir())
    engine = make_engine(settings.resolved_database_url())
    migrate(engine)
    try:
        with make_sessions(engine)() as session:
            if args.action == "register":
                return _register(session, config.store, args, settings)
            if args.action == "compare":
                return _compare(session, config.store, config.shipped, args, settings)
            if args.action == "list":
                return _list(session, config.shipped)
            if args.action == "promote":
                done = service.promote(session, config.store, version=args.version, actor=args.by,
                                       reason=args.reason, confirm=args.confirm_regressions,
                                       shipped=config.shipped, now=utc_now())
            elif args.action == "rollback":
                done = service.rollback(session, actor=args.by, reason=args.reason, shipped=config.shipped,
                                        now=utc_now())
            else:
                service.retire(session, version=args.version, actor=args.by, reason=args.reason, now=utc_now())
                print(f"version {args.version} retired")
                return 0
            print(f"version {done.version} ({done.sha256}) is in force; consumers switch within "
                  f"RAILBIRD_POLICY_REFRESH_S ({settings.policy_refresh_s:g} s)")
            return 0
    except ServiceError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()


def _register(session: Session, store: ArtifactStore, args: argparse.Namespace, settings: Settings) -> int:
    if not args.file.is_file():
        print(f"error: {args.file}: no such file", file=sys.stderr)
        return 2
    row, created = service.register(session, store, path=args.file, expected_sha256=args.sha256, actor=args.by,
                                    note=args.note, now=utc_now(), cache_dir=settings.resolved_cache_dir())
    print(f"{'registered' if created else 'already registered as'} version {row.version} ({row.sha256}, "
          f"{row.size} bytes); next: railbird models compare {row.version}")
    return 0


def _compare(session: Session, store: ArtifactStore, shipped: Path, args: argparse.Namespace,
             settings: Settings) -> int:
    from models.chat import load_classifier
    from models.chat.compare import DecisionsError, compare, decision_sets, independent_dev_sets, public_sets
    from models.chat.overlap import shipped_training_texts

    row = service.get(session, args.version)
    current = service.in_force(session, shipped=shipped)
    try:
        decisions = _decisions(args) if args.labels else []
    except (DecisionsError, httpx.HTTPError, OSError) as exc:
        print(f"error: decisions: {exc}", file=sys.stderr)
        return 2
    cache = settings.resolved_cache_dir()
    candidate = load_classifier(service.artifact_path(session, store, version=row.version, shipped=shipped),
                                cache_dir=cache)
    baseline = load_classifier(service.artifact_path(session, store, version=current.version, shipped=shipped),
                               cache_dir=cache)
    sets = [] if args.no_public else public_sets(settings.datasets_dir, shipped_training_texts(settings.datasets_dir))
    sets += independent_dev_sets()
    recent, cutoff = decision_sets(decisions, share=args.recent)
    notes: dict[str, Any] = {"decisions_rows": len(decisions), "decisions_cutoff": cutoff,
                             "public_sets": not args.no_public}
    doc = compare(candidate, baseline, [*sets, *recent], notes=notes,
                  candidate_id={"version": row.version, "sha256": row.sha256},
                  baseline_id={"version": current.version, "sha256": current.sha256})
    service.record_comparison(session, version=row.version, comparison=doc, actor=args.by, now=utc_now())
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    for name, f in sorted(doc["sets"].items()):
        flag = "  REGRESSION" if name in doc["regressions"] else ""
        print(f"{name:45} n={f['n']:>6}  ROC-AUC {f['baseline']['roc_auc']} -> {f['candidate']['roc_auc']}{flag}")
    print(f"{len(doc['regressions'])} evaluation set(s) regress by more than {doc['tolerance']} ROC-AUC"
          + (": " + ", ".join(doc["regressions"]) if doc["regressions"] else ""))
    return 0


def _decisions(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The labels export from a file, or fetched from the API with a token read from stdin."""
    from models.chat.compare import read_decisions

    source = str(args.labels)
    if not source.startswith(("http://", "https://")):
        return read_decisions(Path(source))
    token = sys.stdin.readline().strip() if args.token_stdin else ""
    resp = httpx.get(source, headers={"Authorization": f"Bearer {token}"}, timeout=300)
    resp.raise_for_status()
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8", delete=False) as fh:
        fh.write(resp.text)
    try:
        return read_decisions(Path(fh.name))
    finally:
        Path(fh.name).unlink(missing_ok=True)


def _list(session: Session, shipped: Path) -> int:
    current = service.in_force(session, shipped=shipped)
    print(f"in force: version {current.version} ({current.source}, {current.sha256})")
    for v in service.versions(session):
        warn = service.warnings_for(session, v, shipped=shipped)
        extra = f"; {len(warn.regressions)} regression(s)" if warn.regressions else ""
        extra += "; " + "; ".join(warn.notes) if warn.notes else ""
        print(f"  {v.version:>3} {v.status:<9} {v.sha256[:12]} {v.size:>10} by {v.uploaded_by} "
              f"{v.uploaded_at:%Y-%m-%d %H:%M}{extra}")
    return 0
