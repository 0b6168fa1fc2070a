"""CPU cost of shadow mode: the consumer pipeline with no shadow copy against one detector in shadow.

A simulated room (chat, SnapCam reports, seat activity, hand records) goes through every registered
detector the way the streaming runtime runs them: poll batches of 500 records, each detector's
`prefetch` over the batch's events of its topics (the chat model scores a batch in one call), then
record by record through the runner and policy. Fresh detector state and a cold model cache for each
run; CPU time of this process (time.process_time), median of runs, one core. Configurations:
- `none`: the live detectors only;
- `chat.classifier` in shadow with candidate thresholds (insult 0.9, threat 0.8): a ThresholdView of
  the live model (models/chat/shadow_view.py), which fuses the live analysis again, never rescoring;
- `chat.classifier` in shadow with the live thresholds (the shared verdict cache serves both);
- `seat.hit_and_run` in shadow under the candidate rules version (uk-2022-09-28);
- with `--with-model`, `chat.classifier` in shadow with a candidate model (policy `shadow.model_version`):
  a second instance of the shipped model with every head weight moved a little (`retrained_copy`: its
  scores differ on every line, as a retrained model's do), scoring the live analyses with its own
  heads (a `ModelView`, as the consumers serve a candidate with the live word list), and the same
  candidate as if its word list differed ("own analysis"): it analyses every chat line again;
- with `--share S`, the chat configurations again with the copies on a share S of the players
  (policy `shadow.share`, pipeline/shadow.py "A share below 1").
The overhead per shadow detector is (shadow - none) / none against the 10 % target (issue 23).
Two event mixes: the simulated room as it is (its chat is dense in planted offences: about a third
of the lines give a classifier finding), and a low-offence mix, the same room without the chat
lines any live detector flags (its clean chat, SnapCam, seat and hand traffic), because a shadow
copy's cost beyond the model grows with the findings it builds. With `--new-text`, a third mix:
the room with every chat line's text replaced by a distinct line of the independent dev set (the
simulator repeats its lines, so the model's per-text memo hides most of a second model's cost).
Writes bench/results/shadow_overhead.json (`--with-model`: shadow_overhead_model.json; `--share`:
shadow_overhead_share.json).

    .venv/bin/python -m bench.shadow_overhead [--runs 5] [--minutes 20] [--players 100]
        [--with-model] [--share 0.2] [--new-text]
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import gc
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench import _callgrind
from models.chat import load_classifier
from models.chat.classifier import ChatClassifier
from models.chat.shadow_view import ThresholdView, candidate_model
from pipeline.contracts import ChatMessage, Event
from pipeline.detector import Detector, PrefetchingDetector
from pipeline.registry import build_detectors
from pipeline.rules import RULES_PRESETS
from pipeline.runner import Pipeline
from pipeline.shadow import build_with_shadows
from simulator import demo_traffic

RESULTS = Path(__file__).resolve().parent / "results" / "shadow_overhead.json"
DEV = Path(__file__).resolve().parent.parent / "models" / "chat" / "evalsets" / "independent" / "dev"
TARGET_PCT = 10.0
BATCH = 500
LIVE = RULES_PRESETS["id-vi-2022-09-28"]
CANDIDATE = RULES_PRESETS["uk-2022-09-28"]
THRESHOLDS = {"insult": 0.9, "threat": 0.8}
LATENESS = timedelta(seconds=30)

Factory = Callable[[ChatClassifier], dict[str, Detector]]


def configurations(second: ChatClassifier | None = None, share: float | None = None) -> dict[str, Factory]:
    """Name -> detector set builder over the (cold) live model; `second`: a second model instance
    for `chat.classifier` in shadow with a candidate model (its own heads; on the live analyses, and
    on its own as a candidate with another word list would be); `share`:
    the chat configurations also on that share of the players."""

    def none(model: ChatClassifier) -> dict[str, Detector]:
        return build_detectors(rules=LIVE, classifier=model, chat_lateness=LATENESS)

    def shadow(name: str, rules: Any, thresholds: dict[str, float] | None, part: float = 1.0) -> Factory:
        def build(model: ChatClassifier) -> dict[str, Detector]:
            candidate = ThresholdView(model, thresholds) if thresholds else model
            return build_with_shadows(rules=LIVE, classifier=model, chat_lateness=LATENESS, names=(name,),
                                      shadow_rules=rules, shadow_classifier=candidate, share=part)
        return build

    def with_model(part: float, *, own_analysis: bool = False) -> Factory:
        def build(model: ChatClassifier) -> dict[str, Detector]:
            assert second is not None
            second.clear_cache()  # cold, like the live model
            candidate = second if own_analysis else candidate_model(model, second)
            return build_with_shadows(rules=LIVE, classifier=model, chat_lateness=LATENESS,
                                      names=("chat.classifier",), shadow_rules=LIVE, shadow_classifier=candidate,
                                      share=part)
        return build

    models = {} if second is None else {
        "chat.classifier (candidate model)": with_model(1.0),
        "chat.classifier (candidate model, own analysis)": with_model(1.0, own_analysis=True),
    }
    if share is not None:
        if second is not None:
            models[f"chat.classifier (candidate model, share {share:g})"] = with_model(share)
        models[f"chat.classifier (candidate thresholds, share {share:g})"] = shadow(
            "chat.classifier", LIVE, THRESHOLDS, share)
    return {
        **models,
        "none": none,
        "chat.classifier (candidate thresholds)": shadow("chat.classifier", LIVE, THRESHOLDS),
        "chat.classifier (live thresholds)": shadow("chat.classifier", LIVE, None),
        "seat.hit_and_run (candidate rules)": shadow("seat.hit_and_run", CANDIDATE, None),
    }


def retrained_copy(classifier: ChatClassifier, *, seed: int = 23) -> ChatClassifier:
    """The classifier with every head weight moved a little (x N(1, 0.1), seeded), as a model
    retrained on more data would be: its scores differ from the live ones on every line, so no
    live verdict or finding can stand in for its own (the same artifact twice would share them
    and hide the cost of a real candidate)."""
    model = classifier.model
    noise = np.random.default_rng(seed).normal(1.0, 0.1, size=model.weights.shape).astype(np.float32)
    return ChatClassifier(dataclasses.replace(model, weights=model.weights * noise))


def run_once(events: Sequence[tuple[str, Event]], model: ChatClassifier, build: Factory,
             counted: Callable[[], AbstractContextManager[None]] = nullcontext) -> dict[str, float]:
    """CPU seconds of the pipeline over the events, and its findings (live, shadow); `counted`:
    what the timed loop runs inside (a callgrind stretch with `--instructions`)."""
    model.clear_cache()
    model.views.clear()
    detectors = build(model)
    pipeline = Pipeline(detectors, rules=LIVE)
    # The runtime routes by detector name, looked up once (consumers/processing.py): a detector's
    # `topics` asked per event would time a chain of wrapper properties no consumer runs.
    prefetching = [(d, d.topics) for d in detectors.values() if isinstance(d, PrefetchingDetector)]
    live = shadow = 0
    gc.collect()  # the previous run's garbage is not this run's cost
    t0 = time.process_time()
    with counted():
        for i in range(0, len(events), BATCH):
            batch = events[i : i + BATCH]
            for detector, topics in prefetching:
                mine = [e for t, e in batch if t in topics]
                if mine:
                    detector.prefetch(mine)
            for topic, event in batch:
                for f in pipeline.process(topic, event).findings:
                    shadow += f.shadow
                    live += not f.shadow
    cpu = time.process_time() - t0
    rescored = sum(v.rescored for v in model.views)
    return {"cpu_s": cpu, "live": live, "shadow": shadow, "rescored": rescored}


def low_offence(events: Sequence[tuple[str, Event]], model: ChatClassifier) -> list[tuple[str, Event]]:
    """The events without the chat lines any live detector flags (one live pass finds them)."""
    model.clear_cache()
    model.views.clear()
    pipeline = Pipeline(build_detectors(rules=LIVE, classifier=model, chat_lateness=LATENESS), rules=LIVE)
    flagged: set[str] = set()
    for topic, event in events:
        for f in pipeline.process(topic, event).findings:
            if f.family == "chat":
                flagged.update(f.source_event_ids)
    return [(t, e) for t, e in events if not (t == "chat.messages" and e.event_id in flagged)]


def new_text(events: Sequence[tuple[str, Event]]) -> list[tuple[str, Event]]:
    """The events with each chat line's text replaced by the next distinct independent dev line."""
    lines: list[str] = []
    for path in sorted(DEV.glob("*.tsv")):
        lines += [row.split("\t", 2)[2] for row in path.read_text(encoding="utf-8").splitlines()[1:] if row.count("\t") >= 2]
    distinct = list(dict.fromkeys(lines))
    out: list[tuple[str, Event]] = []
    n = 0
    for topic, event in events:
        if isinstance(event, ChatMessage):
            event = event.model_copy(update={"text": distinct[n % len(distinct)]})
            n += 1
        out.append((topic, event))
    return out


