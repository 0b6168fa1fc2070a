"""A shadow copy of a chat ledger tap (`LedgerTap`), with less copying and counting than
`_marked(tap.process(event))` and the same findings and recorded offences.

- the prior offences and the shadow mark go into one `model_copy` of each finding (the recorded
  offence reads neither);
- both prior counts (`prior_offences`, `prior_same_category`) come from the ledger's one-read
  `priors`, as in the live tap.
Split out of pipeline/shadow.py (module size).
"""

from __future__ import annotations

from pipeline.contracts import Event
from pipeline.detectors.chat.offences import Offence
from pipeline.detectors.chat.repeat import LedgerTap, _line
from pipeline.findings import Finding


def tapped_shadow(tap: LedgerTap, event: Event) -> tuple[Finding, ...]:
    """`_marked(tap.process(event))` (see the module docstring)."""
    produced = tap.inner.process(event)
    if not produced:
        return ()
    ledger = tap.ledger
    out: list[Finding] = []
    for finding in produced:
        prior, same = ledger.priors(finding.subject, event.ts, excluding=event.event_id, of=finding.category)
        evidence = {**finding.evidence, "prior_offences": prior, "prior_same_category": same}
        out.append(finding.model_copy(update={"evidence": evidence, "shadow": True}))
    for finding in out:
        offence = Offence(
            event.event_id, finding.category, finding.finding_id, finding.detector, _line(event, finding)
        )
        ledger.record(finding.subject, event.ts, offence)
    return tuple(out)
