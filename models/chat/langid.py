"""Language of a chat line among the room's languages: script and function-word votes first,
lingua (its model ships inside the wheel) only for the ambiguous rest, memoised per instance.

lingua costs ~150 us per message even in low-accuracy mode (measured), three times the whole
per-message budget, so the cheap evidence decides most lines.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Any

from models.chat.tokens import letter_words

LANGUAGES = ("en", "id", "vi", "hu", "uk", "ru")

_VI_CHARS = re.compile(r"[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]")
_HU_CHARS = re.compile(r"[őű]")
_UK_CHARS = re.compile(r"[іїєґ]")
_RU_CHARS = re.compile(r"[ыэёъ]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[a-záéíóöúüàèìòùãõâêîôûç]")

_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        [
            "the",
            "you",
            "i",
            "is",
            "are",
            "was",
            "and",
            "to",
            "of",
            "it",
            "that",
            "this",
            "what",
            "my",
            "your",
            "me",
            "he",
            "she",
            "not",
            "have",
            "has",
            "do",
            "don't",
            "can",
            "just",
            "with",
            "for",
            "on",
            "in",
            "so",
            "why",
            "how",
            "nice",
            "good",
            "lol",
            "thanks",
            "ty",
            "gg",
            "wp",
            "man",
            "guys",
            "all",
        ]
    ),
    "id": frozenset(
        [
            "yang",
            "aku",
            "kamu",
            "tidak",
            "gak",
            "ga",
            "nggak",
            "ini",
            "itu",
            "dan",
            "di",
            "ke",
            "dari",
            "ada",
            "saya",
            "anda",
            "apa",
            "kenapa",
            "juga",
            "sudah",
            "udah",
            "bisa",
            "mau",
            "lagi",
            "aja",
            "saja",
            "banget",
            "kok",
            "dong",
            "deh",
            "sih",
            "nih",
            "bang",
            "mas",
            "bro",
            "terima",
            "kasih",
            "main",
        ]
    ),
    "vi": frozenset(
        [
            "la",
            "khong",
            "cua",
            "va",
            "co",
            "toi",
            "ban",
            "minh",
            "nay",
            "do",
            "thi",
            "nhe",
            "nha",
            "roi",
            "duoc",
            "gi",
            "sao",
            "di",
            "em",
            "anh",
            "chi",
            "oi",
            "lam",
            "qua",
            "the",
            "ma",
            "vay",
            "chu",
            "cam",
            "on",
            "choi",
            "hay",
        ]
    ),
    "hu": frozenset(
        [
            "és",
            "nem",
            "hogy",
            "egy",
            "az",
            "ez",
            "van",
            "vagy",
            "de",
            "csak",
            "meg",
            "már",
            "is",
            "te",
            "én",
            "mi",
            "ki",
            "mit",
            "miért",
            "jó",
            "köszi",
            "kösz",
            "szia",
            "sziasztok",
            "nagyon",
            "volt",
            "lesz",
            "kell",
            "igen",
            "hát",
        ]
    ),
    "uk": frozenset(
        [
            "що",
            "як",
            "це",
            "не",
            "так",
            "і",
            "й",
            "та",
            "ти",
            "я",
            "він",
            "вона",
            "ми",
            "ви",
            "дякую",
            "привіт",
            "гра",
            "добре",
            "тут",
            "вже",
        ]
    ),
    "ru": frozenset(
        [
            "что",
            "как",
            "это",
            "не",
            "так",
            "и",
            "ты",
            "я",
            "он",
            "она",
            "мы",
            "вы",
            "спасибо",
            "привет",
            "игра",
            "хорошо",
            "тут",
            "уже",
        ]
    ),
}


_VOTERS = ("en", "id", "vi", "hu")
"""Latin-script languages decided by function-word votes (a unique best count wins)."""
_LATIN_VOTES = {
    word: tuple(k for k, lang in enumerate(_VOTERS) if word in _FUNCTION_WORDS[lang])
    for word in frozenset().union(*(_FUNCTION_WORDS[lang] for lang in _VOTERS))
}
_LATIN_FUNCTION_WORDS = frozenset(_LATIN_VOTES)


class LanguageGuesser:
    """Guesses a language code per text; builds its lingua detector once, lazily."""

    def __init__(self, *, use_lingua: bool = True, cache_size: int = 20_000) -> None:
        self.use_lingua = use_lingua
        self.cache_size = cache_size
        self._cache: OrderedDict[str, str] = OrderedDict()
        self._detector: Any = None
        self._lock = threading.Lock()

    def clear_memo(self) -> None:
        """Forget lingua's memoised answers."""
        with self._lock:
            self._cache.clear()

    def guess(self, text: str) -> str:
        """ISO 639-1 code among `LANGUAGES`, or 'und' when the text carries no language."""
        return self.guess_lowered(text[:400].lower())

    def guess_lowered(self, text: str) -> str:
        """`guess` of a text that `str.lower` leaves unchanged (a `plain` view: every character
        the views produce is its own lower case, checked over all code points in the tests)."""
        lowered = text[:400]
        if _CYRILLIC.search(lowered):
            return self._cyrillic(lowered)
        if not _LATIN.search(lowered):
            return "und"
        if _VI_CHARS.search(lowered):
            return "vi"
        if _HU_CHARS.search(lowered):
            return "hu"
        words = letter_words(lowered)
        # Distinct function words vote; one set intersection in C finds the few that do.
        votes = [0] * len(_VOTERS)
        for word in _LATIN_FUNCTION_WORDS.intersection(words):
            for k in _LATIN_VOTES[word]:
                votes[k] += 1
        top = max(votes)
        if top > 0 and votes.count(top) == 1:
            return _VOTERS[votes.index(top)]
        if len(words) < 4:
            return "und"  # too short for lingua to beat a guess, and it costs ~150 us
        return self._lingua(lowered, ("en", "id", "vi", "hu"))

    def _cyrillic(self, text: str) -> str:
        uk, ru = bool(_UK_CHARS.search(text)), bool(_RU_CHARS.search(text))
        if uk != ru:
            return "uk" if uk else "ru"
        words = letter_words(text)
        v_uk = sum(1 for w in words if w in _FUNCTION_WORDS["uk"])
        v_ru = sum(1 for w in words if w in _FUNCTION_WORDS["ru"])
        if v_uk != v_ru:
            return "uk" if v_uk > v_ru else "ru"
        return self._lingua(text, ("uk", "ru"))

    def _lingua(self, text: str, allowed: tuple[str, ...]) -> str:
        if not self.use_lingua:
            return allowed[0]
        with self._lock:  # the classifier is shared by consumer lanes (threads)
            hit = self._cache.get(text)
            if hit is not None:
                return hit
            if self._detector is None:
                self._detector = _build_detector()
        lang = self._detector.detect_language_of(text)
        code = lang.iso_code_639_1.name.lower() if lang is not None else "und"
        result = code if code in allowed else allowed[0]
        with self._lock:
            self._cache[text] = result
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return result


def _build_detector() -> Any:
    """lingua detector restricted to the room's languages, low-accuracy mode (short texts anyway)."""
    from lingua import Language, LanguageDetectorBuilder

    langs = [Language.ENGLISH, Language.INDONESIAN, Language.VIETNAMESE, Language.HUNGARIAN]
    langs += [Language.UKRAINIAN, Language.RUSSIAN]
    return LanguageDetectorBuilder.from_languages(*langs).with_low_accuracy_mode().build()
