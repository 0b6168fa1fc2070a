"""Coordinated false reporting: linked accounts filing most reports against one player."""

from __future__ import annotations

from pipeline.detectors.chat.reporting import CoordinatedReportingDetector, binom_sf, hypergeom_sf
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


def test_honest_reporters_who_reported_one_other_common_player_are_not_linked() -> None:
    detector = CoordinatedReportingDetector()
    _run(detector, _background())
    # Three players all reported the same notorious player last week, and now a second one.
    history = [report(p, "notorious", at=300_000 + i * 3000) for i, p in enumerate(("a", "b", "c"))]
    now = [report(p, "second", at=450_000 + i * 4000) for i, p in enumerate(("a", "b", "c"))]
    assert _run(detector, [*history, *now]) == []


def test_the_finding_is_emitted_once_per_group() -> None:
    detector = CoordinatedReportingDetector()
    _run(detector, _background())
    out = _run(detector, _ring_attack(["w1", "w2", "w3", "w4", "w5"], start=400_000))
    assert len({(f.evidence["victims"][0], f.players) for f in out}) == len(out)
