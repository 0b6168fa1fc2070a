"""`nickname.offensive`: checks a player's nickname the first time it is seen in chat.

House rules section 4: nicknames must be sensible and not offensive. A nickname rarely changes, so
it is checked once per (player, nickname) and remembered in a bounded map; a reset nickname is a
new one and is checked again. Nicknames run words together and disguise them ("Fuk_Y0u69"), so
besides whole words the squashed letters are searched for longer terms, plain vulgar words are
looked for as words of the name and inside it (`nickname_words`, Scunthorpe-safe), and the
classifier sees the nickname split into words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.detectors.chat.classifier import chat_category
from pipeline.detectors.chat.evidence import make_finding, message_evidence
from pipeline.detectors.chat.lexicon import ABUSE_TERMS, Lexicon, compile_lexicon
from pipeline.detectors.chat.nickname_words import hidden_in_name, undo_leet, vulgar_in_name
from pipeline.detectors.chat.state import BoundedMap
from pipeline.detectors.chat.text import fold, squash
from pipeline.findings import Finding, Span
from pipeline.text_model import TextClassifier

NOT_IN_NICKNAMES = frozenset({"loser", "barom", "idiot", "moron"})
"""Terms left out of the squashed-substring search: they sit inside harmless names (c-loser,
baromfi) or are mild self-mockery players pick on purpose; whole-word matches still count."""

OFFENSIVE = frozenset({"insult", "hate", "threat", "sexual"})
"""What makes a name offensive; spam-like names ("ChipKing") are not a nickname-rule matter."""

NICKNAME_ONLY = ("hitler",)
"""Substrings offensive in a chosen name though not worth flagging in chat ("Hitler" in a history chat)."""

STAFF_WORDS = ("admin", "support", "moderator", "cashier", "security", "railbirdstaff", "official")
"""Nicknames posing as staff (house rules chat 1.4, impersonation)."""

_SEPARATORS = re.compile(r"[\W_]+")
_ASCII_BOUNDARY = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[0-9])(?=[^0-9])|(?<=[^0-9])(?=[0-9])")
"""Where `split_words` starts a word in an ASCII name: lower to upper case, into or out of digits."""


def substring_terms(terms: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """Squashed forms of terms long enough (5+ letters) to be safe as substrings of a name."""
    out = {squash(t): c for t, c in terms.items() if len(squash(t)) >= 5 and fold(t) not in NOT_IN_NICKNAMES}
    return tuple(sorted(out.items()))


@dataclass(slots=True)
class NicknameDetector:
    """Lexicon (words and squashed substrings), staff impersonation and classifier on first sight."""

    classifier: TextClassifier | None = None
    lexicon: Lexicon = field(default_factory=compile_lexicon)
    substrings: tuple[tuple[str, str], ...] = field(default_factory=lambda: substring_terms(ABUSE_TERMS))
    min_classifier_score: float = 0.98
    """High on purpose: the sentence-trained model scores some one-word names (e.g. "Bob") as insults."""
    max_players: int = 500_000
    name: str = "nickname.offensive"
    topics: frozenset[str] = frozenset({CHAT})
    _seen: BoundedMap[str, str] = field(init=False)
    _hidden: tuple[tuple[str, str], ...] = field(init=False)
    """The terms searched for inside a squashed name, in search order (built once, not per name)."""
    _any_hidden: re.Pattern[str] = field(init=False)
    """Whether any of `_hidden` occurs at all: one pass instead of one `in` per term (most names hold none)."""

    def __post_init__(self) -> None:
        self._seen = BoundedMap(max_keys=self.max_players)
        self._hidden = (*self.substrings, *((t, "hate") for t in NICKNAME_ONLY))
        self._any_hidden = re.compile("|".join(re.escape(t) for t, _ in self._hidden))

    def key(self, event: Event) -> str:
        """State is per player."""
        return event.player_id if isinstance(event, ChatMessage) else event.event_id

    def prefetch(self, events: Sequence[Event]) -> None:
        """Classify the batch's unseen multi-word nicknames in one model call (cached for `judge`)."""
        if self.classifier is None:
            return
        fresh = {
            split_words(e.nickname)
            for e in events
            if isinstance(e, ChatMessage) and self._seen.get(e.player_id) != e.nickname
        }
        texts = sorted(t for t in fresh if len(t.split()) >= 2)
        if texts:
            self.classifier.classify(texts)

    def process(self, event: Event) -> Sequence[Finding]:
        """Check a nickname not seen before for this player; one finding if offensive."""
        if not isinstance(event, ChatMessage):
            return ()
        if self._seen.get(event.player_id) == event.nickname:
            return ()
        self._seen.put(event.player_id, event.nickname)
        verdict = self.judge(event.nickname)
        if verdict is None:
            return ()
        score, reason, spans = verdict
        return (
            make_finding(
                detector=self.name,
                category="offensive_nickname",
                score=score,
                players=(event.player_id,),
                ts=event.ts,
                summary=f"nickname {event.nickname!r}: {reason}",
                id_parts=(event.player_id, event.nickname),
                source_event_ids=(event.event_id,),
                spans=spans,
                evidence={
                    "nickname": event.nickname,
                    "nickname_spans": [s.model_dump() for s in spans],
                    "messages": [message_evidence(event)],
                },
                table_id=event.table_id,
                tournament_id=event.tournament_id,
            ),
        )

    def judge(self, nickname: str) -> tuple[float, str, tuple[Span, ...]] | None:
        """(score, reason, spans on the nickname) when offensive, else None."""
        # Leetspeak first: split at digits, "Sh1tHead" would become "Sh 1 t Head".
        words = split_words(undo_leet(nickname))
        spans = tuple(self.lexicon.scan(nickname)) or _respan(self.lexicon.scan(words), nickname)
        if spans:
            return 0.9, f"abusive term ({spans[0].label})", spans
        flat = squash(nickname)
        if self._any_hidden.search(flat) is not None:
            for term, category in self._hidden:
                # Not across a word join: "Grass_Hole" squashes to "grasshole".
                if term in flat and hidden_in_name(nickname, term):
                    return 0.8, f"abusive term hidden in the name ({category})", ()
        vulgar = vulgar_in_name(nickname)
        if vulgar is not None:
            where = "word" if vulgar.whole_word else "hidden in the name"
            return 0.85 if vulgar.whole_word else 0.8, f"vulgar {where} ({vulgar.term})", ()
        if any(w in flat for w in STAFF_WORDS):
            return 0.7, "poses as staff", ()
        if self.classifier is not None and len(words.split()) >= 2:
            top = chat_category(self.classifier.classify([words])[0], among=OFFENSIVE)
            if top is not None and top[1] >= self.min_classifier_score:
                return top[1], f"classifier: {top[0]} ({top[1]:.2f})", ()
        return None


def split_words(nickname: str) -> str:
    """`KontolBesar_88` -> `Kontol Besar 88`: case changes, digits and separators split words."""
    if nickname.isascii():
        # `split_by_char` in one regex pass: in ASCII, lower/upper/digit are [a-z]/[A-Z]/[0-9].
        return " ".join(_SEPARATORS.split(_ASCII_BOUNDARY.sub(" ", nickname))).strip()
    return split_by_char(nickname)


def split_by_char(nickname: str) -> str:
    """`split_words` for any script, one character at a time."""
    out: list[str] = []
    prev = ""
    for char in nickname:
        boundary = (prev.islower() and char.isupper()) or (prev.isdigit() != char.isdigit() and prev != "")
        out.append(" " + char if boundary else char)
        prev = char
    return " ".join(_SEPARATORS.split("".join(out))).strip()


def _respan(spans: list[Span], nickname: str) -> tuple[Span, ...]:
    """Spans found on the split form cannot be mapped back exactly: cover the whole nickname."""
    return tuple(Span(start=0, end=len(nickname), label=s.label) for s in spans[:1])
