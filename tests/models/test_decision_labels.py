"""Training input from reviewers' decisions: an export -> training rows with provenance; evaluation
lines, disputed, unlearnable and contradictory labels left out and counted."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from api.labels.models import LabelRow
from api.labels.service import export_row
from models.chat.corpus.authored import evaluation_keys
from models.chat.decision_labels import (
    SOURCE,
    DecisionFileError,
    decision_rows,
    parse_line,
    read_export,
    write_provenance,
)
from models.chat.evaluate import INDEPENDENT_DIR
from models.chat.independent import read_tsv
from models.chat.training import head_rows, target
from railbird.cli import main

T = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _label(n: int, text: str, category: str, *, reviewer: str = "ann", status: str = "ok", reason: str = "",
           verdict: str = "confirm") -> LabelRow:
    return LabelRow(id=f"lbl_{n}", finding_id=f"fnd_{n}", case_id=f"case_{n}", decision_id=f"dec_{n}",
                    reviewer_id=f"u_{reviewer}", reviewer=reviewer, role="analyst", verdict=verdict, decided_at=T,
                    detector="chat.classifier", finding_category="insult", score=0.8, event_id=f"msg-{n}", text=text,
                    language="en", category=category, span_start=None, span_end=None, corrected_by=None,
                    corrected_at=None, status=status, status_reason=reason)


def _export(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _dev_line() -> str:
    """A line of the independent DEV set (dev only: report/ is never opened here)."""
    return next(ln.text for ln in read_tsv(INDEPENDENT_DIR / "dev" / "en.tsv") if len(ln.text) > 20)


def test_an_api_export_becomes_training_rows_with_provenance(tmp_path):
    rows = [export_row(_label(1, "you absolute donkey, uninstall", "insult"), reviewer_active=True),
            export_row(_label(2, "nice hand lol", "clean", verdict="dismiss"), reviewer_active=True),
            export_row(_label(3, "I will find you after this", "threat", reviewer="bea"), reviewer_active=True)]
    made = decision_rows(read_export(_export(tmp_path, rows)), held=frozenset())
    by_text = {s.text: s for s in made.samples}
    assert set(by_text) == {"you absolute donkey, uninstall", "nice hand lol", "I will find you after this"}
    assert all(s.source == SOURCE and s.split == "train" for s in made.samples)
    threat, clean = by_text["I will find you after this"], by_text["nice hand lol"]
    assert (threat.category, threat.toxic, threat.label) == ("threat", 1, 1)
    assert (clean.category, clean.label, clean.toxic) == ("clean", 0, 0)
    prov = made.provenance[list(by_text).index("I will find you after this")]
    assert prov["decision_ids"] == ["dec_3"] and prov["reviewers"] == ["bea"] and prov["label_ids"] == ["lbl_3"]
    summary = made.summary(digest="abc")
    assert summary["rows"] == 3 and summary["reviewers"] == 2 and summary["by_category"]["threat"] == 1
    out = tmp_path / "prov.jsonl"
    write_provenance(made, out)
    assert "I will find you" not in out.read_text() and len(out.read_text().splitlines()) == 3


def test_evaluation_lines_never_become_training_rows():
    line = _dev_line()
    assert " ".join(line.casefold().split()) in evaluation_keys()
    shouted = line.upper().replace(" ", "  ")  # folding sees through case and spacing
    examples = [parse_line(json.dumps(export_row(_label(n, text, "insult"), reviewer_active=True)), origin="x")
                for n, text in enumerate([line, shouted, "a line nobody wrote in an evaluation set"])]
    made = decision_rows(examples)  # the default guard: every independent evaluation line
    assert [s.text for s in made.samples] == ["a line nobody wrote in an evaluation set"]
    assert made.excluded == {"repeats an evaluation line": 2}


def test_disputed_unlearnable_and_contradicting_labels_are_left_out_with_their_reason():
    labels = [
        export_row(_label(1, "fold to me", "collusion_talk", status="conflicting",
                          reason="reviewers disagree: ann (analyst) clean; sen (senior) collusion_talk"), reviewer_active=True),
        export_row(_label(2, "spam spam spam", "flooding"), reviewer_active=True),
        export_row(_label(3, "you idiot", "insult", reviewer="old"), reviewer_active=False),
        export_row(_label(4, "gg idiot", "insult"), reviewer_active=True),
        export_row(_label(5, "GG  idiot", "clean", reviewer="bea", verdict="dismiss"), reviewer_active=True),
        export_row(_label(6, "ship it", "clean"), reviewer_active=True),
        export_row(_label(7, "Ship it", "clean", reviewer="bea"), reviewer_active=True),
    ]
    made = decision_rows([parse_line(json.dumps(r), origin="x") for r in labels], held=frozenset())
    assert [s.text for s in made.samples] == ["ship it"]  # agreeing repeats collapse to one row
    assert made.provenance[0]["label_ids"] == ["lbl_6", "lbl_7"]
    assert made.excluded == {
        "not trainable in the export: reviewers disagree": 1,
        "not trainable in the export: reviewer deactivated": 1,
        "category flooding is not learned from one message's text": 1,
        "the same text labelled differently by different decisions": 2,
    }
    assert "ann" not in json.dumps(made.summary())  # counts, not reviewers' names, go into the artifact


def test_decision_rows_train_the_category_heads_like_authored_lines(tmp_path):
    made = decision_rows([parse_line(json.dumps(export_row(_label(1, "I know where you live", "threat"),
                                                           reviewer_active=True)), origin="x")], held=frozenset())
    pool = list(made.samples)  # the licensed sets are not needed to check the routing
    assert head_rows(pool, "threat").tolist() == [True]  # a toxic row still teaches the threat head
    assert target(pool[0], "threat") == 1 and target(pool[0], "insult") == 0


def test_a_text_decided_many_times_keeps_its_clear_majority_and_drops_the_slips():
    said = ["insult"] * 4 + ["clean"] + ["threat", "clean"] * 2
    texts = ["you donkey"] * 5 + ["watch your back"] * 4
    labels = [export_row(_label(n, t, c, reviewer=f"r{n}"), reviewer_active=True)
              for n, (t, c) in enumerate(zip(texts, said, strict=True))]
    made = decision_rows([parse_line(json.dumps(r), origin="x") for r in labels], held=frozenset())
    assert [(s.text, s.category) for s in made.samples] == [("you donkey", "insult")]  # 4 of 5
    assert len(made.provenance[0]["label_ids"]) == 4
    assert made.excluded == {"outvoted by the other decisions on the same text": 1,
                             "the same text labelled differently by different decisions": 4}  # 2 to 2


@pytest.mark.parametrize(("content", "why"), [
    ("not json\n", "labels.jsonl:1: not JSON"),
    ('{"text": "x"}\n', "missing category, train, provenance"),
    ('{"text": 1, "category": "insult", "train": true, "provenance": {}}\n', "must be strings"),
])
def test_a_broken_export_line_is_refused_naming_the_line(tmp_path, content, why):
    path = tmp_path / "labels.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DecisionFileError, match=why):
        read_export(path)


def test_train_refuses_an_unusable_decisions_file_before_training(tmp_path, capsys):
    datasets = Path(__file__).resolve().parents[3] / "shared" / "datasets"
    if not (datasets / "davidson").is_dir():
        pytest.skip("no datasets")
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{nope\n", encoding="utf-8")
    assert main(["train", "chat", "--decisions", str(broken), "--out", str(tmp_path / "x.skops")]) == 2
    assert "not JSON" in capsys.readouterr().err
    useless = _export(tmp_path, [export_row(_label(1, "spam spam", "flooding"), reviewer_active=True)])
    assert main(["train", "chat", "--decisions", str(useless), "--out", str(tmp_path / "x.skops")]) == 2
    assert "none of its 1 labels is usable" in capsys.readouterr().err
    assert not (tmp_path / "x.skops").exists()
