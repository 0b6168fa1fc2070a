"""Progress of a long import on stderr: a redrawn bar on a terminal, a plain periodic line otherwise.

Written for `railbird import` (hands/s, files done, bytes read) but knows nothing about hands. It never
writes to stdout, and the bar is only drawn when nothing else writes to the same terminal: when the
JSON lines go to a terminal stdout too, a carriage-return bar would be overwritten mid-line by them,
so whole lines are written instead. Rendering is rate-limited (`due()` is one clock read), so the
caller may ask on every hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TextIO

Mode = Literal["bar", "lines", "off"]
MODES = ("auto", "bar", "lines", "off")
"""`--progress` choices; auto = bar on a terminal stderr, lines when stderr is a file or pipe."""
BAR_EVERY_S = 0.2
LINES_EVERY_S = 10.0
"""A log file gets one line per ten seconds: enough to see a job is alive, not enough to drown it."""
BAR_WIDTH = 24


def choose_mode(wanted: str, stderr: TextIO, stdout: TextIO, writes_stdout: bool) -> Mode:
    """The mode `--progress WANTED` means for these streams."""
    if wanted in ("bar", "lines", "off"):
        return wanted  # type: ignore[return-value]
    if wanted != "auto":
        raise ValueError(f"progress mode {wanted!r} is not one of {MODES}")
    if not _isatty(stderr):
        return "lines"
    if writes_stdout and _isatty(stdout):
        return "lines"  # the JSON lines share the terminal: a redrawn bar would garble them
    return "bar"


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or fake stream is no terminal
        return False


@dataclass(slots=True)
class _Totals:
    files: int
    bytes: int


class Progress:
    """Counts of the run so far, rendered to `stream` every `every` seconds (never more often)."""

    def __init__(
        self,
        stream: TextIO,
        mode: Mode,
        *,
        files: int,
        total_bytes: int,
        every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._mode = mode
        self._total = _Totals(files, total_bytes)
        self._every = every if every is not None else (BAR_EVERY_S if mode == "bar" else LINES_EVERY_S)
        self._clock = clock
        self._started = clock()
        self._next = self._started + self._every
        self._files_done = 0
        self._bytes_done = 0
        """Bytes of the files already finished; the current file's position is added on show."""
        self._drawn = False

    def due(self) -> bool:
        """True when it is time to show the counts again (cheap: one clock read)."""
        return self._mode != "off" and self._clock() >= self._next

    def show(self, hands: int, file_bytes: int) -> None:
        """Render the counts now: `hands` so far in the run, `file_bytes` read of the current file."""
        if self._mode == "off":
            return
        now = self._clock()
        self._next = now + self._every
        text = self._text(hands, self._bytes_done + file_bytes, now)
        if self._mode == "bar":
            self._stream.write(f"\r{text}\x1b[K")
            self._drawn = True
        else:
            self._stream.write(f"railbird import: {text}\n")
        self._stream.flush()

    def file_done(self, size: int) -> None:
        """One more file finished (`size`: its bytes)."""
        self._files_done += 1
        self._bytes_done += size

    def close(self) -> None:
        """Clear the bar so what follows on stderr starts on a clean line."""
        if self._drawn:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._drawn = False

    def _text(self, hands: int, done_bytes: int, now: float) -> str:
        elapsed = max(now - self._started, 1e-9)
        rate = hands / elapsed
        share = done_bytes / self._total.bytes if self._total.bytes else 0.0
        counts = (f"{self._files_done}/{self._total.files} files, {_size(done_bytes)}/{_size(self._total.bytes)},"
                  f" {hands:,} hands, {rate:,.0f} hands/s, {elapsed:,.0f} s")
        if self._mode != "bar":
            return f"{share:.0%} {counts}"
        filled = min(BAR_WIDTH, int(share * BAR_WIDTH))
        return f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {share:4.0%} {counts}"


def _size(count: int) -> str:
    if count < 1 << 20:
        return f"{count / 1024:.1f} KiB"
    return f"{count / (1 << 20):.1f} MiB"
