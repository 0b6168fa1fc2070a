"""Bounty spots from play alone: which hands count (an all-in by the blind does, a fold to the all-in
does not), the chances to bet into the partner, and the retroactive report over a pair's earlier
bounty tournaments once the pattern is established."""

from __future__ import annotations

from datetime import timedelta

from pipeline.contracts import HandRecord
from pipeline.detectors.hand.bounty_agreement import MAX_PAIR_TOURNAMENTS, BountyAgreementDetector
from pipeline.detectors.hand.pairs import PairBook
from pipeline.detectors.hand.stream import HandStream
from pipeline.hands.features import HandFeatures, hand_features
from tests.hands.generators import T0
from tests.hands.test_hand_parsing import _decode, _hand

BOUNTIES = {"alice": 1000, "bob": 1000, "carol": 1000}
# Bob is put all-in by his big blind; Alice and Carol call and check it down on every street.
BLIND_ALL_IN = {
    "starting_stacks": [200, 2, 200],
    "actions": ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 7h2c", "p3 cc", "p1 cc",
                "d db 2s3s4d", "p1 cc", "p3 cc", "d db 9h", "p1 cc", "p3 cc", "d db Jc", "p1 cc", "p3 cc",
                "p1 sm AcAd", "p3 sm 7h2c", "p2 sm KcKd"],
    "finishing_stacks": [204, 0, 198], "winnings": [6, 0, 0],
}
# The same, but Alice bets into Carol on the flop and Carol calls: no agreement there.
BLIND_ALL_IN_CONTESTED = {
    **BLIND_ALL_IN,
    "actions": ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 7h2c", "p3 cc", "p1 cc",
                "d db 2s3s4d", "p1 cbr 10", "p3 cc", "d db 9h", "p1 cc", "p3 cc", "d db Jc", "p1 cc", "p3 cc",
                "p1 sm AcAd", "p3 sm 7h2c", "p2 sm KcKd"],
    "finishing_stacks": [214, 0, 188], "winnings": [26, 0, 0],
}
# Bob shoves; Carol folds to him, Alice calls: Carol and Alice never faced each other.
FOLD_TO_SHOVE = {
    "actions": ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 7h2c", "p3 cc", "p1 cc", "p2 cbr 200", "p3 f", "p1 cc",
                "p1 sm AcAd", "p2 sm KcKd", "d db 2s3s4d", "d db 9h", "d db Jc"],
    "finishing_stacks": [402, 0, 198], "winnings": [402, 0, 0],
}


def _record(shape: dict[str, object], *, tournament: str, k: int) -> HandRecord:
    return _decode(_hand(
        event_id=f"ev-{tournament}-{k}", hand_id=f"{tournament}-h{k}", game="tournament", tournament_id=tournament,
        table_id=f"{tournament}-t1", ts=(T0 + timedelta(hours=len(tournament) + k)).isoformat(), bounties=BOUNTIES,
        **shape,
    ))


def _features(record: HandRecord) -> HandFeatures:
    assert record.replay is not None
    return hand_features(record.replay, seed=record.hand_id, starting_stacks=record.starting_stacks, bounty_won={})


def test_all_in_by_the_blind_is_a_spot_and_each_check_is_a_chance() -> None:
    spots = _features(_record(BLIND_ALL_IN, tournament="T1", k=0)).spots
    assert [(s.pair, s.target, s.cooperative, s.chances, s.bets) for s in spots] == [((0, 2), 1, True, 6, 0)]
    contested = _features(_record(BLIND_ALL_IN_CONTESTED, tournament="T1", k=1)).spots
    assert [(s.cooperative, s.chances, s.bets) for s in contested] == [(False, 5, 1)]  # a call is no chance to bet


def test_a_fold_to_the_all_in_is_no_pair_spot() -> None:
    assert _features(_record(FOLD_TO_SHOVE, tournament="T1", k=0)).spots == []


