"""Mild insult words a player aims at themself: "I'm an idiot for calling", "я идиот", "hülye
vagyok", "tao ngu thật", "bego banget gue fold".

House rule 3 bans insulting (someone) and vulgar language. Calling yourself stupid after a bad
call insults nobody, yet the word lists hold "idiot" as an insult and a banned word scores 1.0,
which is enough for an automatic mute on a first offence. Only the closed set of mild words below
is exempt, and only in a first-person frame written out here per language; vulgar words ("I'm so
fucking stupid") and slurs are never exempt, and "you're an idiot, I'm not" stays an insult.
"""

from __future__ import annotations

import re

from pipeline.detectors.chat.text import fold
from pipeline.findings import Span

_MILD = """
    idiot stupid moron dumb dummy fool donkey donk noob clown
    bego goblok tolol bodoh bloon oon dungu
    ngu dan ngoc dot
    hulye idiota barom ostoba bena
    дурень ідіот тупий тупа дурна дебіл
    идиот дурак дура тупой тупая дебил лох
"""
SELF_INSULTS = frozenset(fold(word) for word in _MILD.split())
"""Mild insults a player calls themself, folded as `fold` folds the text (no accents; Cyrillic
й -> и)."""

_BEFORE = re.compile(
    fold(
        r"(?:^|[^\w'’])(?:"
        r"(?:i['’]?m|i\s+am)(?:\s+(?:a|an|such|so|really|real|total|complete|absolute|the|biggest))*"
        r"|(?:gue|gw|gua|aku|saya)(?:\s+(?:emang|memang|bener|sungguh|sangat|dasar))*"
        r"|(?:tao|tôi|t)(?:\s+(?:đúng\s+là|thật\s+là|quá|hơi|cũng))*"
        r"|я(?:\s+(?:такой|такая|такий|така|просто|полный|полная|повний|повна|ну|же))*"
        r")\s+$"
    )
)
"""A first-person subject (and a few fillers) right before the word, per room language; folded
like the text. Vietnamese "t" is how "tao" is typed in chat ("t ngu thiệt" was
read as an insult, independent dev set). Left out as too ambiguous: English "im"/"me", Vietnamese
"mình" (also a name) and "tớ" (folds to English "to"), Indonesian "ak"."""
_AFTER = re.compile(r"^\s+(?:vagyok\b|(?:(?:banget|bgt|amat)\s+)?(?:gue|gw|gua|aku|saya)\b)")
"""Or right after it: Hungarian "hülye vagyok", Indonesian "bego banget gue"."""


def aimed_at_self(text: str, span: Span) -> bool:
    """True when the span is a mild insult word in a first-person frame (see the module)."""
    word = fold(text[span.start : span.end]).strip()
    if word not in SELF_INSULTS:
        return False
    before = fold(text[max(0, span.start - 40) : span.start])
    after = fold(text[span.end : span.end + 20])
    return _BEFORE.search(before) is not None or _AFTER.search(after) is not None
