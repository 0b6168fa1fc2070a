"""`railbird models`: refusals and the registry's state from the command line (SQLite in a temp dir)."""

from __future__ import annotations

from pathlib import Path

import pytest

from railbird.cli import main


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAILBIRD_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("RAILBIRD_DATABASE_URL", raising=False)
    return tmp_path


def test_register_refuses_a_broken_file_with_the_reason(data_dir: Path, capsys: pytest.CaptureFixture[str]):
    junk = data_dir / "junk.skops"
    junk.write_bytes(b"not a model")
    assert main(["models", "register", str(junk)]) == 1
    assert "model artifact refused: not a skops chat model archive" in capsys.readouterr().err
    assert main(["models", "register", str(data_dir / "missing.skops")]) == 2
    assert main(["models", "register", str(junk), "--sha256", "0" * 64]) == 1
    assert "sha256 mismatch" in capsys.readouterr().err


def test_list_rollback_and_promote_say_what_is_in_force(data_dir: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["models", "list"]) == 0
    assert "in force: version 0 (shipped," in capsys.readouterr().out
    assert main(["models", "rollback", "--reason", "x"]) == 1
    assert "nothing to roll back" in capsys.readouterr().err
    assert main(["models", "promote", "3", "--reason", "x"]) == 1
    assert "no model version 3" in capsys.readouterr().err
