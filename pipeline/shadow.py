"""Shadow copies: detectors that run on the same events as the live ones and act on nothing.

A shadow copy is the same detector class built with a candidate configuration (rules version,
chat thresholds: `api/policy/shadow.py` says what an admin may set), wrapped in `ShadowDetector`:
- its name is `shadow:<name>`, so it sits beside the live copy in one detector set, is routed by
  the streaming runtime like any detector (same state key, hence the same partition as the live
  copy) and shows up in logs and metrics as itself;
- its findings keep the live name and id (both derive from the detector name and the events) and
  are marked `shadow`, which the review API stores apart (api/shadow): no case, no proposal, no
  sanction, no enforcement event;
- its actions are proposed under the candidate rules (`RulesDetector`), to show what it would do;
- its durable state goes to the changelog under `shadow:<store>`, never over the live store.

The chat taps and `chat.repeat_offender` share one offence ledger. A shadow copy's ledger is an
`OverlayLedger`: the live ledger's offences without those of the detectors in shadow, plus its own.
Its prior-offence counts (and so the first-offence auto-mute) are then those of the room where the
candidates replace the live detectors; with the live configuration they equal the live ones.

`chat.classifier` in shadow: its copy and the live one share their last message's findings
(`SharedClassifierFindings`). The candidate thresholds change the verdict of few messages; where
the verdict is the same, the second of the two to see the message takes the first one's findings
(before the tap adds the prior offences of its own ledger) instead of fusing and building them again.

A share below 1 (`share`): the shadow copies see only the events of a stable, hash-chosen part of
the players, so their CPU cost scales with the share (a candidate model costs about half the chat
path on new text; at a share of 0.2 about a tenth). The unit is the player an event is by (speaker,
seated player, reporter; an event with none, such as a hand, by the detector's key), chosen by
`crc32(player) / 2**32 < share`: the same in every process, partition and restart, so a sampled
player stays sampled and all of that player's messages are seen. For the detectors whose state is
one player's (`PER_PLAYER`), a sampled player's shadow findings are then exactly those of a
full-share run; detectors that combine several players' events (a table's agreement, coordinated
reports) would miss what unsampled partners say, so the policy allows a share below 1 only for
`PER_PLAYER` detectors (api/policy/shadow.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from pipeline.contracts import ChatMessage, Event, SeatActivity, SnapCamReport
from pipeline.detector import (
    CountingDetector,
    Detector,
    DurableDetector,
    DurableState,
    FlushingDetector,
    PrefetchingDetector,
    SourceTimedDetector,
    StatefulDetector,
)
from pipeline.detectors.chat.lexicon import compile_lexicon
from pipeline.detectors.chat.offences import Offence
from pipeline.detectors.chat.repeat import (
    _TS,
    LedgerTap,
    OffenceLedger,
    RepeatOffenderDetector,
    _prior_counts,
)
from pipeline.findings import Finding
from pipeline.registry import build_detectors
from pipeline.rules import RulesConfig
from pipeline.shadow_sample import PER_PLAYER as PER_PLAYER  # re-exported
from pipeline.shadow_sample import in_share
from pipeline.shadow_shared import SharedClassifierFindings as SharedClassifierFindings  # re-exported
from pipeline.shadow_shared import share_classifier_findings
from pipeline.shadow_tap import tapped_shadow
from pipeline.text_model import TextClassifier

PREFIX = "shadow:"


def shadow_name(name: str) -> str:
    """The name a detector's shadow copy is registered under."""
    return f"{PREFIX}{name}"


def live_name(name: str) -> str:
    """The live detector a registered name belongs to (itself when it is no shadow copy)."""
    return name.removeprefix(PREFIX)


def _actor(event: Event) -> str | None:
    """The player an event is by (speaker, seated player, reporter); None for a hand."""
    if isinstance(event, ChatMessage | SeatActivity):
        return event.player_id
    if isinstance(event, SnapCamReport):
        return event.reporter_id
    return None


def sampling_unit(event: Event, key: str) -> str:
    """What decides whether a shadow copy sees `event`: its player, else the detector's `key`."""
    return _actor(event) or key


