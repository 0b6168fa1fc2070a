"""Runs a simulated room through a pipeline in-process and scores the findings against truth."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from pipeline.findings import Finding
from pipeline.runner import Pipeline
from simulator.config import HONEST_PERSONAS, RoomConfig
from simulator.evaluation import relevant_truth, score
from simulator.room import Room


def run_scenario(
    *, pipeline: Pipeline, config: RoomConfig, registered: list[str], exempt_formats: frozenset[str],
) -> dict[str, Any]:
    """Generate the room, feed every event to the pipeline, and score per category and detector."""
    room = Room(config)
    findings: list[Finding] = []
    errors: Counter[str] = Counter()
    began = time.perf_counter()
    events = 0
    for topic, event in room.events():
        outcome = pipeline.process(topic, event)
        findings.extend(outcome.findings)
        for err in outcome.errors:
            errors[err.detector] += 1
        events += 1
    elapsed = time.perf_counter() - began
    summary = room.summary()
    truth = relevant_truth(room.truth, exempt_formats=exempt_formats)
    honest = frozenset(
        p.id for p in room.population.players.values()
        if p.persona_name in HONEST_PERSONAS and not p.offensive_nickname
    )
    result = score(findings, truth, honest_hours=summary["honest_player_hours"], registered=registered,
                   honest_players=honest)
    return {
        "seed": config.seed, "profile": config.profile, "minutes": config.minutes, "players": summary["players"],
        "events": summary["events"], "honest_player_hours": summary["honest_player_hours"],
        "detectors_registered": registered, "detector_errors": dict(errors),
        "elapsed_s": round(elapsed, 2), "events_per_s": round(events / elapsed) if elapsed else None,
        **result,
    }


def _fmt(value: Any) -> str:
    return "–" if value is None else (f"{value:.2f}" if isinstance(value, float) else str(value))


def markdown_table(result: dict[str, Any]) -> str:
    """Per-category results of one scenario run as a Markdown table (for docs/quality.md)."""
    head = ("| category | planted | findings | precision | recall | median TTD s | false /10k honest h | detectors |\n"
            "|---|---:|---:|---:|---:|---:|---:|---|")
    rows = [
        f"| {cat} | {s['truth']} | {s['findings']} | {_fmt(s['precision'])} | {_fmt(s['recall'])} | "
        f"{_fmt(s['median_ttd_s'])} | {_fmt(s['false_per_10k_honest_hours'])} | "
        f"{', '.join(s['detectors']) or s['status']} |"
        for cat, s in result["categories"].items()
    ]
    return "\n".join([head, *rows])
