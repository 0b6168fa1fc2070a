"""A readable replay of one hand for analysts; the review console renders this dict as is."""

from __future__ import annotations

from typing import Any

from pipeline.contracts.hand import HandRecord
from pipeline.hands.cards import card_text
from pipeline.hands.engine import BOARD_SIZES, STREET_NAMES


def hand_replay(record: HandRecord) -> dict[str, Any]:
    """Seats, stacks, cards, actions by street with the pot after each, board, winners, bounties."""
    replay = record.replay
    n = len(record.players)
    holes = replay.holes if replay else (None,) * n
    seats = [
        {
            "position": i + 1,
            "seat": record.seats[i] if record.seats else i + 1,
            "player_id": record.players[i],
            "starting_stack": record.starting_stacks[i],
            "finishing_stack": record.finishing_stacks[i] if record.finishing_stacks else None,
            "cards": [card_text(c) for c in hole] if (hole := holes[i]) else None,
            "bounty": record.bounties.get(record.players[i]),
            "blind": record.blinds_or_straddles[i] if record.blinds_or_straddles else 0,
            "ante": record.antes[i] if record.antes else 0,
        }
        for i in range(n)
    ]
    out: dict[str, Any] = {
        "hand_id": record.hand_id,
        "table_id": record.table_id,
        "tournament_id": record.tournament_id,
        "ts": record.ts.isoformat(),
        "variant": record.variant,
        "big_blind": replay.big_blind if replay else record.min_bet,
        "seats": seats,
        "streets": [],
        "board": [],
        "pot": None,
        "winners": [],
        "eliminated": list(record.eliminated),
        "bounties": dict(record.bounties),
        "partial": list(record.partial),
    }
    if replay is None:
        return out
    board = [card_text(c) for c in replay.board]
    streets: list[dict[str, Any]] = []
    for street, name in enumerate(STREET_NAMES):
        steps = [s for s in replay.steps if s.street == street]
        if street and len(board) < BOARD_SIZES[street]:
            break
        streets.append(
            {
                "street": name,
                "board": board[: BOARD_SIZES[street]],
                "actions": [
                    {
                        "player_id": record.players[s.player],
                        "action": s.kind,
                        "amount": s.amount,
                        "to_call": s.facing,
                        "all_in": s.all_in,
                        "pot_after": s.pot_after,
                    }
                    for s in steps
                ],
            }
        )
    out["streets"] = streets
    out["board"] = board
    out["pot"] = replay.pot
    out["winners"] = [
        {"player_id": record.players[i], "amount": w} for i, w in enumerate(replay.winnings) if w > 0
    ]
    out["showdown"] = [record.players[i] for i in replay.showdown]
    return out
