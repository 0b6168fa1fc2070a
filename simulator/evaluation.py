"""Scores findings against the simulator's ground truth, per category and per detector.

A finding matches a truth row when (1) the categories are equal, (2) the finding's main subject
(`players[0]`) is one of the row's players, and (3) the finding's interval — from the earlier of
`window_start` and `ts` to the later of `window_end` and `ts` — overlaps the row's [start, end]
widened by `slack` on both sides. Precision counts findings that match at least one row; recall
counts rows matched by at least one finding; time to detection of a matched row is the first
matching finding's `ts` minus the row's `end`, floored at zero. See docs/quality.md.

Bounty agreements are rows per tournament, so there (4) a finding that names tournaments (its
`tournament_id` and `evidence.tournaments`) matches only the rows of those tournaments: a case found
in one tournament does not count for another one it merely overlaps in time. `bounty_breakdown`
splits the rows by chat / no chat and by whether the pair acted on the agreement in play.

Pair offences (bounty agreements, soft play, chip dumping) are offences of two players together, so
there (5) a finding that names two or more players matches a row only when its first two are both
among the row's players: a real colluder flagged with an honest player is a false pair, not a hit
(before, condition (2) alone counted it). A finding naming one player (a table line of agreement
talk) is matched on that player as before.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pipeline.categories import CATEGORIES
from pipeline.findings import Finding
from simulator.truth import TruthRow

DEFAULT_SLACK = timedelta(seconds=60)
TOURNAMENT_SCOPED = frozenset({"bounty_agreement"})
"""Categories whose rows are per tournament: a finding naming tournaments matches only those."""
PAIR_CATEGORIES = frozenset({"bounty_agreement", "soft_play", "chip_dumping"})
"""Categories whose offence is a pair's: a finding naming a pair matches only rows of that pair."""


@dataclass(frozen=True, slots=True)
class Scored:
    """Which truth rows each finding matched (indices into the truth list)."""

    finding: Finding
    matched: tuple[int, ...]


def interval(finding: Finding) -> tuple[datetime, datetime]:
    """The span of room time a finding speaks about."""
    start = min(finding.window_start or finding.ts, finding.ts)
    end = max(finding.window_end or finding.ts, finding.ts)
    return start, end


def relevant_truth(rows: Iterable[TruthRow], *, exempt_formats: frozenset[str]) -> list[TruthRow]:
    """Truth under the rules version evaluated: hit-and-runs in exempt formats are not offences."""
    return [r for r in rows if not (r.category == "hit_and_run" and r.detail.get("format") in exempt_formats)]


def named_tournaments(finding: Finding) -> frozenset[str]:
    """The tournaments a finding speaks about: its own and those its evidence lists."""
    listed = finding.evidence.get("tournaments") if isinstance(finding.evidence, dict) else None
    names = (
        {t.get("tournament_id") for t in listed if isinstance(t, dict)} if isinstance(listed, list) else set()
    )
    names.add(finding.tournament_id)
    return frozenset(n for n in names if isinstance(n, str))


def _same_tournament(finding: Finding, row: TruthRow, names: frozenset[str]) -> bool:
    if row.category not in TOURNAMENT_SCOPED or row.tournament_id is None or not names:
        return True
    return row.tournament_id in names


def _same_pair(finding: Finding, row: TruthRow) -> bool:
    if row.category not in PAIR_CATEGORIES or len(finding.players) < 2:
        return True
    return set(finding.players[:2]) <= set(row.players)


def match(
    findings: Sequence[Finding], truth: Sequence[TruthRow], *, slack: timedelta = DEFAULT_SLACK
) -> list[Scored]:
    """Each finding with the truth rows it matches."""
    index: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, row in enumerate(truth):
        for player in row.players:
            index[(row.category, player)].append(k)
    out = []
    for f in findings:
        start, end = interval(f)
        names = named_tournaments(f)
        hits = tuple(
            k
            for k in index.get((f.category, f.subject), ())
            if start <= truth[k].end + slack
            and end >= truth[k].start - slack
            and _same_tournament(f, truth[k], names)
            and _same_pair(f, truth[k])
        )
        out.append(Scored(f, hits))
    return out


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _per_10k(count: int, hours: float) -> float | None:
    return round(count / hours * 10_000, 2) if hours > 0 else None


def _delays(scored: Sequence[Scored], truth: Sequence[TruthRow]) -> dict[int, float]:
    """Seconds from each matched row's end to its first matching finding (0 if flagged sooner)."""
    first: dict[int, datetime] = {}
    for s in scored:
        for k in s.matched:
            if k not in first or s.finding.ts < first[k]:
                first[k] = s.finding.ts
    return {k: max(0.0, (ts - truth[k].end).total_seconds()) for k, ts in first.items()}


