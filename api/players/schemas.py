"""Player history shapes."""

from __future__ import annotations

from api.cases.schemas import CasePublic
from api.findings.schemas import FindingPublic
from api.sanctions.schemas import SanctionPublic
from api.schemas import Public


class PlayerHistoryPublic(Public):
    """Findings, cases and sanctions where the player is the main subject (newest first)."""

    player_id: str
    findings: list[FindingPublic]
    cases: list[CasePublic]
    sanctions: list[SanctionPublic]


class ActiveSanctions(Public):
    """What a game server must enforce for this player right now."""

    player_id: str
    sanctions: list[SanctionPublic]
