"""Console hardening: signed one-shot notices (no `?msg=` banners), error pages, return after login."""

from __future__ import annotations

from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN, csrf_of, login_console

from api.console.flash import FLASH_COOKIE, Flash, decode, encode, flash_key

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _case(client) -> str:
    return client.post("/v1/findings/batch", json=batch(chat_finding(1)), headers=SVC).json()["case_ids"][0]


def test_query_string_text_never_reaches_a_banner(client, users):
    case_id = _case(client)
    login_console(client, users, "analyst", "ann")
    for url in (f"/console/cases/{case_id}?msg=Ban+confirmed+by+security.", "/console/?msg=Ban+confirmed+by+security.",
                "/console/appeals?msg=Ban+confirmed+by+security."):
        assert "Ban confirmed by security" not in client.get(url).text


def test_a_form_outcome_is_shown_once_and_errors_look_like_errors(client, users):
    case_id = _case(client)
    csrf = login_console(client, users, "analyst", "ann")
    r = client.post(f"/console/cases/{case_id}/claim", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and "msg=" not in r.headers["location"]
    first = client.get(r.headers["location"]).text
    assert 'class="flash flash-ok" role="status">Claimed.' in first
    assert "Claimed." not in client.get(f"/console/cases/{case_id}").text  # one shot
    bad = client.post(f"/console/cases/{case_id}/decide", data={"csrf": csrf, "kind": "confirm", "reason": ""},
                      follow_redirects=True).text
    assert 'class="flash flash-error" role="alert"' in bad and "Not done:" in bad


def test_a_notice_signed_for_another_session_is_ignored(client, users):
    case_id = _case(client)
    login_console(client, users, "analyst", "ann")
    forged = encode(Flash("ok", "Ban confirmed by security."), key=flash_key("someone-elses-session"))
    client.cookies.set(FLASH_COOKIE, forged, path="/console")
    assert "Ban confirmed by security" not in client.get(f"/console/cases/{case_id}").text


def test_flash_decoding_rejects_tampering():
    key = flash_key("s")
    value = encode(Flash("error", "no"), key=key)
    assert decode(value, key=key) == Flash("error", "no")
    head, _, sig = value.partition(".")
    assert decode(f"{head}x.{sig}", key=key) is None
    assert decode("garbage", key=key) is None and decode("", key=key) is None
    evil = encode(Flash("ok", "x"), key=key).split(".")[0]
    assert decode(f"{evil}.", key=key) is None


def test_unknown_console_paths_get_a_page_with_navigation(client, users):
    login_console(client, users, "analyst", "ann")
    r = client.get("/console/no/such/page")
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert 'href="/console/"' in r.text and "No such console page." in r.text
    missing = client.get("/console/cases/cas-none")
    assert missing.status_code == 404 and "<html" in missing.text
    assert client.get("/v1/no/such").headers["content-type"].startswith("application/json")  # the API stays JSON


def test_login_returns_to_the_linked_page_and_only_to_console_pages(client, users):
    case_id = _case(client)
    r = client.get(f"/console/cases/{case_id}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/console/login?next=%2Fconsole%2Fcases%2F{case_id}"
    users.token("analyst", "ann", password="correct horse battery")
    form = client.get(r.headers["location"]).text
    assert f'name="next" value="/console/cases/{case_id}"' in form
    done = client.post("/console/login", data={"csrf": csrf_of(form), "username": "ann",
                                               "password": "correct horse battery", "next": f"/console/cases/{case_id}"},
                       follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == f"/console/cases/{case_id}"
    client.post("/console/logout", data={"csrf": csrf_of(client.get("/console/").text)})
    for evil in ("https://evil.example/", "//evil.example/console/", "/v1/cases", "/console/login?next=x"):
        form = client.get("/console/login", params={"next": evil}).text
        assert 'name="next"' not in form
        r = client.post("/console/login", data={"csrf": csrf_of(form), "username": "ann",
                                                "password": "correct horse battery", "next": evil},
                        follow_redirects=False)
        assert r.headers["location"] == "/console/"
        client.post("/console/logout", data={"csrf": csrf_of(client.get("/console/").text)})


def test_logins_and_failed_logins_are_audited(client, users):
    login_console(client, users, "analyst", "ann")
    client.post("/console/logout", data={"csrf": csrf_of(client.get("/console/").text)})
    form = client.get("/console/login").text
    r = client.post("/console/login", data={"csrf": csrf_of(form), "username": "ann", "password": "wrong"})
    assert r.status_code == 401
    entries = client.get("/v1/audit", params={"limit": 200}, headers=users.headers("admin", "root")).json()
    actions = [(e["action"], e["actor"]) for e in entries]
    assert ("auth.login", "ann") in actions and ("auth.login_failed", "ann") in actions


def test_audit_page_filters_the_chain_for_admins_only(client, users):
    case_id = _case(client)
    ann = users.headers("analyst", "ann")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    client.post(f"/v1/cases/{case_id}/release", headers=ann)
    login_console(client, users, "admin", "root")
    html = client.get("/console/audit", params={"action": "case."}).text
    assert "case.claim" in html and "case.release" in html and "user.create" not in html
    assert "intact" in html and f'href="/console/cases/{case_id}"' in html
    only = client.get("/console/audit", params={"action": "case.claim", "actor": "ann"}).text
    assert "case.claim" in only and "case.release" not in only
    api = client.get("/v1/audit", params={"action": "case.release"}, headers=users.headers("admin", "root")).json()
    assert [e["action"] for e in api] == ["case.release"]
    client.post("/console/logout", data={"csrf": csrf_of(client.get("/console/").text)})
    login_console(client, users, "senior", "sen")
    assert client.get("/console/audit").status_code == 403


def test_reading_players_text_is_audited_once_per_window(client, users, clock):
    case_id = _case(client)
    login_console(client, users, "analyst", "ann")
    client.get(f"/console/cases/{case_id}")
    client.get(f"/console/cases/{case_id}")  # paging through the same case: one entry
    api = users.headers("analyst", "bob")
    client.get(f"/v1/cases/{case_id}", headers=api)
    client.get(f"/v1/cases/{case_id}/evidence", headers=api)
    client.get(f"/v1/cases/{case_id}", headers=users.headers("admin", "root"))  # admins see it redacted
    admin = users.headers("admin", "root")
    views = client.get("/v1/audit", params={"action": "case.view_text"}, headers=admin).json()
    assert sorted((e["actor"], e["entity_id"]) for e in views) == [("ann", case_id), ("bob", case_id)]
    clock.advance(minutes=31)
    client.get(f"/console/cases/{case_id}")
    views = client.get("/v1/audit", params={"action": "case.view_text"}, headers=users.headers("admin", "root")).json()
    assert [e["actor"] for e in views].count("ann") == 2
