"""Recognising talk about a hand in progress: cards, holdings, reads and advice, in six languages.

Each signal is a list of phrases (written naturally, folded when compiled; a trailing `*` accepts
any word ending, for Slavic and Hungarian inflection). `score_hand_talk` adds the signals up; the
hand-in-play detector adds who said it to whom. Written by the team; tune with `railbird eval`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pipeline.detectors.chat.text import fold, fold_mapped
from pipeline.findings import Span

EXPLICIT = (
    # en
    "pocket *", "the nuts", "nut flush", "top set", "rockets", "cowboys", "big slick", "ace king",
    "ace queen", "pocket pair",
    # id
    "sepasang *", "kartu as", "as raja", "pocket raja", "dua as",
    # vi
    "đôi a", "đôi k", "đôi q", "đôi j", "đôi át", "cù lũ", "tứ quý",
    # hu
    "királypár*", "zsebpár*", "ászpár*",
    # uk / ru
    "кишенькові *", "пара тузів", "натс", "карманн* *", "пара тузов",
)
"""Named holdings: as specific as printed cards."""
HOLDINGS = (
    "aces", "kings", "queens", "jacks", "nuts", "a set", "flush draw", "straight draw", "full house",
    "two pair", "trips", "quads", "overpair", "a flush", "the flush", "a straight", "the straight",
    "thùng", "sảnh", "bộ ba", "xám", "ász*", "királyok*", "dámák*", "drill", "színsor",
    "туз*", "корол*", "сет", "флеш", "стріт", "стрит", "фулл", "каре",
)
"""Vague holdings: rank words and hand classes, which also turn up in unrelated talk."""
ATTRIBUTION = (
    "he has", "he's got", "hes got", "he got", "she has", "she's got", "he holds", "he is holding",
    "he's holding", "villain has", "you're beat", "ur beat", "youre beat", "he's bluffing", "hes bluffing",
    "he is bluffing", "he has nothing", "he's on a draw",
    "dia punya", "dia pegang", "dia ada", "dia bluff", "dia ngebluff",
    "nó có", "hắn có", "nó đang có", "nó bluff", "nó tháu",
    "neki van", "nála van", "blöfföl*",
    "у нього", "в нього", "він має", "вона має", "блефу*",
    "у него", "у неё", "у нее", "блефует",
)
ADVICE = (
    "fold", "call", "raise", "reraise", "shove", "go all in", "all in", "just call", "just fold",
    "don't call", "dont call", "don't fold", "dont fold", "muck it", "snap call", "3bet", "4bet",
    "lipat", "buang", "fold aja", "call aja", "raise aja", "allin aja", "all in aja", "ikut aja",
    "jangan call", "jangan ikut", "jangan fold",
    "úp đi", "úp bài", "bỏ bài", "bỏ đi", "theo đi", "tố đi", "tất tay", "all in đi", "đừng theo",
    "dobd", "dobd el", "add meg", "ne add meg", "emelj", "passzolj", "tartsd", "told be",
    "скидай", "скинь карти", "пасуй", "колл", "коль", "колли", "рейзи", "підвищуй", "ва-банк", "олл-ін",
    "не коли", "не колл",
    "сбрасывай", "скидывай", "скинь карты", "коллируй", "уравнивай", "повышай", "олл-ин", "не колли", "не уравнивай",
)
PAST = (
    "had", "folded", "called", "was", "last hand", "previous hand", "that hand", "earlier",
    "tadi", "sebelumnya", "lúc nãy", "hồi nãy", "ván trước", "előző", "az előbb", "volt",
    "минул*", "попередн*", "був", "була", "були", "мав", "прошл*", "предыдущ*", "был", "была", "было", "были",
    # First person holding: the speaker narrating their own cards, not reading someone else's.
    "i have", "my", "aku pegang", "aku punya", "saya pegang", "mình cầm", "tôi cầm", "mình có", "tôi có",
    "nekem", "у мене", "у меня",
)
"""Past tense and first-person narration: talk about a finished hand or one's own cards."""
COMMENTARY = (
    "would", "i'd", "should", "should've", "should have", "could", "i'll", "nice", "good", "great", "bad", "sick", "wp", "gj", "what a", "that", "hero", "i", "you",
    "bagus", "mantap", "aku", "saya", "hay", "đẹp", "tôi", "szép", "jó", "én", "гарн*", "хорош*",
    "класн*", "красив*", "отличн*", "чудов*", "я",
    "bátor", "rossz", "sick", "brave", "kamu", "lu", "loe", "mày", "bạn", "ты", "ти", "te", "ön", "why", "kenapa", "smelý", "сміливий", "смелый", "поганий", "плохой",
    # A call on the phone, not at the table ("brb phone call", "a video call").
    "phone", "video", "a",
)
"""Words that, right before an advice word, make it commentary or narration ("nice call", "I fold")."""
COMMENTARY_AFTER = (
    "nekat", "gila", "bagus", "mantap", "liều", "đẹp", "hay", "tệ", "dở", "me", "you", "it was",
    "911", "112", "mom", "home",  # "call 911 lol", "call mom": not at the table
)
"""Words that, right after an advice word, make it commentary ("call nekat", "call liều thế")."""

