"""Pure helpers that shape evidence for the templates: highlighted text segments and SVG geometry.

Nothing here produces HTML: templates receive plain data and Jinja escapes every string, so
evidence text can never inject markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from urllib.parse import quote

STATE_COLOURS = {"seated": "#2e7d32", "sitting_out": "#f9a825", "disconnected": "#c62828", "away": "#6d4c41"}


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of text, highlighted when `label` is set."""

    text: str
    label: str | None


def segments(text: str, spans: list[dict[str, Any]] | None) -> list[Segment]:
    """Split text at span boundaries (clamped, overlaps merged) into plain and labelled runs."""
    clean: list[tuple[int, int, str]] = []
    for span in spans or []:
        try:
            start, end = max(0, int(span["start"])), min(len(text), int(span["end"]))
        except (KeyError, TypeError, ValueError):
            continue
        if start < end:
            clean.append((start, end, str(span.get("label", ""))))
    clean.sort()
    out: list[Segment] = []
    pos = 0
    for start, end, label in clean:
        if end <= pos:
            continue
        start = max(start, pos)
        if start > pos:
            out.append(Segment(text[pos:start], None))
        out.append(Segment(text[start:end], label or "flag"))
        pos = end
    if pos < len(text):
        out.append(Segment(text[pos:], None))
    return out


@dataclass(frozen=True, slots=True)
class Bar:
    """One rectangle of an SVG chart, with its tooltip."""

    x: float
    y: float
    width: float
    height: float
    fill: str
    title: str


@dataclass(frozen=True, slots=True)
class Timeline:
    """Seat timeline chart: one row per (player, table), bars per state interval."""

    rows: list[tuple[str, float]]
    bars: list[Bar]
    width: int
    height: int
    start_label: str
    end_label: str


def timeline_chart(intervals: list[dict[str, Any]], *, width: int = 720, row_h: int = 22,
                   label_w: int = 160) -> Timeline | None:
    """Lay out seat-state intervals on a shared time axis; None when there is nothing to draw."""
    parsed: list[tuple[dict[str, Any], datetime, datetime]] = []
    for iv in intervals:
        start, end = _ts(iv.get("start")), _ts(iv.get("end"))
        if start is not None and end is not None and end >= start:
            parsed.append((iv, start, end))
    if not parsed:
        return None
    t0 = min(s for _, s, _ in parsed)
    t1 = max(e for _, _, e in parsed)
    span = max((t1 - t0).total_seconds(), 1.0)
    keys: list[str] = []
    bars: list[Bar] = []
    for iv, s, e in parsed:
        key = f"{iv.get('player_id', '?')} @ {iv.get('table_id', '?')}"
        if key not in keys:
            keys.append(key)
        row = keys.index(key)
        x = label_w + (s - t0).total_seconds() / span * (width - label_w - 10)
        w = max(2.0, (e - s).total_seconds() / span * (width - label_w - 10))
        state = str(iv.get("state", "?"))
        bars.append(Bar(round(x, 1), row * row_h + 4, round(w, 1), row_h - 8, STATE_COLOURS.get(state, "#546e7a"),
                        f"{key}: {state} {s:%H:%M:%S}-{e:%H:%M:%S}"))
    rows = [(k, i * row_h + row_h / 2 + 4) for i, k in enumerate(keys)]
    return Timeline(rows, bars, width, len(keys) * row_h + 8, f"{t0:%Y-%m-%d %H:%M:%S}", f"{t1:%H:%M:%S} UTC")


def bar_chart(values: list[tuple[str, float]], *, width: int = 520, bar_h: int = 20,
              label_w: int = 200, fill: str = "#1565c0") -> tuple[list[tuple[str, str, Bar]], int]:
    """Horizontal bars scaled to the largest value; returns (label, value as shown, bar) rows and
    the height. Whole numbers are shown without a decimal ("11 findings", not "11.0")."""
    top = max((v for _, v in values), default=0) or 1.0
    rows = []
    for i, (label, value) in enumerate(values):
        w = value / top * (width - label_w - 60)
        shown = str(int(value)) if float(value).is_integer() else f"{value:g}"
        rows.append((label, shown, Bar(label_w, i * (bar_h + 6), round(max(w, 1), 1), bar_h, fill, f"{label}: {shown}")))
    return rows, len(values) * (bar_h + 6)


