"""Learning from decisions (issue 23, item 3): does a chat model retrained on 5,000 analysts'
decisions beat the shipped one?

1. Chat from the simulator's own banks (`simulator.abuse.VIOLATIONS`, every single-message chat
   category, and the table talk of `simulator.phrases`), each line with its true category, the
   victim's nickname filled in as the room does, or with `--chat` from labelled TSV sets written
   by people who never saw the rules' patterns or the banks (`SetChat`), runs through every chat
   detector with the SHIPPED model (the replay path) until 5,000 chat findings are made.
2. The findings go through the review API's own services on a scratch SQLite database: a
   simulated analyst claims each case and decides it, right with probability 0.95 (a true offence
   is confirmed, and its category corrected on the label when the finding named another one; a
   clean line dismissed), wrong otherwise (confirm <-> dismiss). Their labels are exported
   (`labels.export`, JSON lines) exactly as `GET /v1/labels/export` returns them.
3. A candidate model is trained as `railbird train chat --decisions FILE` trains it (same seed;
   operating points on the independent DEV set) into the scratch folder; the shipped artifact
   is never written.
4. Both models are scored on the independent DEV sets only (`evalsets/independent/dev/<lang>.tsv`;
   report/ is never opened) for the categories the decisions cover, and on every standard
   evaluation set (ROC-AUC, `evaluate.model_card_report`): a set losing more than 0.01 is flagged.

    .venv/bin/python -m bench.learning_from_decisions [--decisions 5000] [--accuracy 0.95] [--seed 7]

Trains one model (about half an hour on a loaded 2-core machine). Writes
bench/results/learning_from_decisions.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import roc_auc_score
from sqlalchemy import select
from sqlalchemy.orm import Session

from api.auth import service as auth
from api.cases import service as cases
from api.cases.models import Case
from api.db import make_engine, make_sessions, migrate
from api.decisions import service as decisions
from api.findings import service as findings_service
from api.findings.models import FindingRow
from api.labels import service as labels
from api.policy.rules import AuditSampling, PolicySettings, audit_document
from models.chat import load_classifier
from models.chat.artifact import DEFAULT_PATH, save_model
from models.chat.decision_labels import decision_rows, file_digest, read_export, write_provenance
from models.chat.evaluate import INDEPENDENT_DIR, model_card_report
from models.chat.independent import LabelledLine, read_set, run_lines
from models.chat.operating_points import on_dev
from models.chat.overlap import shipped_training_texts
from models.chat.training import TrainConfig, train
from pipeline.categories import AUDIT_SAMPLE, MODEL_SCORED, rule_of
from pipeline.contracts import CHAT
from pipeline.findings import Finding
from pipeline.replay import envelope_line, replay_lines
from pipeline.runner import Pipeline
from railbird.settings import Settings, load_settings
from railbird.wiring import make_detector_factory, make_pipeline, rules_from
from simulator import abuse, phrases

RESULTS = Path(__file__).resolve().parent / "results" / "learning_from_decisions.json"
DEV_DIR = INDEPENDENT_DIR / "dev"
T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
CATEGORIES = tuple(c for c in abuse.VIOLATIONS if c in MODEL_SCORED)
"""The simulator's single-message chat offences the text model has a head for."""
CLEAN_BANKS = (phrases.DURING_HAND, phrases.AFTER_HAND, phrases.DEAL_TALK, phrases.LOBBY, phrases.PRIVATE)
OFFENCE_SHARE = 0.45
"""Share of generated lines that are planted offences (the rest is table talk)."""
MAX_AUC_LOSS = 0.01
NO_AUDIT = AuditSampling()


@dataclass(frozen=True, slots=True)
class Line:
    """One generated chat line and its true category (`clean` for table talk)."""

    event_id: str
    player_id: str
    text: str
    lang: str
    truth: str


def generate(rng: random.Random, start: int, n: int) -> list[Line]:
    """n lines from the simulator's banks, nicknames and cards filled in as the room fills them."""
    nicknames = [a + b for a in phrases.NICKNAME_PARTS[0] for b in phrases.NICKNAME_PARTS[1]]
    out: list[Line] = []
    for i in range(start, start + n):
        lang = rng.choices(phrases.LANGUAGES, weights=phrases.LANGUAGE_SHARE)[0]
        if rng.random() < OFFENCE_SHARE:
            truth = rng.choice(CATEGORIES)
            bank = abuse.VIOLATIONS[truth]
        else:
            truth, bank = "clean", rng.choice(CLEAN_BANKS)
        lines = bank.get(lang) or bank["en"]
        text = rng.choice(lines).replace("{v}", rng.choice(nicknames)).replace("{t}", rng.choice(nicknames))
        text = text.replace("{c}", rng.choice(["AhKd", "pocket kings", "QQ", "7s7d", "the nut flush"]))
        out.append(Line(f"lfd-{i}", f"lfd-p{i}", text, lang, truth))
    return out


