"""A collusion case sanctions every colluder: one proposal and one sanction (and event) per player."""

from __future__ import annotations

from api_factories import T0, batch
from api_support import SERVICE_TOKEN

from pipeline.findings import Finding, stable_id
from pipeline.policy import propose_actions
from pipeline.rules import RulesConfig

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _dump_case(client) -> str:
    f = Finding(finding_id=stable_id("fnd", "dump"), detector="hand.chip_dumping", rule="collusion", family="hand",
                category="chip_dumping", score=0.95, players=("p-dumper", "p-receiver"), ts=T0,
                table_id="t-9", summary="p-dumper lost 40 bb to p-receiver in 3 hands")
    f = f.with_actions(propose_actions(f, rules=RulesConfig()))
    r = client.post("/v1/findings/batch", json=batch(f), headers=SVC)
    assert r.status_code == 200, r.text
    return r.json()["case_ids"][0]


def test_both_colluders_are_sanctioned_and_announced(client, users):
    case_id = _dump_case(client)
    mod = users.headers("moderator", "mo")
    actions = client.get(f"/v1/cases/{case_id}", headers=mod).json()["actions"]
    assert sorted((a["player_id"], a["role"]) for a in actions) == [("p-dumper", "offender"), ("p-receiver", "partner")]
    client.post(f"/v1/cases/{case_id}/claim", headers=mod)
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "dump", "apply": True},
                    headers=mod)
    assert sorted(s["player_id"] for s in r.json()["sanctions"]) == ["p-dumper", "p-receiver"]
    for player in ("p-dumper", "p-receiver"):
        active = client.get(f"/v1/players/{player}/sanctions/active", headers=mod).json()["sanctions"]
        assert [s["kind"] for s in active] == ["account_suspension"]
    events = client.get("/v1/events", headers=mod).json()
    assert sorted(e["event"]["subject"] for e in events) == ["p-dumper", "p-receiver"]


def test_a_custom_sanction_may_target_a_named_partner_only(client, users):
    case_id = _dump_case(client)
    mod = users.headers("moderator", "mo")
    client.post(f"/v1/cases/{case_id}/claim", headers=mod)
    client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "dump"}, headers=mod)
    client.post(f"/v1/cases/{case_id}/claim", headers=mod)
    body = {"kind": "table_block", "scope": "table", "scope_value": "t-9", "reason": "keep them apart"}
    stranger = client.post(f"/v1/cases/{case_id}/sanctions", json={**body, "player_id": "p-nobody"}, headers=mod)
    assert stranger.status_code == 422 and "not named" in stranger.json()["detail"]
    r = client.post(f"/v1/cases/{case_id}/sanctions", json={**body, "player_id": "p-receiver"}, headers=mod)
    assert r.status_code == 200, r.text
    assert [s["player_id"] for s in r.json()] == ["p-receiver"]


def test_a_place_scoped_custom_sanction_must_name_the_place(client, users):
    case_id = _dump_case(client)
    mod = users.headers("moderator", "mo")
    client.post(f"/v1/cases/{case_id}/claim", headers=mod)
    client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "dump"}, headers=mod)
    body = {"kind": "tournament_disqualification", "scope": "tournament", "reason": "bounty deal"}
    r = client.post(f"/v1/cases/{case_id}/sanctions", json=body, headers=mod)
    assert r.status_code == 422 and "needs scope_value" in r.json()["detail"]
    ok = client.post(f"/v1/cases/{case_id}/sanctions", json={**body, "scope_value": "mtt-9"}, headers=mod)
    assert ok.status_code == 200 and ok.json()[0]["scope_value"] == "mtt-9"
