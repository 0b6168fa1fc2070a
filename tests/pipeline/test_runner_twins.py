"""The runner proposes actions once for a shadow finding and its live twin (pipeline/runner.py):
policy never reads the shadow mark, so the twin's actions are the ones policy would give it; a
twin under other rules, or with other evidence, is proposed for on its own."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

import pipeline.runner as runner
from models.chat import load_classifier
from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.detectors.chat.evidence import make_finding
from pipeline.findings import Finding
from pipeline.policy import propose_actions
from pipeline.registry import build_detectors
from pipeline.rules import RULES_PRESETS, RulesConfig
from pipeline.runner import Pipeline
from simulator import demo_traffic

LIVE = RULES_PRESETS["id-vi-2022-09-28"]
CANDIDATE = RULES_PRESETS["uk-2022-09-28"]
T0 = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def test_policy_never_reads_the_shadow_mark() -> None:
    pipeline = Pipeline(build_detectors(rules=LIVE, classifier=load_classifier(),
                                        chat_lateness=timedelta(seconds=30)), rules=LIVE)
    found = [*pipeline.process_all(demo_traffic(seed=4, minutes=10, players=60)), *pipeline.flush().findings]
    bare = [f.with_actions(()) for f in found]
    assert len({f.category for f in bare}) >= 8  # chat, seat, SnapCam and hand categories
    assert sum(1 for f in found if f.actions) >= 20
    for rules in (LIVE, CANDIDATE):
        for f in bare:
            marked = f.model_copy(update={"shadow": True})
            assert propose_actions(marked, rules=rules) == propose_actions(f, rules=rules)


class _Fixed:
    """A chat detector that finds one insult per message, with the evidence and mark it is given."""

    topics = frozenset({CHAT})

    def __init__(self, name: str, *, shadow: bool, prior: int = 0, rules: RulesConfig | None = None) -> None:
        self.name = name
        self._shadow = shadow
        self._prior = prior
        self._rules = rules

    @property
    def policy_rules(self) -> RulesConfig:
        return self._rules or LIVE

    def key(self, event: Event) -> str:
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        assert isinstance(event, ChatMessage)
        finding = make_finding(
            detector="chat.classifier", category="insult", score=0.999, players=(event.player_id,), ts=event.ts,
            summary="insult", id_parts=(event.event_id,), source_event_ids=(event.event_id,),
            evidence={"prior_offences": self._prior, "prior_same_category": self._prior},
            table_id=event.table_id,
        )
        return (finding.model_copy(update={"shadow": True}) if self._shadow else finding,)


def _message(i: int) -> ChatMessage:
    return ChatMessage(event_id=f"m{i}", ts=T0 + timedelta(seconds=i), player_id="p1", nickname="nick",
                       table_id="t1", channel="table", text="you idiot", client="mobile")


def _run(shadow: _Fixed, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Finding], int]:
    calls = 0

    def counting(finding: Finding, *, rules: RulesConfig) -> tuple[object, ...]:
        nonlocal calls
        calls += 1
        return propose_actions(finding, rules=rules)

    monkeypatch.setattr(runner, "propose_actions", counting)
    pipeline = Pipeline({shadow.name: shadow, "chat.classifier": _Fixed("chat.classifier", shadow=False)},
                        rules=LIVE)
    out = [f for i in range(3) for f in pipeline.process(CHAT, _message(i)).findings]
    return out, calls


def test_a_live_twin_takes_the_shadow_findings_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    out, calls = _run(_Fixed("shadow:chat.classifier", shadow=True, rules=LIVE), monkeypatch)
    assert calls == 3  # once per message, for both copies
    shadows, lives = [f for f in out if f.shadow], [f for f in out if not f.shadow]
    assert len(shadows) == len(lives) == 3
    for s, v in zip(shadows, lives, strict=True):
        assert v.actions == s.actions == propose_actions(v.with_actions(()), rules=LIVE)
        assert v.actions and v.actions[0].disposition == "automatic"  # a first high-scoring insult: muted


@pytest.mark.parametrize(
    "shadow",
    [
        _Fixed("shadow:chat.classifier", shadow=True, rules=CANDIDATE),  # other rules
        _Fixed("shadow:chat.classifier", shadow=True, prior=2, rules=LIVE),  # other evidence
    ],
    ids=["other rules", "other evidence"],
)
def test_a_twin_that_differs_is_proposed_for_on_its_own(shadow: _Fixed, monkeypatch: pytest.MonkeyPatch) -> None:
    out, calls = _run(shadow, monkeypatch)
    assert calls == 6
    for f in out:
        assert f.actions == propose_actions(f.with_actions(()), rules=shadow.policy_rules if f.shadow else LIVE)
    live = next(f for f in out if not f.shadow)
    assert live.actions[0].disposition == "automatic"
