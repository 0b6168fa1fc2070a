"""Reading hand-history files: any encoding with or without a byte-order mark, numbered lines in
bounded memory, and the split into hand blocks (concatenated files, junk between hands).

A file is read line by line (never whole), a line is capped at `MAX_LINE_BYTES`, and a hand block at
`MAX_BLOCK_LINES`, so a 100 MB file or one without newlines costs a few kilobytes at a time.
"""

from __future__ import annotations

import codecs
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


def numbered_lines(stream: BinaryIO) -> Iterator[tuple[int, str]]:
    """(1-based line number, text without line end) for every line of a binary stream."""
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
            for text in complete:
                number += 1
                yield number, text.rstrip("\r")[:MAX_LINE_BYTES]
            if not chunk:
                break
            if len(buffer) > MAX_LINE_BYTES:
                buffer = buffer[:MAX_LINE_BYTES]
        if buffer:
            yield number + 1, buffer.rstrip("\r")
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
            texts = None
        if texts is None:
            for raw in data[:cut].split(b"\n"):
                number += 1
                yield number, _decode_line(raw[:MAX_LINE_BYTES].rstrip(b"\r"))
        elif texts and max(map(len, texts)) <= _SAFE_CHARS:
            # The common chunk: no line near the cap, so lines need only their '\r' stripped (when
            # the file has any) and a number, given by zip in C rather than one yield per line here.
            if data.find(b"\r", 0, cut) >= 0:
                texts = [text.rstrip("\r") for text in texts]
            yield from zip(range(number + 1, number + 1 + len(texts)), texts, strict=True)
            number += len(texts)
        else:
            for text in texts:
                number += 1
                if len(text) > _SAFE_CHARS:  # may be over the cap in bytes: cut exactly as bytes
                    yield number, _decode_line(text.encode("utf-8")[:MAX_LINE_BYTES].rstrip(b"\r"))
                else:
                    yield number, text.rstrip("\r")
        if not chunk:
            break
    if pending:
        yield number + 1, _decode_line(pending.rstrip(b"\r"))


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
    lines: Iterable[tuple[int, str]], is_header: Callable[[str], bool], header_starts: tuple[str, ...] = ()
) -> Iterator[Block]:
    """Hand blocks in file order; non-blank lines before the first header (a partial file) or
    between a hand and junk form blocks with `hand=False`, so nothing is skipped without a reason.
    `header_starts`: prefixes every header has (lines with another first character are not tested)."""
    first = _AnyChar() if not header_starts else {"\ufeff", *(h[:1] for h in header_starts)}
    block: Block | None = None
    kept: list[str] = []
    """`block.lines`, held in a local: this loop runs for every line of every file."""
    for number, text in lines:
        if text[:1] in first:
            if text.startswith("\ufeff"):
                text = text[1:]  # files concatenated with their byte-order marks
            if (not header_starts or text.startswith(header_starts)) and is_header(text):
                if block is not None:
                    yield block
                kept = [text]
                block = Block(number, kept, True)
                continue
        if block is None:
            if not text.strip():
                continue
            kept = []
            block = Block(number, kept, False)
        if len(kept) < MAX_BLOCK_LINES:
            kept.append(text.rstrip())
        else:
            block.overflow = True
    if block is not None:
        yield block


class _AnyChar:
    """Every first character may start a header (no `header_starts` given)."""

    def __contains__(self, item: object) -> bool:
        return True