def summarise(mix: str, events: Sequence[tuple[str, Event]], runs: dict[str, list[dict[str, float]]],
              n: int) -> dict[str, Any]:
    """Print one mix's medians and overheads; its JSON part."""
    base = statistics.median(r["cpu_s"] for r in runs["none"])
    chat = sum(1 for t, _ in events if t == "chat.messages")
    print(f"{mix} mix: {len(events):,} events ({chat:,} chat lines), median of {n} runs, CPU seconds")
    rows: dict[str, Any] = {}
    for name, results in runs.items():
        cpu = statistics.median(r["cpu_s"] for r in results)
        pct = (cpu - base) / base * 100
        first = results[0]
        verdict = "" if name == "none" else f"  overhead {pct:+.1f} % (target <= {TARGET_PCT:g} %: {'met' if pct <= TARGET_PCT else 'NOT met'})"
        print(f"  {name:<42} {cpu:7.3f} s  live {int(first['live']):>5}  shadow {int(first['shadow']):>5}{verdict}")
        rows[name] = {"cpu_s_median": round(cpu, 4), "cpu_s_runs": [round(r["cpu_s"], 4) for r in results],
                      "overhead_pct": None if name == "none" else round(pct, 2),
                      "live_findings": int(first["live"]), "shadow_findings": int(first["shadow"]),
                      "texts_rescored": int(first["rescored"])}
    return {"events": len(events), "chat_lines": chat, "configurations": rows}


