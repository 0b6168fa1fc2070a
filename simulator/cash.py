"""Cash tables (one hand per step) and the lobby that fills their seats."""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.chatter import Chatter, HandWindow
from simulator.config import HAND_SECONDS
from simulator.dealing import Deal, hole_texts, order_from_button, play
from simulator.decisions import Tactics
from simulator.games import NLHE, Game
from simulator.population import Player
from simulator.seating import Seat, Seating, TableInfo
from simulator.world import World

STRONG = frozenset({"regular", "bumhunter", "colluder", "hit_and_runner"})
"""Personas a bumhunter avoids."""


@dataclass(slots=True)
class Plot:
    """Hands in which a planted group's tactic decided an action: the evidence of its truth row."""

    kind: str
    members: tuple[str, ...]
    hands: list[tuple[float, str, str]] = field(default_factory=list)


@dataclass(slots=True)
class Hunt:
    """A bumhunter's stints: joins and leaves, and the weak players sat with."""

    events: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    victims: set[str] = field(default_factory=set)
    tables: set[str] = field(default_factory=set)


class CashTable:
    """A cash table at one blind level and format; each step plays one hand."""

    def __init__(
        self, world: World, chatter: Chatter, *, table_id: str, level: tuple[str, int, int], fmt: str,
        max_seats: int, plots: dict[str, Plot], hunts: dict[str, Hunt], reserved: bool = False,
        game: Game = NLHE,
    ) -> None:
        self.world = world
        self.chatter = chatter
        self.level_id, self.sb, self.bb = level
        self.fmt = fmt
        self.reserved = reserved
        self.game = game
        info = TableInfo(table_id, "cash", fmt, self.level_id, variant=game.seat_variant)
        self.seating = Seating(world, info, max_seats)
        self.pending: list[Player] = []
        self.button = 0
        self.hand_no = 0
        self.plots = plots
        self.hunts = hunts
        self.buy_in = self.bb * 100
        self._per_hand = sum(HAND_SECONDS[fmt]) / 2

    @property
    def _away(self) -> int:
        """Seats sitting out, disconnected or due for removal."""
        return sum(1 for s in self.seating.seats.values() if s.state != "seated")

    @property
    def table_id(self) -> str:
        """The table's id."""
        return self.seating.info.table_id

    def open_seats(self) -> int:
        """Seats not taken and not promised to a joining player."""
        seating = self.seating
        return seating.max_seats - len(seating.seats) - len(self.pending)

    def step(self, now: float) -> float | None:
        """Seat changes at the hand boundary, then one hand with its chat."""
        t = now
        t = self._returns(t)
        t = self._leaves(t)
        t = self._joins(t)
        t = self._hunters_wait(t)
        t = self._breaks(t)
        dealt = self.seating.dealt()
        if len(dealt) < 2:
            return now + 15.0
        lo, hi = HAND_SECONDS[self.fmt]
        start = t + 1.0
        end = start + self.world.rng.uniform(lo, hi)
        self._hand(dealt, start, end)
        return end + self.world.rng.uniform(2.0, 4.0)

    def _returns(self, t: float) -> float:
        if self._away == 0:
            return t
        for seat in list(self.seating.seats.values()):
            if seat.removal_at is not None and seat.removal_at <= t:
                self.seating.leave(t, seat, "sit_out_timeout_removal")
                t += 0.05
            elif seat.state != "seated" and seat.back_at <= t:
                action = "reconnect" if seat.state == "disconnected" else "sit_in"
                self.seating.change(t, seat, action, "seated")
                t += 0.05
        return t

    def _wants_to_leave(self, seat: Seat, now: float) -> bool:
        p = seat.player
        if self.reserved and len(self.seating.seats) == 1:
            return True
        if seat.stack < self.bb:
            if self.reserved or self.world.rng.random() < 0.5:
                seat.stack = self.buy_in
                return False
            return True
        if p.persona_name == "bumhunter":
            strong, fish = self._company(seat)
            # A bumhunter leaves as soon as a competent player is seated (before playing a hand if one
            # was already there: a seating attempt without play; at once if it is heads-up), and when
            # the weak players have gone and waiting sat out brought none back.
            if strong or (not fish and seat.waited):
                return True
            seat.waited = seat.watching = False
        return seat.hands >= seat.target_hands

    def _company(self, seat: Seat) -> tuple[int, int]:
        """Competent and weak players seated with this one (personas, as a bumhunter reads them)."""
        others = [s.player.persona_name for s in self.seating.seats.values() if s is not seat]
        return sum(o in STRONG for o in others), others.count("recreational")

    def _hunters_wait(self, t: float) -> float:
        """A bumhunter whose weak opponents have left sits out for a few minutes waiting for new ones."""
        for seat in list(self.seating.seats.values()):
            if seat.player.persona_name != "bumhunter" or seat.state != "seated" or seat.waited:
                continue
            strong, fish = self._company(seat)
            if not strong and not fish:
                seat.waited = True
                seat.back_at = t + self.world.rng.uniform(90.0, 240.0)
                self.seating.change(t, seat, "sit_out", "sitting_out")
                t += 0.05
        return t

    def _leaves(self, t: float) -> float:
        leaving = [s for s in self.seating.seats.values() if s.state == "seated" and self._wants_to_leave(s, t)]
        for seat in leaving:
                event = self.seating.leave(t, seat)
                if seat.player.persona_name in ("hit_and_runner", "bumhunter"):
                    # Table hoppers: straight back to the lobby for the next table.
                    seat.player.rest_until = t + self.world.rng.uniform(10.0, 90.0)
                if seat.player.persona_name == "bumhunter":
                    hunt = self.hunts.setdefault(seat.player.id, Hunt())
                    hunt.events += [seat.join_event, event.event_id]
                    hunt.times += [seat.joined_at, t]
                    hunt.tables.add(self.table_id)
                t += 0.05
        return t

    def _joins(self, t: float) -> float:
        rng = self.world.rng
        while self.pending and self.seating.free_seats():
            player = self.pending.pop(0)
            if len(player.tables) >= player.persona.max_tables or self.table_id in player.tables:
                continue
            seat = self.seating.join(t, player, self.buy_in if rng.random() < 0.7 else self.buy_in // 2)
            seat.target_hands = self._target_hands(player)
            if player.persona_name == "bumhunter":
                # A bumhunter waits for the big blind and looks at who is there before playing.
                seat.watching = self._company(seat)[0] > 0
                hunt = self.hunts.setdefault(player.id, Hunt())
                hunt.victims |= {s.player.id for s in self.seating.seats.values()
                                 if s.player.persona_name == "recreational"}
            t += 0.05
        self.pending.clear()
        return t

    def _target_hands(self, player: Player) -> int:
        rng = self.world.rng
        persona = player.persona
        if player.persona_name == "hit_and_runner":
            return rng.randint(1, 9)
        if rng.random() < persona.early_leave:
            return rng.randint(1, 9)
        return 10 + int(rng.expovariate(1.0 / max(1.0, persona.stint_hands - 10)))

    def _breaks(self, t: float) -> float:
        """Ordinary sit-outs and dropped connections, at each persona's rate per second of play."""
        rng = self.world.rng
        rand = rng.random
        per_hand = self._per_hand
        for seat in [s for s in self.seating.seats.values() if s.state == "seated"]:
            persona = seat.player.persona
            roll = rand() * persona.sit_out_interval_s
            if roll >= per_hand * (1.0 + persona.sit_out_interval_s / persona.disconnect_interval_s):
                continue
            if roll < per_hand:
                seat.back_at = t + rng.uniform(*persona.sit_out_s)
                self.seating.change(t, seat, "sit_out", "sitting_out")
            else:
                seat.back_at = t + rng.uniform(5.0, 120.0)
                if rng.random() < 0.08:
                    seat.removal_at = t + 300.0
                    seat.back_at = t + 10**6
                self.seating.change(t, seat, "disconnect", "disconnected")
            t += 0.05
        return t

    def _tactics(self, order: list[Seat]) -> tuple[Tactics, list[Plot]]:
        index = {s.player.id: i for i, s in enumerate(order)}
        friends: set[frozenset[int]] = set()
        dump: tuple[int, int] | None = None
        active: list[Plot] = []
        for plot in self.plots.values():
            present = [index[m] for m in plot.members if m in index]
            if len(present) < 2:
                continue
            active.append(plot)
            if plot.kind == "chip_dumping":
                dump = (present[0], present[1])
            else:
                friends.add(frozenset(present))
        return Tactics(friends=frozenset(friends), dump=dump), active

    def _hand(self, dealt: list[Seat], start: float, end: float) -> None:
        world = self.world
        if not world.config.hands:
            self._quick_hand(dealt, start, end)
            return
        numbers = [s.number for s in dealt]
        following = [n for n in sorted(numbers) if n > self.button]
        self.button = following[0] if following else min(numbers)
        order = [self.seating.seats[n] for n in order_from_button(numbers, self.button)]
        self.hand_no += 1
        hand_id = f"{self.table_id}-h{self.hand_no}"
        tactics, plots = self._tactics(order)
        deal = Deal(
            table_id=self.table_id, game="cash", blind_level=self.level_id,
            players=tuple(s.player for s in order), seats=tuple(s.number for s in order),
            stacks=tuple(s.stack for s in order), small_blind=self.sb, big_blind=self.bb,
            all_in_or_fold=self.fmt == "all_in_or_fold", tactics=tactics, rules=self.game,
        )
        outcome = play(world, deal, start=start, end=end, hand_id=hand_id)
        for seat, stack in zip(order, outcome.finishing, strict=True):
            seat.stack = stack
            seat.hands += 1
        if outcome.planted:
            for plot in plots:
                if plot.kind == "chip_dumping" and not _dumped(plot, deal, outcome.finishing):
                    continue
                plot.hands.append((end, hand_id, self.table_id))
        self.chatter.talk(HandWindow(
            table_id=self.table_id, tournament_id=None, hand_id=hand_id, start=start, end=end,
            gap_end=end + 2.0, seated=tuple(s.player for s in self.seating.seats.values()),
            in_hand=tuple(p.id for p in deal.players), holes=hole_texts(deal, outcome),
        ))

    def _quick_hand(self, dealt: list[Seat], start: float, end: float) -> None:
        """Without hands (`--no-hands`): only what a hand does to seats and chat; now and then
        someone goes broke, as in a real game, so stints still end by busting too."""
        rand = self.world.rng.random
        for seat in dealt:
            seat.hands += 1
            if rand() < 0.01:
                seat.stack = 0
        self.hand_no += 1
        in_hand = tuple(s.player.id for s in dealt)
        self.chatter.talk(HandWindow(
            table_id=self.table_id, tournament_id=None, hand_id=f"{self.table_id}-h{self.hand_no}", start=start,
            end=end, gap_end=end + 2.0, seated=tuple(s.player for s in self.seating.seats.values()),
            in_hand=in_hand, holes={},
        ))


def _dumped(plot: Plot, deal: Deal, finishing: tuple[int, ...]) -> bool:
    """The dumper lost chips in the hand and the receiver won some."""
    ids = [p.id for p in deal.players]
    dumper, receiver = (ids.index(m) for m in plot.members[:2])
    return finishing[dumper] < deal.stacks[dumper] and finishing[receiver] > deal.stacks[receiver]

