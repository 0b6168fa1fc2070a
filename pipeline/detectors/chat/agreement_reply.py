"""Agreement replies ("ok, agreed", "siap bang", "đồng ý", "по рукам"): a line that only says yes.

A leaf module (it needs only text folding) because two families read it: the chat detector of
collusion parties and the hand detector of bounty agreements, which import each other's packages.
"""

from __future__ import annotations

import re

from pipeline.detectors.chat.text import fold


def _folded(words: str) -> frozenset[str]:
    return frozenset(fold(w) for w in words.split())


AGREE_WORDS = _folded(
    "ok okay okey k kk agreed agree deal sure yes yep yeah yup fine done gotcha "
    "oke okee okelah siap sip setuju boleh gas ayo iya "
    "được chốt ừ "
    "oké okés rendben benne megegyeztünk mehet "
    "ок окей добре згоден згодна домовились домовилися "
    "договорились согласен согласна давай идёт лады"
)
"""Single words that say yes (folded)."""
AGREE_PHRASES = tuple(
    fold(p)
    for p in (
        "count me in", "i'm in", "im in", "sounds good", "đồng ý", "nhất trí", "ok luôn", "được thôi",
        "áll az alku", "benne vagyok", "по рукам",
    )
)  # fmt: skip
"""Answers of several words; their words may also stand beside a yes ("ok, count me in")."""
FILLERS = _folded(
    "then lets let's do it man bro mate dude lol haha bang bos deh aja dong nha nhé anh em "
    "haver tesó бро друже братан the that"
) | frozenset(w for p in AGREE_PHRASES for w in p.split())
"""Words an agreement reply may carry besides its yes ("ok bro", "siap bang", "ok luôn")."""
MAX_REPLY_WORDS = 6
MAX_REPLY_CHARS = 80
"""Longer than this is no bare yes, whatever it says (checked before any folding)."""
_VOCABULARY = AGREE_WORDS | FILLERS
_REPLY_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def is_agreement_reply(text: str) -> bool:
    """A short line that only says yes: every word a yes, part of a yes phrase or a filler, and
    at least one yes ("ok, agreed", "siap bang", "đồng ý", "по рукам"; not "all in", "ok fold")."""
    if len(text) > MAX_REPLY_CHARS:
        return False  # most lines: no folding, no regex
    folded = fold(text)
    first = _REPLY_WORD.search(folded)
    if first is None or first.group() not in _VOCABULARY:
        return False  # most short lines: their first word already says it is no bare yes
    words = _REPLY_WORD.findall(folded)
    if not words or len(words) > MAX_REPLY_WORDS or not _VOCABULARY.issuperset(words):
        return False
    joined = " ".join(words)
    return not AGREE_WORDS.isdisjoint(words) or any(f" {p} " in f" {joined} " for p in AGREE_PHRASES)
