"""Reading hand-history files: any encoding with or without a byte-order mark, numbered lines in
bounded memory, and the split into hand blocks (concatenated files, junk between hands).

A file is read line by line (never whole), a line is capped at `MAX_LINE_BYTES`, and a hand block at
`MAX_BLOCK_LINES`, so a 100 MB file or one without newlines costs a few kilobytes at a time.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

MAX_LINE_BYTES = 8_192
"""Longer lines are cut (and then fail to parse with their line number): no real line is near it."""
CHUNK_BYTES = 1 << 20
_SAFE_CHARS = MAX_LINE_BYTES // 4
"""A decoded line this short is under the cap in bytes too (UTF-8 takes at most 4 bytes a character)."""
MAX_BLOCK_LINES = 2_000
"""A hand never has this many lines; a longer block is junk and is rejected, not kept in memory."""

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def sniff_encoding(head: bytes) -> tuple[str, int]:
    """(encoding, BOM length) from a file's first bytes; UTF-16 without a BOM is seen by its zeros."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name, len(bom)
    if len(head) >= 4 and head[1] == 0 and head[3] == 0 and head[0] and head[2]:
        return "utf-16-le", 0
    if len(head) >= 4 and head[0] == 0 and head[2] == 0 and head[1] and head[3]:
        return "utf-16-be", 0
    return "utf-8", 0


def _decode_line(raw: bytes) -> str:
    # Files are UTF-8 today; older clients and converters wrote Windows-1252. A line that is not
    # UTF-8 is read as cp1252 (every byte maps), so accented names survive rather than turn to '?'.
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


Batch = tuple[int, list[str]]
"""(number of the first line, the lines' texts without line ends): lines come in batches, a whole
read chunk at a time in the usual file, so the split into hands can work on a chunk in C."""


def numbered_lines(stream: BinaryIO) -> Iterator[Batch]:
    """Every line of a binary stream, in batches of consecutive lines (1-based numbers)."""
    head = stream.read(4)
    encoding, bom = sniff_encoding(head)
    rest = head[bom:]
    if encoding != "utf-8":
        reader = codecs.getincrementaldecoder(encoding)(errors="replace")
        buffer = reader.decode(rest)
        number = 0
        while True:
            chunk = stream.read(65_536)
            buffer += reader.decode(chunk, final=not chunk)
            *complete, buffer = buffer.split("\n")
            if complete:
                yield number + 1, [text.rstrip("\r")[:MAX_LINE_BYTES] for text in complete]
                number += len(complete)
            if not chunk:
                break
            if len(buffer) > MAX_LINE_BYTES:
                buffer = buffer[:MAX_LINE_BYTES]
        if buffer:
            yield number + 1, [buffer.rstrip("\r")]
        return
    # UTF-8 (or cp1252 per line): read in chunks and split in C, much faster than readline. A chunk
    # that is all UTF-8 is decoded at once; else (or for a line that may be over the cap) line by line.
    number = 0
    pending = rest
    while True:
        chunk = stream.read(CHUNK_BYTES)
        data = pending + chunk
        cut = data.rfind(b"\n")
        pending = data[cut + 1 :]
        if len(pending) > MAX_LINE_BYTES:
            pending = pending[:MAX_LINE_BYTES]  # an over-long line is cut; it still gets a reason
        try:
            texts = data[:cut].decode("utf-8").split("\n") if cut >= 0 else []
        except UnicodeDecodeError:
            texts = [_decode_line(raw[:MAX_LINE_BYTES].rstrip(b"\r")) for raw in data[:cut].split(b"\n")]
        else:
            if texts and max(map(len, texts)) > _SAFE_CHARS:
                texts = [_capped(text) for text in texts]
            elif data.find(b"\r", 0, cut) >= 0:
                # The common chunk: no line near the cap, so lines need only their '\r' stripped (when the file has any).
                texts = [text.rstrip("\r") for text in texts]
        if texts:
            yield number + 1, texts
            number += len(texts)
        if not chunk:
            break
    if pending:
        yield number + 1, [_decode_line(pending.rstrip(b"\r"))]


def _capped(text: str) -> str:
    if len(text) > _SAFE_CHARS:  # may be over the cap in bytes: cut exactly as bytes
        return _decode_line(text.encode("utf-8")[:MAX_LINE_BYTES].rstrip(b"\r"))
    return text.rstrip("\r")


