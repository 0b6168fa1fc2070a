"""The bumhunting detector's per-player tallies and the finding built from them."""

from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from pipeline.categories import rule_of
from pipeline.contracts import SeatActivity
from pipeline.detectors.seat.bumhunting_stats import BumhuntConfig
from pipeline.detectors.seat.common import iso, timeline_entry, utc
from pipeline.detectors.seat.skill import SkillTable
from pipeline.findings import Finding, stable_id

CATEGORY = "bumhunting"


@dataclass(slots=True)
class Behaviour:
    """One player's avoidance tallies (stage 2 of the detector, keyed by player)."""

    exp_strong: int = 0
    flights_strong: int = 0
    exp_other: int = 0
    flights_other: int = 0
    joins: int = 0
    join_skill: float = 0.0
    joins_with_strong: int = 0
    stints: int = 0
    zero_hand_stints: int = 0
    seated_s: float = 0.0
    sat_out_s: float = 0.0
    hu_strong: int = 0
    hu_strong_left: int = 0
    looks_strong: int = 0
    unplayed_strong: int = 0
    looks_other: int = 0
    unplayed_other: int = 0
    victims: Counter[str] = field(default_factory=Counter)
    sessions: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=20))
    last_seen: float = 0.0
    flagged: bool = False


def build_finding(
    name: str,
    cfg: BumhuntConfig,
    skills: SkillTable,
    ev: SeatActivity,
    b: Behaviour,
    tests: dict[str, dict[str, Any]],
) -> Finding:
    """The bumhunting finding for a player whose strongest test passed: statistic, victims,
    sessions, timeline, behaviour and skill profiles."""
    pid = ev.player_id
    main = min(tests.values(), key=lambda t: float(t["p_adjusted"]))
    best = float(main["p_adjusted"])
    # Weak players met again and again; a hunter flagged early has met few twice, so then everyone
    # weak they sat down with is listed (each may ask for a nickname reset).
    victims = [v for v, c in b.victims.most_common(10) if c >= cfg.victim_min]
    victims = victims or [v for v, _ in b.victims.most_common(10)]
    sessions = list(b.sessions)
    start = min(s["join"] for s in sessions)
    fid = stable_id("fnd", name, pid, ev.event_id)
    statistic = {
        **main,
        **{k: (v if v.get("name") else None) for k, v in tests.items()},
    }
    return Finding(
        finding_id=fid,
        detector=name,
        rule=rule_of(CATEGORY),
        family="seat",
        category=CATEGORY,
        score=round(min(1.0, 0.6 + 0.4 * min(1.0, -math.log10(max(best, 1e-300)) / 10)), 4),
        players=(pid,),
        ts=ev.ts,
        window_start=utc(start),
        window_end=ev.ts,
        summary=(
            f"{pid} left within {cfg.flight_window:.0f}s after {b.flights_strong}/{b.exp_strong} strong "
            f"arrivals (vs {b.flights_other}/{b.exp_other} others), left unplayed {b.unplayed_strong}/"
            f"{b.looks_strong} tables with a strong player seated (vs {b.unplayed_other}/{b.looks_other}); "
            f"{len(victims)} repeated weak opponents"
        ),
        source_event_ids=(ev.event_id,),
        evidence={
            "statistic": statistic,
            "victims": victims,
            "timeline": [
                timeline_entry(
                    player_id=pid,
                    table_id=s["table_id"],
                    tournament_id=None,
                    start=s["join"],
                    end=s["leave"],
                    state="seated",
                )
                for s in sessions
            ],
            "sessions": [{**s, "join": iso(s["join"]), "leave": iso(s["leave"])} for s in sessions],
            "behaviour": {
                "stints": b.stints,
                "joins_without_play": b.zero_hand_stints,
                "joins_with_strong_seated": b.looks_strong,
                "left_unplayed_with_strong_seated": b.unplayed_strong,
                "joins_without_strong": b.looks_other,
                "left_unplayed_without_strong": b.unplayed_other,
                "sat_out_share": round(b.sat_out_s / b.seated_s, 4) if b.seated_s else 0.0,
                "heads_up_vs_strong": b.hu_strong,
                "heads_up_vs_strong_left": b.hu_strong_left,
            },
            "skill": {p: skills.profile(p) for p in [pid, *victims]},
        },
    )
