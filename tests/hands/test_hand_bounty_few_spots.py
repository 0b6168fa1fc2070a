"""The smaller sample of `hand.bounty_agreement` from play alone: three bounty spots, all of them
cooperative, flag a pair only when the combined p-value reaches the stricter bound and the all-in
calls alone point the same way (a pair that joins all-ins only together); the same three
check-downs from players who call all-ins anyway are left alone."""

from __future__ import annotations

from datetime import timedelta

from pipeline.detectors.hand.bounty_agreement import BountyAgreementDetector
from pipeline.detectors.hand.bounty_state import DEFAULT_THRESHOLDS, play_verdict
from pipeline.detectors.hand.pairs import PairBook
from pipeline.detectors.hand.stream import HandStream
from pipeline.findings import Finding
from tests.hands.test_hand_bounty_entries import ALICE_CALLS, ALICE_FOLDS, CAROL_CALLS, CAROL_FOLDS, _record
from tests.hands.test_hand_bounty_spots import BLIND_ALL_IN

T = DEFAULT_THRESHOLDS


def _series(
    alone: list[dict[str, object]], tournaments: int = 3
) -> tuple[BountyAgreementDetector, list[Finding]]:
    """Each tournament: the two alone against shoves (`alone`), then Bob put all-in by his blind and
    Alice and Carol checking it down together (6 chances to bet into each other, none taken)."""
    detector = BountyAgreementDetector(stream=HandStream(pairs=PairBook()), ttl=timedelta(hours=2))
    findings: list[Finding] = []
    for t in range(tournaments):
        for k, shape in enumerate([*alone, BLIND_ALL_IN]):
            findings += detector.process(_record(shape, tournament=f"T{t:02d}", k=k))
    return detector, findings


def test_three_cooperative_spots_of_a_pair_that_joins_all_ins_only_together_are_flagged() -> None:
    _, findings = _series([ALICE_FOLDS, CAROL_FOLDS])
    assert findings and {f.players for f in findings} == {("alice", "carol")}
    first = findings[0]
    assert first.tournament_id == "T02"  # the third cooperative spot
    stat = first.evidence["statistic"]
    assert stat["level"] == "play" and (stat["all_spots"], stat["all_cooperative"]) == (3, 3)
    assert stat["p_value"] <= T.few_spots_p < T.play_p
    assert stat["all_in_calls"]["called"] == 6 and stat["all_in_calls"]["p_value"] <= T.few_spots_calls_p
    assert [e["tournament_id"] for e in first.evidence["tournaments"]] == ["T00", "T01", "T02"]


def test_three_check_downs_of_players_who_call_all_ins_anyway_are_not_flagged() -> None:
    detector, findings = _series([ALICE_CALLS, CAROL_CALLS] * 3)
    assert findings == []
    n, k, p_check = detector._play(("alice", "carol"))
    assert (n, k) == (3, 3)
    # The same 18 chances without a bet; the all-in calls with the partner in (6 of 6) are what each
    # does alone too (9 of 9), so they do not count as a second kind of evidence.
    assert detector.entries.p_value(("alice", "carol"), T)[3] > T.few_spots_calls_p
    assert not detector._tested(("alice", "carol"), p_check, n, k)[0]


def test_the_smaller_sample_needs_both_kinds_of_evidence_and_every_spot_cooperative() -> None:
    strong, weak = 1e-7, 0.3
    assert play_verdict(T, (3, 3, False), strong, strong)[0]
    assert not play_verdict(T, (3, 3, False), strong, weak)[0]  # the check-down alone: not at 3 spots
    assert play_verdict(T, (4, 4, False), strong, weak)[0]  # ... but at the stated sample it is
    assert not play_verdict(T, (3, 2, False), strong, strong)[0]  # one contested spot of three
    assert not play_verdict(T, (2, 2, False), strong, strong)[0]
    # At 3 of 3 the combined p must reach the stricter bound: 2 x Fisher(1e-3, 1e-3) ~ 3e-5 does,
    # 2 x Fisher(5e-3, 5e-3) ~ 1.1e-3 does not (it would at the stated sample only just miss too).
    assert play_verdict(T, (3, 3, False), 1e-3, 1e-3)[0]
    assert not play_verdict(T, (3, 3, False), 5e-3, 5e-3)[0]


def test_a_pair_is_first_flagged_only_after_cooperating_in_a_second_tournament() -> None:
    """Spots of one tournament share a table, stacks and opponents: five check-downs in one
    tournament do not claim an agreement; one more in the next tournament does, and the case names
    both tournaments."""
    detector = BountyAgreementDetector(stream=HandStream(pairs=PairBook()), ttl=timedelta(hours=2))
    findings: list[Finding] = []
    shapes = [ALICE_FOLDS, CAROL_FOLDS, *[BLIND_ALL_IN] * 5]
    for k, shape in enumerate(shapes):
        findings += detector.process(_record(shape, tournament="T00", k=k))
    n, k, p_check = detector._play(("alice", "carol"))
    assert (n, k) == (5, 5) and findings == []
    assert play_verdict(T, (n, k, False), p_check, detector.entries.p_value(("alice", "carol"), T)[3])[0]
    findings += detector.process(_record(BLIND_ALL_IN, tournament="T01", k=0))
    assert [f.players for f in findings] == [("alice", "carol")]
    assert [e["tournament_id"] for e in findings[0].evidence["tournaments"]] == ["T00", "T01"]
