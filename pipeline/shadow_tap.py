"""A shadow copy of a chat ledger tap (`LedgerTap`), with less copying and counting than
`_marked(tap.process(event))` and the same findings and recorded offences.

- the prior offences and the shadow mark go into one `model_copy` of each finding (the recorded
  offence reads neither);
- both prior counts (`prior_offences`, `prior_same_category`) come from one read of the player's
  offences (`priors`): the same-category count is the all-category one restricted to the
  finding's category, read from the same list (nothing is recorded in between).
Split out of pipeline/shadow.py (module size).
"""

from __future__ import annotations

from datetime import datetime

from pipeline.contracts import Event
from pipeline.detectors.chat.offences import Offence
from pipeline.detectors.chat.repeat import LedgerTap, OffenceLedger, _episodes, _line, _rule
from pipeline.findings import Finding


def priors(
    ledger: OffenceLedger, player_id: str, ts: datetime, *, excluding: str, of: str
) -> tuple[int, int]:
    """`(ledger.prior(player_id, ts, excluding=excluding, of=of),
    ledger.prior(player_id, ts, excluding=excluding, category=of, of=of))` from one read."""
    if type(ledger).prior is not OffenceLedger.prior:  # a ledger that counts its own way: ask it
        return (
            ledger.prior(player_id, ts, excluding=excluding, of=of),
            ledger.prior(player_id, ts, excluding=excluding, category=of, of=of),
        )
    earlier = [(t, o) for t, o in ledger.offences(player_id, ts) if o.event_id != excluding and t <= ts]
    if not earlier:
        return 0, 0
    gap = ledger._gap
    rule = _rule(of)
    every = _episodes([(t, o.category) for t, o in earlier], gap)
    if any(ts - t <= gap and _rule(o.category) == rule for t, o in earlier):
        every -= 1
    same_times = [t for t, o in earlier if o.category == of]
    same = _episodes([(t, of) for t in same_times], gap)
    if any(ts - t <= gap for t in same_times):  # each of them breaks the finding's own rule
        same -= 1
    return every, same


def tapped_shadow(tap: LedgerTap, event: Event) -> tuple[Finding, ...]:
    """`_marked(tap.process(event))` (see the module docstring)."""
    produced = tap.inner.process(event)
    if not produced:
        return ()
    ledger = tap.ledger
    out: list[Finding] = []
    for finding in produced:
        prior, same = priors(ledger, finding.subject, event.ts, excluding=event.event_id, of=finding.category)
        evidence = {**finding.evidence, "prior_offences": prior, "prior_same_category": same}
        out.append(finding.model_copy(update={"evidence": evidence, "shadow": True}))
    for finding in out:
        offence = Offence(
            event.event_id, finding.category, finding.finding_id, finding.detector, _line(event, finding)
        )
        ledger.record(finding.subject, event.ts, offence)
    return tuple(out)
