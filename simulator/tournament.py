"""Multi-table tournaments: levels, synchronised breaks, bubble and hand-for-hand, bounties, and the
collusion planted in them (synchronised sit-outs, bounty agreements with soft play)."""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field

from pipeline.contracts.seat import TournamentStanding
from simulator.abuse import VIOLATIONS
from simulator.chatter import Chatter, HandWindow, bank_line
from simulator.dealing import Deal, eliminators, hole_texts, order_from_button, play
from simulator.decisions import Tactics
from simulator.phrases import DEAL_TALK
from simulator.population import Player
from simulator.seating import Seat, Seating, TableInfo
from simulator.truth import TruthRow
from simulator.world import World

LEVELS: tuple[tuple[int, int, int], ...] = (
    (25, 50, 0), (50, 100, 0), (75, 150, 15), (100, 200, 20), (150, 300, 30), (200, 400, 40),
    (300, 600, 60), (400, 800, 80), (600, 1200, 120), (800, 1600, 160), (1000, 2000, 200),
    (1500, 3000, 300), (2000, 4000, 400), (3000, 6000, 600), (4000, 8000, 800), (6000, 12000, 1200),
)
"""(small blind, big blind, ante) per level."""
BREAK_MINUTE = 55
"""Every tournament breaks at :55 past the hour for five minutes, all tables together."""
PAY_JUMPS = (9, 3, 2)
"""Players-remaining counts below which the payout steps up (those under the paid places apply)."""


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """What kind of tournament, when it starts and how big it is."""

    tournament_id: str
    fmt: str
    start_s: float
    entrants: int
    level_s: float
    start_stack: int = 5000
    bounty: int = 0
    max_seats: int = 9


@dataclass(slots=True)
class Episode:
    """One planted synchronised sit-out: the group's sit-out and sit-in events."""

    members: tuple[str, ...]
    times: list[float] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    near_payout: bool = False


