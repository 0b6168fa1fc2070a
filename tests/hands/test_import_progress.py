"""`railbird import`: progress on stderr (bar on a terminal, plain lines otherwise) and the per-file summary."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from pipeline.hands.seating import SeatTracker
from railbird.commands import importer
from railbird.import_summary import bounties_carried, count_block
from railbird.progress import Progress, choose_mode
from railbird.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures"
PS = (FIXTURES / "ps_kinds.txt").read_text(encoding="utf-8")


class FakeTerminal(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _args(path: Path, **extra: object) -> argparse.Namespace:
    values = {"what": "hands", "path": str(path), "format": "auto", "out": None, "rejects": None,
              "summary": None, "progress": "off"} | extra
    return argparse.Namespace(**values)


@pytest.mark.parametrize(("err_tty", "out_tty", "writes_stdout", "mode"), [
    (True, False, True, "bar"),     # JSON lines piped away: the terminal is stderr's alone
    (True, True, False, "bar"),     # --out FILE: nothing else writes to the terminal
    (True, True, True, "lines"),    # JSON lines on the same terminal: a redrawn bar would garble them
    (False, True, False, "lines"),  # stderr to a log file
])
def test_auto_mode_draws_a_bar_only_on_a_terminal_nothing_else_writes_to(
    err_tty: bool, out_tty: bool, writes_stdout: bool, mode: str
) -> None:
    assert choose_mode("auto", FakeTerminal(err_tty), FakeTerminal(out_tty), writes_stdout) == mode
    assert choose_mode("off", FakeTerminal(True), FakeTerminal(False), False) == "off"
    with pytest.raises(ValueError, match="not one of"):
        choose_mode("fancy", FakeTerminal(True), FakeTerminal(False), False)


def test_the_bar_redraws_one_line_with_rate_files_and_bytes_then_clears() -> None:
    clock, err = Clock(), FakeTerminal(True)
    progress = Progress(err, "bar", files=4, total_bytes=4 << 20, clock=clock)
    assert not progress.due()
    clock.now += 0.5
    assert progress.due()
    progress.file_done(1 << 20)
    progress.show(hands=2_000, file_bytes=1 << 20)
    drawn = err.getvalue()
    assert drawn.startswith("\r[############............]  50% 1/4 files, 2.0 MiB/4.0 MiB, 2,000 hands, 4,000 hands/s")
    assert "\n" not in drawn and not progress.due()
    progress.close()
    assert err.getvalue().endswith("\r\x1b[K") and "\n" not in err.getvalue()


def test_plain_lines_are_whole_lines_at_the_interval() -> None:
    clock, err = Clock(), FakeTerminal(False)
    progress = Progress(err, "lines", files=1, total_bytes=2048, clock=clock)
    clock.now += 9.0
    assert not progress.due()  # one line per ten seconds in a log
    clock.now += 1.0
    assert progress.due()
    progress.show(hands=50, file_bytes=1024)
    progress.close()
    assert err.getvalue() == "railbird import: 50% 0/1 files, 1.0 KiB/2.0 KiB, 50 hands, 5 hands/s, 10 s\n"


def test_progress_while_importing_leaves_the_json_lines_on_stdout_intact(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text(PS * 3, encoding="utf-8")
    err, out = FakeTerminal(False), io.StringIO()
    progress = Progress(err, "lines", files=1, total_bytes=path.stat().st_size, every=0.0)
    tally = importer.import_file(path, "auto", out, None, SeatTracker(), progress)
    progress.close()
    assert tally.imported == 27
    shown = err.getvalue().splitlines()
    assert len(shown) >= 27 and ", 27 hands, " in shown[-1] and ", 1 hands, " in shown[0]
    assert all(line.startswith("railbird import: ") for line in shown)
    assert all(json.loads(line)["topic"] for line in out.getvalue().splitlines())  # nothing interleaved
    last_bytes = shown[-1].split(", ")[1]
    assert last_bytes.split("/")[0] == last_bytes.split("/")[1]  # the whole file read by the end


def test_summary_per_file_counts_rejects_by_reason_with_lines_and_carried_bounty_and_chat_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "hh"
    folder.mkdir()
    # The first hand (one bounty line, two chat lines) is broken: its total is one chip off.
    (folder / "b.txt").write_text(PS.replace("Total pot 2055 | Rake 0", "Total pot 2056 | Rake 0"), encoding="utf-8")
    (folder / "good.txt").write_text(PS, encoding="utf-8")
    (folder / "junk.txt").write_text('nobody said, "hi"\n', encoding="utf-8")
    out, summary = tmp_path / "out.jsonl", tmp_path / "summary.json"
    assert importer.run(_args(folder, out=str(out), summary=str(summary)), Settings()) == 0
    doc = json.loads(summary.read_text(encoding="utf-8"))
    broken, good, junk = doc["files"]
    assert broken["file"].endswith("b.txt") and (broken["imported"], broken["rejected"]) == (8, 1)
    assert broken["rejected_by_reason"] == {"chips_not_conserved": {"hands": 1, "first_lines": [29]}}
    assert (broken["bounty_lines"], broken["bounty_lines_carried"]) == (2, 1)
    assert (broken["chat_lines"], broken["chat_lines_carried"]) == (2, 0)
    assert (good["bounty_lines"], good["bounty_lines_carried"], good["chat_lines"], good["chat_lines_carried"]) == (2, 2, 2, 2)
    assert (junk["imported"], junk["chat_lines"], junk["chat_lines_carried"], junk["junk_lines"]) == (0, 1, 0, 1)
    total = doc["total"]
    assert (total["files"], total["imported"], total["rejected"], total["bounty_lines_carried"]) == (3, 17, 1, 3)
    assert total["rejected_by_reason"] == {"chips_not_conserved": 1} and total["bytes"] == sum(
        p.stat().st_size for p in folder.iterdir())
    # What is counted as carried is in the output: the good file's two bounty lines, the broken one's second.
    hands = [json.loads(line)["value"] for line in out.read_text(encoding="utf-8").splitlines()]
    won = [h["bounties_won"] for h in hands if h.get("bounties_won")]
    assert len(won) == 3
    text = capsys.readouterr().err
    assert "b.txt: 8 imported, 1 rejected [chips_not_conserved 1 (line 29)]; 1/2 bounty lines carried, 0/2 chat lines carried" in text
    assert "total: 3 files, 17 imported, 1 rejected" in text


def test_counting_lines_ignores_lookalikes() -> None:
    lines = ['erika8282 said, "gl all"', "zed wins $2.50 for eliminating bob", "bob: said, \"x", "x for eliminating"]
    assert count_block(lines) == (1, ["zed"])
    assert count_block(["Seat 1: a (100 in chips)"]) == (0, [])


def test_a_bounty_line_is_carried_only_when_it_reached_bounties_won() -> None:
    hand = json.dumps({"bounties_won": {"Ann_Lee": 200}})
    assert bounties_carried(hand, ["Ann Lee", "Ann Lee", "ghost"]) == 2  # names become ids ('Ann Lee' -> 'Ann_Lee')
    assert bounties_carried(json.dumps({}), ["Ann Lee"]) == 0  # a cash hand keeps no bounties


def test_an_unreadable_file_is_a_rejection_with_its_reason(tmp_path: Path) -> None:
    tally = importer.import_file(tmp_path, "auto", io.StringIO(), None)  # a directory cannot be read as a file
    assert (tally.imported, tally.rejected, dict(tally.reasons)) == (0, 1, {"unreadable": 1})
    assert tally.first_lines == {"unreadable": [0]} and "IsADirectoryError" in tally.first[0]["reason"]


def test_an_output_that_cannot_be_written_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.txt").write_text(PS, encoding="utf-8")
    missing = tmp_path / "no" / "such" / "dir"
    assert importer.run(_args(tmp_path / "a.txt", out=str(missing / "o.jsonl")), Settings()) == 2
    assert "cannot write" in capsys.readouterr().err
    summary = str(missing / "s.json")
    assert importer.run(_args(tmp_path / "a.txt", out=str(tmp_path / "o.jsonl"), summary=summary), Settings()) == 2
    assert f"cannot write the summary to {summary}" in capsys.readouterr().err
    assert len((tmp_path / "o.jsonl").read_text(encoding="utf-8").splitlines()) == 11  # the import itself was done
