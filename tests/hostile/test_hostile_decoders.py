"""Every decoder, fed anything: a decoded event or a `DecodeError` with a reason, nothing else."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.contracts import CHAT, INPUT_TOPICS, DecodeError, decode
from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.phh import parse_phh, parse_phh_all
from pipeline.hands.pokerstars import parse_hand, split_hands
from pipeline.replay import split_envelope
from tests.hostile.hostile_records import SAMPLES, deep, hostile_records
from tests.hostile.naughty import NAUGHTY, storable

TOPICS = sorted(INPUT_TOPICS)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


def decoded_or_reason(topic: str, raw: bytes) -> bool:
    """True when decoded; False when refused with a non-empty reason and a known kind."""
    try:
        event = decode(topic, raw)
    except DecodeError as exc:
        assert str(exc) and exc.kind in {"oversized", "not_json", "invalid", "unknown_topic"}
        return False
    assert isinstance(event, INPUT_TOPICS[topic])
    return True


@pytest.mark.parametrize("topic", TOPICS)
@FAST
@given(raw=st.binary(max_size=400))
def test_random_bytes_never_escape_decode(topic: str, raw: bytes) -> None:
    decoded_or_reason(topic, raw)


@pytest.mark.parametrize("topic", TOPICS)
@FAST
@given(value=json_values)
def test_arbitrary_json_never_escapes_decode(topic: str, value: object) -> None:
    assert not decoded_or_reason(topic, json.dumps(value).encode()), "no random JSON is a valid event"


@pytest.mark.parametrize("topic", TOPICS)
@FAST
@given(data=st.data())
def test_one_field_replaced_by_anything_never_escapes_decode(topic: str, data: st.DataObject) -> None:
    base = SAMPLES[topic]()
    name = data.draw(st.sampled_from(sorted(base)))
    decoded_or_reason(topic, json.dumps({**base, name: data.draw(json_values)}).encode())


@pytest.mark.parametrize("topic", TOPICS)
def test_the_hostile_corpus_is_refused_with_a_reason_or_decoded(topic: str) -> None:
    records = hostile_records(topic)
    outcomes = [decoded_or_reason(topic, raw) for raw in records]
    assert len(records) > 150 and outcomes.count(False) > 100
    assert decoded_or_reason(topic, json.dumps(SAMPLES[topic]()).encode()), "the sample itself is valid"


def test_naughty_chat_text_is_accepted_unless_unstorable_or_too_long() -> None:
    for text in NAUGHTY:
        raw = json.dumps(SAMPLES[CHAT](text=text)).encode()
        ok = decoded_or_reason(CHAT, raw)
        # Text is never refused for what it says: only over-long text and unpaired surrogates
        # (not Unicode, cannot be stored or shown) are; NUL decodes and the API refuses to store it.
        assert ok == (len(text) <= 2000 and not _lone_surrogate(text)), repr(text[:40])
        if ok:
            assert decode(CHAT, raw).text == text  # exact: nothing stripped or normalised
            assert storable(text) or "\x00" in text


def _lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


@pytest.mark.parametrize("depth", [10, 1_000, 100_000])
def test_deep_nesting_is_a_reason_not_a_recursion_error(depth: int) -> None:
    assert not decoded_or_reason(CHAT, deep(depth))


def test_oversized_record_is_refused_before_parsing() -> None:
    with pytest.raises(DecodeError) as info:
        decode(CHAT, b" " * 1_000_001)
    assert info.value.kind == "oversized"


@FAST
@given(line=st.text(max_size=300))
def test_split_envelope_on_any_text(line: str) -> None:
    try:
        topic, raw = split_envelope(line)
    except DecodeError as exc:
        assert str(exc)
        return
    assert isinstance(topic, str) and isinstance(raw, bytes)


@FAST
@given(value=json_values, topic=st.text(max_size=20))
def test_split_envelope_then_decode_on_any_envelope(value: object, topic: str) -> None:
    line = json.dumps({"topic": topic, "value": value})
    got_topic, raw = split_envelope(line)
    assert got_topic == topic
    with pytest.raises(DecodeError):
        decode(got_topic, raw)


@FAST
@given(text=st.text(max_size=400))
def test_pokerstars_importer_on_any_text(text: str) -> None:
    for block in split_hands(text):
        try:
            parse_hand(block)
        except HandIntegrityError as exc:
            assert exc.kind and str(exc)


@FAST
@given(text=st.text(max_size=300))
def test_phh_importer_on_any_text(text: str) -> None:
    for parse in (lambda t: [parse_phh(t, name="fuzz")], lambda t: parse_phh_all(t, name="fuzz")):
        try:
            parse(text)
        except HandIntegrityError as exc:
            assert exc.kind == "parse_error"
