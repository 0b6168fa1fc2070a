"""The multilingual chat classifier behind `pipeline.text_model.TextClassifier`."""

from __future__ import annotations

from pathlib import Path

from models.chat.artifact import DEFAULT_PATH, load_model
from models.chat.classifier import ChatClassifier


def load_classifier(
    path: Path | None = None, *, use_lingua: bool = True, cache_dir: Path | None = None
) -> ChatClassifier:
    """Load the shipped (or the given) artifact once; pass the result to the pipeline.
    `cache_dir`: where the compiled pattern database is kept between processes."""
    return ChatClassifier(load_model(path or DEFAULT_PATH), use_lingua=use_lingua, cache_dir=cache_dir)


__all__ = ["ChatClassifier", "load_classifier"]
