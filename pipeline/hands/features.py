"""What one replayed hand says about each pair of players: the raw material of the collusion detectors.

Only pairs that interacted are observed: heads-up decisions between them, chips that moved from one
to the other, or a bounty spot (a third player all-in while both stayed in). Equity is computed only
where it changes a conclusion (a heads-up fold to the partner, a heads-up pot that went to showdown).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from pipeline.hands.cards import TWO_PAIR, category
from pipeline.hands.engine import BOARD_SIZES, PREFLOP, Replay, Step
from pipeline.hands.showdown import showdown_for

EQUITY_SAMPLES = 24
TRANSFER_CLIP_BB = 30.0
"""One monster pot must not decide a pair's statistic on its own."""
SHORT_STACK_BB = 15


@dataclass(slots=True)
class PairObs:
    """Directed observation of hero's play against villain in one hand (chips in big blinds)."""

    hero: int
    villain: int
    bet_chances: int = 0
    """Heads-up post-flop decisions with nothing to call (hero could bet)."""
    bets: int = 0
    strong_chances: int = 0
    """Of those, hero held two pair or better and was ahead."""
    strong_checks: int = 0
    faced: int = 0
    """Heads-up decisions facing the villain's bet or raise."""
    folds: int = 0
    strong_folds: int = 0
    """Folds with at least half the equity against the villain."""
    transfer: float = 0.0
    """Equity-adjusted chips hero -> villain: expected loss at showdown, chips given up by folding
    (plus the equity value forgone), negative when the chips went the other way."""
    flow: float = 0.0
    """Actual chips hero -> villain (negative: villain -> hero)."""
    short_flow: float = 0.0
    """Actual chips hero -> villain when the villain started the hand short-stacked."""
    check_down: int = 0
    soft_evidence: float = 0.0
    """How telling this hand is for soft play (strong hands checked, check-downs)."""
    dump_evidence: float = 0.0
    """How telling this hand is for chip dumping (chips and equity handed over)."""


@dataclass(slots=True)
class BountySpot:
    """A third player all-in in a bounty hand while both of a pair stayed in."""

    pair: tuple[int, int]
    target: int
    cooperative: bool
    """They checked it down, or one folded at least half the equity to the other."""
    bounty_to_pair: int
    """Bounty chips the pair collected from the target in this hand."""
    chances: int = 0
    """Actions of either after the all-in where a bet into the other was possible (a check, bet or
    raise while both were in and the other still had chips)."""
    bets: int = 0
    """Of those, bets and raises (none counted when the spot is cooperative)."""


@dataclass(slots=True)
class HandFeatures:
    """Everything the collusion detectors take from one hand."""

    pairs: dict[tuple[int, int], PairObs] = field(default_factory=dict)
    spots: list[BountySpot] = field(default_factory=list)


def hand_features(replay: Replay, *, seed: str, starting_stacks: list[int], bounty_won: dict[int, int]) -> HandFeatures:
    """Pairwise observations for one replayed hand of any flop game; `bounty_won` maps winner -> bounty chips."""
    out = HandFeatures()
    bb = float(replay.big_blind)
    rng_seed = zlib.crc32(seed.encode("utf-8"))
    for step in replay.steps:
        if len(step.active) == 2:
            _heads_up_step(out, replay, step, bb, rng_seed)
    _showdown(out, replay, bb, rng_seed)
    _flows(out, replay, bb, starting_stacks)
    _bounty_spots(out, replay, rng_seed, bounty_won)
    return out


def _obs(out: HandFeatures, hero: int, villain: int) -> PairObs:
    key = (hero, villain)
    obs = out.pairs.get(key)
    if obs is None:
        obs = out.pairs[key] = PairObs(hero, villain)
    return obs


def _board_at(replay: Replay, street: int) -> tuple[int, ...]:
    return replay.board[: BOARD_SIZES[street]]


def _equity(replay: Replay, hero: int, villain: int, street: int, seed: int) -> float | None:
    h, v = replay.holes[hero], replay.holes[villain]
    if h is None or v is None:
        return None
    # The variant's own showdown (Omaha's two-plus-three, short deck's order, hi/lo halves).
    game = showdown_for(replay.variant)
    return game.equity(h, v, _board_at(replay, street), samples=EQUITY_SAMPLES, seed=seed + street)


def _heads_up_step(out: HandFeatures, replay: Replay, step: Step, bb: float, seed: int) -> None:
    hero = step.player
    villain = step.active[0] if step.active[1] == hero else step.active[1]
    obs = _obs(out, hero, villain)
    if step.street > PREFLOP and step.facing == 0:
        obs.bet_chances += 1
        aggressive = step.kind in ("bet", "raise")
        obs.bets += aggressive
        h, v = replay.holes[hero], replay.holes[villain]
        if h is not None and v is not None:
            board = _board_at(replay, step.street)
            high = showdown_for(replay.variant).high
            mine = high(h, board)
            if category(mine) >= TWO_PAIR and mine > high(v, board):
                obs.strong_chances += 1
                obs.strong_checks += not aggressive
                obs.soft_evidence += 0 if aggressive else 1.0
    elif step.facing > 0 and step.aggressor == villain:
        obs.faced += 1
        if step.kind == "fold":
            obs.folds += 1
            # Pre-flop folds are too common and too noisy to price; post-flop ones carry the signal.
            e = _equity(replay, hero, villain, step.street, seed) if step.street > PREFLOP else None
            if e is not None:
                forgone = max(0.0, e * (step.pot_before + step.facing) - step.facing) / bb
                obs.transfer += min(forgone, TRANSFER_CLIP_BB)
                if e >= 0.5:
                    obs.strong_folds += 1
                    obs.dump_evidence += 1.0 + forgone / 10


