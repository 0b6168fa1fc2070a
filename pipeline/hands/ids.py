"""Contract-safe ids from the free-form names of history files (screen names, table names)."""

from __future__ import annotations

import re
from functools import lru_cache

ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.:@\-]")


@lru_cache(maxsize=8192)  # pure; the same screen names come back hand after hand
def safe_id(text: str) -> str:
    """A contract-safe id from a free-form name ('Ann Lee' -> 'Ann_Lee')."""
    cleaned = ID_UNSAFE.sub("_", text.strip())[:128]
    return cleaned if cleaned and cleaned[0].isalnum() else f"x{cleaned}"[:128]
