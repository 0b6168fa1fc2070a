"""Text the database cannot store (NUL, lone surrogates) is refused up front with a clear reason."""

from __future__ import annotations

from typing import Any


def bad_text(value: Any, path: str = "") -> str | None:
    """Path of the first string (key or value) PostgreSQL could not store, or None."""
    if isinstance(value, str):
        return path or "<value>" if _unstorable(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and _unstorable(key):
                return where
            if (found := bad_text(item, where)) is not None:
                return found
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            if (found := bad_text(item, f"{path}[{i}]")) is not None:
                return found
    return None


def _unstorable(text: str) -> bool:
    if "\x00" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_text(value: str) -> str:
    """Pydantic validator: reject NUL and lone surrogates in request strings."""
    if _unstorable(value):
        raise ValueError("text contains NUL or an unpaired surrogate")
    return value
