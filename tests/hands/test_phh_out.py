"""PHH out: `railbird import hands PATH --to phh` writes hands the PHH importer reads back to the same records."""

from __future__ import annotations

import argparse
import json
import tomllib
from pathlib import Path

import pytest

from pipeline.contracts.hand import HandRecord
from pipeline.hands.importing import Imported, file_outcomes
from pipeline.hands.phh import parse_phh, parse_phh_all
from pipeline.hands.phh_out import to_phh, to_phhs_section
from railbird.commands import importer
from railbird.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures"
PLURIBUS = Path("/work/shared/hands/pluribus")
CARRIED = {"blind_level", "bounties", "bounties_won", "eliminated", "places", "run_count", "tournament_id"}


def _records(*paths: Path) -> list[dict]:
    return [json.loads(o.hand_json) for p in paths for o in file_outcomes(p) if isinstance(o, Imported)]


def _hands(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [v["value"] for v in map(json.loads, lines) if v["topic"] == "hand.records"]


def _import(path: Path, out: Path, **extra: object) -> int:
    values = {"what": "hands", "path": str(path), "format": "auto", "out": str(out), "rejects": None,
              "summary": None, "progress": "off", "to": "replay"} | extra
    return importer.run(argparse.Namespace(**values), Settings())


def _pluribus_files(count: int) -> list[Path]:
    if not PLURIBUS.is_dir():
        pytest.skip(f"real PokerStars hands not found at {PLURIBUS}")
    return sorted(PLURIBUS.glob("pluribus_*.txt"))[:count]


def test_every_fixture_hand_reads_back_to_the_same_record_field_by_field() -> None:
    records = _records(FIXTURES / "ps_kinds.txt", FIXTURES / "gg_kinds.txt")
    assert len(records) == 16
    # What the round trip must cover: heads-up (reversed blinds), every carried field, house takes.
    assert any(len(r["players"]) == 2 for r in records)
    assert {k for r in records for k in r} >= CARRIED
    assert any(r["rake"] for r in records) and {r["variant"] for r in records} >= {"NT", "PO", "PO5", "PO/8", "FT", "NS"}
    for record in records:
        back = parse_phh(to_phh(record), name="whatever")
        assert back == record, record["hand_id"]
        assert HandRecord.model_validate_json(json.dumps(back)).model_dump() == HandRecord.model_validate_json(
            json.dumps(record)).model_dump()


def test_command_round_trip_on_real_pokerstars_and_ggpoker_hands(tmp_path: Path) -> None:
    folder = tmp_path / "hh"
    folder.mkdir()
    for path in _pluribus_files(6):
        (folder / path.name).symlink_to(path)  # read in place, never copied into the repo
    (folder / "gg_kinds.txt").symlink_to(FIXTURES / "gg_kinds.txt")
    (folder / "ps_kinds.txt").symlink_to(FIXTURES / "ps_kinds.txt")
    direct, phhs, back = tmp_path / "direct.jsonl", tmp_path / "hands.phhs", tmp_path / "back.jsonl"
    summary = tmp_path / "s.json"
    assert _import(folder, direct) == 0
    assert _import(folder, phhs, to="phh", summary=str(summary)) == 0
    assert _import(phhs, back) == 0
    want, got = _hands(direct), _hands(back)
    assert len(want) > 400 and got == want  # same hands, same order, every field equal
    assert {h["hand_id"][:3] for h in got} == {"ps-", "gg-"}
    total = json.loads(summary.read_text(encoding="utf-8"))["total"]
    assert total["to"] == "phh" and total["chat_lines"] == 2 and total["chat_lines_carried"] == 0
    assert tomllib.loads(phhs.read_text(encoding="utf-8"))[str(len(want))]["_hand_id"] == want[-1]["hand_id"]


def test_phh_out_wants_a_phhs_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(FIXTURES / "ps_kinds.txt", tmp_path / "one.phh", to="phh") == 2
    assert "--out must end in .phhs" in capsys.readouterr().err
    assert not (tmp_path / "one.phh").exists()


def test_strings_are_escaped_and_times_keep_their_microseconds() -> None:
    record = _records(FIXTURES / "ps_kinds.txt")[6]
    record = record | {"actions": [*record["actions"][:-1], record["actions"][-1] + ' # said "gg" \\ \x07 ok'],
                       "ts": "2023-03-01T20:10:00.250000+00:00", "started_at": "2023-03-01T20:00:00+00:00"}
    HandRecord.model_validate_json(json.dumps(record))  # still a valid record
    text = to_phh(record)
    assert "\\u0007" in text and 'time = 20:10:00.250000' in text
    assert parse_phh(text, name="x") == record


def test_sections_number_a_phhs_document_the_importer_reads_in_order() -> None:
    records = _records(FIXTURES / "gg_kinds.txt")
    text = "".join(to_phhs_section(k, r) for k, r in enumerate(records, start=1))
    assert parse_phh_all(text, name="doc") == records


def test_a_phh_file_from_elsewhere_still_gets_ids_from_its_hand_and_its_time_zone() -> None:
    text = ("variant = 'NT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [100, 100]\n"
            "actions = ['d dh p1 AcAd', 'd dh p2 KcKd', 'p2 f']\nhand = 7\nyear = 2024\nmonth = 7\nday = 1\n"
            "time = 12:00:00\ntime_zone = 'Europe/Paris'\n")
    record = parse_phh(text, name="f")
    assert (record["hand_id"], record["ts"], record["rake"]) == ("phh-7", "2024-07-01T10:00:00+00:00", 0)
    assert not CARRIED & set(record)
