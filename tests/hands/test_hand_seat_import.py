"""`seat.activity` derived from consecutive hands of a history file, fed to the seat detectors."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

from pipeline.contracts import SeatActivity
from pipeline.detectors.seat import BumhuntingDetector, CollusiveSitOutDetector, HitAndRunDetector
from pipeline.hands.importing import Imported, Seats, text_outcomes
from pipeline.hands.seating import SeatTracker
from pipeline.registry import build_pipeline
from pipeline.replay import replay_lines
from pipeline.rules import RulesConfig
from railbird.commands import backtest, importer
from railbird.settings import Settings
from tests.hands.seat_history import HandSpec, render_table

BASE = {1: "a", 2: "b", 3: "c", 4: "d"}


def events(text: str, tracker: SeatTracker | None = None) -> tuple[list[SeatActivity], int]:
    """The validated seat events of a history text, and how many hands imported."""
    tracker = tracker or SeatTracker()
    out, hands = [], 0
    for o in text_outcomes(io.BytesIO(text.encode("utf-8")), tracker):
        if isinstance(o, Seats):
            out += [SeatActivity.model_validate_json(v) for v in o.values]
        hands += isinstance(o, Imported)
    return out, hands


def stint(player: str, seat: int, hands: int, **lines: list[str]) -> list[HandSpec]:
    """`hands` hands of the four regulars plus `player`."""
    return [HandSpec({**BASE, seat: player}, lines=lines.get(str(k), [])) for k in range(hands)]


def hit_and_run(evs: list[SeatActivity]) -> list[Any]:
    det = HitAndRunDetector(rules=RulesConfig())
    return [f for ev in evs for f in det.process(ev)] + det.flush()


def test_consecutive_hands_give_joins_leaves_and_seat_changes() -> None:
    hands = [
        HandSpec(dict(BASE)),
        HandSpec({**BASE, 5: "e"}, lines=["c: sits out"]),
        HandSpec({1: "a", 2: "b", 4: "d", 5: "e"}, out={3: "c"}, lines=["c has returned", "d is disconnected"]),
        HandSpec({**BASE, 5: "e"}, lines=["d has reconnected", "f joins the table at seat #6"]),
        HandSpec({**BASE, 6: "f"}),
        HandSpec({1: "a", 2: "b", 3: "c", 6: "f"}, out={4: "d"}),
        HandSpec({1: "a", 2: "b", 3: "c", 6: "f"}, lines=["f leaves the table"]),
        HandSpec({1: "a", 2: "b", 3: "c"}),
    ]
    evs, imported = events(render_table(hands))
    assert imported == 8
    got = [(e.player_id, e.action, e.hands_played_at_table, e.players_seated, e.others_sitting_out) for e in evs]
    assert got == [
        ("e", "join", 0, 5, 0),
        ("c", "sit_out", 2, 5, 0),  # the line, at the hand's time + 1 ms
        ("c", "sit_in", 2, 5, 0),  # "has returned": no second sit_out from the seat line before it
        ("d", "disconnect", 3, 5, 0),
        ("d", "reconnect", 4, 5, 0),
        ("f", "join", 0, 6, 0),
        ("e", "leave", 3, 6, 0),  # gone from the next hand: left at the time of its last hand
        ("d", "sit_out", 5, 5, 0),
        ("f", "leave", 3, 4, 0),
    ]
    e_leave = next(e for e in evs if e.player_id == "e" and e.action == "leave")
    e_last = next(e for e in evs if e.player_id == "d" and e.action == "reconnect")
    assert e_leave.ts.replace(microsecond=0) == e_last.ts.replace(microsecond=0)  # hand 4's time
    assert {e.seat for e in evs if e.player_id == "f"} == {6}
    assert all(e.game == "cash" and e.blind_level == "NT-usd-0.05-0.1" and e.variant == "nlhe" for e in evs)
    # d was already seated at the first hand seen: its sit-outs are facts, its stint start is not known,
    # and no leave is made for a stint whose join was not seen (d never leaves here anyway).
    assert len({e.event_id for e in evs}) == len(evs)


def test_hit_and_run_flags_a_short_stint_and_leaves_unseen_or_long_ones_alone() -> None:
    hands = [HandSpec(dict(BASE))]
    hands += stint("e", 5, 3)  # joins, 3 hands, gone: a refusal
    hands += stint("f", 5, 12)  # 12 hands: played its share
    hands += [HandSpec({1: "a", 2: "b", 3: "c"})] * 2  # d, seated before the first hand seen, leaves: unknown start
    hands += [HandSpec({1: "a", 2: "b", 3: "c", 5: "g"})] * 2
    hands += [HandSpec({1: "a", 2: "b", 3: "c", 5: "g"}, at=60 * 60.0)]  # 40 min later: hands may be missing
    hands += [HandSpec({1: "a", 2: "b", 3: "c"}, at=60 * 61.0)]  # g gone, but its stint had a gap: no leave
    evs, _ = events(render_table(hands))
    leaves = [(e.player_id, e.hands_played_at_table) for e in evs if e.action == "leave"]
    assert leaves == [("e", 3), ("f", 12)]
    found = hit_and_run(evs)
    assert [f.players for f in found] == [("e",)]
    assert found[0].evidence["refusal"]["hands_played"] == 3


def test_an_unreadable_hand_of_the_table_breaks_the_observation() -> None:
    text = render_table([HandSpec(dict(BASE)), *stint("h", 5, 2)])
    broken = render_table([HandSpec({**BASE, 5: "h"})], first=600_000).replace("*** SUMMARY ***", "??? no summary")
    after = render_table([HandSpec(dict(BASE)), HandSpec(dict(BASE))], first=700_000)
    shift = after.replace("15:00:00 ET", "15:04:00 ET").replace("15:01:00 ET", "15:05:00 ET")
    evs, imported = events(text + broken.replace("15:00:00 ET", "15:03:00 ET") + shift)
    assert imported == 5
    assert [(e.player_id, e.action) for e in evs] == [("h", "join")]  # its leave may hide unseen hands
    assert hit_and_run(evs) == []


def test_a_history_file_cannot_show_what_happened_between_hands() -> None:
    # x sat down and stood up between the two hands: nothing in the file shows it.
    evs, _ = events(render_table([HandSpec(dict(BASE)), HandSpec(dict(BASE))]))
    assert evs == []
    # The last hand's players get no leave: the file ends, their table goes on.
    tracker = SeatTracker()
    evs, _ = events(render_table([HandSpec(dict(BASE)), *stint("e", 5, 3)]), tracker)
    assert [e.action for e in evs] == ["join"] and tracker.open_stints() == 5


def test_a_table_continues_in_the_next_file(tmp_path: Path) -> None:
    hands = [HandSpec(dict(BASE)), *stint("e", 5, 4), HandSpec(dict(BASE))]
    text = render_table(hands)
    cut = text.index("PokerStars Hand #500003")
    folder = tmp_path / "hh"
    folder.mkdir()
    (folder / "a.txt").write_text(text[:cut], encoding="utf-8")
    (folder / "b.txt").write_text(text[cut:], encoding="utf-8")
    out = tmp_path / "out.jsonl"
    args = argparse.Namespace(what="hands", path=str(folder), format="auto", out=str(out), rejects=None)
    assert importer.run(args, Settings()) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    seat = [json.loads(x)["value"] for x in lines if json.loads(x)["topic"] == "seat.activity"]
    assert [(v["player_id"], v["action"], v["hands_played_at_table"]) for v in seat] == [("e", "join", 0), ("e", "leave", 4)]
    outputs = list(replay_lines(lines, build_pipeline(rules=RulesConfig())))
    assert not [o for o in outputs if o["kind"] in ("dead_letter", "detector_error")]
    found = [o["finding"] for o in outputs if o["kind"] == "finding"]
    assert [(f["detector"], f["players"]) for f in found] == [("seat.hit_and_run", ["e"])]


def test_backtest_runs_the_seat_detectors_on_histories(tmp_path: Path) -> None:
    folder = tmp_path / "hh"
    folder.mkdir()
    hands = [HandSpec(dict(BASE)), *stint("e", 5, 2), *stint("f", 6, 10), HandSpec(dict(BASE))]
    (folder / "t.txt").write_text(render_table(hands), encoding="utf-8")
    report = tmp_path / "r.md"
    assert backtest.run(argparse.Namespace(path=str(folder), out=str(report), events=None), Settings()) == 0
    text = report.read_text(encoding="utf-8")
    assert "4 seat events (derived from consecutive hands)" in text
    assert "| seat.hit_and_run | 1 | 1 |" in text and "| hit_and_run | 1.00 | e |" in text


def tournament(pair_together: bool) -> str:
    """A nine-handed tournament table; x and y sit out (and come back) at the same hands or apart."""
    seats = {1: "a", 2: "b", 3: "c", 4: "d", 5: "x", 6: "y", 7: "g", 8: "h", 9: "i"}
    hands = []
    for k in range(60):
        lines: list[str] = []
        if k % 12 == 3:
            lines = ["x: sits out", "y: sits out"] if pair_together else ["x: sits out"]
        if k % 12 == 5:
            lines = ["x has returned", "y has returned"] if pair_together else ["x has returned", "y: sits out"]
        if k % 12 == 8 and not pair_together:
            lines = ["y has returned"]
        if k % 12 == 10:
            lines = [f"{'abcd'[k % 4]}: sits out"]
        if k % 12 == 11:
            lines = [f"{'abcd'[(k - 1) % 4]} has returned"]
        hands.append(HandSpec(dict(seats), lines=lines))
    return render_table(hands, table="777 1", tournament=777)


def sit_outs(text: str) -> list[Any]:
    evs, _ = events(text)
    assert all(e.game == "tournament" and e.tournament_id == "ps-t777" and e.blind_level == "level-I" for e in evs)
    det = CollusiveSitOutDetector()
    return [f for ev in evs for f in det.process(ev)] + det.flush()


def test_collusive_sit_outs_at_the_same_hands_are_found_and_apart_are_not() -> None:
    (found,) = sit_outs(tournament(pair_together=True))
    assert set(found.players) == {"x", "y"} and found.tournament_id == "ps-t777"
    assert sit_outs(tournament(pair_together=False)) == []


def test_bumhunting_takes_the_derived_events_without_complaint() -> None:
    hands = [HandSpec(dict(BASE)), *stint("e", 5, 15), *stint("f", 5, 15), HandSpec(dict(BASE))]
    evs, _ = events(render_table(hands))
    det = BumhuntingDetector()
    assert [f for ev in evs for f in det.process(ev)] + det.flush() == []
    assert not det.anomalies  # every leave has its join; no state change for an unknown seat


def test_fast_fold_pools_give_no_seat_events() -> None:
    text = render_table([HandSpec(dict(BASE)), HandSpec({**BASE, 5: "e"}), HandSpec(dict(BASE))])
    evs, imported = events(text.replace("PokerStars Hand #", "PokerStars Zoom Hand #"))
    assert imported == 3 and evs == []
