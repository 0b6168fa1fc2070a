"""A whole simulated room: builds the population, tables and tournaments, and streams its events.

`Room(config).events()` is a pure generator of (topic, event) in event-time order; ground truth and
the summary are complete once it is exhausted. Sinks (JSONL, Kafka) and the evaluation consume it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from pipeline.categories import CATEGORIES
from pipeline.contracts import CHAT, ChatMessage, Event
from simulator.cash import CashTable, Hunt, Plot
from simulator.chatter import Chatter
from simulator.config import CASH_LEVELS, HONEST_PERSONAS, RoomConfig
from simulator.games import NLHE, PLO, Game
from simulator.lobby import Lobby
from simulator.population import Player, build_population
from simulator.seating import Seating
from simulator.side import LobbyChat, SnapCam
from simulator.tournament import Tournament, TournamentSpec
from simulator.truth import TruthRow
from simulator.world import World

TABLE_PLAN: tuple[tuple[int, str, int], ...] = (
    (0, "regular", 6), (1, "regular", 6), (2, "regular", 6), (3, "regular", 6), (4, "regular", 6),
    (1, "regular", 9), (2, "regular", 9), (1, "rush_and_cash", 6), (2, "rush_and_cash", 6),
    (0, "all_in_or_fold", 6), (1, "all_in_or_fold", 6), (3, "vip", 6), (4, "vip", 6), (2, "regular", 2),
)
"""(index into CASH_LEVELS, format, seats) of the cash tables, repeated as the room grows."""
REPEAT_OFFENCES = 3
"""Planted chat offences from which a player also counts as a repeat offender (first ban rung)."""


def _suffix(game: Game) -> str:
    """Table-id suffix naming the game: none for hold'em (the ids every default run has), -plo."""
    return "" if game is NLHE else f"-{game.seat_variant}"


class _Rendezvous:
    """Sits a chip-dumping pair down together at their reserved heads-up table."""

    def __init__(self, table: CashTable, members: list[Player]) -> None:
        self.table = table
        self.members = members

    def step(self, now: float) -> float | None:
        if self.table.seating.seats or any(p.tables for p in self.members):
            return now + 60.0
        self.table.pending.extend(self.members)
        return now + 1800.0


class _SoftPlayTeam:
    """Seats a soft-play team together at one regular table and keeps it there: whoever is not
    seated (a stint ended, a rebuy) rejoins the partners' table when a seat opens. The lobby's
    own partner logic let each sit at a different table for a whole session."""

    def __init__(self, world: World, tables: list[CashTable], members: list[Player]) -> None:
        self.world = world
        self.tables = [t for t in tables if not t.reserved and t.fmt == "regular" and t.seating.max_seats > 2]
        self.members = members

    def step(self, now: float) -> float | None:
        free = [p for p in self.members if not p.tables and p.in_tournament is None and p.rest_until <= now]
        if not free:
            return now + 10.0
        seated = {t for p in self.members for t in p.tables}
        homes = [t for t in self.tables if t.table_id in seated]
        if homes:
            home = homes[0]
            for p in free[: max(0, home.open_seats())]:
                if all(q is not p for q in home.pending):
                    home.pending.append(p)
        elif len(free) == len(self.members):
            options = [t for t in self.tables if t.open_seats() >= len(free)]
            if options:
                options[self.world.rng.randrange(len(options))].pending.extend(free)
        return now + 10.0


def table_games(formats: list[str], share: float) -> list[Game]:
    """The game of each cash table: `share` of the tables that can deal Omaha do, spread evenly
    (the j-th such table when floor((j + 1) * share) steps past floor(j * share))."""
    games: list[Game] = []
    j = 0
    for fmt in formats:
        if fmt == "all_in_or_fold":
            games.append(NLHE)
            continue
        games.append(PLO if int((j + 1) * share + 1e-9) > int(j * share + 1e-9) else NLHE)
        j += 1
    return games


