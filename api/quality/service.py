"""Reviewer quality: the admin's rates and the seniors' golden sources (validated, audited).

Golden answers are the outcomes a reviewer can reach on the case's family: confirm or dismiss
everywhere, and escalate too where a correct first review may be "a senior must look at the hands"
(the collusion families: seat sit-outs and hand records, which seniors review).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.audit import service as audit
from api.auth.service import Principal
from api.cases import service as cases
from api.cases.models import CLOSED_STATUSES
from api.errors import ConflictError, InvalidError, NotFoundError
from api.findings.models import FindingRow
from api.privacy.players import EXPIRED
from api.quality.models import GoldenSource, QualityItem, QualitySettings

RATE_MAX: Final = 0.5
"""Above half the queue, known-answer items would crowd out real work (and stop being rare)."""
GOLDEN_ANSWERS: Final[dict[str, tuple[str, ...]]] = {
    "chat": ("confirm", "dismiss"),
    "snapcam": ("confirm", "dismiss"),
    "nickname": ("confirm", "dismiss"),
    "seat": ("confirm", "dismiss", "escalate"),
    "hand": ("confirm", "dismiss", "escalate"),
}
OUTCOME_OF: Final = {"actioned": "confirm", "dismissed": "dismiss"}
"""What a closed case's status says its reviewers decided."""


@dataclass(frozen=True, slots=True)
class Rates:
    """The rates in force and who set them (revision 0: never set, both off)."""

    golden_rate: float
    second_review_rate: float
    revision: int
    changed_by: str | None
    changed_at: datetime | None
    reason: str | None


def rates(session: Session) -> Rates:
    """The newest revision of the rates (both 0 until an admin sets them)."""
    row = session.scalar(select(QualitySettings).order_by(QualitySettings.revision.desc()).limit(1))
    if row is None:
        return Rates(0.0, 0.0, 0, None, None, None)
    return Rates(row.golden_rate, row.second_review_rate, row.revision, row.changed_by, row.changed_at, row.reason)


def _check_rate(name: str, value: float) -> None:
    if not 0.0 <= value <= RATE_MAX:
        raise InvalidError(f"{name}: {value} is outside [0, {RATE_MAX}]")


def set_rates(session: Session, *, golden_rate: float | None, second_review_rate: float | None, reason: str,
              expected_revision: int | None, actor: str, now: datetime) -> tuple[Rates, bool]:
    """Admin: a new revision of the rates; (rates, changed). A stale `expected_revision` is a 409
    (two admins editing at once must not overwrite each other silently)."""
    current = rates(session)
    if expected_revision is not None and expected_revision != current.revision:
        raise ConflictError(f"the rates changed meanwhile (revision {current.revision}, you saw "
                            f"{expected_revision}); reload and try again")
    golden = current.golden_rate if golden_rate is None else golden_rate
    second = current.second_review_rate if second_review_rate is None else second_review_rate
    _check_rate("golden_rate", golden)
    _check_rate("second_review_rate", second)
    if (golden, second) == (current.golden_rate, current.second_review_rate) and current.revision:
        return current, False
    row = QualitySettings(revision=current.revision + 1, golden_rate=golden, second_review_rate=second,
                          changed_by=actor, changed_at=now, reason=reason)
    session.add(row)
    session.flush()
    audit.append(session, actor=actor, action="quality.rates", entity_type="quality_settings",
                 entity_id=str(row.revision), now=now,
                 payload={"golden_rate": golden, "second_review_rate": second, "reason": reason,
                          "previous": [current.golden_rate, current.second_review_rate]})
    session.commit()
    return rates(session), True


def copy_ids(session: Session, case_ids: list[str]) -> set[str]:
    """Which of these cases are copies made by this module (live or not)."""
    if not case_ids:
        return set()
    return set(session.scalars(select(QualityItem.copy_case_id).where(QualityItem.copy_case_id.in_(case_ids))))


def mark_golden(session: Session, *, case_id: str, expected: str, reason: str, principal: Principal,
                now: datetime) -> GoldenSource:
    """Senior or admin: use a closed case as a known-answer item with `expected` as its answer.
    Marking it again replaces the answer (audited both times)."""
    case = cases.get(session, case_id=case_id)
    if case.status not in CLOSED_STATUSES:
        raise ConflictError(f"case {case_id} is {case.status}: only a closed case, whose correct decision is "
                            "known, can be a golden item")
    if copy_ids(session, [case_id]):
        raise InvalidError(f"case {case_id} is itself a quality copy")
    allowed_answers = GOLDEN_ANSWERS.get(case.family, ())
    if expected not in allowed_answers:
        raise InvalidError(f"expected: {expected!r} is not a decision for a {case.family} case; one of "
                           f"{', '.join(allowed_answers)}")
    if case.summary == EXPIRED or session.scalar(
            select(FindingRow.finding_id).where(FindingRow.case_id == case_id).limit(1)) is None:
        raise InvalidError(f"case {case_id}'s evidence is gone (retention period); nothing to show a reviewer")
    source = session.get(GoldenSource, case_id)
    previous = None if source is None else (source.expected, source.active)
    if source is None:
        source = GoldenSource(case_id=case_id, family=case.family, category=case.category, expected=expected,
                              active=True, uses=0, created_by=principal.username, created_at=now, reason=reason)
        session.add(source)
    else:
        source.expected, source.active, source.reason = expected, True, reason
    session.flush()
    audit.append(session, actor=principal.username, action="quality.golden", entity_type="case",
                 entity_id=case_id, payload={"expected": expected, "reason": reason, "previous": previous}, now=now)
    session.commit()
    return source


def retire_golden(session: Session, *, case_id: str, reason: str, principal: Principal,
                  now: datetime) -> GoldenSource:
    """Stop seeding copies of a golden source (a copy already in a queue stays until answered)."""
    source = session.get(GoldenSource, case_id)
    if source is None:
        raise NotFoundError(f"case {case_id} is not a golden item")
    if source.active:
        source.active = False
        audit.append(session, actor=principal.username, action="quality.golden_retire", entity_type="case",
                     entity_id=case_id, payload={"reason": reason}, now=now)
        session.commit()
    return source


def golden_sources(session: Session, *, limit: int = 500) -> list[GoldenSource]:
    """Golden sources, newest first."""
    return list(session.scalars(select(GoldenSource).order_by(GoldenSource.created_at.desc()).limit(limit)))