class ShadowStore:
    """A durable store under `shadow:<name>`: the shadow copy's state never overwrites the live one's."""

    def __init__(self, inner: DurableState) -> None:
        self._inner = inner
        self._name = shadow_name(inner.store_name)

    @property
    def store_name(self) -> str:
        """`shadow:` + the inner store's name."""
        return self._name

    def at(self, position: int) -> None:
        """As the inner store."""
        self._inner.at(position)

    def changes(self) -> list[tuple[str, bytes | None]]:
        """As the inner store."""
        return self._inner.changes()

    def restore(self, key: str, value: bytes, *, before: int) -> None:
        """As the inner store."""
        self._inner.restore(key, value, before=before)


class ShadowDetector:
    """A shadow copy of a detector (see the module docstring)."""

    def __init__(self, inner: Detector, *, rules: RulesConfig, share: float = 1.0) -> None:
        if not 0.0 < share <= 1.0:
            raise ValueError(f"a shadow share is in (0, 1], not {share}")
        self._inner = inner
        self._name = shadow_name(inner.name)
        self._rules = rules
        self._share = share

    @property
    def share(self) -> float:
        """The part of the room this copy sees (1: every event)."""
        return self._share

    def sees(self, event: Event) -> bool:
        """Whether the event is in this copy's share of the room."""
        return self._share >= 1.0 or in_share(sampling_unit(event, self._inner.key(event)), self._share)

    @property
    def inner(self) -> Detector:
        """The wrapped candidate detector."""
        return self._inner

    @property
    def name(self) -> str:
        """`shadow:<live name>`."""
        return self._name

    @property
    def topics(self) -> frozenset[str]:
        """The wrapped detector's topics."""
        return self._inner.topics

    @property
    def policy_rules(self) -> RulesConfig:
        """The candidate rules its findings' actions are proposed under."""
        return self._rules

    @property
    def state_window(self) -> timedelta:
        """The wrapped detector's window (none: zero, so the runtime's default lookback applies)."""
        return self._inner.state_window if isinstance(self._inner, StatefulDetector) else timedelta(0)

    @property
    def anomalies(self) -> Counter[str]:
        """The wrapped detector's anomaly counts (none: empty)."""
        return self._inner.anomalies if isinstance(self._inner, CountingDetector) else Counter()

    def key(self, event: Event) -> str:
        """The wrapped detector's state key: the shadow copy lives in the live copy's partition."""
        return self._inner.key(event)

    def prefetch(self, events: Sequence[Event]) -> None:
        """The wrapped detector's prefetch, if it has one."""
        if isinstance(self._inner, PrefetchingDetector):
            self._inner.prefetch(events if self._share >= 1.0 else [e for e in events if self.sees(e)])

    def process(self, event: Event) -> Sequence[Finding]:
        """The wrapped detector's findings, marked shadow (none outside its share)."""
        if not self.sees(event):
            return ()
        return _marked(self._inner.process(event))

    def flush(self) -> Sequence[Finding]:
        """What the wrapped detector still holds back, marked shadow."""
        return _marked(self._inner.flush()) if isinstance(self._inner, FlushingDetector) else ()

    def advance(self, source: str, newest: datetime) -> Sequence[Finding]:
        """An input partition's progress, for a wrapped detector that orders by it, marked shadow."""
        return _marked(self._inner.advance(source, newest)) if isinstance(self._inner, SourceTimedDetector) else ()


class DurableShadowDetector(ShadowDetector):
    """A shadow copy of a detector with durable state, kept under the shadow store's name."""

    def __init__(self, inner: DurableDetector, *, rules: RulesConfig, store: ShadowStore,
                 share: float = 1.0) -> None:
        super().__init__(inner, rules=rules, share=share)
        self._store = store
        self._overlay = inner.durable if isinstance(inner.durable, OverlayLedger) else None
        self._tap = inner if type(inner) is LedgerTap else None

    def process(self, event: Event) -> Sequence[Finding]:
        """As `ShadowDetector.process`; an overlay ledger merges a player's offences once per call."""
        if not self.sees(event):
            return ()
        overlay = self._overlay
        if overlay is None:
            return self._process(event)
        overlay.hold()
        try:
            return self._process(event)
        finally:
            overlay.release()

    def _process(self, event: Event) -> Sequence[Finding]:
        tap = self._tap
        return _marked(self._inner.process(event)) if tap is None else tapped_shadow(tap, event)

    @property
    def durable(self) -> ShadowStore:
        """The wrapped detector's store, renamed."""
        return self._store


