"""Authored hate corpus: balanced group mentions, no leak into the test sets, and the shipped
model separating hate from friendly mentions of the same groups in every room language."""

from __future__ import annotations

from collections import Counter

import pytest

from models.chat import ChatClassifier, load_classifier
from models.chat.corpus.hate import BENIGN_TABLE, GROUPS, benign_group_lines, hate_lines
from models.chat.corpus.table_talk import BASE, table_talk
from simulator.abuse import VIOLATIONS

LANGS = sorted(GROUPS)


@pytest.fixture(scope="module")
def clf() -> ChatClassifier:
    return load_classifier(None)


@pytest.mark.parametrize("lang", LANGS)
def test_every_group_is_mentioned_by_hateful_and_benign_lines_alike(lang: str) -> None:
    hateful, benign = Counter[str](), Counter[str]()
    for group in GROUPS[lang]:
        hateful[group] = sum(1 for t in hate_lines(lang) if group in t)
        benign[group] = sum(1 for t in benign_group_lines(lang) if group in t)
    assert all(hateful[g] > 0 and benign[g] > 0 for g in GROUPS[lang])
    assert max(hateful.values()) <= 2 * min(benign.values())


def test_training_lines_are_not_test_lines() -> None:
    training = {
        t for lang in LANGS for t in hate_lines(lang) + benign_group_lines(lang) + list(BENIGN_TABLE[lang])
    }
    planted = {
        line.replace("{v}", "").strip()
        for bank in VIOLATIONS.values()
        for lines in bank.values()
        for line in lines
    }
    assert not training & {t for lang in BASE for t in table_talk(lang)}
    assert not training & planted


# Written for this test only (never trained on): hostile and friendly lines about groups.
HELD_OUT = {
    "en": ("those muslims are rats, ban them all", "muslim players are welcome at our table"),
    "id": ("orang papua itu monyet, usir mereka", "teman papua ku jago main poker"),
    "vi": ("lũ người do thái bẩn thỉu cút hết đi", "bạn người do thái của mình chơi rất hay"),
    "hu": ("a cigányok mocskos patkányok, ki velük", "a cigány barátom remekül pókerezik"),
    "uk": ("всі мігранти паразити, гнати їх", "мій друг мігрант класно грає"),
    "ru": ("все кавказцы звери, гнать их отсюда", "мой друг кавказец отлично играет"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_hate_outscores_a_friendly_mention_of_the_same_group(clf: ChatClassifier, lang: str) -> None:
    hateful, friendly = clf.classify(list(HELD_OUT[lang]))
    assert hateful.scores["hate"] > friendly.scores["hate"] + 0.2, (hateful.scores, friendly.scores)
    assert "hate" not in friendly.flagged
