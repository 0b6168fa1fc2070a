"""Register, compare, promote, roll back and retire chat model versions: checked, audited.

The model in force is the newest `model_promotions` row's version; with no row (or version 0) it
is the shipped artifact (`models/artifacts/chat_classifier.skops`, or RAILBIRD_CHAT_MODEL_PATH).
A promotion that fails (unknown version, an unconfirmed regression, a missing or altered file)
raises before anything is written: the model in force stays in force.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.audit import service as audit
from api.errors import ConflictError, InvalidError, NotFoundError
from api.models_registry.models import ModelPromotion, ModelVersion
from api.models_registry.store import ArtifactStore
from models.chat.checks import ArtifactRefusedError, ArtifactReport, check_artifact, describe, sha256_of

log = logging.getLogger(__name__)

SHIPPED = 0
"""The version number of the shipped artifact (never a row)."""
REGRESSION_TOLERANCE = 0.01
"""A drop in ROC-AUC larger than this on any evaluation set is a regression the page warns about."""
FORMAT = "skops-chat-5"

_REPORTS: dict[str, ArtifactReport] = {}
"""sha256 -> the report of an artifact that passed: the checks are a pure function of the bytes,
and loading a model costs seconds (a re-upload of the same file is answered from here)."""
_SHIPPED: dict[tuple[str, int, int], str] = {}
"""(path, size, mtime) -> sha256 of the shipped artifact."""


@dataclass(frozen=True, slots=True)
class InForce:
    """The model the consumers should serve."""

    version: int
    sha256: str
    size: int
    source: str
    """registry | shipped."""
    promoted_by: str | None = None
    promoted_at: datetime | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Warnings:
    """What an admin must confirm before promoting a version; empty: nothing to confirm."""

    regressions: list[dict[str, Any]] = field(default_factory=list)
    """{set, baseline, candidate, delta} per evaluation set that lost more than the tolerance."""
    notes: list[str] = field(default_factory=list)
    """Other reasons for caution: never compared, or compared against another model than the one in force."""

    @property
    def any(self) -> bool:
        """Whether promotion needs an explicit confirmation."""
        return bool(self.regressions or self.notes)

    def names(self) -> list[str]:
        """The regressed sets and notes, as recorded with a confirmed promotion."""
        return [r["set"] for r in self.regressions] + self.notes


def shipped_sha256(path: Path) -> tuple[str, int]:
    """(sha256, size) of the shipped artifact, hashed once per file version."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _SHIPPED:
        _SHIPPED[key] = sha256_of(path)
    return _SHIPPED[key], stat.st_size


def in_force(session: Session, *, shipped: Path) -> InForce:
    """The promoted version, or the shipped artifact when nothing is (or it was rolled back to)."""
    row = _current(session)
    if row is not None and row.version != SHIPPED:
        version = session.get(ModelVersion, row.version)
        if version is not None:
            return InForce(version.version, version.sha256, version.size, "registry", row.actor, row.at, row.reason)
    sha, size = shipped_sha256(shipped)
    return InForce(SHIPPED, sha, size, "shipped", row.actor if row else None, row.at if row else None,
                   row.reason if row else "")


def versions(session: Session) -> list[ModelVersion]:
    """Every registered version, newest first."""
    return list(session.scalars(select(ModelVersion).order_by(ModelVersion.version.desc())))


def history(session: Session, limit: int = 50) -> list[ModelPromotion]:
    """Promotions and rollbacks, newest first."""
    return list(session.scalars(select(ModelPromotion).order_by(ModelPromotion.seq.desc()).limit(limit)))


def get(session: Session, version: int) -> ModelVersion:
    """One version (404 when unknown)."""
    row = session.get(ModelVersion, version)
    if row is None:
        raise NotFoundError(f"no model version {version}")
    return row