def _marked(findings: Sequence[Finding]) -> tuple[Finding, ...]:
    return tuple(f.model_copy(update={"shadow": True}) for f in findings)


class OverlayLedger(OffenceLedger):
    """The offence ledger of a shadow world: the live ledger's offences except those of the
    detectors in shadow (`hidden`), plus the shadow copies' own (recorded here, never in the live
    ledger). Reads only the live ledger, which the live copies keep as before."""

    def __init__(self, live: OffenceLedger, *, hidden: frozenset[str], window: timedelta,
                 order: Mapping[str, int]) -> None:
        """`order`: the detectors' registry positions; one message's offences are listed in the
        order its taps ran, as in the live ledger (the ladder's evidence lists them)."""
        super().__init__(window=window)
        self._live = live
        self._hidden = hidden
        self._order = order
        self._memo: dict[tuple[str, datetime], list[tuple[datetime, Offence]]] | None = None
        self._foreign = False
        """Whether this ledger holds an offence of a detector not in shadow (the shadow copies
        record only their own, so never in practice): only then can one be in both ledgers."""

    def hold(self) -> None:
        """Until `release`: the live ledger does not change (a shadow copy is processing one
        message), so each player's merged offences are kept until this ledger records one."""
        self._memo = {}

    def release(self) -> None:
        """Merge on every read again."""
        self._memo = None

    def record(self, player_id: str, ts: datetime, offence: Offence) -> None:
        """As `OffenceLedger.record` (into this ledger's own offences)."""
        if self._memo:
            self._memo.clear()
        if offence.detector not in self._hidden:
            self._foreign = True
        super().record(player_id, ts, offence)

    def restore(self, key: str, value: bytes, *, before: int) -> None:
        """As `OffenceLedger.restore`."""
        if self._memo:
            self._memo.clear()
        super().restore(key, value, before=before)
        history = self._players.get(key)
        if history is not None and any(o.detector not in self._hidden for _, o in history.view()):
            self._foreign = True

    def priors(self, player_id: str, ts: datetime, *, excluding: str, of: str) -> tuple[int, int]:
        """As `OffenceLedger.priors`, over both ledgers' offences in time order: the counts do not
        depend on the order of offences at one time (`_prior_counts`), so the two time-ordered
        lists are joined by time alone, without the registry order `offences` gives ties; only
        when the newest 64 must be cut (where ties at the cut would matter) from `offences`."""
        own = super().offences(player_id, ts)
        base = self._base(player_id, ts, own)
        if not base:
            joined = own
        elif not own:
            joined = base
        elif len(base) + len(own) <= self._max_per_player:
            joined = base + own
            joined.sort(key=_TS)
        else:
            joined = self.offences(player_id, ts)
        return _prior_counts(joined, ts, self._gap, excluding=excluding, of=of)

    def _base(
        self, player_id: str, now: datetime, own: list[tuple[datetime, Offence]]
    ) -> list[tuple[datetime, Offence]]:
        """The live ledger's offences in the window, without those of the detectors in shadow
        (and, should this ledger hold any of other detectors, without those it holds too)."""
        hidden = self._hidden
        base = [x for x in self._live.offences(player_id, now) if x[1].detector not in hidden]
        if self._foreign and base and own:
            seen = {(o.event_id, o.finding_id) for _, o in own}
            base = [x for x in base if (x[1].event_id, x[1].finding_id) not in seen]
        return base

    def offences(self, player_id: str, now: datetime) -> list[tuple[datetime, Offence]]:
        """Both ledgers' offences in the window ending at `now`, oldest first (newest 64, as live)."""
        memo = self._memo
        if memo is None:
            return self._merged(player_id, now)
        kept = memo.get((player_id, now))
        if kept is None:
            kept = memo[(player_id, now)] = self._merged(player_id, now)
        return list(kept)

    def holds(self, player_id: str, event_id: str, now: datetime) -> bool:
        """As `OffenceLedger.holds`, over both ledgers' offences."""
        return any(o.event_id == event_id for _, o in self.offences(player_id, now))

    def _merged(self, player_id: str, now: datetime) -> list[tuple[datetime, Offence]]:
        own = super().offences(player_id, now)
        base = self._base(player_id, now, own)
        if not base:
            return own
        last, order = len(self._order), self._order.get
        merged = sorted([*base, *own], key=lambda x: (x[0], order(x[1].detector, last)))
        # The live ledger keeps a player's newest `max_per_player` offences; so does the shadow world.
        return merged[-self._max_per_player:]


