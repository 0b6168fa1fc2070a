"""Console over HTTP: login, CSRF, escaping of evidence, security headers, forms driving the workflow."""

from __future__ import annotations

import re

from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN, csrf_of, login_console

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}
XSS = '<script>alert("x")</script><img src=x onerror=alert(1)> idiot'


def test_anonymous_is_sent_to_login_and_headers_are_strict(client):
    r = client.get("/console/", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/console/login"
    page = client.get("/console/login")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert page.headers["x-frame-options"] == "DENY" and page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    assert "<script>" not in page.text.replace('<script src="/console/static/console.js" defer></script>', "")


def test_login_needs_the_login_csrf_and_a_right_password(client, users):
    users.token("analyst", "ann", password="correct horse battery")
    client.get("/console/login")
    r = client.post("/console/login", data={"csrf": "forged", "username": "ann", "password": "correct horse battery"})
    assert r.status_code == 403
    nonce = csrf_of(client.get("/console/login").text)
    r = client.post("/console/login", data={"csrf": nonce, "username": "ann", "password": "nope"})
    assert r.status_code == 401 and "wrong username or password" in r.text


def test_evidence_is_escaped_and_spans_highlighted(client, users):
    f = chat_finding(1, text=XSS)
    case_id = client.post("/v1/findings/batch", json=batch(f), headers=SVC).json()["case_ids"][0]
    login_console(client, users)
    page = client.get(f"/console/cases/{case_id}").text
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page
    assert re.search(r'<mark title="insult">[^<]*</mark>', page)
    assert "Chat policy 1.3" in page  # the house rule is cited


def test_posts_without_csrf_are_refused(client, users):
    case_id = client.post("/v1/findings/batch", json=batch(chat_finding(1)), headers=SVC).json()["case_ids"][0]
    login_console(client, users)
    r = client.post(f"/console/cases/{case_id}/claim", data={}, follow_redirects=False)
    assert r.status_code == 403 and "CSRF" in r.text
    r = client.post(f"/console/cases/{case_id}/claim", data={"csrf": "0" * 40}, follow_redirects=False)
    assert r.status_code == 403


def test_work_a_case_through_the_forms(client, users):
    case_id = client.post("/v1/findings/batch", json=batch(chat_finding(1)), headers=SVC).json()["case_ids"][0]
    csrf = login_console(client, users)
    queue = client.get("/console/?family=chat").text
    assert case_id in queue
    r = client.post(f"/console/cases/{case_id}/claim", data={"csrf": csrf})
    assert "Claimed." in r.text and 'id="decide-form"' in r.text
    r = client.post(f"/console/cases/{case_id}/decide", data={"csrf": csrf, "kind": "confirm", "reason": "",
                                                             "apply": "on"})
    assert "reason" in r.text and "actioned" not in r.text  # empty reason refused with a message
    r = client.post(f"/console/cases/{case_id}/decide", data={"csrf": csrf, "kind": "confirm",
                                                             "reason": "insult at the table", "apply": "on"})
    assert "Decision recorded." in r.text and "actioned" in r.text and "waiting for the relay" in r.text
    active = client.get("/v1/players/p-alice/sanctions/active", headers=SVC).json()["sanctions"]
    assert [s["kind"] for s in active] == ["chat_ban"]


def test_analyst_cannot_use_moderator_forms(client, users):
    case_id = client.post("/v1/findings/batch", json=batch(chat_finding(1)), headers=SVC).json()["case_ids"][0]
    csrf = login_console(client, users, role="analyst", name="ann2")
    r = client.post(f"/console/cases/{case_id}/sanction", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 403
    assert client.get("/console/dashboard").status_code == 200
    assert client.get("/console/appeals").status_code == 200


def test_logout_ends_the_session(client, users):
    csrf = login_console(client, users)
    r = client.post("/console/logout", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303
    assert client.get("/console/", follow_redirects=False).status_code == 303


def test_api_reference_page_lists_every_endpoint_with_roles(client):
    page = client.get("/docs")
    assert page.status_code == 200 and "/v1/findings/batch" in page.text and "service" in page.text
    assert "<script" not in page.text
