"""The optional detector hooks are declared Protocols (issue 21, 6): the shipped detectors that
have them are recognised, the ones without are not, and the runtime calls them through the type."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from consumers.processing import prefetch
from pipeline.contracts import CHAT, Event
from pipeline.detector import CountingDetector, FlushingDetector, PrefetchingDetector
from pipeline.detectors.chat.nickname import NicknameDetector
from pipeline.detectors.seat.hit_and_run import HitAndRunDetector
from pipeline.findings import Finding
from pipeline.rules import RULES_PRESETS
from pipeline.runner import Pipeline
from tests.consumers.detector_doubles import WordDetector


def test_shipped_detectors_are_recognised_by_their_hooks() -> None:
    seat = HitAndRunDetector()
    assert isinstance(seat, FlushingDetector) and isinstance(seat, CountingDetector)
    assert not isinstance(seat, PrefetchingDetector)
    assert isinstance(NicknameDetector(), PrefetchingDetector)
    word = WordDetector()
    assert not any(isinstance(word, p) for p in (FlushingDetector, CountingDetector, PrefetchingDetector))


@dataclass
class Hooked:
    """A detector with every optional hook, recording the calls."""

    name: str = "test.hooked"
    topics: frozenset[str] = frozenset({CHAT})
    anomalies: Counter[str] = field(default_factory=Counter)
    prefetched: list[int] = field(default_factory=list)
    flushed: int = 0

    def key(self, event: Event) -> str:
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        return ()

    def prefetch(self, events: Sequence[Event]) -> None:
        self.prefetched.append(len(events))

    def flush(self) -> Sequence[Finding]:
        self.flushed += 1
        return ()


def test_the_runtime_calls_the_hooks_a_detector_declares() -> None:
    hooked = Hooked()
    prefetch([hooked, WordDetector()], [object()] * 3)  # type: ignore[list-item]
    assert hooked.prefetched == [3]
    Pipeline({"test.hooked": hooked, "test.word": WordDetector()}, rules=next(iter(RULES_PRESETS.values()))).flush()
    assert hooked.flushed == 1
