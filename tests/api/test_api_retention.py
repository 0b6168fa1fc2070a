"""Evidence retention runs inside the API process: evidence of cases closed longer ago than the
period disappears, recent and open cases keep theirs; off under env=test unless switched on."""

from __future__ import annotations

import json
import time

from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN
from fastapi.testclient import TestClient

from api.app import create_app, retention_job
from api.audit import service as audit
from api.db import make_sessions

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _close(client, users, player: str, text: str) -> str:
    case_id = client.post("/v1/findings/batch", json=batch(chat_finding(1, player=player, text=text)),
                          headers=SVC).json()["case_ids"][0]
    ann = users.headers("analyst")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    assert client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "dismiss", "reason": "banter"},
                       headers=ann).status_code == 200
    return case_id


def test_the_api_process_redacts_expired_evidence_and_keeps_the_rest(client, users, clock, engine, settings,
                                                                     app_config):
    old = _close(client, users, "p-old", "old insult idiot")
    clock.advance(days=20)
    recent = _close(client, users, "p-new", "recent insult idiot")
    client.post("/v1/findings/batch", json=batch(chat_finding(2, player="p-open", text="open insult idiot")),
                headers=SVC)
    clock.advance(days=15)  # old: closed 35 days ago; recent: 15 days ago
    on = settings.model_copy(update={"retention_days": 30, "retention_interval_s": 3600})
    app = create_app(settings=on, config=app_config, engine=engine, run_migrations=False, retention=True)
    with TestClient(app):
        job = app.state.retention
        deadline = time.monotonic() + 20
        while job.passes < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert job.passes == 1 and job.redacted == 1
    sen = users.headers("senior")
    old_case = json.dumps(client.get(f"/v1/cases/{old}", headers=sen).json())
    assert "old insult" not in old_case and "[expired]" in old_case
    assert client.get(f"/v1/cases/{old}", headers=sen).json()["decisions"][0]["reason"] == "banter"
    assert "recent insult idiot" in json.dumps(client.get(f"/v1/cases/{recent}", headers=sen).json())
    open_findings = client.get("/v1/findings", params={"player_id": "p-open"}, headers=sen).json()
    assert "open insult idiot" in json.dumps(open_findings)
    with make_sessions(engine)() as s:
        assert audit.verify(s).ok
        actions = [e.action for e in audit.list_entries(s, limit=100, offset=0)]
        assert actions.count("retention.redact") == 1


def test_retention_job_is_off_under_test_env_and_with_zero_days(settings, engine, app_config):
    sessions = make_sessions(engine)
    assert retention_job(settings, sessions, app_config, None) is None
    assert retention_job(settings.model_copy(update={"env": "production"}), sessions, app_config, None) is not None
    assert retention_job(settings, sessions, app_config, True) is not None
    zero = settings.model_copy(update={"retention_days": 0})
    assert retention_job(zero, sessions, app_config, True) is None
    assert retention_job(settings.model_copy(update={"retention_enabled": True}), sessions, app_config,
                         None) is not None
