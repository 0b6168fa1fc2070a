"""Renders docs/performance.md and docs/performance.png from bench/results/*.json (after `make bench`).

Each figure is read from the JSON the benchmark wrote in its last run; nothing here is typed by
hand, so the table always matches the results files in the same commit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after use("Agg"): no display on servers

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DOC = ROOT / "docs" / "performance.md"
CHART = ROOT / "docs" / "performance.png"


def _load() -> dict[str, Any]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(RESULTS.glob("*.json"))}


def _get(data: dict[str, Any], path: str) -> Any:
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


ROWS: list[tuple[str, str, str, float, str, str | None]] = [
    # (what, results file, json path, target, direction, peer path)
    ("chat classifier, msgs per CPU-second (batch)", "chat_classifier", "dataset_texts.cpu.railbird_msgs_per_s_median",
     20_000, ">=", "dataset_texts.cpu.profanity_check_msgs_per_s_median"),
    # The timed runs reuse the memos the first pass filled (language votes lingua had to decide);
    # the cold pass, every memo emptied, is what lines never seen before cost: shown, not hidden.
    ("chat classifier, msgs per CPU-second, cold pass (memos emptied)", "chat_classifier",
     "dataset_texts.cold_pass_msgs_per_cpu_s", 20_000, ">=", None),
    ("chat classifier, msgs per CPU-second, never-seen texts", "chat_classifier",
     "dataset_texts.unseen_msgs_per_cpu_s", 20_000, ">=", None),
    # Judged on CPU time (bench/chat_classifier.py says why); the wall-clock p99 on the shared,
    # loaded machine is shown beside it, not hidden.
    ("chat classifier, single message p99 ms (CPU time, judged)", "chat_classifier",
     "dataset_texts.cpu.railbird_single.p99_ms", 2, "<=", "dataset_texts.cpu.profanity_check_single.p99_ms"),
    ("chat classifier, single message p99 ms (wall clock)", "chat_classifier",
     "dataset_texts.wall.railbird_single.p99_ms", 2, "<=", "dataset_texts.wall.profanity_check_single.p99_ms"),
    ("chat rule detectors, msgs per CPU-second", "chat_detectors", "all_chat_rules_msgs_per_cpu_s", 20_000, ">=",
     "peer.msgs_per_s"),
    ("seat detectors, events/s", "seat_detectors", "seat_events_per_s_median", 20_000, ">=", None),
    ("hand detectors, hands per CPU-second", "hand_detectors", "detectors.median_hands_per_cpu_s", 2_000, ">=",
     "peer_pokerkit_replay_hands_per_s"),
    ("simulator, events/s (no hands)", "simulator_rate", "no_hands_events_per_s_median", 20_000, ">=", None),
    ("end to end, chat msgs/s (all detectors)", "e2e", "modes.registry.runtime_e2e_msgs_per_s_median", 5_000, ">=",
     "bare_kafka_python_msgs_per_s_median"),
    ("produce -> enforcement event p99 ms at 1,000/s", "e2e", "enforcement_latency.latency_ms_by_rate.1000.p99",
     250, "<=", None),
    ("review API queue page p99 ms (1M cases, PostgreSQL)", "api_latency", "queue_page.p99_ms", 50, "<=", None),
    ("review API case page p99 ms (1M cases, PostgreSQL)", "api_latency", "case_page.p99_ms", 100, "<=", None),
    ("SIGKILL run: lost / duplicated effects", "faults", "lost_findings", 0, "<=", None),
]


def _row(results: dict[str, Any], row: tuple[str, str, str, float, str, str | None]) -> str:
    what, name, path, target, direction, peer_path = row
    data = results.get(name, {})
    value = _get(data, path)
    peer = _get(data, peer_path) if peer_path else None
    if value is None:
        return f"| {what} | not measured | {direction} {target:g} | | |"
    met = value >= target if direction == ">=" else value <= target
    ratio = f"{value / peer:.3g}" if isinstance(peer, int | float) and peer else ""
    return f"| {what} | {value:,.1f} | {direction} {target:g} | {'yes' if met else '**no**'} | {ratio} |"


def _chart(results: dict[str, Any]) -> None:
    e2e = results.get("e2e", {})
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, path in (
        ("runtime, test double API", "modes.doubles.latency_ms_by_rate"),
        ("runtime, all detectors", "modes.registry.latency_ms_by_rate"),
        ("to enforcement event (real API)", "enforcement_latency.latency_ms_by_rate"),
    ):
        series = _get(e2e, path) or {}
        rates = sorted(int(r) for r in series)
        if rates:
            ax.plot(rates, [series[str(r)]["p99"] for r in rates], marker="o", label=label)
    ax.axhline(250, linestyle="--", color="grey", label="target p99 250 ms")
    ax.set_xlabel("offered load, chat messages/s")
    ax.set_ylabel("p99 latency, ms (log)")
    ax.set_yscale("log")
    ax.set_title("How latency grows with load (embedded broker, 2 cores)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(CHART, dpi=110)
    plt.close(fig)


def main() -> int:
    """Write the doc and the chart from the latest results."""
    results = _load()
    lines = [
        "# Performance",
        "",
        "Generated by `python -m bench._report` from `bench/results/*.json` (the last run of each",
        "benchmark; `make bench` reruns them all). Medians over repeated runs; this 2-core machine is",
        "shared and noisy, so several benchmarks also report CPU-time rates (see each JSON file).",
        "",
        "| measure | last run | target | met | ratio to peer |",
        "|---|---|---|---|---|",
        *(_row(results, row) for row in ROWS),
        "",
        "Peers: alt-profanity-check (English-only sklearn model) for chat; pokerkit's hand replay for hand",
        "records; a bare kafka-python consume loop on the same broker for end to end.",
        "",
        "![latency against load](performance.png)",
        "",
        "Memory: seat detectors' peak grows with active players, not history "
        f"({_memory_line(results)}); hand detectors' state is bounded by TTL and pair caps",
        "(`bench/results/hand_detectors.json`).",
        "",
    ]
    _chart(results)
    DOC.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)} and {CHART.relative_to(ROOT)}")
    return 0


def _memory_line(results: dict[str, Any]) -> str:
    rows = _get(results.get("seat_detectors", {}), "memory") or []
    parts = [f"{r.get('active_players')} players: {r.get('tracemalloc_peak_mib')} MiB" for r in rows if isinstance(r, dict)]
    return "; ".join(parts) or "not measured"


if __name__ == "__main__":
    raise SystemExit(main())