def live_ledger(detectors: Mapping[str, Detector]) -> OffenceLedger | None:
    """The offence ledger a live detector set's chat taps share (None without chat detectors)."""
    for detector in detectors.values():
        if isinstance(detector, DurableDetector) and isinstance(detector.durable, OffenceLedger):
            return detector.durable
    return None


def with_shadows(live: Mapping[str, Detector], candidates: Mapping[str, Detector], *, names: Sequence[str],
                 rules: RulesConfig, share: float = 1.0) -> dict[str, Detector]:
    """The live set with shadow copies of `names` taken from `candidates` (a detector set built with
    the candidate configuration), in the candidates' order (the ladder after the taps it counts).
    Candidates sharing a store share one renamed store; `share`: the part of the room they see.

    The copies come BEFORE the live detectors: when a shadow tap reads the offence ledger, the live
    ledger holds exactly the offences of earlier messages, as a live tap sees it (the ledger keeps
    a player's newest 64 offences; after the live taps the current message's offences would have
    pushed older ones out). The ladder's copy comes AFTER them: like the live ladder it reads the
    message's offences from every tap. Shadow copies never write live state, so the order changes
    nothing live."""
    unknown = [n for n in names if n not in candidates]
    if unknown:
        raise ValueError(f"no detector {unknown} to run in shadow; known: {list(candidates)}")
    out: dict[str, Detector] = {}
    after: dict[str, Detector] = {}
    stores: dict[int, ShadowStore] = {}
    wanted = set(names)
    for name, detector in candidates.items():
        if name not in wanted:
            continue
        copy: ShadowDetector
        if isinstance(detector, DurableDetector):
            store = stores.setdefault(id(detector.durable), ShadowStore(detector.durable))
            copy = DurableShadowDetector(detector, rules=rules, store=store, share=share)
        else:
            copy = ShadowDetector(detector, rules=rules, share=share)
        (after if isinstance(detector, RepeatOffenderDetector) else out)[copy.name] = copy
    return {**out, **live, **after}


def build_with_shadows(
    *, rules: RulesConfig, classifier: TextClassifier | None, chat_lateness: timedelta, names: Sequence[str],
    shadow_rules: RulesConfig, shadow_classifier: TextClassifier | None, share: float = 1.0,
) -> dict[str, Detector]:
    """Every live detector (fresh state) and shadow copies of `names` built with the candidate rules
    and classifier; the copies' offence ledger overlays the live one (see `OverlayLedger`)."""
    if not names:
        return build_detectors(rules=rules, classifier=classifier, chat_lateness=chat_lateness)
    # One word list for both sets: it is configuration-free, and its per-text memo then serves both.
    lexicon = compile_lexicon()
    live = build_detectors(rules=rules, classifier=classifier, chat_lateness=chat_lateness, chat_lexicon=lexicon)
    ledger = live_ledger(live)
    overlay = None if ledger is None else OverlayLedger(
        ledger, hidden=frozenset(names), window=shadow_rules.chat_offence_window,
        order={name: i for i, name in enumerate(live)})
    candidates = build_detectors(rules=shadow_rules, classifier=shadow_classifier, chat_lateness=chat_lateness,
                                 chat_ledger=overlay, chat_lexicon=lexicon)
    if "chat.classifier" in names:
        share_classifier_findings(live, candidates)
    return with_shadows(live, candidates, names=names, rules=shadow_rules, share=share)
