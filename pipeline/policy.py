"""Enforcement policy: which sanction each finding calls for, and whether it may apply itself.

Automatic only where the rules are mechanical (the table-leaving ladder, computed by its detector)
or the evidence is overwhelming for a first, short measure (a brief chat mute for a high-scoring
first offence); everything else is a proposal that an analyst confirms and a moderator enforces.
Chat escalation reads what the chat detectors put in the evidence: `prior_offences` and
`prior_same_category` (from the offence ledger) and `offence_count` (from `chat.repeat_offender`).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from pipeline.categories import AUDIT_SAMPLE, COLLUSION_CATEGORIES
from pipeline.contracts.enforcement import ActionKind, Scope
from pipeline.findings import ActionProposal, Finding, Role, stable_id
from pipeline.rules import RulesConfig
from pipeline.text_model import AUTOMATIC_POINT

PROPOSED_BY_CATEGORY: dict[str, tuple[ActionKind, Scope, str | None]] = {
    "hand_in_play": ("comms_suspension", "feature", "chat,emoji,snapcam"),
    "snapcam_abuse": ("snapcam_revocation", "feature", "snapcam"),
    "false_reporting": ("chat_restriction", "feature", "snapcam_reports"),
    "offensive_nickname": ("nickname_reset", "account", None),
    "repeat_offender": ("chat_ban", "feature", "chat"),
    "collusive_sit_out": ("tournament_disqualification", "tournament", None),
    "bounty_agreement": ("tournament_disqualification", "tournament", None),
    "soft_play": ("account_suspension", "account", None),
    "chip_dumping": ("account_suspension", "account", None),
    "bumhunting": ("account_suspension", "account", None),
}
"""Sanction a reviewer is offered per finding category; other chat categories: a chat restriction."""

CHAT_DEFAULT: tuple[ActionKind, Scope, str | None] = ("chat_restriction", "feature", "chat")
RECORD_ONLY_CATEGORIES = frozenset({"hit_and_run", AUDIT_SAMPLE})
"""Findings kept on the record with no sanction unless their detector set one (a 1st refusal; an
audit sample never sets one: it is a question to an analyst, not an accusation)."""
VICTIM_REMEDY_CATEGORIES = frozenset({"bumhunting"})
"""Findings whose evidence names victims the rules offer a remedy (a nickname reset, section 4)."""
AUTO_MUTE_CATEGORIES = frozenset({"insult", "hate", "threat", "sexual", "spam", "flooding", "emoji_spam"})


def propose_actions(finding: Finding, *, rules: RulesConfig) -> tuple[ActionProposal, ...]:
    """Actions for a finding that carries none yet; a detector's own actions are kept as they are."""
    if finding.actions or finding.category in RECORD_ONLY_CATEGORIES:
        return finding.actions
    kind, scope, value = PROPOSED_BY_CATEGORY.get(finding.category, CHAT_DEFAULT)
    if finding.family == "chat" and _auto_mute(finding, rules):
        return (_mute(finding, rules),)
    if scope == "tournament":
        value = finding.tournament_id
        if value is None:
            # Agreement talk in private chat names no tournament: a disqualification from "some
            # tournament" is nothing a game server can enforce. The case is reviewed with no
            # proposal; the moderator names the tournament in a custom sanction.
            return ()
    expires = _expiry(finding, rules)
    proposals = [
        ActionProposal(
            action_id=_action_id(finding, kind, player),
            disposition="proposed",
            kind=kind,
            scope=scope,
            scope_value=value,
            player_id=player,
            starts_at=finding.ts,
            expires_at=expires,
            reason=finding.summary if role == "offender" else f"{role} of {finding.subject}: {finding.summary}",
            rule=finding.rule,
            role=role,
        )
        for player, role in _offenders(finding)
    ]
    if finding.category in VICTIM_REMEDY_CATEGORIES:
        proposals.extend(_nickname_reset_offer(finding, victim) for victim in _victims(finding))
    return tuple(proposals)


def _victims(finding: Finding) -> list[str]:
    """The victims a finding's evidence lists (bumhunting: weak players met again and again)."""
    listed = finding.evidence.get("victims")
    if not isinstance(listed, list):
        return []
    return [v for v in dict.fromkeys(listed) if isinstance(v, str) and v and v != finding.subject]


