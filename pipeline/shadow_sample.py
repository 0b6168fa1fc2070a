"""Which part of the room a shadow copy on a share sees (pipeline/shadow.py, "A share below 1").

Apart from pipeline/shadow.py because the review API needs it too (to compare only the sampled
players' live findings, and to check a policy), and that module imports every detector.
"""

from __future__ import annotations

import zlib

PER_PLAYER: frozenset[str] = frozenset({
    "chat.banned_words", "chat.classifier", "chat.flooding", "chat.hand_in_play", "chat.repeat_offender",
    "chat.shouting", "nickname.offensive",
})
"""Detectors whose state and findings are one player's (their key is the message or its speaker;
`tests/pipeline/test_shadow_share.py` checks it): the ones that may run in shadow on a share."""


def in_share(unit: str, share: float) -> bool:
    """Whether `unit` (a player) is in the stable hash-chosen `share` of units: crc32 is the same in
    every process, partition and restart (Python's `hash` of a str is salted per process)."""
    return share >= 1.0 or zlib.crc32(unit.encode()) < share * 4294967296.0