def _showdown(out: HandFeatures, replay: Replay, bb: float, seed: int) -> None:
    if len(replay.showdown) != 2:
        return
    a, b = replay.showdown
    money = [s.street for s in replay.steps if s.amount > 0]
    street = max(money) if money else PREFLOP
    e = _equity(replay, a, b, street, seed)
    postflop_bets = any(s.street > PREFLOP and s.kind in ("bet", "raise") for s in replay.steps)
    both = replay.committed[a] + replay.committed[b]
    for hero, villain, eq in ((a, b, e), (b, a, None if e is None else 1.0 - e)):
        obs = _obs(out, hero, villain)
        if len(replay.board) >= 3 and not postflop_bets:
            obs.check_down += 1
            obs.soft_evidence += 0.5
        if eq is not None:
            expected_loss = (replay.committed[hero] - eq * both) / bb
            obs.transfer += max(-TRANSFER_CLIP_BB, min(TRANSFER_CLIP_BB, expected_loss))
            obs.dump_evidence += max(0.0, expected_loss) / 20


def _flows(out: HandFeatures, replay: Replay, bb: float, starting: list[int]) -> None:
    net = [w - c for w, c in zip(replay.winnings, replay.committed, strict=True)]
    gained = sum(x for x in net if x > 0)
    if gained <= 0:
        return
    for hero, loss in enumerate(net):
        if loss >= 0:
            continue
        for villain, gain in enumerate(net):
            if gain <= 0:
                continue
            chips = -loss * gain / gained / bb
            obs, back = _obs(out, hero, villain), _obs(out, villain, hero)
            obs.flow += chips
            back.flow -= chips
            if replay.folded[hero] and (hero, villain) in out.pairs and out.pairs[(hero, villain)].faced:
                # Chips given up by folding heads-up to the villain count as a transfer.
                obs.transfer += min(chips, TRANSFER_CLIP_BB)
                back.transfer -= min(chips, TRANSFER_CLIP_BB)
                obs.dump_evidence += chips / 20
            if starting[villain] < SHORT_STACK_BB * bb:
                obs.short_flow += chips
                obs.dump_evidence += chips / 10


def _bounty_spots(out: HandFeatures, replay: Replay, seed: int, bounty_won: dict[int, int]) -> None:
    acted = {s.player for s in replay.steps}
    # A player put all-in by the blind or ante never acts, but is as much a bounty as one who shoved.
    forced = [i for i in range(replay.n) if replay.all_in[i] and i not in acted]
    starts = [(forced[0], -1)] if forced else []
    starts += [(s.player, s.at) for s in replay.steps if s.all_in]
    for target, start in starts[:1]:
        after = [s for s in replay.steps if s.at > start]
        alive = [i for i in range(replay.n) if i != target and not replay.folded[i]]
        folded_after = {s.player for s in after if s.kind == "fold"}
        stayed = sorted({s.player for s in after if s.player != target} | set(alive))
        for x in range(len(stayed)):
            for y in range(x + 1, len(stayed)):
                a, b = stayed[x], stayed[y]
                both = [s for s in after if s.player in (a, b) and a in s.active and b in s.active]
                if not both:
                    continue
                if any(s.kind == "fold" and (s.aggressor not in (a, b) or s.aggressor == s.player) for s in both):
                    continue  # one let go to the all-in or to someone else: nothing passed between the two
                aggressive = any(s.kind in ("bet", "raise") for s in both)
                coop = not aggressive and a not in folded_after and b not in folded_after
                for s in both:
                    if s.kind == "fold" and s.aggressor in (a, b) and s.aggressor != s.player:
                        e = _equity(replay, s.player, s.aggressor, s.street, seed)
                        coop = coop or (e is not None and e >= 0.5)
                won = bounty_won.get(a, 0) + bounty_won.get(b, 0)
                chances, bets = _bet_chances(replay, start, a, b)
                out.spots.append(BountySpot((a, b), target, coop, won, chances, 0 if coop else bets))
        # Only the first all-in defines the spot (`starts[:1]`); later ones are the same pot fight.


def _bet_chances(replay: Replay, after: int, a: int, b: int) -> tuple[int, int]:
    """(chances, bets): actions of a or b after step `after` that could put chips in against the other
    (check, bet or raise while both are in and the other still has chips), and how many did."""
    all_in = {s.player for s in replay.steps if s.at <= after and s.all_in}
    chances = bets = 0
    for s in replay.steps:
        if s.at > after and s.player in (a, b) and a in s.active and b in s.active:
            other = b if s.player == a else a
            if other not in all_in and s.kind in ("check", "bet", "raise"):
                chances += 1
                bets += s.kind != "check"
        if s.all_in:
            all_in.add(s.player)
    return chances, bets
