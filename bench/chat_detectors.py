"""Throughput and latency of every chat rule detector (with a trivial classifier), median of runs.

Feeds a deterministic mix of table talk, planted offences, hand talk and floods in five languages
(the simulator's lines) through the chat detectors and policy, as the runner does, one message at
a time. Peer in the same run: alt-profanity-check (`predict_prob`, one batch), the English-only
model the design names. Also the same traffic with every text made unique, as a check that
the figures do not rest on memos keyed by text being hit by repeated lines. Writes
bench/results/chat_detectors.json.

The garbage collector is set as `railbird consume` sets it: once the detectors are built, each
run calls `railbird.gc_tuning.tune_gc` (freeze what exists, higher thresholds, survivors of older
collections frozen), the step the consumer process takes after building its lanes, so the figures
are those of the collector production runs. The resident set size after each run is reported
(`rss_mib_after_runs`) as the check that those settings do not let memory grow from run to run.
`machine_loop_s_before_after` is the machine's speed before and after (bench/_machine.py): rates
from sessions on differently fast machines are set side by side with it, never compared bare.

    .venv/bin/python -m bench.chat_detectors [--messages 30000] [--runs 5] [--out FILE]
    .venv/bin/python -m bench.chat_detectors --instructions   # executed instructions per message
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench import _callgrind, _machine
from pipeline.contracts import CHAT, ChatMessage
from pipeline.detector import Detector
from pipeline.detectors.chat import build_chat_detectors
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from pipeline.text_model import TextVerdict
from railbird.gc_tuning import tune_gc
from simulator import abuse, phrases

RESULTS = Path(__file__).resolve().parent / "results" / "chat_detectors.json"
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


class TrivialClassifier:
    """Returns a clean verdict instantly: the bench measures the rules, not the model."""

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        return [TextVerdict(scores={}) for _ in texts]


def corpus(n: int, *, seed: int = 7) -> list[ChatMessage]:
    """n messages from 3,000 players at 300 tables, ~200 messages per second of event time."""
    rng = random.Random(seed)
    benign = [ln for bank in (phrases.DURING_HAND, phrases.AFTER_HAND) for g in bank.values() for ln in g]
    bad = [ln for bank in abuse.VIOLATIONS.values() for g in bank.values() for ln in g]
    floods = [ln for g in abuse.FLOOD_LINES.values() for ln in g] + list(abuse.EMOJI_SPAM)
    nicknames = ["".join(p) for p in zip(*phrases.NICKNAME_PARTS, strict=False)] + list(
        phrases.OFFENSIVE_NICKNAMES
    )
    out: list[ChatMessage] = []
    for i in range(n):
        roll = rng.random()
        pool = benign if roll < 0.85 else bad if roll < 0.95 else floods
        text = rng.choice(pool).format(v="Alice", t="Bob", c=rng.choice(["AhKd", "pocket kings", "QQ"]))
        if rng.random() < 0.5:
            # Half the lines get a tail, so caches keyed by text do not flatter the figures.
            text = f"{text} {rng.choice(['lol', 'haha', '!!', 'bro', '🙂', 'ok', ''])}{rng.randrange(1000)}"
        player = rng.randrange(3000)
        table = player % 300
        running = rng.random() < 0.6
        out.append(
            ChatMessage(
                event_id=f"b{i}",
                ts=T0 + timedelta(milliseconds=5 * i),
                channel="table",
                player_id=f"p{player}",
                nickname=nicknames[player % len(nicknames)] + str(player),
                text=text,
                client="desktop",
                table_id=f"t{table}",
                hand_id=f"h{table}-{i // 2000}" if running else None,
                players_in_hand=tuple(f"p{table + 300 * k}" for k in range(4)) if running else None,
            )
        )
    return out


def every_text_new(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The same messages, each text made unique by a numbered tail: no memo keyed by text
    (the detectors share per-text work on each line) is ever hit by an earlier message."""
    return [m.model_copy(update={"text": f"{m.text} #{i}"}) for i, m in enumerate(messages)]


def _pipeline(detectors: list[Detector]) -> Pipeline:
    return Pipeline({d.name: d for d in detectors}, rules=RulesConfig())


def run_all(
    messages: list[ChatMessage], around: Callable[[], AbstractContextManager[None]] = nullcontext
) -> tuple[float, float, list[float], int]:
    """One pass through every chat detector with policy: wall and CPU seconds, latencies, findings.

    CPU seconds are reported too because the bench machine is shared: wall time on a loaded
    2-core box understates what one core does. `around`: what the loop runs inside (a callgrind
    stretch with `--instructions`), after the detectors are built.
    """
    pipeline = _pipeline(build_chat_detectors(rules=RulesConfig(), classifier=TrivialClassifier()))
    tune_gc()  # what the consumer does once its detectors exist (railbird/commands/consume.py)
    latencies: list[float] = []
    findings = 0
    with around():
        start, cpu = time.perf_counter(), time.process_time()
        for message in messages:
            t = time.perf_counter()
            findings += len(pipeline.process(CHAT, message).findings)
            latencies.append(time.perf_counter() - t)
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    return seconds, cpu_seconds, latencies, findings


