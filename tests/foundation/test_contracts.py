"""Every input contract accepts valid records and rejects bad ones with a clear reason."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pipeline.contracts import (
    CHAT,
    HAND,
    INPUT_TOPICS,
    SEAT,
    SNAPCAM,
    DecodeError,
    EnforcementData,
    EnforcementEvent,
    decode,
)
from pipeline.contracts.common import MAX_RECORD_BYTES, MAX_TEXT_CHARS
from tests.samples import T0, chat_value, hand_value, seat_value, snapcam_value

VALID = {CHAT: chat_value, SEAT: seat_value, SNAPCAM: snapcam_value, HAND: hand_value}


def _raw(value: dict[str, Any]) -> bytes:
    return json.dumps(value).encode()


@pytest.mark.parametrize("topic", sorted(INPUT_TOPICS))
def test_valid_record_decodes_to_its_contract(topic: str) -> None:
    event = decode(topic, _raw(VALID[topic]()))
    assert isinstance(event, INPUT_TOPICS[topic])
    assert event.ts.utcoffset() is not None


@pytest.mark.parametrize("topic", sorted(INPUT_TOPICS))
def test_missing_event_id_is_rejected_naming_the_field(topic: str) -> None:
    value = VALID[topic]()
    del value["event_id"]
    with pytest.raises(DecodeError) as err:
        decode(topic, _raw(value))
    assert err.value.kind == "invalid"
    assert "event_id" in str(err.value)


@pytest.mark.parametrize("topic", sorted(INPUT_TOPICS))
def test_unknown_field_is_rejected(topic: str) -> None:
    with pytest.raises(DecodeError, match="surprise"):
        decode(topic, _raw(VALID[topic](surprise=1)))


@pytest.mark.parametrize(
    ("topic", "field", "bad"),
    [
        (CHAT, "channel", "shout"),
        (CHAT, "client", "fridge"),
        (SEAT, "action", "teleport"),
        (SEAT, "format", "mystery"),
        (SNAPCAM, "reason", "boredom"),
        (HAND, "variant", "XX"),
    ],
)
def test_unknown_enum_value_is_rejected(topic: str, field: str, bad: str) -> None:
    with pytest.raises(DecodeError, match=field):
        decode(topic, _raw(VALID[topic](**{field: bad})))


@pytest.mark.parametrize(
    ("topic", "field", "bad"),
    [
        (CHAT, "player_id", 17),
        (CHAT, "text", ["a"]),
        (SEAT, "hands_played_at_table", "3"),
        (SEAT, "seat", 3.5),
        (HAND, "starting_stacks", ["10000", "10000"]),
    ],
)
def test_wrong_type_is_rejected_without_coercion(topic: str, field: str, bad: object) -> None:
    with pytest.raises(DecodeError, match=field):
        decode(topic, _raw(VALID[topic](**{field: bad})))


def test_oversized_text_is_rejected() -> None:
    with pytest.raises(DecodeError, match="text"):
        decode(CHAT, _raw(chat_value(text="a" * (MAX_TEXT_CHARS + 1))))
    assert decode(CHAT, _raw(chat_value(text="a" * MAX_TEXT_CHARS)))


def test_oversized_record_is_rejected_before_parsing() -> None:
    with pytest.raises(DecodeError) as err:
        decode(CHAT, b" " * (MAX_RECORD_BYTES + 1))
    assert err.value.kind == "oversized"


@pytest.mark.parametrize("raw", [b"", b"{", b"\xff\xfe\x00", b"[" * 10_000 + b"]" * 10_000, b"null", b"42"])
def test_garbage_is_rejected_not_raised(raw: bytes) -> None:
    with pytest.raises(DecodeError) as err:
        decode(CHAT, raw)
    assert err.value.kind in {"not_json", "invalid"}


def test_naive_timestamp_is_rejected() -> None:
    with pytest.raises(DecodeError, match="timezone"):
        decode(CHAT, _raw(chat_value(ts="2026-11-01T12:00:00")))


def test_unknown_topic_is_rejected() -> None:
    with pytest.raises(DecodeError) as err:
        decode("mystery.topic", b"{}")
    assert err.value.kind == "unknown_topic"


def test_channel_specific_fields_are_required() -> None:
    with pytest.raises(DecodeError, match="recipient_id"):
        decode(CHAT, _raw(chat_value(channel="private")))
    assert decode(CHAT, _raw(chat_value(channel="private", recipient_id="p9")))


def test_seat_counts_must_be_consistent() -> None:
    with pytest.raises(DecodeError, match="others_sitting_out"):
        decode(SEAT, _raw(seat_value(players_seated=3, others_sitting_out=3)))
    with pytest.raises(DecodeError, match="tournament_id"):
        decode(SEAT, _raw(seat_value(game="tournament")))


def test_hand_lists_must_match_the_players() -> None:
    with pytest.raises(DecodeError, match="starting_stacks"):
        decode(HAND, _raw(hand_value(starting_stacks=[10000])))
    with pytest.raises(DecodeError, match="p3"):
        decode(HAND, _raw(hand_value(actions=["p3 f"])))
    with pytest.raises(DecodeError, match="actions"):
        decode(HAND, _raw(hand_value(actions=["p1 raise lots"])))


def test_snapcam_self_report_is_rejected() -> None:
    with pytest.raises(DecodeError, match="same player"):
        decode(SNAPCAM, _raw(snapcam_value(reporter_id="p1", reported_id="p1")))


def test_enforcement_event_is_a_cloudevent_keyed_by_player() -> None:
    data = EnforcementData(
        action_id="a1",
        event_kind="sanction",
        kind="table_block",
        scope="blind_level",
        scope_value="nl100",
        player_id="p1",
        starts_at=T0,
        expires_at=T0,
        reason="2nd refusal",
        rule="table_leaving",
        automatic=True,
    )
    event = EnforcementEvent.wrap("ev1", data, time=T0)
    doc = json.loads(event.model_dump_json())
    assert doc["specversion"] == "1.0"
    assert doc["type"] == "railbird.enforcement.table_block"
    assert doc["subject"] == "p1"
    revoked = EnforcementEvent.wrap("ev2", data.model_copy(update={"event_kind": "revocation"}), time=T0)
    assert revoked.type == "railbird.enforcement.table_block.revoked"
