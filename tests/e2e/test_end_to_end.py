"""One chat message travels the whole way, real at every hop: Kafka -> consumer -> detector ->
review API over HTTP -> moderator decision -> outbox -> enforcement.events -> a game server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from pipeline.contracts import CHAT, ENFORCEMENT, SEAT, EnforcementEvent, dlq_topic
from tests.e2e.stack import Stack, start_stack
from tests.samples import chat_value, seat_value

pytestmark = [pytest.mark.kafka, pytest.mark.slow]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One stack for this module: consumers of chat and seat activity."""
    yield from start_stack(
        tmp_path_factory.mktemp("e2e"), consume_args=["--topic", CHAT, "--topic", SEAT]
    )


def _cases_of(stack: Stack, headers: dict[str, str], player: str) -> list[dict[str, Any]]:
    resp = httpx.get(f"{stack.api_url}/v1/players/{player}", headers=headers, timeout=5)
    return list(resp.json().get("cases", [])) if resp.status_code == 200 else []


def _events_for(stack: Stack, player: str) -> list[EnforcementEvent]:
    records = stack.read_topic(ENFORCEMENT)
    events = [EnforcementEvent.model_validate_json(r.value) for r in records]
    assert all(r.key == e.subject.encode() for r, e in zip(records, events, strict=True))
    return [e for e in events if e.subject == player]


def test_banned_word_becomes_a_case_and_a_sanction_event(stack: Stack) -> None:
    analyst = stack.login("ana", "analyst")
    moderator = stack.login("mod", "moderator")
    message = chat_value(event_id="e2e-chat-1", player_id="p-e2e", text="you are a retard", nickname="Loud")
    stack.produce(CHAT, [message])

    cases = stack.wait_for(lambda: _cases_of(stack, analyst, "p-e2e"), what="a case for p-e2e")
    case_id = cases[0]["id"]
    detail = httpx.get(f"{stack.api_url}/v1/cases/{case_id}", headers=analyst).json()
    assert any("e2e-chat-1" in f["document"]["source_event_ids"] for f in detail["findings"])

    # A slur is a high-confidence first offence: policy muted the player at once, without review.
    muted = stack.wait_for(lambda: _events_for(stack, "p-e2e"), what="the automatic mute event")
    assert [e.data.kind for e in muted] == ["chat_mute"] and muted[0].data.automatic

    assert httpx.post(f"{stack.api_url}/v1/cases/{case_id}/claim", headers=moderator).status_code == 200
    decided = httpx.post(
        f"{stack.api_url}/v1/cases/{case_id}/decisions",
        json={"kind": "confirm", "reason": "slur at the table"},
        headers=moderator,
    )
    assert decided.status_code == 200, decided.text
    applied = httpx.post(
        f"{stack.api_url}/v1/cases/{case_id}/sanctions",
        json={"kind": "chat_ban", "scope": "feature", "scope_value": "chat",
              "expires_at": "2030-01-01T00:00:00Z", "reason": "temporary chat ban: slur"},
        headers=moderator,
    )
    assert applied.status_code == 200, applied.text

    events = stack.wait_for(
        lambda: [e for e in _events_for(stack, "p-e2e") if e.data.kind == "chat_ban"],
        what="the moderator's chat ban on the broker",
    )
    assert len(events) == 1
    assert events[0].data.case_id == case_id and not events[0].data.automatic
    assert events[0].type == "railbird.enforcement.chat_ban"


def test_replayed_events_create_no_duplicate_cases_or_findings(stack: Stack) -> None:
    analyst = stack.login("ana2", "analyst")
    message = chat_value(event_id="e2e-dup-1", player_id="p-dup", text="kurva anyád", nickname="Dup")
    stack.produce(CHAT, [message])
    first = stack.wait_for(lambda: _cases_of(stack, analyst, "p-dup"), what="a case for p-dup")
    findings_before = httpx.get(f"{stack.api_url}/v1/players/p-dup", headers=analyst).json()["findings"]

    stack.produce(CHAT, [message, message])  # the game server retried twice
    marker = chat_value(event_id="e2e-dup-marker", player_id="p-dup2", text="kurva anyád")
    stack.produce(CHAT, [marker])  # same partition order is not guaranteed; wait for a later event
    stack.wait_for(lambda: _cases_of(stack, analyst, "p-dup2"), what="the marker's case")

    after = httpx.get(f"{stack.api_url}/v1/players/p-dup", headers=analyst).json()
    assert len(after["cases"]) == len(first)
    assert len(after["findings"]) == len(findings_before)


@pytest.mark.parametrize("topic", [CHAT, SEAT])
def test_malformed_records_are_dead_lettered_and_the_consumer_keeps_going(stack: Stack, topic: str) -> None:
    analyst = stack.login(f"ana-{topic}", "analyst")
    bad = b'{"event_id": "broken", "ts": "yesterday"'
    stack.produce_raw(topic, bad)
    dead = stack.wait_for(
        lambda: [r for r in stack.read_topic(dlq_topic(topic)) if json.loads(r.value)["value_b64"]],
        what=f"a dead letter on {dlq_topic(topic)}",
    )
    letters = [json.loads(r.value) for r in dead]
    assert any(d["topic"] == topic and d["error"] for d in letters)
    # the consumer is still alive and processing
    player = f"p-after-{topic}"
    if topic == CHAT:
        stack.produce(CHAT, [chat_value(event_id=f"after-{topic}", player_id=player, text="сука")])
    else:
        # Stints happen minutes apart; produce them as they would happen, one after the other.
        stints = _hit_and_run_stints(player)
        first, second = stints[:2], stints[2:]
        stack.produce(SEAT, first, key_field="table_id")
        stack.wait_for(lambda: _cases_of(stack, analyst, player), what="the 1st refusal on record")
        stack.produce(SEAT, second, key_field="table_id")
    if topic == CHAT:
        assert stack.wait_for(lambda: _cases_of(stack, analyst, player), what="a case after the poison record")
    else:
        blocks = stack.wait_for(lambda: _active_sanctions(stack, player), what="a block after the poison record")
        assert [(b["kind"], b["scope_value"]) for b in blocks] == [("table_block", "nl50")]


def _active_sanctions(stack: Stack, player: str) -> list[dict[str, Any]]:
    resp = httpx.get(f"{stack.api_url}/v1/players/{player}/sanctions/active", headers=stack.service_headers())
    return list(resp.json()["sanctions"]) if resp.status_code == 200 else []


def _hit_and_run_stints(player: str) -> list[dict[str, Any]]:
    """Two short stints at one blind level: the 2nd refusal earns an automatic 5-minute block."""
    start = datetime.now(UTC) - timedelta(minutes=10)  # the 2nd leave is 30 s ago: block still on
    events = []
    for stint in range(2):
        base = {"player_id": player, "table_id": f"t-{stint}", "blind_level": "nl50", "players_seated": 5}
        events.append(seat_value(event_id=f"{player}-j{stint}", action="join", hands_played_at_table=0,
                                 ts=(start + timedelta(minutes=5 * stint)).isoformat(), **base))
        events.append(seat_value(event_id=f"{player}-l{stint}", action="leave", hands_played_at_table=3,
                                 ts=(start + timedelta(minutes=5 * stint + 4.5)).isoformat(), **base))
    return events


