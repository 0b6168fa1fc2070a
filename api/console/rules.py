"""House-rule citations shown on the case page (paraphrased from house-rules.md, by reference)."""

from __future__ import annotations

RULE_TEXT: dict[str, str] = {
    "chat": "Chat policy (section 1): chat is moderated; repeat offences escalate the sanction.",
    "chat.1": "Chat policy 1.1: no defamatory communication.",
    "chat.2": "Chat policy 1.2: nothing illegal or that the user has no right to disclose.",
    "chat.3": "Chat policy 1.3: nothing racist, vulgar, hateful, obscene, threatening, insulting or discriminatory.",
    "chat.4": "Chat policy 1.4: no impersonation of staff, support or other players.",
    "chat.5": "Chat policy 1.5: no advertising.",
    "chat.6": "Chat policy 1.6: no links to malicious code.",
    "chat.7": "Chat policy 1.7: no communication to collude with or against other players.",
    "chat.8": "Chat policy 1.8: nothing relating to criminal activity.",
    "chat.9": "Chat policy 1.9: nothing deliberately false or misleading.",
    "chat.10": "Chat policy 1.10: no soliciting personal information.",
    "chat.11": "Chat policy 1.11: nothing confidential or protected.",
    "chat.12": "Chat policy 1.12: no spamming other players.",
    "chat.etiquette": "Table etiquette: no intimidation, harassment, emoji spam or shouting matches.",
    "hand_in_play": "Hand-in-play policy (section 2): no influencing a running hand by chat, emoji or SnapCam; "
                    "sanction: suspension of all communication functions.",
    "snapcam": "SnapCam (section 3): no offensive broadcasts or harassment; sanction: loss of SnapCam access.",
    "general.11": "General (section 11): no interfering with the normal operation of the games.",
    "nicknames": "Nicknames (section 4): nicknames must be sensible and not offensive.",
    "tournament_sit_out": "Tournament sit-out policy (section 5): players must not agree to sit out simultaneously.",
    "bounty": "Bounty tournaments (section 6): no agreements to eliminate a player for the bounty; "
              "grounds for disqualification.",
    "table_leaving": "Table leaving policy (section 7): leaving before 10 hands is a refusal; blocks of "
                     "5/15/30/60 minutes per blind level over 12 hours.",
    "bumhunting": "Bumhunting (section 8): predatory table selection is reviewed by security.",
    "collusion": "Collusion (sections 5, 6, 11): soft play and chip dumping void winnings and lead to suspension.",
}


def cite(rule: str) -> str:
    """The citation for a rule reference, or the reference itself when unknown."""
    return RULE_TEXT.get(rule, f"House rule {rule}")
