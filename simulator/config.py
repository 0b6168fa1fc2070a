"""Room configuration and the persona table with the rates the simulation draws from."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from simulator.decisions import Style

Profile = Literal["normal", "demo"]


@dataclass(frozen=True, slots=True)
class Persona:
    """How one kind of player behaves; intervals are means of exponential waits, in seconds."""

    style: Style
    stint_hands: float
    """Mean hands played per cash-table stint (geometric)."""
    early_leave: float
    """Chance an ordinary stint ends before the 10th hand anyway (a call, dinner, a bad beat)."""
    chat_interval_s: float
    sit_out_interval_s: float
    sit_out_s: tuple[float, float]
    disconnect_interval_s: float
    max_tables: int


REC = Style(vpip=0.42, pfr=0.10, aggression=0.30, fold_to_bet=0.35, shove=0.35)
REG = Style(vpip=0.24, pfr=0.19, aggression=0.55, fold_to_bet=0.60, shove=0.20)

# Honest rates (stated in docs/simulator.md): a cash player sits out about once per 40-90 minutes
# of seat time for 1-5 minutes and drops connection about once per 3-5 hours; 5-8 % of ordinary
# stints end before the 10th hand.
PERSONAS: dict[str, Persona] = {
    "recreational": Persona(REC, 45, 0.08, 240, 2400, (60, 300), 3 * 3600, 2),
    "regular": Persona(REG, 140, 0.05, 900, 5400, (30, 180), 5 * 3600, 4),
    "bumhunter": Persona(REG, 120, 0.0, 1200, 5400, (30, 120), 5 * 3600, 3),
    "hit_and_runner": Persona(REG, 5, 1.0, 1500, 5400, (30, 120), 5 * 3600, 2),
    "colluder": Persona(REG, 90, 0.03, 900, 7200, (30, 120), 5 * 3600, 2),
    "chat_abuser": Persona(REC, 50, 0.05, 300, 2400, (60, 240), 3 * 3600, 2),
    "spammer": Persona(REC, 30, 0.05, 600, 2400, (60, 240), 3 * 3600, 1),
    "snapcam_harasser": Persona(REC, 60, 0.05, 600, 2400, (60, 240), 3 * 3600, 1),
    "false_reporter": Persona(REC, 45, 0.05, 900, 2400, (60, 240), 3 * 3600, 1),
}
HONEST_PERSONAS = frozenset({"recreational", "regular"})

CASH_LEVELS: tuple[tuple[str, int, int], ...] = (
    ("nl10", 5, 10), ("nl25", 10, 25), ("nl50", 25, 50), ("nl100", 50, 100), ("nl200", 100, 200),
)
"""(blind level id, small blind, big blind) in cents."""

TableFormat = Literal["regular", "rush_and_cash", "all_in_or_fold", "vip"]
HAND_SECONDS: dict[str, tuple[float, float]] = {
    "regular": (35, 80), "vip": (40, 90), "rush_and_cash": (12, 30), "all_in_or_fold": (6, 12),
}
"""Range of one hand's duration by format; Rush & Cash and All-In or Fold are much faster."""


@dataclass(frozen=True, slots=True)
class Rates:
    """How often planted offences happen; the demo profile plants early and often."""

    plant_interval_s: float = 1200.0
    first_plant_s: tuple[float, float] = (60.0, 900.0)
    bounty_start_s: float = 60.0
    turbo_start_s: float = 420.0
    tournament_level_s: float = 180.0
    sit_out_plot_s: tuple[float, float] = (240.0, 480.0)
    report_interval_s: float = 1500.0
    spam_interval_s: float = 300.0


DEMO_RATES = Rates(
    plant_interval_s=30.0, first_plant_s=(3.0, 30.0), bounty_start_s=2.0, turbo_start_s=30.0,
    tournament_level_s=90.0, sit_out_plot_s=(20.0, 60.0), report_interval_s=120.0, spam_interval_s=45.0,
)


@dataclass(frozen=True, slots=True)
class RoomConfig:
    """One simulated room: size, length in room time, seed, and what to emit."""

    seed: int = 1
    players: int = 300
    minutes: float = 60.0
    profile: Profile = "normal"
    start: datetime = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
    hands: bool = True
    """False plays quick outcomes without cards and emits no hand records (the bench's fast path)."""
    rates: Rates = field(default_factory=Rates)
    bounty_every_minutes: float | None = None
    """If set, a new bounty tournament starts every this many minutes of room time (the first at
    the usual start) and the bounty-agreement pair registers in each one, as real colluders play a
    scheduled series; None keeps the single bounty tournament (and every default figure)."""
    bounty_check_down: bool = False
    """True: the bounty pair calls the target's all-in and checks it down between them (what the
    hand detectors score from play alone); False keeps the default "raise to isolate" hunt."""
    bounty_sit_and_go: bool = False
    """True: the recurring bounty tournaments (`bounty_every_minutes`) are single-table 9-seat
    knockout sit & gos, so the pair that registers together sits together (in a multi-table
    tournament the seat draw and table balancing decide that); False keeps them 45-player MTTs."""
    plo_share: float = 0.0
    """Share of the cash tables (All-In or Fold excepted: it has no pot limit) that deal pot-limit
    Omaha instead of no-limit hold'em, spread evenly over the table plan; the chip-dumping pair's
    heads-up table counts as the last one. 0 keeps every default figure; 1 makes a PLO room."""
    agreement_chat: bool = True
    """False plants bounty agreements with no agreement talk at all (the pair's deal was made off
    the platform): no private messages, no collusion_talk row, truth `detail["chat"] = False`."""

    @staticmethod
    def for_profile(profile: Profile, **kwargs: object) -> RoomConfig:
        """A config with the profile's rates (demo = offences early and often)."""
        rates = DEMO_RATES if profile == "demo" else Rates()
        return RoomConfig(profile=profile, rates=rates, **kwargs)  # type: ignore[arg-type]
