"""How much history each lane replays on a rebuild: the windows of the detectors it keeps state for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from consumers.runtime import lane_lookback
from consumers.topics import rekey_topic
from pipeline.contracts import CHAT, HAND, SNAPCAM, Event
from pipeline.detector import Detector
from pipeline.detectors.chat.reporting import CoordinatedReportingDetector
from pipeline.detectors.chat.snapcam import SnapCamTriageDetector
from pipeline.findings import Finding

DEFAULT_S = 13 * 3600.0
DAY = 86_400.0


@dataclass
class Windowed:
    """A stateful detector double with a declared window."""

    name: str
    topics: frozenset[str]
    window: timedelta

    @property
    def state_window(self) -> timedelta:
        return self.window

    def key(self, event: Event) -> str:
        return "state key"

    def process(self, event: Event) -> Sequence[Finding]:
        return ()


def detectors() -> dict[str, Detector]:
    return {
        "chat.ledger": Windowed("chat.ledger", frozenset({CHAT}), timedelta(hours=2)),
        "hand.pairs": Windowed("hand.pairs", frozenset({HAND}), timedelta(days=30)),
        "snapcam.triage": SnapCamTriageDetector(),
        "snapcam.coordinated_reports": CoordinatedReportingDetector(),
    }


def test_each_input_lane_replays_only_its_own_local_windows() -> None:
    dets = detectors()
    assert lane_lookback(CHAT, dets, prefix="rb", default_s=DEFAULT_S) == DEFAULT_S, (
        "neither SnapCam's 7 days nor the hand pairs' 30 make chat's input lane replay more"
    )
    # Both SnapCam detectors read only SnapCam, so either may keep local state there (whether it
    # does is decided per record, by its key): the longer window, coordinated reporting's 7 days.
    assert lane_lookback(SNAPCAM, dets, prefix="rb", default_s=DEFAULT_S) == 7 * DAY * 1.1
    assert lane_lookback(HAND, dets, prefix="rb", default_s=DEFAULT_S) == DEFAULT_S, "hands keep no local state"


def test_the_shared_rekey_lane_replays_the_longest_window_of_all() -> None:
    assert lane_lookback(rekey_topic(CHAT, "rb"), detectors(), prefix="rb", default_s=DEFAULT_S) == 30 * DAY * 1.1


def test_snapcam_detectors_declare_their_windows() -> None:
    assert SnapCamTriageDetector().state_window == timedelta(hours=24)
    assert CoordinatedReportingDetector().state_window == timedelta(days=7)
