"""`railbird simulate` and `railbird eval scenario`: determinism, files written, clear errors."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from pipeline.contracts import SEAT, SeatActivity
from railbird.cli import main
from railbird.commands import evaluate
from railbird.commands.simulate import _start_time
from simulator.sinks import kafka_key, paced, read_truth
from tests.simulator.sim_rooms import generated


def _simulate(tmp_path: Path, name: str, seed: int) -> tuple[str, str]:
    out, truth = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.truth.jsonl"
    code = main(["simulate", "--seed", str(seed), "--minutes", "3", "--players", "100", "--profile", "demo",
                 "--out", str(out), "--truth", str(truth), "--summary", str(tmp_path / f"{name}.json")])
    assert code == 0
    return out.read_text(encoding="utf-8"), truth.read_text(encoding="utf-8")


def test_same_seed_same_bytes_and_another_seed_differs(tmp_path: Path) -> None:
    first, truth_a = _simulate(tmp_path, "a", 7)
    second, truth_b = _simulate(tmp_path, "b", 7)
    other, _ = _simulate(tmp_path, "c", 8)
    assert first == second and truth_a == truth_b
    assert first != other
    rows = read_truth(truth_a.splitlines())
    assert rows and all(r.event_ids for r in rows)
    summary = json.loads((tmp_path / "a.json").read_text())
    assert summary["sent"] == len(first.splitlines()) and summary["honest_player_hours"] > 0


def test_simulate_rejects_bad_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--minutes", "0", "--out", "-"]) == 2
    assert "must be positive" in capsys.readouterr().err


def test_eval_scenario_prints_scores_per_category(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "scenario", "--seed", "2", "--minutes", "3", "--players", "100", "--profile", "demo",
                 "--out", str(tmp_path / "r.json")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["detectors_registered"]
    assert result["totals"]["truth"] > 10
    for stats in result["categories"].values():
        assert stats["status"] in ("ok", "no detector emitted this category", "no offence of this category planted") \
            or stats["status"].endswith("registered, no findings")
        if stats["findings"] == 0:
            assert stats["precision"] is None


def test_eval_chat_without_the_model_module_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(evaluate, "CHAT_EVAL_MODULE", "models.chat.no_such_evaluation")
    assert main(["eval", "chat"]) == 2
    assert "not available" in capsys.readouterr().err


def test_kafka_keys_follow_the_design() -> None:
    seat = next(e for t, e in generated().events if t == SEAT)
    assert isinstance(seat, SeatActivity)
    assert kafka_key(SEAT, seat) == seat.table_id.encode()
    chat = next(e for t, e in generated().events if t == "chat.messages")
    assert kafka_key("chat.messages", chat) == chat.player_id.encode()  # type: ignore[union-attr]


def test_pacing_sleeps_to_the_rate_and_stops_at_the_duration() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    items = [("t", None)] * 10
    out = list(paced(items, rate=5.0, max_seconds=1.0, clock=lambda: now[0], sleep=sleep))  # type: ignore[arg-type]
    assert len(out) == 5 and slept == pytest.approx([0.2] * 4)


def test_live_pacing_streams_the_past_at_the_rate_then_never_sends_an_event_before_its_time() -> None:
    """The demo's room: history at the rate, then the wall clock; nothing is dated ahead of now."""
    start = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    now = [0.0]
    sent_at: list[tuple[datetime, datetime]] = []

    def sleep(seconds: float) -> None:
        now[0] += seconds

    def wall() -> datetime:
        return start + timedelta(seconds=now[0])

    # Ten events a minute apart, the first five minutes in the past (room opened at 11:55).
    events = [("t", SimpleNamespace(ts=start + timedelta(minutes=m - 5))) for m in range(10)]
    for _, event in paced(events, rate=10.0, max_seconds=None, clock=lambda: now[0], sleep=sleep,  # type: ignore[arg-type]
                          wall=wall):
        sent_at.append((event.ts, wall()))
    assert all(ts <= at for ts, at in sent_at)  # never ahead of the clock
    assert sent_at[4][1] - start < timedelta(seconds=1)  # the past streamed at 10/s
    assert [at - ts for ts, at in sent_at[6:]] == [timedelta()] * 4  # then on time, to the second


def test_start_time_forms(capsys: pytest.CaptureFixture[str]) -> None:
    before = datetime.now(UTC)
    assert before - timedelta(minutes=91) < _start_time("now-90m") <= before - timedelta(minutes=89)
    assert _start_time("now-2h") <= before - timedelta(hours=1, minutes=59)
    with pytest.raises(argparse.ArgumentTypeError, match="now-90m"):
        _start_time("now-ninety")
    with pytest.raises(SystemExit):
        main(["simulate", "--start", "now-5x", "--out", "-"])
    assert "lead time" in capsys.readouterr().err


def test_output_does_not_depend_on_the_interpreter_hash_seed(tmp_path: Path) -> None:
    """Set iteration order changes with PYTHONHASHSEED; the room must not."""
    outputs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"h{hash_seed}.jsonl"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-m", "railbird.cli", "simulate", "--seed", "3", "--minutes", "4",
                        "--players", "120", "--profile", "demo", "--out", str(out), "--summary", str(tmp_path / "s.json")],
                       check=True, env=env)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


def test_a_run_cut_short_by_duration_writes_truth_only_for_what_was_sent(tmp_path: Path) -> None:
    out, truth, summary = tmp_path / "o.jsonl", tmp_path / "t.jsonl", tmp_path / "s.json"
    assert main(["simulate", "--profile", "demo", "--rate", "2000", "--duration", "2", "--out", str(out),
                 "--truth", str(truth), "--summary", str(summary)]) == 0
    values = [json.loads(line)["value"] for line in out.read_text().splitlines()]
    known = {v["event_id"] for v in values} | {v.get("hand_id") for v in values}
    rows = read_truth(truth.read_text().splitlines())
    assert rows and all(set(r.event_ids) <= known for r in rows)
    result = json.loads(summary.read_text())
    assert result["complete"] is False and result["sent"] == len(values)
    assert sum(result["truth"].values()) == len(rows)
