"""Exponential backoff with full jitter, for errors that go away by themselves (503, 429, resets).

Full jitter (sleep a uniform random time in [0, min(cap, base * 2**attempt)]) spreads the retries of
many consumers so a recovering API is not hit by all of them at the same instant.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


class TransientError(RuntimeError):
    """A failure worth retrying later without committing: the same call may well succeed.

    `kind` labels the metric and the log line (`unavailable`, `throttled`, `connect`, `auth`, ...).
    """

    def __init__(self, message: str, *, kind: str = "unavailable") -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Backoff:
    """Delay schedule: attempt n sleeps uniform(0, min(cap_s, base_s * 2**n))."""

    base_s: float = 0.1
    cap_s: float = 30.0
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry number `attempt` (0-based)."""
        ceiling = min(self.cap_s, self.base_s * (2 ** min(attempt, 62)))
        return self.rng.uniform(0.0, ceiling)


class StopRequestedError(RuntimeError):
    """Shutdown was requested while an operation was still being retried."""


def retry_forever(
    operation: Callable[[], T],
    *,
    backoff: Backoff,
    wait: Callable[[float], None],
    should_stop: Callable[[], bool],
    on_error: Callable[[TransientError, int], None],
) -> T:
    """Call `operation` until it does not raise `TransientError`; `StopRequestedError` if shutdown comes first.

    `wait` is where the caller keeps its consumer-group membership alive (see `Lane._wait`).
    """
    attempt = 0
    while True:
        try:
            return operation()
        except TransientError as exc:
            on_error(exc, attempt)
            if should_stop():
                raise StopRequestedError(str(exc)) from exc
            wait(backoff.delay(attempt))
            attempt += 1
