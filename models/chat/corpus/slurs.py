"""English slurs against groups, written by the team for the Davidson recipe check only (not the
shipped model): Davidson's hate class is mostly group slurs, but each rare slur is seen a handful of
times in training, too few for its own n-gram weight; one shared "holds a slur" feature pools them.
Words whose everyday sense dominates (monkey, ape, savage, yellow) are left out."""

from __future__ import annotations

import math
import re

_LIST = """
    nigger niggers faggot faggots fag fags faggy dyke dykes queer queers tranny trannies retard
    retards retarded spic spics wetback wetbacks beaner beaners chink chinks gook gooks kike kikes
    raghead ragheads towelhead towelheads coon coons jigaboo jigaboos cracker crackers honky
    honkies hillbilly hillbillies redneck rednecks gypsy gypsies muzzie muzzies zipperhead wop wops
    dago dagos paki pakis halfbreed mongoloid mongoloids homo homos lesbo lesbos shemale heeb hebe
    cholo
"""
SLURS = frozenset(_LIST.split())
PHRASES = (
    "white trash", "sand nigger", "porch monkey", "jungle bunny", "tar baby", "uncle tom",
    "camel jockey", "illegal alien", "illegal aliens",
)  # fmt: skip
_WORD = re.compile(r"[a-z]+")


def slur_features(text: str) -> tuple[float, float]:
    """(holds a slur, log(1 + slurs)) of one text; plural "-s" forms count too."""
    lowered = text.lower()
    n = sum(1 for w in _WORD.findall(lowered) if w in SLURS or w.rstrip("s") in SLURS)
    n += sum(lowered.count(p) for p in PHRASES)
    return float(n > 0), math.log1p(n)
