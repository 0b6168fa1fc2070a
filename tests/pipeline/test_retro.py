"""Retroactive runs (pipeline/retro.py): over streamed events a run finds exactly what the stream
flagged in its range (empty diff); a changed threshold shows up as new or gone findings of the
detectors it concerns; bad windows and detector names are refused."""

from __future__ import annotations

import dataclasses
import gc
import weakref
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

import pipeline.retro as retro_module
from pipeline.contracts import INPUT_TOPICS, Event
from pipeline.findings import Finding
from pipeline.registry import build_pipeline
from pipeline.retro import (
    FlaggedFinding,
    Progress,
    RetroWindow,
    detector_names,
    diff,
    needed_topics,
    run_window,
    unknown_detectors,
)
from pipeline.rules import RULES_PRESETS, RulesConfig
from pipeline.text_model import TextClassifier
from railbird.settings import Settings
from railbird.wiring import chat_lateness, load_chat_classifier
from simulator import Room, RoomConfig

SETTINGS = Settings(env="test")
RULES = RULES_PRESETS[SETTINGS.rules_version]
START = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
RANGE = (START + timedelta(minutes=6), START + timedelta(minutes=16))


@pytest.fixture(scope="module")
def classifier() -> TextClassifier:
    return load_chat_classifier(SETTINGS)


@pytest.fixture(scope="module")
def events() -> list[tuple[str, Event]]:
    """20 minutes of the demo room: every kind of planted offence, chat, seats, hands, reports."""
    return list(Room(RoomConfig.for_profile("demo", seed=5, minutes=20, players=80, start=START)).events())


def streamed(events: list[tuple[str, Event]], classifier: TextClassifier, rules: RulesConfig) -> list[Finding]:
    """What the stream flags: every event once through one pipeline (the stream runs on after the
    range, so what the reorder buffers hold is out by then: the flush stands for that)."""
    pipeline = build_pipeline(rules=rules, classifier=classifier, chat_lateness=chat_lateness(SETTINGS))
    return pipeline.process_all(events) + list(pipeline.flush().findings)


@pytest.fixture(scope="module")
def stream_findings(events: list[tuple[str, Event]], classifier: TextClassifier) -> list[Finding]:
    return streamed(events, classifier, RULES)


def raw(events: list[tuple[str, Event]]) -> Iterator[tuple[str, bytes]]:
    """The records as they are archived: topic and value bytes."""
    for topic, event in events:
        yield topic, event.model_dump_json().encode()


def in_range(findings: list[Finding], detectors: set[str] | None = None) -> list[FlaggedFinding]:
    return [FlaggedFinding.of(f) for f in findings
            if RANGE[0] <= f.ts < RANGE[1] and (detectors is None or f.detector in detectors)]


def retro(events: list[tuple[str, Event]], classifier: TextClassifier, rules: RulesConfig, *,
          warmup: timedelta, detectors: frozenset[str] | None = None) -> list[FlaggedFinding]:
    window = RetroWindow(*RANGE, warmup=warmup, tail=timedelta(minutes=1))
    pipeline = build_pipeline(rules=rules, classifier=classifier, chat_lateness=chat_lateness(SETTINGS))
    return run_window(pipeline, raw(events), window, detectors=detectors).findings


def test_a_run_over_streamed_events_finds_what_was_flagged_at_the_time(
    events: list[tuple[str, Event]], classifier: TextClassifier, stream_findings: list[Finding]
) -> None:
    flagged = in_range(stream_findings)
    assert len({f.detector for f in flagged}) >= 5, "the range should hold findings of many detectors"
    result = diff(retro(events, classifier, RULES, warmup=RANGE[0] - START), flagged)
    assert result.empty and result.changed_actions == 0
    assert result.same == len(flagged) > 50
    assert sum(d.same for d in result.detectors) == result.same


def test_a_lower_flood_threshold_shows_new_flooding_findings(
    events: list[tuple[str, Event]], classifier: TextClassifier, stream_findings: list[Finding]
) -> None:
    flagged = in_range(stream_findings)
    looser = dataclasses.replace(RULES, flood_max_messages=3)
    result = diff(retro(events, classifier, looser, warmup=RANGE[0] - START), flagged)
    flooding = next(d for d in result.detectors if d.detector == "chat.flooding")
    assert flooding.new > 0 and not result.empty
    then = {f.finding_id for f in flagged}
    assert flooding.new_examples and all(f.finding_id not in then for f in flooding.new_examples)
    assert all(f.detector == "chat.flooding" for f in flooding.new_examples)
    # Detectors the flood rule does not feed are untouched.
    for name in ("seat.hit_and_run", "snapcam.triage", "chat.shouting"):
        row = next((d for d in result.detectors if d.detector == name), None)
        assert row is None or (row.new, row.gone) == (0, 0), name
    assert result.new == sum(d.new for d in result.detectors)


