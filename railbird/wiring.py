"""Builds the objects a process needs from its settings: the only place that happens."""

from __future__ import annotations

from collections.abc import Callable

from pipeline.detector import Detector
from pipeline.registry import build_detectors, build_pipeline
from pipeline.rules import RULES_PRESETS, RulesConfig
from pipeline.runner import Pipeline
from pipeline.text_model import TextClassifier
from railbird.settings import Settings


def rules_from(settings: Settings) -> RulesConfig:
    """The configured house-rules version, or a clear error naming the valid ones."""
    try:
        return RULES_PRESETS[settings.rules_version]
    except KeyError:
        raise SystemExit(
            f"unknown RAILBIRD_RULES_VERSION {settings.rules_version!r}; one of {sorted(RULES_PRESETS)}"
        ) from None


def load_chat_classifier(settings: Settings) -> TextClassifier:
    """The chat classifier artifact (settings.chat_model_path, else the shipped one), loaded once."""
    from models.chat import load_classifier

    try:
        return load_classifier(settings.chat_model_path)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"cannot load the chat model ({exc}); run `railbird train chat`") from None


def make_pipeline(settings: Settings) -> Pipeline:
    """A pipeline with every detector, fresh state, configured for this process."""
    return build_pipeline(rules=rules_from(settings), classifier=load_chat_classifier(settings))


def make_detector_factory(settings: Settings) -> Callable[[], dict[str, Detector]]:
    """Builds every detector with fresh state, as often as the streaming runtime needs (once per
    lane and per owned partition); models must be loaded once, here, and shared by the instances."""
    rules = rules_from(settings)
    classifier = load_chat_classifier(settings)
    return lambda: build_detectors(rules=rules, classifier=classifier)