def register(session: Session, store: ArtifactStore, *, path: Path, expected_sha256: str | None, actor: str,
             note: str, now: datetime, cache_dir: Path | None = None) -> tuple[ModelVersion, bool]:
    """Check the file at `path` and register it as a candidate; (version, created). The same bytes
    again return their existing version (idempotent). A refusal is audited and raised as a 422."""
    sha = sha256_of(path)
    if expected_sha256 is not None and sha != expected_sha256.strip().lower():
        _refuse(session, actor=actor, sha=sha, reason=f"sha256 mismatch: the file is {sha}, expected {expected_sha256}",
                now=now)
    existing = session.scalar(select(ModelVersion).where(ModelVersion.sha256 == sha))
    if existing is not None:
        store.copy_in(path, sha)  # puts the bytes back if the store lost them; a no-op otherwise
        return existing, False
    report = _REPORTS.get(sha)
    if report is None:
        try:
            report = check_artifact(path, expected_sha256=sha, cache_dir=cache_dir)
        except ArtifactRefusedError as exc:
            _refuse(session, actor=actor, sha=sha, reason=exc.reason, now=now)
        _REPORTS[sha] = report
    stored = store.copy_in(path, sha)
    number = (session.scalar(select(func.max(ModelVersion.version))) or SHIPPED) + 1
    row = ModelVersion(version=number, sha256=sha, size=report.size, format=FORMAT, status="candidate",
                       uploaded_by=actor, uploaded_at=now, note=note, checks=describe(report))
    session.add(row)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise ConflictError("another model was registered at the same time; retry") from None
    audit.append(session, actor=actor, action="model.register", entity_type="model", entity_id=str(number),
                 payload={"sha256": sha, "size": report.size, "format": FORMAT, "note": note}, now=now)
    session.commit()
    log.info("registered chat model version %d (%s) at %s", number, sha, stored)
    return row, True


def _refuse(session: Session, *, actor: str, sha: str, reason: str, now: datetime) -> NoReturn:
    """Audit a refused upload (who tried what, and why) and raise it as a 422."""
    session.rollback()
    audit.append(session, actor=actor, action="model.refuse", entity_type="model", entity_id=sha,
                 payload={"sha256": sha, "reason": reason}, now=now)
    session.commit()
    raise InvalidError(f"model artifact refused: {reason}")


def record_comparison(session: Session, *, version: int, comparison: dict[str, Any], actor: str,
                      now: datetime) -> ModelVersion:
    """Store a comparison (`models.chat.compare`) with the version it measured; audited."""
    row = get(session, version)
    if comparison.get("candidate", {}).get("sha256") != row.sha256:
        raise InvalidError(f"the comparison measured {comparison.get('candidate', {}).get('sha256')}, "
                           f"not version {version} ({row.sha256})")
    row.comparison, row.compared_at = comparison, now
    audit.append(session, actor=actor, action="model.compare", entity_type="model", entity_id=str(version),
                 payload={"baseline": comparison.get("baseline"), "regressions": regressions_of(comparison)},
                 now=now)
    session.commit()
    return row


def regressions_of(comparison: dict[str, Any], tolerance: float = REGRESSION_TOLERANCE) -> list[dict[str, Any]]:
    """Every evaluation set where the candidate's ROC-AUC is more than `tolerance` below the baseline's
    (recomputed from the figures, not read from a stored list)."""
    out: list[dict[str, Any]] = []
    for name, figures in sorted(comparison.get("sets", {}).items()):
        base = (figures.get("baseline") or {}).get("roc_auc")
        cand = (figures.get("candidate") or {}).get("roc_auc")
        if base is None or cand is None:
            continue
        if cand < base - tolerance - 1e-9:
            out.append({"set": name, "baseline": base, "candidate": cand, "delta": round(cand - base, 4)})
    return out


def warnings_for(session: Session, row: ModelVersion, *, shipped: Path) -> Warnings:
    """What promoting `row` over the model in force must be confirmed for."""
    if row.comparison is None:
        return Warnings(notes=["never compared with the model in force (run `railbird models compare`)"])
    current = in_force(session, shipped=shipped)
    notes = []
    baseline = row.comparison.get("baseline", {})
    if baseline.get("sha256") != current.sha256:
        notes.append(f"compared against version {baseline.get('version')}, not version {current.version} "
                     "now in force (run `railbird models compare` again)")
    return Warnings(regressions=regressions_of(row.comparison), notes=notes)


def promote(session: Session, store: ArtifactStore, *, version: int, actor: str, reason: str, confirm: bool,
            shipped: Path, now: datetime) -> InForce:
    """Make `version` the model in force. Every warning must be confirmed (409 otherwise); the stored
    file must still hash to the version's sha256 (422 otherwise). Audited."""
    row = get(session, version)
    current = in_force(session, shipped=shipped)
    if current.version == version:
        raise ConflictError(f"version {version} is already in force")
    warn = warnings_for(session, row, shipped=shipped)
    if warn.any and not confirm:
        sets = ", ".join(f"{r['set']} ({r['baseline']} -> {r['candidate']})" for r in warn.regressions)
        raise ConflictError("promotion needs an explicit confirmation: "
                            + "; ".join(([f"ROC-AUC regresses by more than {REGRESSION_TOLERANCE} on {sets}"]
                                         if sets else []) + warn.notes))
    _verify_stored(store, row)
    return _switch(session, to=version, previous=_current(session), action="promote", actor=actor, reason=reason,
                   confirmed=warn.names() if warn.any else [], shipped=shipped, now=now)


