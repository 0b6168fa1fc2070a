"""The simulated players: personas, languages, nicknames, and the planted groups among them."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from simulator.config import PERSONAS, Persona, RoomConfig
from simulator.phrases import LANGUAGE_SHARE, LANGUAGES, NICKNAME_PARTS, OFFENSIVE_NICKNAMES

TABLE_CATEGORIES: tuple[str, ...] = (
    "insult", "hate", "threat", "sexual", "personal_info", "impersonation", "criminal",
    "shouting", "harassment", "flooding", "emoji_spam", "hand_in_play",
    "defamation", "illegal_disclosure", "misleading", "confidential",
)
"""Chat categories planted by abusers sitting at (or watching) tables."""
SPAM_CATEGORIES: tuple[str, ...] = ("spam", "malicious_link")


@dataclass(slots=True, eq=False)
class Player:
    """One account; the mutable fields track where it plays right now."""

    id: str
    nickname: str
    language: str
    client: str
    persona_name: str
    persona: Persona
    chat_categories: tuple[str, ...] = ()
    offensive_nickname: bool = False
    group: int | None = None
    tables: set[str] = field(default_factory=set)
    in_tournament: str | None = None
    next_plant: float = 0.0
    cooldown_until: float = 0.0
    rest_until: float = 0.0
    plants: int = 0
    seat_seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Group:
    """Linked accounts planted together: soft play, dumping, sit-outs, bounty hunters, false reports."""

    index: int
    kind: str
    members: tuple[str, ...]


@dataclass(slots=True)
class Population:
    """Every player by id, and the planted groups."""

    players: dict[str, Player]
    groups: list[Group]

    def by_persona(self, name: str) -> list[Player]:
        """Players of one persona, in id order."""
        return [p for p in self.players.values() if p.persona_name == name]

    def group(self, kind: str) -> list[Group]:
        """Planted groups of one kind."""
        return [g for g in self.groups if g.kind == kind]


GROUP_PLAN: tuple[tuple[str, int], ...] = (
    ("soft_play", 2), ("soft_play", 2), ("chip_dumping", 2), ("sit_out", 2), ("sit_out", 3),
    ("bounty", 2), ("false_report", 4), ("false_report", 3),
)
"""Kind and size of each planted group of colluding or linked accounts."""
SOFT_PLAY_PERSONA = replace(PERSONAS["colluder"], stint_hands=400, early_leave=0.0)
"""Soft-play partners: sessions of ~400 hands (several hours) rather than a colluder's ~90."""


def build_population(config: RoomConfig, rng: random.Random) -> Population:
    """Players with personas, plus the planted groups and abusers, deterministically from rng."""
    n = max(60, config.players)
    plan: list[tuple[str, tuple[str, ...], str | None]] = []
    per_language = max(4, n // 100)
    abuser = 0
    for language in LANGUAGES:
        for _ in range(per_language):
            # Spread the starting categories so the first two plants of all abusers cover them all.
            start = (abuser * 5) % len(TABLE_CATEGORIES)  # 5 is coprime with 16: all starts differ
            abuser += 1
            cats = tuple(TABLE_CATEGORIES[(start + j) % len(TABLE_CATEGORIES)] for j in range(5))
            plan.append(("chat_abuser", cats, language))
        plan.append(("spammer", SPAM_CATEGORIES, language))
    plan += [("hit_and_runner", (), None)] * max(3, n // 50)
    plan += [("bumhunter", (), None)] * max(2, n // 120)
    plan += [("snapcam_harasser", (), None)] * max(2, n // 150)
    players: dict[str, Player] = {}
    groups: list[Group] = []
    taken: set[str] = set()

    def make(persona: str, cats: tuple[str, ...] = (), language: str | None = None) -> Player:
        number = len(players)
        nick = f"{rng.choice(NICKNAME_PARTS[0])}{rng.choice(NICKNAME_PARTS[1])}{rng.randint(1, 999)}"
        while nick in taken:
            nick += str(rng.randint(0, 9))
        taken.add(nick)
        player = Player(
            id=f"pl{number:05d}", nickname=nick,
            language=language or rng.choices(LANGUAGES, weights=LANGUAGE_SHARE)[0],
            client=rng.choices(("desktop", "mobile", "browser"), weights=(45, 45, 10))[0],
            persona_name=persona, persona=PERSONAS[persona], chat_categories=cats,
        )
        players[player.id] = player
        return player

    for persona_name, cats, lang in plan:
        make(persona_name, cats, lang)
    for index, (kind, size) in enumerate(GROUP_PLAN):
        persona = "false_reporter" if kind == "false_report" else "colluder"
        members = tuple(make(persona).id for _ in range(size))
        for member in members:
            players[member].group = index
            if kind == "soft_play":
                # A soft-playing team grinds long sessions together (that is the point of it).
                players[member].persona = SOFT_PLAY_PERSONA
        groups.append(Group(index, kind, members))
    while len(players) < n:
        make("recreational" if rng.random() < 0.65 else "regular")
    honest = [p for p in players.values() if p.persona_name in ("recreational", "regular")]
    for k, player in enumerate(rng.sample(honest, max(2, n // 60))):
        player.nickname = f"{OFFENSIVE_NICKNAMES[k % len(OFFENSIVE_NICKNAMES)]}{rng.randint(1, 99)}"
        player.offensive_nickname = True
    return Population(players, groups)