def _series(count: int, *, contested_first: bool = False) -> tuple[BountyAgreementDetector, list]:
    detector = BountyAgreementDetector(stream=HandStream(pairs=PairBook()), ttl=timedelta(hours=2))
    findings = []
    for t in range(count):
        shape = BLIND_ALL_IN_CONTESTED if contested_first and t == 0 else BLIND_ALL_IN
        findings += detector.process(_record(shape, tournament=f"T{t:02d}", k=t))
    return detector, findings


def test_play_finding_names_every_earlier_tournament_the_pair_cooperated_in() -> None:
    detector, findings = _series(6, contested_first=True)
    assert [f.tournament_id for f in findings] == ["T04", "T05"]  # 4 cooperative spots are needed
    first = findings[0]
    assert first.players == ("alice", "carol") and first.evidence["statistic"]["level"] == "play"
    listed = [t["tournament_id"] for t in first.evidence["tournaments"]]
    assert listed == ["T01", "T02", "T03", "T04"]  # T00, where Alice bet into Carol, is not part of it
    assert set(first.evidence["hand_ids"]) == {"T01-h1", "T02-h2", "T03-h3", "T04-h4"}
    assert first.window_start is not None and first.window_start < first.ts - timedelta(hours=2)
    assert [t["tournament_id"] for t in findings[1].evidence["tournaments"]][-1] == "T05"
    assert "T00" not in detector.logs[("alice", "carol")]  # logged from the first cooperative spot on


def test_pair_tournament_log_is_capped() -> None:
    detector, findings = _series(MAX_PAIR_TOURNAMENTS + 6)
    assert len(detector.logs[("alice", "carol")]) == MAX_PAIR_TOURNAMENTS
    assert max(len(f.evidence["tournaments"]) for f in findings) == MAX_PAIR_TOURNAMENTS
    assert len(detector.tournaments) <= 3  # the tournaments' own state still expires with the TTL


def test_logged_pairs_are_capped_least_recently_active_first() -> None:
    detector = BountyAgreementDetector(stream=HandStream(pairs=PairBook()), max_tournaments=1)
    assert detector.max_logged_pairs == 4
    names = [("alice", "bob", "carol"), ("dan", "eve", "fay"), ("gus", "hal", "ivy"), ("jo", "kim", "lea"),
             ("max", "ned", "ola")]
    for k, trio in enumerate(names):
        value = _hand(event_id=f"ev{k}", hand_id=f"h{k}", game="tournament", tournament_id=f"T{k}",
                      table_id=f"T{k}-t1", ts=(T0 + timedelta(minutes=k)).isoformat(), players=list(trio),
                      bounties=dict.fromkeys(trio, 1000), **BLIND_ALL_IN)
        detector.process(_decode(value))
    assert list(detector.logs) == [("dan", "fay"), ("gus", "ivy"), ("jo", "lea"), ("max", "ola")]


def _sequence(shapes: list[dict[str, object]]) -> list[list[str | None]]:
    detector = BountyAgreementDetector(stream=HandStream(pairs=PairBook()), ttl=timedelta(hours=2))
    return [[f.tournament_id for f in detector.process(_record(shape, tournament=f"T{t:02d}", k=t))]
            for t, shape in enumerate(shapes)]


def test_flagged_pair_stays_in_its_series_below_the_cooperative_share_gate() -> None:
    coop, contested = BLIND_ALL_IN, BLIND_ALL_IN_CONTESTED
    # Flagged at T02 (3 of 3: 18 chances without a bet and 6 of 6 all-in calls together, the smaller
    # sample's bounds), T03 joins; two contested spots take the share to 4 of 6; the next cooperative
    # tournament (5 of 7, below the 80 % gate) still joins the series.
    assert _sequence([coop] * 4 + [contested, contested, coop]) == [[], [], ["T02"], ["T03"], [], [], ["T06"]]
    # The same counts for a pair never flagged (contested first): 5 of 7 is below the gate.
    assert _sequence([contested, contested] + [coop] * 5) == [[]] * 7
