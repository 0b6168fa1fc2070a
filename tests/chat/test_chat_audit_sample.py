"""`chat.audit_sample`: a deterministic sample of the chat lines nothing flagged, as audit findings
that propose no sanction and count as no offence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from chat_events import FakeClassifier, msg

from pipeline.categories import AUDIT_SAMPLE
from pipeline.contracts import CHAT
from pipeline.detectors.chat import build_chat_detectors
from pipeline.detectors.chat.audit_sample import AuditRates, AuditSampleDetector, sample_point
from pipeline.findings import Finding
from pipeline.policy import propose_actions
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from pipeline.text_model import TextVerdict


class Graded(FakeClassifier):
    """The fake model, plus texts `nearN...` scoring threat 0.N without being flagged."""

    def _one(self, text: str) -> TextVerdict:
        if text.startswith("near"):
            return TextVerdict(scores={"threat": int(text[4]) / 10, "insult": 0.01}, language="en")
        return super()._one(text)


def _sampled(detector: AuditSampleDetector, texts: Sequence[str]) -> list[Finding]:
    return [f for i, t in enumerate(texts) for f in detector.process(msg(t, at=i, event_id=f"e{i}"))]


def test_uniform_rate_samples_about_that_share_of_unflagged_lines_and_never_a_flagged_one() -> None:
    detector = AuditSampleDetector(Graded(), AuditRates(rate=0.1))
    clean = _sampled(detector, [f"nice hand {i}" for i in range(4000)])
    assert 300 <= len(clean) <= 500  # 10 % of 4,000, binomial spread well inside
    assert {f.category for f in clean} == {AUDIT_SAMPLE} and {f.evidence["sampled"] for f in clean} == {"uniform"}
    assert all(f.evidence["suspected"] == "insult" and f.evidence["messages"][0]["text"].startswith("nice hand")
               for f in clean)
    flagged = _sampled(detector, [f"toxic {i}" for i in range(4000)])
    assert flagged == []


def test_the_sample_is_fixed_by_event_id_so_a_replay_picks_the_same_lines() -> None:
    texts = [f"line {i}" for i in range(2000)]
    first = _sampled(AuditSampleDetector(Graded(), AuditRates(rate=0.05)), texts)
    again = _sampled(AuditSampleDetector(Graded(), AuditRates(rate=0.05)), texts)
    assert [f.finding_id for f in first] == [f.finding_id for f in again] and first
    assert {f.source_event_ids[0] for f in first} == {f"e{i}" for i in range(2000) if sample_point(f"e{i}") < 0.05}


def test_near_rate_takes_only_lines_scoring_at_least_the_near_score() -> None:
    detector = AuditSampleDetector(Graded(), AuditRates(near_rate=1.0, near_score=0.3))
    found = _sampled(detector, ["near2 a", "near3 b", "near4 c", "gl all", "toxic d"])
    assert [f.evidence["messages"][0]["text"] for f in found] == ["near3 b", "near4 c"]
    assert {f.evidence["sampled"] for f in found} == {"near_threshold"}
    assert found[0].evidence["suspected"] == "threat" and found[0].score == 0.3


def test_audit_findings_propose_no_sanction_and_never_feed_the_offence_ladder() -> None:
    rules = replace(RulesConfig(), chat_audit_rate=1.0)
    pipeline = Pipeline({d.name: d for d in build_chat_detectors(rules=rules, classifier=Graded())}, rules=rules)
    # Lines three minutes apart are separate episodes: as offences, three of them reach the ladder.
    findings = [f for i in range(20) for f in pipeline.process(CHAT, msg(f"gl all {i}", at=i * 180, event_id=f"x{i}")).findings]
    assert len(findings) == 20 and {f.category for f in findings} == {AUDIT_SAMPLE}
    assert all(f.actions == () and propose_actions(f, rules=rules) == () for f in findings)
    offences = [f.category for i in range(20)
                for f in pipeline.process(CHAT, msg(f"toxic {i}", at=4000 + i * 180, event_id=f"y{i}")).findings]
    assert "repeat_offender" in offences and AUDIT_SAMPLE not in offences


def test_off_by_default_the_detector_is_not_even_registered() -> None:
    names = {d.name for d in build_chat_detectors(rules=RulesConfig(), classifier=Graded())}
    assert "chat.audit_sample" not in names
    on = {d.name for d in build_chat_detectors(rules=replace(RulesConfig(), chat_audit_near_rate=0.1),
                                               classifier=Graded())}
    assert "chat.audit_sample" in on
    assert "chat.audit_sample" not in {d.name for d in build_chat_detectors(
        rules=replace(RulesConfig(), chat_audit_rate=0.5))}  # no model, no scores to sample by


def test_empty_text_is_never_sampled() -> None:
    detector = AuditSampleDetector(Graded(), AuditRates(rate=1.0))
    assert _sampled(detector, ["   ", "ok"]) and all(f.evidence["messages"][0]["text"] == "ok"
                                                       for f in _sampled(detector, ["   ", "ok"]))
