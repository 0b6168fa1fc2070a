"""The `railbird` command line: schemas are in sync and replay works end to end on a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.contracts import CHAT
from pipeline.replay import envelope_line
from railbird.cli import main
from tests.samples import chat_value


def test_checked_in_schemas_match_the_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schemas", "--check"]) == 0
    assert "matches" in capsys.readouterr().out


def test_schemas_check_fails_on_a_stale_file(tmp_path: Path) -> None:
    assert main(["schemas", "--out", str(tmp_path)]) == 0
    victim = next(tmp_path.glob("chat.messages*.json"))
    victim.write_text("{}", encoding="utf-8")
    assert main(["schemas", "--check", "--out", str(tmp_path)]) == 1


def test_replay_command_prints_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(
        "\n".join([envelope_line(CHAT, chat_value(text="baszd meg")), "{broken"]) + "\n", encoding="utf-8"
    )
    assert main(["replay", str(path)]) == 0
    kinds = [json.loads(line)["kind"] for line in capsys.readouterr().out.splitlines()]
    assert "finding" in kinds
    assert kinds[-1] == "dead_letter"


def test_replay_of_a_missing_file_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "/nonexistent/events.jsonl"]) == 2
    assert "no such file" in capsys.readouterr().err
