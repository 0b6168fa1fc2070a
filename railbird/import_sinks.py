"""Where `railbird import` writes what it imported: `--to replay` (default) or `--to phh`.

`ReplayLines` writes the topic-tagged JSON lines `railbird replay` reads (seat events and chat lines
before the hand they belong to). `PhhSections` writes each hand as one table of a `.phhs` document
(`pipeline/hands/phh_out.py`), which the PHH importer reads back to the same `hand.records`; PHH
holds hands only, so chat lines and seat events are not written (the summary says so).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Protocol, TextIO

from pipeline.contracts import CHAT, HAND, SEAT
from pipeline.hands.importing import Imported
from pipeline.hands.phh_out import to_phhs_section

_HAND_PREFIX = f'{{"topic":"{HAND}","value":'
_CHAT_PREFIX = f'{{"topic":"{CHAT}","value":'
_SEAT_PREFIX = f'{{"topic":"{SEAT}","value":'


class Sink(Protocol):
    """One output format of the import."""

    name: str
    side_topics: bool
    """Whether chat lines and seat events are written (so counted as carried)."""

    def seats(self, values: tuple[str, ...]) -> None: ...

    def hand(self, imported: Imported) -> None: ...


class ReplayLines:
    """`{"topic": ..., "value": {...}}` lines, the values as the contract validated them."""

    name = "replay"
    side_topics = True

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def seats(self, values: tuple[str, ...]) -> None:
        for value in values:
            self._out.write(f"{_SEAT_PREFIX}{value}}}\n")

    def hand(self, imported: Imported) -> None:
        for chat in imported.chats:
            self._out.write(f"{_CHAT_PREFIX}{chat}}}\n")
        self._out.write(f"{_HAND_PREFIX}{imported.hand_json}}}\n")


class PhhSections:
    """A `.phhs` document: `[1]`, `[2]`, ... one hand each, numbered over the whole run."""

    name = "phh"
    side_topics = False

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._written = 0

    def seats(self, values: tuple[str, ...]) -> None:
        del values  # PHH has no place for seat events

    def hand(self, imported: Imported) -> None:
        self._written += 1
        self._out.write(to_phhs_section(self._written, json.loads(imported.hand_json)))


SINKS: dict[str, Callable[[TextIO], Sink]] = {"replay": ReplayLines, "phh": PhhSections}
"""`--to` choices."""
