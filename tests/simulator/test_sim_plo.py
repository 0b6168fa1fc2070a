"""Pot-limit Omaha tables: hands the pipeline's hand engine accepts (4 hole cards, pot limit)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from pipeline.contracts import HandRecord
from simulator.config import REC, REG
from simulator.dealing import blinds_list
from simulator.engine import HandSetup, play_hand
from simulator.games import PLO


def test_plo_hands_replay_without_validation_errors() -> None:
    rng = random.Random(7)
    for k in range(300):
        n = 2 + k % 5
        stacks = tuple(rng.randint(300, 3000) for _ in range(n))
        setup = HandSetup(stacks=stacks, styles=tuple(REC if i % 2 else REG for i in range(n)),
                          small_blind=5, big_blind=10, game=PLO)
        out = play_hand(setup, rng)
        assert all(len(h) == 4 for h in out.holes)
        record = HandRecord(
            event_id=f"e{k}", ts=datetime(2026, 3, 2, 18, tzinfo=UTC), hand_id=f"h{k}", table_id="t1", game="cash",
            variant="PO", antes=[], blinds_or_straddles=blinds_list(n, 5, 10), min_bet=10,
            starting_stacks=list(stacks), players=[f"p{i}" for i in range(n)], seats=list(range(1, n + 1)),
            actions=list(out.actions), finishing_stacks=list(out.finishing), winnings=list(out.winnings),
        )
        assert record.partial == ()
        assert sum(out.finishing) == sum(stacks)
