"""State of the hand detectors stays bounded: pairs, hand ids and tournaments expire or are capped."""

from __future__ import annotations

from datetime import timedelta

from pipeline.contracts import CHAT, ChatMessage
from pipeline.detectors.hand.bounty_agreement import BountyAgreementDetector
from pipeline.detectors.hand.pairs import PairBook
from pipeline.detectors.hand.stream import HandStream
from pipeline.hands.features import PairObs
from tests.hands.generators import T0
from tests.hands.test_hand_parsing import _decode, _hand


def test_pair_book_caps_pairs_and_forgets_idle_ones() -> None:
    book = PairBook(ttl=timedelta(hours=1), max_pairs=5)
    record = _decode(_hand())
    for k in range(12):
        book.add(f"a{k}", f"b{k}", PairObs(0, 1, bet_chances=1), record)
        book.expire(record.ts)
    assert len(book.pairs) == 5 and set(book.by_hero) == {f"a{k}" for k in range(7, 12)}
    later = _decode(_hand(hand_id="h-late", ts=(T0 + timedelta(hours=3)).isoformat()))
    book.add("x", "y", PairObs(0, 1), later)
    book.expire(later.ts)
    assert list(book.pairs) == [("x", "y")] and set(book.players) == {"x"}


def test_bounty_detector_forgets_finished_tournaments() -> None:
    detector = BountyAgreementDetector(stream=HandStream(pairs=PairBook()), ttl=timedelta(hours=2))
    for k in range(10):
        msg = ChatMessage(event_id=f"m{k}", ts=T0 + timedelta(hours=k), channel="tournament", player_id="p1",
                          nickname="p1", text="gl", client="desktop", tournament_id=f"T{k}")
        assert CHAT in detector.topics
        detector.process(msg)
    assert set(detector.tournaments) <= {"T7", "T8", "T9"}
