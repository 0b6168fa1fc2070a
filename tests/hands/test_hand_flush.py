"""End of input: the hand detectors hold nothing back. `Pipeline.flush()` emits what detectors keep
in reorder buffers (chat and seat detectors); every hand detector reports as each hand arrives, so a
replay or an evaluation run that ends without a flush loses none of their findings."""

from __future__ import annotations

from pipeline.detectors.hand import build_hand_detectors
from pipeline.runner import Pipeline
from tests.hands.scenarios import bounty_scenario
from tests.hands.test_hand_detectors import RULES


def test_flush_after_bounty_hands_and_chat_emits_nothing_more() -> None:
    detectors = build_hand_detectors(rules=RULES)
    pipeline = Pipeline({d.name: d for d in detectors}, rules=RULES)
    events = bounty_scenario(pairs=3, tournaments_per_pair=6, clean=4, seed=7).events
    found = [f for topic, event in events for f in pipeline.process(topic, event).findings]
    assert {f.category for f in found} >= {"bounty_agreement"}  # the stream did hold findings
    assert not any(callable(getattr(d, "flush", None)) for d in detectors)
    assert pipeline.flush().findings == () and pipeline.flush().errors == ()
