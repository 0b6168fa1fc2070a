"""The lobby: seats players at cash tables the way their personas choose tables."""

from __future__ import annotations

from simulator.cash import STRONG, CashTable
from simulator.population import Player
from simulator.world import World

LOBBY_TICK_S = 10.0


class Lobby:
    """Every tick, fills some open seats; bumhunters pick weak tables, colluders join partners."""

    def __init__(self, world: World, tables: list[CashTable], partners: dict[str, tuple[str, ...]]) -> None:
        self.world = world
        self.tables = [t for t in tables if not t.reserved]
        self.partners = partners
        excluded = {"colluder", "false_reporter"}
        self.pool = [p for p in world.population.players.values() if p.persona_name not in excluded]
        self.hunters = [p for p in self.pool if p.persona_name == "bumhunter"]
        self.runners = [p for p in self.pool if p.persona_name == "hit_and_runner"]
        self.colluders = [p for p in world.population.players.values() if p.id in partners]
        self.where: dict[str, CashTable] = {t.table_id: t for t in tables}

    def _free(self, p: Player, now: float, table: CashTable) -> bool:
        return (
            p.rest_until <= now and len(p.tables) < p.persona.max_tables and p.in_tournament is None
            and table.table_id not in p.tables and all(q is not p for q in table.pending)
        )

    def step(self, now: float) -> float | None:
        """Fill seats for one tick."""
        rng = self.world.rng
        for table in self.tables:
            if table.open_seats() <= 1 or rng.random() > 0.5:
                continue
            for _ in range(12):
                p = self.pool[rng.randrange(len(self.pool))]
                if p.persona_name in ("bumhunter", "hit_and_runner") or not self._free(p, now, table):
                    continue
                table.pending.append(p)
                break
        self._bumhunters(now)
        self._hit_and_runners(now)
        self._partners(now)
        return now + LOBBY_TICK_S

    def _bumhunters(self, now: float) -> None:
        """Bumhunters scan the lobby constantly: mostly they sit where weak players play and nobody
        competent does, but they also take a look at any table with a weak player (and leave at once
        if a regular is there), which makes many seating attempts without play."""
        rng = self.world.rng
        weak: list[CashTable] | None = None
        fishy: list[CashTable] | None = None
        for p in self.hunters:
            if rng.random() > 0.5 or p.rest_until > now or len(p.tables) >= p.persona.max_tables:
                continue
            if weak is None or fishy is None:
                open_tables = [t for t in self.tables if t.open_seats() > 0]
                weak = [t for t in open_tables if _weak(t)]
                fishy = [t for t in open_tables if _fish(t)]
            pick = weak if weak and rng.random() < 0.6 else fishy
            options = [t for t in pick if self._free(p, now, t)]
            if options:
                options[rng.randrange(len(options))].pending.append(p)

    def _hit_and_runners(self, now: float) -> None:
        """They hop from table to table at the formats where leaving early counts."""
        rng = self.world.rng
        hoppable: list[CashTable] | None = None
        for p in self.runners:
            if rng.random() > 0.5 or p.rest_until > now or len(p.tables) >= p.persona.max_tables:
                continue
            if hoppable is None:
                hoppable = [t for t in self.tables if t.fmt in ("regular", "vip") and t.open_seats() > 0]
            options = [t for t in hoppable if self._free(p, now, t)]
            if options:
                options[rng.randrange(len(options))].pending.append(p)

    def _partners(self, now: float) -> None:
        """A soft-play colluder sits where a partner already plays, or opens a table for both."""
        rng = self.world.rng
        for p in self.colluders:
            if p.tables or p.rest_until > now:
                continue
            homes = [self.where[t] for m in self.partners[p.id] for t in sorted(self.world.population.players[m].tables)
                     if t in self.where]
            if homes:
                table = homes[0]
                if table.open_seats() > 0 and self._free(p, now, table):
                    table.pending.append(p)
            elif rng.random() < 0.2:
                options = [t for t in self.tables if t.fmt == "regular" and t.open_seats() >= 2]
                if options:
                    options[rng.randrange(len(options))].pending.append(p)


def _fish(table: CashTable) -> bool:
    """At least one recreational player seated (a bumhunter's reason to look at the table)."""
    return any(s.player.persona_name == "recreational" for s in table.seating.seats.values())


def _weak(table: CashTable) -> bool:
    """At least two recreational players and nobody a bumhunter avoids."""
    seated = [s.player.persona_name for s in table.seating.seats.values()]
    return seated.count("recreational") >= 2 and not any(name in STRONG for name in seated)