# Two ranks in capitals (AK, QQ, T9s) or two cards with suits (AhKd, A♠ K♦). "JK" is "just kidding".
# The lookahead only states what every match starts with (a rank): a pattern opening with a
# lookbehind is tried in full at every position; this one fails at once on most (2x faster).
_CARDS = re.compile(
    r"(?=[AKQJT2-9])(?<![\w])(?:(?!JK\b)[AKQJT][AKQJT2-9][so]?|[AKQJT2-9][shdc♠♥♦♣]\s?[AKQJT2-9][shdc♠♥♦♣])(?![\w])"
)


_OPEN, _CLOSE = r"(?<![\w'])(?:", r")(?![\w'])"
"""What `_phrases` wraps its alternatives in: whole words only."""


def _atoms(phrase: str) -> tuple[str, ...]:
    """A folded phrase as regex atoms: each letter escaped, `\\s+` between words, `\\w*` for a `*`."""
    atoms: list[str] = []
    for i, word in enumerate(phrase.split()):
        if i:
            atoms.append(r"\s+")
        atoms.extend(re.escape(c) for c in word.rstrip("*"))
        if word.endswith("*"):
            atoms.append(r"\w*")
    return tuple(atoms)


def _phrases(phrases: Iterable[str]) -> re.Pattern[str]:
    parts = ["".join(_atoms(phrase)) for phrase in sorted({fold(p) for p in phrases}, key=len, reverse=True)]
    return re.compile(f"{_OPEN}{'|'.join(parts)}{_CLOSE}")


_END = ""
"""The trie key marking that a phrase ends at a node (no atom is empty)."""


def _signal_of(*phrase_lists: Iterable[str]) -> re.Pattern[str]:
    """Matches where a phrase of any list does, as one alternation folded into a prefix tree:
    at each position of a text the flat alternation tries each of its ~200 phrases in turn, the
    tree one branch per distinct next letter. Only for asking *whether* a phrase occurs: which
    phrase a match is, and so its span, can differ from the flat list's."""
    root: dict[str, dict] = {}  # type: ignore[type-arg]  # a tree of dicts, as deep as the phrases
    for phrases in phrase_lists:
        for phrase in phrases:
            node = root
            for atom in _atoms(fold(phrase)):
                node = node.setdefault(atom, {})
            node[_END] = {}
    return re.compile(f"{_OPEN}{_tree(root)}{_CLOSE}")


def _tree(node: dict[str, dict]) -> str:  # type: ignore[type-arg]
    branches = [atom + _tree(child) for atom, child in sorted(node.items()) if atom != _END]
    if _END in node:
        if not branches:
            return ""
        branches.append("")
    return branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"


def _any_of(patterns: Sequence[re.Pattern[str]]) -> re.Pattern[str]:
    """One pattern (with the first one's flags) that matches where any of `patterns` does: one pass
    over the text, not one each; `_phrases` patterns share their word-boundary wrapper, written once."""
    bodies = [p.pattern for p in patterns]
    if all(b.startswith(_OPEN) and b.endswith(_CLOSE) for b in bodies):
        inner = "|".join(b[len(_OPEN) : -len(_CLOSE)] for b in bodies)
        return re.compile(f"{_OPEN}{inner}{_CLOSE}", patterns[0].flags)
    return re.compile("|".join(f"(?:{b})" for b in bodies), patterns[0].flags)


@dataclass(frozen=True, slots=True)
class HandTalk:
    """Signals found in one message and the spans that show them."""

    score: float
    spans: tuple[Span, ...]
    advice: bool
    holding: bool


