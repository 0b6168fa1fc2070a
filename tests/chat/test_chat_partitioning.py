"""N partitions find what one process finds: state keys are honest (emulates consumers/ routing).

Stateless detectors (key == event id) run inline; every other detector runs in the partition its
key hashes to, with one `build_chat_detectors` call per partition, as the keyed stage does.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from pipeline.contracts import CHAT, SNAPCAM
from pipeline.detectors.chat import build_chat_detectors
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from tests.chat.chat_events import FakeClassifier, msg, report

RULES = RulesConfig()
LINES = ["nh", "gg", "idiot", "toxic stuff", "he has aces, fold", "YOU ARE SO BAD AT THIS", "spam spam",
         "😂😂😂", "ship it", "meanish remark", "call!", "kys"]


def _build() -> dict[str, Pipeline]:
    return {d.name: Pipeline({d.name: d}, rules=RULES) for d in build_chat_detectors(rules=RULES, classifier=FakeClassifier())}


def _stream(seed: int = 3):
    rng = random.Random(seed)
    events = []
    for i in range(600):
        player = f"p{rng.randrange(12)}"
        extra = {"hand_id": f"h{i // 20}", "players_in_hand": ("p1", "p2")} if rng.random() < 0.5 else {}
        text = rng.choice(LINES)
        if rng.random() < 0.2:
            text = f"P{rng.randrange(12)} {text}"
        events.append((CHAT, msg(text, at=i * 1.5, player_id=player, nickname=player.upper(),
                                 table_id=f"t{rng.randrange(3)}", event_id=f"c{i}", **extra)))
    for i in range(60):
        events.append((SNAPCAM, report(f"r{rng.randrange(8)}", f"p{rng.randrange(4)}", at=i * 30.0, report_id=f"s{i}")))
    return sorted(events, key=lambda te: te[1].ts)


def _single(events) -> list:
    detectors = build_chat_detectors(rules=RULES, classifier=FakeClassifier())
    one = Pipeline({d.name: d for d in detectors}, rules=RULES)
    return [f for topic, e in events for f in one.process(topic, e).findings] + _flushed(detectors)


def _flushed(detectors) -> list:
    """End of the stream: what reordering detectors still hold back (their watermarks differ
    between one process and N partitions, so only the flushed totals are comparable)."""
    return [f for d in detectors if hasattr(d, "flush") for f in d.flush()]


def _partitioned(events, n: int) -> list:
    inline = _build()
    parts = [_build() for _ in range(n)]
    out = []
    for topic, event in events:
        by_key: dict[str, list[str]] = {}
        for name, pipe in inline.items():
            (detector,) = pipe.detectors_for(topic) or (None,)
            if detector is None:
                continue
            key = detector.key(event)
            if key == event.event_id:
                out += pipe.process(topic, event).findings
            else:
                by_key.setdefault(key, []).append(name)
        for key, names in by_key.items():
            part = parts[int(hashlib.sha256(key.encode()).hexdigest(), 16) % n]
            for name in names:
                out += part[name].process(topic, event).findings
    for pipes in (inline, *parts):
        out += _flushed([d for pipe in pipes.values() for topic in (CHAT, SNAPCAM) for d in pipe.detectors_for(topic)])
    return out


@pytest.mark.parametrize("partitions", [2, 5])
def test_partitioned_processing_gives_the_same_findings_and_actions(partitions: int) -> None:
    events = _stream()
    single = _single(events)
    split = _partitioned(events, partitions)
    assert len(single) > 50
    assert {f.category for f in single} >= {"insult", "hand_in_play", "repeat_offender", "shouting"}
    assert sorted(f.model_dump_json() for f in split) == sorted(f.model_dump_json() for f in single)
