"""Review workflow: queue order, exclusive claims, decisions, second review, revocation, appeals."""

from __future__ import annotations

from datetime import timedelta

from api_factories import T0, batch, chat_finding
from api_support import SERVICE_TOKEN
from sqlalchemy import select

from api.db import make_sessions
from api.outbox.models import OutboxEvent
from pipeline.contracts.enforcement import EnforcementEvent

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _case(client, *findings) -> str:
    r = client.post("/v1/findings/batch", json=batch(*findings), headers=SVC)
    assert r.status_code == 200, r.text
    return r.json()["case_ids"][0]


def _events(engine) -> list[EnforcementEvent]:
    with make_sessions(engine)() as s:
        return [EnforcementEvent.model_validate_json(r.body) for r in s.scalars(select(OutboxEvent).order_by(OutboxEvent.seq))]


def test_queue_orders_by_priority_then_age_and_pages_by_cursor(client, users, clock):
    low = chat_finding(1, player="p-low", score=0.5)
    high = chat_finding(2, player="p-high", score=0.99, category="threat")
    _case(client, low)
    clock.advance(minutes=1)
    _case(client, high)
    clock.advance(minutes=1)
    _case(client, chat_finding(3, player="p-low2", score=0.5))
    h = users.headers("analyst")
    page1 = client.get("/v1/cases", params={"family": "chat", "limit": 2}, headers=h).json()
    assert [c["subject_id"] for c in page1["items"]] == ["p-high", "p-low"]
    page2 = client.get("/v1/cases", params={"family": "chat", "limit": 2, "cursor": page1["next_cursor"]},
                       headers=h).json()
    assert [c["subject_id"] for c in page2["items"]] == ["p-low2"] and page2["next_cursor"] is None
    assert page1["items"][1]["sla_age_s"] == 120
    assert client.get("/v1/cases", params={"family": "seat"}, headers=h).json()["items"] == []
    assert client.get("/v1/cases", params={"cursor": "!!"}, headers=h).status_code == 422


def test_claims_are_exclusive_and_expire(client, users, clock):
    case_id = _case(client, chat_finding(1))
    ann, bob = users.headers("analyst", "ann"), users.headers("analyst", "bob")
    assert client.post(f"/v1/cases/{case_id}/claim", headers=ann).status_code == 200
    taken = client.post(f"/v1/cases/{case_id}/claim", headers=bob)
    assert taken.status_code == 409 and "claimed by" in taken.json()["detail"]
    # bob cannot decide a case he has not claimed
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "dismiss", "reason": "x"}, headers=bob)
    assert r.status_code == 409
    clock.advance(minutes=31)
    stale = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "dismiss", "reason": "ok"}, headers=ann)
    assert stale.status_code == 409 and "expired" in stale.json()["detail"]
    assert client.post(f"/v1/cases/{case_id}/claim", headers=bob).status_code == 200


def test_analyst_confirms_moderator_applies_event_written(client, users, engine):
    case_id = _case(client, chat_finding(1), chat_finding(2))
    ann, mod = users.headers("analyst", "ann"), users.headers("moderator", "mo")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "clear insult", "apply": True},
                    headers=ann)
    assert r.status_code == 403  # analysts decide, they do not enforce
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "clear insult"}, headers=ann)
    assert r.status_code == 200 and r.json()["sanctions"] == []
    assert _events(engine) == []
    client.post(f"/v1/cases/{case_id}/release", headers=ann)
    assert client.post(f"/v1/cases/{case_id}/sanctions", json={}, headers=ann).status_code == 403
    client.post(f"/v1/cases/{case_id}/claim", headers=mod)
    applied = client.post(f"/v1/cases/{case_id}/sanctions", json={}, headers=mod)
    assert applied.status_code == 200, applied.text
    # two findings proposed the same chat ban: one sanction
    assert [s["kind"] for s in applied.json()] == ["chat_ban"]
    assert [e.type for e in _events(engine)] == ["railbird.enforcement.chat_ban"]
    detail = client.get(f"/v1/cases/{case_id}", headers=ann).json()
    assert detail["case"]["status"] == "actioned" and detail["case"]["assignee_id"] is None
    again = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "dismiss", "reason": "x"}, headers=mod)
    assert again.status_code == 409 and "closed" in again.json()["detail"]


def test_dismiss_closes_case_and_new_findings_open_a_new_one(client, users):
    case_id = _case(client, chat_finding(1))
    ann = users.headers("analyst")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "dismiss", "reason": "banter"}, headers=ann)
    assert r.status_code == 200
    new_case = _case(client, chat_finding(2))
    assert new_case != case_id


def test_escalate_and_hold(client, users):
    case_id = _case(client, chat_finding(1))
    ann, sen = users.headers("analyst"), users.headers("senior")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    before = client.get(f"/v1/cases/{case_id}", headers=ann).json()["case"]["priority"]
    client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "escalate", "reason": "unsure"}, headers=ann)
    case = client.get(f"/v1/cases/{case_id}", headers=ann).json()["case"]
    assert case["status"] == "escalated" and case["priority"] > before and case["assignee_id"] is None
    assert client.post(f"/v1/cases/{case_id}/claim", headers=ann).status_code == 403
    assert client.post(f"/v1/cases/{case_id}/claim", headers=sen).status_code == 200
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "hold", "reason": "waiting"}, headers=sen)
    assert r.json()["decision"]["kind"] == "hold"
    queue = client.get("/v1/cases", params={"status": "on_hold"}, headers=ann).json()["items"]
    assert [c["id"] for c in queue] == [case_id]


