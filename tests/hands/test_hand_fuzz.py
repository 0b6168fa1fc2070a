"""Property tests: whatever a hand record or history file holds, parsing and validation never crash."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.contracts import HAND, DecodeError, decode
from pipeline.contracts.hand import HandRecord
from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.pokerstars import parse_hand
from pipeline.hands.replay import hand_replay
from tests.hands.generators import HandSpec, Tactics, play_hand, random_style
from tests.hands.test_hand_parsing import PS_HAND, THREE_WAY, _hand

ACTION_TOKENS = ["f", "cc", "cbr 0", "cbr 6", "cbr 200", "cbr 99999", "sm AcAd", "sm ????", "sd"]


def _decode_or_reason(value: dict) -> HandRecord | None:
    try:
        event = decode(HAND, json.dumps(value).encode())
    except DecodeError as exc:
        assert str(exc)  # a reason, never empty
        return None
    assert isinstance(event, HandRecord)
    hand_replay(event)  # a record that decodes can always be rendered
    return event


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cut=st.integers(0, len(THREE_WAY["actions"])),
    junk=st.lists(st.tuples(st.integers(1, 4), st.sampled_from(ACTION_TOKENS)), max_size=4),
    where=st.integers(0, 20),
    stacks=st.lists(st.integers(0, 400), min_size=3, max_size=3),
)
def test_mutated_actions_and_stacks_never_crash(cut, junk, where, stacks) -> None:
    actions = list(THREE_WAY["actions"][:cut])
    for seat, token in junk:
        actions.insert(min(where, len(actions)), f"p{seat} {token}")
    _decode_or_reason(_hand(actions=actions, starting_stacks=stacks))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.integers(0, len(PS_HAND)))
def test_garbled_pokerstars_text_is_rejected_with_a_kind(noise, at) -> None:
    text = PS_HAND[:at] + noise + PS_HAND[at:]
    try:
        value = parse_hand(text)
    except HandIntegrityError as exc:
        assert exc.kind
        return
    _decode_or_reason(value)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 9), short=st.booleans())
def test_generated_legal_hands_decode_and_conserve_chips(seed, n, short) -> None:
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(n)]
    stacks = [rng.randint(1, 30) * 100 if short else 10_000 for _ in players]
    value = play_hand(HandSpec(players, stacks, 100, ante=rng.choice([0, 10])),
                      {p: random_style(rng) for p in players}, Tactics(), rng)
    record = _decode_or_reason(value)
    assert record is not None and record.replay is not None
    assert sum(record.finishing_stacks) == sum(record.starting_stacks)
    assert record.replay.pot == sum(record.winnings)
