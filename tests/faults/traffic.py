"""Deterministic chat traffic for the fault suite and bench/faults.py, and its offline oracle.

The traffic is valid chat (clean lines, slurs, shouting, floods) with a share of poison records
(wrong types, missing fields, not JSON). The oracle is `pipeline.replay.replay_lines` over the
same records: what the streaming path must end up with, however often it is killed.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from pipeline.contracts import CHAT, DecodeError, decode
from pipeline.replay import envelope_line, replay_lines
from pipeline.runner import Pipeline
from railbird.settings import Settings
from tests.samples import T0, chat_value

CLEAN = ("nice hand", "gg", "ty", "fold already", "lol", "wp", "how long is the break?", "good luck all",
         "ship it", "wow what a river", "see you tomorrow", "brb coffee")
OFFENSIVE = ("kys", "you are a retard", "kurva anyád", "сука", "shut up you idiot", "fucking donkey")
SHOUT = "WHY DO YOU ALWAYS CALL WITH TRASH"
QUARREL = ("SHUT UP YOU IDIOT", "you are a retard", "FUCKING DONKEY LEARN TO PLAY", "idiot")
QUARREL_TABLES = 8
"""Tables where two seated players keep at each other: lines naming the other's nickname, the
episodes of the place-keyed detectors (harassment, shouting matches), whose two players' lines
come from two producer keys and so from two input partitions."""

ORDER_SENSITIVE = frozenset({"chat.shouting_match", "chat.harassment"})
# chat.collusion_parties is place-keyed too, but this traffic holds no collusion talk (the suites
# assert that every detector named here has episodes in it), so it is compared like the others.
"""Detectors keyed by place while game servers key chat by player: their events come from several
input partitions, interleaved however the partitions are read. They put their input back in event
time within the reorder lateness (`pipeline/detectors/chat/order.py`), so with the lateness scaled
to the traffic (`reorder_lateness_s`) their findings are compared exactly like every other's; the
suite still reports them apart (`order_sensitive_difference`) to show where a difference would be."""

SPACING = timedelta(milliseconds=100)
"""Event time between two records: the traffic is ~2.8 h of a room's chat, produced in seconds."""

PRODUCTION_LATENESS_S: float = Settings.model_fields["chat_reorder_lateness_s"].default
"""The reorder lateness a deployment runs with, in wall-clock seconds (event time = wall time)."""


def reorder_lateness_s(rate_per_s: float) -> float:
    """Production's reorder lateness translated into this traffic's event time.

    The traffic's event time passes `rate_per_s x SPACING` times faster than the wall clock while
    it is produced, so a failover that holds one input partition back for S wall seconds skews it
    by S times that factor in event time. Scaling the lateness by the same factor tests the
    production setting against the faults, neither looser nor tighter.
    """
    return PRODUCTION_LATENESS_S * rate_per_s * SPACING.total_seconds()


@dataclass(frozen=True, slots=True)
class Record:
    """One record to produce: Kafka key and the raw value bytes."""

    key: bytes
    value: bytes


def _poison(i: int, rng: random.Random) -> bytes:
    kind = i % 4
    if kind == 0:
        return b"{not json at all" + str(i).encode()
    if kind == 1:
        return json.dumps(chat_value(event_id=f"bad-{i}", ts="yesterday")).encode()
    if kind == 2:
        value = chat_value(event_id=f"bad-{i}")
        del value["player_id"]
        return json.dumps(value).encode()
    return json.dumps(chat_value(event_id=f"bad-{i}", text=rng.random())).encode()


def chat_traffic(n: int, *, seed: int = 7, players: int = 400, tables: int = 60,
                 poison_every: int = 97, start: int = 0) -> list[Record]:
    """n records, 100 ms of event time apart from record `start` on; every `poison_every`-th is poison."""
    rng = random.Random(seed * 1_000_003 + start)
    out: list[Record] = []
    for i in range(start, start + n):
        if poison_every and i % poison_every == poison_every - 1:
            out.append(Record(b"poison", _poison(i, rng)))
            continue
        player = f"p{rng.randrange(players)}"
        roll = rng.random()
        text = (rng.choice(OFFENSIVE) if roll < 0.04 else SHOUT if roll < 0.06 else rng.choice(CLEAN))
        if roll > 0.98:
            player, text = _quarrel_line(rng, tables)
        value = chat_value(
            event_id=f"ev-{seed}-{i}", ts=(T0 + SPACING * i).isoformat(),
            player_id=player, nickname=f"Nick{player}", table_id=f"t{int(player[1:]) % tables}",
            text=text,
        )
        out.append(Record(player.encode(), json.dumps(value, ensure_ascii=False).encode()))
    return out


def _quarrel_line(rng: random.Random, tables: int) -> tuple[str, str]:
    """A line of one of the two quarrelling players of a quarrel table, aimed at the other."""
    table = rng.randrange(QUARREL_TABLES)
    pair = (f"p{table}", f"p{table + tables}")  # players sit at table (number mod tables)
    speaker = rng.randrange(2)
    return pair[speaker], f"@Nick{pair[1 - speaker]} {rng.choice(QUARREL)}"


def watermark_tail(after: int, *, lateness_s: float, seed: int = 7, tables: int = 60) -> list[Record]:
    """One clean line per table, `lateness_s` + 1 s of event time after record `after`.

    The stream's place-keyed detectors hold each line until later traffic moves their watermark
    past it; a deployment never runs out of later traffic, a test does. These lines end a test's
    traffic so that every real line is released (the offline oracle sees them too, and drains).
    Produce them only after every earlier record is committed, so that they come after all of them
    in every re-key partition.
    """
    ts = T0 + SPACING * after + timedelta(seconds=lateness_s + 1)
    return [
        Record(f"p{t}".encode(), json.dumps(chat_value(
            event_id=f"tail-{seed}-{after}-{t}", ts=ts.isoformat(), player_id=f"p{t}", nickname=f"Nickp{t}",
            table_id=f"t{t}", text="gg")).encode())
        for t in range(tables)
    ]


@dataclass
class Oracle:
    """What one offline run over the same records produced."""

    findings: dict[str, dict[str, Any]] = field(default_factory=dict)
    automatic_actions: set[str] = field(default_factory=set)
    automatic_action_kinds: dict[str, str] = field(default_factory=dict)
    action_finding: dict[str, str] = field(default_factory=dict)
    dead: int = 0
    detector_errors: int = 0
    kinds: Counter[str] = field(default_factory=Counter)


def oracle(records: Iterable[Record], pipeline: Pipeline) -> Oracle:
    """Replay the records offline (`replay_lines`); non-JSON bytes are decoded directly."""
    result = Oracle()
    lines: list[str] = []
    for r in records:
        try:
            lines.append(envelope_line(CHAT, json.loads(r.value)))
        except json.JSONDecodeError:
            try:
                decode(CHAT, r.value)
            except DecodeError:
                result.dead += 1
    for out in replay_lines(lines, pipeline, flush=False):
        result.kinds[out["kind"]] += 1
        if out["kind"] == "finding":
            result.findings[out["finding"]["finding_id"]] = out["finding"]
        elif out["kind"] == "action" and out["action"]["disposition"] == "automatic":
            result.automatic_actions.add(out["action"]["action_id"])
            result.automatic_action_kinds[out["action"]["action_id"]] = out["action"]["kind"]
            result.action_finding[out["action"]["action_id"]] = out["finding_id"]
        elif out["kind"] == "dead_letter":
            result.dead += 1
        elif out["kind"] == "detector_error":
            result.detector_errors += 1
    return result
