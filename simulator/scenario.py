"""Runs a simulated room through a pipeline in-process and scores the findings against truth."""

from __future__ import annotations

import statistics
import time
from collections import Counter
from datetime import datetime
from typing import Any

from pipeline.contracts import HandRecord
from pipeline.findings import Finding
from pipeline.hands.features import hand_features
from pipeline.runner import Pipeline
from simulator.config import HONEST_PERSONAS, RoomConfig
from simulator.evaluation import DEFAULT_SLACK, match, relevant_truth, score
from simulator.room import Room
from simulator.truth import TruthRow

SOFT_PLAY_SAMPLE = 35
"""Heads-up post-flop betting chances each way from which soft play from play alone is claimed
(docs/hand-integrity.md); rows below it are reported apart."""


def run_scenario(
    *, pipeline: Pipeline, config: RoomConfig, registered: list[str], exempt_formats: frozenset[str],
) -> dict[str, Any]:
    """Generate the room, feed every event to the pipeline, and score per category and detector."""
    room = Room(config)
    findings: list[Finding] = []
    errors: Counter[str] = Counter()
    began = time.perf_counter()
    events = 0
    pairs = {frozenset(g.members[:2]) for g in room.population.groups if g.kind in ("soft_play", "bounty")}
    chances: dict[tuple[str, str], list[tuple[datetime, int]]] = {}
    for topic, event in room.events():
        if isinstance(event, HandRecord) and pairs:
            _count_chances(event, pairs, chances)
        outcome = pipeline.process(topic, event)
        findings.extend(outcome.findings)
        for err in outcome.errors:
            errors[err.detector] += 1
        events += 1
    # The room has ended: what the reorder buffers (place-keyed chat, seat) still hold is emitted.
    outcome = pipeline.flush()
    findings.extend(outcome.findings)
    for err in outcome.errors:
        errors[err.detector] += 1
    elapsed = time.perf_counter() - began
    summary = room.summary()
    truth = relevant_truth(room.truth, exempt_formats=exempt_formats)
    honest = frozenset(
        p.id for p in room.population.players.values()
        if p.persona_name in HONEST_PERSONAS and not p.offensive_nickname
    )
    result = score(findings, truth, honest_hours=summary["honest_player_hours"], registered=registered,
                   honest_players=honest)
    result["soft_play_by_sample"] = soft_play_by_sample(truth, findings, chances)
    return {
        "seed": config.seed, "profile": config.profile, "minutes": config.minutes, "players": summary["players"],
        "events": summary["events"], "honest_player_hours": summary["honest_player_hours"],
        "detectors_registered": registered, "detector_errors": dict(errors),
        "elapsed_s": round(elapsed, 2), "events_per_s": round(events / elapsed) if elapsed else None,
        **result,
    }


def _count_chances(record: HandRecord, pairs: set[frozenset[str]],
                   out: dict[tuple[str, str], list[tuple[datetime, int]]]) -> None:
    """Heads-up post-flop betting chances (checked to, could bet) of each planted pair's members
    into each other in this hand, with the same feature code the detector uses."""
    players = record.players
    if record.replay is None or not any(p <= set(players) for p in pairs):
        return
    features = hand_features(record.replay, seed=record.hand_id, starting_stacks=record.starting_stacks, bounty_won={})
    for (hero, villain), obs in features.pairs.items():
        if obs.bet_chances and frozenset((players[hero], players[villain])) in pairs:
            out.setdefault((players[hero], players[villain]), []).append((record.ts, obs.bet_chances))


def soft_play_by_sample(truth: list[TruthRow], findings: list[Finding],
                        chances: dict[tuple[str, str], list[tuple[datetime, int]]]) -> dict[str, Any]:
    """Soft-play recall split at the stated sample size: rows in which the pair had at least
    `SOFT_PLAY_SAMPLE` heads-up post-flop betting chances each way within the row's own window
    (the offence itself offered that sample), and the rest; cash pairs and bounty pairs (one row
    per tournament) apart."""
    scored = match(findings, truth)
    found = {k for s in scored for k in s.matched}
    out: dict[str, dict[str, Any]] = {}
    for k, row in enumerate(truth):
        if row.category != "soft_play" or len(row.players) < 2:
            continue
        a, b = row.players[:2]
        lo, hi = row.start - DEFAULT_SLACK, row.end + DEFAULT_SLACK
        each = [sum(n for ts, n in chances.get(d, []) if lo <= ts <= hi) for d in ((a, b), (b, a))]
        context = "bounty" if row.detail.get("context") == "bounty agreement" else "cash"
        size = "at_sample" if min(each) >= SOFT_PLAY_SAMPLE else "below_sample"
        for name in (size, f"{context}_{size}"):
            entry = out.setdefault(name, {"truth": 0, "found": 0})
            entry["truth"] += 1
            entry["found"] += k in found
    for entry in out.values():
        entry["recall"] = round(entry["found"] / entry["truth"], 4) if entry["truth"] else None
    return {"min_chances_each_way": SOFT_PLAY_SAMPLE, **dict(sorted(out.items()))}


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
    sample = result.get("soft_play_by_sample", {})
    if any(isinstance(e, dict) and e["truth"] for e in sample.values()):
        rows.append("")
        rows.append(f"| soft play rows (heads-up post-flop betting chances each way, at least "
                    f"{sample['min_chances_each_way']} = at sample) | planted | found | recall |\n|---|---:|---:|---:|")
        rows += [f"| {name} | {e['truth']} | {e['found']} | {_fmt(e['recall'])} |"
                 for name, e in sample.items() if isinstance(e, dict)]
    bounty = result.get("bounty_agreement_rows", {})
    if bounty:
        rows.append("")
        rows.append("| bounty agreement rows | planted | found | recall |\n|---|---:|---:|---:|")
        rows += [f"| {name} | {e['truth']} | {e['found']} | {_fmt(e['recall'])} |" for name, e in bounty.items()]
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
    bounty: dict[str, dict[str, Any]] = {}
    for r in results:
        for name, e in r.get("bounty_agreement_rows", {}).items():
            entry = bounty.setdefault(name, {"truth": 0, "found": 0})
            entry["truth"] += e["truth"]
            entry["found"] += e["found"]
    for entry in bounty.values():
        entry["recall"] = round(entry["found"] / entry["truth"], 4) if entry["truth"] else None
    sample: dict[str, Any] = {"min_chances_each_way": SOFT_PLAY_SAMPLE}
    for r in results:
        for name, e in r.get("soft_play_by_sample", {}).items():
            if isinstance(e, dict):
                entry = sample.setdefault(name, {"truth": 0, "found": 0})
                entry["truth"] += e["truth"]
                entry["found"] += e["found"]
    for entry in sample.values():
        if isinstance(entry, dict):
            entry["recall"] = round(entry["found"] / entry["truth"], 4) if entry["truth"] else None
    return {"runs": len(results), "honest_player_hours": round(hours, 2), "categories": categories,
            "chat_recall_by_language": dict(sorted(languages.items())),
            **({"bounty_agreement_rows": bounty} if bounty else {}), "soft_play_by_sample": sample}
