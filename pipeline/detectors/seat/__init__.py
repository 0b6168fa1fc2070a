"""Seat-activity integrity detectors (house rules sections 5, 7, 8), built by one factory."""

from __future__ import annotations

from pipeline.detector import Detector
from pipeline.detectors.seat.bumhunting import BumhuntingDetector
from pipeline.detectors.seat.hit_and_run import HitAndRunDetector
from pipeline.detectors.seat.sit_out import CollusiveSitOutDetector, PayoutContext
from pipeline.rules import RulesConfig


def build_seat_detectors(*, rules: RulesConfig) -> list[Detector]:
    """Every seat detector with fresh state, configured from the house rules."""
    return [
        HitAndRunDetector(rules=rules),
        CollusiveSitOutDetector(),
        BumhuntingDetector(),
    ]


__all__ = [
    "BumhuntingDetector",
    "CollusiveSitOutDetector",
    "HitAndRunDetector",
    "PayoutContext",
    "build_seat_detectors",
]