def _offenders(finding: Finding) -> list[tuple[str, Role]]:
    """Who a finding's sanction targets: every reporter of a false report, every colluder named,
    else the main subject alone (other players named are victims or targets, not offenders)."""
    if finding.category == "false_reporting":
        return [(p, "offender") for p in finding.players]
    if finding.category in COLLUSION_CATEGORIES:
        # Collusion takes two: the chip-dump receiver, the sit-out partner and the player who agreed
        # to the deal are sanctioned with the subject, each a proposal of their own.
        return [(finding.subject, "offender"), *((p, "partner") for p in dict.fromkeys(finding.players[1:])
                                                 if p != finding.subject)]
    return [(finding.subject, "offender")]


def _nickname_reset_offer(finding: Finding, victim: str) -> ActionProposal:
    # House rules section 4: a persistently bumhunted player may have their nickname reset after
    # security reviews the play; proposed for the reviewer to grant, never applied automatically.
    return ActionProposal(
        action_id=_action_id(finding, "nickname_reset", victim), disposition="proposed", kind="nickname_reset",
        scope="account", scope_value=None, player_id=victim, starts_at=finding.ts, expires_at=None,
        reason=f"offered to a player bumhunted by {finding.subject} (house rules 4)", rule="nicknames", role="victim",
    )


def chat_ban_hours(offence_count: int, rules: RulesConfig) -> int | None:
    """Ban length of the highest ladder rung reached (None = permanent); 0 below the first rung."""
    hours: int | None = 0
    for threshold, rung_hours in sorted(rules.chat_ban_ladder, key=lambda r: r[0]):
        if offence_count >= threshold:
            hours = rung_hours
    return hours


def comms_suspension_hours(prior_same: int, rules: RulesConfig) -> int | None:
    """Suspension for a hand-in-play finding after `prior_same` earlier ones (None = permanent)."""
    ladder = rules.hand_in_play_suspension_hours
    return ladder[min(prior_same, len(ladder) - 1)] if ladder else None


def _expiry(finding: Finding, rules: RulesConfig) -> datetime | None:
    """When a proposed sanction ends; None = until revoked (permanent)."""
    evidence = finding.evidence
    hours: int | None = None
    if finding.category == "repeat_offender":
        hours = chat_ban_hours(_int(evidence.get("offence_count")), rules)
    elif finding.category == "hand_in_play":
        hours = comms_suspension_hours(_int(evidence.get("prior_same_category")), rules)
    elif finding.category == "false_reporting":
        hours = rules.false_report_restriction_hours
    elif finding.family == "chat" and finding.category not in PROPOSED_BY_CATEGORY:
        hours = rules.chat_restriction_hours
    return finding.ts + timedelta(hours=hours) if hours else None


def _action_id(finding: Finding, kind: str, player: str) -> str:
    if player == finding.subject:
        return stable_id("act", finding.finding_id, kind)
    return stable_id("act", finding.finding_id, kind, player)


def _auto_mute(finding: Finding, rules: RulesConfig) -> bool:
    """A first offence in a mutable category, when the model's automatic-action point for the
    category was reached (`automatic_point` in the evidence, set by detectors that consulted a
    classifier with operating points) or, for findings without one, at the policy's score floor.
    Auto-mute switched off (an infinite floor) switches both off."""
    first = _int(finding.evidence.get("prior_offences")) == 0
    if not first or finding.category not in AUTO_MUTE_CATEGORIES or math.isinf(rules.auto_mute_min_score):
        return False
    reached = finding.evidence.get(AUTOMATIC_POINT)
    if isinstance(reached, bool):
        return reached
    return finding.score >= rules.auto_mute_min_score


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _mute(finding: Finding, rules: RulesConfig) -> ActionProposal:
    # Keyed by the message, not the finding: two detectors flagging one line make one mute.
    message = finding.source_event_ids[0] if finding.source_event_ids else finding.finding_id
    return ActionProposal(
        action_id=stable_id("act", "chat_mute", finding.subject, message),
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
