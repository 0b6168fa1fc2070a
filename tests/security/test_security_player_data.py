"""`railbird player export | erase | purge-expired`: access, erasure with pseudonyms (the audit
chain still verifies), and retention of raw evidence."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, text

from api.audit import service as audit
from api.db import make_sessions
from api.ids import utc_now
from api.privacy.players import pseudonym, redact_expired
from pipeline.findings import ActionProposal
from railbird.commands import player as player_cmd
from railbird.settings import Settings
from tests.api.api_factories import batch, chat_finding
from tests.security.conftest import SERVICE_TOKEN

SERVICE = {"Authorization": f"Bearer {SERVICE_TOKEN}"}
SECRET = "call me on 555-0199, idiot"


def _seed(client) -> None:
    mine = chat_finding(1, player="p-erase", text=SECRET, automatic=True, kind="chat_mute")
    ban = chat_finding(2, player="p-erase", text="second insult", category="hate")
    ban = ban.with_actions((ActionProposal(
        action_id="act-ban-0001", disposition="automatic", kind="chat_ban", scope="feature",
        scope_value="chat", player_id="p-erase", starts_at=ban.ts, expires_at=datetime(2099, 1, 1, tzinfo=UTC),
        reason="hate in chat", rule="chat.3"),))
    # Someone else's finding quoting p-erase's line: only p-erase's words go.
    other = chat_finding(3, player="p-other", text="you too", table="t-9").model_dump(mode="json")
    other["evidence"]["messages"].append({"event_id": "m-x", "ts": other["ts"], "player_id": "p-erase",
                                          "nickname": "Eraser", "channel": "table", "text": SECRET, "spans": []})
    other["evidence"]["victims"] = ["p-erase"]
    body = batch(mine, ban)
    body["findings"].append(other)
    assert client.post("/v1/findings/batch", json=body, headers=SERVICE).status_code == 200


def _cmd(engine: Engine, capsys, *argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    player_cmd.add_arguments(parser)
    settings = Settings(env="test", database_url=str(engine.url), service_token=SERVICE_TOKEN)
    code = player_cmd.run(parser.parse_args(list(argv)), settings)
    return code, capsys.readouterr().out


def _dump(engine: Engine) -> str:
    with engine.connect() as conn:
        tables = [r[0] for r in conn.execute(text("SELECT name FROM sqlite_master WHERE type='table'"))]
        return "\n".join(json.dumps([list(map(str, row)) for row in conn.execute(text(f'SELECT * FROM "{t}"'))])
                         for t in tables if t != "audit_log")


def test_export_then_erase_keeps_sanctions_under_a_pseudonym(client, engine: Engine, capsys) -> None:
    _seed(client)
    code, out = _cmd(engine, capsys, "export", "p-erase")
    exported = json.loads(out)
    assert code == 0 and len(exported["findings"]) == 3 and len(exported["sanctions"]) == 2
    assert SECRET in out and exported["audit_entries"], "export holds the text and the audit trail"

    code, _ = _cmd(engine, capsys, "erase", "p-erase")
    assert code == 1, "a sanction in force blocks erasure without --force"
    code, out = _cmd(engine, capsys, "erase", "p-erase", "--force")
    alias = pseudonym("p-erase", key=SERVICE_TOKEN)
    assert code == 0 and alias in out

    stored = _dump(engine)
    assert "p-erase" not in stored and SECRET not in stored and "Eraser" not in stored
    assert "you too" in stored, "the other player's own words stay"
    with engine.connect() as conn:
        kinds = sorted(r[0] for r in conn.execute(text("SELECT kind FROM sanctions WHERE player_id = :a"), {"a": alias}))
    assert kinds == ["chat_ban", "chat_mute"], "sanctions kept for the record, under the pseudonym"
    with make_sessions(engine)() as session:
        report = audit.verify(session)
    assert report.ok, report.problem
    code, out = _cmd(engine, capsys, "export", "p-erase")
    assert json.loads(out)["findings"] == [] and json.loads(out)["sanctions"] == []
    assert len(json.loads(_cmd(engine, capsys, "export", alias)[1])["sanctions"]) == 2


def test_retention_redacts_closed_cases_only_after_the_period(client, engine: Engine, login_as, capsys) -> None:
    _seed(client)
    moderator = login_as("mod", "moderator")
    case_id = client.get("/v1/cases", params={"subject_id": "p-other"}, headers=moderator).json()["items"][0]["id"]
    assert client.post(f"/v1/cases/{case_id}/claim", headers=moderator).status_code == 200
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "dismiss", "reason": "banter"}, headers=moderator)
    assert r.status_code == 200, r.text
    with make_sessions(engine)() as session:
        assert redact_expired(session, days=30, now=utc_now()) == 0, "closed today: kept"
        assert redact_expired(session, days=30, now=utc_now() + timedelta(days=31)) == 1
        assert redact_expired(session, days=30, now=utc_now() + timedelta(days=32)) == 0, "idempotent"
        assert audit.verify(session).ok
    detail = client.get(f"/v1/cases/{case_id}", headers=moderator).json()
    assert "you too" not in json.dumps(detail) and detail["decisions"][0]["reason"] == "banter"
    assert detail["findings"][0]["finding_id"], "ids and decisions stay"
    open_text = json.dumps(client.get("/v1/findings", params={"player_id": "p-erase"}, headers=moderator).json())
    assert SECRET in open_text, "open cases keep their evidence"


def test_purge_expired_command_reads_the_setting(engine: Engine, capsys) -> None:
    code, out = _cmd(engine, capsys, "purge-expired", "--days", "0")
    assert code == 0 and "retention is off" in out
    code, out = _cmd(engine, capsys, "purge-expired")
    assert code == 0 and "more than 365 days" in out, "RAILBIRD_RETENTION_DAYS defaults to a year"
    code, out = _cmd(engine, capsys, "purge-expired", "--days", "7")
    assert code == 0 and "0 findings" in out
