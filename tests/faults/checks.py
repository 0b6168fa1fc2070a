"""The exactly-once-effects assertions every fault test ends with."""

from __future__ import annotations

from typing import Any

from api.sanctions.models import SECOND_REVIEW_KINDS
from pipeline.findings import stable_id
from tests.faults.rig import Accounting, Rig, wait_until
from tests.faults.traffic import ORDER_SENSITIVE, Oracle


def wait_for_all_effects(rig: Rig, oracle: Oracle, *, n: int, timeout_s: float) -> None:
    """Every input offset committed, the oracle's findings stored, the outbox drained."""
    wanted = {f for f, doc in oracle.findings.items() if doc["detector"] not in ORDER_SENSITIVE}
    wait_until(lambda: not rig.crashed() and rig.committed_total("chat.messages") >= n, timeout_s=timeout_s,
               what=f"{n} input records committed (crashed: {rig.crashed()})", every_s=1.0)
    wait_until(lambda: wanted <= {r[0] for r in rig.db_rows("SELECT finding_id FROM findings")},
               timeout_s=timeout_s, what=f"{len(wanted)} findings stored", every_s=1.0)
    wait_until(lambda: not rig.db_rows("SELECT seq FROM outbox WHERE published_at IS NULL"),
               timeout_s=60, what="the outbox drained", every_s=0.5)


def order_sensitive_difference(acc: Accounting, oracle: Oracle) -> dict[str, Any]:
    """Findings of order-sensitive detectors found only offline or only by the stream (reported)."""
    offline = {f for f, d in oracle.findings.items() if d["detector"] in ORDER_SENSITIVE}
    streamed = {f for f, d in acc.detector_of.items() if d in ORDER_SENSITIVE}
    return {"only_offline": len(offline - streamed), "only_streamed": len(streamed - offline),
            "both": len(offline & streamed)}


def assert_exactly_once(acc: Accounting, oracle: Oracle, *, allow_republish: bool = False) -> None:
    """0 lost, 0 duplicated: findings, cases, sanctions, dead letters and enforcement events."""
    exact = {f for f, d in oracle.findings.items() if d["detector"] not in ORDER_SENSITIVE}
    stored = {f for f, d in acc.detector_of.items() if d not in ORDER_SENSITIVE}
    assert acc.committed == acc.input_records, "every input record consumed and committed"
    missing, extra = exact - stored, stored - exact
    assert not missing and not extra, {"missing": sorted(missing)[:5], "extra": sorted(extra)[:5]}
    assert acc.case_keys_duplicated == 0, "one open case per (family, subject, incident)"
    assert acc.case_count_mismatches == 0, "no case counted a finding twice"
    sensitive = {f for f, d in acc.detector_of.items() if d in ORDER_SENSITIVE}
    sanctions = {a for a in oracle.automatic_actions
                 if oracle.findings[oracle.action_finding[a]]["detector"] not in ORDER_SENSITIVE}
    assert sanctions <= acc.sanctions, "no automatic sanction lost"
    assert not acc.sanctions - sanctions - _actions_of(acc, sensitive), "no sanction without a finding"
    assert acc.dead_letters == oracle.dead, "every poison record dead-lettered"
    active = {stable_id("enf", s, "sanction") for s in acc.sanctions
              if oracle.automatic_action_kinds.get(s) not in SECOND_REVIEW_KINDS}
    assert set(acc.enforcement_ids) == active, "one enforcement event per sanction"
    if not allow_republish:
        assert max(acc.enforcement_ids.values(), default=1) == 1, "no enforcement event published twice"


def _actions_of(acc: Accounting, findings: set[str]) -> set[str]:
    return {a for a, f in acc.action_finding.items() if f in findings}
