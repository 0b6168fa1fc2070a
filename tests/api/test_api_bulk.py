"""Bulk close over the JSON API: a filter's cases in one step, one reason, a decision and audit entry each."""

from __future__ import annotations

import json

from api_factories import batch
from sqlalchemy import select
from test_api_queue import hit_and_run

from api.audit.models import AuditEntry
from api.db import make_sessions
from api.decisions.models import Decision

AUTO_HR = {"family": "seat", "status": "open", "automatic": True}


def _seed(client, users, n: int = 30) -> None:
    findings = [*(hit_and_run(i) for i in range(n)), hit_and_run(500, automatic=False)]
    r = client.post("/v1/findings/batch", json=batch(*findings), headers=users.headers("service"))
    assert r.status_code == 200, r.text


def test_moderator_closes_every_auto_blocked_hit_and_run_with_one_reason(client, users, engine):
    _seed(client, users)
    mod = users.headers("moderator", "mod_bulk")
    count = client.get("/v1/cases/counts", params=AUTO_HR, headers=mod).json()["statuses"]["open"]
    assert count == 30
    body = {"filter": AUTO_HR, "expected": count, "outcome": "actioned", "reason": "automatic blocks stand"}
    r = client.post("/v1/cases/bulk-close", json=body, headers=mod)
    assert r.status_code == 200, r.text
    result = r.json()
    assert len(result["closed"]) == 30 and result["skipped"] == []
    left = client.get("/v1/cases", params={"family": "seat"}, headers=mod).json()["items"]
    assert [c["subject_id"] for c in left] == ["p-hr500"]  # the one waiting for a person stays
    closed = client.get("/v1/cases", params={"family": "seat", "status": "actioned", "limit": 100}, headers=mod)
    assert len(closed.json()["items"]) == 30
    with make_sessions(engine)() as s:
        entries = list(s.scalars(select(AuditEntry).where(AuditEntry.action == "case.bulk_close")))
        decisions = list(s.scalars(select(Decision).where(Decision.kind == "confirm")))
    assert sorted(e.entity_id for e in entries) == sorted(result["closed"])
    payloads = [json.loads(e.payload) for e in entries]
    assert {p["bulk_id"] for p in payloads} == {result["bulk_id"]}
    assert {p["reason"] for p in payloads} == {"automatic blocks stand"}
    assert len(decisions) == 30
    verify = client.get("/v1/audit/verify", headers=users.headers("admin"))
    assert verify.status_code == 200 and verify.json()["ok"], verify.text


def test_a_selection_that_changed_since_the_user_looked_is_refused(client, users):
    _seed(client, users, n=5)
    mod = users.headers("moderator", "mod_bulk2")
    body = {"filter": AUTO_HR, "expected": 4, "outcome": "actioned", "reason": "stale"}
    r = client.post("/v1/cases/bulk-close", json=body, headers=mod)
    assert r.status_code == 409 and "5 cases match now" in r.json()["detail"]
    assert len(client.get("/v1/cases", params=AUTO_HR, headers=mod).json()["items"]) == 5


def test_cases_that_need_a_person_or_are_claimed_are_skipped(client, users):
    _seed(client, users, n=3)
    mod = users.headers("moderator", "mod_bulk3")
    ann = users.headers("analyst", "ann_bulk3")
    ids = {c["subject_id"]: c["id"] for c in
           client.get("/v1/cases", params={"family": "seat"}, headers=mod).json()["items"]}
    assert client.post(f"/v1/cases/{ids['p-hr0']}/claim", headers=ann).status_code == 200
    body = {"case_ids": list(ids.values()), "outcome": "actioned", "reason": "tidy up"}
    result = client.post("/v1/cases/bulk-close", json=body, headers=mod).json()
    skipped = {s["case_id"]: s["reason"] for s in result["skipped"]}
    assert "claimed by" in skipped[ids["p-hr0"]] and "wait for review" in skipped[ids["p-hr500"]]
    assert sorted(result["closed"]) == sorted([ids["p-hr1"], ids["p-hr2"]])
    dismiss = client.post("/v1/cases/bulk-close", json={**body, "case_ids": [ids["p-hr500"]], "outcome": "dismissed"},
                          headers=mod).json()
    assert dismiss["closed"] == [ids["p-hr500"]]


def test_analysts_cannot_bulk_close_and_bad_bodies_are_422(client, users):
    _seed(client, users, n=2)
    ann = users.headers("analyst", "ann_bulk4")
    body = {"filter": AUTO_HR, "expected": 2, "outcome": "actioned", "reason": "x"}
    assert client.post("/v1/cases/bulk-close", json=body, headers=ann).status_code == 403
    mod = users.headers("moderator", "mod_bulk4")
    for bad in ({**body, "expected": None}, {**body, "case_ids": ["a"]}, {**body, "outcome": "banned"},
                {**body, "reason": ""}, {**body, "filter": {"family": "poker"}}, {**body, "expected": 5000},
                {"case_ids": [], "outcome": "actioned", "reason": "x"}, {**body, "filter": {"colour": "red"}}):
        r = client.post("/v1/cases/bulk-close", json=bad, headers=mod)
        assert r.status_code == 422, (bad, r.status_code, r.text)