def _ts(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


FINDING_GROUPS_SHOWN = 50
"""Groups of findings the case page lists; the rest are counted (a case can hold thousands)."""


@dataclass(frozen=True, slots=True)
class FindingGroup:
    """Findings of one detector with one summary, collapsed to one row of the case page."""

    detector: str
    summary: str
    count: int
    max_score: float
    first: datetime
    last: datetime


class FindingLike(Protocol):
    """What collapsing reads of a stored finding."""

    @property
    def detector(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def ts(self) -> datetime: ...


def collapse_findings(findings: Sequence[FindingLike]) -> list[FindingGroup]:
    """Repeated findings as one row each (same detector and summary), newest group first.

    A player who repeats one insult 300 times made one kind of finding, not 300 rows to scroll past
    before the decision form; the count and the time range keep what the repetition says.
    """
    groups: dict[tuple[str, str], list[FindingLike]] = {}
    for f in findings:
        groups.setdefault((f.detector, f.summary), []).append(f)
    out = [FindingGroup(detector=d, summary=s, count=len(rows), max_score=max(r.score for r in rows),
                        first=min(r.ts for r in rows), last=max(r.ts for r in rows))
           for (d, s), rows in groups.items()]
    return sorted(out, key=lambda g: g.last, reverse=True)


def human(value: Any) -> str:
    """A number as an analyst reads it: 1,086 not 1086.0, 0.123 not 0.12345678, p = 1.8e-05 as
    "1.8 × 10^-5", a clock-style duration "12:00:00" as "12 h"; anything else as text."""
    if isinstance(value, bool) or value is None:
        return "—" if value is None else ("yes" if value else "no")
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return str(value)
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        if 0 < abs(value) < 0.001:
            mantissa, exponent = f"{value:.1e}".split("e")
            return f"{mantissa} × 10^{int(exponent)}"
        return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    text = str(value)
    parts = text.split(":")
    if len(parts) == 3 and all(p.isdigit() for p in parts):
        hours, minutes, seconds = (int(p) for p in parts)
        pieces = [f"{hours} h" if hours else "", f"{minutes} min" if minutes else "", f"{seconds} s" if seconds else ""]
        return " ".join(p for p in pieces if p) or "0 s"
    return text


STAT_SKIP = frozenset({"finding_id", "name"})


def statistic_items(stat: dict[str, Any]) -> list[tuple[str, str]]:
    """Every field of a detector's statistic as (label, readable value), nested ones flattened one
    level ("all in calls · called"), so a statistic with no single `value` (a bounty agreement
    found from chat alone, a pair's sample sizes) still shows what it measured."""
    out: list[tuple[str, str]] = []
    for key, value in stat.items():
        if key in STAT_SKIP:
            continue
        label = key.replace("_", " ")
        if isinstance(value, dict):
            out.extend((f"{label} · {k.replace('_', ' ')}", human(v)) for k, v in value.items()
                       if not isinstance(v, dict | list))
        elif isinstance(value, list):
            out.append((label, ", ".join(human(v) for v in value[:12]) + (" …" if len(value) > 12 else "")))
        else:
            out.append((label, human(value)))
    return out


def clip_url(template: str, clip_ref: object) -> str | None:
    """The playable URL of a SnapCam clip (the reference URL-quoted into the operator's template),
    or None without a template or a reference: the console then shows the bare reference."""
    ref = str(clip_ref or "")
    if not template or not ref:
        return None
    return template.replace("{clip_ref}", quote(ref, safe=""))
