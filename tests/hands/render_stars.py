"""Render a legal generated hand (PHH record) as PokerStars or GGPoker history text.

Written from the formats' public shape (header, table, seats, posts, streets, summary), so the
importers can be tested and benchmarked on thousands of hands whose true values are known.
"""

from __future__ import annotations

from typing import Any

from pipeline.hands.cards import card_text
from pipeline.hands.engine import replay_actions


def _amt(chips: int, cash: bool) -> str:
    if not cash:
        return f"{chips:,}" if chips >= 10_000 else str(chips)
    return f"${chips // 100}.{chips % 100:02d}"


def render(record: dict[str, Any], *, site: str, number: int, tournament: int | None = None,
           chat: list[tuple[str, str]] = ()) -> str:  # type: ignore[assignment]
    """History text of one record; `site` 'ps' or 'gg'; cash amounts are cents when not a tournament."""
    cash = tournament is None
    players: list[str] = record["players"]
    n = len(players)
    seats = record.get("seats") or list(range(1, n + 1))
    replay = replay_actions(
        variant=record["variant"], antes=record["antes"], blinds=record["blinds_or_straddles"],
        min_bet=record["min_bet"], stacks=record["starting_stacks"], actions=record["actions"],
    )
    bb = max(record["blinds_or_straddles"])
    sb = min(b for b in record["blinds_or_straddles"] if b)
    stakes = f"{_amt(sb, cash)}/{_amt(bb, cash)}"
    when = "2026/11/01 12:00:00"
    if site == "ps":
        game = f"Tournament #{tournament}, $10+$1 USD Hold'em No Limit - Level I ({stakes})" if tournament else f"Hold'em No Limit ({stakes} USD)"
        out = [f"PokerStars Hand #{number}: {game} - {when} ET", f"Table 'Gen {number % 7}' {max(n, 6)}-max Seat #{seats[-1]} is the button"]
    else:
        game = f"Tournament #{tournament}, Bounty Hunters $10 Hold'em No Limit - Level1({stakes})" if tournament else f"Hold'em No Limit ({stakes})"
        out = [f"Poker Hand #{'TM' if tournament else 'HD'}{number}: {game} - {when}",
               f"Table 'NLHGen{number % 7}' {max(n, 6)}-max Seat #{seats[-1]} is the button"]
    for i, p in enumerate(players):
        out.append(f"Seat {seats[i]}: {p} ({_amt(record['starting_stacks'][i], cash)} in chips)")
    for i, p in enumerate(players):
        if record["antes"][i]:
            out.append(f"{p}: posts the ante {_amt(record['antes'][i], cash)}")
    for i, p in enumerate(players):
        blind = record["blinds_or_straddles"][i]
        if blind:
            what = "small blind" if blind < bb else "big blind"
            out.append(f"{p}: posts {what} {_amt(blind, cash)}")
    out.append("*** HOLE CARDS ***")
    for i, p in enumerate(players):
        hole = replay.holes[i]
        if i == 0 or site == "gg":
            cards = f" [{' '.join(card_text(c) for c in hole)}]" if hole and i == 0 else ""
            out.append(f"Dealt to {p}{cards}" + (" " if not cards else ""))
    for name, text in chat:
        out.append(f'{name} said, "{text}"')
    street_bets = list(record["blinds_or_straddles"])
    names = ("FLOP", "TURN", "RIVER")
    board = [card_text(c) for c in replay.board]
    street = 0
    for s in replay.steps:
        while s.street > street:
            street += 1
            street_bets = [0] * n
            shown = board[: 2 + street]
            prev = f"[{' '.join(shown[:-1])}] " if street > 1 else ""
            cur = shown[-1:] if street > 1 else shown
            out.append(f"*** {names[street - 1]} *** {prev}[{' '.join(cur)}]")
        p = players[s.player]
        tail = " and is all-in" if s.all_in else ""
        if s.kind == "fold":
            out.append(f"{p}: folds")
        elif s.kind == "check":
            out.append(f"{p}: checks")
        elif s.kind == "call":
            street_bets[s.player] += s.amount
            out.append(f"{p}: calls {_amt(s.amount, cash)}{tail}")
        else:
            top = max(street_bets)
            street_bets[s.player] += s.amount
            to = street_bets[s.player]
            if s.kind == "bet":
                out.append(f"{p}: bets {_amt(to, cash)}{tail}")
            else:
                out.append(f"{p}: raises {_amt(to - top, cash)} to {_amt(to, cash)}{tail}")
    while street < 3 and len(board) > [0, 3, 4, 5][street]:
        street += 1
        shown = board[: 2 + street]
        prev = f"[{' '.join(shown[:-1])}] " if street > 1 else ""
        out.append(f"*** {names[street - 1]} *** {prev}[{' '.join(shown[-1:] if street > 1 else shown)}]")
    for i, r in enumerate(replay.returned):
        if r:
            out.append(f"Uncalled bet ({_amt(r, cash)}) returned to {players[i]}")
    if replay.showdown:
        out.append("*** SHOW DOWN ***" if site == "ps" else "*** SHOWDOWN ***")
        for i in replay.showdown:
            hole = replay.holes[i]
            if hole:
                out.append(f"{players[i]}: shows [{' '.join(card_text(c) for c in hole)}]")
    for i, w in enumerate(replay.winnings):
        if w:
            out.append(f"{players[i]} collected {_amt(w, cash)} from pot")
    out.append("*** SUMMARY ***")
    house = " | Jackpot 0 | Bingo 0 | Fortune 0 | Tax 0" if site == "gg" else ""
    out.append(f"Total pot {_amt(replay.pot, cash)} | Rake {_amt(0, cash)}{house}")
    if board:
        out.append(f"Board [{' '.join(board)}]")
    for i, p in enumerate(players):
        won = replay.winnings[i]
        out.append(f"Seat {seats[i]}: {p} " + (f"collected ({_amt(won, cash)})" if won else "folded before Flop"))
    return "\n".join(out) + "\n\n\n"
