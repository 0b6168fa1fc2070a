"""`snapcam.triage`: SnapCam abuse reports, prioritised by distinct credible reporters and content.

House rules section 3: offensive broadcasts and harassment over SnapCam cost SnapCam access. The
evidence is other players' reports, so priority is a noisy-OR over distinct reporters, each
weighted by credibility (`ReporterCredibility`), plus the classifier's and lexicon's view of the
clip transcript (the reported player's own words) and, weakly, of the reporters' comments.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from pipeline.contracts import SNAPCAM, Event, SnapCamReport
from pipeline.detectors.chat.classifier import chat_category
from pipeline.detectors.chat.credibility import ReporterCredibility
from pipeline.detectors.chat.evidence import make_finding
from pipeline.detectors.chat.lexicon import Lexicon, compile_lexicon
from pipeline.detectors.chat.state import BoundedMap, Window
from pipeline.findings import Finding, Span
from pipeline.text_model import TextClassifier


@dataclass(frozen=True, slots=True)
class TriageWeights:
    """How much each kind of evidence moves priority (each term enters a noisy-OR)."""

    reporter: float = 0.6
    unplaced: float = 0.5
    """Factor on a report that names no table or tournament: where the broadcast was seen cannot be
    checked, so the claim weighs less (a reporter's word still counts)."""
    transcript: float = 0.9
    comment: float = 0.3
    min_priority: float = 0.5


@dataclass(frozen=True, slots=True)
class _Judged:
    report: SnapCamReport
    terms: tuple[float, ...]
    spans: dict[str, list[Span]]


@dataclass(slots=True)
class _Target:
    reports: Window[_Judged]
    last_reported: tuple[int, bool] = (0, False)


@dataclass(slots=True)
class SnapCamTriageDetector:
    """Per reported player: one finding each time the case gains reporters or content evidence."""

    classifier: TextClassifier | None = None
    credibility: ReporterCredibility = field(default_factory=ReporterCredibility)
    lexicon: Lexicon = field(default_factory=compile_lexicon)
    weights: TriageWeights = field(default_factory=TriageWeights)
    window: timedelta = timedelta(hours=24)
    max_keys: int = 100_000
    name: str = "snapcam.triage"
    topics: frozenset[str] = frozenset({SNAPCAM})
    _state: BoundedMap[str, _Target] = field(init=False)

    def __post_init__(self) -> None:
        self._state = BoundedMap(max_keys=self.max_keys)

    @property
    def state_window(self) -> timedelta:
        """A reported player's reports are counted over the window: a rebuild replays that much
        of the SnapCam input partition (local state: the topic is keyed by the reported player)."""
        return self.window

    def key(self, event: Event) -> str:
        """State is per reported player."""
        return event.reported_id if isinstance(event, SnapCamReport) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Add the report; emit when priority clears the bar and the case has something new."""
        if not isinstance(event, SnapCamReport):
            return ()
        target = self._state.get_or_create(
            event.reported_id, lambda: _Target(Window(span=self.window, max_items=256))
        )
        terms, found = self._content(event)
        target.reports.add(event.ts, _Judged(event, tuple(terms), found))
        judged = target.reports.values()
        reports = [j.report for j in judged]
        reporters = {r.reporter_id: self.credibility.of(r.reporter_id) for r in reports}
        weight = {r.reporter_id: self._weight(r) for r in reports}
        content = [t for j in judged for t in j.terms]
        spans = {k: v for j in judged for k, v in j.spans.items()}
        voices = _independent(reports)
        priority = _noisy_or([weight[r] * c for r, c in reporters.items() if r in voices] + content)
        signature = (len(reporters), any(v > 0 for v in content))
        if priority < self.weights.min_priority or signature <= target.last_reported:
            return ()
        target.last_reported = signature
        return (self._finding(event, reports, reporters, priority, spans),)

    def _weight(self, report: SnapCamReport) -> float:
        placed = report.table_id is not None or report.tournament_id is not None
        return self.weights.reporter * (1.0 if placed else self.weights.unplaced)

    def _content(self, report: SnapCamReport) -> tuple[list[float], dict[str, list[Span]]]:
        terms: list[float] = []
        spans: dict[str, list[Span]] = {}
        for kind, text, weight in (
            ("transcript", report.transcript or "", self.weights.transcript),
            ("comment", report.comment, self.weights.comment),
        ):
            score, found = self._judge(text)
            if score > 0:
                terms.append(weight * score)
                spans[f"{report.report_id}:{kind}"] = found
        return terms, spans

    def _judge(self, text: str) -> tuple[float, list[Span]]:
        if not text.strip():
            return 0.0, []
        found = self.lexicon.find(text)
        score = 0.8 if found else 0.0
        if self.classifier is not None:
            verdict = self.classifier.classify([text])[0]
            top = chat_category(verdict)
            if top is not None and top[1] > score:
                score = top[1]
                # The model's own evidence when the word list had none.
                found = found or [s for s in verdict.spans if s.end <= len(text)]
        return score, found

    def _finding(
        self,
        event: SnapCamReport,
        reports: list[SnapCamReport],
        reporters: dict[str, float],
        priority: float,
        spans: dict[str, list[Span]],
    ) -> Finding:
        reasons = Counter(r.reason for r in reports)
        category = "hand_in_play" if reasons["hand_influence"] * 2 > len(reports) else "snapcam_abuse"
        return make_finding(
            detector=self.name,
            category=category,
            score=priority,
            players=(event.reported_id,),
            ts=event.ts,
            summary=(
                f"SnapCam: {len(reports)} reports from {len(reporters)} distinct reporters "
                f"({', '.join(f'{k} x{v}' for k, v in reasons.most_common())}), priority {priority:.2f}"
            ),
            id_parts=(event.reported_id, reports[0].report_id, len(reporters), bool(spans)),
            source_event_ids=[r.event_id for r in reports],
            evidence=_evidence(reports, reporters, priority, spans),
            window=(reports[0].ts, event.ts),
            table_id=event.table_id,
            tournament_id=event.tournament_id,
        )


def _independent(reports: list[SnapCamReport]) -> set[str]:
    """Reporters who count as separate witnesses: accounts pasting one comment word for word about
    a clip with nothing to transcribe speak with one voice (the first of them), since a copied
    claim is not a second observation (`snapcam.coordinated_reports` looks at them as a group)."""
    voices: set[str] = set()
    texts: set[str] = set()
    for r in reports:
        text = " ".join("".join(c if c.isalnum() else " " for c in r.comment.casefold()).split())
        if not r.transcript and text.count(" ") >= 1:
            if text in texts:
                continue
            texts.add(text)
        voices.add(r.reporter_id)
    return voices


def _noisy_or(terms: list[float]) -> float:
    miss = 1.0
    for term in terms:
        miss *= 1.0 - min(1.0, max(0.0, term))
    return 1.0 - miss


def _evidence(
    reports: list[SnapCamReport], reporters: dict[str, float], priority: float, spans: dict[str, list[Span]]
) -> dict[str, Any]:
    messages = [
        {
            "event_id": r.event_id,
            "ts": r.ts.isoformat(),
            "player_id": r.reported_id if kind == "transcript" else r.reporter_id,
            "nickname": "",
            "channel": f"snapcam_{kind}",
            "text": (r.transcript or "") if kind == "transcript" else r.comment,
            "spans": [s.model_dump() for s in spans[f"{r.report_id}:{kind}"]],
        }
        for r in reports
        for kind in ("transcript", "comment")
        if f"{r.report_id}:{kind}" in spans
    ]
    return {
        "reports": [r.model_dump(mode="json") for r in reports[-20:]],
        "messages": messages[-20:],
        "statistic": {
            "name": "noisy_or_priority",
            "value": round(priority, 4),
            "distinct_reporters": len(reporters),
            "credibility": {k: round(v, 3) for k, v in sorted(reporters.items())},
            "null_model": "each distinct reporter is right with probability = credibility x weight",
        },
    }
