"""The checks a chat model artifact must pass before the registry accepts it or a consumer serves it.

Pure: a path in, a report or a refusal with its reason out (no database, no HTTP). The registry
(api/models_registry) runs them on upload, the consumers (railbird/model_watch.py) again on the
downloaded bytes: a file that changed on the way is refused by its sha256 before it is parsed.
"""

from __future__ import annotations

import hashlib
import json
import math
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.chat.artifact import FORMAT_VERSION, ChatModel, load_model
from pipeline.categories import MODEL_SCORED

SANITY_CLEAN: tuple[str, ...] = ("nice hand, gl all", "ty wp", "brb getting coffee", "gg everyone")
"""Table talk every usable model leaves alone at its review points."""
SANITY_OFFENCES: tuple[tuple[str, str], ...] = (
    ("you are a worthless idiot", "insult"),
    ("i will find you and kill you", "threat"),
    ("buy cheap chips at www.chipz4u.com", "spam"),
    ("send me your phone number", "personal_info"),
)
"""(line, category): each must be flagged for its category, or at least score it above every clean
line's score for it. The shipped model flags all four; a model that ranks them below small talk has
lost its heads' meaning (a wrong column order, a sign flip) even when its arrays have the right shape."""


class ArtifactRefusedError(ValueError):
    """An artifact that failed a check; `reason` says which and why (shown to the uploader)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ArtifactReport:
    """What the checks found in an accepted artifact."""

    sha256: str
    size: int
    format_version: int
    heads: tuple[str, ...]
    thresholds: dict[str, float]
    auto_thresholds: dict[str, float]
    sanity: dict[str, dict[str, Any]]
    """Sanity line -> its flagged categories and the score of the category it was written for."""


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks (artifacts are ~25 MB)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def check_artifact(path: Path, *, expected_sha256: str | None = None,
                   cache_dir: Path | None = None) -> ArtifactReport:
    """Every check, cheapest first; ArtifactRefusedError with the first failure's reason."""
    try:
        size = path.stat().st_size
        sha = sha256_of(path)
    except OSError as exc:
        raise ArtifactRefusedError(f"cannot read the artifact ({exc})") from None
    if expected_sha256 is not None and sha != expected_sha256.strip().lower():
        raise ArtifactRefusedError(f"sha256 mismatch: the file is {sha}, expected {expected_sha256}")
    version = format_version(path)
    if version != FORMAT_VERSION:
        raise ArtifactRefusedError(f"format version {version}, expected {FORMAT_VERSION} (retrain with `railbird train chat`)")
    try:
        model = load_model(path)
    except ValueError as exc:
        raise ArtifactRefusedError(str(exc)) from None
    check_heads(model)
    sanity = sanity_scores(model, cache_dir=cache_dir)
    return ArtifactReport(sha256=sha, size=size, format_version=version, heads=model.heads,
                          thresholds=dict(model.thresholds), auto_thresholds=dict(model.auto_thresholds),
                          sanity=sanity)


def format_version(path: Path) -> int:
    """The archive's `format_version`, read from its skops schema without loading the arrays:
    `load_model` also reads older formats (2-4), which the registry does not take."""
    try:
        with zipfile.ZipFile(path) as archive:
            schema = json.loads(archive.read("schema.json"))
        node = schema["content"]["format_version"]
        value = json.loads(node["content"]) if node.get("is_json") else node["content"]
        return int(value)
    except (OSError, zipfile.BadZipFile, KeyError, TypeError, ValueError) as exc:
        raise ArtifactRefusedError(f"not a skops chat model archive ({type(exc).__name__}: {exc})") from None


def check_heads(model: ChatModel) -> None:
    """A head and a review point for every model-scored category, every point a probability."""
    if missing := [c for c in MODEL_SCORED if c not in model.heads]:
        raise ArtifactRefusedError(f"no head for {', '.join(missing)} (every category of MODEL_SCORED needs one)")
    if missing := [c for c in MODEL_SCORED if c not in model.thresholds]:
        raise ArtifactRefusedError(f"no review threshold for {', '.join(missing)}")
    points = {**{f"threshold {k}": v for k, v in model.thresholds.items()},
              **{f"automatic point {k}": v for k, v in model.auto_thresholds.items()}}
    if bad := [f"{k}={v}" for k, v in points.items() if not (math.isfinite(v) and 0.0 < v <= 1.0)]:
        raise ArtifactRefusedError(f"operating points outside (0, 1]: {', '.join(sorted(bad))}")


def sanity_scores(model: ChatModel, *, cache_dir: Path | None = None) -> dict[str, dict[str, Any]]:
    """Score the fixed lines; ArtifactRefusedError when small talk is flagged or an offence ranks below it."""
    from models.chat.classifier import ChatClassifier  # compiles the patterns: only after the cheap checks

    try:
        verdicts = ChatClassifier(model, cache_dir=cache_dir).classify([*SANITY_CLEAN, *(t for t, _ in SANITY_OFFENCES)])
    except (ValueError, IndexError, KeyError, TypeError) as exc:
        raise ArtifactRefusedError(f"the model fails on the sanity lines ({type(exc).__name__}: {exc})") from None
    clean, offences = verdicts[: len(SANITY_CLEAN)], verdicts[len(SANITY_CLEAN):]
    out: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for text, verdict in zip(SANITY_CLEAN, clean, strict=True):
        if bad := [s for s in verdict.scores.values() if not (math.isfinite(s) and 0.0 <= s <= 1.0)]:
            problems.append(f"{text!r} scores outside [0, 1]: {bad[:3]}")
        if verdict.flagged:
            problems.append(f"clean line {text!r} flagged as {', '.join(verdict.flagged)}")
        out[text] = {"flagged": list(verdict.flagged)}
    for (text, category), verdict in zip(SANITY_OFFENCES, offences, strict=True):
        score = float(verdict.scores.get(category, 0.0))
        ceiling = max(float(v.scores.get(category, 0.0)) for v in clean)
        if category not in verdict.flagged and score <= ceiling:
            problems.append(f"{text!r} ({category}) scores {score:.3f}, not above small talk's {ceiling:.3f}")
        out[text] = {"category": category, "score": round(score, 4), "flagged": list(verdict.flagged)}
    if problems:
        raise ArtifactRefusedError("sanity lines: " + "; ".join(problems))
    return out


def describe(report: ArtifactReport) -> dict[str, Any]:
    """The report as JSON-able data (stored with the version)."""
    return {"sha256": report.sha256, "size": report.size, "format_version": report.format_version,
            "heads": list(report.heads), "thresholds": report.thresholds,
            "auto_thresholds": report.auto_thresholds, "sanity": report.sanity}
