"""Hand-offs flow: a decision releases the claim, take-over and reassign need a reason, all audited."""

from __future__ import annotations

import json

from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN, csrf_of, login_console

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _case(client, n: int = 1) -> str:
    r = client.post("/v1/findings/batch", json=batch(chat_finding(n, player=f"p-{n}")), headers=SVC)
    assert r.status_code == 200, r.text
    return r.json()["case_ids"][0]


def _audit(client, users, action: str) -> list[dict]:
    entries = client.get("/v1/audit", params={"limit": 200}, headers=users.headers("admin", "root")).json()
    return [{**e, "payload": json.loads(e["payload"])} for e in entries if e["action"] == action]


def test_confirm_hands_the_case_to_the_moderators_at_once(client, users):
    case_id = _case(client)
    ann, mod = users.headers("analyst", "ann"), users.headers("moderator", "mo")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "clear"}, headers=ann)
    assert r.status_code == 200
    case = client.get(f"/v1/cases/{case_id}", headers=mod).json()["case"]
    assert case["status"] == "confirmed" and case["assignee_id"] is None and case["claim_expires_at"] is None
    queue = client.get("/v1/cases", params={"status": "confirmed"}, headers=mod).json()["items"]
    assert [c["id"] for c in queue] == [case_id]
    # no waiting out the analyst's claim: the moderator claims and enforces straight away
    assert client.post(f"/v1/cases/{case_id}/claim", headers=mod).status_code == 200
    applied = client.post(f"/v1/cases/{case_id}/sanctions", json={}, headers=mod)
    assert applied.status_code == 200 and [s["kind"] for s in applied.json()] == ["chat_ban"]


def test_moderator_takes_over_a_live_claim_with_a_reason(client, users):
    case_id = _case(client)
    ann, mod = users.headers("analyst", "ann"), users.headers("moderator", "mo")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    taken = client.post(f"/v1/cases/{case_id}/claim", headers=mod)
    assert taken.status_code == 409 and "take it over" in taken.json()["detail"]
    assert client.post(f"/v1/cases/{case_id}/take-over", json={}, headers=mod).status_code == 422
    assert client.post(f"/v1/cases/{case_id}/take-over", json={"reason": "  "}, headers=mod).status_code == 422
    r = client.post(f"/v1/cases/{case_id}/take-over", json={"reason": "ann is off shift"}, headers=mod)
    assert r.status_code == 200, r.text
    me = client.get("/v1/auth/me", headers=mod).json()
    assert r.json()["assignee_id"] == me["user_id"]
    # ann's claim is gone: her decision is refused, the moderator's goes through
    late = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "dismiss", "reason": "x"}, headers=ann)
    assert late.status_code == 409
    ok = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "y"}, headers=mod)
    assert ok.status_code == 200
    [entry] = _audit(client, users, "case.take_over")
    assert entry["entity_id"] == case_id and entry["payload"]["reason"] == "ann is off shift"
    assert entry["payload"]["from_user_id"] is not None and entry["actor"] == "mo"


def test_analysts_cannot_take_over_and_escalated_cases_stay_with_seniors(client, users):
    case_id = _case(client)
    ann, bob, mod = users.headers("analyst", "ann"), users.headers("analyst", "bob"), users.headers("moderator", "mo")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    r = client.post(f"/v1/cases/{case_id}/take-over", json={"reason": "mine now"}, headers=bob)
    assert r.status_code == 403
    client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "escalate", "reason": "needs a senior"}, headers=ann)
    assert client.post(f"/v1/cases/{case_id}/take-over", json={"reason": "r"}, headers=mod).status_code == 403
    sen = users.headers("senior", "sen")
    assert client.post(f"/v1/cases/{case_id}/take-over", json={"reason": "r"}, headers=sen).status_code == 200
    assert _audit(client, users, "case.take_over")[0]["payload"]["from_user_id"] is None  # nobody held it


