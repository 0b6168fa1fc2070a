"""A PLO room's planted chip dumping is flagged by the real hand detectors, and its honest PLO
tables give no collusion finding (the issue-22 PLO figures come from `bench/plo_collusion.py`)."""

from __future__ import annotations

from bench.plo_collusion import run_seed
from pipeline.contracts import HAND
from pipeline.rules import RulesConfig


def test_planted_plo_chip_dumping_is_found_and_honest_plo_tables_are_left_alone() -> None:
    result = run_seed(1, minutes=240, players=120, rules=RulesConfig())
    assert result["events"][HAND] > 3000
    dumping = result["categories"]["chip_dumping"]
    assert dumping["truth"] == 1 and dumping["found"] == 1, "the planted PLO chip dump is flagged"
    for kind in ("chip_dumping", "soft_play"):
        entry = result["categories"].get(kind, {})
        assert entry.get("findings", 0) == entry.get("true_findings", 0), f"{kind}: a finding on honest players"