def test_account_ban_waits_for_a_second_senior(client, users, engine, clock):
    case_id = _case(client, chat_finding(1, kind="account_ban"))
    s1, s2 = users.headers("senior", "sen1"), users.headers("senior", "sen2")
    client.post(f"/v1/cases/{case_id}/claim", headers=s1)
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "r", "apply": True},
                    headers=s1)
    sanction = r.json()["sanctions"][0]
    assert sanction["status"] == "pending_review" and _events(engine) == []
    assert client.get("/v1/players/p-alice/sanctions/active", headers=SVC).json()["sanctions"] == []
    own = client.post(f"/v1/sanctions/{sanction['id']}/second-review", json={"approve": True, "reason": "ok"}, headers=s1)
    assert own.status_code == 409
    ok = client.post(f"/v1/sanctions/{sanction['id']}/second-review", json={"approve": True, "reason": "ok"}, headers=s2)
    assert ok.json()["status"] == "active"
    assert [e.type for e in _events(engine)] == ["railbird.enforcement.account_ban"]
    assert len(client.get("/v1/players/p-alice/sanctions/active", headers=SVC).json()["sanctions"]) == 1


def test_revocation_emits_a_revocation_event(client, users, engine, clock):
    clock.now = T0 + timedelta(minutes=1)
    f = chat_finding(1, automatic=True, kind="chat_mute")
    sid = client.post("/v1/findings/batch", json=batch(f), headers=SVC).json()["sanction_ids"][0]
    mod = users.headers("moderator")
    assert client.post(f"/v1/sanctions/{sid}/revoke", json={"reason": "false positive"},
                       headers=users.headers("analyst")).status_code == 403
    r = client.post(f"/v1/sanctions/{sid}/revoke", json={"reason": "false positive"}, headers=mod)
    assert r.json()["status"] == "revoked"
    events = _events(engine)
    assert [e.type for e in events] == ["railbird.enforcement.chat_mute", "railbird.enforcement.chat_mute.revoked"]
    assert events[1].data.event_kind == "revocation" and events[0].id != events[1].id
    assert client.post(f"/v1/sanctions/{sid}/revoke", json={"reason": "x"}, headers=mod).status_code == 409
    assert client.get("/v1/players/p-alice/sanctions/active", headers=SVC).json()["sanctions"] == []


def test_appeal_reopens_with_evidence_and_overturn_revokes(client, users, engine):
    case_id = _case(client, chat_finding(1))
    mod, sen = users.headers("moderator"), users.headers("senior")
    client.post(f"/v1/cases/{case_id}/claim", headers=mod)
    client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "r", "apply": True}, headers=mod)
    assert client.post(f"/v1/cases/{case_id}/appeals", json={"statement": "I was joking"}, headers=mod).status_code == 403
    appeal = client.post(f"/v1/cases/{case_id}/appeals", json={"statement": "I was joking"}, headers=sen)
    assert appeal.status_code == 200
    detail = client.get(f"/v1/cases/{case_id}", headers=mod).json()
    assert detail["case"]["status"] == "appealed" and len(detail["findings"]) == 1
    assert client.post(f"/v1/cases/{case_id}/appeals", json={"statement": "again"}, headers=sen).status_code == 409
    r = client.post(f"/v1/appeals/{appeal.json()['id']}/resolve", json={"outcome": "overturned", "reason": "context"},
                    headers=sen)
    assert r.json()["status"] == "overturned"
    assert client.get(f"/v1/cases/{case_id}", headers=mod).json()["case"]["status"] == "dismissed"
    assert [e.data.event_kind for e in _events(engine)] == ["sanction", "revocation"]


def test_player_history_and_detector_stats(client, users, clock):
    case_id = _case(client, chat_finding(1, player="p-zed"))
    _case(client, chat_finding(2, player="p-other"))
    ann = users.headers("analyst")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    clock.advance(hours=2)
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "r"}, headers=ann)
    hist = client.get("/v1/players/p-zed", headers=ann).json()
    assert len(hist["findings"]) == 1 and hist["cases"][0]["status"] == "confirmed"
    stats = client.get("/v1/stats/detectors", headers=ann).json()
    assert stats == [{"detector": "chat.banned_words", "findings": 2, "cases": 2, "confirmed": 1, "dismissed": 0,
                      "confirm_rate": 1.0, "median_hours_to_decision": 2.0}]


def test_evidence_merges_messages_and_replays_hands(client, users):
    case_id = _case(client, chat_finding(1, text="<script>alert(1)</script>"))
    ev = client.get(f"/v1/cases/{case_id}/evidence", headers=users.headers("analyst")).json()
    assert ev["messages"][0]["text"] == "<script>alert(1)</script>"
    assert ev["messages"][0]["spans"] == [{"start": 13, "end": 18, "label": "insult"}]
    assert ev["hands"] == []


def test_concurrent_claims_have_exactly_one_winner(client, users):
    from concurrent.futures import ThreadPoolExecutor

    case_id = _case(client, chat_finding(1))
    headers = [users.headers("analyst", f"racer{i}") for i in range(6)]
    with ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(lambda h: client.post(f"/v1/cases/{case_id}/claim", headers=h).status_code, headers))
    assert codes.count(200) == 1 and all(c in (409, 503) for c in codes if c != 200), codes
