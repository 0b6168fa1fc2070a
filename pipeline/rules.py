"""House-rule parameters (`../shared/house-rules.md`) as one frozen, versioned configuration.

Where language versions of the rules differ, each version is a named preset; the operator picks one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

LADDER_MINUTES: tuple[int, ...] = (0, 5, 15, 30, 60)
"""Table-leaving ladder: block after the 1st, 2nd, 3rd, 4th, 5th-and-later refusal."""


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """Numbers from the house rules; defaults are the Indonesian/Vietnamese version of 2022-09-28."""

    version: str = "id-vi-2022-09-28"
    min_hands_per_stint: int = 10
    refusal_window: timedelta = timedelta(hours=12)
    ladder_minutes: tuple[int, ...] = LADDER_MINUTES
    exempt_formats: frozenset[str] = field(
        default_factory=lambda: frozenset({"rush_and_cash", "all_in_or_fold"})
    )
    auto_mute_minutes: int = 15
    auto_mute_min_score: float = 0.97


RULES_PRESETS: dict[str, RulesConfig] = {
    "id-vi-2022-09-28": RulesConfig(),
    "uk-2022-09-28": RulesConfig(
        version="uk-2022-09-28", exempt_formats=frozenset({"rush_and_cash", "vip"})
    ),
}
"""Every rules version the operator can select by name."""
