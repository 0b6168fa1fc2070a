"""Every flop game replays with its own rules: hole-card counts, pot and fixed limits, Omaha's
two-plus-three, short deck's order, hi/lo splits, bomb pots, run it twice."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pipeline.contracts import HAND, DecodeError, decode
from pipeline.contracts.hand import HandRecord
from pipeline.hands.cards import parse_cards
from pipeline.hands.showdown import omaha_low, omaha_rank, short_rank, showdown_for
from pipeline.hands.variants import VARIANTS
from tests.samples import hand_value


def _cards(text: str) -> list[int]:
    return [c for c in parse_cards(text) if c is not None]


def _value(variant: str, actions: list[str], **extra: Any) -> dict[str, Any]:
    value = hand_value(
        variant=variant, antes=[0, 0, 0], blinds_or_straddles=[1, 2, 0], min_bet=2,
        starting_stacks=[200, 200, 200], players=["alice", "bob", "carol"], seats=[1, 2, 3], actions=actions,
        finishing_stacks=[], winnings=[],
    )
    value.update(extra)
    return value


def _decode(value: dict[str, Any]) -> HandRecord:
    event = decode(HAND, json.dumps(value).encode())
    assert isinstance(event, HandRecord)
    return event


def test_omaha_uses_exactly_two_hole_cards() -> None:
    board = _cards("AhKhQh2c3d")
    # Four hearts in hand but only two may play: a flush, not the hold'em "royal" that needs three.
    assert omaha_rank(_cards("JhTh9s9d"), board) > omaha_rank(_cards("Jh9s9d8c"), board)
    # One heart in hand makes no flush in Omaha (hold'em would call it one).
    assert omaha_rank(_cards("Js2s7d8c"), board) < omaha_rank(_cards("AsAd7d8c"), board)
    assert omaha_low(_cards("As2s9d9c"), _cards("3h4h8cKdQd")) is not None
    assert omaha_low(_cards("AsKs9d9c"), _cards("3h4h8cKdQd")) is None


def test_short_deck_order() -> None:
    flush = short_rank(_cards("AhKh9h7h6h8c8d"))
    full = short_rank(_cards("8h8c8dKsKd6c7c"))
    trips = short_rank(_cards("8h8c8dTs9d7c6s"))
    straight = short_rank(_cards("Ah6c7d8s9hKcQd"))  # A-6-7-8-9
    assert flush > full > trips > straight
    assert straight > short_rank(_cards("AhAcKdKs9h7c6d"))  # the A-6-7-8-9 straight beats two pair


OMAHA_HAND = [
    "d dh p1 AcAdKcKd", "d dh p2 7h8h9sTs", "d dh p3 2c3c4d5d", "p3 f", "p1 cbr 6", "p2 cc",
    "d db 2s3s4h", "p1 cbr 10", "p2 cc", "d db Jc", "p1 cc", "p2 cc", "d db Qd", "p1 cc", "p2 cc",
    "p2 sm 7h8h9sTs", "p1 sm AcAdKcKd",
]


def test_pot_limit_omaha_replays_and_settles_with_omaha_rules() -> None:
    # Hold'em rules would give p2 8-9-T-J-Q (three hole cards); Omaha's give p1's aces the pot.
    record = _decode(_value("PO", OMAHA_HAND, finishing_stacks=[216, 184, 200], winnings=[32, 0, 0]))
    assert record.replay is not None and record.partial == ()
    with pytest.raises(DecodeError, match="chips_not_conserved"):
        decode(HAND, json.dumps(_value("PO", OMAHA_HAND, winnings=[0, 32, 0])).encode())


def test_hole_card_count_is_per_variant() -> None:
    with pytest.raises(DecodeError, match="PO deals 4"):
        decode(HAND, json.dumps(_value("PO", ["d dh p1 AcAd", *OMAHA_HAND[1:]])).encode())
    with pytest.raises(DecodeError, match="PO5 deals 5"):
        decode(HAND, json.dumps(_value("PO5", OMAHA_HAND)).encode())


def test_pot_limit_caps_the_raise_and_fixed_limit_fixes_it() -> None:
    # Pot-limit: p1 (small blind) may raise to at most 2 + (1 + 2) + 1 = 6 pre-flop; 7 is over the pot.
    over = ["d dh p1 AcAdKcKd", "d dh p2 7h8h9sTs", "d dh p3 2c3c4d5d", "p3 f", "p1 cbr 7"]
    with pytest.raises(DecodeError, match="pot limit is 6"):
        decode(HAND, json.dumps(_value("PO", over)).encode())
    holdem = ["d dh p1 AcAd", "d dh p2 7h8h", "d dh p3 2c3c", "p3 f", "p1 cbr 5"]
    with pytest.raises(DecodeError, match="fixed limit is 2"):
        decode(HAND, json.dumps(_value("FT", holdem)).encode())
    legal = ["d dh p1 AcAd", "d dh p2 7h8h", "d dh p3 2c3c", "p3 f", "p1 cbr 4", "p2 cc", "d db 2s3s4h",
             "p1 cbr 2", "p2 cc", "d db Jc", "p1 cbr 4", "p2 f"]
    assert _decode(_value("FT", legal, finishing_stacks=[206, 194, 200], winnings=[12, 0, 0])).replay is not None


def test_hi_lo_splits_the_pot() -> None:
    game = showdown_for("PO/8")
    board = _cards("2s3s4h9c9d")
    # Hero: the wheel for low (and a straight); villain: nines full of fours for high, no low.
    assert game.share(_cards("Ac5cKhQh"), _cards("9s4dKcQc"), board) == pytest.approx(0.5)
    assert showdown_for("PO").share(_cards("Ac5cKhQh"), _cards("9s4dKcQc"), board) == 0.0


def test_bomb_pot_deals_the_flop_without_preflop_action() -> None:
    actions = ["d dh p1 AcAd", "d dh p2 7h8h", "d dh p3 2c3c", "d db 2s3s4h", "p1 cc", "p2 cc", "p3 cc",
               "d db Jc", "p1 cc", "p2 cc", "p3 cc", "d db Qd", "p1 cc", "p2 cc", "p3 cc",
               "p1 sm AcAd", "p2 sm 7h8h", "p3 sm 2c3c"]
    record = _decode(_value("NT", actions, antes=[10, 10, 10], blinds_or_straddles=[0, 0, 0],
                            winnings=[0, 0, 30], finishing_stacks=[190, 190, 220]))
    assert record.replay is not None and record.replay.pot == 30  # p3's two pair, threes and deuces


def test_run_twice_checks_conservation_not_the_first_board() -> None:
    allin = ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 2c7h", "p3 f", "p1 cbr 200", "p2 cc",
             "d db 2s3s4h", "d db Jc", "d db Qd", "p1 sm AcAd", "p2 sm KcKd"]
    split = _decode(_value("NT", allin, run_count=2, winnings=[200, 200, 0], finishing_stacks=[200, 200, 200]))
    assert "run_multiple_boards" in split.partial
    with pytest.raises(DecodeError, match="chips_not_conserved"):
        decode(HAND, json.dumps(_value("NT", allin, run_count=2, winnings=[300, 200, 0])).encode())


def test_every_flop_variant_has_a_showdown_and_stud_draw_are_carried() -> None:
    for code, spec in VARIANTS.items():
        if spec.analysed:
            assert showdown_for(code).deck
        else:
            assert spec.family in ("stud", "draw")


def test_collusion_features_price_omaha_with_omaha_rules() -> None:
    from pipeline.detectors.hand import build_hand_detectors
    from pipeline.hands.features import hand_features
    from pipeline.rules import RulesConfig

    # p2 folds the river to p1's bet holding J-9: a straight in Omaha (J-9 + K-Q-T), a royal flush
    # if it were hold'em (Jh + the four board hearts). Omaha's rules: p1's 2h-3h flush was ahead, so
    # the fold gave nothing away; hold'em's would call it folding the nuts.
    actions = ["d dh p1 AsAc2h3h", "d dh p2 Jh9s9d8c", "d dh p3 7d7s6d6s", "p3 f", "p1 cc", "p2 cc",
               "d db AhKhQh", "p1 cc", "p2 cc", "d db Th", "p1 cc", "p2 cc", "d db 2c", "p1 cbr 4", "p2 f"]
    record = _decode(_value("PO", actions, winnings=[4, 0, 0], finishing_stacks=[202, 198, 200]))
    assert record.replay is not None
    features = hand_features(record.replay, seed="h", starting_stacks=record.starting_stacks, bounty_won={})
    fold = features.pairs[(1, 0)]
    assert fold.folds == 1 and fold.strong_folds == 0
    board = _cards("AhKhQhTh2c")
    assert showdown_for("NT").share(_cards("Jh9s9d8c"), _cards("AsAc2h3h"), board) == 1.0  # what hold'em would say
    for detector in build_hand_detectors(rules=RulesConfig()):
        assert list(detector.process(record)) == []  # every hand detector takes a PLO hand
