"""The cyclic garbage collector of a long-running Railbird process (`railbird consume`, `railbird api`).

Two costs, two measures:
- CPU: with Python's default thresholds (700 allocations) the collector ran ~1,300 times over
  20,000 chat messages and took a third of the consumer's CPU (in-process profile with the test
  detectors; 1.1 s of 3.2 s), almost all of it re-scanning long-lived objects (models, lexicons,
  detector state). Frozen at start and with `GC_THRESHOLDS`: 68 collections, 0.12 s, 2.0 s in all.
- Pauses: a collection of generation 1 or 2 scans every object that survived into it. Detector
  state is long-lived (chat windows hold each message for minutes to hours), so most of what
  survives a young collection stays. Measured in the end-to-end bench at 1,000 msg/s (a
  `gc.callbacks` probe): with generation 1 collected after 20 young collections, each held ~126,000
  objects (26,000 chat messages with their sets and tuples) and paused the consumer 100-230 ms once
  a minute; full collections paused it 250-330 ms before their survivors were frozen. So:
  generation 1 is collected after every `GC_THRESHOLDS[1]` young collections (<= ~20,000 objects,
  ~10-25 ms), and the survivors of every generation-1 and full collection are frozen, so no
  collection scans them again. After every `FULL_EVERY`-th full collection everything is
  unfrozen, so the next full one scans it all and reference cycles among old objects that died
  meanwhile are still reclaimed, late rather than never. That one is a long pause (it scans all
  detector state): about once every half hour per process at 500 chat messages/s, instead of a
  100-230 ms pause every minute.

Nothing in Railbird relies on prompt collection of reference cycles (refcounting frees the rest).
"""

from __future__ import annotations

import gc
from typing import Any

GC_THRESHOLDS = (10_000, 2, 20)
"""Collections of generation 0 after this many net allocations (Python's 700 is tuned for small
scripts); generation 1 after 2 of those (so it holds at most two young collections' survivors);
generation 2 after 20 of generation 1 (cheap while frozen: it holds nothing)."""

FULL_EVERY = 16
"""One full collection in this many scans everything (the others only what is new since the last)."""


class _Freezer:
    """A `gc.callbacks` hook: freeze the survivors of each generation-1 and full collection; after
    every `FULL_EVERY`-th full collection unfreeze everything and stop freezing until the next full
    one, which then scans (and reclaims) all of it."""

    def __init__(self) -> None:
        self.full = 0
        self.unfrozen = False
        """True between the unfreezing and the complete collection it is for."""

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop":
            return
        generation = info.get("generation")
        if generation == 1 and not self.unfrozen:
            gc.freeze()
        elif generation == 2:
            self.full += 1
            self.unfrozen = self.full % FULL_EVERY == 0
            if self.unfrozen:
                gc.unfreeze()
            else:
                gc.freeze()


_HOOK = _Freezer()


def tune_gc() -> None:
    """Collect, freeze what exists now (models, lexicons, the app), set the thresholds and
    freeze the survivors of older-generation collections from now on. Call it once the process has built its
    long-lived objects; calling it again (a consumer rebuilding its lanes for a new policy)
    unfreezes first, so the old lanes' cycles are collected rather than kept forever."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _HOOK.unfrozen = False
    gc.set_threshold(*GC_THRESHOLDS)
    if _HOOK not in gc.callbacks:
        gc.callbacks.append(_HOOK)
