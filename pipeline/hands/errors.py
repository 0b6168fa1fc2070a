"""The typed error for a hand record that cannot be trusted, with a machine-readable kind."""

from __future__ import annotations

from typing import Literal

IntegrityKind = Literal[
    "illegal_action",
    "unknown_variant",
    "inconsistent_stacks",
    "chips_not_conserved",
    "duplicate_card",
    "duplicate_hand_id",
    "truncated",
    "bad_cards",
    "parse_error",
]


class HandIntegrityError(ValueError):
    """A hand that must be rejected: `kind` for metrics and dead letters, the message says why.

    A ValueError so that the contract's validator turns it into a `DecodeError` (dead letter) and
    the runtime can map it the same way when a detector raises it (duplicates).
    """

    def __init__(self, kind: IntegrityKind, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind: IntegrityKind = kind
        self.action: int | None = None
        """Index of the action that broke the rule, when one did (importers map it to a line)."""
