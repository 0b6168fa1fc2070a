"""The learning bench's room chat from labelled sets: every line once before any repeat, labels
kept as the truth, a set without lines refused."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from bench.learning_from_decisions import SetChat


def _write(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    path.write_text("lang\tlabel\ttext\n" + "".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows), encoding="utf-8")
    return path


def test_every_line_is_sent_once_before_any_repeats_with_its_label_as_truth(tmp_path: Path) -> None:
    rows = [("en", "clean", "nice hand"), ("hu", "insult", "te hülye"), ("vi", "spam", "mua chip rẻ")]
    chat, rng = SetChat([_write(tmp_path / "a.tsv", rows)]), random.Random(2)
    first = chat(rng, 0, 3)
    assert sorted((ln.lang, ln.truth, ln.text) for ln in first) == sorted(rows)
    more = chat(rng, 3, 6)
    assert Counter(ln.text for ln in more) == Counter({t: 2 for _, _, t in rows})
    assert [ln.event_id for ln in more] == [f"lfd-{i}" for i in range(3, 9)]
    assert len({ln.player_id for ln in first + more}) == 9  # a player of its own per line sent


def test_a_set_without_lines_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no usable lines"):
        SetChat([_write(tmp_path / "b.tsv", [])])
