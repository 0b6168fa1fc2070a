"""`chat.collusion_parties`: who else is party to collusion talk at a place.

Collusion takes two. `chat.classifier` reports a line of collusion talk about its sender, keyed by
player, so it cannot see who the line was for. This detector, keyed by place (table, tournament,
private pair) and judging messages in event-time order like `chat.harassment`, names the partner:

- the **addressee** of the line: a player the line `@mentions` whose nickname has been seen at
  the place (an @mention of a nickname not seen yet is kept in the evidence, and links the pair
  as soon as that nickname answers). A private line's recipient needs no state: `chat.classifier`
  names it in its own finding;
- the **one who agrees**: an agreement reply ("ok, agreed", "deal", "siap bang", "đồng ý",
  "rendben", "згоден", "договорились") from another player at the same place within
  `reply_window` of the proposal. When the proposal named a partner, only that partner's reply
  counts; a proposal to the whole table takes the first player who agrees.

Findings (category `collusion_talk`, rule chat.7): one for a proposal that @names its partner
(`players` = sender, partner), one for each agreement reply (`players` = the one who agreed, the
proposer; the reply is a statement of its own: agreeing to collude is collusion talk). A proposal
naming nobody is left to `chat.classifier` until someone agrees.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from pipeline.contracts import CHAT, ChatMessage
from pipeline.detectors.chat.agreement_reply import is_agreement_reply
from pipeline.detectors.chat.evidence import make_finding, message_evidence, place_of
from pipeline.detectors.chat.fusion import fuse
from pipeline.detectors.chat.lexicon import Lexicon, compile_lexicon
from pipeline.detectors.chat.order import DEFAULT_LATENESS, PlaceOrdered, SharedOrder
from pipeline.detectors.chat.state import BoundedMap, Window
from pipeline.detectors.chat.text import fold
from pipeline.detectors.hand.agreement_talk import agreement_match, is_deal_talk
from pipeline.findings import Finding, Span
from pipeline.text_model import TextClassifier

COLLUSION = "collusion_talk"
_MENTION = re.compile(r"@([\w.\-]+)")


def mentions(text: str) -> list[str]:
    """Folded nicknames a line @mentions, in order."""
    return [fold(m).strip(".-") for m in _MENTION.findall(text)] if "@" in text else []


@dataclass(frozen=True, slots=True)
class _Proposal:
    message: ChatMessage
    spans: tuple[Span, ...]
    score: float
    partners: tuple[str, ...]
    """Player ids the line was addressed to."""
    unresolved: tuple[str, ...]
    """@mentioned nicknames not seen at the place when the line was said."""


@dataclass(slots=True)
class _Place:
    nicknames: BoundedMap[str, str]
    proposals: Window[_Proposal]
    pending: Window[ChatMessage]
    """Recent lines addressed to nobody, judged only when someone answers "ok"."""
    answered: BoundedMap[str, bool]


@dataclass(slots=True)
class CollusionPartiesDetector(PlaceOrdered):
    """Per place: collusion talk addressed to a partner, and agreement replies to it."""

    classifier: TextClassifier | None = None
    lexicon: Lexicon = field(default_factory=compile_lexicon)
    reply_window: timedelta = timedelta(seconds=90)
    max_keys: int = 50_000
    lateness: timedelta = DEFAULT_LATENESS
    hold: timedelta | None = None
    """How far a lagging input partition may hold the others back (None: `order.HOLD_FACTOR` x lateness)."""
    name: str = "chat.collusion_parties"
    topics: frozenset[str] = frozenset({CHAT})
    _state: BoundedMap[str, _Place] = field(init=False)
    shared: SharedOrder | None = None
    """The event-time order of the detector set, shared with the other place-keyed detectors
    (None: one of its own, from `lateness` and `hold`)."""
    _order: SharedOrder = field(init=False)
    _seat: int = field(init=False)

    def __post_init__(self) -> None:
        self._state = BoundedMap(max_keys=self.max_keys)
        self._order, self._seat = self._take_seat(self.shared, self.lateness, self.hold)

    def _judge(self, message: ChatMessage) -> Sequence[Finding]:
        place = self._state.get_or_create(place_of(message), self._new_place)
        place.nicknames.put(fold(message.nickname), message.player_id)
        # Neither window is expired here: `add` expires, an answer expires `pending` before
        # reading it, and `_reply` skips proposals older than the window (two passes a line saved).
        reply = is_agreement_reply(message.text)
        if not reply and mentions(message.text):
            talk = self._collusion(message)
            return self._proposal(message, place, *talk) if talk is not None else ()
        if not reply:
            # Addressed to nobody, or privately (`chat.classifier` names a private line's
            # recipient itself): only an answer can make it matter here, and answers are rare,
            # so the line waits unjudged. The stream runs this detector apart from
            # `chat.classifier`, whose verdict cache it then seldom shares: judging every line
            # would cost a second model call per message.
            place.pending.add(message.ts, message)
            return ()
        place.pending.expire(message.ts)
        for waiting in place.pending.values():
            talk = self._collusion(waiting)
            if talk is not None:
                self._proposal(waiting, place, *talk)  # its own finding is chat.classifier's
        place.pending = self._new_pending()
        return self._reply(message, place)

    def _new_place(self) -> _Place:
        return _Place(
            BoundedMap(max_keys=256),
            Window(span=self.reply_window, max_items=64),
            self._new_pending(),
            BoundedMap(max_keys=256),
        )

    def _new_pending(self) -> Window[ChatMessage]:
        return Window(span=self.reply_window, max_items=32)

    def _collusion(self, message: ChatMessage) -> tuple[tuple[Span, ...], float] | None:
        """Spans and score when the line is collusion talk: the category the chat detectors give
        it (`fusion.fuse`, the model's rule patterns included), so this detector and
        `chat.classifier` never disagree on a line; without a classifier, an explicit agreement
        phrase (`agreement_talk`, which the bounty detector also reads). Not both: the phrase
        list costs ~30 us a line and the model's collusion patterns already cover its shapes."""
        if self.classifier is not None:
            verdict = self.classifier.classify([message.text])[0]
            if COLLUSION not in verdict.flagged:
                return None  # `fuse` names only a flagged category or a word list's (never this one)
            words = self.lexicon.find(message.text)
            fused = fuse(verdict, words, hand_running=message.hand_id is not None, text=message.text)
            if fused is None or fused.category != COLLUSION:
                return None
            return tuple(s for s in fused.spans if s.end <= len(message.text)), fused.score
        hit = agreement_match(message.text)
        if hit is None or is_deal_talk(message.text):
            return None
        return (Span(start=hit[1], end=hit[2], label=COLLUSION),), 0.8

    def _proposal(
        self, message: ChatMessage, place: _Place, spans: tuple[Span, ...], score: float
    ) -> Sequence[Finding]:
        partners: list[str] = []
        unresolved: list[str] = []
        if message.recipient_id is not None and message.recipient_id != message.player_id:
            partners.append(message.recipient_id)
        for nick in mentions(message.text):
            player = place.nicknames.get(nick)
            if player is None:
                unresolved.append(nick)
            elif player != message.player_id:
                partners.append(player)
        proposal = _Proposal(message, spans, score, tuple(dict.fromkeys(partners)), tuple(unresolved))
        place.proposals.add(message.ts, proposal)
        if not proposal.partners:
            return ()
        return (self._finding(message, proposal.partners, [proposal], score, "addressed to"),)

    def _reply(self, message: ChatMessage, place: _Place) -> Sequence[Finding]:
        nick = fold(message.nickname)
        for proposal in reversed(place.proposals.values()):
            asked = proposal.message
            if asked.player_id == message.player_id or message.ts - asked.ts > self.reply_window:
                continue
            named = bool(proposal.partners or proposal.unresolved)
            if named and message.player_id not in proposal.partners and nick not in proposal.unresolved:
                continue
            answer_key = f"{asked.event_id}>{message.player_id}"
            if place.answered.get(answer_key):
                return ()
            place.answered.put(answer_key, True)
            found = [
                self._finding(message, (asked.player_id,), [proposal], proposal.score * 0.9, "agreed with")
            ]
            if nick in proposal.unresolved:
                # The @mentioned partner has now shown who they are: the proposal names them too.
                found.append(
                    self._finding(asked, (message.player_id,), [proposal], proposal.score, "addressed to")
                )
            return found
        return ()

    def _finding(
        self, message: ChatMessage, others: Sequence[str], proposals: list[_Proposal], score: float, how: str
    ) -> Finding:
        proposal = proposals[0]
        lines = (
            [proposal.message]
            if proposal.message.event_id == message.event_id
            else [proposal.message, message]
        )
        return make_finding(
            detector=self.name,
            category=COLLUSION,
            score=min(0.99, score),
            players=(message.player_id, *others),
            ts=message.ts,
            summary=f"collusion talk {how} {', '.join(others)} in {message.channel} chat",
            id_parts=(place_of(message), message.event_id, *others),
            source_event_ids=[m.event_id for m in lines],
            spans=proposal.spans if message.event_id == proposal.message.event_id else (),
            evidence={
                "messages": [
                    message_evidence(m, proposal.spans if m.event_id == proposal.message.event_id else ())
                    for m in lines
                ],
                "parties": {"speaker": message.player_id, how.replace(" ", "_"): list(others)},
                "unresolved_mentions": list(proposal.unresolved),
            },
            window=(lines[0].ts, message.ts),
            table_id=message.table_id,
            tournament_id=message.tournament_id,
        )
