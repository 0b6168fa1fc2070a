"""The chat detectors with the shipped model: every rule-1 category of the simulator's banks comes out
under its own rule, and poker talk the model once mistook ("bátor call", "sabar bos") stays clean."""

from __future__ import annotations

import pytest

from models.chat import load_classifier
from pipeline.contracts import CHAT
from pipeline.registry import build_pipeline
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from simulator import abuse, phrases
from tests.chat.chat_events import msg

ONE_LINE = ("insult", "hate", "threat", "sexual", "defamation", "illegal_disclosure", "impersonation", "spam",
            "malicious_link", "criminal", "misleading", "personal_info", "confidential", "collusion_talk")


@pytest.fixture(scope="module")
def pipeline() -> Pipeline:
    return build_pipeline(rules=RulesConfig(), classifier=load_classifier(None))


def _categories(pipeline: Pipeline, text: str, i: int, **fields: object) -> set[str]:
    event = msg(text, at=i * 1000.0, player_id=f"p{i}", event_id=f"e{i}", **fields)
    return {f.category for f in pipeline.process(CHAT, event).findings if f.family == "chat"}


KNOWN_MISSES = {
    # Model format 5, second authored round (2 Dec): heads trained on independent writers' text,
    # operating points chosen on the independent dev set. These simulator lines it gets wrong are
    # pinned here, listed in models/MODEL_CARD.md "Known weaknesses", and the first thing to fix:
    # a new miss fails this test, and so does a fixed one (take it off the list). Sixth round
    # (3 Dec): the uk insult "сука, як можна так грати" and the id password dump are now right.
    # Third authored round (2 Dec): selling accounts and chips is read as the criminal trade it
    # also is, not as the advert (spam) the simulator planted.
    ("spam", "uk", "продаю акаунти і фішки недорого, пиши"): ("criminal",),
    ("threat", "vi", "đi chết đi {v}"): (),
    ("threat", "hu", "dögölj meg {v}"): (),
    ("threat", "uk", "здохни {v}"): (),
    ("sexual", "id", "isep kontol gue {v}"): (),
    ("illegal_disclosure", "en", "I have the leaked player database with emails and phones, DM me"): ("criminal",),
    ("illegal_disclosure", "id", "aku punya database pemain bocor lengkap email dan nomor hp, dm"): ("criminal",),
    ("illegal_disclosure", "uk", "маю злиту базу гравців з поштою і телефонами, пишіть"): ("criminal",),
}
KNOWN_FALSE_FLAGS = {
    "what's your telegram group about?": ("personal_info",),
    # Sixth authored round (3 Dec): the vi "mình đồng ý chia" (open deal talk, flagged as collusion
    # since the third round) and the uk "хтось хоче діл?" (flagged since the fifth) are clean now.
}
"""Table talk the shipped model flags (pinned like KNOWN_MISSES, same card section)."""


def test_each_planted_category_is_reported_under_its_own_rule(pipeline: Pipeline) -> None:
    wrong = []
    i = 0
    for category in ONE_LINE:
        for lang, lines in abuse.VIOLATIONS[category].items():
            for line in lines:
                i += 1
                got = _categories(pipeline, line.format(v="Alice", t="Bob", c="AhKd"), i)
                if got != {category}:
                    wrong.append((category, lang, line, sorted(got)))
    assert {(c, lang, line): tuple(got) for c, lang, line, got in wrong} == KNOWN_MISSES


def test_poker_talk_and_simulated_table_talk_are_left_alone(pipeline: Pipeline) -> None:
    banks = (phrases.DURING_HAND, phrases.AFTER_HAND, phrases.DEAL_TALK, phrases.LOBBY, phrases.PRIVATE)
    lines = [line for bank in banks for group in bank.values() for line in group]
    lines += ["sabar bos", "mantap bos", "bátor call", "call nekat", "sick call", "gg wp", "ship it", "lag again?"]
    # Found by hand on 30 Nov: a phone call and chips won in a pot are neither advice nor an offer.
    lines += ["brb phone call", "call 911 lol", "a video call, back soon", "thanks for the free chips",
              "what's your telegram group about?"]
    # After-hand talk is sent outside a running hand only: inside one, naming folded cards ("I folded
    # two pair there") is what the hand-in-play rule bans (house rules 2: "naming cards ... while
    # the hand is running"), and a model that flags it there is right.
    after = {line for group in phrases.AFTER_HAND.values() for line in group}
    flagged = {}
    for i, line in enumerate(lines):
        found = _categories(pipeline, line, 10_000 + i)
        if line not in after:
            found |= _categories(pipeline, line, 20_000 + i, hand_id="h1")
        if found:
            flagged[line] = tuple(sorted(found))
    assert flagged == KNOWN_FALSE_FLAGS


def test_naming_folded_cards_during_a_running_hand_is_hand_in_play(pipeline: Pipeline) -> None:
    """The same after-hand line is hand-in-play talk while a hand runs and clean after it."""
    line = "I folded two pair there"
    assert _categories(pipeline, line, 40_000) == set()
    assert _categories(pipeline, line, 40_001, hand_id="h1") == {"hand_in_play"}


def test_profanity_at_a_player_is_an_insult_not_hate(pipeline: Pipeline) -> None:
    """The hate head scores these 0.50-0.67 (profanity and slurs go together in its training
    data); with no group named they are reported as insults (fusion: hate needs its target)."""
    lines = ["fuck you", "ｆｕｃｋ you", "fuck you idiot", "go fuck yourself"]
    got = {line: _categories(pipeline, line, 30_000 + i) for i, line in enumerate(lines)}
    assert got == {line: {"insult"} for line in lines}
    # Flagged hate (0.53-0.60) with insult below its threshold: nothing to report.
    assert _categories(pipeline, "I hate rivers", 30_100) == set()
    assert _categories(pipeline, "I'd kill for a pair", 30_101) == set()


def test_calling_yourself_names_after_a_bad_play_is_left_alone(pipeline: Pipeline) -> None:
    """A banned word scores 1.0, enough for an automatic mute on a first offence: these were
    reported as insults before the first-person check (fusion, self_aimed.py)."""
    lines = ["I'm an idiot for calling", "я идиот", "hülye vagyok, bedobtam", "tao ngu thật", "bego banget gue fold",
             "tolol gue main", "я такий тупий, скинув"]
    assert {line: _categories(pipeline, line, 40_000 + i) for i, line in enumerate(lines)} == {line: set() for line in lines}
    # Aimed at someone else, or vulgar: still reported.
    assert _categories(pipeline, "you're an idiot", 40_100) == {"insult"}
    assert _categories(pipeline, "I'm so fucking stupid", 40_101) == {"insult"}
    # Vietnamese chat types "tao" as "t"; aimed at another player, the same word is an insult.
    assert _categories(pipeline, "t ngu thật, call cái đó làm gì", 40_102) == set()
    assert _categories(pipeline, "thằng ngu thật, call cái đó làm gì", 40_103) == {"insult"}


def test_interjections_are_aimed_at_nobody(pipeline: Pipeline) -> None:
    """The licensed lists hold "lmao"; laughing at the cards insults nobody ("wtf" stays listed:
    real game chat labels it toxic, models/chat/exclusions.py)."""
    assert _categories(pipeline, "lmao that turn card", 40_201) == set()
    assert _categories(pipeline, "lmao you idiot, learn to play", 40_202) == {"insult"}
