"""Shadow copies through the streaming runtime over fake Kafka: written to the API beside the live
findings (same ids, marked shadow), their offence ledger in the changelog under its own store name,
restored after a partition move like the live one."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from kafka import TopicPartition

from consumers.input_stage import InputProcessor
from consumers.topics import changelog_topic
from pipeline.contracts import CHAT
from pipeline.detector import Detector
from pipeline.rules import RULES_PRESETS
from pipeline.shadow import build_with_shadows
from tests.consumers.kafka_fakes import FakeConsumer
from tests.consumers.review_api_double import IngestStore
from tests.consumers.test_consumer_changelog import ProducedChangelog, Run, offence

LIVE = RULES_PRESETS["id-vi-2022-09-28"]
CANDIDATE = RULES_PRESETS["uk-2022-09-28"]
P0 = TopicPartition(CHAT, 0)


class ShadowAwareStore(IngestStore):
    """The ingestion double, keeping shadow findings apart as the review API does (api/shadow)."""

    def __init__(self) -> None:
        super().__init__()
        self.shadow: dict[str, dict[str, Any]] = {}

    def _ingest(self, body: Any, authorization: str | None) -> tuple[int, dict[str, Any]]:
        raw = body.get("findings") if isinstance(body, dict) else None
        if isinstance(raw, list):
            for f in (f for f in raw if isinstance(f, dict) and f.get("shadow")):
                self.shadow.setdefault(f["finding_id"], f)
            body = {**body, "findings": [f for f in raw if not (isinstance(f, dict) and f.get("shadow"))]}
        return super()._ingest(body, authorization)


def detectors() -> dict[str, Detector]:
    return build_with_shadows(rules=LIVE, classifier=None, chat_lateness=timedelta(seconds=30),
                              names=("chat.banned_words", "chat.repeat_offender"), shadow_rules=CANDIDATE,
                              shadow_classifier=None)


def stage1(run: Run) -> InputProcessor:
    """A new stage-1 process with local state and a changelog, nothing to replay."""
    return InputProcessor(detectors=detectors(), rules=LIVE, make_detectors=detectors, history=None,
                          changelog=ProducedChangelog(run.producer))


def of(found: Mapping[str, dict[str, Any]], event_id: str) -> dict[str, Any]:
    (one,) = (f for f in found.values() if f["source_event_ids"] == [event_id] and f["detector"] == "chat.banned_words")
    return one


def test_shadow_findings_go_out_beside_the_live_ones_and_their_ledger_survives_a_move() -> None:
    run = Run(FakeConsumer(), [P0], store=ShadowAwareStore())
    store = run.store
    assert isinstance(store, ShadowAwareStore)
    run.consumer.append(CHAT, 0, offence("m1", 0), key=b"p1")
    run.process(stage1(run))
    live, shadow = of(store.findings, "m1"), of(store.shadow, "m1")
    assert live["finding_id"] == shadow["finding_id"] and shadow["shadow"] and not live.get("shadow")
    writes = sorted(k for _, k, _, _ in run.producer.sent_to(changelog_topic(CHAT)))
    assert writes == [b"chat.offence_ledger/p1", b"shadow:chat.offence_ledger/p1"]

    run.consumer.append(CHAT, 0, offence("m2", 1), key=b"p1")
    run.process(stage1(run))  # another process: the ledgers come back from the changelog only
    live, shadow = of(store.findings, "m2"), of(store.shadow, "m2")
    assert live["evidence"]["prior_offences"] == shadow["evidence"]["prior_offences"] == 1
    assert [a["disposition"] for a in live["actions"]] == [a["disposition"] for a in shadow["actions"]]


def test_the_consumers_factory_builds_the_policy_shadow_copies(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from api.policy.rules import PolicySettings
    from api.policy.shadow import ShadowSettings
    from pipeline.shadow import ShadowDetector
    from railbird.commands.consume import only
    from railbird.settings import Settings
    from railbird.wiring import make_detector_factory

    settings = Settings(env="test", data_dir=tmp_path)
    shadow = ShadowSettings(detectors=("chat.classifier", "seat.hit_and_run"), category_thresholds={"insult": 0.9},
                            rules_version="uk-2022-09-28")
    factory = make_detector_factory(settings, PolicySettings("id-vi-2022-09-28", shadow=shadow))
    built = factory()
    copies = {n: d for n, d in built.items() if isinstance(d, ShadowDetector)}
    assert set(copies) == {"shadow:chat.classifier", "shadow:seat.hit_and_run"}
    assert {d.policy_rules.version for d in copies.values()} == {"uk-2022-09-28"}
    assert factory()["shadow:seat.hit_and_run"] is not copies["shadow:seat.hit_and_run"], "fresh state per call"
    # RAILBIRD_CONSUMER_DETECTORS keeps a detector's shadow copy with it.
    assert set(only(factory, "seat.hit_and_run")()) == {"seat.hit_and_run", "shadow:seat.hit_and_run"}
    off = make_detector_factory(settings, PolicySettings("id-vi-2022-09-28"))()
    assert not any(n.startswith("shadow:") for n in off) and set(off) == set(built) - set(copies)
