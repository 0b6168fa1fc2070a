"""A sanction is in force from the moment it is applied, for its whole length, whatever the clocks.

Proposals carry a window computed at detection on the game server's clock; a late review, a
lagging consumer or a skewed server clock must never turn a confirmed sanction into one that is
over (or not yet begun) when a game server asks for what to enforce.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN, login_console
from sqlalchemy import select

from api.db import make_sessions
from api.outbox.models import OutboxEvent
from pipeline.contracts.enforcement import EnforcementEvent
from pipeline.findings import ActionProposal, Finding

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _with_window(finding: Finding, *, kind: str, scope: str, scope_value: str | None, length: timedelta | None,
                 starts_at: datetime | None = None) -> Finding:
    """The finding with its one proposal replaced by a `kind` sanction of `length` from `starts_at`."""
    old = finding.actions[0]
    start = starts_at or finding.ts
    action = ActionProposal(action_id=old.action_id, disposition=old.disposition, kind=kind,  # type: ignore[arg-type]
                            scope=scope, scope_value=scope_value,  # type: ignore[arg-type]
                            player_id=old.player_id, starts_at=start,
                            expires_at=None if length is None else start + length, reason=old.reason, rule=old.rule)
    return finding.model_copy(update={"actions": (action,)})


def _ingest(client, *findings: Finding) -> str:
    r = client.post("/v1/findings/batch", json=batch(*findings), headers=SVC)
    assert r.status_code == 200, r.text
    return r.json()["case_ids"][0]


def _events(engine) -> list[EnforcementEvent]:
    with make_sessions(engine)() as s:
        rows = s.scalars(select(OutboxEvent).order_by(OutboxEvent.seq))
        return [EnforcementEvent.model_validate_json(r.body) for r in rows]


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_restriction_confirmed_25_hours_late_is_in_force_for_its_full_24_hours(client, users, clock, engine):
    finding = _with_window(chat_finding(1, player="p-late"), kind="chat_ban", scope="feature", scope_value="chat",
                           length=timedelta(hours=24))
    case_id = _ingest(client, finding)
    clock.advance(hours=25)  # the review happens after the proposal's own window has ended
    mod = users.headers("moderator", "mo")
    assert client.post(f"/v1/cases/{case_id}/claim", headers=mod).status_code == 200
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "late", "apply": True},
                    headers=mod)
    assert r.status_code == 200, r.text
    [sanction] = r.json()["sanctions"]
    assert _ts(sanction["starts_at"]) == clock.now
    assert _ts(sanction["expires_at"]) == clock.now + timedelta(hours=24)
    assert sanction["state"] == "in_force"
    active = client.get("/v1/players/p-late/sanctions/active", headers=mod).json()["sanctions"]
    assert [s["id"] for s in active] == [sanction["id"]]
    [event] = _events(engine)
    assert event.data.starts_at == clock.now and event.data.expires_at == clock.now + timedelta(hours=24)
    clock.advance(hours=23, minutes=59)
    mod = users.headers("moderator", "mo")  # test tokens last two days
    assert client.get("/v1/players/p-late/sanctions/active", headers=mod).json()["sanctions"] != []
    clock.advance(minutes=2)
    assert client.get("/v1/players/p-late/sanctions/active", headers=mod).json()["sanctions"] == []
    assert client.get(f"/v1/sanctions/{sanction['id']}", headers=mod).json()["state"] == "expired"


def test_automatic_mute_from_a_server_clock_ahead_of_ours_starts_now(client, users, clock):
    # the game server's clock runs two hours ahead: its event (and the proposal) are dated in our future
    ahead = chat_finding(2, player="p-ahead", automatic=True)
    ahead = _with_window(ahead, kind="chat_mute", scope="feature", scope_value="chat",
                         length=timedelta(minutes=15), starts_at=clock.now + timedelta(hours=2))
    _ingest(client, ahead)
    active = client.get("/v1/players/p-ahead/sanctions/active", headers=users.headers("analyst")).json()["sanctions"]
    assert len(active) == 1
    assert _ts(active[0]["starts_at"]) == clock.now
    assert _ts(active[0]["expires_at"]) - _ts(active[0]["starts_at"]) == timedelta(minutes=15)


def test_automatic_mute_ingested_late_keeps_its_length(client, users, clock):
    behind = chat_finding(3, player="p-behind", automatic=True)  # dated T0+3 s, a 15-minute mute
    clock.advance(days=3)  # a consumer catching up on three days of backlog
    _ingest(client, behind)
    active = client.get("/v1/players/p-behind/sanctions/active", headers=users.headers("analyst")).json()["sanctions"]
    assert len(active) == 1 and active[0]["state"] == "in_force"
    assert _ts(active[0]["expires_at"]) == clock.now + timedelta(minutes=15)


def test_held_ban_starts_when_the_second_reviewer_approves(client, users, clock, engine):
    finding = _with_window(chat_finding(4, player="p-ban"), kind="account_ban", scope="account", scope_value=None,
                           length=timedelta(days=7))
    case_id = _ingest(client, finding)
    mod = users.headers("moderator", "mo")
    client.post(f"/v1/cases/{case_id}/claim", headers=mod)
    applied = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "r", "apply": True},
                          headers=mod).json()["sanctions"]
    assert [s["state"] for s in applied] == ["pending_review"]
    assert client.get("/v1/players/p-ban/sanctions/active", headers=mod).json()["sanctions"] == []
    clock.advance(days=3)
    senior = users.headers("senior", "sen")
    r = client.post(f"/v1/sanctions/{applied[0]['id']}/second-review", json={"approve": True, "reason": "ok"},
                    headers=senior)
    assert r.status_code == 200, r.text
    assert _ts(r.json()["starts_at"]) == clock.now
    assert _ts(r.json()["expires_at"]) == clock.now + timedelta(days=7)
    [event] = _events(engine)
    assert event.data.expires_at == clock.now + timedelta(days=7)
    clock.advance(days=6)
    assert len(client.get("/v1/players/p-ban/sanctions/active", headers=users.headers("moderator", "mo")).json()["sanctions"]) == 1


def test_permanent_proposal_stays_permanent_when_applied_late(client, users, clock):
    case_id = _ingest(client, chat_finding(5, player="p-perm"))  # the factory's proposal has no expiry
    clock.advance(days=40)
    mod = users.headers("moderator", "mo")
    client.post(f"/v1/cases/{case_id}/claim", headers=mod)
    [s] = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "r", "apply": True},
                      headers=mod).json()["sanctions"]
    assert s["expires_at"] is None and _ts(s["starts_at"]) == clock.now and s["state"] == "in_force"


def test_console_shows_the_state_game_servers_enforce(client, users, clock):
    case_id = _ingest(client, chat_finding(6, player="p-console", automatic=True))
    login_console(client, users, "analyst", "ann")
    html = client.get(f"/console/cases/{case_id}").text
    assert "in force" in html
    clock.advance(minutes=16)
    html = client.get(f"/console/cases/{case_id}").text
    assert "expired" in html and ">active<" not in html
