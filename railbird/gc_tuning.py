"""The cyclic garbage collector of a long-running Railbird process (`railbird consume`, `railbird api`).

Two costs, two measures:
- CPU: with Python's default thresholds (700 allocations) the collector ran ~1,300 times over
  20,000 chat messages and took a third of the consumer's CPU (in-process profile with the test
  detectors; 1.1 s of 3.2 s), almost all of it re-scanning long-lived objects (models, lexicons,
  detector state). Frozen at start and with `GC_THRESHOLDS`: 68 collections, 0.12 s, 2.0 s in all.
- Pauses: a full (generation 2) collection still scans every object that became long-lived since
  the start: in the end-to-end bench at 1,000 msg/s the consumer paused up to 250-330 ms and the
  API ~100 ms (wall time, 2 cores shared), which is most of an enforcement's 250 ms budget. So
  after each full collection its survivors are frozen too: the next one scans only what became
  long-lived since. Every `FULL_EVERY`-th full collection runs unfrozen, so reference cycles
  among old objects that died meanwhile are still reclaimed, late rather than never.

Nothing in Railbird relies on prompt collection of reference cycles (refcounting frees the rest).
"""

from __future__ import annotations

import gc
from typing import Any

GC_THRESHOLDS = (10_000, 20, 20)
"""Collections of generation 0 after this many net allocations (Python's 700 is tuned for small
scripts); generations 1 and 2 after 20 of the younger one."""

FULL_EVERY = 16
"""One full collection in this many scans everything (the others only what is new since the last)."""


class _FreezeAfterFull:
    """A `gc.callbacks` hook: freeze the survivors of each full collection, except every
    `FULL_EVERY`-th, after which everything is unfrozen so the next one is complete."""

    def __init__(self) -> None:
        self.full = 0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info.get("generation") != 2:
            return
        self.full += 1
        if self.full % FULL_EVERY == 0:
            gc.unfreeze()
        else:
            gc.freeze()


_HOOK = _FreezeAfterFull()


def tune_gc() -> None:
    """Collect, freeze what exists now (models, lexicons, the app), raise the thresholds and
    freeze after each full collection from now on. Call it once the process has built its
    long-lived objects; calling it again (a consumer rebuilding its lanes for a new policy)
    unfreezes first, so the old lanes' cycles are collected rather than kept forever."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    if _HOOK not in gc.callbacks:
        gc.callbacks.append(_HOOK)
