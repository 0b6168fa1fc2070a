"""`railbird backtest PATH --html FILE`: the backtest report as one self-contained HTML page.

The same content as the Markdown report (imports, rejections, per detector the findings with their
players and evidence hands) plus three charts an analyst reads at a glance: findings per detector,
hands per variant, and the net chips of each player of a flagged pair over the hands the two played
together (a chip dump shows as one side's loss mirrored by the other's gain). Charts are inline SVG
drawn here, styles inline: no JavaScript, no external URL, so the file can be mailed or archived and
opens the same anywhere. Every text from the histories is escaped.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape
from typing import Any

from pipeline.contracts import HAND
from railbird.import_summary import Tally

MAX_ROWS = 50
"""Findings listed per detector (all are counted)."""
MAX_PAIRS = 12
"""Flagged pairs drawn in the net-chips chart (the highest scores)."""
MAX_BARS = 30
CHART_WIDTH = 720
LABEL_WIDTH = 230
ROW_HEIGHT = 22
POSITIVE, NEGATIVE, NEUTRAL = "#2e7d32", "#c62828", "#1565c0"
UNITS = {"cash": "cash units", "tournament": "tournament chips"}

Pair = tuple[str, str]


@dataclass(slots=True)
class HandStats:
    """What the charts need from the imported hands (one pass over the events)."""

    variants: Counter[str] = field(default_factory=Counter)
    games: Counter[str] = field(default_factory=Counter)
    together: Counter[tuple[Pair, str]] = field(default_factory=Counter)
    """Hands each flagged pair was dealt into together, per game ('cash' or 'tournament')."""
    nets: dict[tuple[Pair, str], dict[str, int]] = field(default_factory=dict)
    """Per flagged pair and game, each player's net (finishing - starting stack) over those hands.
    Kept apart by game because the units differ: cents at cash tables, chips in tournaments."""


def flagged_pairs(outputs: list[dict[str, Any]]) -> list[tuple[Pair, float]]:
    """Pairs named by findings about two or more players (the first two: the finding's subjects),
    best score first, at most `MAX_PAIRS`."""
    best: dict[Pair, float] = {}
    for out in outputs:
        if out["kind"] != "finding" or len(out["finding"]["players"]) < 2:
            continue
        a, b = out["finding"]["players"][:2]
        pair = (a, b) if a <= b else (b, a)
        best[pair] = max(best.get(pair, 0.0), float(out["finding"]["score"]))
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:MAX_PAIRS]


def hand_stats(lines: Iterable[str], pairs: Iterable[Pair]) -> HandStats:
    """Variant and game counts, and the flagged pairs' nets, from replay lines (other topics skipped)."""
    stats = HandStats()
    wanted = list(pairs)
    by_player: dict[str, list[Pair]] = defaultdict(list)
    for pair in wanted:
        for player in pair:
            by_player[player].append(pair)
    prefix = f'{{"topic":"{HAND}"'
    for line in lines:
        if not line.startswith(prefix):
            continue  # the importer writes hands with exactly this prefix; chat and seat lines are not needed
        hand = json.loads(line)["value"]
        stats.variants[hand["variant"]] += 1
        stats.games[hand["game"]] += 1
        if not wanted or not hand.get("finishing_stacks"):
            continue
        seat = {p: i for i, p in enumerate(hand["players"])}
        for pair in {pr for p in hand["players"] for pr in by_player.get(p, ())}:
            if all(p in seat for p in pair):
                key = (pair, hand["game"])
                stats.together[key] += 1
                net = stats.nets.setdefault(key, dict.fromkeys(pair, 0))
                for p in pair:
                    net[p] += hand["finishing_stacks"][seat[p]] - hand["starting_stacks"][seat[p]]
    return stats


def bar_chart(title: str, rows: list[tuple[str, int]], *, unit: str) -> str:
    """Horizontal bars, one per row (the first `MAX_BARS`), value written after each bar."""
    if not rows:
        return f"<p class='empty'>{escape(title)}: nothing to draw.</p>"
    rows = rows[:MAX_BARS]
    top = max(v for _, v in rows) or 1
    area = CHART_WIDTH - LABEL_WIDTH - 70
    height = 30 + ROW_HEIGHT * len(rows)
    parts = [_svg_open(title, height), _svg_title(title)]
    for k, (label, value) in enumerate(rows):
        y = 28 + k * ROW_HEIGHT
        w = max(1, round(area * value / top)) if value else 0
        parts.append(f"<text x='{LABEL_WIDTH - 6}' y='{y + 14}' text-anchor='end'>{escape(label)}</text>")
        parts.append(f"<rect x='{LABEL_WIDTH}' y='{y + 2}' width='{w}' height='{ROW_HEIGHT - 6}' fill='{NEUTRAL}'>"
                     f"<title>{escape(label)}: {value:,} {escape(unit)}</title></rect>")
        parts.append(f"<text x='{LABEL_WIDTH + w + 6}' y='{y + 14}'>{value:,}</text>")
    parts.append("</svg>")
    return "".join(parts)


def net_chart(title: str, stats: HandStats, pairs: list[tuple[Pair, float]]) -> str:
    """Diverging bars around zero: each player of each flagged pair, loss left (red), gain right (green);
    a pair that played cash and tournament hands together gets a group for each."""
    both = len(stats.games) > 1
    rows = []
    for pair, _ in pairs:
        for game in ("cash", "tournament"):
            if (key := (pair, game)) in stats.nets:
                where = f"{game}, " if both else ""
                rows += [(f"{p} (with {q}, {where}{stats.together[key]} hands)", stats.nets[key][p], key)
                         for p, q in (pair, pair[::-1])]
    if not rows:
        return f"<p class='empty'>{escape(title)}: no finding names a pair.</p>"
    top = max(abs(v) for _, v, _ in rows) or 1
    half = (CHART_WIDTH - LABEL_WIDTH - 20) // 2
    axis = LABEL_WIDTH + half
    height = 40 + ROW_HEIGHT * len(rows) + 6 * len({key for _, _, key in rows})
    parts = [_svg_open(title, height), _svg_title(title)]
    y, previous = 28, None
    for label, value, key in rows:
        if previous is not None and key != previous:
            y += 6  # a gap between pairs
        previous = key
        unit = UNITS[key[1]]
        w = round((half - 60) * abs(value) / top)
        x = axis if value >= 0 else axis - w
        colour = POSITIVE if value >= 0 else NEGATIVE
        parts.append(f"<text x='{LABEL_WIDTH - 6}' y='{y + 14}' text-anchor='end'>{escape(label)}</text>")
        parts.append(f"<rect x='{x}' y='{y + 2}' width='{max(w, 1)}' height='{ROW_HEIGHT - 6}' fill='{colour}'>"
                     f"<title>{escape(label)}: {value:+,} {escape(unit)}</title></rect>")
        tx, anchor = (axis + w + 6, "start") if value >= 0 else (axis - w - 6, "end")
        parts.append(f"<text x='{tx}' y='{y + 14}' text-anchor='{anchor}'>{value:+,}</text>")
        y += ROW_HEIGHT
    parts.append(f"<line x1='{axis}' y1='24' x2='{axis}' y2='{y + 2}' stroke='#555'/>")
    parts.append("</svg>")
    return "".join(parts)


def _svg_open(title: str, height: int) -> str:
    # Inline SVG in HTML needs no xmlns: the page names no URL at all.
    return (f"<svg width='{CHART_WIDTH}' height='{height}'"
            f" viewBox='0 0 {CHART_WIDTH} {height}' role='img' aria-label='{escape(title)}'"
            " font-family='sans-serif' font-size='12'>")


def _svg_title(title: str) -> str:
    return f"<text x='0' y='16' font-weight='bold' font-size='13'>{escape(title)}</text>"


_STYLE = """
body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top;font-size:13px}
th{background:#f0f0f0} td.num{text-align:right} .empty{color:#666} code{background:#f4f4f4}
section.chart{margin:1em 0 2em}
"""


def render_html(root: str, files: int, tally: Tally, outputs: list[dict[str, Any]], stats: HandStats,
                pairs: list[tuple[Pair, float]]) -> str:
    """The whole page."""
    by_detector: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for out in outputs:
        if out["kind"] == "finding":
            by_detector[out["finding"]["detector"]].append(out["finding"])
    errors = sum(1 for o in outputs if o["kind"] in ("dead_letter", "detector_error"))
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(tally.reasons.items())) or "none"
    body = [f"<h1>Backtest of <code>{escape(root)}</code></h1>",
            f"<p>{files} files: <b>{tally.imported:,}</b> hands imported, {tally.rejected:,} rejected ({escape(reasons)}),"
            f" {tally.chats:,} chat lines, {tally.seat_events:,} seat events (derived from consecutive hands),"
            f" {tally.junk_lines:,} lines outside any hand.</p>",
            f"<p>Replay: <b>{sum(len(v) for v in by_detector.values()):,}</b> findings, {errors} dead letters or"
            " detector errors.</p>"]
    body.append("<section class='chart'>" + bar_chart(
        "Findings per detector", [(d, len(f)) for d, f in sorted(by_detector.items(), key=lambda x: (-len(x[1]), x[0]))],
        unit="findings") + "</section>")
    body.append("<section class='chart'>" + bar_chart(
        "Hands per variant", [(v, n) for v, n in stats.variants.most_common()], unit="hands") + "</section>")
    body.append("<section class='chart'>" + net_chart(
        f"Net chips of flagged pairs in the hands they played together ({_units(stats)})", stats, pairs)
        + "</section>")
    body.append(_detector_table(by_detector))
    for name in sorted(by_detector):
        body.append(_findings_section(name, by_detector[name]))
    if tally.first:
        body.append("<h2>First rejected hands</h2><ul>" + "".join(
            f"<li><code>{escape(str(r['file']))}</code> {escape(str(r['reason']))}</li>" for r in tally.first) + "</ul>")
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>Backtest of {escape(root)}</title><style>{_STYLE}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _units(stats: HandStats) -> str:
    # Record amounts (`stars_record`): cents at real-money tables, whole chips for play money and in
    # tournaments; the record does not say which a cash hand is, so the title names both.
    cash = "cash: cents at real-money tables, chips for play money"
    if stats.games.keys() == {"tournament"}:
        return "tournament chips"
    if stats.games.keys() == {"cash"}:
        return cash
    return f"{cash}; tournament chips, drawn apart"


