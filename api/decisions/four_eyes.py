"""Four eyes on clearing a collusion case, and a third reviewer when the first two disagree.

One analyst can confirm a collusion case (a moderator then enforces it, and bans need a second
senior anyway), but clearing one alone would let a single reviewer, wrong or bribed, wave a ring
of colluders through. So, as integrity teams do it: the first dismissal of a collusion-family case
only sends it to the seniors' queue; a second reviewer (a different person) closes it by
dismissing too. If the second reviewer confirms instead, the two disagree and a third, distinct
reviewer decides; the majority of the three distinct reviewers stands.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pipeline.categories import COLLUSION_CATEGORIES

Verdict = Literal["confirm", "dismiss"]
Outcome = Literal["confirm", "dismiss", "needs_second", "needs_third"]


@dataclass(frozen=True, slots=True)
class Vote:
    """One reviewer's confirm or dismiss on the case (their latest counts)."""

    user_id: str
    kind: Verdict


def needs_four_eyes(category: str) -> bool:
    """Whether clearing a case of this category takes two reviewers."""
    return category in COLLUSION_CATEGORIES


def outcome(votes: Iterable[Vote]) -> Outcome:
    """What the votes so far (oldest first, the new one last) decide for a collusion-family case."""
    latest: dict[str, Verdict] = {}
    for vote in votes:
        latest.pop(vote.user_id, None)  # a reviewer who changes their mind counts once, as now
        latest[vote.user_id] = vote.kind
    kinds = list(latest.values())
    dismissals, confirmations = kinds.count("dismiss"), kinds.count("confirm")
    if dismissals == 0:
        return "confirm"  # confirming alone is allowed; enforcement has its own checks
    if len(kinds) >= 3:
        return "dismiss" if dismissals > confirmations else "confirm"
    if confirmations == 0:
        return "dismiss" if dismissals >= 2 else "needs_second"
    return "needs_third"  # one confirm, one dismiss
