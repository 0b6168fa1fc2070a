"""The rule prefilter engines: each must report a superset of the patterns that match, so the
rules find exactly what a full scan finds whichever engine runs; Hyperscan's compiled database
is cached on disk and a damaged cache costs a compile, never a wrong answer."""

from __future__ import annotations

import re
import sys
import threading
from pathlib import Path

import pytest

from models.chat.normalize import Normalizer
from models.chat.patterns import PATTERNS
from models.chat.prefilter import HyperscanPrefilter, ascii_superset, build_prefilter
from models.chat.rules import RuleSet

hyperscan = pytest.importorskip("hyperscan")

ODD = [
    "",
    " ",
    "\x00\x01 fold now \x00",
    "b1tch\u200d\u200bass",  # zero-width joiner and space inside a word
    "שלום fold now مرحبا",  # right to left around a table-talk line
    "\ud83d fold \udca9 kys",  # lone surrogates: not UTF-8
    "😀" * 400,
    "ｆｏｌｄ ｎｏｗ",
    "send n.u.d.e.s to @bob_77 at bit.ly/x now",
    "платн курс копия pdf даром",
    "x" * 5000,
]


def _hs_class_accepts(pattern: str, chars: str) -> int:
    """How many of `chars` the Hyperscan pattern (one character wide) accepts."""
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=[ascii_superset(pattern).encode()], ids=[0], elements=1, flags=hyperscan.HS_FLAG_UTF8)
    ends: set[int] = set()
    db.scan(chars.encode(), match_event_handler=lambda i, s, e, f, c: ends.add(e))
    return len(ends)


@pytest.mark.parametrize(
    ("python_class", "loosened"),
    [
        (r"[^\W\d_]", r"\pL"),
        (r"\w", r"[\pL\pN_]"),
        (r"\W", r"[^\pL\pN_]"),
        (r"\s", r"\s"),
        (r"\d", r"\d"),
        (r"[\s.]", r"[\s.]"),
        (r"[^\W\d_]", r"[\pL'-]"),
    ],
)
def test_ascii_superset_accepts_every_character_python_accepts(python_class: str, loosened: str) -> None:
    """Every code point (surrogates aside) that Python's class matches, the rewritten class
    matches too: checked over all of Unicode, not a sample."""
    regex = re.compile(python_class)
    chars = "".join(c for c in map(chr, range(sys.maxunicode + 1)) if not 0xD800 <= ord(c) <= 0xDFFF and regex.match(c))
    assert len(chars) > 20
    assert _hs_class_accepts(loosened, chars) == len(chars)


def test_ascii_superset_rewrites_only_the_unicode_classes() -> None:
    assert ascii_superset(r"fold\s+now") == r"fold[\s\x1c-\x1f\x{80}-\x{10FFFF}]+now"
    assert ascii_superset(r"[^\pL\pN_]x") == r"[^a-zA-Z0-9_]x"
    assert ascii_superset(r"[]a]\S\.") == r"[]a]\S\."  # a leading ']' is a member, not the end


@pytest.fixture(scope="module")
def texts() -> list[str]:
    from models.chat.corpus.poker import LABELLED
    from models.chat.corpus.table_talk import BASE, table_talk

    lines = [t for lang in BASE for t in table_talk(lang)] + [t for t, _, _ in LABELLED] + ODD
    normalizer = Normalizer()
    return [v.bare.text for v in normalizer.views_many(lines)] + ODD


def test_both_engines_find_what_the_full_scan_finds(texts: list[str]) -> None:
    fast, fallback = RuleSet(engine="hyperscan"), RuleSet(engine="re2")
    assert (fast.engine, fallback.engine) == ("hyperscan", "re2")
    assert [t for t in texts if fast.find(t) != fast.find(t, prefilter=False)] == []
    assert [t for t in texts if fallback.find(t) != fast.find(t)] == []
    assert sum(bool(fast.find(t)) for t in texts) > 50  # the lines do hit patterns


