"""Table talk around each hand, and the chat violations planted by abusers (with ground truth)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.contracts import ChatMessage
from simulator.abuse import EMOJI_SPAM, FLOOD_LINES, VIOLATIONS
from simulator.phrases import AFTER_HAND, DURING_HAND
from simulator.population import Player
from simulator.truth import TruthRow
from simulator.world import World


@dataclass(frozen=True, slots=True)
class HandWindow:
    """Where and when a hand runs, who is dealt in, and their cards (for hand-in-play talk)."""

    table_id: str
    tournament_id: str | None
    hand_id: str
    start: float
    end: float
    gap_end: float
    seated: tuple[Player, ...]
    in_hand: tuple[str, ...]
    holes: dict[str, str]


def bank_line(bank: dict[str, tuple[str, ...]], language: str, world: World) -> str:
    """A random line of a bank in a language (English when the language has none)."""
    lines = bank.get(language) or bank["en"]
    return lines[world.rng.randrange(len(lines))]


class Chatter:
    """Writes the chat of one hand: ordinary talk from everyone, planted violations from abusers."""

    def __init__(self, world: World, railbirds: Sequence[Player]) -> None:
        self.world = world
        self.railbirds = list(railbirds)
        self.interval = world.config.rates.plant_interval_s

    def talk(self, hand: HandWindow) -> None:
        """Everyday chat during and right after the hand, then any violation that is due."""
        w = self.world
        rand = w.rng.random
        duration = hand.end - hand.start
        due: list[Player] = []
        for p in hand.seated:
            if rand() * p.persona.chat_interval_s < duration:
                lang = p.language if rand() < 0.85 else "en"
                self._say(hand, p, hand.start + rand() * duration, bank_line(DURING_HAND, lang, w))
            if rand() < 0.06 and p.id in hand.in_hand:
                w.chat(hand.end + rand() * (hand.gap_end - hand.end), p, bank_line(AFTER_HAND, p.language, w),
                       table_id=hand.table_id, tournament_id=hand.tournament_id)
            if p.chat_categories and hand.start >= p.next_plant:
                due.append(p)
        for p in due:
            self._plant_seated(hand, p)
        if hand.holes and rand() < 0.3:
            self._plant_railbird(hand)

    def _say(self, hand: HandWindow, p: Player, t: float, text: str) -> ChatMessage:
        return self.world.chat(t, p, text, table_id=hand.table_id, tournament_id=hand.tournament_id,
                               hand_id=hand.hand_id, in_hand=hand.in_hand)

    def _victim(self, hand: HandWindow, offender: Player) -> Player | None:
        others = [p for p in hand.seated if p.id != offender.id]
        return others[self.world.rng.randrange(len(others))] if others else None

    def _plant_seated(self, hand: HandWindow, p: Player) -> None:
        rng = self.world.rng
        table_cats = [c for c in p.chat_categories if c != "hand_in_play"]
        victim = self._victim(hand, p)
        if not table_cats or victim is None:
            return
        category = next_category(p, table_cats)
        plant_violation(
            self.world, p, victim, rng.uniform(hand.start, hand.end), category,
            table_id=hand.table_id, tournament_id=hand.tournament_id, hand_id=hand.hand_id, in_hand=hand.in_hand,
        )
        p.next_plant = hand.start + rng.expovariate(1.0 / self.interval)

    def _plant_railbird(self, hand: HandWindow) -> None:
        """A watcher (not dealt in) names a dealt-in player's cards while the hand runs."""
        w = self.world
        due = [p for p in self.railbirds if p.cooldown_until <= hand.start and p.id not in hand.in_hand]
        if not due:
            return
        p = due[w.rng.randrange(len(due))]
        owner = sorted(hand.holes)[w.rng.randrange(len(hand.holes))]
        text = bank_line(VIOLATIONS["hand_in_play"], p.language, w).replace("{c}", hand.holes[owner])
        t = w.rng.uniform(hand.start, hand.end)
        message = self._say(hand, p, t, text)
        w.plant(TruthRow(
            category="hand_in_play", players=(p.id,), start=message.ts, end=message.ts,
            event_ids=(message.event_id,), table_id=hand.table_id, tournament_id=hand.tournament_id,
            detail={"language": p.language, "hand_id": hand.hand_id, "cards_of": owner, "text": text},
        ))
        p.cooldown_until = hand.start + w.rng.expovariate(1.0 / self.interval)


def _spaced(t: float, count: int, lo: float, hi: float, rng: random.Random) -> list[float]:
    """`count` increasing times from t, each gap drawn from [lo, hi] seconds."""
    times = [t]
    for _ in range(count - 1):
        times.append(times[-1] + rng.uniform(lo, hi))
    return times


def next_category(p: Player, categories: list[str]) -> str:
    """Abusers go through their categories in turn, so each one shows up early."""
    p.plants += 1
    return categories[(p.plants - 1) % len(categories)]


def plant_violation(
    world: World, p: Player, victim: Player, t: float, category: str, *, channel: str = "table",
    table_id: str | None = None, tournament_id: str | None = None, hand_id: str | None = None,
    in_hand: tuple[str, ...] | None = None,
) -> TruthRow:
    """Send the message(s) of one planted chat violation and record its truth row."""
    rng = world.rng
    lang = p.language
    if category == "flooding":
        texts = [bank_line(FLOOD_LINES, lang, world) for _ in range(rng.randint(8, 12))]
        times = _spaced(t, len(texts), 0.3, 0.8, rng)
    elif category == "emoji_spam":
        count = rng.randint(5, 7)
        texts = [EMOJI_SPAM[rng.randrange(len(EMOJI_SPAM))] * rng.randint(1, 2) for _ in range(count)]
        times = _spaced(t, count, 1.0, 3.0, rng)
    elif category in ("harassment", "shouting"):
        count = 3 if category == "harassment" else rng.randint(4, 5)
        texts = [bank_line(VIOLATIONS[category], lang, world).replace("{v}", "@" + victim.nickname) for _ in range(count)]
        times = _spaced(t, count, 5.0, 12.0, rng)
    else:
        texts = [bank_line(VIOLATIONS[category], lang, world).replace("{v}", victim.nickname)]
        times = [t]
    messages = [
        world.chat(at, p, text, channel=channel, table_id=table_id, tournament_id=tournament_id,
                   hand_id=hand_id, in_hand=in_hand)
        for at, text in zip(times, texts, strict=True)
    ]
    row = TruthRow(
        category=category, players=(p.id,), start=messages[0].ts, end=messages[-1].ts,
        event_ids=tuple(m.event_id for m in messages), table_id=table_id, tournament_id=tournament_id,
        detail={"language": lang, "channel": channel, "victims": [victim.id], "texts": texts[:3]},
    )
    world.plant(row)
    return row
