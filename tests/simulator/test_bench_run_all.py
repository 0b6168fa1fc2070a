"""bench/run_all: which scripts run, and how results are summarised."""

from __future__ import annotations

from bench.run_all import Outcome, headline, scripts, table


def test_scripts_lists_benches_without_itself_and_honours_filters() -> None:
    names = scripts(set(), set())
    assert "simulator_rate" in names and "run_all" not in names
    assert scripts({"simulator_rate"}, set()) == ["simulator_rate"]
    assert "simulator_rate" not in scripts(set(), {"simulator_rate"})


def test_table_shows_status_and_headline_figures() -> None:
    results = {"simulator_rate": {"no_hands_events_per_s_median": 25000, "ratio_to_target": 1.25, "note": "x"},
               "other": {"p99_ms": 12.5}}
    text = table([Outcome("simulator_rate", 0, 12.0), Outcome("broken", 2, 1.0), Outcome("slow", None, 99.0)], results)
    assert "no_hands_events_per_s_median=25000; ratio_to_target=1.25" in text
    lines = {line.split()[0]: line for line in text.splitlines()[1:]}
    assert "exit 2" in lines["broken"] and "timeout" in lines["slow"] and "collected" in lines["other"]
    assert headline("not a dict") == ""
