"""Generators of hostile records for every input topic: random bytes, truncated and deeply nested
JSON, oversized payloads, wrong types in every field, naughty strings in every text field."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

from pipeline.contracts import CHAT, HAND, SEAT, SNAPCAM
from pipeline.contracts.common import MAX_RECORD_BYTES
from tests.hostile.naughty import NAUGHTY
from tests.samples import chat_value, hand_value, seat_value, snapcam_value

SAMPLES: dict[str, Callable[..., dict[str, Any]]] = {
    CHAT: chat_value, SNAPCAM: snapcam_value, SEAT: seat_value, HAND: hand_value,
}
TEXT_FIELDS: dict[str, tuple[str, ...]] = {
    CHAT: ("text", "nickname"), SNAPCAM: ("comment", "clip_ref", "transcript"), SEAT: (), HAND: (),
}
WRONG_VALUES: tuple[Any, ...] = (None, True, 0, -1, 2**70, 1.5, "", "x" * 300, [], {}, [1, 2], {"a": 1},
                                 "1970-01-01", "\u202e")


def wrong_types(topic: str) -> Iterator[bytes]:
    """The topic's sample with each field replaced by each wrong value, and each field removed."""
    base = SAMPLES[topic]()
    for name in base:
        for bad in WRONG_VALUES:
            yield json.dumps({**base, name: bad}).encode()
        yield json.dumps({k: v for k, v in base.items() if k != name}).encode()
    yield json.dumps({**base, "unexpected_field": 1}).encode()


def naughty_texts(topic: str) -> Iterator[bytes]:
    """The sample with each naughty string in each free-text field (surrogates escaped as JSON does)."""
    base = SAMPLES[topic]()
    for name in TEXT_FIELDS[topic]:
        for i, text in enumerate(NAUGHTY):
            yield json.dumps({**base, "event_id": f"n-{name}-{i}", name: text}).encode()


def deep(depth: int) -> bytes:
    """A value nested `depth` lists deep inside the text field."""
    return b'{"event_id":"deep","text":' + b"[" * depth + b"]" * depth + b"}"


def structural(rng: random.Random) -> Iterator[bytes]:
    """Random bytes, truncations of a valid record, deep nesting, oversized and empty payloads."""
    valid = json.dumps(chat_value()).encode()
    for cut in range(0, len(valid), 7):
        yield valid[:cut]
    for _ in range(40):
        yield rng.randbytes(rng.randrange(1, 300))
    yield from (deep(d) for d in (100, 1_000, 10_000, 100_000))
    yield b"\xff\xfe" + "chat".encode("utf-16-le")
    yield json.dumps(chat_value()).encode("utf-16")
    yield b'{"a":' * 50_000
    yield b"[]"
    yield b"null"
    yield b'"just a string"'
    yield b"1e999999"
    yield json.dumps(chat_value(text="x" * (MAX_RECORD_BYTES + 10))).encode()


def hostile_records(topic: str, *, seed: int = 3) -> list[bytes]:
    """Every hostile record for one topic (deterministic)."""
    rng = random.Random(seed)
    return [*wrong_types(topic), *naughty_texts(topic), *structural(rng)]


def mutations(topic: str, n: int, *, seed: int) -> Iterator[bytes]:
    """n random corruptions of the topic's sample: a field set to a random value, a truncation,
    flipped bytes, a duplicated key, or a naughty string where an id belongs."""
    rng = random.Random(seed)
    base = SAMPLES[topic]()
    valid = json.dumps(base).encode()
    names = sorted(base)
    for i in range(n):
        how = i % 5
        if how == 0:
            yield json.dumps({**base, rng.choice(names): rng.choice(WRONG_VALUES)}).encode()
        elif how == 1:
            yield valid[: rng.randrange(len(valid))]
        elif how == 2:
            raw = bytearray(valid)
            for _ in range(rng.randrange(1, 6)):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
            yield bytes(raw)
        elif how == 3:
            yield valid[:-1] + b',"event_id":' + json.dumps(rng.choice(NAUGHTY)).encode() + b"}"
        else:
            yield json.dumps({**base, rng.choice(names): rng.choice(NAUGHTY)}).encode()
