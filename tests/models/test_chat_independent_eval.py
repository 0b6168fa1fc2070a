"""`railbird eval chat --independent`: reading the sets, the context each line is sent in, and how
findings are counted (with the rule detectors alone, then end to end through the CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.chat.independent import (
    EvalSetError,
    LabelledLine,
    chat_event,
    evaluate_set,
    markdown,
    read_set,
    read_tsv,
)
from models.chat.overlap import SeenTexts, fold_text
from pipeline.contracts import CHAT, ChatMessage, decode
from pipeline.registry import build_pipeline
from pipeline.rules import RulesConfig
from railbird.cli import main


def _write(path: Path, rows: list[tuple[str, str, str]], *, bom: bool = False) -> Path:
    body = "lang\tlabel\ttext\n" + "".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows)
    path.write_text(("\ufeff" if bom else "") + body, encoding="utf-8")
    return path


def _line(lang: str, label: str, text: str) -> LabelledLine:
    return LabelledLine(lang, label, text, "test")


def test_reads_aliases_quotes_tabs_and_a_byte_order_mark(tmp_path: Path) -> None:
    path = _write(tmp_path / "en.tsv", [
        ("en", "advertising", 'buy "cheap" chips'),
        ("id", "Collusion", "jangan saling bet\tya"),
        ("vi", "clean", "gg"),
    ], bom=True)  # fmt: skip
    lines = read_tsv(path)
    assert [(ln.lang, ln.label) for ln in lines] == [
        ("en", "spam"),
        ("id", "collusion_talk"),
        ("vi", "clean"),
    ]
    assert lines[0].text == 'buy "cheap" chips' and lines[1].text == "jangan saling bet\tya"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("text\tlabel\n", "header"),
        ("lang\tlabel\ttext\nxx\tclean\thi\n", "unknown language 'xx'"),
        ("lang\tlabel\ttext\nen\trude\thi\n", "unknown label 'rude'"),
        ("lang\tlabel\ttext\nen\tclean\n", ":2: expected"),
        ("", "header"),
    ],
)
def test_bad_files_are_clear_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(EvalSetError, match=message):
        read_tsv(path)


def test_a_folder_without_tsv_files_and_a_missing_path_are_errors(tmp_path: Path) -> None:
    with pytest.raises(EvalSetError, match=r"no \.tsv files"):
        read_set(tmp_path)
    with pytest.raises(EvalSetError, match="no such file"):
        read_set(tmp_path / "nope")


def _decoded(index: int) -> ChatMessage:
    event = decode(CHAT, json.dumps(chat_event(index, "he has aces")).encode())
    assert isinstance(event, ChatMessage)
    return event


def test_each_line_is_a_valid_table_message_during_a_hand_the_speaker_is_not_in() -> None:
    event = _decoded(7)
    assert event.channel == "table" and event.hand_id is not None
    assert event.players_in_hand and event.player_id not in event.players_in_hand
    other = _decoded(8)
    assert len({event.player_id, other.player_id}) == 2 and len({event.table_id, other.table_id}) == 2


def test_counting_on_the_rule_detectors() -> None:
    lines = [
        _line("en", "insult", "you are a fucking idiot"),  # lexicon: insult, automatic mute
        _line("en", "threat", "shut up you fucking idiot"),  # found as insult: same rule chat.3, not exact
        _line("en", "hand_in_play", "he has aces, fold"),  # needs the running hand
        _line("en", "collusion_talk", "the weather is nice"),  # missed
        _line("en", "clean", "nice hand"),
        _line("en", "clean", "you fucking idiot"),  # mislabelled clean: a finding against the pipeline
    ]
    result = evaluate_set(lines, build_pipeline(rules=RulesConfig(), classifier=None))
    recall = result["recall"]
    assert recall["insult"]["en"] == {"n": 1, "found": 1, "recall": 1.0, "exact": 1, "recall_exact": 1.0,
                                      "automatic": 1, "recall_automatic": 1.0}  # the mute: the automatic point's recall
    assert recall["hand_in_play"]["all"]["automatic"] == 0  # hand talk is never muted automatically
    assert recall["threat"]["en"]["found"] == 1 and recall["threat"]["en"]["exact"] == 0
    assert recall["hand_in_play"]["all"]["found"] == 1
    assert recall["collusion_talk"]["all"]["found"] == 0
    assert result["recall_by_language"]["all"]["n"] == 4 and result["recall_by_language"]["all"]["found"] == 3
    assert result["clean_flagged"]["en"] == {"n": 2, "flagged": 1, "percent": 50.0}
    auto = result["automatic_actions"]["all"]
    # Mutes on the insult, the threat (cites chat.3, the threat's rule) and the clean line.
    assert auto["actions"] == 3 and auto["correct"] == 2
    assert result["other_categories_found"]["threat"] == {"insult": 1}
    table = markdown({"mine": result})
    assert "| insult | 1/1 (1.00) |" in table and "clean lines flagged" in table


def test_lines_seen_in_training_are_dropped_and_counted() -> None:
    lines = [_line("en", "insult", "you are a fucking idiot"), _line("en", "clean", "Nice  HAND")]
    seen = SeenTexts(frozenset({fold_text("nice hand")}), ("authored",))
    result = evaluate_set(lines, build_pipeline(rules=RulesConfig(), classifier=None), seen=seen)
    assert result["in_training_dropped"] == 1 and result["lines"] == 2
    assert "en" not in result["clean_flagged"] and result["recall"]["insult"]["en"]["n"] == 1


def test_cli_on_a_file_and_on_a_bad_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _write(
        tmp_path / "hu.tsv", [("hu", "insult", "te kibaszott idióta"), ("hu", "clean", "szép játék volt")]
    )
    out = tmp_path / "result.json"
    assert main(["eval", "chat", "--independent", str(good), "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(out.read_text(encoding="utf-8"))
    assert printed["hu"]["recall"]["insult"]["hu"]["found"] == 1
    assert printed["hu"]["clean_flagged"]["hu"]["flagged"] == 0
    bad = tmp_path / "bad.tsv"
    bad.write_text("lang\tlabel\ttext\nen\tnonsense\thi\n", encoding="utf-8")
    assert main(["eval", "chat", "--independent", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "unknown label 'nonsense'" in err and "Traceback" not in err
