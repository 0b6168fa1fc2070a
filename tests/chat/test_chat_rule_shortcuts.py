"""The chat path's shortcuts give the answers of the slow forms they stand in for.

Each shortcut (a phrase tree instead of a flat alternation, a regex instead of a character loop,
a first-word test before the full one, a ledger lookup without a sort) is checked against the
plain form it replaced, on generated text that exercises its edges, and through the detectors.
"""

from __future__ import annotations

import itertools
import random
import string
from datetime import timedelta

from pipeline.detectors.chat import poker_talk
from pipeline.detectors.chat.agreement_reply import (
    _REPLY_WORD,
    _VOCABULARY,
    AGREE_PHRASES,
    AGREE_WORDS,
    MAX_REPLY_CHARS,
    MAX_REPLY_WORDS,
    is_agreement_reply,
)
from pipeline.detectors.chat.nickname import split_by_char, split_words
from pipeline.detectors.chat.offences import Offence
from pipeline.detectors.chat.order import EventTimeOrder
from pipeline.detectors.chat.repeat import OffenceLedger
from pipeline.detectors.chat.text import (
    _fold_mapped_leet,
    _fold_mapped_plain,
    fold,
    fold_mapped,
    has_punct_run,
)
from tests.chat.chat_events import T0, msg


def test_split_words_ascii_regex_equals_the_character_loop() -> None:
    rng = random.Random(11)
    alphabet = string.ascii_letters + string.digits + "_-. @$!"
    names = ["KontolBesar_88", "Sh1tHead", "xXSHITxX", "Player1", "a1b2C3", "", "__", "ABCdef", "fish_KING9"]
    names += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 18))) for _ in range(20_000)]
    for name in names:
        assert split_words(name) == split_by_char(name), name
    assert split_words("KontolBesar_88") == "Kontol Besar 88"
    assert split_words("ĐạiCaXìDách99") == split_by_char("ĐạiCaXìDách99")  # not ASCII: the loop itself


def _hand_talk_texts() -> list[str]:
    rng = random.Random(5)
    phrases = [*poker_talk.EXPLICIT, *poker_talk.HOLDINGS, *poker_talk.ATTRIBUTION, *poker_talk.ADVICE]
    texts = ["nice hand", "gg wp", "brb phone", "what a river", "", "lol 123", "callback", "refolded"]
    for _ in range(20_000):
        phrase = fold(rng.choice(phrases)).replace("*", rng.choice(["", "ok", "ами", "ai"]))
        texts.append(rng.choice(["", "x", "'", " ", "lol ", "a", "3"]) + phrase + rng.choice(["", "s", " ", "'", " bro", "!", "x"]))
    return texts


def test_the_phrase_tree_finds_a_phrase_exactly_where_the_flat_alternation_does() -> None:
    model = poker_talk.compile_hand_talk()
    flat = poker_talk._any_of((model.explicit, model.holdings, model.attribution, model.advice))
    tree = poker_talk._signal_of(poker_talk.EXPLICIT, poker_talk.HOLDINGS, poker_talk.ATTRIBUTION, poker_talk.ADVICE)
    texts = _hand_talk_texts()
    found = [flat.search(t) is not None for t in texts]
    assert [tree.search(t) is not None for t in texts] == found
    assert 0 < sum(found) < len(found)  # both kinds of line are in the sample
    # The shipped model uses the tree, and scores as a model built without it does.
    plain = poker_talk.HandTalkModel(
        explicit=model.explicit, holdings=model.holdings, attribution=model.attribution, advice=model.advice,
        past=model.past, commentary=model.commentary, commentary_after=model.commentary_after,
    )
    for text in texts[:3000]:
        assert model.score(text) == plain.score(text), text


def _full_agreement(text: str) -> bool:
    """`is_agreement_reply` without its first-word test."""
    if len(text) > MAX_REPLY_CHARS:
        return False
    words = _REPLY_WORD.findall(fold(text))
    if not words or len(words) > MAX_REPLY_WORDS or not _VOCABULARY.issuperset(words):
        return False
    joined = " ".join(words)
    return not AGREE_WORDS.isdisjoint(words) or any(f" {p} " in f" {joined} " for p in AGREE_PHRASES)


