"""A PLO room's soft-play pair with only six heads-up pots together is found by the real hand
detectors (the chances by class of spot, docs/hand-integrity.md section 4), and no honest pair is
flagged. Before the classes this room gave 2 of 3 soft-play rows (seed 4's pl00034-pl00035, 18
heads-up post-flop chances each way, p 5.5e-6 against the 1e-6 bound)."""

from __future__ import annotations

from bench.plo_collusion import run_seed
from pipeline.rules import RulesConfig


def test_a_plo_pair_with_six_checked_down_pots_is_found_and_honest_pairs_are_left_alone() -> None:
    result = run_seed(4, minutes=240, players=120, rules=RulesConfig())
    soft = result["categories"]["soft_play"]
    assert soft["truth"] == 3 and soft["found"] == 3, soft
    assert soft["findings"] == soft["true_findings"], "a soft-play finding on an honest pair"
    assert result["soft_play_by_sample"]["cash_below_sample"]["found"] >= 1  # the 18-chance pair
