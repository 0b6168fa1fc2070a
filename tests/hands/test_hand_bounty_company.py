"""hand.bounty_agreement: a colluder plays passively whenever his partner is dealt in, so an honest
player who shares those hands with him looks like a partner too. A pair whose third player was dealt
in at every one of its spots, and who forms a flagged or a stronger pair with one of the two, is held
back; the real pair is not, and a spot without that third player clears him."""

from __future__ import annotations

from collections import OrderedDict

from pipeline.detectors.hand.bounty_agreement import BountyAgreementDetector
from pipeline.detectors.hand.bounty_state import BountyThresholds, PairSpots, TournamentState, narrow
from pipeline.detectors.hand.pairs import PairBook
from pipeline.detectors.hand.stream import HandStream
from tests.hands.generators import T0
from tests.hands.test_hand_bounty_baseline import _add, _spot

TABLE = ["alice", "bob", "carol", "dan"]


def _world(carol_spots: int, carol_alone: int = 0) -> BountyAgreementDetector:
    """Alice and Bob check down 8 spots (4 chances each, no bet); Alice and Carol check down
    `carol_spots` in hands Bob was dealt in (and folded), `carol_alone` more at a table without Bob;
    each bets 5 of 10 chances against others; 200 honest spots elsewhere."""
    # No tournament count here: the tallies are set by hand, without tournament logs.
    d = BountyAgreementDetector(
        stream=HandStream(pairs=PairBook()), thresholds=BountyThresholds(min_tournaments=0)
    )
    for _ in range(8):
        _add(d, [(("alice", "bob"), _spot(True, 4, 0))])
        narrow(d.company, ("alice", "bob"), TABLE, d.max_pairs)
    for k in range(carol_spots + carol_alone):
        _add(d, [(("alice", "carol"), _spot(True, 4, 0))])
        narrow(
            d.company,
            ("alice", "carol"),
            TABLE if k < carol_spots else ["alice", "carol", "erin"],
            d.max_pairs,
        )
    for p in ("alice", "bob", "carol"):
        for k in range(5):
            _add(d, [((p, f"x{k}"), _spot(False, 2, 2)), ((p, f"y{k}"), _spot(k % 2 == 0, 2, 1 - k % 2))])
    for k in range(200):
        _add(d, [((f"u{k}", f"v{k}"), _spot(k % 3 == 0, 2, k % 3 != 0))])
    return d


def _verdict(d: BountyAgreementDetector, pair: tuple[str, str]) -> bool:
    state = TournamentState(last_ts=T0)
    state.pairs[pair] = PairSpots(spots=1, cooperative=1)
    return d._finding_for("T1", state, pair, T0) is not None


def test_narrow_keeps_who_was_dealt_in_at_every_spot_bounded() -> None:
    table: OrderedDict[tuple[str, str], frozenset[str]] = OrderedDict()
    narrow(table, ("a", "b"), ["a", "b", "c", "d"], cap=2)
    narrow(table, ("a", "b"), ["b", "a", "c", "e"], cap=2)
    assert table[("a", "b")] == frozenset({"c"})
    narrow(table, ("x", "y"), ["x", "y"], cap=2)
    narrow(table, ("a", "b"), ["a", "b", "c"], cap=2)  # used last: the oldest is ("x", "y")
    narrow(table, ("p", "q"), ["p", "q"], cap=2)
    assert list(table) == [("a", "b"), ("p", "q")]


def test_an_honest_player_beside_a_colluder_and_his_partner_is_held_back() -> None:
    d = _world(carol_spots=5)
    n, k, p = d._play(("alice", "carol"))
    assert (n, k) == (5, 5) and d._tested(("alice", "carol"), p, n, k)[0]  # alone, it would be flagged
    assert not _verdict(d, ("alice", "carol"))  # Bob was dealt in at all five, and Alice-Bob is stronger
    assert _verdict(d, ("alice", "bob"))  # the real pair is not held back by the weaker one
    assert ("alice", "bob") in d.established and ("alice", "carol") not in d.established


def test_a_spot_without_the_partner_dealt_in_clears_him() -> None:
    d = _world(carol_spots=5, carol_alone=1)
    assert d.company[("alice", "carol")] == frozenset()
    assert _verdict(d, ("alice", "carol"))
