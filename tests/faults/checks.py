"""The exactly-once-effects assertions every fault test ends with."""

from __future__ import annotations

from typing import Any

from api.sanctions.models import SECOND_REVIEW_KINDS
from pipeline.findings import stable_id
from tests.faults.rig import Accounting, Rig, wait_until
from tests.faults.traffic import ORDER_SENSITIVE, Oracle, Record


def end_traffic(rig: Rig, tail: list[Record], *, produced: int, timeout_s: float) -> None:
    """Once the `produced` records are all committed, produce the watermark tail after them."""
    wait_until(lambda: not rig.crashed() and rig.committed_total("chat.messages") >= produced, timeout_s=timeout_s,
               what=f"{produced} input records committed (crashed: {rig.crashed()})", every_s=1.0)
    rig.produce(tail)


def wait_for_all_effects(rig: Rig, oracle: Oracle, *, n: int, timeout_s: float) -> None:
    """Every input offset committed, the oracle's findings stored, the outbox drained."""
    wanted = set(oracle.findings)
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
    exact, stored = set(oracle.findings), set(acc.detector_of)
    assert acc.committed == acc.input_records, "every input record consumed and committed"
    missing, extra = exact - stored, stored - exact
    assert not missing and not extra, {"missing": sorted(missing)[:5], "extra": sorted(extra)[:5]}
    assert acc.case_keys_duplicated == 0, "one open case per (family, subject, incident)"
    assert acc.case_count_mismatches == 0, "no case counted a finding twice"
    assert oracle.automatic_actions == acc.sanctions, {
        "lost": sorted(oracle.automatic_actions - acc.sanctions)[:5],
        "without a finding": sorted(acc.sanctions - oracle.automatic_actions)[:5]}
    assert acc.dead_letters == oracle.dead, "every poison record dead-lettered"
    active = {stable_id("enf", s, "sanction") for s in acc.sanctions
              if oracle.automatic_action_kinds.get(s) not in SECOND_REVIEW_KINDS}
    assert set(acc.enforcement_ids) == active, "one enforcement event per sanction"
    if not allow_republish:
        assert max(acc.enforcement_ids.values(), default=1) == 1, "no enforcement event published twice"