def main(argv: list[str] | None = None) -> int:
    """Run every configuration `--runs` times (interleaved), print medians and overheads, write JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--with-model", action="store_true",
                        help="also chat.classifier in shadow with a candidate model (the shipped one with its head "
                             "weights moved, `retrained_copy`), on the live analyses and scoring alone")
    parser.add_argument("--share", type=float, default=None,
                        help="also the chat configurations with the copies on this share of the players")
    parser.add_argument("--new-text", action="store_true",
                        help="also a mix whose chat lines are distinct independent dev lines (no memo hits)")
    parser.add_argument("--instructions", action="store_true",
                        help="count executed instructions with callgrind instead of timing (one counted run per "
                             "configuration after a warm one; needs valgrind and gcc; about 50x slower)")
    parser.add_argument("--counted-child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.instructions:
        return instructions(sys.argv[1:] if argv is None else argv)
    events = list(demo_traffic(seed=args.seed, minutes=args.minutes, players=args.players))
    model = load_classifier()
    configs = configurations(retrained_copy(load_classifier()) if args.with_model else None, args.share)
    mixes = {"simulated": events, "low-offence": low_offence(events, model)}
    if args.new_text:
        mixes["new-text"] = new_text(events)
    run_once(events[:BATCH], model, configs["none"])  # warm the imports and code paths once
    if args.counted_child is not None:
        counter = _callgrind.Counter()
        for mix, mixed in mixes.items():
            for name, build in configs.items():
                run_once(mixed, model, build)  # warm: the model's first batches, the allocator
                found = run_once(mixed, model, build, functools.partial(counter.stretch, f"{mix}|{name}"))
                (args.counted_child / f"{mix}|{name}.json").write_text(json.dumps(found))
        return 0
    report: dict[str, Any] = {}
    for mix, mixed in mixes.items():
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in configs}
        names = list(configs)
        for i in range(args.runs):  # interleaved and rotated, so load on the shared machine hits all alike
            for name in names[i % len(names):] + names[: i % len(names)]:
                runs[name].append(run_once(mixed, model, configs[name]))
        report[mix] = summarise(mix, mixed, runs, args.runs)
    result = {
        "python": platform.python_version(), "machine": platform.machine(), "runs": args.runs,
        "simulated_minutes": args.minutes, "players": args.players, "batch": BATCH, "share": args.share,
        "target_overhead_pct": TARGET_PCT, "mixes": report,
        "load_average_at_end": list(os.getloadavg()), "cpu_count": os.cpu_count(),
    }
    out = (RESULTS.with_name("shadow_overhead_share.json") if args.share is not None
           else RESULTS.with_name("shadow_overhead_model.json") if args.with_model else RESULTS)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


def instructions(argv: list[str]) -> int:
    """Run the bench again under callgrind, one counted run per mix and configuration; print each
    configuration's instructions against `none` and write shadow_overhead_instructions.json."""
    child = [a for a in argv if a != "--instructions"]
    try:
        with _callgrind.counted_run("bench.shadow_overhead", child) as (counts, out):
            found = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    except _callgrind.CountError as exc:
        print(exc)
        return 2
    report: dict[str, Any] = {}
    for key in sorted(counts, key=lambda k: (k.split("|")[0], k.split("|")[1] != "none")):
        mix, name = key.split("|")
        base = counts[f"{mix}|none"]
        pct = (counts[key] - base) / base * 100
        verdict = "" if name == "none" else f"  overhead {pct:+.1f} % (target <= {TARGET_PCT:g} %: {'met' if pct <= TARGET_PCT else 'NOT met'})"
        print(f"{mix:<12} {name:<52} {counts[key] / 1e6:9.1f} M instructions{verdict}")
        report.setdefault(mix, {})[name] = {
            "instructions": counts[key], "overhead_pct": None if name == "none" else round(pct, 2),
            "live_findings": int(found[key]["live"]), "shadow_findings": int(found[key]["shadow"])}
    result = {"python": platform.python_version(), "machine": platform.machine(), "argv": argv,
              "measure": "instructions executed in the timed loop (callgrind, PYTHONHASHSEED=0, after a warm run)",
              "target_overhead_pct": TARGET_PCT, "mixes": report}
    path = RESULTS.with_name("shadow_overhead_instructions.json")
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
