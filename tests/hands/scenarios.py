"""Seeded scenarios with planted collusion and the precision/recall of the hand detectors on them."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from pipeline.contracts import CHAT, HAND, ChatMessage, HandRecord
from pipeline.detector import Detector
from pipeline.findings import Finding
from tests.hands.generators import T0, Tactics, bounty_tournament, cash_session


@dataclass
class Scenario:
    """Events in order plus the truth: planted (category, players...) keys."""

    events: list[tuple[str, Any]] = field(default_factory=list)
    planted: set[tuple[str, ...]] = field(default_factory=set)
    with_chat: set[tuple[str, ...]] = field(default_factory=set)


def _records(values: Iterable[dict[str, Any]]) -> list[HandRecord]:
    return [HandRecord.model_validate_json(json.dumps(v)) for v in values]


def cash_scenario(*, tables: int, hands: int, seed: int) -> Scenario:
    """One third soft-play tables, one third chip-dumping tables, one third clean tables."""
    rng = random.Random(seed)
    sc = Scenario()
    streams = []
    for t in range(tables):
        players = [f"c{t}x{i}" for i in range(6)]
        kind = t % 3
        tactics = Tactics()
        if kind == 0:
            tactics = Tactics(soft=frozenset({frozenset(players[:2])}))
            sc.planted.add(("soft_play", *sorted(players[:2])))
        elif kind == 1:
            tactics = Tactics(dump=(players[2], players[3]))
            sc.planted.add(("chip_dumping", players[2], players[3]))
        streams.append(_records(cash_session(table_id=f"ct{t}", players=players, hands=hands, rng=rng, tactics=tactics)))
    for k in range(hands):  # interleave tables as a live stream would
        for s in streams:
            sc.events.append((HAND, s[k]))
    return sc


def bounty_scenario(*, pairs: int, tournaments_per_pair: int, clean: int, seed: int) -> Scenario:
    """Planted pairs each play several bounty tournaments together among regulars from a pool; the
    even-numbered pairs also agree in chat (private) once. Truth is keyed by pair."""
    rng = random.Random(seed)
    sc = Scenario()
    pool = [f"reg{i}" for i in range(40)]
    planted = [(f"ring{k}a", f"ring{k}b") for k in range(pairs)]
    plan: list[tuple[str, str] | None] = [p for p in planted for _ in range(tournaments_per_pair)] + [None] * clean
    rng.shuffle(plan)
    talked: set[tuple[str, str]] = set()
    for t, pair in enumerate(plan):
        tid = f"bt{t}"
        start = T0 + timedelta(hours=t)
        others = rng.sample(pool, 4 if pair else 6)
        players = [*(pair or ()), *others]
        rng.shuffle(players)
        events: list[tuple[str, Any]] = []
        for k, p in enumerate(players):  # everyone says hello: nicknames become known
            events.append((CHAT, _chat(f"{tid}-hi{k}", p, "gl all", tid, start)))
        if pair is not None:
            key = ("bounty_agreement", *sorted(pair))
            sc.planted.add(key)
            if int(pair[0][4:-1]) % 2 == 0 and pair not in talked:
                talked.add(pair)
                sc.with_chat.add(key)
                text = f"let's both go after @{others[0]} bounty, we check it down when someone is all in"
                events.append((CHAT, _chat(f"{tid}-plan", pair[0], text, tid, start, recipient=pair[1])))
        elif t % 3 == 1:
            events.append((CHAT, _chat(f"{tid}-deal", players[0], "ICM deal? everyone agree to chop", tid, start)))
        tactics = Tactics(bounty_pair=frozenset(pair)) if pair else Tactics()
        for r in _records(bounty_tournament(tournament_id=tid, players=players, rng=rng, tactics=tactics, start=start)):
            events.append((HAND, r))
        sc.events.extend(events)
    return sc


def _chat(event_id: str, player: str, text: str, tid: str, ts: Any, recipient: str | None = None) -> ChatMessage:
    return ChatMessage(
        event_id=event_id, ts=ts, channel="private" if recipient else "tournament", player_id=player,
        nickname=player, text=text, client="desktop", tournament_id=tid, recipient_id=recipient,
    )


def run(detectors: list[Detector], events: list[tuple[str, Any]]) -> list[Finding]:
    """Feed events to the detectors of their topic, in order; the findings."""
    out: list[Finding] = []
    for topic, event in events:
        for d in detectors:
            if topic in d.topics:
                out.extend(d.process(event))
    return out


def finding_key(f: Finding) -> tuple[str, ...]:
    """The truth key a finding claims (unordered pair for soft play, directed for chip dumping)."""
    if f.category == "soft_play":
        return ("soft_play", *sorted(f.players[:2]))
    if f.category == "chip_dumping":
        return ("chip_dumping", *f.players[:2])
    return ("bounty_agreement", *sorted(f.players[:2]))


def precision_recall(findings: list[Finding], planted: set[tuple[str, ...]], category: str,
                     *, min_score: float = 0.0) -> tuple[float, float, int]:
    """Precision, recall and number of distinct flagged keys for one category."""
    flagged = {finding_key(f) for f in findings if f.category == category and f.score >= min_score}
    truth = {p for p in planted if p[0] == category}
    hits = flagged & truth
    precision = len(hits) / len(flagged) if flagged else 1.0
    recall = len(hits) / len(truth) if truth else 1.0
    return precision, recall, len(flagged)
