"""SIGKILL consumer processes at random moments while traffic flows; restart them; then every
input event has exactly one effect: no finding lost, no case, sanction or enforcement event twice."""

from __future__ import annotations

import random
import time

import pytest

from tests.faults.checks import (
    assert_exactly_once,
    end_traffic,
    order_sensitive_difference,
    wait_for_all_effects,
)
from tests.faults.rig import Rig, account
from tests.faults.traffic import ORDER_SENSITIVE, chat_traffic, oracle, reorder_lateness_s, watermark_tail

pytestmark = [pytest.mark.faults, pytest.mark.kafka, pytest.mark.slow]

EVENTS = 4_000
KILLS = 4
RATE = 600


def test_random_sigkills_of_consumers_lose_and_duplicate_nothing(rig: Rig, oracle_pipeline_factory) -> None:
    lateness = rig.chat_lateness_s = reorder_lateness_s(RATE)
    records = chat_traffic(EVENTS, seed=11)
    tail = watermark_tail(EVENTS, lateness_s=lateness)
    expected = oracle(records + tail, oracle_pipeline_factory(lateness))
    assert len(expected.findings) > 100 and expected.automatic_actions and expected.dead > 0
    assert {d["detector"] for d in expected.findings.values()} >= ORDER_SENSITIVE, "the traffic has place-keyed episodes"

    rng = random.Random(5)
    slots = [rig.start_consumer(), rig.start_consumer()]
    traffic = rig.produce_in_background(records, rate_per_s=RATE)
    for _ in range(KILLS):
        time.sleep(rng.uniform(2.0, 5.0))
        victim = rng.choice(slots)
        rig.kill_consumer(victim)
        time.sleep(rng.uniform(0.0, 2.0))
        rig.start_consumer(victim)
    traffic.join(120)
    assert not traffic.is_alive()

    end_traffic(rig, tail, produced=EVENTS, timeout_s=180)
    wait_for_all_effects(rig, expected, n=EVENTS + len(tail), timeout_s=180)
    acc = account(rig, input_records=EVENTS + len(tail))
    print("consumer kills:", order_sensitive_difference(acc, expected), {"kills": rig.kills, **acc.figures()})
    assert rig.kills == KILLS
    assert_exactly_once(acc, expected)