def score(
    findings: Sequence[Finding],
    truth: Sequence[TruthRow],
    *,
    honest_hours: float,
    registered: Sequence[str],
    slack: timedelta = DEFAULT_SLACK,
    honest_players: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Precision, recall, median time to detection and false findings per 10k honest player-hours."""
    scored = match(findings, truth, slack=slack)
    delays = _delays(scored, truth)
    categories = sorted(set(CATEGORIES) | {r.category for r in truth} | {f.category for f in findings})
    per_category: dict[str, Any] = {}
    for cat in categories:
        rows = [k for k, r in enumerate(truth) if r.category == cat]
        mine = [s for s in scored if s.finding.category == cat]
        true_findings = sum(1 for s in mine if s.matched)
        found = [k for k in rows if k in delays]
        false = len(mine) - true_findings
        emitted_by = sorted({s.finding.detector for s in mine})
        if not rows and not mine:
            continue
        status = "ok"
        owners = [n for n in registered if n.rsplit(".", 1)[-1] == cat]
        if not mine:
            status = (
                f"{', '.join(owners)} registered, no findings"
                if owners
                else "no detector emitted this category"
            )
        elif not rows:
            status = "no offence of this category planted"
        per_category[cat] = {
            "truth": len(rows),
            "findings": len(mine),
            "true_findings": true_findings,
            "found": len(found),
            "precision": _ratio(true_findings, len(mine)),
            "recall": _ratio(len(found), len(rows)),
            "median_ttd_s": round(statistics.median([delays[k] for k in found]), 1) if found else None,
            "false_findings": false,
            "false_per_10k_honest_hours": _per_10k(false, honest_hours),
            "false_on_honest_players": sum(
                1 for s in mine if not s.matched and s.finding.subject in honest_players
            ),
            "detectors": emitted_by,
            "status": status,
        }
    per_detector: dict[str, Any] = {}
    for name in sorted(set(registered) | {f.detector for f in findings}):
        mine = [s for s in scored if s.finding.detector == name]
        cats = sorted({s.finding.category for s in mine})
        rows = [k for k, r in enumerate(truth) if r.category in cats]
        hit_rows = {k for s in mine for k in s.matched}
        per_detector[name] = {
            "findings": len(mine),
            "categories": cats,
            "precision": _ratio(sum(1 for s in mine if s.matched), len(mine)),
            "recall": _ratio(len(hit_rows), len(rows)),
            "false_per_10k_honest_hours": _per_10k(sum(1 for s in mine if not s.matched), honest_hours),
            "status": "ok" if mine else "registered, no findings",
        }
    languages: dict[str, dict[str, Any]] = {}
    for k, row in enumerate(truth):
        lang = row.detail.get("language")
        if isinstance(lang, str):
            entry = languages.setdefault(lang, {"truth": 0, "found": 0})
            entry["truth"] += 1
            entry["found"] += k in delays
    for entry in languages.values():
        entry["recall"] = _ratio(entry["found"], entry["truth"])
    total_false = sum(1 for s in scored if not s.matched)
    bounty = bounty_breakdown(truth, delays)
    return {
        "match": {
            "slack_s": slack.total_seconds(),
            "rule": "same category, subject among truth players (both of a named pair for pair offences), windows overlap",
        },
        "totals": {
            "findings": len(findings),
            "truth": len(truth),
            "false_findings": total_false,
            "false_per_10k_honest_hours": _per_10k(total_false, honest_hours),
        },
        "categories": per_category,
        "detectors": per_detector,
        "chat_recall_by_language": dict(sorted(languages.items())),
        **({"bounty_agreement_rows": bounty} if bounty["rows"]["truth"] else {}),
    }


BOUNTY_SPLITS = (
    "rows",
    "with_chat",
    "without_chat",
    "acted_on",
    "acted_on_with_chat",
    "acted_on_without_chat",
    "not_acted_on",
)


def bounty_breakdown(truth: Sequence[TruthRow], found: dict[int, float]) -> dict[str, dict[str, Any]]:
    """Recall of bounty-agreement rows (one per pair and tournament) split by how they can be seen:
    with or without agreement talk, and whether the pair acted on it in play (`detail.acted_on`:
    hands where a third player was all-in and both stayed in and checked it down). A row the pair
    never acted on, with no talk, leaves no trace; the raw figure over all rows is reported too.
    `pairs`: a pair counts as found when any of its rows is."""
    out: dict[str, dict[str, Any]] = {name: {"truth": 0, "found": 0} for name in (*BOUNTY_SPLITS, "pairs")}
    pairs: dict[tuple[str, ...], bool] = {}
    for k, row in enumerate(truth):
        if row.category != "bounty_agreement":
            continue
        chat = bool(row.detail.get("chat", True))
        acted = int(row.detail.get("acted_on", 0)) > 0
        splits = ["rows", "with_chat" if chat else "without_chat"]
        if acted:
            splits += ["acted_on", "acted_on_with_chat" if chat else "acted_on_without_chat"]
        else:
            splits.append("not_acted_on")
        for name in splits:
            out[name]["truth"] += 1
            out[name]["found"] += k in found
        key = tuple(sorted(row.players))
        pairs[key] = pairs.get(key, False) or k in found
    out["pairs"] = {"truth": len(pairs), "found": sum(pairs.values())}
    for entry in out.values():
        entry["recall"] = _ratio(entry["found"], entry["truth"])
    return out
