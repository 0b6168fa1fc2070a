"""Hand records: replay validation, PokerStars and PHH import, the analyst replay dict."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import combinations
from typing import Any

import pytest

from pipeline.contracts import HAND, DecodeError, decode
from pipeline.contracts.hand import HandRecord
from pipeline.hands.cards import parse_cards, rank_hand
from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.phh import parse_phh
from pipeline.hands.pokerstars import parse_hand, split_hands
from pipeline.hands.replay import hand_replay
from pipeline.hands.showdown import HOLDEM
from tests.samples import hand_value

THREE_WAY = {
    "antes": [0, 0, 0], "blinds_or_straddles": [1, 2, 0], "min_bet": 2, "starting_stacks": [200, 200, 200],
    "players": ["alice", "bob", "carol"], "seats": [1, 2, 3],
    "actions": ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 7h2c", "p3 f", "p1 cbr 6", "p2 cc",
                "d db 2s3s4d", "p1 cbr 10", "p2 cc", "d db 9h", "p1 cc", "p2 cc", "d db Jc", "p1 cc", "p2 cc",
                "p2 sm KcKd", "p1 sm AcAd"],
    "finishing_stacks": [216, 184, 200], "winnings": [32, 0, 0],
}

PS_HAND = """PokerStars Hand #7: Hold'em No Limit (50/100) - 2019/07/12 03:46:49 ET
Table 'Test Table' 6-max (Play Money) Seat #3 is the button
Seat 1: Ann Lee (10000 in chips)
Seat 2: Bob (10000 in chips)
Seat 3: Cid (10000 in chips)
Ann Lee: posts small blind 50
Bob: posts big blind 100
*** HOLE CARDS ***
Dealt to Ann Lee [Jd Kc]
Dealt to Bob [3s 8s]
Dealt to Cid [2c Qh]
Cid: folds
Ann Lee: calls 50
Bob: checks
*** FLOP *** [8h Ah Ks]
Ann Lee: bets 100
Bob: calls 100
*** TURN *** [8h Ah Ks] [4s]
Ann Lee: checks
Bob: checks
*** RIVER *** [8h Ah Ks] [4s] [Jh]
Ann Lee: bets 100
Bob: raises 200 to 300
Ann Lee: calls 200
*** SHOWDOWN ***
Ann Lee: shows [Jd Kc]
Ann Lee collected 1000.0 from pot
*** SUMMARY ***
Total pot 1000 | Rake 0
Board [8h Ah Ks 4s Jh]
Seat 1: Ann Lee showed [Jd Kc] and won (1000.0)
Seat 2: Bob showed [3s 8s] and lost
"""


def _hand(**overrides: Any) -> dict[str, Any]:
    value = hand_value(**{k: v for k, v in THREE_WAY.items()})
    value.update(overrides)
    return value


def _decode(value: dict[str, Any]) -> HandRecord:
    event = decode(HAND, json.dumps(value).encode())
    assert isinstance(event, HandRecord)
    return event


def test_evaluator_orders_hand_categories_and_kickers() -> None:
    def r(text: str) -> int:
        return rank_hand([c for c in parse_cards(text) if c is not None])

    assert r("AhKhQhJhTh2c3d") > r("9s9h9d9c2h3h4h") > r("KsKhKd2c2h5h7s") > r("2h5h7h9hJh3c4d")
    assert r("As2h3d4c5s9h9d") > r("9s9h9dKc2h4d7s") > r("AsAh2d2cKh7d8s") > r("AsAhKd2c7h8d9s")
    assert r("AsAhKd2c7h8d9s") > r("AsAhQd2c7h8d9s")  # kicker
    assert r("Ts9h8d7c6sAh2d") > r("5s4h3d2cAs9hTd")  # ten-high straight beats the wheel
    assert r("AsKh2d3c7s8h9d") == r("AdKc2h3s7d8c9h")  # suits do not matter


def _naive_rank(cards: list[int]) -> tuple[int, ...]:
    """Best 5 of the cards by the textbook rules: every 5-card subset, categories by rank counts."""
    shapes = {(4, 1): 7, (3, 2): 6, (3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}
    best: tuple[int, ...] = ()
    for five in combinations(cards, 5):
        ranks = sorted((c >> 2 for c in five), reverse=True)
        by_count = sorted(Counter(ranks).items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        flush = len({c & 3 for c in five}) == 1
        distinct = sorted(set(ranks), reverse=True)
        straight = len(distinct) == 5 and distinct[0] - distinct[4] == 4
        high = distinct[0] if straight else 3 if distinct == [12, 3, 2, 1, 0] else -1
        if high >= 0:
            value: tuple[int, ...] = (8 if flush else 4, high)
        elif flush:
            value = (5, *ranks)
        else:
            value = (shapes.get(tuple(n for _, n in by_count), 0), *(r for r, _ in by_count))
        best = max(best, value)
    return best


def test_evaluator_agrees_with_the_textbook_rules_on_random_hands() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        a, b = rng.sample(range(52), 7), rng.sample(range(52), rng.choice([5, 6, 7]))
        fast = (rank_hand(a) > rank_hand(b)) - (rank_hand(a) < rank_hand(b))
        slow = (_naive_rank(a) > _naive_rank(b)) - (_naive_rank(a) < _naive_rank(b))
        assert fast == slow, (a, b)


def test_equity_is_exact_on_the_river_and_plausible_preflop() -> None:
    aa, kk = parse_cards("AhAd"), parse_cards("KsKc")
    board = parse_cards("2c7d9h3s4d")
    assert HOLDEM.equity(aa, kk, board, samples=10, seed=1) == 1.0  # type: ignore[arg-type]
    pre = HOLDEM.equity(aa, kk, (), samples=400, seed=1)  # type: ignore[arg-type]
    assert 0.72 < pre < 0.9


def test_legal_hand_replays_with_pot_after_each_action() -> None:
    record = _decode(_hand())
    replay = hand_replay(record)
    assert [s["street"] for s in replay["streets"]] == ["preflop", "flop", "turn", "river"]
    flop = replay["streets"][1]["actions"]
    assert flop[0] == {"player_id": "alice", "action": "bet", "amount": 10, "to_call": 0, "all_in": False, "pot_after": 22}
    assert replay["winners"] == [{"player_id": "alice", "amount": 32}]
    assert replay["seats"][1]["cards"] == ["Kc", "Kd"]
    assert replay["board"] == ["2s", "3s", "4d", "9h", "Jc"]
    assert record.partial == ()


@pytest.mark.parametrize(
    ("overrides", "kind"),
    [
        ({"actions": ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 7h2c", "p1 f"]}, "illegal_action"),  # out of turn
        ({"actions": [*THREE_WAY["actions"][:4], "p1 cbr 3"]}, "illegal_action"),  # below a min raise
        ({"actions": [*THREE_WAY["actions"][:4], "p1 cbr 500"]}, "illegal_action"),  # more than the stack
        ({"actions": ["d dh p1 AcAd", "d dh p2 AcKd", "d dh p3 7h2c", "p3 f", "p1 f"]}, "duplicate_card"),
        ({"actions": THREE_WAY["actions"][:9]}, "truncated"),
        ({"winnings": [40, 0, 0]}, "chips_not_conserved"),
        ({"winnings": [0, 32, 0], "finishing_stacks": [184, 216, 200]}, "chips_not_conserved"),  # wrong winner
        ({"finishing_stacks": [216, 184, 300]}, "inconsistent_stacks"),
    ],
)
def test_bad_hands_are_rejected_with_a_reason(overrides: dict[str, Any], kind: str) -> None:
    with pytest.raises(DecodeError, match=kind) as info:
        decode(HAND, json.dumps(_hand(**overrides)).encode())
    assert info.value.kind == "invalid"


def test_negative_stack_and_unknown_variant_are_contract_errors() -> None:
    with pytest.raises(DecodeError, match="starting_stacks"):
        decode(HAND, json.dumps(_hand(starting_stacks=[200, -5, 200])).encode())
    with pytest.raises(DecodeError, match="variant"):
        decode(HAND, json.dumps(_hand(variant="XX")).encode())


def test_missing_cards_and_other_variants_are_kept_but_partial() -> None:
    unknown = [a.replace("KcKd", "????") if a.startswith("d dh p2") else a for a in THREE_WAY["actions"]]
    unknown = [a for a in unknown if a != "p2 sm KcKd"]
    record = _decode(_hand(actions=unknown))
    assert record.partial == ("missing_showdown_cards",)
    assert hand_replay(record)["seats"][1]["cards"] is None
    omaha = _decode(_hand(variant="F7S", actions=["d dh p1 AcAdKc"]))  # stud: carried, not replayed
    assert omaha.partial == ("variant_not_analysed",) and omaha.replay is None
    assert hand_replay(omaha)["streets"] == []


def test_pokerstars_hand_imports_with_names_made_safe() -> None:
    value = parse_hand(PS_HAND)
    record = _decode(value)
    assert record.players == ["Ann_Lee", "Bob", "Cid"]
    assert record.blinds_or_straddles == [50, 100, 0]
    assert record.winnings == [1000, 0, 0] and record.finishing_stacks == [10500, 9500, 10000]
    assert record.ts.isoformat() == "2019-07-12T07:46:49+00:00"  # ET in July is EDT, UTC-4
    assert "p2 cbr 300" in record.actions and "d db Jh" in record.actions


def test_pokerstars_split_and_bad_blocks() -> None:
    blocks = list(split_hands(PS_HAND + "\n\n" + PS_HAND.replace("#7", "#8")))
    assert len(blocks) == 2
    with pytest.raises(HandIntegrityError) as info:
        parse_hand("PokerStars Hand #9: Razz Limit (50/100) - 2019/07/12 03:46:49 ET\nTable 'x' Seat #1 is the button")
    assert info.value.kind == "unknown_variant"  # stud and draw are not imported yet
    with pytest.raises(HandIntegrityError) as info:
        parse_hand("PokerStars Hand #9: Omaha Pot Limit (50/100) - 2019/07/12 03:46:49 ET\nTable 'x' Seat #1 is the button")
    assert info.value.kind == "truncated"  # Omaha is imported; this block has no summary
    with pytest.raises(HandIntegrityError):
        parse_hand("garbage")


def test_phh_document_imports_and_heads_up_blinds_are_made_literal() -> None:
    text = "\n".join([
        "variant = 'NT'", "antes = [0, 0]", "blinds_or_straddles = [50, 100]", "min_bet = 100",
        "starting_stacks = [1000, 1000]", "players = ['x', 'y']",
        # pokerkit heads-up: p1 posts the big blind, p2 (button) the small blind and acts first.
        "actions = ['d dh p1 AcAd', 'd dh p2 KcKd', 'p2 cbr 300', 'p1 f']",
        "finishing_stacks = [900, 1100]",
    ])
    record = _decode(parse_phh(text, name="hu"))
    assert record.blinds_or_straddles == [100, 50]
    assert record.finishing_stacks == [900, 1100]
    with pytest.raises(HandIntegrityError):
        parse_phh("variant = ", name="broken")
