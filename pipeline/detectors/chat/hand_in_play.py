"""`chat.hand_in_play`: cards, reads or advice typed while a hand is running at the table.

House rules section 2: influencing a hand in progress, intentionally or not, is prohibited; the
sanction is a suspension of chat, emoji and SnapCam. Only messages sent while `hand_id` is set are
considered: talk about a finished hand (hand_id None) is allowed. Severity rises when the speaker
is not in the hand (a railbird feeding information) and for private messages to a player in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.detectors.chat.evidence import make_finding, message_evidence
from pipeline.detectors.chat.poker_talk import HandTalkModel, compile_hand_talk
from pipeline.findings import Finding, Span
from pipeline.text_model import TextClassifier, automatic_evidence


@dataclass(frozen=True, slots=True)
class HandInPlayDetector:
    """Scores poker talk in messages sent during a hand; flags at `min_score`."""

    model: HandTalkModel = field(default_factory=compile_hand_talk)
    min_score: float = 0.45
    outsider_boost: float = 0.15
    private_boost: float = 0.2
    classifier: TextClassifier | None = None
    """With a classifier that states operating points, a line is hand talk only when the model's
    hand-in-play head (which reads these patterns' kind of evidence too) also flags it: alone the
    phrase lists flagged a third of the clean independent lines typed during a hand (dev set)."""
    name: str = "chat.hand_in_play"
    topics: frozenset[str] = frozenset({CHAT})

    def key(self, event: Event) -> str:
        """Stateless: keyed by the event itself."""
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """One finding for a message that talks cards, reads or advice while a hand is running."""
        if not isinstance(event, ChatMessage) or event.hand_id is None or event.channel == "lobby":
            return ()
        talk = self.model.score(event.text)
        if talk.score < self.min_score:
            return ()
        verdict = self.classifier.classify([event.text])[0] if self.classifier is not None else None
        if verdict is not None and verdict.automatic is not None and "hand_in_play" not in verdict.flagged:
            return ()
        in_hand = set(event.players_in_hand or ())
        outsider = bool(in_hand) and event.player_id not in in_hand
        to_player = event.channel == "private" and event.recipient_id in in_hand
        score = talk.score + (self.outsider_boost if outsider else 0.0) + (self.private_boost if to_player else 0.0)
        who = "a player not in the hand" if outsider else "a player"
        whom = f" privately to {event.recipient_id} (in the hand)" if to_player else ""
        players = (event.player_id, event.recipient_id) if to_player and event.recipient_id else (event.player_id,)
        return (
            make_finding(
                detector=self.name,
                category="hand_in_play",
                score=min(1.0, 0.35 + 0.6 * score),
                players=players,
                ts=event.ts,
                summary=f"hand {event.hand_id} in play: {who} wrote {_labels(talk.spans)}{whom}",
                id_parts=(event.event_id,),
                source_event_ids=(event.event_id,),
                spans=talk.spans,
                evidence={
                    "messages": [message_evidence(event, talk.spans)],
                    "hand_ids": [event.hand_id],
                    "in_hand": not outsider and event.player_id in in_hand,
                    "outsider": outsider,
                    "private_to_player_in_hand": to_player,
                    **automatic_evidence(verdict, "hand_in_play"),
                },
                table_id=event.table_id,
                tournament_id=event.tournament_id,
            ),
        )


def _labels(spans: Sequence[Span]) -> str:
    labels = sorted({s.label for s in spans})
    return "/".join(labels) or "poker talk"
