"""One pass over a text that tells which rule patterns (and gates) may match it.

Two engines, both given a loosened *superset* of every pattern (`rules._loosen`): the Python
regex confirms each candidate, so a false candidate costs time and never a verdict; a missed one
would change a verdict, hence supersets only.

- Hyperscan (PyPI `hyperscan`, x86-64 wheels) compiles every pattern into one automaton ahead of
  time. On the bench's 15,580 public test texts (bare views, 64 characters): ~2.5 us a line,
  seen before or not.
- RE2's set (`google-re2`) builds its DFA states lazily, per new text: ~1.5 us a line it has
  seen, ~22 us a line it has not (same texts, same run). Kept as the fallback where no
  hyperscan wheel installs; without either, `RuleSet` falls back to trigger words.

Hyperscan is given the patterns with their Unicode classes widened to ASCII-only tests
(`ascii_superset`): with exact Unicode tables (`HS_FLAG_UCP`) compiling took 51 s, with the
widened classes 0.9 s; candidates grew from 0 to 21 extra lines of the 15,580. The compiled
database is kept in `cache_dir` (keyed by the patterns, the hyperscan version and the machine;
checksummed), so a process after the first loads it in about a millisecond."""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import threading
from pathlib import Path
from typing import Any, Protocol

__all__ = ["Prefilter", "ascii_superset", "build_prefilter"]


class Prefilter(Protocol):
    """Indices of the patterns that may match `text` (a superset of those that do)."""

    name: str

    def match(self, text: str) -> list[int]: ...


_HIGH = r"\x{80}-\x{10FFFF}"
"""Every non-ASCII code point: the part of a Unicode class an ASCII-only test cannot split."""
_SPACE = r"\s\x1c-\x1f"
r"""Python's ASCII whitespace: Hyperscan's `\s` leaves out the separators \x1c-\x1f."""
_OUTSIDE = {"pL": f"[a-zA-Z{_HIGH}]", "pN": f"[0-9{_HIGH}]", "s": f"[{_SPACE}{_HIGH}]", "d": f"[0-9{_HIGH}]"}
_IN_CLASS = {"pL": f"a-zA-Z{_HIGH}", "pN": f"0-9{_HIGH}", "s": f"{_SPACE}{_HIGH}", "d": f"0-9{_HIGH}"}
_IN_NEGATED = {"pL": "a-zA-Z", "pN": "0-9"}
"""In `[^...]` the class must shrink to stay a superset: `[^\\pL\\pN_]` -> `[^a-zA-Z0-9_]`
(every non-ASCII character passes). ASCII `\\s`/`\\d` there already shrink it."""


def ascii_superset(pattern: str) -> str:
    """`pattern` with `\\pL`, `\\pN`, `\\s` and `\\d` replaced by ASCII-only tests that accept at
    least what the Unicode class accepts (any non-ASCII character counts as a letter, digit and
    space). `\\S` needs nothing: ASCII `\\S` already accepts every non-ASCII character."""
    out: list[str] = []
    negated: bool | None = None  # None = outside a character class
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            escape = pattern[i + 1 : i + 3] if pattern[i + 1] == "p" else pattern[i + 1]
            table = _OUTSIDE if negated is None else _IN_NEGATED if negated else _IN_CLASS
            out.append(table.get(escape, "\\" + escape))
            i += 1 + len(escape)
            continue
        if negated is None and ch == "[":
            negated = pattern[i + 1 : i + 2] == "^"
            opening = "[^" if negated else "["
            out.append(opening)
            i += len(opening)
            if pattern[i : i + 1] == "]":  # a leading ']' is a literal member
                out.append("]")
                i += 1
            continue
        if negated is not None and ch == "]":
            negated = None
        out.append(ch)
        i += 1
    return "".join(out)


def _collect(index: int, _start: int, _end: int, _flags: int, found: list[int]) -> None:
    found.append(index)


