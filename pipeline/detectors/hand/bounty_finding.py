"""What a bounty-agreement finding says: the agreement talk linked to a pair, the play statistic,
and the finding itself (hands, tournaments, messages, spans) for analysts.

Kept apart from `bounty_agreement` (the detector's state and decisions): these are pure functions
of what the detector hands them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from pipeline.categories import rule_of
from pipeline.contracts import ChatMessage
from pipeline.detectors.chat.agreement_reply import is_agreement_reply
from pipeline.detectors.hand.bounty_state import (
    NULL_MODEL,
    Clue,
    PairSpots,
    TournamentLog,
    TournamentState,
    message_evidence,
)
from pipeline.findings import Finding, Span, stable_id

WHAT = {
    "fused": "agreement talk and cooperative bounty play",
    "play": "cooperative play around all-in bounty targets",
    "chat": "agreement talk",
}
"""The summary's words per finding level."""


def addressee_and_target(text: str) -> tuple[str | None, str | None]:
    """(partner, target) nicknames of a line's @mentions: a leading @mention addresses the line to
    its partner ("@bob let's both go after @carol"), any other names the target ("target @carol").
    A line that starts by @naming its target ("@carol is the one") is read as addressed to her:
    the pair is then (speaker, carol) and the line still counts for the speaker."""
    names = [w.lstrip("@").rstrip(",.!?;:") for w in text.split() if w.startswith("@")]
    names = [n for n in names if n]
    if not names:
        return None, None
    if text.lstrip().startswith("@"):
        return names[0], (names[1] if len(names) > 1 else None)
    return None, names[0]


def answered_clue(state: TournamentState, msg: ChatMessage, *, window: timedelta) -> Clue | None:
    """The agreement talk `msg` answers ("ok, agreed" from another player within `window`, and
    from its addressee when it had one), now with the answering player as its party; the clue is
    replaced in the tournament's state so the pair is linked from then on. None otherwise."""
    if not is_agreement_reply(msg.text):
        return None
    for i in range(len(state.clues) - 1, -1, -1):
        clue = state.clues[i]
        asked = clue.message
        if asked.player_id == msg.player_id or not timedelta(0) <= msg.ts - asked.ts <= window:
            continue
        if clue.party is not None and clue.party != msg.player_id:
            continue
        if clue.partner_nick is not None and clue.partner_nick.casefold() != msg.nickname.casefold():
            continue
        answered = replace(clue, party=msg.player_id)
        state.clues[i] = answered
        return answered
    return None


def linked_clues(
    state: TournamentState, private: Mapping[str, list[Clue]], pair: tuple[str, str]
) -> list[Clue]:
    """Agreement talk that ties the pair together: either member's table talk naming a target who
    is not the partner, private talk between the two (tournament-stamped or not), or a line one of
    them addressed to the other by @mention or that the other answered with an agreement."""
    clues = [*state.clues, *private.get(pair[0], []), *private.get(pair[1], [])]
    out = []
    for c in clues:
        m = c.message
        talkers = {m.player_id, m.recipient_id, c.party} - {None}
        target = state.nicks.get(c.target_nick.casefold()) if c.target_nick else None
        partner = pair[1] if m.player_id == pair[0] else pair[0]
        if m.player_id not in pair or partner == target:
            continue
        if talkers >= set(pair) or (m.channel != "private" and target is not None):
            out.append(c)
    return list({c.message.event_id: c for c in out}.values())


def play_statistic(
    spots: PairSpots,
    play: tuple[int, int, float],
    *,
    p_check_down: float,
    bet_chances_and_bets: list[int],
    entries: tuple[int, int, float, float],
) -> dict[str, Any]:
    """The numbers behind a play-based level: this tournament's spots, all the pair's spots, the
    combined p, the check-down test and the all-in-call test (`EntryBook.p_value`)."""
    return {
        "value": spots.cooperative,
        "spots": spots.spots,
        "bounty_to_pair": spots.bounty,
        "all_spots": play[0],
        "all_cooperative": play[1],
        "p_value": play[2],
        "p_check_down": p_check_down,
        "bet_chances_and_bets": bet_chances_and_bets,
        "all_in_calls": {
            "decisions": entries[0],
            "called": entries[1],
            "expected": entries[2],
            "p_value": entries[3],
        },
        "null_model": NULL_MODEL,
    }


def bounty_finding(
    detector: str,
    tournament: str | None,
    players: tuple[str, ...],
    level: str,
    score: float,
    *,
    spots: PairSpots | None,
    clues: list[Clue],
    ts: datetime,
    statistic: dict[str, Any],
    logs: Sequence[TournamentLog] = (),
    id_extra: tuple[str, ...] = (),
) -> Finding:
    """One finding; its id is stable per (tournament, level, players[, target]) so a re-run or a
    replay writes the same case."""
    hands = spots.hands if spots else []
    times = [*(c.message.ts for c in clues), *(h.ts for h in hands), ts]
    times += [t for e in logs for t in (e.first_ts, e.last_ts) if t is not None]
    return Finding(
        finding_id=stable_id("fnd", detector, tournament or "-", level, *players, *id_extra),
        detector=detector,
        rule=rule_of("bounty_agreement"),
        family="hand",
        category="bounty_agreement",
        score=score,
        players=players,
        ts=ts,
        window_start=min(times),
        window_end=max(times),
        tournament_id=tournament,
        summary=f"possible bounty agreement between {' and '.join(players)}: {WHAT[level]}",
        source_event_ids=tuple(
            dict.fromkeys([*(c.message.event_id for c in clues), *(h.event_id for h in hands)])
        ),
        spans=tuple(
            Span(start=c.span[0], end=c.span[1], label="collusion_talk") for c in clues[:1] if c.span
        ),
        evidence={
            "messages": [message_evidence(c) for c in clues[:10]],
            "hands": [h.model_dump(mode="json") for h in hands],
            "hand_ids": list(
                dict.fromkeys([*(h.hand_id for h in hands), *(i for e in logs for i in e.hand_ids)])
            ),
            "tournaments": [e.to_json() for e in logs],
            "statistic": {"name": "cooperative_bounty_spots", "level": level, **statistic},
        },
    )
