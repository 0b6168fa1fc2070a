"""Console data protection matches the API's: reviewers read chat text, an admin sees `[redacted]`
on the queue, case and appeals pages (ids stay); the admin's policy page changes the policy."""

from __future__ import annotations

import pytest
from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN
from api_support import csrf_of as _csrf
from api_support import login_console as _login

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}
SECRET = "meet me at 12 Elm Street, loser"


def _case_with_appeal(client, users) -> str:
    case_id = client.post("/v1/findings/batch", json=batch(chat_finding(1, player="p-vic", text=SECRET)),
                          headers=SVC).json()["case_ids"][0]
    sen = users.headers("senior", "sen_api")
    client.post(f"/v1/cases/{case_id}/claim", headers=sen)
    client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "dismiss", "reason": "banter about Elm Street"},
                headers=sen)
    r = client.post(f"/v1/cases/{case_id}/appeals", json={"statement": "appeal quoting Elm Street"}, headers=sen)
    assert r.status_code == 200, r.text
    return case_id


@pytest.mark.parametrize("role", ["analyst", "moderator", "senior", "admin"])
def test_console_shows_chat_text_only_to_reviewers(client, users, role):
    case_id = _case_with_appeal(client, users)
    _login(client, users, role=role, name=f"{role}_console")
    case_page = client.get(f"/console/cases/{case_id}").text
    queue = client.get("/console/?family=chat&status=appealed").text
    appeals = client.get("/console/appeals").text
    api_case = client.get(f"/v1/cases/{case_id}/evidence", headers=users.headers(role)).json()
    assert "p-vic" in case_page and "p-vic" in queue  # ids stay for every role that sees the record
    if role == "admin":
        for html in (case_page, queue, appeals):
            assert "Elm Street" not in html
        assert "[redacted]" in case_page and "[redacted]" in queue and "[redacted]" in appeals
        assert "<mark" not in case_page  # no highlight leaks the length or position of the text
        assert api_case["messages"][0]["text"] == "[redacted]"
    else:
        assert SECRET in case_page and "Elm Street" in queue and "appeal quoting Elm Street" in appeals
        assert "[redacted]" not in case_page
        assert api_case["messages"][0]["text"] == SECRET


def test_service_accounts_cannot_use_the_console(client, users):
    users.token("service", "gs_console", password="correct horse battery")
    nonce = _csrf(client.get("/console/login").text)
    r = client.post("/console/login", data={"csrf": nonce, "username": "gs_console",
                                            "password": "correct horse battery"}, follow_redirects=False)
    assert r.status_code == 401


def test_admin_changes_the_policy_on_its_console_page(client, users):
    csrf = _login(client, users, role="admin", name="adm_console")
    page = client.get("/console/admin/policy").text
    assert "revision 0" in page and "uk-2022-09-28" in page and "threshold_insult" in page
    r = client.post("/console/admin/policy", data={
        "csrf": csrf, "expected_revision": "0", "rules_version": "uk-2022-09-28", "auto_mute_minutes": "10",
        "threshold_hate": "0.5", "reason": "UK launch"}, follow_redirects=True)
    assert "Policy changed" in r.text and "revision 1" in r.text
    policy = client.get("/v1/policy", headers=SVC).json()
    assert (policy["rules_version"], policy["auto_mute_enabled"], policy["auto_mute_minutes"]) == \
        ("uk-2022-09-28", False, 10)
    assert policy["category_thresholds"] == {"hate": 0.5}
    bad = client.post("/console/admin/policy", data={"csrf": csrf, "expected_revision": "1",
                                                     "threshold_hate": "7", "reason": "typo"}, follow_redirects=True)
    assert "category_thresholds" in bad.text and client.get("/v1/policy", headers=SVC).json()["revision"] == 1
    forged = client.post("/console/admin/policy", data={"csrf": "forged", "reason": "x"})
    assert forged.status_code == 403


@pytest.mark.parametrize("role", ["analyst", "moderator", "senior"])
def test_only_admins_reach_the_policy_page(client, users, role):
    csrf = _login(client, users, role=role, name=f"{role}_pol")
    assert client.get("/console/admin/policy").status_code == 403
    assert client.post("/console/admin/policy", data={"csrf": csrf, "reason": "x"}).status_code == 403
    assert 'href="/console/admin/policy"' not in client.get("/console/").text


def test_case_page_shows_the_history_of_every_named_player(client, users):
    from test_api_players import collusion

    client.post("/v1/findings/batch", json=batch(chat_finding(3, player="p-receiver")), headers=SVC)
    r = client.post("/v1/findings/batch", json=batch(collusion(9, "p-dumper", "p-receiver")), headers=SVC)
    pair_case = r.json()["case_ids"][0]
    _login(client, users, role="analyst", name="ann_hist")
    page = client.get(f"/console/cases/{pair_case}").text
    assert "Player history · p-dumper" in page and "Player history · p-receiver" in page
    receiver = page.split("Player history · p-receiver")[1]
    assert receiver.count('href="/console/cases/') == 2, "the receiver's own chat case and the pair's case"
