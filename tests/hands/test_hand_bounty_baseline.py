"""hand.bounty_agreement: each player's yardstick "with other opponents" leaves out the hands in which
his partner was in the pot too, and the count of cooperative spots is a second test."""

from __future__ import annotations

from pipeline.detectors.hand.bounty_agreement import BountyAgreementDetector
from pipeline.detectors.hand.bounty_state import bump as _bump
from pipeline.detectors.hand.bounty_state import overlap as _overlap
from pipeline.detectors.hand.pairs import PairBook
from pipeline.detectors.hand.stream import HandStream
from pipeline.hands.features import BountySpot

Named = list[tuple[tuple[str, ...], BountySpot]]


def _spot(coop: bool, chances: int, bets: int) -> BountySpot:
    return BountySpot((0, 1), 5, coop, 0, chances, bets)


def _add(d: BountyAgreementDetector, named: Named) -> None:
    """The detector's own tallies for one hand's spots (as `_hand` keeps them)."""
    for pair, s in named:
        counts = (1, int(s.cooperative), s.chances, s.bets)
        for p in pair:
            _bump(d.player_history, p, counts, d.max_pairs)
        _bump(d.history, pair, (*counts, *_overlap((pair[0], pair[1]), named)), d.max_pairs)
        d.population = [x + y for x, y in zip(d.population, counts, strict=True)]


def test_overlap_counts_the_other_spots_that_hold_one_of_the_pair() -> None:
    named: Named = [
        (("a", "b"), _spot(True, 4, 0)),
        (("a", "c"), _spot(False, 3, 1)),
        (("b", "c"), _spot(True, 2, 0)),
        (("d", "e"), _spot(False, 5, 2)),
    ]
    assert _overlap(("a", "b"), named) == (2, 1, 5, 1)
    assert _overlap(("a", "c"), named) == (2, 2, 6, 0)
    assert _overlap(("d", "e"), named) == (0, 0, 0, 0)


def _world(three_way: int) -> BountyAgreementDetector:
    """Alice and Bob check down 6 spots together (2 chances each, no bet) and `three_way` more with Carol
    in the pot too; alone against others each bets 4 of 10 chances; 200 honest spots elsewhere."""
    d = BountyAgreementDetector(stream=HandStream(pairs=PairBook()))
    for _ in range(6):
        _add(d, [(("alice", "bob"), _spot(True, 2, 0))])
    for _ in range(three_way):
        _add(
            d,
            [
                (("alice", "bob"), _spot(True, 2, 0)),
                (("alice", "carol"), _spot(True, 4, 0)),
                (("bob", "carol"), _spot(True, 4, 0)),
            ],
        )
    for p in ("alice", "bob"):
        for k in range(5):
            _add(d, [((p, f"x{k}"), _spot(False, 2, 1)), ((p, f"y{k}"), _spot(k % 2 == 0, 2, 1 - k % 2))])
    for k in range(200):
        _add(d, [((f"u{k}", f"v{k}"), _spot(k % 3 == 0, 2, k % 3 != 0))])
    return d


def test_checking_down_with_everyone_once_both_are_in_does_not_lower_the_yardstick() -> None:
    alone, crowded = _world(0), _world(1)
    n, k, p = crowded._play(("alice", "bob"))
    assert (n, k) == (7, 7)
    # One more check-down, with Carol in the pot beside the partner: the pair's own rate stays what it
    # is without the partner, so the seventh spot takes the pair over the line...
    assert p < alone._play(("alice", "bob"))[2] and p <= crowded.t.play_p
    # ...which the old yardstick (the checks against Carol counted as play "with others") did not.
    crowded.history[("alice", "bob")][4:] = [0, 0, 0, 0]
    assert crowded._play(("alice", "bob"))[2] > crowded.t.play_p


def test_an_honest_pair_stays_below_the_play_test() -> None:
    d = _world(0)
    for k in range(12):
        _add(d, [(("dan", "eve"), _spot(k % 2 == 0, 2, 1 - k % 2))])
    n, k, p = d._play(("dan", "eve"))
    assert (n, k) == (12, 6) and p > 0.1
