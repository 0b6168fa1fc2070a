"""Adding an authored round (models/chat/corpus/ingest.py): lines that would leak held-out text
into training are dropped and counted, bad rows are named by line, the rest is kept as written."""

from __future__ import annotations

from pathlib import Path

from models.chat.corpus.authored import HEADER, read_authored
from models.chat.corpus.ingest import ingest_round, main, round_of, target_name, write
from models.chat.overlap import fold_text

HELD = {"evaluation": frozenset({fold_text("a line the evaluation set holds")}),
        "poker_chat_dev": frozenset({fold_text("Dev line")})}


def _writer(folder: Path, stem: str, rows: list[str], header: str = HEADER) -> Path:
    path = folder / f"{stem}.tsv"
    path.write_text("\n".join((header, *rows)) + "\n", encoding="utf-8")
    return path


def test_held_out_earlier_and_repeated_lines_are_dropped_and_counted(tmp_path: Path) -> None:
    en = _writer(tmp_path, "en", [
        "en\tclean\tnice hand, ship it",
        "en\tinsult\tA  LINE the evaluation set holds",  # folded: case and spacing
        "en\tclean\tdev line",
        "en\tspam\tan earlier round wrote this",
        "en\tspam\tfold fold fold fold",
    ])
    vi = _writer(tmp_path, "vi-b", ["vi\tspam\tfold fold fold fold", "vi\tclean\tgg anh em"])
    results = ingest_round([vi, en], round_no=7, held=HELD, earlier=[fold_text("An earlier round wrote this")])
    by_writer = {r.writer: r for r in results}
    assert [r.writer for r in results] == ["en", "vi-b"]  # name order: repeats keep the first writer's line
    assert by_writer["en"].kept == ("en\tclean\tnice hand, ship it", "en\tspam\tfold fold fold fold")
    assert dict(by_writer["en"].dropped) == {"evaluation": 1, "poker_chat_dev": 1, "repeat": 1}
    assert by_writer["vi-b"].kept == ("vi\tclean\tgg anh em",)
    assert dict(by_writer["vi-b"].dropped) == {"repeat": 1}
    assert by_writer["vi-b"].target == "vi-7b"
    assert by_writer["en"].summary()["labels"] == {"clean": 1, "spam": 1}


def test_bad_rows_are_named_by_line_without_their_text(tmp_path: Path) -> None:
    path = _writer(tmp_path, "hu-a", [
        "hu\tclean\tjó lap",
        "hu\tbanter\tsecret text one",  # not a category
        "hu\tclean",  # no text
        "ru\tclean\tsecret text two",  # another language than the file's
    ])
    (result,) = ingest_round([path], round_no=7, held={}, earlier=[])
    assert result.kept == ("hu\tclean\tjó lap",)
    assert dict(result.dropped) == {"unknown_label": 1, "malformed": 1, "other_language": 1}
    assert result.problems == (f"{path}:3: unknown_label", f"{path}:4: malformed", f"{path}:5: other_language")
    assert not any("secret" in p for p in result.problems)


def test_a_file_without_the_header_is_refused_whole(tmp_path: Path) -> None:
    path = _writer(tmp_path, "uk", ["uk\tclean\tпривіт"], header="text\tlabel")
    (result,) = ingest_round([path], round_no=7, held={}, earlier=[])
    assert result.kept == () and result.problems == (f"{path}:1: the header must be {HEADER!r}",)


def test_written_files_are_read_back_by_training(tmp_path: Path) -> None:
    path = _writer(tmp_path, "id", ["id\tcollusion_talk\tkita jgn saling bet ya", "id\tclean\tsabar bos"])
    (result,) = ingest_round([path], round_no=9, held={}, earlier=[])
    out = tmp_path / "out"
    out.mkdir()
    assert write([result], out) == [out / "id-9.tsv"]
    lines = read_authored(out)
    assert [(ln.lang, ln.label, ln.text, ln.writer) for ln in lines] == [
        ("id", "collusion_talk", "kita jgn saling bet ya", "id-9"), ("id", "clean", "sabar bos", "id-9")]
    assert round_of("id-9") == 9 and round_of("vi-7b") == 7 and round_of("en") == 1
    assert target_name("en", 9) == "en-9"


def test_the_command_fails_on_bad_rows_and_writes_nothing_without_write(tmp_path: Path) -> None:
    _writer(tmp_path, "en", ["en\tnot_a_label\tsomething"])
    assert main([str(tmp_path), "--round", "99"]) == 1
    assert not list(Path(__file__).resolve().parents[2].glob("models/chat/corpus/authored/*-99.tsv"))
