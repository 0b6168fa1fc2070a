"""Every game a hand record may carry: one explicit table from the PHH-style code to its rules.

The engine, the settlement, the equity code and the importers all read this table, so adding a game
is one row here (and its showdown rules in `showdown.py`), never an `if variant == "NT"` elsewhere.
Codes are PHH's where PHH has one (NT, NS, PO, FO/8, F7S, ...); Railbird adds the pot-limit and
fixed-limit flop games PHH leaves out (PT, FO, PO/8) and the big-Omaha games (PO5, PO6), spelled the
PHH way (betting letter + game).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Variant = Literal[
    "NT", "PT", "FT", "NS", "PO", "NO", "FO", "PO/8", "FO/8", "PO5", "PO5/8", "PO6",
    "F7S", "F7S/8", "FR", "FB", "NR", "PD", "FD", "N2L1D", "F2L3D",
]
"""Variant codes of `hand.records` (NT = no-limit Texas hold'em, PO = pot-limit Omaha, ...)."""

Betting = Literal["no", "pot", "fixed"]
Family = Literal["holdem", "short", "omaha", "stud", "draw"]


@dataclass(frozen=True, slots=True)
class VariantSpec:
    """The rules of one game that the replay and the showdown need."""

    code: str
    name: str
    betting: Betting
    family: Family
    hole: int
    """Hole cards dealt to each player (flop games); 0 for stud and draw."""
    hi_lo: bool = False
    """Pots split between the best high and the best 8-or-better low."""

    @property
    def analysed(self) -> bool:
        """Replayed, validated and fed to the detectors (flop games); stud and draw are carried only."""
        return self.family in ("holdem", "short", "omaha")


def _spec(code: str, name: str, betting: Betting, family: Family, hole: int, hi_lo: bool = False) -> VariantSpec:
    return VariantSpec(code, name, betting, family, hole, hi_lo)


VARIANTS: dict[str, VariantSpec] = {
    s.code: s
    for s in (
        _spec("NT", "no-limit hold'em", "no", "holdem", 2),
        _spec("PT", "pot-limit hold'em", "pot", "holdem", 2),
        _spec("FT", "fixed-limit hold'em", "fixed", "holdem", 2),
        _spec("NS", "no-limit short-deck hold'em", "no", "short", 2),
        _spec("PO", "pot-limit Omaha", "pot", "omaha", 4),
        _spec("NO", "no-limit Omaha", "no", "omaha", 4),
        _spec("FO", "fixed-limit Omaha", "fixed", "omaha", 4),
        _spec("PO/8", "pot-limit Omaha hi/lo", "pot", "omaha", 4, hi_lo=True),
        _spec("FO/8", "fixed-limit Omaha hi/lo", "fixed", "omaha", 4, hi_lo=True),
        _spec("PO5", "pot-limit 5-card Omaha", "pot", "omaha", 5),
        _spec("PO5/8", "pot-limit 5-card Omaha hi/lo", "pot", "omaha", 5, hi_lo=True),
        _spec("PO6", "pot-limit 6-card Omaha", "pot", "omaha", 6),
        _spec("F7S", "fixed-limit seven-card stud", "fixed", "stud", 0),
        _spec("F7S/8", "fixed-limit seven-card stud hi/lo", "fixed", "stud", 0, hi_lo=True),
        _spec("FR", "fixed-limit razz", "fixed", "stud", 0),
        _spec("FB", "fixed-limit badugi", "fixed", "draw", 0),
        _spec("NR", "no-limit razz (legacy code)", "no", "stud", 0),
        _spec("PD", "pot-limit draw (legacy code)", "pot", "draw", 0),
        _spec("FD", "fixed-limit draw (legacy code)", "fixed", "draw", 0),
        _spec("N2L1D", "no-limit 2-7 single draw", "no", "draw", 0),
        _spec("F2L3D", "fixed-limit 2-7 triple draw", "fixed", "draw", 0),
    )
}

assert set(VARIANTS) == set(get_args(Variant)), "the Variant literal and the table must list the same codes"


def variant_spec(code: str) -> VariantSpec | None:
    """The rules of a variant code, None for an unknown code."""
    return VARIANTS.get(code)