def test_reassign_needs_a_reason_and_a_reviewer_and_is_audited(client, users):
    case_id = _case(client)
    sen = users.headers("senior", "sen")
    users.token("analyst", "carol")
    users.token("admin", "root")
    people = {u["username"]: u for u in client.get("/v1/users", headers=users.headers("admin", "root")).json()}
    carol, root = people["carol"]["id"], people["root"]["id"]
    assert client.post(f"/v1/cases/{case_id}/reassign", json={"user_id": carol}, headers=sen).status_code == 422
    bad = client.post(f"/v1/cases/{case_id}/reassign", json={"user_id": root, "reason": "r"}, headers=sen)
    assert bad.status_code == 422 and "does not review" in bad.json()["detail"]
    r = client.post(f"/v1/cases/{case_id}/reassign", json={"user_id": carol, "reason": "language: hu"}, headers=sen)
    assert r.status_code == 200 and r.json()["assignee_id"] == carol
    [entry] = _audit(client, users, "case.reassign")
    assert entry["payload"] == {"from_user_id": None, "to_user_id": carol, "reason": "language: hu"}


def test_claims_and_releases_are_audited(client, users):
    case_id = _case(client)
    ann = users.headers("analyst", "ann")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    client.post(f"/v1/cases/{case_id}/release", headers=ann)
    assert [e["entity_id"] for e in _audit(client, users, "case.claim")] == [case_id]
    assert [e["actor"] for e in _audit(client, users, "case.release")] == ["ann"]


def test_console_offers_take_over_to_a_moderator(client, users):
    case_id = _case(client)
    client.post(f"/v1/cases/{case_id}/claim", headers=users.headers("analyst", "ann"))
    login_console(client, users, "moderator", "mo")
    html = client.get(f"/console/cases/{case_id}").text
    assert 'id="take-over"' in html and 'id="claim"' not in html
    csrf = csrf_of(html)
    r = client.post(f"/console/cases/{case_id}/take-over", data={"csrf": csrf, "reason": "shift change"},
                    follow_redirects=False)
    assert r.status_code == 303
    html = client.get(f"/console/cases/{case_id}").text
    assert "Release" in html and 'id="take-over"' not in html


def test_internal_notes_need_no_claim_move_nothing_and_are_audited(client, users):
    case_id = _case(client)
    ann, bob = users.headers("analyst", "ann"), users.headers("analyst", "bob")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    r = client.post(f"/v1/cases/{case_id}/notes", json={"text": "same player as last week's case"}, headers=bob)
    assert r.status_code == 200 and r.json()["kind"] == "note"
    assert client.post(f"/v1/cases/{case_id}/notes", json={"text": " "}, headers=bob).status_code == 422
    case = client.get(f"/v1/cases/{case_id}", headers=bob).json()
    assert case["case"]["status"] == "open" and case["case"]["assignee_id"] is not None  # ann keeps her claim
    assert [d["kind"] for d in case["decisions"]] == ["note"]
    assert [e["entity_id"] for e in _audit(client, users, "case.note")] == [case_id]
    # a note is not a vote: ann's dismissal of a non-collusion case still closes it
    client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "dismiss", "reason": "banter"}, headers=ann)
    assert client.get(f"/v1/cases/{case_id}", headers=bob).json()["case"]["status"] == "dismissed"
    assert client.post(f"/v1/cases/{case_id}/notes", json={"text": "closed, for the record"}, headers=bob).status_code == 200
    login_console(client, users, "analyst", "carol")
    html = client.get(f"/console/cases/{case_id}").text
    assert "internal note by bob: same player as last week&#39;s case" in html and 'id="add-note"' in html


def test_a_moderator_who_confirms_keeps_the_claim_to_enforce(client, users):
    case_id = _case(client)
    mod = users.headers("moderator", "mo")
    client.post(f"/v1/cases/{case_id}/claim", headers=mod)
    assert client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "r"},
                       headers=mod).status_code == 200
    body = {"kind": "chat_ban", "scope": "feature", "scope_value": "chat", "reason": "ban"}
    assert client.post(f"/v1/cases/{case_id}/sanctions", json=body, headers=mod).status_code == 200
