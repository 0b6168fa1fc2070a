"""`chat.audit_sample`: a sample of the chat lines nothing flagged, sent to analysts as audit cases.

Why: analysts only ever decide what a detector flagged, so their decisions teach the model
precision and category but never the offences it misses (docs/learning-from-decisions.md). An
audit case is a line the model did not flag; the analyst dismisses it (clean) or confirms it and
names its category, and that label is exactly the missed-offence example the model lacks. A
uniform sample also measures how much the stream misses (confirmed share of audited lines).

Two rates, both in the admin policy (`RulesConfig.chat_audit_*`, off by default):
- `chat_audit_rate`: share of all unflagged lines (uniform, an unbiased miss-rate estimate);
- `chat_audit_near_rate`: share of the unflagged lines whose best model score reached
  `chat_audit_near_score` (below the review point, yet not far): where the misses concentrate.

Sampling is a hash of the event id, not a random draw, so a replay, a retroactive run or a
restarted consumer samples exactly the same lines. An audit finding proposes no sanction
(`pipeline.policy.RECORD_ONLY_CATEGORIES`), counts as no offence (it is not wrapped in a ledger tap)
and opens a case of its own (`api.cases.service.incident_of`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.categories import AUDIT_SAMPLE, MODEL_SCORED
from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.detectors.chat.evidence import make_finding, message_evidence
from pipeline.findings import Finding
from pipeline.text_model import TextClassifier, TextVerdict

_SCALE = float(1 << 64)


def sample_point(event_id: str) -> float:
    """A uniform number in [0, 1) fixed by the event id (the same in every process and replay)."""
    digest = hashlib.blake2b(event_id.encode("utf-8"), digest_size=8, person=b"rb-audit").digest()
    return int.from_bytes(digest, "big") / _SCALE


@dataclass(frozen=True, slots=True)
class AuditRates:
    """How much unflagged chat to audit (see the module docstring); all zero = off."""

    rate: float = 0.0
    near_rate: float = 0.0
    near_score: float = 0.25

    @property
    def active(self) -> bool:
        """Whether anything is ever sampled."""
        return self.rate > 0.0 or self.near_rate > 0.0


def suspected(verdict: TextVerdict) -> tuple[str, float]:
    """The model-scored category the line scores highest on, and that score."""
    best = max(MODEL_SCORED, key=lambda c: verdict.scores.get(c, 0.0))
    return best, verdict.scores.get(best, 0.0)


@dataclass(frozen=True, slots=True)
class AuditSampleDetector:
    """One audit finding for each sampled chat line the classifier flagged nothing in."""

    classifier: TextClassifier
    rates: AuditRates
    name: str = "chat.audit_sample"
    topics: frozenset[str] = frozenset({CHAT})

    def key(self, event: Event) -> str:
        """Stateless: keyed by the event itself."""
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Sample one message (the verdict comes from the shared cache: no second model call)."""
        if not isinstance(event, ChatMessage) or not event.text.strip():
            return ()
        point = sample_point(event.event_id)
        if point >= max(self.rates.rate, self.rates.near_rate):
            return ()  # the common case: decided before the verdict is looked at
        verdict = self.classifier.classify([event.text])[0]
        if verdict.flagged:
            return ()  # flagged lines reach analysts anyway
        category, score = suspected(verdict)
        reason = self._reason(point, score)
        if reason is None:
            return ()
        return (make_finding(
            detector=self.name, category=AUDIT_SAMPLE, score=score, players=(event.player_id,), ts=event.ts,
            summary=f"audit sample ({reason}): nothing flagged this line; closest category {category} ({score:.2f})",
            id_parts=(event.event_id,), source_event_ids=(event.event_id,),
            evidence={"messages": [message_evidence(event)], "scores": {k: round(v, 4) for k, v in verdict.scores.items()},
                      "language": verdict.language, "suspected": category, "sampled": reason},
            table_id=event.table_id, tournament_id=event.tournament_id,
        ),)

    def _reason(self, point: float, score: float) -> str | None:
        """Why the line is sampled: uniformly (checked first, so the uniform sample stays unbiased
        whatever the line scores), near the review point, or not at all."""
        if point < self.rates.rate:
            return "uniform"
        if score >= self.rates.near_score and point < self.rates.near_rate:
            return "near_threshold"
        return None
