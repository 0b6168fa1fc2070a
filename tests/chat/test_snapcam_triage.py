"""SnapCam triage: distinct credible reporters and transcript content raise a case's priority."""

from __future__ import annotations

from pipeline.detectors.chat.credibility import ReporterCredibility, ReportHistory
from pipeline.detectors.chat.snapcam import SnapCamTriageDetector
from tests.chat.chat_events import FakeClassifier, report


def _run(detector, events):
    return [f for e in events for f in detector.process(e)]


def test_one_neutral_report_is_not_a_case_two_distinct_reporters_are() -> None:
    detector = SnapCamTriageDetector()
    assert detector.process(report("a", "x", at=0)) == ()
    assert detector.process(report("a", "x", at=60, report_id="again")) == ()  # same reporter twice
    (finding,) = detector.process(report("b", "x", at=120))
    assert finding.category == "snapcam_abuse" and finding.rule == "snapcam" and finding.players == ("x",)
    assert finding.evidence["statistic"]["distinct_reporters"] == 2
    assert len(finding.evidence["reports"]) == 3


def test_more_reporters_raise_priority_and_update_the_case() -> None:
    out = _run(SnapCamTriageDetector(), [report(f"r{i}", "x", at=i * 60) for i in range(5)])
    assert [f.evidence["statistic"]["distinct_reporters"] for f in out] == [2, 3, 4, 5]
    assert [f.score for f in out] == sorted(f.score for f in out) and out[0].score < out[-1].score
    assert len({f.finding_id for f in out}) == 4


def test_credibility_weighs_reporters() -> None:
    trusted = ReporterCredibility({"good": ReportHistory(confirmed=20, dismissed=0)})
    (finding,) = SnapCamTriageDetector(credibility=trusted).process(report("good", "x"))
    assert finding.score > 0.5
    doubted = ReporterCredibility({"r0": ReportHistory(dismissed=30), "r1": ReportHistory(dismissed=30)})
    assert _run(SnapCamTriageDetector(credibility=doubted), [report("r0", "x"), report("r1", "x", at=5)]) == []
    assert ReporterCredibility().of("nobody") == 0.5


def test_offensive_transcript_makes_a_single_report_a_case_with_spans() -> None:
    text = "you are all idiots, kys"
    (finding,) = SnapCamTriageDetector().process(report("a", "x", transcript=text))
    (message,) = finding.evidence["messages"]
    assert message["channel"] == "snapcam_transcript" and message["player_id"] == "x"
    assert [text[s["start"] : s["end"]] for s in message["spans"]] == ["kys"]
    assert SnapCamTriageDetector().process(report("a", "y", transcript="hello everyone, gl")) == ()


def test_classifier_reads_transcripts() -> None:
    rep = report("a", "x", transcript="something threatening")
    assert SnapCamTriageDetector().process(rep) == ()
    (finding,) = SnapCamTriageDetector(classifier=FakeClassifier()).process(rep)
    assert finding.score >= 0.8


def test_hand_influence_reports_become_hand_in_play() -> None:
    events = [report(f"r{i}", "x", at=i * 30, reason="hand_influence") for i in range(3)]
    out = _run(SnapCamTriageDetector(), events)
    assert out and all(f.category == "hand_in_play" for f in out)


def test_reports_expire_with_the_window() -> None:
    events = [report("a", "x", at=0), report("b", "x", at=2 * 86_400)]
    assert _run(SnapCamTriageDetector(), events) == []


def test_reports_that_name_no_table_weigh_less() -> None:
    unplaced = [report(f"r{i}", "x", at=i * 20, table_id=None) for i in range(3)]
    assert _run(SnapCamTriageDetector(), unplaced) == []
    placed = [report(f"r{i}", "x", at=i * 20) for i in range(2)]
    assert len(_run(SnapCamTriageDetector(), placed)) == 1


def test_a_comment_pasted_by_several_accounts_is_one_witness() -> None:
    pasted = [report(r, "x", at=i * 30, comment="Bad cam, remove!") for i, r in enumerate("abc")]
    assert _run(SnapCamTriageDetector(), pasted) == []
    own_words = [report(r, "x", at=i * 30, comment=c)
                 for i, (r, c) in enumerate(zip("abc", ["bad cam, remove", "weird stuff on camera", "not ok"], strict=True))]
    assert _run(SnapCamTriageDetector(), own_words)
    # With a transcript the clip speaks for itself: alike wording by witnesses still counts.
    seen = [report(r, "x", at=i * 30, comment="bad cam, remove", transcript="hello") for i, r in enumerate("abc")]
    assert _run(SnapCamTriageDetector(), seen)