def rollback(session: Session, *, actor: str, reason: str, shipped: Path, now: datetime) -> InForce:
    """Back to the version that was in force before the current promotion (the shipped artifact at
    the bottom); 409 when nothing was ever promoted. Audited."""
    current = _current(session)
    if current is None or (current.version == SHIPPED and current.previous_seq == 0):
        raise ConflictError("nothing to roll back: the shipped artifact is in force")
    target = session.get(ModelPromotion, current.previous_seq) if current.previous_seq else None
    to = target.version if target is not None else SHIPPED
    return _switch(session, to=to, previous=target, action="rollback", actor=actor, reason=reason,
                   confirmed=[], shipped=shipped, now=now, rolled_back=current)


def retire(session: Session, *, version: int, actor: str, reason: str, now: datetime) -> ModelVersion:
    """Take a candidate out of consideration; the version in force is rolled back, not retired."""
    row = get(session, version)
    if row.status == "promoted":
        raise ConflictError(f"version {version} is in force: roll back instead")
    if row.status == "retired":
        return row
    row.status = "retired"
    audit.append(session, actor=actor, action="model.retire", entity_type="model", entity_id=str(version),
                 payload={"sha256": row.sha256, "reason": reason}, now=now)
    session.commit()
    return row


def _switch(session: Session, *, to: int, previous: ModelPromotion | None, action: str, actor: str, reason: str,
            confirmed: list[str], shipped: Path, now: datetime,
            rolled_back: ModelPromotion | None = None) -> InForce:
    """Write the promotion row, move the statuses, audit; the caller has checked everything."""
    before = in_force(session, shipped=shipped)
    seq = (session.scalar(select(func.max(ModelPromotion.seq))) or 0) + 1
    # A rollback returns to `previous` and inherits what it would roll back to; a promotion stacks on it.
    previous_seq = (previous.previous_seq if previous else 0) if rolled_back else (previous.seq if previous else 0)
    session.add(ModelPromotion(seq=seq, version=to, previous_seq=previous_seq, action=action, actor=actor, at=now,
                               reason=reason, confirmed_regressions=confirmed))
    if before.version != SHIPPED:
        get(session, before.version).status = "retired"
    if to != SHIPPED:
        get(session, to).status = "promoted"
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise ConflictError("the model in force was changed at the same time; reload and retry") from None
    after = in_force(session, shipped=shipped)
    audit.append(session, actor=actor, action=f"model.{action}", entity_type="model", entity_id=str(to),
                 payload={"version": to, "sha256": after.sha256, "previous_version": before.version,
                          "previous_sha256": before.sha256, "reason": reason, "confirmed_warnings": confirmed},
                 now=now)
    session.commit()
    return after


def current_version(session: Session) -> int:
    """The version in force (0: the shipped artifact), without hashing the shipped file."""
    row = _current(session)
    return SHIPPED if row is None else row.version


def _current(session: Session) -> ModelPromotion | None:
    return session.scalar(select(ModelPromotion).order_by(ModelPromotion.seq.desc()).limit(1))


def _verify_stored(store: ArtifactStore, row: ModelVersion) -> None:
    """The file the consumers will download is still the one that was checked."""
    path = store.path_for(row.sha256)
    try:
        actual = sha256_of(path)
    except OSError as exc:
        raise InvalidError(f"version {row.version}'s artifact is missing from the store ({exc})") from None
    if actual != row.sha256:
        raise InvalidError(f"version {row.version}'s stored artifact changed (sha256 {actual}, "
                           f"registered {row.sha256}); register the file again")


def artifact_path(session: Session, store: ArtifactStore, *, version: int, shipped: Path) -> Path:
    """The file of a version (0: the shipped artifact)."""
    if version == SHIPPED:
        return shipped
    path = store.path_for(get(session, version).sha256)
    if not path.is_file():
        raise NotFoundError(f"version {version}'s artifact is missing from the store")
    return path
