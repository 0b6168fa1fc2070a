"""hand.bounty_agreement: chat evidence of an agreement to hunt a player's bounty, fused with play
evidence from bounty hands (the pair checks it down or folds to each other while a third player is
all-in, against their own rate with other opponents; and each calls such all-ins more often while the
other is in than without him) and the bounties the pair collects.

Chat alone or play alone gives a lower-score finding; both give a high-score case. One state key
for all of it (`HANDS_KEY`: private chat before a tournament and pairs across tournaments must meet
in one place); state per tournament is bounded and expires `ttl` of event time after its last event.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from pipeline.contracts import CHAT, HAND, ChatMessage, Event, HandRecord
from pipeline.detectors.hand.agreed_soft_play import agreed_soft_play_finding, soft_pairs
from pipeline.detectors.hand.agreement_talk import agreement_match, is_deal_talk
from pipeline.detectors.hand.bounty_finding import (
    addressee_and_target,
    answered_clue,
    bounty_finding,
    linked_clues,
    play_statistic,
)
from pipeline.detectors.hand.bounty_state import (
    DEFAULT_THRESHOLDS,
    MAX_CLUES,
    MAX_EVIDENCE,
    MAX_NICKS,
    MAX_PAIR_TOURNAMENTS,
    BountyThresholds,
    Clue,
    EntryBook,
    PairSpots,
    TournamentLog,
    TournamentState,
    bump,
    check_down_p,
    narrow,
    overlap,
    play_verdict,
)
from pipeline.detectors.hand.stream import HANDS_KEY, Admitted, HandStream, state_key
from pipeline.findings import Finding
from pipeline.hands.stats import score_from_p
from pipeline.text_model import TextClassifier


class BountyAgreementDetector:
    """Fuses agreement talk with cooperative play in bounty hands, per tournament."""

    name = "hand.bounty_agreement"
    topics = frozenset({HAND, CHAT})

    def __init__(
        self,
        *,
        stream: HandStream,
        classifier: TextClassifier | None = None,
        thresholds: BountyThresholds = DEFAULT_THRESHOLDS,
        ttl: timedelta = timedelta(hours=24),
        max_tournaments: int = 5_000,
        reply_window: timedelta = timedelta(seconds=90),
    ) -> None:
        self.stream = stream
        self.classifier = classifier
        self.t = thresholds
        self.ttl = ttl
        self.max_tournaments = max_tournaments
        self.tournaments: OrderedDict[str, TournamentState] = OrderedDict()
        self.private: OrderedDict[str, list[Clue]] = OrderedDict()
        """Agreement talk in private chat with no tournament stamped, by sender and recipient."""
        self.history: OrderedDict[tuple[str, str], list[int]] = OrderedDict()
        """Pair -> [spots, cooperative, bet chances, bets] across the tournaments this process saw
        (bounded); players' tallies hold the same with anyone, `population` with everyone."""
        self.player_history: OrderedDict[str, list[int]] = OrderedDict()
        self.population = [0, 0, 0, 0]
        self.max_pairs = max_tournaments * 20
        self.entries = EntryBook(cap=self.max_pairs)
        """Who calls a third player's all-in while a given other one is in (see `_tested`)."""
        self.logs: OrderedDict[tuple[str, str], OrderedDict[str, TournamentLog]] = OrderedDict()
        """Pair -> its bounty tournaments from its first cooperative spot on (at most
        `MAX_PAIR_TOURNAMENTS` per pair, `max_logged_pairs` pairs, least recently active dropped
        first: ~1 kB per pair, so 20,000 pairs by default)."""
        self.max_logged_pairs = max_tournaments * 4
        self.company: OrderedDict[tuple[str, str], frozenset[str]] = OrderedDict()
        """Pair -> the other players dealt in at every one of its spots (bounded like `history`)."""
        self.established: OrderedDict[tuple[str, str], list[int]] = OrderedDict()
        """Pairs flagged from play (bounded like `logs`): no longer gated on their cooperative share."""
        self._last_clue: tuple[str, Clue | None] | None = None
        self.private_emitted: set[tuple[str, ...]] = set()
        """Pairs already reported for private agreement talk that named no tournament."""
        self.reply_window = reply_window
        """How soon after agreement talk an "ok, agreed" from another player makes them its party."""

    @property
    def state_window(self) -> timedelta:
        """How much event time one tournament's state spans."""
        return self.ttl

    def key(self, event: Event) -> str:
        """`HANDS_KEY` for hands and for the chat that can change the state: tournament chat
        (clues and nicknames) and agreement talk in private chat; any other chat line is stateless
        here (its event id: the runtime runs it in place and routes nothing)."""
        if isinstance(event, HandRecord):
            return state_key(event)
        if isinstance(event, ChatMessage) and (
            event.tournament_id or (event.channel == "private" and self._clue(event) is not None)
        ):
            return HANDS_KEY
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Chat lines add clues; bounty hands add spots; either may complete a finding."""
        if isinstance(event, ChatMessage):
            return self._chat(event)
        if isinstance(event, HandRecord) and event.tournament_id and event.bounties:
            verdict = self.stream.admit(event)
            if isinstance(verdict, Admitted):
                return self._hand(verdict)
        return ()

    def _state(self, tournament: str, ts: datetime) -> TournamentState:
        self._expire(ts)
        state = self.tournaments.get(tournament)
        if state is None:
            state = self.tournaments[tournament] = TournamentState(last_ts=ts)
            while len(self.tournaments) > self.max_tournaments:
                self.tournaments.popitem(last=False)
        else:
            self.tournaments.move_to_end(tournament)
            state.last_ts = max(state.last_ts, ts)
        return state

    def _expire(self, now: datetime) -> None:
        horizon = now - self.ttl
        while self.tournaments and next(iter(self.tournaments.values())).last_ts < horizon:
            self.tournaments.popitem(last=False)
        while self.private and next(iter(self.private.values()))[-1].message.ts < horizon:
            self.private.popitem(last=False)

    def _chat(self, msg: ChatMessage) -> Sequence[Finding]:
        if msg.tournament_id is None and msg.channel != "private":
            return ()  # cash-table and lobby chat: no tournament to tie it to, nobody addressed
        clue = self._clue(msg)
        if msg.tournament_id is None:
            if clue is None:
                return ()
            for who in (msg.player_id, msg.recipient_id or ""):
                kept = self.private.setdefault(who, [])
                kept.append(clue)
                del kept[:-MAX_CLUES]
                self.private.move_to_end(who)
            # Reported now (chat level); the tournament the pair plays next fuses it with play.
            return self._chat_only(None, self.private_emitted, clue)
        state = self._state(msg.tournament_id, msg.ts)
        if len(state.nicks) < MAX_NICKS:
            state.nicks.setdefault(msg.nickname.casefold(), msg.player_id)
        if clue is None:
            clue = answered_clue(state, msg, window=self.reply_window)
            if clue is None:
                return ()
        else:
            if clue.partner_nick is not None and clue.party is None:
                party = state.nicks.get(clue.partner_nick.casefold())
                clue = replace(clue, party=party if party != msg.player_id else None)
            state.clues.append(clue)
            del state.clues[:-MAX_CLUES]
        found = [self._finding_for(msg.tournament_id, state, pair, msg.ts) for pair in list(state.pairs)]
        findings = [f for f in found if f is not None]
        findings += [
            f
            for pair in list(state.soft)
            for f in self._agreed_soft_play(msg.tournament_id, state, pair, msg.ts)
        ]
        if findings:
            return findings
        return self._chat_only(msg.tournament_id, state.emitted, clue)

    def _clue(self, msg: ChatMessage) -> Clue | None:
        # key() and process() both ask about the same line (the classifier is the expensive part).
        if self._last_clue is not None and self._last_clue[0] == msg.event_id:
            return self._last_clue[1]
        clue = self._new_clue(msg)
        self._last_clue = (msg.event_id, clue)
        return clue

    def _new_clue(self, msg: ChatMessage) -> Clue | None:
        hit = agreement_match(msg.text)
        strength = 1.0 if hit else 0.0
        if hit is None and self.classifier is not None and not is_deal_talk(msg.text):
            strength = self.classifier.classify([msg.text])[0].scores.get("collusion_talk", 0.0)
        if strength < self.t.classifier_min:
            return None
        partner, target = addressee_and_target(msg.text)
        party = msg.recipient_id if msg.recipient_id != msg.player_id else None
        return Clue(msg, strength, (hit[1], hit[2]) if hit else None, target, partner, party)

    def _hand(self, verdict: Admitted) -> Sequence[Finding]:
        record = verdict.record
        assert record.tournament_id is not None  # checked by the caller
        features = verdict.features
        if features is None:
            return ()
        if record.replay is not None:
            self.entries.add(record.players, record.replay)  # a shove folded to counts too
        soft = soft_pairs(features)
        if not features.spots and not soft:
            return ()
        state = self._state(record.tournament_id, record.ts)
        out: list[Finding] = []
        for x, y in soft:
            lo, hi = sorted((record.players[x], record.players[y]))
            hands = state.soft.setdefault((lo, hi), [])
            if len(hands) < MAX_EVIDENCE:
                hands.append(record)
            out.extend(self._agreed_soft_play(record.tournament_id, state, (lo, hi), record.ts))
        named = [
            (tuple(sorted((record.players[s.pair[0]], record.players[s.pair[1]]))), s) for s in features.spots
        ]
        # Every spot of the hand is tallied before any pair is judged: the verdict on one pair may
        # weigh another pair of the same hand (`_explained`), whatever order the spots come in.
        for (a, b), spot in named:
            pair = state.pairs.setdefault((a, b), PairSpots())
            pair.spots += 1
            pair.cooperative += spot.cooperative
            pair.bounty += spot.bounty_to_pair
            if spot.cooperative and len(pair.hands) < MAX_EVIDENCE:
                pair.hands.append(record)
            counts = (1, int(spot.cooperative), spot.chances, spot.bets)
            for p in (a, b):
                tally = state.players.setdefault(p, [0, 0])
                tally[0] += 1
                tally[1] += spot.cooperative
                bump(self.player_history, p, counts, self.max_pairs)
            bump(self.history, (a, b), (*counts, *overlap((a, b), named)), self.max_pairs)
            self.population = [x + y for x, y in zip(self.population, counts, strict=True)]
            self._log((a, b), record, spot.cooperative, spot.bounty_to_pair)
            narrow(self.company, (a, b), record.players, self.max_pairs)
        for (a, b), _ in named:
            finding = self._finding_for(record.tournament_id, state, (a, b), record.ts)
            if finding is not None:
                out.append(finding)
        return out

    def _log(self, pair: tuple[str, str], record: HandRecord, cooperative: bool, bounty: int) -> None:
        """Remember the pair's spot under its tournament; only pairs that cooperated at least once
        get a log (the rest could never be reported), and it stays bounded."""
        logs = self.logs.get(pair)
        if logs is None:
            if not cooperative:
                return
            logs = self.logs[pair] = OrderedDict()
            while len(self.logs) > self.max_logged_pairs:
                self.logs.popitem(last=False)
        else:
            self.logs.move_to_end(pair)
        tournament = record.tournament_id or ""
        entry = logs.get(tournament)
        if entry is None:
            entry = logs[tournament] = TournamentLog(tournament)
            while len(logs) > MAX_PAIR_TOURNAMENTS:
                logs.popitem(last=False)
        entry.add(record, cooperative, bounty)

    def _agreed_soft_play(
        self, tournament: str, state: TournamentState, pair: tuple[str, str], ts: datetime
    ) -> list[Finding]:
        """Soft play under an agreement: agreement talk linking the pair, then heads-up pots between
        them in which neither bet. Alone, a checked-down pot is ordinary; after the talk it is the
        agreement carried out (the pair statistics need ~200 hands together for the same call)."""
        hands = state.soft.get(pair)
        if not hands or ("soft", *pair) in state.emitted:
            return []
        # Only talk between the two of them (private, or a table line one addressed to the other
        # or the other agreed to): a table line links its sender with anyone who plays along with
        # him, which is enough to join a bounty hunt but too loose for soft play.
        clues = [
            c
            for c in self._linked_clues(state, pair)
            if {c.message.player_id, c.message.recipient_id, c.party} >= set(pair)
        ]
        if not clues:
            return []
        state.emitted.add(("soft", *pair))
        return [
            agreed_soft_play_finding(
                tournament,
                pair,
                [(c.message, c.span) for c in clues],
                hands,
                ts,
                detector=self.name,
            )
        ]

    def _linked_clues(self, state: TournamentState, pair: tuple[str, str]) -> list[Clue]:
        return linked_clues(state, self.private, pair)

    def _play(self, pair: tuple[str, str]) -> tuple[int, int, float]:
        """(spots, cooperative, check-down p) of the pair across tournaments (`check_down_p`)."""
        return check_down_p(self.t, pair, self.history, self.player_history, self.population)

    def _tested(self, pair: tuple[str, str], p_check: float, n: int, k: int) -> tuple[bool, float]:
        """`play_verdict` with the all-in-call test (`EntryBook`) of the pair."""
        p_calls = self.entries.p_value(pair, self.t)[3]
        established = pair in self.established
        flagged, p = play_verdict(self.t, (n, k, established), p_check, p_calls)
        # Spots of one tournament are not independent (one table, the same stacks and opponents):
        # an agreement is first claimed only once the pair cooperated in more than one tournament.
        tournaments = sum(1 for e in self.logs.get(pair, {}).values() if e.cooperative)
        return flagged and (established or tournaments >= self.t.min_tournaments), p

    def _explained(self, pair: tuple[str, str], p: float) -> bool:
        """Whether the pair's play is better explained by another pair: a third player dealt in at
        every one of its spots who forms a flagged pair, or one with a lower play p, with one of
        the two. A colluder plays passively whenever his partner is dealt in, so an honest player
        who often shares those hands with him looks like his partner (seen: seed 16, flagged 38 s
        before the real pair). Held back, not dropped: the pair is judged again at its next spot,
        and a spot without that third player clears him from the pair's company."""
        for other in sorted(self.company.get(pair, ())):
            for member in pair:
                rival = (member, other) if member < other else (other, member)
                if rival in self.established:
                    return True
                if rival not in self.history:
                    continue
                n, k, p_check = self._play(rival)
                if self._tested(rival, p_check, n, k)[1] < p:
                    return True
        return False

    def _finding_for(
        self, tournament: str, state: TournamentState, pair: tuple[str, str], ts: datetime
    ) -> Finding | None:
        spots = state.pairs.get(pair)
        if spots is None or spots.cooperative == 0:
            return None
        clues = self._linked_clues(state, pair)
        n, k, p_check = self._play(pair)
        # The >= 80 % cooperative gate guards the first flag only: a flagged pair that plays some
        # all-ins straight stays in its own series while the p-value holds.
        play, p = self._tested(pair, p_check, n, k)
        if play and pair not in self.established and self._explained(pair, p):
            play = False
        if play:
            bump(self.established, pair, (1,), self.max_logged_pairs)
        if clues and spots.cooperative >= self.t.fused_min_coop:
            level, score = (
                "fused",
                min(0.99, 0.9 + 0.05 * min(1.0, spots.cooperative / 4) + 0.04 * (spots.bounty > 0)),
            )
        elif play:
            level, score = "play", score_from_p(p * 10, floor=0.55, ceiling=0.7)
        else:
            return None
        if (level, *pair) in state.emitted or ("fused", *pair) in state.emitted:
            return None
        state.emitted.add((level, *pair))
        # Once play alone establishes the pattern, the case covers every bounty tournament in which
        # the pair cooperated, the earlier ones included: an analyst sees the whole series.
        logs = [e for e in self.logs.get(pair, {}).values() if e.cooperative] if play else []
        statistic = play_statistic(
            spots,
            (n, k, p),
            p_check_down=p_check,
            bet_chances_and_bets=self.history.get(pair, [0] * 8)[2:4],
            entries=self.entries.p_value(pair, self.t),
        )
        return bounty_finding(
            self.name,
            tournament,
            pair,
            level,
            score,
            spots=spots,
            clues=clues,
            ts=ts,
            statistic=statistic,
            logs=logs,
        )

    def _chat_only(
        self, tournament: str | None, emitted: set[tuple[str, ...]], clue: Clue
    ) -> Sequence[Finding]:
        m = clue.message
        players = tuple(dict.fromkeys(p for p in (m.player_id, m.recipient_id, clue.party) if p))
        # Once per pair and agreement: the same line repeated (or the same @target named again) is
        # one agreement; a new target (the next tournament's, often named without an @) is a new one.
        target = clue.target_nick.casefold() if clue.target_nick else " ".join(m.text.casefold().split())
        if ("chat", *players, target) in emitted:
            return ()
        emitted.add(("chat", *players, target))
        if tournament is None and len(emitted) > self.max_pairs:
            emitted.clear()  # bounded; at worst a pair's private talk is reported once more
        score = round(0.35 + 0.1 * clue.strength, 4)
        return (
            bounty_finding(
                self.name,
                tournament,
                players,
                "chat",
                score,
                spots=None,
                clues=[clue],
                ts=m.ts,
                statistic={},
                id_extra=(target,),
            ),
        )
