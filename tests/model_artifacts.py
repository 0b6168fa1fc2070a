"""Chat model artifacts for the registry and model-watch tests, made from the shipped model without
training: a valid "different" candidate is the shipped model with other thresholds; broken ones
miss a head, flag small talk, have another format version, or are not archives at all."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

from models.chat.artifact import DEFAULT_PATH, ChatModel, load_model, save_model


@functools.cache
def shipped() -> ChatModel:
    """The shipped model, loaded once per test process (seconds)."""
    return load_model(DEFAULT_PATH)


def candidate(path: Path, *, shift: float) -> Path:
    """A valid candidate: every review threshold moved by `shift` (kept inside (0, 1))."""
    model = shipped()
    thresholds = {k: min(0.99, max(0.01, v + shift)) for k, v in model.thresholds.items()}
    save_model(dataclasses.replace(model, thresholds=thresholds, meta={**model.meta, "test_shift": shift}), path)
    return path


def without_last_head(path: Path) -> Path:
    """Consistent arrays, but the last model-scored head (hand_in_play) is gone."""
    m = shipped()
    save_model(dataclasses.replace(
        m, heads=m.heads[:-1], weights=m.weights[:, :-1].copy(), bare_weights=m.bare_weights[:, :-1].copy(),
        lex_weights=m.lex_weights[:, :-1].copy(), intercepts=m.intercepts[:-1].copy(), platt=m.platt[:-1].copy(),
        rule_weights=None if m.rule_weights is None else m.rule_weights[:, :-1].copy(),
    ), path)
    return path


def flags_small_talk(path: Path) -> Path:
    """Loads and has every head, but its review points are so low that 'gg everyone' is flagged."""
    m = shipped()
    save_model(dataclasses.replace(m, thresholds=dict.fromkeys(m.thresholds, 0.0001)), path)
    return path


def other_format(path: Path) -> Path:
    """A skops archive that says it is format 4."""
    import skops.io as sio

    sio.dump({"format_version": 4}, path)
    return path


def garbage(path: Path) -> Path:
    """Not an archive."""
    path.write_bytes(b"this is not a model\n" * 100)
    return path


def truncated(path: Path, source: Path) -> Path:
    """The first megabyte of a valid artifact."""
    path.write_bytes(source.read_bytes()[: 1 << 20])
    return path
