"""Choosing the review and automatic-action points on dev lines (`operating_points.py`), the
format-5 artifact's checks at load, and the shipped model's points."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from models.chat.artifact import DEFAULT_PATH, HEADS, ChatModel, load_model, save_model
from models.chat.operating_points import DevLine, PointTargets, automatic_points, review_points
from pipeline.categories import CATEGORIES, MODEL_SCORED

COL = {c: j for j, c in enumerate(MODEL_SCORED)}


def _lines_and_scores() -> tuple[list[DevLine], np.ndarray]:
    rng = np.random.default_rng(0)
    lines: list[DevLine] = []
    rows: list[np.ndarray] = []
    for lang in ("en", "id"):
        for i in range(200):  # clean: a budget of 2 per language
            lines.append(DevLine(lang, "clean", f"c{i}"))
            rows.append(rng.uniform(0, 0.5, len(MODEL_SCORED)))
        for i in range(30):
            lines.append(DevLine(lang, "collusion_talk", f"p{i}"))
            row = rng.uniform(0, 0.3, len(MODEL_SCORED))
            row[COL["collusion_talk"]] = 0.6 + i / 100
            rows.append(row)
    scores = np.array(rows)
    scores[0, COL["collusion_talk"]] = 0.855  # three clean lines look like collusion talk in en
    scores[1, COL["collusion_talk"]] = 0.845
    scores[2, COL["collusion_talk"]] = 0.835
    return lines, scores


def test_review_points_keep_every_language_inside_its_clean_budget() -> None:
    lines, scores = _lines_and_scores()
    review = review_points(scores, lines, PointTargets(floor=0.05))
    t = review["collusion_talk"]
    past = scores[:, COL["collusion_talk"]] >= t
    flagged_clean = {lang: sum(1 for ln, p in zip(lines, past, strict=True) if p and ln.lang == lang and ln.label == "clean")
                     for lang in ("en", "id")}  # fmt: skip
    assert max(flagged_clean.values()) <= 2
    # It went as low as the budget allows: the third en clean line (0.835) sets the limit.
    assert 0.835 < t <= 0.845
    assert review["hate"] == 1.0  # nothing to find: no dev line reaches it


def test_automatic_point_is_precise_from_its_threshold_up() -> None:
    lines, scores = _lines_and_scores()
    review = review_points(scores, lines, PointTargets(floor=0.05))
    auto = automatic_points(scores, lines, review, PointTargets(min_support=5))
    t = auto["collusion_talk"]
    past = scores[:, COL["collusion_talk"]] >= t
    right = [ln.label == "collusion_talk" for ln, p in zip(lines, past, strict=True) if p]
    assert sum(right) / len(right) >= 0.98 and t >= review["collusion_talk"]
    assert "hate" not in auto


def test_every_scored_category_is_a_chat_category_with_a_head() -> None:
    assert all(CATEGORIES[c][0] == "chat" for c in MODEL_SCORED)
    assert set(HEADS) == {"toxic", *MODEL_SCORED}  # toxic: the public sets' head, a score of its own
    assert len(HEADS) <= 16  # one 64-byte packed row per n-gram


@pytest.fixture(scope="module")
def shipped() -> ChatModel:
    return load_model(DEFAULT_PATH)


def test_shipped_model_has_both_points_for_every_head(shipped: ChatModel) -> None:
    assert shipped.heads == HEADS
    assert set(MODEL_SCORED) <= set(shipped.thresholds)
    assert all(0.0 < shipped.thresholds[c] <= 1.0 for c in MODEL_SCORED)
    assert shipped.auto_thresholds and set(shipped.auto_thresholds) <= set(MODEL_SCORED)
    assert all(shipped.auto_thresholds[c] >= shipped.thresholds[c] for c in shipped.auto_thresholds)


def test_broken_artifacts_fail_at_load_with_the_reason(shipped: ChatModel, tmp_path: Path) -> None:
    truncated = tmp_path / "cut.skops"
    truncated.write_bytes(DEFAULT_PATH.read_bytes()[:5000])
    with pytest.raises(ValueError, match="not a readable chat model"):
        load_model(truncated)
    garbage = tmp_path / "junk.skops"
    garbage.write_bytes(b"\x00\x01 not a zip")
    with pytest.raises(ValueError, match="not a readable chat model"):
        load_model(garbage)
    wrong = tmp_path / "wrong.skops"
    save_model(dataclasses.replace(shipped, intercepts=shipped.intercepts[:3]), wrong)
    with pytest.raises(ValueError, match=f"do not match its {len(HEADS)} heads"):
        load_model(wrong)