class SetChat:
    """Room chat from labelled TSV sets (`independent.read_set`: `lang<TAB>label<TAB>text`) written by
    people who never saw the rules or the simulator's banks, instead of the simulator's templates:
    lines in shuffled passes (every line once before any repeats, as a room's chat repeats itself),
    each sent by a player of its own."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.lines = [ln for path in paths for ln in read_set(path) if ln.label == "clean" or ln.label in MODEL_SCORED]
        if not self.lines:
            raise ValueError(f"no usable lines in {[str(p) for p in paths]}")
        self._order: list[LabelledLine] = []

    def __call__(self, rng: random.Random, start: int, n: int) -> list[Line]:
        out: list[Line] = []
        for i in range(start, start + n):
            if not self._order:
                self._order = list(self.lines)
                rng.shuffle(self._order)
            ln = self._order.pop()
            out.append(Line(f"lfd-{i}", f"lfd-p{i}", ln.text, ln.lang, ln.label))
        return out


Generate = Callable[[random.Random, int, int], list[Line]]


def chat_event(line: Line, index: int) -> dict[str, Any]:
    """The line as a table chat message during a running hand its speaker is not dealt in (so
    hand-in-play talk is what the rule forbids; other lines read the same either way)."""
    return {
        "event_id": line.event_id, "ts": (T0 + timedelta(seconds=index)).isoformat(), "channel": "table",
        "player_id": line.player_id, "nickname": f"guest{index:05d}", "text": line.text, "client": "desktop",
        "table_id": f"lfd-t{index % 300}", "hand_id": f"lfd-h{index}",
        "players_in_hand": [f"{line.player_id}-a", f"{line.player_id}-b"],
    }


def room_pipeline(settings: Settings, audit: AuditSampling) -> Pipeline:
    """The shipped pipeline under a policy with this audit sampling (the consumers' factory)."""
    policy = PolicySettings(rules_version=settings.rules_version, audit=audit)
    return Pipeline(make_detector_factory(settings, policy)(), rules=rules_from(settings, policy))


def findings_for(lines: Sequence[Line], settings: Settings, start: int,
                 audit: AuditSampling = NO_AUDIT) -> Iterator[dict[str, Any]]:
    """Chat findings the shipped pipeline makes about the lines' own speakers (audit samples included)."""
    mine = {ln.event_id for ln in lines}
    stream = (envelope_line(CHAT, chat_event(ln, start + k)) for k, ln in enumerate(lines))
    for out in replay_lines(stream, room_pipeline(settings, audit)):
        f = out.get("finding")
        if out["kind"] == "finding" and f and f["family"] == "chat" and set(f["source_event_ids"]) <= mine:
            yield f


def collect(
    n_findings: int, settings: Settings, rng: random.Random, source: Generate = generate,
    audit: AuditSampling = NO_AUDIT,
) -> tuple[list[dict[str, Any]], dict[str, Line]]:
    """Generate lines in rounds until the pipeline has made `n_findings` chat findings."""
    found: list[dict[str, Any]] = []
    by_event: dict[str, Line] = {}
    start = 0
    while len(found) < n_findings:
        lines = source(rng, start, 4_000)
        by_event.update((ln.event_id, ln) for ln in lines)
        found += list(findings_for(lines, settings, start, audit))
        start += len(lines)
    return found[:n_findings], by_event


def analyst_decides(session: Session, *, found: Sequence[dict[str, Any]], by_event: dict[str, Line],
                    accuracy: float, rng: random.Random, now: datetime) -> Counter[str]:
    """Ingest the findings, then a simulated analyst decides every case they opened."""
    user = auth.create_user(session, username="sim_analyst", role="analyst", password=None, actor="bench", now=now)
    session.commit()
    who = auth.Principal(user.id, user.username, user.role, None)
    for i in range(0, len(found), 500):
        findings_service.ingest(session, findings=[Finding.model_validate(f) for f in found[i:i + 500]], now=now)
    tally: Counter[str] = Counter()
    for case_id in list(session.scalars(select(Case.id).order_by(Case.id))):
        docs = session.scalars(select(FindingRow.document).where(FindingRow.case_id == case_id))
        truths = {by_event[e].truth for d in docs for e in d["source_event_ids"]}
        truth = sorted(truths)[0]  # one speaker, one line per case
        right = rng.random() < accuracy
        kind = ("dismiss" if truth == "clean" else "confirm") if right else ("confirm" if truth == "clean" else "dismiss")
        audited = session.scalar(select(Case.category).where(Case.id == case_id)) == AUDIT_SAMPLE
        tally[f"{'audit_' if audited else ''}{'right' if right else 'wrong'}_{kind}"] += 1
        cases.claim(session, case_id=case_id, principal=who, ttl=timedelta(minutes=30), now=now)
        decisions.decide(session, case_id=case_id, kind=kind, reason="simulated analyst", apply=False,
                         principal=who, now=now)
        if right and kind == "confirm":
            for label in labels.for_case(session, case_id=case_id):
                if label.category != truth:  # the finding named another category: the analyst corrects it
                    labels.correct(session, correction=labels.Correction(finding_id=label.finding_id, category=truth),
                                   principal=who, now=now)
                    tally["corrected"] += 1
        now += timedelta(seconds=1)
    return tally


def export_labels(session: Session, path: Path, now: datetime) -> int:
    """The labels as `GET /v1/labels/export` writes them, by a senior."""
    senior = auth.create_user(session, username="sim_senior", role="senior", password=None, actor="bench", now=now)
    session.commit()
    rows = labels.export(session, since=None, principal=auth.Principal(senior.id, senior.username, "senior", None),
                         now=now)
    path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    return len(rows)


def dev_figures(model_path: Path, settings: Settings, categories: Sequence[str]) -> dict[str, Any]:
    """Per covered category on the DEV sets: pipeline recall (a finding citing the line's rule)
    and exact-category recall at the review point, the head's ROC-AUC (lines of the category vs
    every other line), and the clean lines flagged."""
    lines: list[LabelledLine] = [ln for path in sorted(DEV_DIR.glob("*.tsv")) for ln in read_set(path)]
    run_settings = settings.model_copy(update={"chat_model_path": model_path})
    outcomes = run_lines([ln.text for ln in lines], make_pipeline(run_settings))
    verdicts = load_classifier(model_path, cache_dir=settings.resolved_cache_dir()).classify([ln.text for ln in lines])
    out: dict[str, Any] = {}
    for cat in categories:
        idx = [i for i, ln in enumerate(lines) if ln.label == cat]
        hits = [any(rule_of(c) == rule_of(cat) for c in outcomes[i].categories) for i in idx]
        exact = [cat in outcomes[i].categories for i in idx]
        y = np.array([int(ln.label == cat) for ln in lines])
        scores = np.array([v.scores.get(cat, 0.0) for v in verdicts])
        out[cat] = {"lines": len(idx), "recall": round(sum(hits) / max(1, len(idx)), 4),
                    "exact_recall": round(sum(exact) / max(1, len(idx)), 4),
                    "roc_auc": round(float(roc_auc_score(y, scores)), 4) if 0 < y.sum() < len(y) else None}
    clean = [bool(outcomes[i].categories) for i, ln in enumerate(lines) if ln.label == "clean"]
    covered = [i for i, ln in enumerate(lines) if ln.label in categories]
    hits = [any(rule_of(c) == rule_of(lines[i].label) for c in outcomes[i].categories) for i in covered]
    out["_covered"] = {"lines": len(covered), "recall": round(sum(hits) / max(1, len(covered)), 4)}
    out["_clean_flagged"] = {"lines": len(clean), "rate": round(sum(clean) / max(1, len(clean)), 4)}
    return out


def standard_sets(model_path: Path, settings: Settings) -> dict[str, float | None]:
    """ROC-AUC of every standard evaluation set (`railbird eval chat --report`'s figures)."""
    classifier = load_classifier(model_path, cache_dir=settings.resolved_cache_dir())
    report = model_card_report(classifier, datasets_dir=settings.datasets_dir,
                               seen=shipped_training_texts(settings.datasets_dir))
    return {name: r.get("roc_auc") for name, r in report.items() if isinstance(r, dict) and "roc_auc" in r}


def train_candidate(export: Path, out: Path, settings: Settings, seed: int) -> dict[str, Any]:
    """`railbird train chat --decisions export --out out`, in process."""
    rows = decision_rows(read_export(export))
    meta = rows.summary(digest=file_digest(export))
    model = train(settings.datasets_dir, config=TrainConfig(seed=seed), extra=rows.samples, extra_meta=meta)
    model = on_dev(model, DEV_DIR)
    save_model(model, out)
    write_provenance(rows, out.with_name(out.name + ".decisions.jsonl"))
    return meta


def compare(base: dict[str, Any], cand: dict[str, Any], base_sets: dict[str, float | None],
            cand_sets: dict[str, float | None]) -> dict[str, Any]:
    """Deltas, the sets that lose more than `MAX_AUC_LOSS`, and whether the candidate beats the
    shipped model on the covered categories (recall up, clean lines flagged not up, no set lost)."""
    sets = {name: {"shipped": base_sets[name], "candidate": cand_sets.get(name),
                   "delta": _delta(base_sets[name], cand_sets.get(name))} for name in base_sets}
    regressed = [n for n, s in sets.items() if s["delta"] is not None and s["delta"] < -MAX_AUC_LOSS]
    cats = {c: {"shipped": base[c], "candidate": cand[c]} for c in base if not c.startswith("_")}
    recall_up = cand["_covered"]["recall"] - base["_covered"]["recall"]
    clean_up = cand["_clean_flagged"]["rate"] - base["_clean_flagged"]["rate"]
    return {"categories": cats, "covered": {"shipped": base["_covered"], "candidate": cand["_covered"]},
            "clean_flagged": {"shipped": base["_clean_flagged"], "candidate": cand["_clean_flagged"]},
            "sets": sets, "sets_regressed_over_0.01": regressed,
            "beats_shipped": recall_up > 0 and clean_up <= 0 and not regressed,
            "covered_recall_delta": round(recall_up, 4), "clean_flagged_delta": round(clean_up, 4)}


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 4)


