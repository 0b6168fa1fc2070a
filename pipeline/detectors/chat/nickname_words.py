"""Vulgar words inside nicknames: names run words together ("FuckTheFish"), hide letters behind
digits ("Sh1tHead", "C0ckSuck3r") and must not be flagged for a clean word that happens to hold a
vulgar one ("Assassin_77", "Dickens_Reader", "Cockatoo_Joe": the Scunthorpe problem).

Two lists, hand-written per room language like the chat lexicon (`lexicon.ABUSE_TERMS`):

- `ROOTS` are vulgar wherever they sit in a name: no everyday word contains them, or the few
  that do are in `HIDES_A_ROOT` and are cut out of the name before the search;
- `WORDS` are vulgar only as a whole word of the name (after splitting at case changes, digits and
  separators): "cock", "dick", "ass" hide inside too many clean words and names to be searched
  for as substrings.

The licensed word lists (LDNOOBW, slaviclean) are not used here as they are by the model's
lexicon: they hold thousands of entries that are clean words in a name ("assassin" and "cockatoo"
are in LDNOOBW v2 English), which is exactly what a nickname check must not flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.detectors.chat.text import fold


def _folded(words: str) -> frozenset[str]:
    return frozenset(fold(w) for w in words.split())


ROOTS: frozenset[str] = _folded(
    """
    fuck fck fvck phuck motherf shit bullshit cunt wank whore slut bitch pussy penis porn
    nigger nigga faggot cocksuck dicksuck dickhead asshole arsehole dumbass jackass asshat jizz
    blowjob handjob dildo rapist
    kontol memek ngentot ngewe jancok bangsat pepek
    ditme dumemay dcm vcl occho
    kurva fasz picsa geci bazdmeg buzi
    хуй хуе хуё пизд ебал ебан ебат ёбан блят блядь бляд сука сучк мудак мудил пидор пидар підор підар
    гандон залуп
    """
)
"""Vulgar wherever they sit in a (folded) name."""

WORDS: frozenset[str] = _folded(
    """
    fuk cock cocks dicks ass arse tits titties boobs cum anal rape fag fags twat prick nazi sex
    asu tetek itil
    segg
    """
)
"""Vulgar only as a whole word of the name ("Cock_Joe", but not "Cockatoo_Joe"). Left out as
names or everyday words: "dick" (Moby_Dick, Philip K. Dick), "homo" (Homo_Sapiens), Indonesian
"tai" (Tai_Chi) and "babi" (Babi_Guling, a dish), Vietnamese words that fold onto everyday ones
(lồn and lớn "big" both fold to "lon", cặc and các to "cac", buồi and buổi to "buoi")."""

HIDES_A_ROOT: tuple[str, ...] = tuple(
    fold(w)
    for w in (
        "scunthorpe", "shiitake", "shitake", "matsushita", "mishit", "pushit", "penistone", "pussycat",
        "swank", "sucker", "cocksure", "therapist",
        "страхуй", "застрахуй", "рубля", "корабля", "сукач", "сукин", "кусука",
    )
)  # fmt: skip
"""Clean words holding a root: cut out of a name before the substring search ("sucker" so that
"suckerpunch" is not "cocksuck" across a word join; "Matsushita" is a name, "therapist" a job)."""

_LEET = str.maketrans("013457@$", "oieastas")
_GLUED_DIGITS = re.compile(r"(?<=[^\W\d_])[0134578@$]+(?=[^\W\d_])")
_EDGE_DIGITS = re.compile(r"(?<=[^\W\d_])[0134578@$]+|[0134578@$]+(?=[^\W\d_])")
_WORD = re.compile(r"[^\W\d_]+")
_BOUNDARY = re.compile(r"(?<=[^\W\d_])(?=[A-ZА-ЯІЇЄҐ][a-zа-яіїєґ])|(?<=[a-zа-яіїєґ])(?=[A-ZА-ЯІЇЄҐ])")


@dataclass(frozen=True, slots=True)
class VulgarHit:
    """What made a name vulgar: the word or root, and whether it was a whole word of the name."""

    term: str
    whole_word: bool


def undo_leet(nickname: str, *, edges: bool = False) -> str:
    """Digits and `@`/`$` between two letters read as the letters they stand for
    ("Sh1tHead" -> "ShitHead", "C0ckSuck3r" -> "CockSucker"); digits at a word's edge are a
    number ("Assassin_77", "Closer77", "Player1" are left as they are) unless `edges`."""
    glued = _EDGE_DIGITS if edges else _GLUED_DIGITS
    return glued.sub(lambda m: m.group().translate(_LEET), nickname)


def name_words(nickname: str, *, edges: bool = False) -> list[str]:
    """The folded words of a name: split at case changes, digits and separators after leetspeak
    is undone ("FuckTheFish_99" -> fuck, the, fish)."""
    return _words(undo_leet(nickname, edges=edges))


def _words(unleeted: str) -> list[str]:
    return [fold(w) for w in _WORD.findall(_BOUNDARY.sub(" ", unleeted))]


def vulgar_in_name(nickname: str) -> VulgarHit | None:
    """The first vulgar word or root of a name, or None. Digits at a word's edge are read as
    letters too ("5hitHead"), but only for whole words: read so everywhere, "Lucky7" and
    "Poker4Life" become other words, and "CalmFish175" would hide "shit" ("calmfishits")."""
    inner = undo_leet(nickname)
    edged = undo_leet(nickname, edges=True)
    return (
        _whole_word(_words(inner))
        # Most names have no digit at a word's edge: the same words, not looked up twice.
        or (_whole_word(_words(edged)) if edged != inner else None)
        or _hidden_root(inner, _ROOTS_IN_ORDER)
    )


def hidden_in_name(nickname: str, term: str) -> bool:
    """Whether a (folded) term sits inside the name by the rules of `_hidden_root`: within one run
    of letters, and at the start of one of its words where the run changes case."""
    return _hidden_root(undo_leet(nickname), (term,)) is not None


def _whole_word(words: list[str]) -> VulgarHit | None:
    for word in words:
        if word in WORDS or word in ROOTS or _plural(word) in WORDS:
            return VulgarHit(word, whole_word=True)
    return None


_ROOTS_IN_ORDER = tuple(sorted(ROOTS))
"""`ROOTS` in the order they are searched for (sorted once, not per name)."""
_ANY_ROOT = re.compile("|".join(map(re.escape, _ROOTS_IN_ORDER)))
"""Finds whether any root occurs at all: one pass over a run instead of one `find` per root."""


def _hidden_root(name: str, roots: tuple[str, ...]) -> VulgarHit | None:
    """A root inside one run of letters of the name. Where the run has case changes, the root
    must start one of its words ("TheRealAsshole", "xXSHITxX"), so a root spelt across a word
    join is no hit ("FishItOut" holds f-i-s-h-i-t); a run in one case ("fuckthefish") can only be
    searched as it is."""
    runs = _WORD.findall(name)
    letters = "".join(r for r in runs if len(r) == 1)  # spaced out: "f_u_c_k_e_r"
    for run in [*runs, *([letters] if len(letters) >= 3 else [])]:
        words = [fold(w) for w in _BOUNDARY.sub(" ", run).split()]
        flat = "".join(words)
        # Most names: no root anywhere in the run, so none to place. Blanking the clean words
        # below can only remove a root, never make one, so the test can come first.
        if roots is _ROOTS_IN_ORDER and _ANY_ROOT.search(flat) is None:
            continue
        for clean in HIDES_A_ROOT:
            if clean in flat:
                flat = flat.replace(clean, " " * len(clean))
        starts = {sum(len(w) for w in words[:i]) for i in range(len(words))}
        one_case = run.islower() or run.isupper()
        for root in roots:  # in the caller's order: the first root found is the one named
            at = flat.find(root)
            while at >= 0:
                if one_case or at in starts:
                    return VulgarHit(root, whole_word=False)
                at = flat.find(root, at + 1)
    return None


def _plural(word: str) -> str:
    for ending in ("es", "s", "z"):
        if word.endswith(ending) and len(word) > len(ending) + 2:
            return word[: -len(ending)]
    return word
