"""English slurs against groups, written by the team for the Davidson recipe check only (not the
shipped model): Davidson's hate class is mostly group slurs, but each rare slur is seen a handful of
times in training, too few for its own n-gram weight; one shared "holds a slur" feature pools them.
Words whose everyday sense dominates (monkey, ape, savage, yellow) are left out of the slurs.

`hate_features` adds pooled cues the slur count alone misses (written from general knowledge of
hate speech, not read off data-set rows): which kind of slur (racial / about sexuality / other),
neutral mentions of groups, and a group mentioned beside a hostile word ("kill", "vermin") or a
slur. Davidson's annotators tell hate from offence mostly by whether a GROUP is attacked."""

from __future__ import annotations

import math
import re

_RACE = """
    nigger niggers spic spics wetback wetbacks beaner beaners chink chinks gook gooks kike kikes
    raghead ragheads towelhead towelheads coon coons jigaboo jigaboos muzzie muzzies zipperhead
    wop wops dago dagos paki pakis halfbreed heeb hebe cholo
"""
_SEXUALITY = """
    faggot faggots fag fags faggy dyke dykes queer queers tranny trannies homo homos lesbo lesbos
    shemale
"""
_OTHER = """
    retard retards retarded mongoloid mongoloids cracker crackers honky honkies hillbilly
    hillbillies redneck rednecks gypsy gypsies
"""
RACE, SEXUALITY, OTHER = (frozenset(words.split()) for words in (_RACE, _SEXUALITY, _OTHER))
SLURS = RACE | SEXUALITY | OTHER
PHRASES = (
    "white trash", "sand nigger", "porch monkey", "jungle bunny", "tar baby", "uncle tom",
    "camel jockey", "illegal alien", "illegal aliens",
)  # fmt: skip
_GROUPS = """
    white whites black blacks jew jews jewish muslim muslims islam arab arabs mexican mexicans
    immigrant immigrants asian asians chinese african africans gay gays lesbian lesbians women
    woman girls latino latinos hispanic hispanics indian indians christian christians catholic
    catholics race racist colored negro negroes
"""
_HOSTILE = """
    kill killed hate hating die exterminate deport ban disgusting filthy dirty savage savages
    animals animal subhuman vermin inbred trash scum
"""
GROUPS = frozenset(_GROUPS.split())
"""Neutral names of groups (a group being talked about, not yet attacked)."""
HOSTILE = frozenset(_HOSTILE.split())
"""Words that turn a group mention into an attack when they stand in the same tweet."""
_WORD = re.compile(r"[a-z]+")


def _count(words: list[str], listed: frozenset[str]) -> int:
    return sum(1 for w in words if w in listed or w.rstrip("s") in listed)


def slur_features(text: str) -> tuple[float, float]:
    """(holds a slur, log(1 + slurs)) of one text; plural "-s" forms count too."""
    lowered = text.lower()
    n = _count(_WORD.findall(lowered), SLURS)
    n += sum(lowered.count(p) for p in PHRASES)
    return float(n > 0), math.log1p(n)


def hate_features(text: str) -> tuple[float, ...]:
    """`slur_features` then: holds a racial / sexuality / other slur, log(1 + group mentions),
    a group mention beside a hostile word, a group mention beside a slur."""
    words = _WORD.findall(text.lower())
    race, sexuality, other = (_count(words, s) for s in (RACE, SEXUALITY, OTHER))
    groups, hostile = _count(words, GROUPS), _count(words, HOSTILE)
    slurs = race + sexuality + other
    return (
        *slur_features(text),
        float(race > 0), float(sexuality > 0), float(other > 0), math.log1p(groups),
        float(groups > 0 and hostile > 0), float(slurs > 0 and groups > 0),
    )  # fmt: skip