class HyperscanPrefilter:
    """The patterns in one Hyperscan block-mode database; one scratch space per thread."""

    name = "hyperscan"

    def __init__(self, patterns: list[str], cache_dir: Path | None) -> None:
        import hyperscan

        self._hs = hyperscan
        self._n = len(patterns)
        expressions = [ascii_superset(p).encode() for p in patterns]
        flags = hyperscan.HS_FLAG_UTF8 | hyperscan.HS_FLAG_SINGLEMATCH | hyperscan.HS_FLAG_ALLOWEMPTY
        self._db = self._load(expressions, flags, cache_dir)
        self._scratch = hyperscan.Scratch(self._db)
        self._local = threading.local()

    def _load(self, expressions: list[bytes], flags: int, cache_dir: Path | None) -> Any:
        hs = self._hs
        key = hashlib.sha256(b"\0".join([*expressions, str(flags).encode()]))
        key.update(f"{hs.__version__} {platform.machine()} {platform.python_implementation()}".encode())
        path = cache_dir / f"rule-prefilter-{key.hexdigest()[:24]}.hsdb" if cache_dir else None
        if path is not None and path.is_file():
            try:
                stored = path.read_bytes()
                blob, digest = stored[:-32], stored[-32:]
                # Our own checksum: a silently damaged database would drop candidates, i.e. hits.
                if hashlib.sha256(blob).digest() == digest:
                    db = hs.loadb(blob, hs.HS_MODE_BLOCK)
                    # A database compiled for another CPU fails here rather than at the first message.
                    db.scan(b"probe", match_event_handler=_collect, context=[], scratch=hs.Scratch(db))
                    return db
            except (hs.error, OSError, ValueError):
                pass  # rebuilt below; the bad file is overwritten
        db = self._compile(expressions, flags)
        if path is not None:
            blob = hs.dumpb(db)
            _write_atomically(path, blob + hashlib.sha256(blob).digest())
        return db

    def _compile(self, expressions: list[bytes], flags: int) -> Any:
        db = self._hs.Database(mode=self._hs.HS_MODE_BLOCK)
        ids = list(range(len(expressions)))
        db.compile(expressions=expressions, ids=ids, elements=len(expressions), flags=flags)
        return db

    def match(self, text: str) -> list[int]:
        try:
            data = text.encode()
        except UnicodeEncodeError:  # lone surrogates: not UTF-8, so every pattern is a candidate
            return list(range(self._n))
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._scratch.clone()
        found: list[int] = []
        self._db.scan(data, match_event_handler=_collect, context=found, scratch=scratch)
        return found


def _write_atomically(path: Path, blob: bytes) -> None:
    """Best effort: a read-only or full disk only costs the next process a compile."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(blob)
        os.replace(tmp, path)  # concurrent writers each replace it with the same bytes
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


class Re2Prefilter:
    """RE2's multi-pattern set over the same loosened patterns (Unicode classes kept)."""

    name = "re2"

    def __init__(self, regex_set: Any, n_patterns: int) -> None:
        self._set = regex_set
        self._n = n_patterns

    def match(self, text: str) -> list[int]:
        try:
            return list(self._set.Match(text) or ())
        except UnicodeEncodeError:  # lone surrogates: not UTF-8, so every pattern is a candidate
            return list(range(self._n))


def _re2_prefilter(patterns: list[str]) -> Re2Prefilter | None:
    try:
        import re2
    except ImportError:
        return None
    options = re2.Options()
    options.max_mem = 64 << 20  # the default 8 MiB budget is too small for every pattern in one set
    regex_set = re2.Set.SearchSet(options)
    for pattern in patterns:
        try:
            if regex_set.Add(pattern) < 0:
                return None
        except re2.error:  # a construct RE2 lacks: the caller falls back to its trigger words
            return None
    regex_set.Compile()
    return Re2Prefilter(regex_set, len(patterns))


def build_prefilter(patterns: list[str], *, cache_dir: Path | None = None, engine: str = "auto") -> Prefilter | None:
    """The fastest engine installed ("auto"), or the one named ("hyperscan", "re2"); None when
    neither can take the patterns (the caller then uses its trigger words)."""
    if engine in ("auto", "hyperscan"):
        try:
            import hyperscan
        except ImportError:
            if engine == "hyperscan":
                raise
        else:
            try:
                return HyperscanPrefilter(patterns, cache_dir)
            except hyperscan.error:
                if engine == "hyperscan":
                    raise
    return _re2_prefilter(patterns)
