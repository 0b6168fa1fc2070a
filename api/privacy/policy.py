"""Who may read what: the data-protection matrix, as data, and the pure redaction it implies.

Chat text, nicknames, report comments and transcripts (and the summaries and reasons that quote
them) are personal data about players and the people they talk to. Reviewers need them to decide
a case; nobody else does:

| role                          | player ids | chat text / nicknames / comments | sanctions |
|-------------------------------|------------|----------------------------------|-----------|
| analyst, moderator, senior    | yes        | yes (to review cases)            | yes       |
| admin                         | yes        | redacted (administers users)     | yes       |
| service (game servers)        | yes        | no access (endpoints are 403)    | yes       |

Player ids stay visible to every role that sees a record: sanctions are enforced by them, and an
admin answering an access or erasure request must find the player.
"""

from __future__ import annotations

from typing import Any, Final

READS_CHAT: Final = frozenset({"analyst", "moderator", "senior"})
"""Roles that see chat text and other free text players wrote."""

FREE_TEXT_KEYS: Final = frozenset({"text", "nickname", "comment", "transcript", "summary", "reason",
                                   "statement", "resolution", "revoke_reason"})
"""JSON keys whose values are (or may quote) what players wrote."""

REDACTED: Final = "[redacted]"

EXEMPT_PREFIXES: Final = ("/v1/auth", "/v1/users", "/v1/tokens", "/v1/audit", "/v1/health", "/v1/policy",
                          "/v1/admin")
"""Responses that hold no player text (auth, users, policy) or are the legal record (audit) stay as they are."""


def may_read_chat(role: str) -> bool:
    """Whether a role sees free text written by players."""
    return role in READS_CHAT


def shapes(path: str) -> bool:
    """Whether responses of this path go through the redaction for roles that may not read chat."""
    return path.startswith("/v1/") and not path.startswith(EXEMPT_PREFIXES)


def redact(value: Any) -> Any:
    """A copy of a JSON value with every free-text field replaced by `[redacted]` (ids kept)."""
    if isinstance(value, dict):
        return {k: (REDACTED if k in FREE_TEXT_KEYS and isinstance(v, str) else redact(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value
