"""Generated hand histories with planted collusion, for tests and the benchmark (seeded, legal).

Bots play a simple hand-strength game through `pipeline.hands.engine.HandState`, so every record is
legal by construction and its chips add up; `Tactics` plants soft play, chip dumping and bounty
agreements between chosen players.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pipeline.hands.cards import card_text, category, rank_hand
from pipeline.hands.engine import RIVER, HandState

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Style:
    """How loose and aggressive a bot is."""

    vpip: float
    aggression: float
    fold_to_bet: float


@dataclass(frozen=True)
class Tactics:
    """Planted collusion between player ids."""

    soft: frozenset[frozenset[str]] = frozenset()
    dump: tuple[str, str] | None = None
    """(dumper, receiver)."""
    bounty_pair: frozenset[str] = frozenset()
    """Friends who check it down / fold to each other while a third player is all-in."""


def random_style(rng: random.Random) -> Style:
    """A bot between tight-passive and loose-aggressive."""
    return Style(vpip=rng.uniform(0.18, 0.4), aggression=rng.uniform(0.35, 0.75), fold_to_bet=rng.uniform(0.35, 0.65))


def preflop_score(a: int, b: int) -> float:
    """Rough hand quality in [0, 1] (AA = 1)."""
    ra, rb = sorted((a >> 2, b >> 2), reverse=True)
    score = (ra + rb) / 24 * 0.6 + (0.35 + ra / 40 if ra == rb else 0) + (0.06 if (a & 3) == (b & 3) else 0)
    score += 0.04 if ra - rb == 1 else 0
    return min(1.0, score)


def postflop_strength(hole: tuple[int, int], board: list[int]) -> int:
    """0 nothing beyond the board, 1 pair, 2 two pair, 3+ strong."""
    mine = category(rank_hand([*hole, *board]))
    shared = category(rank_hand(board)) if len(board) >= 5 else 0
    return mine if mine > shared else 0


@dataclass
class HandSpec:
    """Inputs of one generated hand (players in PHH order: small blind first, button last)."""

    players: list[str]
    stacks: list[int]
    bb: int
    ante: int = 0
    hand_id: str = "h"
    table_id: str = "t"
    tournament_id: str | None = None
    bounties: dict[str, int] = field(default_factory=dict)
    ts: datetime = T0


def play_hand(spec: HandSpec, styles: dict[str, Style], tactics: Tactics, rng: random.Random) -> dict[str, Any]:
    """Play one hand and return its hand.records value."""
    n = len(spec.players)
    deck = list(range(52))
    rng.shuffle(deck)
    holes = [(deck[2 * i], deck[2 * i + 1]) for i in range(n)]
    board_cards = deck[2 * n : 2 * n + 5]
    blinds = [spec.bb // 2, spec.bb] + [0] * (n - 2)
    state = HandState(antes=[spec.ante] * n, blinds=blinds, min_bet=spec.bb, stacks=spec.stacks)
    actions = [f"d dh p{i + 1} {card_text(h[0])}{card_text(h[1])}" for i, h in enumerate(holes)]
    for k, a in enumerate(actions):
        state.apply(k, a.split(" "))
    dealt = 0
    while True:
        i = state.next_actor()
        if i is None:
            if len(state.live()) < 2 or state.street == RIVER:
                break
            take = 3 if dealt == 0 else 1
            text = "".join(card_text(c) for c in board_cards[dealt : dealt + take])
            dealt += take
            actions.append(f"d db {text}")
        else:
            actions.append(_decide(i, state, spec, holes, styles, tactics, rng))
        state.apply(len(actions) - 1, actions[-1].split(" "))
    if len(state.live()) >= 2:
        for i in state.live():
            actions.append(f"p{i + 1} sm {card_text(holes[i][0])}{card_text(holes[i][1])}")
            state.apply(len(actions) - 1, actions[-1].split(" "))
    replay = state.finish(finishing_stacks=(), winnings=(), rake=0)
    finishing = [s + w for s, w in zip(state.stacks, replay.winnings, strict=True)]
    value: dict[str, Any] = {
        "event_id": f"ev-{spec.hand_id}", "ts": spec.ts.isoformat(), "hand_id": spec.hand_id,
        "table_id": spec.table_id, "game": "tournament" if spec.tournament_id else "cash", "variant": "NT",
        "antes": [spec.ante] * n, "blinds_or_straddles": blinds, "min_bet": spec.bb,
        "starting_stacks": list(spec.stacks), "players": list(spec.players), "seats": list(range(1, n + 1)),
        "actions": actions, "finishing_stacks": finishing, "winnings": list(replay.winnings),
    }
    if spec.tournament_id:
        value["tournament_id"] = spec.tournament_id
        value["bounties"] = {p: spec.bounties.get(p, 0) for p in spec.players}
        value["eliminated"] = [p for p, s in zip(spec.players, finishing, strict=True) if s == 0]
    return value


def _decide(i: int, state: HandState, spec: HandSpec, holes: list[tuple[int, int]],
            styles: dict[str, Style], tactics: Tactics, rng: random.Random) -> str:
    me = spec.players[i]
    live = [spec.players[j] for j in state.live()]
    to_call = state.to_call(i)
    stack = state.stacks[i]
    can_raise = stack > to_call
    top = max(state.bets)
    board = state.board

    def call() -> str:
        return f"p{i + 1} cc"

    def fold() -> str:
        return f"p{i + 1} f" if to_call > 0 else call()

    def bet(size: int) -> str:
        if not can_raise:
            return call()
        target = max(state.min_raise_to(), top + size)
        target = min(target, state.bets[i] + stack)
        return f"p{i + 1} cbr {target}"

    others = [p for p in live if p != me]
    planted: str | None = _planted(me, others, tactics, state, spec, to_call, call, fold, bet)
    if planted is not None:
        return planted
    style = styles[me]
    pot = sum(state.committed)
    if state.street == 0:
        q = preflop_score(*holes[i]) + rng.uniform(-0.08, 0.08)
        short = stack + state.bets[i] <= spec.bb * 12
        if short:
            return bet(stack) if q > 0.62 else fold()
        if to_call == 0:
            return bet(spec.bb * 2) if q > 1 - style.vpip * 0.6 else call()
        if q > 1 - style.vpip * 0.35:
            return bet(top * 2)
        if q > 1 - style.vpip and to_call <= stack // 8:
            return call()
        return fold()
    strength = postflop_strength(holes[i], board)
    roll = rng.random()
    if to_call == 0:
        chance = style.aggression * (0.25, 0.6, 0.85, 0.9)[min(strength, 3)]
        return bet(max(spec.bb, int(pot * rng.uniform(0.4, 0.8)))) if roll < chance else call()
    if strength == 0:
        return fold() if roll < style.fold_to_bet else call()
    if strength == 1:
        return fold() if roll < style.fold_to_bet * 0.4 else call()
    return bet(top * 2) if roll < style.aggression * 0.4 else call()


def _planted(me, others, tactics, state, spec, to_call, call, fold, bet):  # type: ignore[no-untyped-def]
    if tactics.dump and set(others) == {tactics.dump[1]} and me == tactics.dump[0]:
        # The dumper feeds the receiver: bets into them, calls until the river, then folds to a bet.
        if to_call == 0:
            return bet(max(spec.bb * 3, sum(state.committed) * 4 // 5))
        return fold() if state.street == RIVER else call()
    if tactics.dump and set(others) == {tactics.dump[0]} and me == tactics.dump[1]:
        return bet(max(state.bets) * 2) if to_call > 0 and state.street == RIVER else call()
    if tactics.dump and me == tactics.dump[0] and tactics.dump[1] in others and state.street == 0 and to_call <= spec.bb * 4:
        return call()  # the dumper joins the receiver's pots
    for group in tactics.soft:
        if me in group and others and set(others) <= group:
            return call()  # friends heads-up: check it down, call, never raise
    if me in tactics.bounty_pair and any(state.stacks[spec.players.index(p)] == 0 for p in others):
        partner = next(iter(tactics.bounty_pair - {me}))
        if partner in others:
            if to_call > 0 and state.aggressor is not None and spec.players[state.aggressor] == partner:
                return fold()  # let the partner take the all-in player on alone
            return call()
    return None


def cash_session(*, table_id: str, players: list[str], hands: int, rng: random.Random, tactics: Tactics = Tactics(),
                 bb: int = 100, start: datetime = T0) -> list[dict[str, Any]]:
    """A 100-big-blind cash table: stacks reset each hand (like the Pluribus sessions), button rotates."""
    styles = {p: random_style(rng) for p in players}
    out = []
    for h in range(hands):
        k = h % len(players)
        order = players[k:] + players[:k]
        spec = HandSpec(order, [bb * 100] * len(order), bb, hand_id=f"{table_id}-{h}", table_id=table_id,
                        ts=start + timedelta(seconds=30 * h))
        out.append(play_hand(spec, styles, tactics, rng))
    return out


def bounty_tournament(*, tournament_id: str, players: list[str], rng: random.Random, tactics: Tactics = Tactics(),
                      start_bb: int = 50, stack: int = 3000, bounty: int = 500, max_hands: int = 400,
                      start: datetime = T0) -> list[dict[str, Any]]:
    """A one-table bounty tournament: blinds rise every 10 hands; the eliminator takes the bounty."""
    styles = {p: random_style(rng) for p in players}
    stacks = dict.fromkeys(players, stack)
    bounties = dict.fromkeys(players, bounty)
    seated = list(players)
    out = []
    for h in range(max_hands):
        if len(seated) < 2:
            break
        k = h % len(seated)
        order = seated[k:] + seated[:k]
        bb = start_bb * (1 + h // 10)
        spec = HandSpec(order, [stacks[p] for p in order], bb, hand_id=f"{tournament_id}-{h}", table_id=f"{tournament_id}-t1",
                        tournament_id=tournament_id, bounties=dict(bounties), ts=start + timedelta(seconds=40 * h))
        value = play_hand(spec, styles, tactics, rng)
        out.append(value)
        for p, s in zip(order, value["finishing_stacks"], strict=True):
            stacks[p] = s
        winners = [p for p, w in zip(order, value["winnings"], strict=True) if w > 0]
        for gone in value["eliminated"]:
            seated.remove(gone)
            for w in winners:
                bounties[w] += bounties[gone] // len(winners)
            bounties[gone] = 0
    return out
