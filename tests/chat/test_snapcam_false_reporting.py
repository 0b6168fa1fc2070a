"""Coordinated false reporting: linked accounts filing most reports against one player."""

from __future__ import annotations

import random
from datetime import timedelta
from itertools import combinations

from pipeline.detectors.chat.reporting import (
    CoordinatedReportingDetector,
    _crowd_pairs,
    binom_sf,
    hypergeom_sf,
)
from tests.chat.chat_events import report

RING = ("s1", "s2", "s3")


def _run(detector, events):
    return [f for e in events for f in detector.process(e)]


def _background(n_targets: int = 40):
    """Honest reporters each reporting a few different players, spread over days."""
    events = []
    for i in range(n_targets * 3):
        events.append(report(f"h{i}", f"v{(i * 7) % n_targets}", at=3600.0 * (i % 96) + i))
    return events


def _ring_attack(targets: list[str], start: float):
    events = []
    for k, target in enumerate(targets):
        for j, member in enumerate(RING):
            events.append(report(member, target, at=start + k * 20_000 + j * 15, table_id=f"t{k}"))
    return events


def test_statistics() -> None:
    assert hypergeom_sf(0, 100, 5, 5) == 1.0
    assert 0 < hypergeom_sf(3, 100, 5, 5) < hypergeom_sf(1, 100, 5, 5) < 1
    assert hypergeom_sf(6, 100, 5, 5) == 0.0
    assert binom_sf(0, 5, 0.1) == 1.0
    assert abs(binom_sf(1, 1, 0.25) - 0.25) < 1e-12


def test_crowd_pair_counts_equal_the_pairwise_definition() -> None:
    """The sweep counts exactly what comparing every pair of different reporters counts."""
    rng = random.Random(5)
    gap = timedelta(minutes=10)
    for _ in range(200):
        n = rng.randint(0, 40)
        reports = [report(f"r{rng.randint(0, 6)}", "v", at=float(rng.randrange(0, 6000, 60))) for _ in range(n)]
        pairs = [(x, y) for x, y in combinations(reports, 2) if x.reporter_id != y.reporter_id]
        expected = (sum(abs(x.ts - y.ts) <= gap for x, y in pairs), len(pairs))
        assert _crowd_pairs(reports, gap) == expected


def test_a_ring_reporting_several_targets_together_is_flagged() -> None:
    detector = CoordinatedReportingDetector()
    _run(detector, _background())
    out = _run(detector, _ring_attack(["w1", "w2", "w3", "w4"], start=400_000))
    assert out, "ring not detected"
    finding = out[-1]
    assert finding.category == "false_reporting" and finding.family == "snapcam"
    assert set(finding.players) == set(RING)
    assert finding.evidence["victims"][0].startswith("w")
    assert finding.evidence["statistic"]["p_value"] < 0.01


def test_honest_crowd_reporting_one_real_incident_is_not_flagged() -> None:
    detector = CoordinatedReportingDetector()
    _run(detector, _background())
    crowd = [report(f"c{i}", "abuser", at=500_000 + i * 20) for i in range(8)]
    assert _run(detector, crowd) == []


def test_honest_reporters_of_a_notorious_player_are_not_linked() -> None:
    detector = CoordinatedReportingDetector()
    _run(detector, _background())
    # Many players reported a notorious player this week (a, b, c among them); now a, b, c report
    # a second one: sharing a target that everybody reports is no evidence of a link.
    crowd = [report(f"n{i}", "notorious", at=250_000 + i * 900) for i in range(40)]
    history = [report(p, "notorious", at=300_000 + i * 3000) for i, p in enumerate(("a", "b", "c"))]
    now = [report(p, "second", at=450_000 + i * 4000) for i, p in enumerate(("a", "b", "c"))]
    assert _run(detector, [*crowd, *history, *now]) == []


def test_a_small_ring_is_flagged_on_its_second_victim() -> None:
    detector = CoordinatedReportingDetector()
    _run(detector, _background())
    ring = ("s1", "s2", "s3")
    first = [report(m, "victim1", at=300_000 + j * 20) for j, m in enumerate(ring)]
    assert _run(detector, first) == []  # one attack looks like any incident
    second = [report(m, "victim2", at=302_000 + j * 20) for j, m in enumerate(ring)]
    (finding,) = _run(detector, second)
    assert set(finding.players) == set(ring) and finding.evidence["victims"] == ["victim2"]
    assert finding.evidence["statistic"]["group_also_reported"] == "victim1"


def test_the_finding_is_emitted_once_per_group() -> None:
    detector = CoordinatedReportingDetector()
    _run(detector, _background())
    out = _run(detector, _ring_attack(["w1", "w2", "w3", "w4", "w5"], start=400_000))
    assert len({(f.evidence["victims"][0], f.players) for f in out}) == len(out)


def test_a_first_attack_pasting_one_comment_is_flagged() -> None:
    detector = CoordinatedReportingDetector()
    _run(detector, _background())
    ring = ("s1", "s2", "s3")
    attack = [report(m, "victim", at=300_000 + j * 20, comment="Offensive cam, ban him!", table_id=None)
              for j, m in enumerate(ring)]
    (finding,) = _run(detector, attack)
    assert set(finding.players) == set(ring)
    assert finding.evidence["statistic"]["copied_comment"] == "offensive cam ban him"
    assert finding.evidence["statistic"]["p_value"] < 0.01


def test_witnesses_wording_a_real_incident_alike_are_not_flagged() -> None:
    detector = CoordinatedReportingDetector()
    _run(detector, _background())
    # Same words, but the clips carry a transcript: the broadcast itself is there to be judged.
    crowd = [report(f"w{i}", "flasher", at=300_000 + i * 30, comment="he showed his genitals on cam",
                    transcript="come here baby") for i in range(4)]
    assert _run(detector, crowd) == []
    # A stock phrase many honest reporters use about many players is no sign of a ring.
    stock = [report(f"h{i}", f"x{i % 30}", at=200_000 + i * 600, comment="bad cam") for i in range(60)]
    same = [report(f"q{i}", "someone", at=300_000 + i * 30, comment="bad cam") for i in range(3)]
    assert _run(detector, [*stock, *same]) == []


def test_a_pasted_first_attack_is_seen_in_a_quiet_window_too() -> None:
    attack = [report(m, "victim", at=100 + j * 20, comment="he is cheating on cam", table_id=None)
              for j, m in enumerate(("s1", "s2", "s3"))]
    (finding,) = _run(CoordinatedReportingDetector(), attack)
    assert finding.evidence["statistic"]["p_value"] < 0.01
    # Two accounts pasting one text is not yet a ring (min_reporters is 3).
    assert _run(CoordinatedReportingDetector(), attack[:2]) == []


def test_two_pasted_waves_against_one_player_are_two_groups() -> None:
    detector = CoordinatedReportingDetector()
    _run(detector, _background())
    first = [report(m, "victim", at=300_000 + j * 20, comment="bad cam, remove", table_id=None)
             for j, m in enumerate(("a1", "a2", "a3"))]
    second = [report(m, "victim", at=301_500 + j * 20, comment="bad cam, remove", table_id=None)
              for j, m in enumerate(("b1", "b2", "b3"))]
    found = _run(detector, first)
    assert found and set(found[-1].players) == {"a1", "a2", "a3"}
    later = _run(detector, second)
    assert later and set(later[-1].players) == {"b1", "b2", "b3"}