def test_agreement_reply_first_word_test_changes_no_answer() -> None:
    rng = random.Random(3)
    vocabulary = [*sorted(_VOCABULARY), "fold", "all", "in", "nice", "hand", "no", "3", "!", ",", "@bob"]
    lines = ["ok, agreed", "siap bang", "đồng ý", "по рукам", "all in", "ok fold", "lol ok", "", "!!!"]
    lines += [" ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 7))) for _ in range(20_000)]
    answers = [_full_agreement(line) for line in lines]
    assert [is_agreement_reply(line) for line in lines] == answers
    assert 0 < sum(answers) < len(answers)


def test_leet_and_punctuation_prefilters_change_no_answer() -> None:
    rng = random.Random(7)
    alphabet = "abc XYZ 0134 @$!?.é"
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        glued = any(
            (a.isalpha() and b in "0123456789@$") or (a in "0123456789@$" and b.isalpha())
            for a, b in itertools.pairwise(text)
        )
        # Leetspeak is undone exactly when a digit (or @, $) touches a letter.
        assert fold_mapped(text) == (_fold_mapped_leet(text) if glued else _fold_mapped_plain(text)), text
        run = any(text[i] in "!?" and text[i] == text[i + 1] == text[i + 2] for i in range(len(text) - 2))
        assert has_punct_run(text) == (run or any(
            all(c in "!?" for c in text[i : i + 4]) for i in range(len(text) - 3)
        )), text


def test_ledger_holds_answers_what_its_offences_show() -> None:
    ledger = OffenceLedger(window=timedelta(minutes=10))
    for i in range(6):
        ledger.record("p1", T0 + timedelta(minutes=i), Offence(f"e{i}", "insult", f"f{i}", "chat.banned_words", ("table", "n", "x", ())))
    for now in (T0, T0 + timedelta(minutes=5), T0 + timedelta(minutes=12), T0 + timedelta(minutes=30)):
        shown = {o.event_id for _, o in ledger.offences("p1", now)}
        for i in range(6):
            assert ledger.holds("p1", f"e{i}", now) == (f"e{i}" in shown)
    assert not ledger.holds("nobody", "e0", T0)
    assert not ledger.holds("p1", "e0", T0 + timedelta(minutes=30))  # fell out of the window


def test_order_buffer_releases_in_event_time_order_whether_lines_come_in_order_or_not() -> None:
    """The buffer keeps in-order arrivals in a run and the rest in a heap; what it releases, and
    when, is what one sorted buffer releases: every held message below the watermark, by (ts, id)."""
    rng = random.Random(9)
    for trial in range(200):
        lateness = timedelta(seconds=rng.choice([1, 5, 30]))
        order = EventTimeOrder(lateness=lateness)
        held: list[tuple[object, str]] = []
        newest = None
        stamps = sorted(rng.uniform(0, 120) for _ in range(rng.randint(1, 80)))
        # Mostly in order, some lines swapped, some repeated stamps, ids not in stamp order.
        arrivals = [(t + (rng.uniform(-0.9, 0) * lateness.total_seconds() if rng.random() < 0.3 else 0), f"e{rng.randrange(10**6)}-{i}") for i, t in enumerate(stamps)]
        if rng.random() < 0.5:
            arrivals += [(arrivals[-1][0], f"e0-dup{trial}")]
        released: list[str] = []
        for seconds, event_id in arrivals:
            message = msg("gg", at=seconds, event_id=event_id)
            got = order.admit(message)
            if newest is not None and message.ts < newest - lateness:
                assert [m.event_id for m in got] == [event_id]  # late: at once, counted
                released.append(event_id)
                continue
            newest = message.ts if newest is None or message.ts > newest else newest
            held.append((message.ts, event_id))
            due = sorted(h for h in held if h[0] < newest - lateness)
            assert [m.event_id for m in got] == [e for _, e in due]
            held = [h for h in held if h not in due]
            released += [m.event_id for m in got]
            assert order.pending == len(held)
        rest = [m.event_id for m in order.drain()]
        assert rest == [e for _, e in sorted(held)] and order.pending == 0
        assert sorted(released + rest) == sorted(e for _, e in arrivals)
