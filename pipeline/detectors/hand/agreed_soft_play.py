"""Soft play under a stated agreement: the bounty detector's chat evidence plus heads-up pots in which
the pair never bet into each other, reported as a `soft_play` case with the messages and hands."""

from __future__ import annotations

from datetime import datetime

from pipeline.categories import rule_of
from pipeline.contracts import ChatMessage, HandRecord
from pipeline.findings import Finding, Span, stable_id
from pipeline.hands.features import HandFeatures

SCORE = 0.9
"""Explicit talk followed by the behaviour it describes: a case for review, below a fused bounty case."""


def soft_pairs(features: HandFeatures) -> list[tuple[int, int]]:
    """Seat pairs (lower first) that met heads-up after the flop in this hand and where neither bet."""
    out = []
    for (hero, villain), obs in features.pairs.items():
        if hero > villain:
            continue
        back = features.pairs.get((villain, hero))
        chances = obs.bet_chances + (back.bet_chances if back else 0)
        if chances >= 2 and obs.bets == 0 and (back is None or back.bets == 0):
            out.append((hero, villain))
    return out


def agreed_soft_play_finding(
    tournament: str, pair: tuple[str, str], messages: list[tuple[ChatMessage, tuple[int, int] | None]],
    hands: list[HandRecord], ts: datetime, *, detector: str,
) -> Finding:
    """The finding: both players, the agreement lines and the checked-down hands as evidence."""
    times = [*(m.ts for m, _ in messages), *(h.ts for h in hands), ts]
    first_span = next(((m, s) for m, s in messages if s), None)
    return Finding(
        finding_id=stable_id("fnd", detector, tournament, "soft_play", *pair),
        detector=detector,
        rule=rule_of("soft_play"),
        family="hand",
        category="soft_play",
        score=SCORE,
        players=pair,
        ts=ts,
        window_start=min(times),
        window_end=max(times),
        tournament_id=tournament,
        summary=f"{pair[0]} and {pair[1]} agreed in chat not to play against each other and then "
        f"checked down {len(hands)} heads-up pot(s) together",
        source_event_ids=tuple(dict.fromkeys([*(m.event_id for m, _ in messages), *(h.event_id for h in hands)])),
        spans=(Span(start=first_span[1][0], end=first_span[1][1], label="collusion_talk"),) if first_span and first_span[1] else (),
        evidence={
            "messages": [{"event_id": m.event_id, "ts": m.ts.isoformat(), "player_id": m.player_id,
                          "channel": m.channel, "text": m.text} for m, _ in messages[:10]],
            "hands": [h.model_dump(mode="json") for h in hands],
            "hand_ids": [h.hand_id for h in hands],
            "statistic": {"name": "checked_down_heads_up_pots_after_agreement", "value": len(hands),
                          "level": "fused", "messages": len(messages)},
        },
    )