@dataclass(slots=True)
class Block:
    """The lines of one hand (or of junk outside any hand), with the number of its first line."""

    start: int
    lines: list[str]
    hand: bool
    """True when the block starts with a hand header; False for lines outside any hand."""
    overflow: bool = False
    """More than `MAX_BLOCK_LINES` lines: kept only up to the cap."""


def split_blocks(
    batches: Iterable[Batch], is_header: Callable[[str], bool], header_starts: tuple[str, ...] = ()
) -> Iterator[Block]:
    """Hand blocks in file order; non-blank lines before the first header (a partial file) or
    between a hand and junk form blocks with `hand=False`, so nothing is skipped without a reason.
    `header_starts`: prefixes every header has (lines with another first character are not tested).
    Header lines are kept as read, the others without trailing whitespace."""
    splitter = _Splitter(is_header, header_starts)
    for start, texts in batches:
        yield from splitter.feed(start, texts)
    if splitter.block is not None:
        yield splitter.block


def _marked_lines(joined: str, mark: str) -> Iterator[int]:
    """Index of each line of `joined` (lines joined by '\\n') that starts with `mark` less its
    leading '\\n', in order."""
    if joined.startswith(mark[1:]):
        yield 0
    line, offset = 0, 0
    at = joined.find(mark)
    while at >= 0:
        line += joined.count("\n", offset, at + 1)
        offset = at + 1
        yield line
        at = joined.find(mark, offset)


class _Splitter:
    """The open block, fed batch after batch. A batch is cut at its headers' lines, found by
    searching the joined batch for a line start with the headers' common prefix (`header_starts`
    given, no byte-order mark in it); slices of it extend the blocks. Otherwise its lines are read
    one by one."""

    def __init__(self, is_header: Callable[[str], bool], header_starts: tuple[str, ...]) -> None:
        self.is_header = is_header
        self.header_starts = header_starts
        self.first = {"\ufeff", *(h[:1] for h in header_starts)}
        common = os.path.commonprefix(list(header_starts)) if header_starts else ""  # noqa: RUF071 - a string prefix
        self.mark = "\n" + common if common else None
        """What precedes every header but the batch's first line: found by `str.find` (a C search,
        cheaper than a regex trying each position)."""
        self.block: Block | None = None
        self.kept: list[str] = []
        """`block.lines`, held apart for the per-line loop."""

    def feed(self, start: int, texts: list[str]) -> Iterator[Block]:
        """The blocks this batch completes (the last one stays open)."""
        mark = self.mark
        joined = "\n".join(texts) if mark is not None and len(texts) > 1 else ""
        if mark is None or not joined or "\ufeff" in joined:
            yield from self._lines(start, texts)
            return
        done = 0  # lines of the batch placed in a block
        for line in _marked_lines(joined, mark):
            text = texts[line]
            if not text.startswith(self.header_starts) or not self.is_header(text):
                continue
            self._extend(start, texts, done, line)
            if self.block is not None:
                yield self.block
            self.kept = [text]
            self.block = Block(start + line, self.kept, True)
            done = line + 1
        self._extend(start, texts, done, len(texts))

    def _extend(self, start: int, texts: list[str], a: int, b: int) -> None:
        """Lines a..b-1 of the batch, none a header, go to the open block (blank lines before any
        block are skipped; a non-blank one there starts a junk block)."""
        if self.block is None:
            while a < b and not texts[a].strip():
                a += 1
            if a >= b:
                return
            self.kept = []
            self.block = Block(start + a, self.kept, False)
        room = MAX_BLOCK_LINES - len(self.kept)
        if b - a > room:
            self.kept.extend(map(str.rstrip, texts[a : a + max(room, 0)]))
            self.block.overflow = True
        else:
            self.kept.extend(map(str.rstrip, texts[a:b]))

    def _lines(self, start: int, texts: list[str]) -> Iterator[Block]:
        first, header_starts, is_header = self.first, self.header_starts, self.is_header
        for number, text in enumerate(texts, start):
            if not header_starts or text[:1] in first:
                if text.startswith("\ufeff"):
                    text = text[1:]  # files concatenated with their byte-order marks
                if (not header_starts or text.startswith(header_starts)) and is_header(text):
                    if self.block is not None:
                        yield self.block
                    self.kept = [text]
                    self.block = Block(number, self.kept, True)
                    continue
            self._extend(number, [text], 0, 1)
