"""Language heads of the shipped model: the Russian toxic head is saved, loaded and used only for
messages detected as Russian."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from models.chat import ChatClassifier
from models.chat.artifact import DEFAULT_PATH, ChatModel, load_model, save_model

RU_INSULTS = ("какой же ты клоун, иди лечись", "ты просто тупое животное", "заткнись уже, бот")
RU_CLEAN = ("спасибо за игру, всем удачи", "хорошая рука, поздравляю", "опять лагает?")
OTHERS = ("you are a fucking idiot", "nice hand", "дякую за гру", "makasih bang")


@pytest.fixture(scope="module")
def model() -> ChatModel:
    return load_model(DEFAULT_PATH)


def _toxic(model: ChatModel, texts: tuple[str, ...]) -> np.ndarray:
    clf = ChatClassifier(model, cache_size=0)
    return clf.head_probabilities(clf.analyzer.analyze_many(list(texts)))[:, 0]


def test_shipped_model_has_a_russian_head_that_survives_a_round_trip(
    model: ChatModel, tmp_path: Path
) -> None:
    head = model.language_heads["ru"]
    assert 0.0 <= head.share <= 1.0
    assert np.count_nonzero(head.weights) > 1000
    save_model(model, tmp_path / "m.skops")
    again = load_model(tmp_path / "m.skops").language_heads["ru"]
    assert again.share == head.share and again.platt == pytest.approx(head.platt)
    assert np.array_equal(again.weights, head.weights) and np.array_equal(again.lex_weights, head.lex_weights)


def test_russian_head_changes_russian_scores_only(model: ChatModel) -> None:
    without = dataclasses.replace(model, language_heads={})
    assert np.allclose(_toxic(model, OTHERS), _toxic(without, OTHERS))
    assert not np.allclose(_toxic(model, RU_INSULTS + RU_CLEAN), _toxic(without, RU_INSULTS + RU_CLEAN))


def test_russian_insults_without_swearing_outrank_russian_table_talk(model: ChatModel) -> None:
    clf = ChatClassifier(model, cache_size=0)
    insults, clean = clf.classify(list(RU_INSULTS)), clf.classify(list(RU_CLEAN))
    assert all(v.language == "ru" for v in insults + clean)
    assert min(v.scores["insult"] for v in insults) > max(v.scores["insult"] for v in clean)
    assert not any(v.flagged for v in clean)