def print_table(result: dict[str, Any]) -> None:
    """Both models' figures per category (dev) and per set."""
    cmp = result["comparison"]
    print(f"{'category (dev)':<16}{'lines':>6}  {'recall':>15}  {'exact':>15}  {'head ROC-AUC':>15}")
    for cat, r in cmp["categories"].items():
        s, c = r["shipped"], r["candidate"]
        print(f"{cat:<16}{s['lines']:>6}  {s['recall']:>6.3f} -> {c['recall']:<6.3f}  "
              f"{s['exact_recall']:>6.3f} -> {c['exact_recall']:<6.3f}  {_f(s['roc_auc']):>6} -> {_f(c['roc_auc']):<6}")
    cov, cl = cmp["covered"], cmp["clean_flagged"]
    print(f"{'all covered':<16}{cov['shipped']['lines']:>6}  {cov['shipped']['recall']:>6.3f} -> "
          f"{cov['candidate']['recall']:<6.3f}")
    print(f"{'clean flagged':<16}{cl['shipped']['lines']:>6}  {cl['shipped']['rate']:>6.3f} -> {cl['candidate']['rate']:<6.3f}")
    print(f"\n{'standard set (ROC-AUC)':<34}{'shipped':>8}{'candidate':>11}{'delta':>9}")
    for name, s in cmp["sets"].items():
        flag = "  REGRESSED > 0.01" if name in cmp["sets_regressed_over_0.01"] else ""
        print(f"{name:<34}{_f(s['shipped']):>8}{_f(s['candidate']):>11}{_f(s['delta']):>9}{flag}")
    print(f"\nbeats the shipped model: {cmp['beats_shipped']}")


