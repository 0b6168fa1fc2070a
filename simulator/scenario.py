"""Runs a simulated room through a pipeline in-process and scores the findings against truth."""

from __future__ import annotations

import statistics
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
    langs = result.get("chat_recall_by_language", {})
    if langs:
        rows.append("")
        rows.append("| language | planted chat offences | recall |\n|---|---:|---:|")
        rows += [f"| {lang} | {e['truth']} | {_fmt(e['recall'])} |" for lang, e in langs.items()]
    return "\n".join([head, *rows])


def combine(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Pool several runs (e.g. seeds) per category: counts summed, rates recomputed from them."""
    hours = sum(r["honest_player_hours"] for r in results)
    pooled: dict[str, dict[str, Any]] = {}
    for r in results:
        for cat, s in r["categories"].items():
            p = pooled.setdefault(cat, {"truth": 0, "findings": 0, "true_findings": 0, "found": 0,
                                        "false_findings": 0, "ttd": [], "detectors": set(), "status": set()})
            for key in ("truth", "findings", "true_findings", "found", "false_findings"):
                p[key] += s[key]
            if s["median_ttd_s"] is not None:
                p["ttd"].append(s["median_ttd_s"])
            p["detectors"] |= set(s["detectors"])
            p["status"].add(s["status"])
    categories = {}
    for cat, p in sorted(pooled.items()):
        statuses = sorted(p["status"] - {"ok"}) if "ok" not in p["status"] else ["ok"]
        categories[cat] = {
            "truth": p["truth"], "findings": p["findings"], "true_findings": p["true_findings"], "found": p["found"],
            "precision": round(p["true_findings"] / p["findings"], 4) if p["findings"] else None,
            "recall": round(p["found"] / p["truth"], 4) if p["truth"] else None,
            "median_ttd_s": round(statistics.median(p["ttd"]), 1) if p["ttd"] else None,
            "false_per_10k_honest_hours": round(p["false_findings"] / hours * 10_000, 2) if hours else None,
            "detectors": sorted(p["detectors"]), "status": statuses[0],
        }
    languages: dict[str, dict[str, Any]] = {}
    for r in results:
        for lang, e in r.get("chat_recall_by_language", {}).items():
            entry = languages.setdefault(lang, {"truth": 0, "found": 0})
            entry["truth"] += e["truth"]
            entry["found"] += e["found"]
    for entry in languages.values():
        entry["recall"] = round(entry["found"] / entry["truth"], 4) if entry["truth"] else None
    return {"runs": len(results), "honest_player_hours": round(hours, 2), "categories": categories,
            "chat_recall_by_language": dict(sorted(languages.items()))}
