"""The vocabulary of finding categories: detectors emit them, the simulator plants them, the
evaluation matches one against the other, and the console groups queues by their family."""

from __future__ import annotations

from typing import Final

from pipeline.findings import Family

CATEGORIES: Final[dict[str, tuple[Family, str]]] = {
    # Chat rule 1 (house-rules.md section 1), one per banned kind of communication.
    "insult": ("chat", "chat.3"),
    "hate": ("chat", "chat.3"),
    "threat": ("chat", "chat.3"),
    "sexual": ("chat", "chat.3"),
    "defamation": ("chat", "chat.1"),
    "illegal_disclosure": ("chat", "chat.2"),
    "impersonation": ("chat", "chat.4"),
    "spam": ("chat", "chat.5"),
    "malicious_link": ("chat", "chat.6"),
    "collusion_talk": ("chat", "chat.7"),
    "criminal": ("chat", "chat.8"),
    "misleading": ("chat", "chat.9"),
    "personal_info": ("chat", "chat.10"),
    "confidential": ("chat", "chat.11"),
    "flooding": ("chat", "chat.12"),
    "emoji_spam": ("chat", "chat.etiquette"),
    "shouting": ("chat", "chat.etiquette"),
    "harassment": ("chat", "chat.etiquette"),
    "repeat_offender": ("chat", "chat"),
    # Section 2-4.
    "hand_in_play": ("chat", "hand_in_play"),
    # Not an offence: a line nothing flagged, sampled for an analyst's verdict (chat.audit_sample).
    "audit_sample": ("chat", "chat"),
    "snapcam_abuse": ("snapcam", "snapcam"),
    "false_reporting": ("snapcam", "general.11"),
    "offensive_nickname": ("nickname", "nicknames"),
    # Sections 5, 7, 8: seat activity.
    "collusive_sit_out": ("seat", "tournament_sit_out"),
    "hit_and_run": ("seat", "table_leaving"),
    "bumhunting": ("seat", "bumhunting"),
    # Section 6 and general collusion: hand records.
    "bounty_agreement": ("hand", "bounty"),
    "soft_play": ("hand", "collusion"),
    "chip_dumping": ("hand", "collusion"),
}
"""Category -> (offence family, house-rule reference cited in findings and the console)."""


COLLUSION_CATEGORIES: Final[frozenset[str]] = frozenset(
    {"collusion_talk", "collusive_sit_out", "bounty_agreement", "soft_play", "chip_dumping"})
"""Collusion in chat, seats and hands: clearing such a case takes two reviewers (api/decisions/four_eyes.py)."""


AUDIT_SAMPLE: Final = "audit_sample"
"""The category of an audit case: no sanction, no offence; its label is the category the analyst gives."""

CHAT_OFFENCES: Final[frozenset[str]] = frozenset(
    c for c, (family, _) in CATEGORIES.items() if family == "chat" and c != AUDIT_SAMPLE)
"""Chat categories that are offences: what a line can be labelled (besides clean)."""


def rule_of(category: str) -> str:
    """House-rule reference for a category (KeyError for an unknown one: a detector bug)."""
    return CATEGORIES[category][1]


MODEL_SCORED: Final[tuple[str, ...]] = (
    "insult", "hate", "spam", "threat", "sexual", "defamation", "impersonation", "malicious_link",
    "collusion_talk", "criminal", "misleading", "personal_info", "hand_in_play",
)  # fmt: skip
"""Chat categories the chat model scores with a statistical head of its own (models/chat/artifact.py),
each with two operating points in the artifact: review (recall) and automatic action (precision)."""
