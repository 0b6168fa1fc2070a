"""The second kind of play evidence of `hand.bounty_agreement`: who calls a third player's all-in
while a given other player is still in the hand, against each player's own rate when that player is
not in. A pair whose check-down record alone is below the threshold is flagged once its members
also join all-ins together far more often than they call one alone; players who call every all-in
anyway, partner or not, are left alone with the very same check-down record."""

from __future__ import annotations

from datetime import timedelta

from pipeline.contracts import HandRecord
from pipeline.detectors.hand.bounty_agreement import BountyAgreementDetector
from pipeline.detectors.hand.bounty_state import DEFAULT_THRESHOLDS, EntryBook, entry_decisions
from pipeline.detectors.hand.pairs import PairBook
from pipeline.detectors.hand.stream import HandStream
from pipeline.findings import Finding
from tests.hands.generators import T0
from tests.hands.test_hand_parsing import _decode, _hand

BOUNTIES = {"alice": 1000, "bob": 1000, "carol": 1000}
# Bob shoves the turn; Carol and Alice both call and check the river down (2 chances, no bet).
TOGETHER = {
    "starting_stacks": [200, 50, 200],
    "actions": ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 7h2c", "p3 cc", "p1 cc", "p2 cc",
                "d db 2s3s4d", "p1 cc", "p2 cc", "p3 cc", "d db 9h", "p1 cc", "p2 cbr 48", "p3 cc", "p1 cc",
                "d db Jc", "p1 cc", "p3 cc", "p1 sm AcAd", "p3 sm 7h2c", "p2 sm KcKd"],
    "finishing_stacks": [300, 0, 150], "winnings": [150, 0, 0],
}
# Carol folds first; Bob shoves preflop and Alice, alone against him, folds (or calls).
ALICE_FOLDS = {
    "starting_stacks": [200, 50, 200],
    "actions": ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 7h2c", "p3 f", "p1 cc", "p2 cbr 50", "p1 f"],
    "finishing_stacks": [198, 52, 200], "winnings": [0, 4, 0],
}
ALICE_CALLS = {
    "starting_stacks": [200, 50, 200],
    "actions": ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 7h2c", "p3 f", "p1 cc", "p2 cbr 50", "p1 cc",
                "p1 sm AcAd", "p2 sm KcKd", "d db 2s3s4d", "d db 9h", "d db Jc"],
    "finishing_stacks": [250, 0, 200], "winnings": [100, 0, 0],
}
# Alice folds first; Bob shoves preflop and Carol, alone against him, folds (or calls).
CAROL_FOLDS = {
    "starting_stacks": [200, 50, 200],
    "actions": ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 7h2c", "p3 cc", "p1 f", "p2 cbr 50", "p3 f"],
    "finishing_stacks": [199, 53, 198], "winnings": [0, 5, 0],
}
CAROL_CALLS = {
    "starting_stacks": [200, 50, 200],
    "actions": ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 7h2c", "p3 cc", "p1 f", "p2 cbr 50", "p3 cc",
                "p2 sm KcKd", "p3 sm 7h2c", "d db 2s3s4d", "d db 9h", "d db Jc"],
    "finishing_stacks": [199, 101, 150], "winnings": [0, 101, 0],
}


def _record(shape: dict[str, object], *, tournament: str, k: int) -> HandRecord:
    return _decode(_hand(
        event_id=f"ev-{tournament}-{k}", hand_id=f"{tournament}-h{k}", game="tournament", tournament_id=tournament,
        table_id=f"{tournament}-t1", ts=(T0 + timedelta(hours=int(tournament[1:]), minutes=k)).isoformat(),
        bounties=BOUNTIES, **shape,
    ))


def _series(alone: list[dict[str, object]], tournaments: int = 6) -> tuple[BountyAgreementDetector, list[Finding]]:
    """Each tournament: the players alone against a shove (`alone`), then one checked-down all-in together."""
    detector = BountyAgreementDetector(stream=HandStream(pairs=PairBook()), ttl=timedelta(hours=2))
    findings: list[Finding] = []
    for t in range(tournaments):
        for k, shape in enumerate([*alone, TOGETHER]):
            findings += detector.process(_record(shape, tournament=f"T{t:02d}", k=k))
    return detector, findings


def test_each_player_s_first_decision_after_the_all_in_and_who_else_was_in() -> None:
    def decisions(shape: dict[str, object]) -> list[tuple[int, bool, tuple[int, ...]]]:
        replay = _record(shape, tournament="T00", k=0).replay
        assert replay is not None
        return entry_decisions(replay)

    assert decisions(TOGETHER) == [(2, True, (0,)), (0, True, (2,))]  # Carol calls with Alice in, then Alice
    assert decisions(ALICE_FOLDS) == [(0, False, ())]  # Carol had folded: a decision without her
    assert decisions(CAROL_CALLS) == [(2, True, ())]


def test_pair_that_joins_all_ins_only_together_is_flagged_from_play() -> None:
    _, findings = _series([ALICE_FOLDS, CAROL_FOLDS, ALICE_FOLDS, CAROL_FOLDS])
    assert findings and {f.players for f in findings} == {("alice", "carol")}
    first = findings[0]
    assert first.tournament_id == "T03"  # the fourth cooperative spot: the stated sample size
    stat = first.evidence["statistic"]
    assert stat["level"] == "play"
    # Eight river checks without a bet are not enough alone ...
    assert stat["p_check_down"] > DEFAULT_THRESHOLDS.play_p
    # ... but 8 of 8 calls of the all-in with the partner in, none of 8 alone, are.
    assert stat["all_in_calls"]["decisions"] == 8 and stat["all_in_calls"]["called"] == 8
    assert stat["all_in_calls"]["p_value"] < 1e-3
    assert stat["p_value"] <= DEFAULT_THRESHOLDS.play_p


def test_players_who_call_every_all_in_anyway_are_left_alone() -> None:
    # The same checked-down spots; each also calls every shove when the other is not in.
    detector, findings = _series([ALICE_CALLS, CAROL_CALLS] * 3)
    assert findings == []
    n, k, p = detector._play(("alice", "carol"))
    assert (n, k) == (6, 6) and p > DEFAULT_THRESHOLDS.play_p
    # 12 of 12 calls with the partner in are what these two do alone too (18 of 18 each), so the
    # all-in calls add little (their own rate is shrunk towards everyone's, hence not p ~ 1) and
    # the combination stays above the threshold.
    assert detector.entries.p_value(("alice", "carol"), DEFAULT_THRESHOLDS)[3] > 1e-3
    assert not detector._tested(("alice", "carol"), p, n, k)[0]


def test_entry_tallies_are_bounded_least_recently_used_first() -> None:
    book = EntryBook(cap=2)
    for k, shape in enumerate([TOGETHER, ALICE_FOLDS, CAROL_FOLDS]):
        replay = _record(shape, tournament="T00", k=k).replay
        assert replay is not None
        book.add(["alice", "bob", "carol"], replay)
    assert list(book.pairs) == [("alice", "carol")] and book.population == [4, 2]
    book.add(["dan", "eve", "fay"], _record(TOGETHER, tournament="T01", k=0).replay)  # type: ignore[arg-type]
    assert list(book.players) == ["fay", "dan"]  # alice and carol dropped, oldest first
    assert list(book.pairs) == [("alice", "carol"), ("dan", "fay")]
