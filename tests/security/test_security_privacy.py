"""Data protection: reviewers read chat; admins see the same records with player-written text
redacted; game servers (service) cannot reach chat at all."""

from __future__ import annotations

from api.privacy.policy import REDACTED, redact
from tests.api.api_factories import batch, chat_finding
from tests.security.conftest import SERVICE_TOKEN

SECRET_TEXT = "my phone is 555-0100, you idiot"
SERVICE = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _ingest(client) -> str:
    r = client.post("/v1/findings/batch", json=batch(chat_finding(1, player="p-priv", text=SECRET_TEXT,
                                                                   automatic=True, kind="chat_mute")),
                    headers=SERVICE)
    assert r.status_code == 200, r.text
    return str(r.json()["case_ids"][0])


def test_reviewers_see_chat_admins_do_not(client, login_as) -> None:
    case_id = _ingest(client)
    analyst, admin = login_as("ana", "analyst"), login_as("adm", "admin")
    paths = ["/v1/findings", f"/v1/cases/{case_id}", f"/v1/cases/{case_id}/evidence", "/v1/players/p-priv",
             "/v1/cases"]
    for path in paths:
        seen = client.get(path, headers=analyst)
        shaped = client.get(path, headers=admin)
        assert seen.status_code == shaped.status_code == 200, path
        assert "p-priv" in shaped.text, f"{path}: ids stay visible to admins"
        assert SECRET_TEXT not in shaped.text and "Alice" not in shaped.text, f"{path}: redacted for admins"
        assert int(shaped.headers["content-length"]) == len(shaped.content)
    assert SECRET_TEXT in client.get(f"/v1/cases/{case_id}/evidence", headers=analyst).text
    assert REDACTED in client.get(f"/v1/cases/{case_id}/evidence", headers=admin).text


def test_service_reads_sanctions_but_not_chat(client) -> None:
    _ingest(client)
    assert client.get("/v1/findings", headers=SERVICE).status_code == 403
    assert client.get("/v1/players/p-priv", headers=SERVICE).status_code == 403
    assert client.get("/v1/players/p-priv/sanctions/active", headers=SERVICE).status_code == 200
    sanctions = client.get("/v1/sanctions", params={"player_id": "p-priv"}, headers=SERVICE)
    assert sanctions.status_code == 200 and SECRET_TEXT not in sanctions.text
    assert "chat_mute" in sanctions.text


def test_redact_keeps_structure_and_ids() -> None:
    doc = {"finding_id": "f1", "players": ["p1"], "evidence": {"messages": [
        {"event_id": "e1", "player_id": "p1", "nickname": "Nick", "text": "hi", "spans": [{"start": 0, "end": 2}]}]},
        "summary": "insult: hi", "score": 0.9}
    out = redact(doc)
    assert out["evidence"]["messages"][0] == {"event_id": "e1", "player_id": "p1", "nickname": REDACTED,
                                              "text": REDACTED, "spans": [{"start": 0, "end": 2}]}
    assert out["summary"] == REDACTED and out["finding_id"] == "f1" and out["score"] == 0.9
    assert doc["summary"] == "insult: hi", "the input is not modified"