def _detector_table(by_detector: dict[str, list[dict[str, Any]]]) -> str:
    rows = ["<table><tr><th>detector</th><th>findings</th><th>players</th><th>evidence hands</th></tr>"]
    for name in sorted(by_detector):
        found = by_detector[name]
        players = {p for f in found for p in f["players"]}
        hands = {h for f in found for h in f.get("source_event_ids", [])}
        rows.append(f"<tr><td><a href='#{_anchor(name)}'>{escape(name)}</a></td><td class='num'>{len(found):,}</td>"
                    f"<td class='num'>{len(players):,}</td><td class='num'>{len(hands):,}</td></tr>")
    if len(rows) == 1:
        return "<p class='empty'>No detector found anything.</p>"
    return "".join(rows) + "</table>"


def _findings_section(name: str, found: list[dict[str, Any]]) -> str:
    rows = [f"<h2 id='{_anchor(name)}'>{escape(name)}</h2>",
            "<table><tr><th>category</th><th>score</th><th>players</th><th>table / tournament</th>"
            "<th>evidence hands</th><th>summary</th></tr>"]
    for f in found[:MAX_ROWS]:
        place = f.get("tournament_id") or f.get("table_id") or ""
        evidence = list(f.get("source_event_ids", []))
        shown = ", ".join(escape(e) for e in evidence[:5]) + (f" (+{len(evidence) - 5} more)" if len(evidence) > 5 else "")
        rows.append(f"<tr><td>{escape(f['category'])}</td><td class='num'>{f['score']:.2f}</td>"
                    f"<td>{escape(', '.join(f['players']))}</td><td>{escape(place)}</td><td>{shown}</td>"
                    f"<td>{escape(f['summary'][:400])}</td></tr>")
    rows.append("</table>")
    if len(found) > MAX_ROWS:
        rows.append(f"<p>({len(found) - MAX_ROWS} more not listed)</p>")
    return "".join(rows)


def _anchor(name: str) -> str:
    return "d-" + "".join(c if c.isalnum() else "-" for c in name)
