"""State shared by the hand detectors of one partition: duplicate guard and per-hand features.

The registry builds one `HandStream` and passes it to every hand detector, so a hand is checked and
its pairwise features are computed once, whichever detector sees it first (the runner hands the same
event object to each detector in turn). State is keyed by event time and bounded: hand ids are
remembered for `id_ttl` (and at most `max_ids`).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta

from pipeline.contracts import HandRecord
from pipeline.detectors.hand.pairs import PairBook
from pipeline.detectors.hand.soft_spots import soft_spots
from pipeline.hands.bounty import bounty_awards
from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.features import HandFeatures, hand_features


@dataclass(frozen=True, slots=True)
class Admitted:
    """A hand accepted for analysis, with its features (None when the variant is not analysed)."""

    record: HandRecord
    features: HandFeatures | None
    bounty_won: dict[int, int]
    touched: tuple[tuple[str, str], ...] = ()
    """Directed pairs (hero, villain) whose statistics this hand changed."""


class HandStream:
    """Duplicate hand ids are rejected with a reason; fresh hands get their features computed once."""

    def __init__(
        self, *, pairs: PairBook, id_ttl: timedelta = timedelta(hours=6), max_ids: int = 200_000
    ) -> None:
        self.pairs = pairs
        self.id_ttl = id_ttl
        self.max_ids = max_ids
        self._seen: OrderedDict[str, tuple[datetime, str]] = OrderedDict()
        self._current: HandRecord | None = None
        self._verdict: Admitted | HandIntegrityError | None = None

    def admit(self, record: HandRecord) -> Admitted | HandIntegrityError:
        """The verdict on this record: the same object gets the same verdict for every detector."""
        current = self._current
        if current is not None and self._verdict is not None and (
            record is current or (record.event_id == current.event_id and record.hand_id == current.hand_id)
        ):
            return self._verdict  # the same event, handed to the next detector (maybe decoded again)
        self._current = record
        self._verdict = self._judge(record)
        return self._verdict

    def _judge(self, record: HandRecord) -> Admitted | HandIntegrityError:
        self._expire(record.ts)
        first = self._seen.get(record.hand_id)
        if first is not None:
            same = "the same event again" if first[1] == record.event_id else f"event {first[1]}"
            return HandIntegrityError("duplicate_hand_id", f"hand {record.hand_id} already seen ({same})")
        self._seen[record.hand_id] = (record.ts, record.event_id)
        if len(self._seen) > self.max_ids:
            self._seen.popitem(last=False)
        replay = record.replay
        if replay is None:
            return Admitted(record, None, {})
        if record.bounties_won:
            # What the history says was paid beats what we would derive (split and progressive KOs).
            index = {p: i for i, p in enumerate(record.players)}
            won = {index[p]: v for p, v in record.bounties_won.items() if v > 0}
        else:
            won = bounty_awards(
                players=record.players, bounties=record.bounties, eliminated=record.eliminated, replay=replay
            )
        features = hand_features(replay, seed=record.hand_id, starting_stacks=record.starting_stacks, bounty_won=won)
        self.pairs.expire(record.ts)
        spots = soft_spots(replay)
        for player, counts in spots.multiway.items():
            self.pairs.add_multiway(record.players[player], counts, record.ts)
        touched = []
        for (hero, villain), obs in features.pairs.items():
            key = (record.players[hero], record.players[villain])
            self.pairs.add(key[0], key[1], obs, record, spots.pairs.get((hero, villain)))
            touched.append(key)
        return Admitted(record, features, won, tuple(touched))

    def _expire(self, now: datetime) -> None:
        horizon = now - self.id_ttl
        while self._seen:
            _, (ts, _) = next(iter(self._seen.items()))
            if ts >= horizon:
                break
            self._seen.popitem(last=False)

    @property
    def remembered_ids(self) -> int:
        """How many hand ids the duplicate guard holds (for memory checks)."""
        return len(self._seen)


HANDS_KEY = "hands"
"""The one state key of every hand detector (and of the chat the bounty detector needs).

Pair statistics compare a pair with each player's play against everyone else and with the whole
population, and a bounty agreement joins private chat sent before a tournament with that
tournament's hands and the pair's other tournaments: no per-table, per-tournament or per-player key
keeps all of that in one place, so any such key makes the result depend on the partition count.
One key does not: the streaming result equals `railbird replay` with any number of partitions. The
cost is that hand analysis runs in one process: ~5-11k hands per CPU second
(bench/results/hand_detectors.json), far above the hand rate of a room (~1 hand/s per 300 seated
players); chat and seat detectors still spread over every partition."""


def state_key(record: HandRecord) -> str:
    """The partition key every hand detector uses for a hand: `HANDS_KEY` (see there why)."""
    del record
    return HANDS_KEY
