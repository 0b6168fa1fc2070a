"""The exactly-once-effects assertions every fault test ends with."""

from __future__ import annotations

from api.sanctions.models import SECOND_REVIEW_KINDS
from pipeline.findings import stable_id
from tests.faults.rig import Accounting, Rig, wait_until
from tests.faults.traffic import Oracle


def expected_enforcement_ids(oracle: Oracle) -> set[str]:
    """One CloudEvent id per automatic sanction that takes effect at once."""
    kinds = {a_id: kind for a_id, kind in oracle.automatic_action_kinds.items()}
    return {stable_id("enf", a, "sanction") for a, k in kinds.items() if k not in SECOND_REVIEW_KINDS}


def wait_for_all_effects(rig: Rig, oracle: Oracle, *, n: int, timeout_s: float) -> None:
    """Every input offset committed and every oracle finding stored, or fail naming which."""
    wait_until(lambda: not rig.crashed() and rig.committed_total("chat.messages") >= n, timeout_s=timeout_s,
               what=f"{n} input records committed (crashed: {rig.crashed()})", every_s=1.0)
    wait_until(lambda: len(rig.db_rows("SELECT finding_id FROM findings")) >= len(oracle.findings),
               timeout_s=timeout_s, what=f"{len(oracle.findings)} findings stored", every_s=1.0)
    wait_until(lambda: not rig.db_rows("SELECT seq FROM outbox WHERE published_at IS NULL"),
               timeout_s=60, what="the outbox drained", every_s=0.5)


def assert_exactly_once(acc: Accounting, oracle: Oracle, *, allow_republish: bool = False) -> None:
    """0 lost, 0 duplicated: findings, cases, sanctions, dead letters and enforcement events."""
    assert acc.committed == acc.input_records, "every input record consumed and committed"
    missing, extra = set(oracle.findings) - acc.findings, acc.findings - set(oracle.findings)
    assert not missing and not extra, {"missing": sorted(missing)[:5], "extra": sorted(extra)[:5]}
    assert acc.case_keys_duplicated == 0, "one open case per (family, subject, incident)"
    assert acc.case_count_mismatches == 0, "no case counted a finding twice"
    assert acc.sanctions == oracle.automatic_actions, "one sanction per automatic action"
    assert acc.dead_letters == oracle.dead, "every poison record dead-lettered"
    assert set(acc.enforcement_ids) == expected_enforcement_ids(oracle), "one enforcement event per sanction"
    if not allow_republish:
        assert max(acc.enforcement_ids.values(), default=1) == 1, "no enforcement event published twice"
