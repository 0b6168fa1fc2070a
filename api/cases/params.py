"""Queue parameters as strings (console query strings, saved views) <-> a `QueueFilter` and a sort.

One vocabulary for the JSON API, the console and saved views: family, status, category, detector,
language, age, assignee_id (a user id, `me` or `none`), automatic (`yes`/`no`), q, subject_id, sort.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from api.cases.queue import MAX_QUERY, SORTS, QueueFilter, _check
from api.errors import InvalidError

KEYS: Final = ("family", "status", "category", "detector", "language", "age", "assignee_id", "automatic", "q",
               "subject_id", "sort")
"""Every parameter a queue view has (what a saved view stores)."""
ME: Final = "me"
ALL_FAMILIES: Final = "all"
"""`family=all`: every family (the console's default is chat, so 'all' must be said)."""
BOOLS: Final = {"yes": True, "true": True, "no": False, "false": False}


def clean(params: Mapping[str, str], *, strict: bool) -> dict[str, str]:
    """The queue parameters among `params`, empty ones dropped; unknown keys are a 422 when `strict`."""
    unknown = sorted(k for k in params if k not in KEYS)
    if strict and unknown:
        raise InvalidError(f"unknown queue parameter(s): {', '.join(unknown)[:200]}; known: {', '.join(KEYS)}")
    out = {k: str(params[k]).strip() for k in KEYS if k in params and str(params[k]).strip()}
    for k, v in out.items():
        if len(v) > MAX_QUERY:
            raise InvalidError(f"{k}: at most {MAX_QUERY} characters")
    return out


def to_filter(params: Mapping[str, str], *, me: str) -> tuple[QueueFilter, str]:
    """(filter, sort) of clean parameters; `me` is the signed-in user's id."""
    auto = params.get("automatic")
    if auto is not None and auto not in BOOLS:
        raise InvalidError("automatic: one of yes, no")
    sort = params.get("sort", "priority")
    _check(sort, SORTS, "sort")
    assignee = params.get("assignee_id")
    family = params.get("family")
    f = QueueFilter(
        family=None if family == ALL_FAMILIES else family, status=params.get("status", "open"), category=params.get("category"),
        detector=params.get("detector"), language=params.get("language"), age=params.get("age"),
        assignee=me if assignee == ME else assignee, automatic=BOOLS[auto] if auto is not None else None,
        q=params.get("q"), subject_id=params.get("subject_id"),
    )
    return f, sort
