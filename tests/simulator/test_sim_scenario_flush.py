"""`run_scenario` ends the room like a replayed file ends: what detectors hold back is emitted."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.contracts import CHAT, ChatMessage, Event
from pipeline.findings import Finding
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from simulator.config import RoomConfig
from simulator.scenario import run_scenario


class HoldBack:
    """Emits nothing while events arrive; on `flush`, one finding about the last chat line."""

    name = "test.hold"
    topics = frozenset({CHAT})

    def __init__(self) -> None:
        self.last: ChatMessage | None = None

    def key(self, event: Event) -> str:
        return event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        if isinstance(event, ChatMessage):
            self.last = event
        return ()

    def flush(self) -> Sequence[Finding]:
        m = self.last
        if m is None:
            return ()
        return (
            Finding(
                finding_id=f"held-{m.event_id}",
                detector=self.name,
                rule="r",
                family="chat",
                category="harassment",
                score=0.9,
                players=(m.player_id,),
                ts=m.ts,
                summary="held back until the end of input",
                source_event_ids=(m.event_id,),
            ),
        )


def test_findings_held_until_the_end_of_the_room_are_scored() -> None:
    hold = HoldBack()
    result = run_scenario(
        pipeline=Pipeline({hold.name: hold}, rules=RulesConfig()),
        config=RoomConfig(seed=3, players=40, minutes=3, hands=False),
        registered=[hold.name],
        exempt_formats=frozenset(),
    )
    assert hold.last is not None, "the room produced chat"
    assert result["totals"]["findings"] == 1
    assert result["detectors"][hold.name]["findings"] == 1
