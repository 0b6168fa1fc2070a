"""The offence ledger as durable state: serialized per player, drained as changes, restored without
double counting and without offences of uncommitted input."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pipeline.contracts import CHAT
from pipeline.detector import DurableDetector, DurableState
from pipeline.detectors.chat import OffenceLedger, build_chat_detectors
from pipeline.detectors.chat.offences import MAX_LINE, Offence, decode, encode
from pipeline.findings import Span
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from tests.chat.chat_events import msg
from tests.samples import T0

RULES = RulesConfig()
WINDOW = timedelta(days=30)


def offence(n: int, *, source: int = -1, category: str = "insult") -> Offence:
    line = ("table", "Bób", "tú idiot 🂡", (Span(start=3, end=8, label="insult"),))
    return Offence(f"e{n}", category, f"f{n}", "chat.banned_words", line, source)


def pipeline() -> tuple[Pipeline, OffenceLedger]:
    detectors = build_chat_detectors(rules=RULES)
    ledgers = {d.durable for d in detectors if isinstance(d, DurableDetector)}
    (ledger,) = ledgers
    assert isinstance(ledger, OffenceLedger)
    return Pipeline({d.name: d for d in detectors}, rules=RULES), ledger


def test_a_history_survives_encoding_with_its_lines_spans_and_sources() -> None:
    history = [(T0 + timedelta(hours=i), offence(i, source=10 + i)) for i in range(3)]
    assert decode(encode(history)) == history
    assert len(encode(history)) < 2_000


def test_a_value_of_another_format_is_refused() -> None:
    for bad in (b"not json", b'{"v": 99, "o": []}', b'{"v": 1, "o": [["x"]]}', b'{"v": 1}'):
        with pytest.raises(ValueError):
            decode(bad)


def test_the_ledger_is_a_durable_store_shared_by_every_tap_and_the_ladder() -> None:
    detectors = build_chat_detectors(rules=RULES)
    durable = [d for d in detectors if isinstance(d, DurableDetector)]
    assert {d.name for d in durable} >= {"chat.banned_words", "chat.flooding", "chat.repeat_offender"}
    assert len({id(d.durable) for d in durable}) == 1
    assert isinstance(durable[0].durable, DurableState)


def test_changes_name_each_changed_player_once_with_the_whole_history_and_are_drained() -> None:
    ledger = OffenceLedger(window=WINDOW)
    ledger.at(7)
    ledger.record("p1", T0, offence(1))
    ledger.at(8)
    ledger.record("p1", T0 + timedelta(hours=1), offence(2))
    ledger.record("p2", T0, offence(3))
    changes = dict(ledger.changes())
    assert set(changes) == {"p1", "p2"}
    value = changes["p1"]
    assert value is not None
    assert [(o.event_id, o.source) for _, o in decode(value)] == [("e1", 7), ("e2", 8)]
    assert ledger.changes() == [], "drained"


def test_a_player_evicted_before_the_drain_is_a_tombstone() -> None:
    ledger = OffenceLedger(window=WINDOW, max_players=1)
    ledger.record("p1", T0, offence(1))
    ledger.record("p2", T0, offence(2))
    assert dict(ledger.changes()) == {"p1": None, "p2": encode([(T0, offence(2))])}


def test_a_replay_over_a_restored_history_records_nothing_twice() -> None:
    first = OffenceLedger(window=WINDOW)
    history = [(T0 + timedelta(hours=i), offence(i, source=i)) for i in range(3)]
    for ts, o in history:
        first.record("p1", ts, o)
    (value,) = (v for _, v in first.changes())
    assert value is not None

    second = OffenceLedger(window=WINDOW)
    second.restore("p1", value, before=3)
    assert second.changes() == [], "a restore is not a change"
    for ts, o in history[1:]:  # the lookback replay re-records the newest two
        second.record("p1", ts, o)
    assert second.changes() == [], "nothing new: nothing to write"
    assert second.episodes("p1", T0 + timedelta(hours=3)) == 3
    assert second.offences("p1", T0 + timedelta(hours=3)) == history


def test_offences_of_uncommitted_input_are_not_restored() -> None:
    ledger = OffenceLedger(window=WINDOW)
    history = [(T0 + timedelta(hours=i), offence(i, source=i)) for i in range(3)]
    ledger.restore("p1", encode(history), before=2)
    assert [o.event_id for _, o in ledger.offences("p1", T0 + timedelta(hours=3))] == ["e0", "e1"]
    offline = [(T0, offence(9))]  # written without positions (-1): always kept
    ledger.restore("p2", encode(offline), before=0)
    assert ledger.offences("p2", T0) == offline


def test_restored_lines_stay_bounded() -> None:
    long = Offence("e1", "insult", "f1", "d", ("table", "n", "x" * MAX_LINE, ()), 0)
    ledger = OffenceLedger(window=WINDOW, max_per_player=4)
    ledger.restore("p1", encode([(T0 + timedelta(minutes=i), long) for i in range(10)]), before=1)
    assert len(ledger.offences("p1", T0 + timedelta(minutes=10))) == 4


def test_a_second_offence_after_a_restore_is_a_repeat_not_a_first_offence() -> None:
    before, ledger = pipeline()
    ledger.at(0)
    (first,) = before.process(CHAT, msg("you idiot", event_id="m1")).findings
    assert first.evidence["prior_offences"] == 0 and first.actions[0].disposition == "automatic"
    values = ledger.changes()

    after, restored = pipeline()  # a new process: nothing replayed, the changelog restored
    for key, value in values:
        assert value is not None
        restored.restore(key, value, before=1)
    (second,) = after.process(CHAT, msg("idiot again", event_id="m2", at=86_400)).findings
    assert second.evidence["prior_offences"] == 1
    assert [a.disposition for a in second.actions] == ["proposed"], "a case, not an automatic mute"

    forgetful, _ = pipeline()
    (again,) = forgetful.process(CHAT, msg("idiot again", event_id="m2", at=86_400)).findings
    assert again.evidence["prior_offences"] == 0, "without the restore the repeat looks like a first"