def test_hyperscan_candidates_cover_re2_candidates(texts: list[str]) -> None:
    fast, fallback = RuleSet(engine="hyperscan"), RuleSet(engine="re2")
    assert [t for t in texts if not fallback.active(t) <= fast.active(t)] == []


def test_text_that_is_not_utf8_makes_every_pattern_a_candidate() -> None:
    rules = RuleSet(engine="hyperscan")
    text = "\ud83d kys \udca9"
    assert rules.active(text) == set(range(len(PATTERNS)))
    assert rules.find(text) == rules.find(text, prefilter=False)
    assert rules.find(text)  # "kys" is still found around the surrogates


def test_compiled_database_is_cached_and_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = build_prefilter(["fold", "k+ys"], cache_dir=tmp_path, engine="hyperscan")
    assert first is not None and len(list(tmp_path.glob("*.hsdb"))) == 1

    def no_compile(*_: object) -> None:
        raise AssertionError("compiled although the cache holds the database")

    monkeypatch.setattr(HyperscanPrefilter, "_compile", no_compile)
    again = build_prefilter(["fold", "k+ys"], cache_dir=tmp_path, engine="hyperscan")
    assert again is not None and sorted(again.match("kkys then fold")) == [0, 1]
    with pytest.raises(AssertionError):  # other patterns: another key, so a compile
        build_prefilter(["call"], cache_dir=tmp_path, engine="hyperscan")


def test_damaged_cache_is_rebuilt(tmp_path: Path) -> None:
    build_prefilter(["fold"], cache_dir=tmp_path, engine="hyperscan")
    (cached,) = tmp_path.glob("*.hsdb")
    cached.write_bytes(b"not a database")
    rebuilt = build_prefilter(["fold"], cache_dir=tmp_path, engine="hyperscan")
    assert rebuilt is not None and rebuilt.match("i fold") == [0] and rebuilt.match("i call") == []
    assert cached.read_bytes() != b"not a database"


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_a_cache_file_that_fails_its_checksum_is_recompiled(tmp_path: Path, damage: str) -> None:
    patterns = ["fold", "k+ys", r"call\s+now"]
    build_prefilter(patterns, cache_dir=tmp_path, engine="hyperscan")
    (cached,) = tmp_path.glob("*.hsdb")
    good = cached.read_bytes()
    bad = bytearray(good[: len(good) // 2] if damage == "truncate" else good)
    if damage == "flip":
        bad[len(bad) // 3] ^= 0x10
    cached.write_bytes(bytes(bad))
    rebuilt = build_prefilter(patterns, cache_dir=tmp_path, engine="hyperscan")
    assert rebuilt is not None and sorted(rebuilt.match("kkys, fold, call   now")) == [0, 1, 2]
    assert cached.read_bytes() == good  # rewritten whole


def test_unwritable_cache_dir_still_gives_a_prefilter(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory should be")
    prefilter = build_prefilter(["fold"], cache_dir=blocker / "cache", engine="hyperscan")
    assert prefilter is not None and prefilter.match("fold") == [0]


def test_threads_scan_with_their_own_scratch(texts: list[str]) -> None:
    rules = RuleSet(engine="hyperscan")
    expected = [sorted(rules.active(t)) for t in texts]
    results: dict[int, list[list[int]]] = {}

    def scan(k: int) -> None:
        results[k] = [sorted(rules.active(t)) for t in texts]

    threads = [threading.Thread(target=scan, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[k] == expected for k in range(4))


def test_lookbehinds_are_loosened_away_and_a_pattern_re2_rejects_falls_back() -> None:
    from models.chat.rules import _loosen

    assert _loosen(r"\b(?<!for the )(?<!for )(?:free chips)\b(?!x)") == "(?:free chips)"
    assert build_prefilter([r"(?<=a)b"], engine="re2") is None  # the caller then uses trigger words