class Room:
    """One simulated poker room for `config.minutes` of room time."""

    def __init__(self, config: RoomConfig) -> None:
        self.config = config
        rng = random.Random(config.seed)
        self.population = build_population(config, rng)
        self.world = World(config, self.population, rng)
        w = self.world
        lo, hi = config.rates.first_plant_s
        for p in self.population.players.values():
            p.next_plant = rng.uniform(lo, hi)
            p.cooldown_until = rng.uniform(lo, hi)
        railbirds = [p for p in self.population.players.values() if "hand_in_play" in p.chat_categories]
        self.chatter = Chatter(w, railbirds)
        self.plots: dict[str, Plot] = {}
        self.hunts: dict[str, Hunt] = {}
        for g in self.population.groups:
            if g.kind in ("soft_play", "chip_dumping"):
                self.plots[str(g.index)] = Plot(g.kind, g.members)
        self.tables = self._cash_tables()
        self.tournaments = self._tournaments()
        self._offensive = {p.id for p in self.population.players.values() if p.offensive_nickname}
        self._nick_seen: dict[str, list[ChatMessage]] = {}
        self.finished = False
        """True once the room has run to its end (or was stopped) and the truth is final."""

    def _cash_tables(self) -> list[CashTable]:
        w = self.world
        count = max(len(TABLE_PLAN), self.config.players // 9)
        plan = [TABLE_PLAN[k % len(TABLE_PLAN)] for k in range(count)]
        games = table_games([fmt for _, fmt, _ in plan] + ["regular"], self.config.plo_share)
        tables = []
        for k, (level, fmt, seats) in enumerate(plan):
            tables.append(CashTable(
                w, self.chatter, table_id=f"c{k + 1:03d}-{CASH_LEVELS[level][0]}{_suffix(games[k])}",
                level=CASH_LEVELS[level], fmt=fmt, max_seats=seats, plots=self.plots, hunts=self.hunts, game=games[k],
            ))
        dumping = CashTable(
            w, self.chatter, table_id=f"hu001-nl200{_suffix(games[-1])}", level=CASH_LEVELS[4], fmt="regular",
            max_seats=2, plots=self.plots, hunts=self.hunts, reserved=True, game=games[-1],
        )
        tables.append(dumping)
        for k, table in enumerate(tables):
            w.schedule(1.0 + k * 0.37, table)
        players = self.population.players
        for g in self.population.group("chip_dumping"):
            w.schedule(w.rng.uniform(*self.config.rates.first_plant_s), _Rendezvous(dumping, [players[m] for m in g.members]))
        for g in self.population.group("soft_play"):
            w.schedule(w.rng.uniform(*self.config.rates.first_plant_s), _SoftPlayTeam(w, tables, [players[m] for m in g.members]))
        w.schedule(0.0, Lobby(w, tables, {}))
        w.schedule(0.5, LobbyChat(w))
        w.schedule(0.7, SnapCam(w, self.population.group("false_report")))
        return tables

    def _tournaments(self) -> list[Tournament]:
        w = self.world
        rates = self.config.rates
        players = self.population.players
        sit_out = self.population.group("sit_out")
        bounty = self.population.group("bounty")
        planted = {m for g in self.population.groups for m in g.members}
        pool = [p for p in players.values() if p.id not in planted and p.persona_name != "bumhunter"]
        w.rng.shuffle(pool)
        specs = [
            (TournamentSpec("t-bounty-1", "bounty", rates.bounty_start_s, min(45, max(12, len(players) // 7)),
                            rates.tournament_level_s, bounty=1000), sit_out[0].members, bounty[0].members),
            (TournamentSpec("t-turbo-1", "turbo", rates.turbo_start_s, min(27, max(9, len(players) // 10)),
                            rates.tournament_level_s), sit_out[1].members, ()),
        ]
        out = []
        for spec, group, hunters in specs:
            chosen = [players[m] for m in (*group, *hunters)]
            while len(chosen) < spec.entrants and pool:
                chosen.append(pool.pop())
            tournament = Tournament(w, self.chatter, spec, chosen, sit_out_group=group, hunters=hunters)
            w.schedule(spec.start_s, tournament)
            out.append(tournament)
        for spec, chosen in self._recurring_bounty(pool, bounty[0].members):
            tournament = Tournament(w, self.chatter, spec, chosen, hunters=bounty[0].members)
            w.schedule(spec.start_s, tournament)
            out.append(tournament)
        return out

    def _recurring_bounty(self, rest: list[Player], hunters: tuple[str, ...]) -> list[tuple[TournamentSpec, list[Player]]]:
        """With `bounty_every_minutes`, further bounty tournaments on a schedule with the agreement
        pair registered in each; the other entrants rotate through the players left out of the
        first two tournaments, so consecutive ones (which may overlap) share as few as possible."""
        every = self.config.bounty_every_minutes
        if every is None:
            return []
        rates = self.config.rates
        players = self.population.players
        size = 9 if self.config.bounty_sit_and_go else min(45, max(12, len(players) // 7))
        need = size - len(hunters)
        out: list[tuple[TournamentSpec, list[Player]]] = []
        start = rates.bounty_start_s + every * 60.0
        offset = 0
        while start < self.config.minutes * 60.0:
            spec = TournamentSpec(f"t-bounty-{len(out) + 2}", "bounty", start, size, rates.tournament_level_s, bounty=1000)
            others = [rest[(offset + k) % len(rest)] for k in range(min(need, len(rest)))] if rest else []
            out.append((spec, [*(players[h] for h in hunters), *others]))
            offset += need
            start += every * 60.0
        return out

    def events(self) -> Iterator[tuple[str, Event]]:
        """Every event of the room in event-time order; truth is complete when this ends."""
        offensive = self._offensive
        for topic, event in self.world.run():
            if topic == CHAT and isinstance(event, ChatMessage) and event.player_id in offensive:
                seen = self._nick_seen.setdefault(event.player_id, [])
                if len(seen) < 3:
                    seen.append(event)
            yield topic, event
        self._finish()

    @property
    def truth(self) -> list[TruthRow]:
        """Ground-truth rows (complete after `events()` is exhausted or `stop()`), ordered by start."""
        last = self.world.ts(self.world.end)
        rows = [r for r in self.world.truth if r.end <= last]
        return sorted(rows, key=lambda r: (r.start, r.category, r.players))

    def stop(self, at: datetime) -> None:
        """End the room early at the last event actually used: truth and summary cover up to there."""
        self.world.end = min(self.world.end, (at - self.config.start).total_seconds())
        self._finish()

    def _finish(self) -> None:
        if self.finished:
            return
        self.finished = True
        w = self.world
        for tournament in self.tournaments:
            tournament.finish()
        for plot in self.plots.values():
            plot.hands = [h for h in plot.hands if h[0] <= w.end]
            if plot.hands:
                w.plant(TruthRow(
                    category=plot.kind, players=plot.members, start=w.ts(plot.hands[0][0]),
                    end=w.ts(plot.hands[-1][0]), event_ids=tuple(h[1] for h in plot.hands),
                    table_id=plot.hands[0][2], detail={"hands": len(plot.hands)},
                ))
        for pid, hunt in self.hunts.items():
            kept = [k for k, t in enumerate(hunt.times) if t <= w.end]
            hunt.times = [hunt.times[k] for k in kept]
            hunt.events = [hunt.events[k] for k in kept]
            if len(hunt.events) >= 4:
                w.plant(TruthRow(
                    category="bumhunting", players=(pid,), start=w.ts(min(hunt.times)), end=w.ts(max(hunt.times)),
                    event_ids=tuple(hunt.events), detail={"victims": sorted(hunt.victims), "tables": sorted(hunt.tables),
                                                          "stints": len(hunt.events) // 2},
                ))
        for pid, seen in self._nick_seen.items():
            w.plant(TruthRow(
                # The nickname offends for as long as it is shown: from its first message to the end.
                category="offensive_nickname", players=(pid,), start=seen[0].ts, end=w.ts(w.end),
                event_ids=tuple(m.event_id for m in seen), detail={"nickname": seen[0].nickname},
            ))
        self._repeat_offenders()
        seatings: list[Seating] = [t.seating for t in self.tables]
        seatings += [s for t in self.tournaments for s in t.tables]
        for seating in seatings:
            for seat in seating.seats.values():
                seat.player.seat_seconds += max(0.0, w.end - seat.joined_at)
            seating.seats.clear()

    def _repeat_offenders(self) -> None:
        """A player with three or more planted chat offences is also a repeat offender."""
        by_player: dict[str, list[TruthRow]] = {}
        for row in self.world.truth:
            if CATEGORIES.get(row.category, ("",))[0] == "chat" and len(row.players) == 1:
                by_player.setdefault(row.players[0], []).append(row)
        for pid, rows in by_player.items():
            if len(rows) >= REPEAT_OFFENCES:
                rows.sort(key=lambda r: r.start)
                self.world.plant(TruthRow(
                    category="repeat_offender", players=(pid,), start=rows[REPEAT_OFFENCES - 1].start,
                    end=max(r.end for r in rows), event_ids=tuple(e for r in rows for e in r.event_ids),
                    detail={"offences": len(rows), "categories": sorted({r.category for r in rows})},
                ))

    def summary(self) -> dict[str, Any]:
        """Counts by topic and truth category, personas, and honest exposure in player-hours."""
        players = self.population.players.values()
        honest = [p for p in players if p.persona_name in HONEST_PERSONAS and not p.offensive_nickname]
        by_category: dict[str, int] = {}
        for row in self.truth:
            by_category[row.category] = by_category.get(row.category, 0) + 1
        personas: dict[str, int] = {}
        for p in players:
            personas[p.persona_name] = personas.get(p.persona_name, 0) + 1
        return {
            "seed": self.config.seed, "profile": self.config.profile, "minutes": self.config.minutes,
            "players": len(self.population.players), "personas": personas,
            "events": dict(sorted(self.world.counts.items())), "truth": dict(sorted(by_category.items())),
            "honest_players": len(honest),
            "honest_player_hours": round(sum(p.seat_seconds for p in honest) / 3600.0, 3),
            "start": self.config.start.isoformat(),
        }
