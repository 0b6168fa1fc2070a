"""`settle` when all but one player folded: the shortcut must pay what the side pots pay."""

from __future__ import annotations

import random

from pipeline.hands.settle import settle, side_pots


def _by_pots(committed: list[int], folded: list[bool]) -> list[int]:
    won = [0] * len(committed)
    for amount, eligible in side_pots(committed, folded):
        assert len(eligible) == 1
        won[eligible[0]] += amount
    return won


def test_the_last_player_in_wins_what_the_side_pots_give_it() -> None:
    rng = random.Random(5)
    for _ in range(2000):
        n = rng.randint(2, 10)
        committed = [rng.choice([0, 10, 20, 50, 100, rng.randint(1, 500)]) for _ in range(n)]
        live = rng.randrange(n)
        committed[live] = rng.randint(1, 500)  # may be below what a folded player put in
        folded = [i != live for i in range(n)]
        won = settle(committed=committed, folded=folded, holes=[None] * n, board=[])
        assert won == _by_pots(committed, folded)
        assert won is not None and won[live] == sum(committed)


def test_a_last_player_who_put_nothing_in_is_left_to_the_side_pots() -> None:
    # Chips only folded players reached have no pot to join: nobody is paid them (the conservation
    # check then rejects the hand), as before the shortcut.
    won = settle(committed=[0, 30, 30], folded=[False, True, True], holes=[None] * 3, board=[])
    assert won == [0, 0, 0]


def test_rake_comes_off_the_winner() -> None:
    won = settle(committed=[40, 40, 10], folded=[True, False, True], holes=[None] * 3, board=[], rake=5)
    assert won == [0, 85, 0]
