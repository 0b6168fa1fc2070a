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
    # Chat, hand-in-play, SnapCam and nickname policy (sections 1-4). The rules name the sanctions
    # (restriction, temporary/permanent ban, comms suspension, SnapCam revocation) but no numbers:
    # these are the operator's, and every one of them is a field so a preset can change it.
    chat_offence_window: timedelta = timedelta(days=30)
    """Offences older than this no longer count towards escalation."""
    chat_restriction_hours: int = 24
    """Proposed restriction for a first offence that is not muted automatically."""
    chat_ban_ladder: tuple[tuple[int, int | None], ...] = ((3, 24), (5, 168), (8, None))
    """(offence episodes within the window, chat ban hours; None = permanent ban). An episode is a run
    of offences each within two minutes of the previous (a rant counts once)."""
    hand_in_play_suspension_hours: tuple[int | None, ...] = (24, 168, None)
    """Suspension of chat, emoji and SnapCam for the 1st, 2nd, 3rd-and-later hand-in-play finding."""
    flood_max_messages: int = 6
    flood_window: timedelta = timedelta(seconds=10)
    snapcam_report_window: timedelta = timedelta(hours=24)
    snapcam_min_priority: float = 0.5
    false_report_alpha: float = 0.01
    false_report_restriction_hours: int = 168
    """Proposed restriction of the reporting feature for accounts found filing coordinated reports."""
    # Audit sampling of unflagged chat (pipeline/detectors/chat/audit_sample.py): the operator's,
    # set in the admin policy, not the house rules'; off in every preset.
    chat_audit_rate: float = 0.0
    """Share of unflagged chat lines sent for an analyst's verdict, uniformly."""
    chat_audit_near_rate: float = 0.0
    """Share of the unflagged lines scoring at least `chat_audit_near_score` sent for a verdict."""
    chat_audit_near_score: float = 0.25


RULES_PRESETS: dict[str, RulesConfig] = {
    "id-vi-2022-09-28": RulesConfig(),
    "uk-2022-09-28": RulesConfig(
        version="uk-2022-09-28", exempt_formats=frozenset({"rush_and_cash", "vip"})
    ),
}
"""Every rules version the operator can select by name."""
