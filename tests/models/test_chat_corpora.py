"""Authored corpora: every poker category caught in every language; table talk left alone."""

from __future__ import annotations

import pytest

from models.chat import ChatClassifier, load_classifier
from models.chat.corpus.poker import LABELLED
from models.chat.corpus.table_talk import BASE, table_talk
from models.chat.rules import find_contacts, find_links


@pytest.fixture(scope="module")
def clf() -> ChatClassifier:
    return load_classifier(None)


def test_authored_category_examples_are_flagged(clf: ChatClassifier) -> None:
    verdicts = clf.classify([t for t, _, _ in LABELLED])
    missed = [
        (t, cat, v.flagged) for (t, _, cat), v in zip(LABELLED, verdicts, strict=True) if cat not in v.flagged
    ]
    assert len(missed) <= len(LABELLED) // 20, missed


@pytest.mark.parametrize("lang", sorted(BASE))
def test_table_talk_is_left_alone(clf: ChatClassifier, lang: str) -> None:
    lines = table_talk(lang)
    assert len(lines) >= 200
    flagged = [(t, v.flagged) for t, v in zip(lines, clf.classify(lines), strict=True) if v.flagged]
    assert len(flagged) <= len(lines) // 100, flagged


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("grab it at bit.ly/x1", "link shortener"),
        ("http://10.0.0.7/a", "IP-address host"),
        ("see xn--pokr-5qa.com", "punycode host"),
        ("get hud.com/setup.exe", "executable .exe"),
        ("chips at free-bonus.xyz", "suspicious .xyz"),
    ],
)
def test_risky_links(text: str, reason: str) -> None:
    hits = [h for h in find_links(text) if h.category == "malicious_link"]
    assert [h.reason for h in hits] == [reason]


@pytest.mark.parametrize("text", ["2.5bb open", "gg.wp", "ok...fine", "3.14 pot odds", "call 1.5k"])
def test_dotted_table_talk_is_not_a_link(text: str) -> None:
    assert find_links(text) == []


def test_contacts_versus_chip_counts() -> None:
    assert [h.reason for h in find_contacts("call me 0812 3456 7890")] == ["phone number"]
    assert [h.reason for h in find_contacts("mail bob.smith@example.com")] == ["e-mail"]
    assert find_contacts("stack is 1,500,000 now") == []
    assert find_contacts("nice line bro") == []


def test_prefilter_never_changes_what_the_rules_find() -> None:
    from models.chat.normalize import Normalizer
    from models.chat.rules import RuleSet

    rules, normalizer = RuleSet(), Normalizer()
    texts = [t for t, _, _ in LABELLED] + [t for lang in BASE for t in table_talk(lang)]
    texts += ["у него тузы", "don't call me", "nó có đôi át", "DOBD EL!", "Neki ászai vannak"]
    for text in texts:
        bare = normalizer.views(text).bare.text
        fast = sorted((h.category, h.start, h.end) for h in rules.find(bare))
        slow = sorted((h.category, h.start, h.end) for h in rules.find(bare, prefilter=False))
        assert fast == slow, text
