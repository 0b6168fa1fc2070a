"""Ingestion contract: idempotency, grouping into cases, automatic sanctions with outbox rows."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from api_factories import T0, batch, chat_finding
from api_support import SERVICE_TOKEN
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from api.app import create_app
from api.cases.models import Case
from api.db import make_engine, make_sessions
from api.findings.models import FindingRow
from api.outbox.models import OutboxEvent
from pipeline.contracts.enforcement import EnforcementEvent

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def test_batch_is_idempotent_by_finding_id(client):
    body = batch(chat_finding(1), chat_finding(2))
    first = client.post("/v1/findings/batch", json=body, headers=SVC)
    assert first.status_code == 200, first.text
    assert first.json()["accepted"] == 2 and first.json()["duplicates"] == 0
    again = client.post("/v1/findings/batch", json=body, headers=SVC)
    assert again.json() == {"accepted": 0, "duplicates": 2, "case_ids": [], "sanction_ids": [], "shadow": 0}
    cases = client.get("/v1/cases", headers=SVC)
    assert cases.status_code == 403  # the service token may write findings, not read the queue


def test_duplicate_inside_one_batch_counts_once(client, users):
    f = chat_finding(1)
    r = client.post("/v1/findings/batch", json=batch(f, f), headers=SVC)
    assert r.json()["accepted"] == 1 and r.json()["duplicates"] == 1
    case = client.get(f"/v1/cases/{r.json()['case_ids'][0]}", headers=users.headers("analyst")).json()
    assert case["case"]["finding_count"] == 1


def test_grouping_same_player_family_incident_share_a_case(client, users):
    same = [chat_finding(i, player="p-bob", table="t-9") for i in range(3)]
    other_table = chat_finding(10, player="p-bob", table="t-8")
    other_player = chat_finding(11, player="p-carol", table="t-9")
    r = client.post("/v1/findings/batch", json=batch(*same, other_table, other_player), headers=SVC).json()
    assert r["accepted"] == 5
    assert len(r["case_ids"]) == 3
    h = users.headers("analyst")
    page = client.get("/v1/cases", params={"family": "chat"}, headers=h).json()["items"]
    counts = sorted((c["subject_id"], c["incident"], c["finding_count"]) for c in page)
    assert counts == [("p-bob", "table:t-8", 1), ("p-bob", "table:t-9", 3), ("p-carol", "table:t-9", 1)]


def test_tournament_wins_over_table_in_the_incident_key(client, users):
    a = chat_finding(1, table="t-1", tournament="mtt-7")
    b = chat_finding(2, table="t-2", tournament="mtt-7")
    r = client.post("/v1/findings/batch", json=batch(a, b), headers=SVC).json()
    assert len(r["case_ids"]) == 1


def test_automatic_action_becomes_active_sanction_and_outbox_event(client, engine, users, clock):
    clock.now = T0 + timedelta(minutes=5)  # inside the 15-minute mute
    f = chat_finding(1, automatic=True, kind="chat_mute")
    r = client.post("/v1/findings/batch", json=batch(f), headers=SVC).json()
    assert r["sanction_ids"] == [f.actions[0].action_id]
    active = client.get("/v1/players/p-alice/sanctions/active", headers=SVC).json()["sanctions"]
    assert [s["kind"] for s in active] == ["chat_mute"] and active[0]["automatic"] is True
    with make_sessions(engine)() as s:
        rows = list(s.scalars(select(OutboxEvent)))
    assert len(rows) == 1
    event = EnforcementEvent.model_validate_json(rows[0].body)
    assert event.type == "railbird.enforcement.chat_mute" and event.subject == "p-alice"
    assert event.data.case_id == r["case_ids"][0] and rows[0].published_at is None
    # Replaying the same finding creates no second sanction nor event.
    client.post("/v1/findings/batch", json=batch(f), headers=SVC)
    with make_sessions(engine)() as s:
        assert s.scalar(select(func.count()).select_from(OutboxEvent)) == 1
    clock.advance(minutes=20)  # after expiry the game servers no longer see it
    assert client.get("/v1/players/p-alice/sanctions/active", headers=SVC).json()["sanctions"] == []


def test_proposed_actions_wait_on_the_case(client, users):
    f = chat_finding(1)
    r = client.post("/v1/findings/batch", json=batch(f), headers=SVC).json()
    assert r["sanction_ids"] == []
    detail = client.get(f"/v1/cases/{r['case_ids'][0]}", headers=users.headers("analyst")).json()
    assert [(a["kind"], a["status"]) for a in detail["actions"]] == [("chat_ban", "pending")]
    assert client.get("/v1/players/p-alice/sanctions/active", headers=SVC).json()["sanctions"] == []


def test_invalid_findings_are_422_with_a_reason(client):
    good = chat_finding(1).model_dump(mode="json")
    extra = {**good, "surprise": 1}
    r = client.post("/v1/findings/batch", json={"findings": [extra]}, headers=SVC)
    assert r.status_code == 422 and "surprise" in r.text
    r = client.post("/v1/findings/batch", json={"findings": [good], "more": True}, headers=SVC)
    assert r.status_code == 422
    r = client.post("/v1/findings/batch", json={"findings": [{**good, "score": "high"}]}, headers=SVC)
    assert r.status_code == 422
    too_many = {"findings": [good] * 1001}
    assert client.post("/v1/findings/batch", json=too_many, headers=SVC).status_code in (413, 422)


def test_unstorable_text_is_refused_not_crashed(client):
    f = chat_finding(1, text="nul \x00 byte").model_dump(mode="json")
    r = client.post("/v1/findings/batch", json={"findings": [f]}, headers=SVC)
    assert r.status_code == 422 and "NUL" in r.text
    raw = json.dumps({"findings": [chat_finding(2).model_dump(mode="json")]}).replace("you are", "\\ud800 you")
    r = client.post("/v1/findings/batch", content=raw, headers={**SVC, "content-type": "application/json"})
    assert r.status_code == 422


def test_bad_tokens_are_401_and_wrong_role_403(client, users):
    body = batch(chat_finding(1))
    assert client.post("/v1/findings/batch", json=body).status_code == 401
    assert client.post("/v1/findings/batch", json=body, headers={"Authorization": "Bearer nope"}).status_code == 401
    assert client.post("/v1/findings/batch", json=body, headers=users.headers("admin")).status_code == 403


def test_database_down_is_503_with_retry_after(settings, app_config):
    dead = make_engine("postgresql+psycopg://postgres@127.0.0.1:1/none", connect_args={"connect_timeout": 1})
    app = create_app(settings=settings, config=app_config, engine=dead, run_migrations=False)
    with TestClient(app) as c:
        r = c.post("/v1/findings/batch", json=batch(chat_finding(1)), headers=SVC)
    assert r.status_code == 503 and r.headers["retry-after"].isdigit()


def test_concurrent_writers_store_each_finding_once(client):
    findings = [chat_finding(i, player=f"p-{i % 3}") for i in range(30)]
    body = batch(*findings)

    def post(_: int) -> dict:
        r = client.post("/v1/findings/batch", json=body, headers=SVC)
        assert r.status_code in (200, 503), r.text
        return r.json() if r.status_code == 200 else {"accepted": 0, "duplicates": 0, "retry": True}

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(post, range(4)))
    # Retry anything the database pushed back on (SQLite's single writer), as consumers do.
    while any(r.get("retry") for r in results):
        results = [post(0) if r.get("retry") else r for r in results]
    assert sum(r["accepted"] for r in results) == 30
    cases = {c for r in results for c in r.get("case_ids", [])}
    assert len(cases) == 3


def test_concurrent_batches_into_one_case_count_every_finding(client, engine):
    # Different findings of one player at one table: one open case, written by several batches at
    # once. Its counter is read and written back, so without the write lock (SQLite) or the row
    # lock (PostgreSQL) two batches can both add to the same old value and lose a count.
    batches = [batch(*(chat_finding(b * 10 + i, player="p-one") for i in range(10))) for b in range(8)]

    def post(body: dict) -> None:
        while True:
            r = client.post("/v1/findings/batch", json=body, headers=SVC)
            if r.status_code == 200:
                return
            assert r.status_code == 503, r.text  # the database pushed back: retry, as consumers do

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(post, batches))
    sessions = make_sessions(engine)
    with sessions() as s:
        rows = s.execute(select(Case.id, Case.finding_count)).all()
        stored = s.scalar(select(func.count()).select_from(FindingRow))
    assert stored == 80
    assert [count for _, count in rows] == [80]
