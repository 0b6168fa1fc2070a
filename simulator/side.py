"""Traffic away from the felt: lobby and private chat, spammers, and SnapCam reports."""

from __future__ import annotations

from pipeline.contracts import SNAPCAM, SnapCamReport
from simulator.abuse import FALSE_REPORT, HONEST_REPORT, SNAPCAM_ABUSE, SNAPCAM_TRANSCRIPTS, VIOLATIONS
from simulator.chatter import bank_line, next_category, plant_violation
from simulator.phrases import LOBBY, PRIVATE
from simulator.population import Group, Player
from simulator.truth import TruthRow
from simulator.world import World


class LobbyChat:
    """Ordinary lobby and private messages, and spammers' advertising and malicious links."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.players = list(world.population.players.values())
        self.spammers = world.population.by_persona("spammer")
        self.abusers = world.population.by_persona("chat_abuser")
        self.offensive = [p for p in self.players if p.offensive_nickname]
        lo, hi = world.config.rates.first_plant_s
        self.nick_due = {p.id: world.rng.uniform(lo, hi) for p in self.offensive}

    def step(self, now: float) -> float | None:
        """A few ordinary messages per tick, and any spam that is due."""
        w = self.world
        rng = w.rng
        for _ in range(max(1, len(self.players) // 150)):
            p = self.players[rng.randrange(len(self.players))]
            if rng.random() < 0.5:
                w.chat(now + rng.uniform(0, 5), p, bank_line(LOBBY, p.language, w), channel="lobby")
            else:
                other = self.players[rng.randrange(len(self.players))]
                if other is not p:
                    w.chat(now + rng.uniform(0, 5), p, bank_line(PRIVATE, p.language, w),
                           channel="private", recipient=other.id)
        for p in self.spammers:
            if now >= p.next_plant:
                self._spam(now, p)
        for p in self.abusers:
            # Away from the tables, or stuck at one where no hand runs: offend in the lobby.
            if now >= p.next_plant + (20.0 if p.tables else 0.0):
                self._lobby_abuse(now, p)
        for p in self.offensive:
            if now >= self.nick_due[p.id]:
                w.chat(now + rng.uniform(0, 5), p, bank_line(LOBBY, p.language, w), channel="lobby")
                self.nick_due[p.id] = now + rng.expovariate(1.0 / 1800.0)
        return now + 10.0

    def _lobby_abuse(self, now: float, p: Player) -> None:
        """An abuser away from the tables offends in the lobby instead."""
        rng = self.world.rng
        cats = [c for c in p.chat_categories if c != "hand_in_play"]
        victim = self.players[rng.randrange(len(self.players))]
        if cats and victim is not p:
            plant_violation(self.world, p, victim, now + rng.uniform(0, 5), next_category(p, cats),
                            channel="lobby")
        p.next_plant = now + rng.expovariate(1.0 / self.world.config.rates.plant_interval_s)

    def _spam(self, now: float, p: Player) -> None:
        w = self.world
        rng = w.rng
        category = p.chat_categories[rng.randrange(len(p.chat_categories))]
        text = bank_line(VIOLATIONS[category], p.language, w)
        t = now + rng.uniform(0, 5)
        if rng.random() < 0.5:
            message = w.chat(t, p, text, channel="lobby")
        else:
            other = self.players[rng.randrange(len(self.players))]
            if other is p:
                return
            message = w.chat(t, p, text, channel="private", recipient=other.id)
        w.plant(TruthRow(
            category=category, players=(p.id,), start=message.ts, end=message.ts,
            event_ids=(message.event_id,), detail={"language": p.language, "channel": message.channel, "text": text},
        ))
        p.next_plant = now + rng.expovariate(1.0 / w.config.rates.spam_interval_s)


class SnapCam:
    """Reports: several independent players report a harasser; linked accounts gang-report an
    innocent player (false reporting); and now and then an honest, isolated report."""

    def __init__(self, world: World, rings: list[Group]) -> None:
        self.world = world
        self.harassers = world.population.by_persona("snapcam_harasser")
        self.rings = rings
        self.seated = [p for p in world.population.players.values() if p.persona_name in ("recreational", "regular")]
        lo, hi = world.config.rates.first_plant_s
        self.next_harass = {p.id: world.rng.uniform(lo, hi) for p in self.harassers}
        self.next_ring = {g.index: world.rng.uniform(lo, hi) for g in rings}

    def _report(self, t: float, reporter: Player, reported: Player, reason: str, comment: str,
                table_id: str | None, transcript: str | None = None) -> SnapCamReport:
        w = self.world
        report_id = w.next_id("rep")
        report = SnapCamReport(
            event_id=w.next_id("snap"), ts=w.ts(t), report_id=report_id, reporter_id=reporter.id,
            reported_id=reported.id, reason=reason,  # type: ignore[arg-type]
            comment=comment, clip_ref=f"clips/{report_id}.mp4", table_id=table_id, transcript=transcript,
        )
        w.emit(t, SNAPCAM, report)
        return report

    def step(self, now: float) -> float | None:
        """Due harassment, due ring reports, and rare honest reports."""
        w = self.world
        rng = w.rng
        interval = w.config.rates.report_interval_s
        for p in self.harassers:
            if now >= self.next_harass[p.id]:
                self._harassed(now, p)
                self.next_harass[p.id] = now + rng.expovariate(1.0 / interval)
        for ring in self.rings:
            if now >= self.next_ring[ring.index]:
                self._false_reports(now, ring)
                self.next_ring[ring.index] = now + rng.expovariate(1.0 / interval) + interval
        # An honest player files about one report per 20 hours of play, mostly about nothing much.
        if rng.random() < len(self.seated) / (20 * 3600.0) * 30.0:
            reporter, reported = rng.sample(self.seated, 2)
            self._report(now, reporter, reported, "other", HONEST_REPORT[rng.randrange(len(HONEST_REPORT))], None)
        return now + 30.0

    def _harassed(self, now: float, p: Player) -> None:
        w = self.world
        rng = w.rng
        witnesses = rng.sample(self.seated, rng.randint(2, 4))
        table_id = next(iter(sorted(p.tables)), None)
        reports = []
        for k, reporter in enumerate(witnesses):
            lang = reporter.language
            comment = bank_line(SNAPCAM_ABUSE, lang, w)
            transcript = SNAPCAM_TRANSCRIPTS[rng.randrange(len(SNAPCAM_TRANSCRIPTS))]
            reason = "harassment" if k % 2 else "offensive"
            reports.append(self._report(now + k * rng.uniform(10, 60), reporter, p, reason, comment, table_id, transcript))
        w.plant(TruthRow(
            # Each witness's delay is drawn on its own, so the reports need not arrive in order.
            category="snapcam_abuse", players=(p.id,), start=min(r.ts for r in reports),
            end=max(r.ts for r in reports),
            event_ids=tuple(r.event_id for r in reports), table_id=table_id,
            detail={"reporters": [r.reporter_id for r in reports]},
        ))

    def _false_reports(self, now: float, ring: Group) -> None:
        w = self.world
        rng = w.rng
        players = w.population.players
        victim = self.seated[rng.randrange(len(self.seated))]
        comment = FALSE_REPORT[rng.randrange(len(FALSE_REPORT))]
        reports = [
            self._report(now + k * rng.uniform(5, 40), players[m], victim, "offensive", comment, None)
            for k, m in enumerate(ring.members)
        ]
        w.plant(TruthRow(
            category="false_reporting", players=ring.members, start=min(r.ts for r in reports),
            end=max(r.ts for r in reports),
            event_ids=tuple(r.event_id for r in reports), detail={"victim": victim.id},
        ))
