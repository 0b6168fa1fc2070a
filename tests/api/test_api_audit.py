"""Audit chain: every decision/sanction/revocation/role change is chained; tampering is detected."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN
from sqlalchemy import text

from railbird.commands import audit as audit_cmd
from railbird.settings import Settings

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _activity(client, users) -> None:
    mod = users.headers("moderator")
    for i in range(3):
        case_id = client.post("/v1/findings/batch", json=batch(chat_finding(i, player=f"p-{i}")),
                              headers=SVC).json()["case_ids"][0]
        client.post(f"/v1/cases/{case_id}/claim", headers=mod)
        client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": f"r{i}", "apply": True},
                    headers=mod)


def _verify(engine, capsys) -> tuple[int, str]:
    url = engine.url.render_as_string(hide_password=False)
    code = audit_cmd.run(argparse.Namespace(action="verify"), Settings(env="test", database_url=url))
    return code, capsys.readouterr().out


def test_chain_verifies_and_names_the_tampered_entry(client, users, engine, capsys):
    _activity(client, users)
    adm = users.headers("admin")
    entries = client.get("/v1/audit", params={"limit": 200}, headers=adm).json()
    actions = [e["action"] for e in entries]
    assert actions.count("decision.confirm") == 3 and actions.count("sanction.create") == 3
    assert client.get("/v1/audit/verify", headers=adm).json()["ok"] is True
    code, out = _verify(engine, capsys)
    assert code == 0 and f"{len(entries)} entries" in out
    target = sorted(e["seq"] for e in entries if e["action"] == "decision.confirm")[1]
    with engine.begin() as conn:
        conn.execute(text("UPDATE audit_log SET payload = :p WHERE seq = :s"), {"p": '{"reason":"edited"}', "s": target})
    code, out = _verify(engine, capsys)
    assert code == 1 and f"seq={target}" in out and "hash does not match" in out
    body = client.get("/v1/audit/verify", headers=adm).json()
    assert body["ok"] is False and body["bad_seq"] == target


def test_deleting_an_entry_breaks_the_link(client, users, engine, capsys):
    _activity(client, users)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM audit_log WHERE seq = 2"))
    code, out = _verify(engine, capsys)
    assert code == 1 and "seq=3" in out and "prev_hash" in out


def test_cli_exit_code(tmp_path):
    env = {**os.environ, "RAILBIRD_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}", "RAILBIRD_ENV": "test"}
    seed = subprocess.run([sys.executable, "-m", "railbird.cli", "admin", "seed-demo"], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert seed.returncode == 0 and "moderator" in seed.stdout, seed.stderr
    ok = subprocess.run([sys.executable, "-m", "railbird.cli", "audit", "verify"], env=env,
                        capture_output=True, text=True, timeout=60, check=False)
    assert ok.returncode == 0 and "4 entries" in ok.stdout
    import sqlite3

    with sqlite3.connect(tmp_path / "cli.db") as conn:
        conn.execute("UPDATE audit_log SET actor = 'mallory' WHERE seq = 2")
    bad = subprocess.run([sys.executable, "-m", "railbird.cli", "audit", "verify"], env=env,
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 1 and "seq=2" in bad.stdout
    prod = subprocess.run([sys.executable, "-m", "railbird.cli", "admin", "seed-demo"],
                          env={**env, "RAILBIRD_ENV": "production"}, capture_output=True, text=True, timeout=60,
                          check=False)
    assert prod.returncode == 1 and "production" in prod.stderr