def test_a_detector_set_keeps_only_its_findings_on_both_sides(
    events: list[tuple[str, Event]], classifier: TextClassifier, stream_findings: list[Finding]
) -> None:
    chosen = frozenset({"seat.hit_and_run", "chat.repeat_offender"})
    flagged = in_range(stream_findings, set(chosen))
    found = retro(events, classifier, RULES, warmup=RANGE[0] - START, detectors=chosen)
    assert {f.detector for f in found} <= chosen and found
    assert diff(found, flagged).empty


def test_without_warmup_state_from_before_the_range_is_missing(
    events: list[tuple[str, Event]], classifier: TextClassifier, stream_findings: list[Finding]
) -> None:
    """Why the warm-up exists: repeat offences count offences from before the range."""
    chosen = frozenset({"chat.repeat_offender"})
    flagged = in_range(stream_findings, set(chosen))
    cold = diff(retro(events, classifier, RULES, warmup=timedelta(0), detectors=chosen), flagged)
    assert cold.gone > 0


def test_progress_dead_letters_and_counts() -> None:
    pipeline = build_pipeline(rules=RULES)
    window = RetroWindow(START, START + timedelta(minutes=1))
    good = Room(RoomConfig(seed=2, players=40, minutes=3, start=START, hands=False))
    records = [*raw(list(good.events())), ("chat.messages", b"{not json"), ("nope.topic", b"{}")]
    seen: list[Progress] = []
    result = run_window(pipeline, records, window, progress=seen.append, progress_every=10)
    assert result.events_read == len(records) and result.dead_letters == 2
    assert 0 < result.events_in_range == result.events_fed < result.events_read - 2
    assert len(result.errors) == 2 and "not_json" in result.errors[0]
    assert seen and seen[-1].events_read == len(records)
    assert all(0.0 <= p.fraction(window) <= 1.0 for p in seen)


def test_bad_windows_and_unknown_detectors_are_refused() -> None:
    with pytest.raises(ValueError, match="not after"):
        RetroWindow(START, START)
    with pytest.raises(ValueError, match="time zone"):
        RetroWindow(START.replace(tzinfo=None), START.replace(tzinfo=None) + timedelta(hours=1))
    names = detector_names(RULES)
    assert "chat.classifier" in names and "seat.hit_and_run" in names
    assert unknown_detectors(["seat.hit_and_run", "chat.nope", "x"], names) == ["chat.nope", "x"]


def test_a_chat_only_run_skips_the_topics_no_chat_detector_reads_and_finds_the_same(
    events: list[tuple[str, Event]], classifier: TextClassifier, stream_findings: list[Finding]
) -> None:
    chosen = frozenset({"chat.classifier", "chat.repeat_offender"})
    pipeline = build_pipeline(rules=RULES, classifier=classifier, chat_lateness=chat_lateness(SETTINGS))
    assert needed_topics(pipeline, chosen) == {"chat.messages"}
    assert needed_topics(pipeline, frozenset({"seat.bumhunting"})) == {"seat.activity", "hand.records"}
    assert needed_topics(pipeline, None) == set(INPUT_TOPICS)
    window = RetroWindow(*RANGE, warmup=RANGE[0] - START, tail=timedelta(minutes=1))
    result = run_window(pipeline, raw(events), window, detectors=chosen)
    assert result.skipped == sum(1 for t, _ in events if t != "chat.messages") > 0
    assert diff(result.findings, in_range(stream_findings, set(chosen))).empty


def test_during_a_run_only_the_runs_own_passes_collect_cycles_and_the_collector_is_restored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cyclic collector's automatic passes are off during a run; a cycle dropped meanwhile is
    reclaimed by the run's own pass every `GC_EVERY` records, not kept until the end."""
    monkeypatch.setattr(retro_module, "GC_EVERY", 5)
    pipeline = build_pipeline(rules=RULES)
    window = RetroWindow(START, START + timedelta(minutes=1))
    records = list(raw(list(Room(RoomConfig(seed=2, players=10, minutes=1, start=START, hands=False)).events())))
    assert len(records) > 10
    seen: dict[str, bool] = {}

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    def with_a_cycle() -> Iterator[tuple[str, bytes]]:
        probe = None
        for i, record in enumerate(records):
            if i == 1:
                cycle = Cycle()
                probe = weakref.ref(cycle)
                del cycle  # unreachable now, but only the cyclic collector can free it
            if probe is not None and i == 2:
                seen["alive at record 2"] = probe() is not None
                seen["collector on"] = gc.isenabled()
            if probe is not None and i == 8:
                seen["alive at record 8"] = probe() is not None
            yield record

    assert gc.isenabled()
    run_window(pipeline, with_a_cycle(), window)
    assert seen == {"alive at record 2": True, "collector on": False, "alive at record 8": False}
    assert gc.isenabled() and gc.get_freeze_count() == 0
