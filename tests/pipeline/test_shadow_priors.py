"""The ledger's one-pass prior counts (`OffenceLedger.priors`, which the live and the shadow taps
stamp on findings) equal its own two `prior` calls, on a plain ledger and on a shadow world's overlay; and a `chat.classifier`
shadow pair looks each message's verdict up once per copy (pipeline/shadow_shared.py)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from pipeline.contracts import ChatMessage
from pipeline.detectors.chat.classifier import ClassifierDetector
from pipeline.detectors.chat.offences import Offence
from pipeline.detectors.chat.repeat import OffenceLedger, _prior_counts
from pipeline.shadow import OverlayLedger
from pipeline.shadow_shared import SharedClassifierFindings, _LastFindings
from pipeline.text_model import TextVerdict

CATEGORIES = ("insult", "hate", "threat", "spam", "flooding", "shouting", "harassment", "hand_in_play", "odd")
T0 = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def _fill(ledger: OffenceLedger, rng: random.Random, players: Sequence[str], n: int, detector: str) -> None:
    for i in range(n):
        ts = T0 + timedelta(seconds=rng.randrange(0, 1800))
        offence = Offence(f"e{rng.randrange(40)}", rng.choice(CATEGORIES), f"{detector}-f{i}", detector)
        ledger.record(rng.choice(players), ts, offence)


def _check(ledger: OffenceLedger, rng: random.Random, players: Sequence[str]) -> int:
    checked = 0
    for _ in range(400):
        player, of = rng.choice(players), rng.choice(CATEGORIES)
        ts = T0 + timedelta(seconds=rng.randrange(0, 2000))
        excluding = f"e{rng.randrange(40)}"
        expected = (
            ledger.prior(player, ts, excluding=excluding, of=of),
            ledger.prior(player, ts, excluding=excluding, category=of, of=of),
        )
        assert ledger.priors(player, ts, excluding=excluding, of=of) == expected
        checked += expected != (0, 0)
    return checked


def test_one_read_priors_equal_two_prior_calls_on_a_plain_ledger() -> None:
    rng = random.Random(7)
    players = [f"p{i}" for i in range(5)]
    ledger = OffenceLedger(window=timedelta(minutes=20))
    _fill(ledger, rng, players, 300, "chat.classifier")
    assert _check(ledger, rng, players) > 50


def test_one_read_priors_equal_two_prior_calls_on_an_overlay() -> None:
    rng = random.Random(11)
    players = [f"p{i}" for i in range(4)]
    live = OffenceLedger(window=timedelta(days=30))
    _fill(live, rng, players, 120, "chat.classifier")
    _fill(live, rng, players, 120, "chat.flooding")
    overlay = OverlayLedger(
        live,
        hidden=frozenset({"chat.classifier"}),
        window=timedelta(days=30),
        order={"chat.classifier": 0, "chat.flooding": 1},
    )
    _fill(overlay, rng, players, 100, "chat.classifier")
    assert _check(overlay, rng, players) > 50
    overlay.hold()  # as a shadow copy processing one message reads it
    try:
        assert _check(overlay, rng, players) > 50
    finally:
        overlay.release()


def test_priors_of_a_small_overlay_join_by_time_and_equal_the_registry_ordered_merge() -> None:
    """Under 64 offences a player the overlay joins its own and the live offences by time alone
    (`OverlayLedger.priors`): with many offences at one second (ties in both ledgers, other
    detectors' order in the registry), its counts equal those over the registry-ordered merge
    `offences` gives, and a foreign offence recorded in both ledgers is counted once."""
    rng = random.Random(5)
    players = [f"p{i}" for i in range(6)]
    live = OffenceLedger(window=timedelta(days=30))
    overlay = OverlayLedger(live, hidden=frozenset({"chat.classifier"}), window=timedelta(days=30),
                            order={"chat.flooding": 0, "chat.classifier": 1, "chat.shouting": 2})
    for i in range(150):
        ts = T0 + timedelta(seconds=rng.randrange(0, 40) * 30)  # few distinct times: ties
        detector = rng.choice(("chat.classifier", "chat.flooding", "chat.shouting"))
        offence = Offence(f"e{rng.randrange(60)}", rng.choice(CATEGORIES), f"{detector}-f{i}", detector)
        (overlay if detector == "chat.classifier" and rng.random() < 0.5 else live).record(
            rng.choice(players), ts, offence)
    checked = 0
    for _ in range(600):
        player, of = rng.choice(players), rng.choice(CATEGORIES)
        ts = T0 + timedelta(seconds=rng.randrange(0, 1300))
        excluding = f"e{rng.randrange(60)}"
        exact = _prior_counts(overlay.offences(player, ts), ts, timedelta(minutes=2), excluding=excluding, of=of)
        assert overlay.priors(player, ts, excluding=excluding, of=of) == exact
        checked += exact != (0, 0)
    assert checked > 100
    assert all(len(overlay.offences(p, T0 + timedelta(hours=1))) <= 64 for p in players)
    foreign = Offence("e-both", "insult", "flood-1", "chat.flooding")
    live.record("p0", T0, foreign)
    later = T0 + timedelta(minutes=10)
    before = len(overlay.offences("p0", later))
    overlay.record("p0", T0, foreign)  # the same offence in both ledgers
    assert len(overlay.offences("p0", later)) == before


class _Counting:
    """A classifier flagging lines with 'idiot' as insults, counting the texts it is asked about."""

    def __init__(self) -> None:
        self.asked = 0

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        self.asked += len(texts)
        return [
            TextVerdict(scores={"insult": 0.99}, flagged=("insult",))
            if "idiot" in t
            else TextVerdict(scores={"insult": 0.01})
            for t in texts
        ]


def test_a_shared_classifier_pair_looks_a_verdict_up_once_per_copy() -> None:
    live_model, shadow_model = _Counting(), _Counting()
    a, b = ClassifierDetector(classifier=live_model), ClassifierDetector(classifier=shadow_model)
    last = _LastFindings()
    live, shadow = SharedClassifierFindings(a, last), SharedClassifierFindings(b, last)
    messages = [
        ChatMessage(
            event_id=f"m{i}",
            ts=T0 + timedelta(seconds=i),
            player_id="p1",
            nickname="nick",
            table_id="t1",
            channel="table",
            text=text,
            client="mobile",
        )
        for i, text in enumerate(["gl all", "you idiot", "nice hand", "idiot again"])
    ]
    for message in messages:
        found = shadow.process(message)
        assert live.process(message) is found  # the same verdict: the twin's findings
        assert tuple(found) == tuple(ClassifierDetector(classifier=_Counting()).process(message))
    assert live_model.asked == shadow_model.asked == len(messages)
