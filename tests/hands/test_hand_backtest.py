"""`railbird backtest PATH`: import + replay + a Markdown report per detector."""

from __future__ import annotations

import argparse
from pathlib import Path

from railbird.commands import backtest
from railbird.commands.importer import Tally
from railbird.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures"


def test_backtest_reports_imports_rejects_and_findings(tmp_path: Path) -> None:
    folder = tmp_path / "hh"
    folder.mkdir()
    (folder / "ps.txt").write_bytes((FIXTURES / "ps_kinds.txt").read_bytes())
    (folder / "junk.txt").write_bytes(b"\x00\x01 not a hand\n" + b"\n".join((FIXTURES / "gg_kinds.txt").read_bytes().splitlines()[:12]))
    report, events = tmp_path / "report.md", tmp_path / "events.jsonl"
    args = argparse.Namespace(path=str(folder), out=str(report), events=str(events))
    assert backtest.run(args, Settings()) == 0
    text = report.read_text(encoding="utf-8")
    assert ("2 files: 9 hands imported, 1 rejected (truncated 1), 2 chat lines, 0 seat events (derived from"
            " consecutive hands), 1 lines outside any hand.") in text
    assert "## First rejected hands" in text and "junk.txt" in text
    assert len(events.read_text(encoding="utf-8").splitlines()) == 11
    assert backtest.run(argparse.Namespace(path=str(tmp_path / "none"), out=None, events=None), Settings()) == 2


def test_report_lists_findings_per_detector() -> None:
    finding = {"detector": "hand.chip_dumping", "category": "chip_dumping", "score": 0.97, "players": ["a", "b"],
               "table_id": "t1", "source_event_ids": ["ps-1", "ps-2"], "summary": "a | b"}
    text = backtest.render_report("x", 1, Tally(imported=2), [{"kind": "finding", "finding": finding}])
    assert "| hand.chip_dumping | 1 | 2 |" in text
    assert "| chip_dumping | 0.97 | a, b | t1 | ps-1, ps-2 | a \\| b |" in text
