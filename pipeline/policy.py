"""Enforcement policy: which sanction each finding calls for, and whether it may apply itself.

Automatic only where the rules are mechanical (the table-leaving ladder, computed by its detector)
or the evidence is overwhelming for a first, short measure (a brief chat mute); everything else is a
proposal that an analyst confirms and a moderator enforces.
"""

from __future__ import annotations

from datetime import timedelta

from pipeline.contracts.enforcement import ActionKind, Scope
from pipeline.findings import ActionProposal, Finding, stable_id
from pipeline.rules import RulesConfig

PROPOSED_BY_CATEGORY: dict[str, tuple[ActionKind, Scope, str | None]] = {
    "hand_in_play": ("comms_suspension", "feature", "chat,emoji,snapcam"),
    "snapcam_abuse": ("snapcam_revocation", "feature", "snapcam"),
    "offensive_nickname": ("nickname_reset", "account", None),
    "collusive_sit_out": ("tournament_disqualification", "tournament", None),
    "bounty_agreement": ("tournament_disqualification", "tournament", None),
    "soft_play": ("account_suspension", "account", None),
    "chip_dumping": ("account_suspension", "account", None),
    "bumhunting": ("account_suspension", "account", None),
}
"""Sanction a reviewer is offered per finding category; chat categories default to a chat ban."""

CHAT_DEFAULT: tuple[ActionKind, Scope, str | None] = ("chat_ban", "feature", "chat")
AUTO_MUTE_CATEGORIES = frozenset({"insult", "hate", "threat", "sexual", "spam", "flooding"})


def propose_actions(finding: Finding, *, rules: RulesConfig) -> tuple[ActionProposal, ...]:
    """Actions for a finding that carries none yet; a detector's own actions are kept as they are."""
    if finding.actions:
        return finding.actions
    kind, scope, value = PROPOSED_BY_CATEGORY.get(finding.category, CHAT_DEFAULT)
    if finding.family == "chat" and _auto_mute(finding, rules):
        return (_mute(finding, rules),)
    if scope == "tournament":
        value = finding.tournament_id
    return (
        ActionProposal(
            action_id=stable_id("act", finding.finding_id, kind),
            disposition="proposed",
            kind=kind,
            scope=scope,
            scope_value=value,
            player_id=finding.subject,
            starts_at=finding.ts,
            expires_at=None,
            reason=finding.summary,
            rule=finding.rule,
        ),
    )


def _auto_mute(finding: Finding, rules: RulesConfig) -> bool:
    return finding.category in AUTO_MUTE_CATEGORIES and finding.score >= rules.auto_mute_min_score


def _mute(finding: Finding, rules: RulesConfig) -> ActionProposal:
    return ActionProposal(
        action_id=stable_id("act", finding.finding_id, "chat_mute"),
        disposition="automatic",
        kind="chat_mute",
        scope="feature",
        scope_value="chat",
        player_id=finding.subject,
        starts_at=finding.ts,
        expires_at=finding.ts + timedelta(minutes=rules.auto_mute_minutes),
        reason=f"automatic short mute: {finding.summary}",
        rule=finding.rule,
    )