class Tournament:
    """One tournament; each step deals one hand at every table (all at once when hand-for-hand)."""

    def __init__(
        self, world: World, chatter: Chatter, spec: TournamentSpec, entrants: list[Player], *,
        sit_out_group: tuple[str, ...] = (), hunters: tuple[str, ...] = (),
    ) -> None:
        self.world = world
        self.chatter = chatter
        self.spec = spec
        self.entrants = entrants
        self.tables: list[Seating] = []
        self.buttons: dict[str, int] = {}
        self.hands: dict[str, int] = {}
        self.remaining = len(entrants)
        self.paid = max(2, len(entrants) // 6)
        self.bounties: dict[str, int] = {p.id: spec.bounty for p in entrants} if spec.bounty else {}
        self.started = False
        self.finished = False
        self.sit_out_group = sit_out_group
        self.hunters = hunters
        self.target: str | None = None
        self.plot_hands: list[tuple[float, str]] = []
        self.soft_hands: list[tuple[float, str]] = []
        """Plot hands in which the hunters, alone in the pot, soft-played each other."""
        self.acted_hands: list[tuple[float, str]] = []
        """Plot hands in which both hunters checked down a third player's all-in (the agreement
        acted on where the hand record shows it)."""
        self.episodes: list[Episode] = []
        self.next_plot = 0.0
        self.agreement: tuple[float, str | None] | None = None
        self.target_out: float | None = None
        self.ended_at = float("inf")

    def step(self, now: float) -> float | None:
        """Seat the field, or deal one round of hands."""
        if not self.started:
            return self._start(now)
        if self.remaining <= 1:
            self._finish(now)
            return None
        minute = (self.world.config.start.minute + now / 60.0) % 60
        if minute >= BREAK_MINUTE:
            return now + (60 - minute) * 60.0 + 0.5
        t = self._sit_outs(now)
        level = min(int((now - self.spec.start_s) / self.spec.level_s), len(LEVELS) - 1)
        hand_for_hand = self.remaining == self.paid + 1
        ends = [self._deal(table, t, level, hand_for_hand) for table in list(self.tables) if len(table.seats) >= 2]
        last = max(ends, default=t + 5.0)
        self._balance(last + 0.5)
        return last + self.world.rng.uniform(2.0, 4.0)

    def _start(self, now: float) -> float:
        rng = self.world.rng
        spec = self.spec
        count = math.ceil(len(self.entrants) / spec.max_seats)
        self.tables = [
            Seating(self.world, TableInfo(f"{spec.tournament_id}-t{k + 1}", "tournament", spec.fmt,
                                          f"{spec.tournament_id}-buyin", spec.tournament_id), spec.max_seats)
            for k in range(count)
        ]
        for table in self.tables:
            table.standing = self._standing
        ordered = sorted(self.entrants, key=lambda p: (p.id not in self.hunters, rng.random()))
        if self.hunters:
            others = [p for p in ordered if p.id not in self.hunters and p.id not in self.sit_out_group]
            self.target = others[0].id
            ordered.remove(others[0])
            ordered.insert(len(self.hunters), others[0])
        t = now
        for k, p in enumerate(ordered):
            table = self.tables[0] if k < len(self.hunters) + 1 else self.tables[k % count]
            if not table.free_seats():
                table = next(s for s in self.tables if s.free_seats())
            table.join(t, p, spec.start_stack, number=rng.choice(table.free_seats()))
            p.in_tournament = spec.tournament_id
            t += 0.02
        for table in self.tables:
            self.buttons[table.info.table_id] = 0
            self.hands[table.info.table_id] = 0
        lo, hi = self.world.config.rates.sit_out_plot_s
        self.next_plot = now + rng.uniform(lo, hi)
        self.started = True
        if self.hunters:
            self._agree(t + rng.uniform(5.0, 20.0))
        return t + 3.0

    def _agree(self, t: float) -> None:
        """The hunters agree in private chat to knock out the target for his bounty."""
        players = self.world.population.players
        a, b = (players[h] for h in self.hunters[:2])
        target = players[self.target] if self.target else None
        if target is None:
            return
        if not self.world.config.agreement_chat:
            self.agreement = (t, None)  # agreed off the platform: nothing to read in chat
            return
        lines = [line for line in VIOLATIONS["collusion_talk"][a.language] if "{t}" in line]
        text = lines[self.world.rng.randrange(len(lines))].replace("{t}", target.nickname)
        # Half the time from the lobby's private messages, which name no tournament (chosen by the
        # target's id, not the room's random stream, so the rest of the room is unchanged).
        tid = self.spec.tournament_id if zlib.crc32(target.id.encode()) % 2 else None
        message = self.world.chat(t, a, text, channel="private", recipient=b.id, tournament_id=tid)
        self.world.chat(t + 4.0, b, "ok 👍", channel="private", recipient=a.id, tournament_id=tid)
        self.agreement = (t, message.event_id)
        self.world.plant(TruthRow(
            category="collusion_talk", players=(a.id, b.id), start=message.ts, end=message.ts,
            event_ids=(message.event_id,), tournament_id=self.spec.tournament_id,
            detail={"language": a.language, "target": target.id, "text": text},
        ))

    def _sit_outs(self, now: float) -> float:
        """Ordinary sit-outs and disconnects, returns, and the planted synchronised sit-out."""
        rng = self.world.rng
        t = now
        for table in self.tables:
            for seat in list(table.seats.values()):
                persona = seat.player.persona
                if seat.state != "seated" and seat.back_at <= t:
                    action = "reconnect" if seat.state == "disconnected" else "sit_in"
                    event = table.change(t, seat, action, "seated")
                    self._note_episode(seat.player.id, t, event.event_id)
                elif seat.state == "seated":
                    roll = rng.random()
                    if roll < 35.0 / (persona.sit_out_interval_s * 2):
                        seat.back_at = t + rng.uniform(*persona.sit_out_s)
                        table.change(t, seat, "sit_out", "sitting_out")
                    elif roll < 35.0 / (persona.sit_out_interval_s * 2) + 35.0 / persona.disconnect_interval_s:
                        seat.back_at = t + rng.uniform(5.0, 120.0)
                        table.change(t, seat, "disconnect", "disconnected")
                    else:
                        continue
                t += 0.02
        if self.sit_out_group and now >= self.next_plot:
            t = self._plot_sit_out(t)
        return t

    def _standing(self) -> TournamentStanding:
        """Players left and where the money starts, as the game server sends it on seat events."""
        return TournamentStanding(
            players_remaining=max(1, self.remaining), paid_places=self.paid,
            pay_jumps=tuple(m for m in PAY_JUMPS if m < self.paid),
        )

    def _near_payout(self) -> bool:
        """The bubble or a pay jump is a few eliminations away (where sitting out pays)."""
        marks = (self.paid, *(m for m in PAY_JUMPS if m < self.paid))
        return any(m < self.remaining <= m + max(3, m // 2) for m in marks)

    def _plot_sit_out(self, t: float) -> float:
        """The group's agreement, carried out again and again: one of them says "sit out now, back
        in N minutes" in private; each clicks within 3 s and comes back at the agreed time.
        Near the bubble and pay jumps they do it more often and for shorter spells (others bust while
        they fold nothing)."""
        rng = self.world.rng
        seats = [(table, s) for table in self.tables for s in table.seats.values()
                 if s.player.id in self.sit_out_group and s.state == "seated"]
        lo, hi = self.world.config.rates.sit_out_plot_s
        near = self._near_payout()
        duration = rng.uniform(40.0, 120.0) if near else rng.uniform(120.0, 300.0)
        back = t + duration
        self.next_plot = back + (rng.uniform(30.0, 90.0) if near else rng.uniform(lo, hi))
        if len(seats) < 2:
            return t
        episode = Episode(tuple(s.player.id for _, s in seats), near_payout=near)
        # Apply in time order, so every event's sitting-out count reflects the earlier ones.
        timed = sorted((t + rng.uniform(0.0, 3.0), k) for k in range(len(seats)))
        for at, k in timed:
            table, seat = seats[k]
            seat.back_at = back + rng.uniform(0.0, 3.0)
            event = table.change(at, seat, "sit_out", "sitting_out")
            episode.times.append(at)
            episode.events.append(event.event_id)
        self.episodes.append(episode)
        return t + 8.5

    def _plant_sit_out_agreement(self) -> None:
        """One row per group and tournament: the agreement, once carried out at least twice.

        The offence is the agreement; a single joint sit-out is indistinguishable from two players
        who happened to step away together, so it is the repetition (issue #5: "repeatedly") that
        makes the row. Episodes the run cut off before two members had gone out do not count."""
        w = self.world
        done: list[Episode] = []
        for ep in self.episodes:
            kept = [k for k, t in enumerate(ep.times) if t <= w.end]
            ep.times[:] = [ep.times[k] for k in kept]
            ep.events[:] = [ep.events[k] for k in kept]
            if sum(1 for k in kept if k < len(ep.members)) >= 2:
                done.append(ep)
        if len(done) < 2:
            return
        w.plant(TruthRow(
            category="collusive_sit_out", players=tuple(dict.fromkeys(m for ep in done for m in ep.members)),
            start=w.ts(min(done[0].times)), end=w.ts(max(done[-1].times)),
            event_ids=tuple(e for ep in done for e in ep.events), tournament_id=self.spec.tournament_id,
            detail={"episodes": len(done), "near_payout": sum(ep.near_payout for ep in done),
                    "sit_outs": sum(min(len(ep.members), len(ep.times)) for ep in done)},
        ))

    def _note_episode(self, player_id: str, t: float, event_id: str) -> None:
        for episode in self.episodes:
            if player_id in episode.members and len(episode.events) < 2 * len(episode.members):
                episode.times.append(t)
                episode.events.append(event_id)
                return

    def _deal(self, table: Seating, t: float, level: int, hand_for_hand: bool) -> float:
        rng = self.world.rng
        table_id = table.info.table_id
        sb, bb, ante = LEVELS[level]
        numbers = sorted(table.seats)
        button = self.buttons[table_id]
        following = [n for n in numbers if n > button]
        self.buttons[table_id] = following[0] if following else numbers[0]
        order = [table.seats[n] for n in order_from_button(numbers, self.buttons[table_id])]
        ids = [s.player.id for s in order]
        tactics = Tactics()
        hunters = [ids.index(h) for h in self.hunters if h in ids]
        if len(hunters) >= 2:
            target = ids.index(self.target) if self.target in ids else None
            tactics = Tactics(friends=frozenset({frozenset(hunters)}), target=target,
                              check_down=self.world.config.bounty_check_down)
        self.hands[table_id] += 1
        hand_id = f"{table_id}-h{self.hands[table_id]}"
        start = t + 1.0 + (0.0 if hand_for_hand else rng.uniform(0.0, 8.0))
        end = start + rng.uniform(20.0, 45.0)
        deal = Deal(
            table_id=table_id, game="tournament", blind_level=f"L{level + 1}",
            players=tuple(s.player for s in order), seats=tuple(s.number for s in order),
            stacks=tuple(s.stack for s in order), small_blind=sb, big_blind=bb, ante=ante,
            active=tuple(s.state == "seated" for s in order), tactics=tactics,
            tournament_id=self.spec.tournament_id,
            bounties={i: self.bounties[i] for i in ids} if self.bounties else None,
        )
        outcome = play(self.world, deal, start=start, end=end, hand_id=hand_id)
        if outcome.planted:
            self.plot_hands.append((end, hand_id))
        if outcome.soft_played:
            self.soft_hands.append((end, hand_id))
        if len(hunters) >= 2 and set(hunters) <= outcome.checked_down:
            self.acted_hands.append((end, hand_id))
        for seat, stack in zip(order, outcome.finishing, strict=True):
            seat.stack = stack
            seat.hands += 1
        self.chatter.talk(HandWindow(
            table_id=table_id, tournament_id=self.spec.tournament_id, hand_id=hand_id, start=start,
            end=end, gap_end=end + 2.0, seated=tuple(s.player for s in order), in_hand=tuple(ids),
            holes=hole_texts(deal, outcome),
        ))
        if len(self.tables) == 1 and self.remaining <= 4 and rng.random() < 0.1:
            speaker = order[rng.randrange(len(order))].player
            self.world.chat(end + 1.0, speaker, bank_line(DEAL_TALK, speaker.language, self.world),
                            table_id=table_id, tournament_id=self.spec.tournament_id)
        for i, seat in enumerate(order):
            if seat.stack == 0 and self.remaining > 1:
                self._eliminate(table, seat, [order[w].player.id for w in eliminators(outcome, i)], end + 0.5)
        return end

    def _eliminate(self, table: Seating, seat: Seat, winners: list[str], t: float) -> None:
        pid = seat.player.id
        if self.bounties and winners:
            bounty = self.bounties.pop(pid, 0)
            share, rest = divmod(bounty, len(winners))
            for k, w in enumerate(winners):
                self.bounties[w] = self.bounties.get(w, 0) + share + (rest if k == 0 else 0)
        table.leave(t, seat)
        self._left(seat.player)
        self.remaining -= 1
        if pid == self.target:
            self.target_out = t

    def _balance(self, t: float) -> None:
        """Break the shortest table when the others have room for its players."""
        needed = math.ceil(self.remaining / self.spec.max_seats)
        while len(self.tables) > needed:
            short = min(self.tables, key=lambda s: len(s.seats))
            self.tables.remove(short)
            for seat in list(short.seats.values()):
                short.leave(t, seat)
                home = max(self.tables, key=lambda s: len(s.free_seats()))
                moved = home.join(t, seat.player, seat.stack, number=home.free_seats()[0])
                moved.state = seat.state
                moved.back_at = seat.back_at
                t += 0.02

    def _finish(self, now: float) -> None:
        self.ended_at = now
        for table in self.tables:
            for seat in list(table.seats.values()):
                table.leave(now, seat)
                self._left(seat.player)
        self.finish()

    def _left(self, player: Player) -> None:
        # With recurring bounty tournaments the hunters can still be in the next one (multi-tabling).
        if player.in_tournament == self.spec.tournament_id:
            player.in_tournament = None

    def finish(self) -> None:
        """Write the truth rows of the plots (once): sit-out episodes and the bounty agreement."""
        if self.finished:
            return
        self.finished = True
        w = self.world
        tid = self.spec.tournament_id
        self.plot_hands = [h for h in self.plot_hands if h[0] <= w.end]
        self.soft_hands = [h for h in self.soft_hands if h[0] <= w.end]
        self.acted_hands = [h for h in self.acted_hands if h[0] <= w.end]
        self._plant_sit_out_agreement()
        if self.agreement is None:
            return
        start, chat_id = self.agreement
        if start > w.end:
            return  # the run ended before the hunters agreed
        # The agreement stands until the target is out, or else until the tournament (or run) ends.
        end = self.target_out if self.target_out is not None else min(self.ended_at, w.end)
        if w.config.bounty_check_down and self.plot_hands:
            # Checking down covers every all-in, not only the target's: it lasts as long as they do.
            end = max(end, self.plot_hands[-1][0])
        hand_ids = tuple(h[1] for h in self.plot_hands)
        w.plant(TruthRow(
            category="bounty_agreement", players=self.hunters, start=w.ts(start), end=w.ts(end),
            event_ids=(*((chat_id,) if chat_id else ()), *hand_ids), tournament_id=tid,
            detail={"target": self.target, "target_eliminated": self.target_out is not None,
                    "chat": chat_id is not None, "acted_on": len(self.acted_hands)},
        ))
        if self.soft_hands:
            # Soft play only where they were alone in a pot together: ganging up on the target in
            # a multiway pot is the bounty agreement, not soft play.
            w.plant(TruthRow(
                category="soft_play", players=self.hunters, start=w.ts(self.soft_hands[0][0]),
                end=w.ts(self.soft_hands[-1][0]), event_ids=tuple(h[1] for h in self.soft_hands),
                tournament_id=tid,
                detail={"context": "bounty agreement", "target": self.target, "hands": len(self.soft_hands)},
            ))
