"""The independent chat sets stay independent: no line of them (case and spacing folded) is a
training text of any training code here, or sits verbatim in the code of the rules and training
corpora.

Only lines of 16+ folded characters count as a leak: "gg", "nh", "ty all" are what everybody types,
and finding them in both says nothing about where a set came from (the evaluation still drops any
line found in training text, short or long, and counts it). The table-talk test set
(corpus/table_talk.py) is neither training text nor a pattern and is left out of the code check;
the evaluation counts the lines a set shares with it. The `report/` sets are held out: failures
name a file and a count, never a line of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.chat.evaluate import DEFAULT_INDEPENDENT
from models.chat.independent import LabelledLine, read_tsv
from models.chat.overlap import all_training_texts, fold_text
from railbird.settings import PROJECT_ROOT, load_settings

POKER_CHAT_DEV = "poker_chat_dev/poker_chat_dev.tsv"
CODE_DIRS = ("models/chat", "pipeline/detectors/chat")
LEAK_MIN_CHARS = 16
NOT_CHECKED = ("models/chat/corpus/table_talk.py",)


def _sets() -> dict[Path, list[LabelledLine]]:
    files = [f for d in DEFAULT_INDEPENDENT if d.is_dir() for f in sorted(d.glob("*.tsv"))]
    dev = load_settings().datasets_dir / POKER_CHAT_DEV
    files += [dev] if dev.is_file() else []
    return {f: read_tsv(f) for f in files}


def _long(line: LabelledLine) -> bool:
    return len(fold_text(line.text)) >= LEAK_MIN_CHARS


def _shown(path: Path, lines: list[str]) -> str:
    held_out = any(part.startswith("report") for part in path.parts)
    return f"{path}: {len(lines)} line(s)" + ("" if held_out else f": {lines[:10]}")


def test_no_independent_line_is_training_text() -> None:
    sets = _sets()
    if not sets:
        pytest.skip("no independent set has been written yet")
    seen = all_training_texts(load_settings().datasets_dir)
    found = {path: [ln.text for ln in lines if _long(ln) and ln.text in seen] for path, lines in sets.items()}
    bad = [_shown(path, texts) for path, texts in found.items() if texts]
    assert not bad, "independent lines found in training text: " + "; ".join(bad)


def test_no_independent_line_is_written_into_the_rules_or_corpora() -> None:
    sets = _sets()
    if not sets:
        pytest.skip("no independent set has been written yet")
    files = [p for d in CODE_DIRS for p in sorted((PROJECT_ROOT / d).rglob("*.py"))]
    code = "\n".join(
        fold_text(p.read_text(encoding="utf-8"))
        for p in files
        if str(p.relative_to(PROJECT_ROOT)) not in NOT_CHECKED
    )
    found = {
        path: [ln.text for ln in lines if _long(ln) and fold_text(ln.text) in code]
        for path, lines in sets.items()
    }
    bad = [_shown(path, texts) for path, texts in found.items() if texts]
    assert not bad, "independent lines found in the code of the rules or corpora: " + "; ".join(bad)


def test_the_check_finds_a_planted_line(tmp_path: Path) -> None:
    """The overlap check itself: a training text with other case and spacing is found."""
    seen = all_training_texts(tmp_path)  # no datasets here: the authored training lines only
    assert "WHO is  the chip leader " in seen and "who is the chip leader tonight" not in seen
    assert set(seen.missing) >= {"davidson", "vihos"}
