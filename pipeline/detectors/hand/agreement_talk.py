"""Chat evidence of a bounty/soft-play agreement, in the room's languages (written by the team).

Patterns name the agreement itself (target a player, don't bet into each other, check it down while
someone is all-in). Final-table deal talk (everyone agreeing to chop) matches none of them.
"""

from __future__ import annotations

import re
import unicodedata

AGREEMENT_PATTERNS: dict[str, tuple[str, ...]] = {
    "en": (
        r"\b(let'?s|we|us)\b.{0,20}\b(go after|target|hunt|gang up on|squeeze|take out|knock out|isolate)\b",
        r"\btarget(ing)? @?\w+",
        r"\b(go after|hunt|get|take)\b.{0,25}\bbount(y|ies)\b",
        r"\bcheck (it )?down\b.{0,30}\ball[- ]?in\b",
        r"\b(don'?t|never|no) (bet|raise|betting|raising) (into|against|on) each other\b",
        r"\bsoft ?play (me|each other|you)\b",
        r"\b(split|share) (his|her|their|the) bounty\b",
    ),
    "id": (
        r"\bincar\b", r"\bkita berdua\b.{0,30}\b(bounty|incar|keroyok|habisi)\b",
        r"\bjangan saling (bet|raise|taruhan|naikin)\b", r"\bkeroyok\b", r"\bjepit\b",
        r"\bcheck ?down\b.{0,30}\ball ?in\b", r"\bmain lembut\b",
    ),
    "vi": (
        r"\bcùng (nhắm|săn|bắt|kẹp)\b", r"\bnhắm\b.{0,20}\bbounty\b",
        r"\bđừng (cược|tố|bet) vào nhau\b", r"\bkẹp\b", r"\bnhường nhau\b",
        r"\bcheck\b.{0,20}\bkhi\b.{0,20}\ball ?in\b",
    ),
    "hu": (
        r"\bcélozzuk\b", r"\bne fogadjunk egymás ellen\b", r"\bpréseljük\b",
        r"\begyütt\b.{0,30}\bbounty", r"\bkíméljük egymást\b",
    ),
    "uk": (
        r"\bразом\b.{0,20}\b(полювати|виб'ємо|тиснемо|виносимо)", r"\bне ставимо один проти одного\b",
        r"\bтиснемо\b", r"\bм'яко один з одним\b", r"\bзаради баунті\b",
    ),
    "ru": (
        r"\bвместе\b.{0,20}\b(выбьем|охотимся|давим|выносим)", r"\bне ставим друг против друга\b",
        r"\bдавим\b", r"\bмягко друг с другом\b", r"\bради баунти\b",
        r"\bчекаем\b.{0,30}\bолл ?-?ин\b",
    ),
}
"""Explicit agreements to collude, per language."""

DEAL_TALK = re.compile(
    r"\b(chop|icm|deal|split the (prize|pot money)|bagi hadiah|chia giải|thỏa thuận|osztozunk|"
    r"megállapodás|угода|сделка|делим призовые|розділимо призові)\b",
    re.IGNORECASE,
)
_COMPILED = tuple(
    (lang, re.compile(p, re.IGNORECASE)) for lang, patterns in AGREEMENT_PATTERNS.items() for p in patterns
)


def agreement_match(text: str) -> tuple[str, int, int] | None:
    """(language, start, end) of the first agreement phrase in a chat line, or None."""
    folded = unicodedata.normalize("NFC", text)
    for lang, pattern in _COMPILED:
        m = pattern.search(folded)
        if m:
            return lang, m.start(), m.end()
    return None


def is_deal_talk(text: str) -> bool:
    """Final-table deal talk: allowed when every remaining player agrees (house rule 6)."""
    return DEAL_TALK.search(text) is not None
