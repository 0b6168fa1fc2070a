"""The one place detectors are registered: literal lists, family by family.

Nothing registers itself on import; the models and rules a detector needs are passed in here.
"""

from __future__ import annotations

from datetime import timedelta

from pipeline.detector import Detector
from pipeline.detectors.chat import OffenceLedger, build_chat_detectors
from pipeline.detectors.chat.lexicon import Lexicon
from pipeline.detectors.chat.order import DEFAULT_LATENESS
from pipeline.detectors.hand import build_hand_detectors
from pipeline.detectors.seat import build_seat_detectors
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from pipeline.text_model import TextClassifier


def build_detectors(
    *, rules: RulesConfig, classifier: TextClassifier | None = None, chat_lateness: timedelta = DEFAULT_LATENESS,
    chat_ledger: OffenceLedger | None = None, chat_lexicon: Lexicon | None = None,
) -> dict[str, Detector]:
    """Every detector, fresh state, keyed by its stable name (`chat_lateness`, `chat_ledger`,
    `chat_lexicon`: see `build_chat_detectors`)."""
    detectors: list[Detector] = [
        *build_chat_detectors(rules=rules, classifier=classifier, lateness=chat_lateness, ledger=chat_ledger,
                              lexicon=chat_lexicon),
        *build_seat_detectors(rules=rules),
        *build_hand_detectors(rules=rules, classifier=classifier),
    ]
    names = [d.name for d in detectors]
    if len(names) != len(set(names)):
        raise ValueError(f"two detectors share a name: {names}")
    return {d.name: d for d in detectors}


def build_pipeline(
    *, rules: RulesConfig, classifier: TextClassifier | None = None, chat_lateness: timedelta = DEFAULT_LATENESS
) -> Pipeline:
    """A pipeline with every registered detector."""
    return Pipeline(build_detectors(rules=rules, classifier=classifier, chat_lateness=chat_lateness), rules=rules)
