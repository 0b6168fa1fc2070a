"""`railbird.gc_tuning`: survivors of generation-1 and full collections are frozen; after every
FULL_EVERY-th full collection everything is unfrozen so the next one is complete."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from railbird import gc_tuning


@pytest.fixture
def restore_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    while gc_tuning._HOOK in gc.callbacks:
        gc.callbacks.remove(gc_tuning._HOOK)
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_tune_gc_freezes_what_exists_sets_thresholds_and_installs_the_hook_once(restore_gc: None) -> None:
    gc_tuning.tune_gc()
    gc_tuning.tune_gc()  # a consumer rebuilding its lanes calls it again
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == gc_tuning.GC_THRESHOLDS
    assert gc.callbacks.count(gc_tuning._HOOK) == 1


def test_generation_one_survivors_are_frozen_young_ones_are_not(restore_gc: None) -> None:
    gc_tuning.tune_gc()
    young = [[i] for i in range(1000)]
    frozen = gc.get_freeze_count()
    gc.collect(0)  # a young collection: nothing frozen by the hook
    assert gc.get_freeze_count() == frozen
    gc.collect(1)  # its survivors, `young` among them, are never scanned again
    assert gc.get_freeze_count() >= frozen + len(young)


def test_full_collections_freeze_their_survivors_and_every_nth_leaves_all_unfrozen(restore_gc: None) -> None:
    gc_tuning.tune_gc()
    hook = gc_tuning._HOOK
    hook.full = 0
    kept = [[i] for i in range(1000)]  # long-lived objects created after the start
    frozen_before = gc.get_freeze_count()
    gc.collect()  # a full one: its survivors, `kept` among them, are frozen
    assert hook.full == 1
    assert gc.get_freeze_count() >= frozen_before + len(kept)
    for _ in range(gc_tuning.FULL_EVERY - 1):
        gc.collect()
    assert hook.full == gc_tuning.FULL_EVERY
    assert gc.get_freeze_count() == 0, "after the Nth full collection everything is unfrozen"
    gc.collect(1)  # until the next full one, generation-1 collections do not freeze again
    assert gc.get_freeze_count() == 0
    gc.collect()  # ... so this one scanned everything, and freezes again
    assert gc.get_freeze_count() >= len(kept)
