"""The AsyncAPI document names every topic Railbird shares with game servers and operators, with
keys, headers and payloads that resolve to the checked-in JSON Schemas (issue 21, 5)."""

from __future__ import annotations

import json
from pathlib import Path

from api.outbox.relay import CLOUDEVENTS_HEADERS
from consumers.topics import railbird_topics
from pipeline.contracts import ENFORCEMENT, INPUT_TOPICS
from pipeline.contracts.asyncapi import KEYS, asyncapi_document
from railbird.settings import PROJECT_ROOT

SCHEMAS = PROJECT_ROOT / "docs" / "schemas"


def test_every_topic_is_a_channel_with_resolvable_messages() -> None:
    doc = asyncapi_document()
    assert doc["asyncapi"] == "3.0.0"
    assert {c["address"] for c in doc["channels"].values()} == set(railbird_topics())
    messages = doc["components"]["messages"]
    for channel in doc["channels"].values():
        for ref in channel["messages"].values():
            name = ref["$ref"].removeprefix("#/components/messages/")
            payload = Path(SCHEMAS / messages[name]["payload"]["$ref"])
            assert payload.exists(), payload
            assert json.loads(payload.read_text())["$id"].startswith("urn:railbird:schema:")
    for op in doc["operations"].values():
        assert op["action"] in {"send", "receive"}
        assert op["channel"]["$ref"].removeprefix("#/channels/") in doc["channels"]


def test_keys_and_the_cloudevents_header_are_the_ones_the_code_uses() -> None:
    messages = asyncapi_document()["components"]["messages"]
    assert KEYS[next(iter(INPUT_TOPICS))].startswith("player_id")
    for topic in [*INPUT_TOPICS, ENFORCEMENT]:
        assert messages[topic]["bindings"]["kafka"]["key"]["description"] == KEYS[topic]
    header = messages[ENFORCEMENT]["headers"]["properties"]["content-type"]["const"]
    assert [("content-type", header.encode())] == CLOUDEVENTS_HEADERS


def test_the_checked_in_document_is_current() -> None:
    written = json.loads((SCHEMAS / "asyncapi.json").read_text())
    assert written == asyncapi_document(), "run `railbird schemas` and commit docs/schemas"