@dataclass(frozen=True, slots=True)
class HandTalkModel:
    """Compiled phrase lists and signal weights."""

    explicit: re.Pattern[str]
    holdings: re.Pattern[str]
    attribution: re.Pattern[str]
    advice: re.Pattern[str]
    past: re.Pattern[str]
    commentary: re.Pattern[str]
    commentary_after: re.Pattern[str]
    w_cards: float = 0.5
    w_holding: float = 0.35
    w_attribution: float = 0.35
    w_advice: float = 0.45
    w_exclaim: float = 0.1
    w_past: float = -0.3
    signal: re.Pattern[str] | None = field(default=None, repr=False, compare=False)
    """Matches where any phrase of the four scoring lists occurs (`_signal_of`, a prefix tree);
    None: one alternation of the four patterns is made from them."""
    _signal: re.Pattern[str] | None = field(init=False, default=None, repr=False, compare=False)
    """Matches where any phrase that adds to the score does: most lines have none, and one pass
    proves it (past tense and commentary only ever lower a score that something else raised)."""

    def __post_init__(self) -> None:
        signal = self.signal
        flags = {p.flags for p in (self.explicit, self.holdings, self.attribution, self.advice)}
        if signal is None and len(flags) == 1:  # always, for compiled phrase lists; otherwise no shortcut
            signal = _any_of((self.explicit, self.holdings, self.attribution, self.advice))
        object.__setattr__(self, "_signal", signal)  # frozen: set once, here

    def score(self, text: str) -> HandTalk:
        """Sum of the signals present (0 when none); spans labelled cards/holding/read/advice."""
        folded, where = fold_mapped(text, leet=False)
        if self._signal is not None and self._signal.search(folded) is None and _CARDS.search(text) is None:
            return _NO_TALK
        spans: list[Span] = [Span(start=m.start(), end=m.end(), label="cards") for m in _CARDS.finditer(text)]
        score = self.w_cards if spans else 0.0
        named = self._spans(self.explicit, folded, where, "holding")
        if named and not spans:
            score += self.w_cards
        holding = named + [s for s in self._spans(self.holdings, folded, where, "holding") if not _inside(s, named)]
        if holding and not spans and not named:
            score += self.w_holding
        read = self._spans(self.attribution, folded, where, "read")
        score += self.w_attribution if read else 0.0
        narrated = self.past.search(folded) is not None
        # In narration ("I had AK, folded"), advice words describe what happened: not advice.
        advice = [] if narrated else [
            s for s in self._spans(self.advice, folded, where, "advice") if not self._commentary(folded, where, s)
        ]
        if advice:
            score += self.w_advice + (self.w_exclaim if "!" in text else 0.0)
        if score > 0 and narrated:
            score += self.w_past
        spans += holding + read + advice
        return HandTalk(max(0.0, score), tuple(sorted(spans, key=lambda s: s.start)), bool(advice), bool(spans))

    @staticmethod
    def _spans(pattern: re.Pattern[str], folded: str, where: Sequence[int], label: str) -> list[Span]:
        return [Span(start=where[m.start()], end=where[m.end() - 1] + 1, label=label) for m in pattern.finditer(folded) if m.end() > m.start()]

    def _commentary(self, folded: str, where: Sequence[int], span: Span) -> bool:
        start = where.index(span.start) if span.start in where else 0
        end = where.index(span.end - 1) + 1 if span.end - 1 in where else len(folded)
        before = folded[max(0, start - 16) : start].rstrip(" ,!.?")
        last = before.rsplit(maxsplit=2)
        tail = " ".join(last[-2:]) if last else ""
        if any(self.commentary.fullmatch(t) for t in (tail, last[-1] if last else "")):
            return True
        after = folded[end : end + 16].lstrip(" ,").split(maxsplit=2)
        return any(self.commentary_after.fullmatch(t) for t in (" ".join(after[:2]), after[0] if after else ""))


_NO_TALK = HandTalk(0.0, (), False, False)
"""What `score` returns for a line with no card, holding, read or advice in it."""


def compile_hand_talk() -> HandTalkModel:
    """The default phrase lists, compiled."""
    return HandTalkModel(
        explicit=_phrases(EXPLICIT),
        holdings=_phrases(HOLDINGS),
        attribution=_phrases(ATTRIBUTION),
        advice=_phrases(ADVICE),
        past=_phrases(PAST),
        commentary=_phrases(COMMENTARY),
        commentary_after=_phrases(COMMENTARY_AFTER),
        signal=_signal_of(EXPLICIT, HOLDINGS, ATTRIBUTION, ADVICE),
    )


def _inside(span: Span, others: list[Span]) -> bool:
    return any(o.start <= span.start and span.end <= o.end for o in others)