INSTRUCTIONS = RESULTS.with_name("chat_detectors_instructions.json")


def instructions(n: int) -> int:
    """The bench's loop under callgrind: instructions executed per message, for the corpus and with
    every text new, each counted after one warm run (the timed medians are of warm runs too: the
    text memos are per process). Unlike CPU time on this shared machine, the count does not move
    with load, so two versions of the code compare to the instruction."""
    try:
        with _callgrind.counted_run("bench.chat_detectors", ["--messages", str(n)]) as (counts, _):
            pass
    except _callgrind.CountError as exc:
        print(exc)
        return 2
    figures = {label: round(total / n) for label, total in sorted(counts.items())}
    for label, per_message in figures.items():
        print(f"{label:<16} {per_message:>9,} instructions per message")
    result = {"messages": n, "instructions_per_message": figures, "python": platform.python_version(),
              "measure": "instructions executed in the loop of `run_all` (callgrind, PYTHONHASHSEED=0, after a warm run)"}
    INSTRUCTIONS.parent.mkdir(parents=True, exist_ok=True)
    INSTRUCTIONS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {INSTRUCTIONS}")
    return 0


def counted_child(n: int) -> None:
    """What `instructions` runs under callgrind: each corpus warm once, then counted once."""
    counter = _callgrind.Counter()
    messages = corpus(n)
    for label, mixed in (("corpus", messages), ("every_text_new", every_text_new(messages))):
        run_all(mixed)
        run_all(mixed, functools.partial(counter.stretch, label))


def run_each(messages: list[ChatMessage]) -> dict[str, float]:
    """Messages per second of each chat detector alone (fresh state, no policy)."""
    out: dict[str, float] = {}
    for detector in build_chat_detectors(rules=RulesConfig(), classifier=TrivialClassifier()):
        if CHAT not in detector.topics:
            continue
        start = time.perf_counter()
        for message in messages:
            detector.process(message)
        out[detector.name] = len(messages) / (time.perf_counter() - start)
    return out


def run_peer(messages: list[ChatMessage]) -> float | None:
    """alt-profanity-check on the same texts in one batch (None when it is not installed)."""
    try:
        from profanity_check import predict_prob
    except ImportError:
        return None
    texts = [m.text for m in messages]
    start = time.perf_counter()
    predict_prob(texts)
    return len(texts) / (time.perf_counter() - start)


def _rss_mib() -> float | None:
    """This process's resident set size now (Linux /proc; None elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    """Run the benchmark, print medians and the ratio to the peer, write the JSON figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=30_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS, help="results file (a profiling run need not overwrite it)")
    parser.add_argument("--instructions", action="store_true",
                        help="count executed instructions per message with callgrind instead of timing "
                             f"(writes {INSTRUCTIONS.name}; needs valgrind and gcc; about 50x slower)")
    parser.add_argument("--counted-child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.instructions:
        return instructions(args.messages)
    if args.counted_child is not None:
        counted_child(args.messages)
        return 0
    loop_before = _machine.loop_seconds()
    messages = corpus(args.messages)
    unique = every_text_new(messages)
    rates, cpu_rates, p50s, p99s, per_detector, peers, unique_cpu_rates = [], [], [], [], [], [], []
    findings = 0
    rss: list[float | None] = []
    for _ in range(args.runs):
        seconds, cpu_seconds, latencies, findings = run_all(messages)
        rates.append(len(messages) / seconds)
        cpu_rates.append(len(messages) / cpu_seconds)
        unique_cpu_rates.append(len(unique) / run_all(unique)[1])
        p50s.append(_pct(latencies, 0.50) * 1e6)
        p99s.append(_pct(latencies, 0.99) * 1e6)
        per_detector.append(run_each(messages))
        peer = run_peer(messages)
        if peer is not None:
            peers.append(peer)
        rss.append(_rss_mib())
    rate = statistics.median(rates)
    peer_rate = statistics.median(peers) if peers else None
    figures = {
        "messages": len(messages),
        "runs": args.runs,
        "findings_per_run": findings,
        "all_chat_rules_msgs_per_s": round(rate),
        "all_chat_rules_msgs_per_cpu_s": round(statistics.median(cpu_rates)),
        "all_chat_rules_msgs_per_cpu_s_every_text_new": round(statistics.median(unique_cpu_rates)),
        "all_chat_rules_msgs_per_cpu_s_runs": [round(r) for r in cpu_rates],
        "rss_mib_after_runs": rss,
        "load_average_1m": round(os.getloadavg()[0], 2),
        "machine_loop_s_before_after": [loop_before, _machine.loop_seconds()],
        "latency_us": {"p50": round(statistics.median(p50s), 1), "p99": round(statistics.median(p99s), 1)},
        "per_detector_msgs_per_s": {
            name: round(statistics.median(run[name] for run in per_detector)) for name in per_detector[0]
        },
        "peer": {
            "name": "alt-profanity-check predict_prob, one batch",
            "msgs_per_s": round(peer_rate) if peer_rate else None,
        },
        "ratio_vs_peer": round(rate / peer_rate, 3) if peer_rate else None,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    print(json.dumps(figures, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
