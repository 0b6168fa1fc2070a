"""The registry's comparison (models/chat/compare.py): sets, the decisions time split, figures at
both operating points and the regressions beyond the tolerance, with stand-in classifiers."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from models.chat.compare import (
    INDEPENDENT_DEV,
    DecisionsError,
    EvalSet,
    compare,
    decision_sets,
    figures,
    independent_dev_sets,
    read_decisions,
)
from pipeline.categories import MODEL_SCORED
from pipeline.text_model import TextVerdict

T0 = datetime(2026, 11, 1, tzinfo=UTC)


class Scripted:
    """A classifier whose insult score is looked up per text; flagged from 0.5, automatic from 0.9."""

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        out = []
        for t in texts:
            s = self.scores.get(t, 0.0)
            out.append(TextVerdict(scores={"insult": s}, flagged=("insult",) if s >= 0.5 else (),
                                   automatic=("insult",) if s >= 0.9 else ()))
        return out


def test_figures_give_roc_auc_and_both_operating_points():
    s = EvalSet("x", ["a", "b", "c", "d"], [1, 1, 0, 0], ("insult",))
    f = figures(s, Scripted({"a": 0.95, "b": 0.6, "c": 0.7, "d": 0.1}).classify(s.texts))
    assert f["roc_auc"] == 0.75 and (f["n"], f["positives"]) == (4, 2)
    assert f["review"] == {"precision": round(2 / 3, 4), "recall": 1.0}
    assert f["automatic"] == {"precision": 1.0, "recall": 0.5}


def test_compare_lists_only_sets_losing_more_than_the_tolerance():
    worse = EvalSet("worse", ["a", "b", "c", "d"], [1, 1, 0, 0], ("insult",))
    same = EvalSet("same", ["e", "f"], [1, 0], ("insult",))
    base = Scripted({"a": 0.9, "b": 0.8, "c": 0.2, "d": 0.1, "e": 0.9, "f": 0.1})
    cand = Scripted({"a": 0.9, "b": 0.15, "c": 0.2, "d": 0.1, "e": 0.8, "f": 0.1})
    doc = compare(cand, base, [worse, same], candidate_id={"version": 2}, baseline_id={"version": 0})
    assert doc["sets"]["worse"]["delta_roc_auc"] == -0.25 and doc["sets"]["same"]["delta_roc_auc"] == 0.0
    assert doc["regressions"] == ["worse"]
    assert doc["sets"]["same"]["candidate"]["automatic"]["recall"] == 0.0  # 0.8 is under the automatic point


def decision(i: int, text: str, category: str, finding_category: str, *, train: bool = True) -> str:
    return json.dumps({"text": text, "category": category, "train": train, "status": "ok",
                       "provenance": {"decided_at": (T0 + timedelta(hours=i)).isoformat(),
                                      "finding_category": finding_category}})


def test_the_time_split_keeps_the_newest_decisions_per_category(tmp_path: Path):
    lines = [decision(i, f"old {i}", "insult", "insult") for i in range(8)]
    lines += [decision(8, "new confirmed", "insult", "insult"), decision(9, "new dismissed", "clean", "insult"),
              decision(10, "untrainable", "insult", "insult", train=False), ""]
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    rows = read_decisions(path)
    assert len(rows) == 10  # the untrainable row and the blank line are left out
    sets, cutoff = decision_sets(rows, share=0.2)
    assert cutoff == (T0 + timedelta(hours=8)).isoformat()
    by_name = {s.name: s for s in sets}
    assert set(by_name) == {"decisions:insult", "decisions:all"}
    assert by_name["decisions:insult"].texts == ["new confirmed", "new dismissed"]
    assert by_name["decisions:insult"].labels == [1, 0]
    assert by_name["decisions:all"].per_row == ("insult", "insult")
    assert decision_sets([], share=0.2) == ([], None)


def test_a_broken_decisions_file_is_refused_with_the_line(tmp_path: Path):
    path = tmp_path / "labels.jsonl"
    path.write_text(decision(0, "fine", "insult", "insult") + "\n{\"text\": \"no provenance\"}\n", encoding="utf-8")
    with pytest.raises(DecisionsError, match=r"labels.jsonl:2: not a labels export line"):
        read_decisions(path)
    with pytest.raises(DecisionsError, match="cannot read"):
        read_decisions(tmp_path / "missing.jsonl")


def test_independent_sets_come_from_the_dev_folder_only():
    assert INDEPENDENT_DEV.name == "dev" and INDEPENDENT_DEV.parent.name == "independent"
    sets = {s.name: s for s in independent_dev_sets()}
    langs = {p.stem for p in INDEPENDENT_DEV.glob("*.tsv")}
    assert {n.split(":")[1] for n in sets if n.split(":")[1] in langs} == langs
    assert {n.split(":")[1] for n in sets} - langs <= set(MODEL_SCORED)
    insult = sets["independent_dev:insult"]
    assert 0 < sum(insult.labels) < len(insult.labels) and insult.categories == ("insult",)


def test_a_toxic_set_ranks_by_the_toxic_head_and_counts_the_family_flags():
    s = EvalSet("public:x", ["a", "b"], [1, 0], ("toxic",))
    verdicts = [TextVerdict(scores={"toxic": 0.9, "insult": 0.2}, flagged=("insult",), automatic=()),
                TextVerdict(scores={"toxic": 0.1, "insult": 0.8}, flagged=(), automatic=())]
    f = figures(s, verdicts)
    assert f["roc_auc"] == 1.0  # by toxic, not by insult (which ranks them the other way)
    assert f["review"] == {"precision": 1.0, "recall": 1.0} and f["automatic"]["recall"] == 0.0