def _f(v: float | None) -> str:
    return "-" if v is None else f"{v:.4f}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the experiment; print the tables; write the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=5_000)
    ap.add_argument("--accuracy", type=float, default=0.95)
    ap.add_argument("--seed", type=int, default=7, help="lines and the analyst's mistakes")
    ap.add_argument("--train-seed", type=int, default=42, help="the shipped model's seed")
    ap.add_argument("--work", type=Path, default=None, help="scratch folder (default: a new temp folder)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--chat", type=Path, action="append", default=[], metavar="TSV",
                    help="room chat from these labelled sets (file or folder; repeatable) instead of the simulator's banks")
    ap.add_argument("--audit-rate", type=float, default=0.0,
                    help="audit sampling: uniform share of unflagged lines sent to the analyst")
    ap.add_argument("--audit-near-rate", type=float, default=0.0,
                    help="audit sampling: share of unflagged lines scoring at least --audit-near-score")
    ap.add_argument("--audit-near-score", type=float, default=0.25)
    ap.add_argument("--dry-run", action="store_true", help="decide and export only: print the training input, train nothing")
    ap.add_argument("--figures", type=Path, default=None, metavar="MODEL",
                    help="only score MODEL (dev sets + standard sets) into --figures-out; with --covered")
    ap.add_argument("--covered", default="", help="with --figures: comma-separated categories to score on dev")
    ap.add_argument("--figures-out", type=Path, default=None)
    ap.add_argument("--combine", type=Path, nargs=3, default=None, metavar=("RUN", "SHIPPED", "CANDIDATE"),
                    help="the run's JSON (written before scoring) and the two --figures files -> the result")
    args = ap.parse_args(argv)
    settings = load_settings().model_copy(update={"chat_model_path": DEFAULT_PATH})
    if args.figures is not None and args.figures_out is not None:
        # Each model scored in its own process: on a shared machine two processes finish sooner.
        covered = [c for c in args.covered.split(",") if c]
        figs = {"dev": dev_figures(args.figures, settings, covered), "sets": standard_sets(args.figures, settings)}
        args.figures_out.write_text(json.dumps(figs, indent=2) + "\n", encoding="utf-8")
        return 0
    if args.combine is not None:
        run, base, cand = (json.loads(p.read_text(encoding="utf-8")) for p in args.combine)
        result = {**run, "comparison": compare(base["dev"], cand["dev"], base["sets"], cand["sets"])}
        return finish(result, args.out)
    work = args.work or Path(tempfile.mkdtemp(prefix="railbird-lfd-"))
    work.mkdir(parents=True, exist_ok=True)
    candidate = work / "candidate.skops"
    if candidate.resolve() == DEFAULT_PATH.resolve():
        print("refusing to overwrite the shipped artifact", file=sys.stderr)
        return 2
    rng, started = random.Random(args.seed), time.perf_counter()
    source: Generate = SetChat(args.chat) if args.chat else generate
    audit = AuditSampling(rate=args.audit_rate, near_rate=args.audit_near_rate, near_score=args.audit_near_score)
    found, by_event = collect(args.decisions, settings, rng, source, audit)
    print(f"{len(found)} chat findings from {len(by_event)} lines "
          f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    # The scratch review database on tmpfs where there is one: 5,000 decisions are 5,000 commits.
    shm = Path("/dev/shm")
    db_dir = Path(tempfile.mkdtemp(prefix="railbird-lfd-", dir=shm)) if shm.is_dir() else work
    engine = make_engine(f"sqlite:///{db_dir / 'review.db'}")
    migrate(engine)
    export = work / "labels.jsonl"
    with make_sessions(engine)() as session:
        tally = analyst_decides(session, found=found, by_event=by_event, accuracy=args.accuracy, rng=rng,
                                now=datetime.now(UTC))
        exported = export_labels(session, export, datetime.now(UTC))
    print(f"decisions {dict(tally)}; {exported} labels exported ({time.perf_counter() - started:.0f} s)",
          file=sys.stderr)
    if args.dry_run:
        print(json.dumps(decision_rows(read_export(export)).summary(digest=file_digest(export)), indent=2))
        return 0
    t_train = time.perf_counter()
    meta = train_candidate(export, candidate, settings, args.train_seed)
    train_s = time.perf_counter() - t_train
    print(f"candidate trained in {train_s:.0f} s: {json.dumps(meta)}", file=sys.stderr)
    covered = sorted(c for c, n in meta["by_category"].items() if c != "clean" and n > 0)
    run = {
        "decisions": len(found), "analyst_accuracy": args.accuracy, "seed": args.seed,
        "analyst": dict(tally), "labels_exported": exported, "training_input": meta,
        "finding_categories": dict(Counter(f["category"] for f in found)),
        "true_categories": dict(Counter(by_event[e].truth for f in found for e in f["source_event_ids"])),
        "train_seconds": round(train_s), "candidate": str(candidate), "covered": covered,
        "chat": [str(p) for p in args.chat] or "simulator banks",
        "audit_sampling": audit_document(audit),
        "audit_findings": sum(1 for f in found if f["category"] == AUDIT_SAMPLE),
        "distinct_texts_decided": len({by_event[e].text for f in found for e in f["source_event_ids"]}),
    }
    (work / "run.json").write_text(json.dumps(run, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    base_dev, cand_dev = (dev_figures(p, settings, covered) for p in (DEFAULT_PATH, candidate))
    base_sets, cand_sets = (standard_sets(p, settings) for p in (DEFAULT_PATH, candidate))
    return finish({**run, "comparison": compare(base_dev, cand_dev, base_sets, cand_sets)}, args.out)


def finish(result: dict[str, Any], out: Path) -> int:
    """Print the tables and write the JSON."""
    print_table(result)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
