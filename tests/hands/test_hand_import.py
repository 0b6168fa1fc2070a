"""`railbird import hands` and the real Pluribus hands (read from settings.hands_dir, never copied)."""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import pytest

from pipeline.contracts import HAND, SEAT, decode
from pipeline.detectors.hand import build_hand_detectors
from pipeline.detectors.seat import HitAndRunDetector
from pipeline.registry import build_pipeline
from pipeline.replay import replay_lines
from pipeline.rules import RulesConfig
from railbird.commands import importer
from railbird.settings import Settings
from tests.hands.test_hand_parsing import PS_HAND

COLLUSION = {"soft_play", "chip_dumping", "bounty_agreement"}


def _run_import(path: Path, out: Path, fmt: str = "auto") -> int:
    args = argparse.Namespace(what="hands", path=str(path), format=fmt, out=str(out))
    return importer.run(args, Settings())


def test_import_writes_replayable_envelopes_and_counts_rejects(tmp_path: Path, capsys) -> None:
    broken = PS_HAND.replace("#7", "#8").replace("Bob: calls 100", "Bob: raises 100 to 50")
    (tmp_path / "a.txt").write_text(PS_HAND + "\n\n" + broken, encoding="utf-8")
    (tmp_path / "b.phh").write_text(
        "variant = 'NT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n"
        "starting_stacks = [100, 100]\nactions = ['d dh p1 AcAd', 'd dh p2 KcKd', 'p2 f']\n",
        encoding="utf-8",
    )
    out, summary_file = tmp_path / "hands.jsonl", tmp_path / "summary.json"  # .json: not read as a history
    args = argparse.Namespace(what="hands", path=str(tmp_path), format="auto", out=str(out), summary=str(summary_file))
    assert importer.run(args, Settings()) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and all(json.loads(line)["topic"] == HAND for line in lines)
    summary = json.loads(summary_file.read_text(encoding="utf-8"))["total"]
    assert summary["imported"] == 2 and summary["rejected"] == 1 and summary["rejected_by_reason"] == {"illegal_action": 1}
    assert "1 rejected [illegal_action 1]" in capsys.readouterr().err
    outputs = list(replay_lines(lines, build_pipeline(rules=RulesConfig())))
    assert not [o for o in outputs if o["kind"] in ("dead_letter", "detector_error")]


def test_import_of_a_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    assert _run_import(tmp_path / "nope", tmp_path / "out.jsonl") == 2


@pytest.mark.slow
def test_pluribus_hands_all_import_and_raise_at_most_one_collusion_flag(tmp_path: Path) -> None:
    folder = Settings().hands_dir / "pluribus"
    if not folder.is_dir():
        pytest.skip(f"Pluribus hands not found at {folder} (set RAILBIRD_HANDS_DIR)")
    out = tmp_path / "pluribus.jsonl"
    started = time.perf_counter()
    assert _run_import(folder, out) == 0
    elapsed = time.perf_counter() - started
    envelopes = [json.loads(line) for line in out.open(encoding="utf-8")]
    records = [decode(HAND, json.dumps(e["value"]).encode()) for e in envelopes if e["topic"] == HAND]
    assert len(records) == 10_000, "every Pluribus hand imports"
    assert elapsed < 60
    # Seat events from consecutive hands: replacements between sessions only; the players seen
    # leaving were seated before the first hand seen (no join, so no leave), so 0 hit-and-run.
    seats = [decode(SEAT, json.dumps(e["value"]).encode()) for e in envelopes if e["topic"] == SEAT]
    assert seats and {s.action for s in seats} == {"join"}
    hit_and_run = HitAndRunDetector(rules=RulesConfig())
    assert [f for s in seats for f in hit_and_run.process(s)] + hit_and_run.flush() == []
    detectors = build_hand_detectors(rules=RulesConfig())
    flags: Counter[str] = Counter()
    for record in records:
        for d in detectors:
            for f in d.process(record):
                flags[f.category] += 1
    assert sum(n for c, n in flags.items() if c in COLLUSION) <= 1, flags
