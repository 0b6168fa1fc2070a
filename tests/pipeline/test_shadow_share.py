"""Shadow copies on a share of the room (pipeline/shadow.py, "A share below 1"): a sampled
player's shadow findings are exactly a full-share run's, an unsampled player's are none, the live
findings never change, and the detectors allowed on a share really keep one player's state."""

from __future__ import annotations

import pytest

from pipeline.contracts import ChatMessage
from pipeline.registry import build_detectors
from pipeline.shadow import PER_PLAYER, ShadowDetector, build_with_shadows
from pipeline.shadow_sample import in_share
from tests.pipeline.test_shadow import CANDIDATE, LATENESS, LIVE, by_id, model, run, traffic

SHARE = 0.3


def _shadow_run(share: float) -> tuple[dict[str, dict[str, object]], dict[str, dict[str, object]]]:
    classifier = model()
    both = run(build_with_shadows(rules=LIVE, classifier=classifier, chat_lateness=LATENESS,
                                  names=tuple(sorted(PER_PLAYER)), shadow_rules=CANDIDATE,
                                  shadow_classifier=classifier, share=share), traffic())
    return by_id(f for f in both if f.shadow), by_id(f for f in both if not f.shadow)


def test_a_sampled_players_shadow_findings_are_the_full_runs_and_no_one_elses() -> None:
    full, live_full = _shadow_run(1.0)
    part, live_part = _shadow_run(SHARE)
    expected = {fid: doc for fid, doc in full.items() if in_share(str(doc["players"][0]), SHARE)}
    assert part == expected
    assert 0 < len(part) < len(full)
    assert live_part == live_full, "a shadow share never changes what the live detectors find"


def test_the_share_is_a_stable_part_of_the_players() -> None:
    speakers = {e.player_id for _, e in traffic() if isinstance(e, ChatMessage)}
    sampled = {p for p in speakers if in_share(p, SHARE)}
    assert 0.15 < len(sampled) / len(speakers) < 0.45
    assert sampled == {p for p in speakers if in_share(p, SHARE)}  # a hash, not a draw
    assert all(in_share(p, 1.0) for p in speakers)
    bigger = {p for p in speakers if in_share(p, 0.6)}
    assert sampled <= bigger, "raising the share keeps the players already sampled"


def test_the_detectors_allowed_on_a_share_keep_one_players_state() -> None:
    detectors = build_detectors(rules=LIVE, classifier=model(), chat_lateness=LATENESS)
    assert set(detectors) >= PER_PLAYER
    chat = [e for _, e in traffic() if isinstance(e, ChatMessage)][:300]
    for name in PER_PLAYER:
        keys = {detectors[name].key(e) in (e.event_id, e.player_id) for e in chat}
        assert keys == {True}, f"{name} keys chat by something other than the message or its speaker"
    assert detectors["chat.collusion_parties"].key(chat[0]) not in (chat[0].event_id, chat[0].player_id)


@pytest.mark.parametrize("share", [0.0, -0.1, 1.5])
def test_a_share_outside_0_to_1_is_refused(share: float) -> None:
    detectors = build_detectors(rules=LIVE, classifier=model(), chat_lateness=LATENESS)
    with pytest.raises(ValueError, match="share"):
        ShadowDetector(detectors["chat.flooding"], rules=LIVE, share=share)
