"""Decisions on chat findings become labelled examples: written by confirm/dismiss, corrected on the
case page, refused with a reason when wrong, exported (audited) for training."""

from __future__ import annotations

import json

import pytest
from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN, login_console

from api.auth import service as auth
from api.db import make_sessions
from api.errors import ForbiddenError
from api.labels import service as labels

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _case(client, *findings) -> str:
    r = client.post("/v1/findings/batch", json=batch(*findings), headers=SVC)
    assert r.status_code == 200, r.text
    return r.json()["case_ids"][0]


def _decide(client, case_id: str, headers: dict[str, str], kind: str):
    assert client.post(f"/v1/cases/{case_id}/claim", headers=headers).status_code == 200
    return client.post(f"/v1/cases/{case_id}/decisions", json={"kind": kind, "reason": f"{kind} it"}, headers=headers)


def _labels(client, users, case_id: str) -> list[dict]:
    r = client.get("/v1/labels", params={"case_id": case_id}, headers=users.headers("analyst", "reader"))
    assert r.status_code == 200, r.text
    return r.json()


def _export(client, headers) -> list[dict]:
    r = client.get("/v1/labels/export", headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in r.text.splitlines()]


def test_confirm_labels_every_chat_finding_with_its_category_and_provenance(client, users):
    case_id = _case(client, chat_finding(1, text="you are an idiot"), chat_finding(2, text="shut up moron", score=0.7))
    r = _decide(client, case_id, users.headers("analyst", "ann"), "confirm")
    assert r.status_code == 200, r.text
    rows = _labels(client, users, case_id)
    assert sorted(x["text"] for x in rows) == ["shut up moron", "you are an idiot"]
    assert {x["category"] for x in rows} == {"insult"} and {x["status"] for x in rows} == {"ok"}
    row = next(x for x in rows if x["text"] == "shut up moron")
    assert row["reviewer"] == "ann" and row["role"] == "analyst" and row["verdict"] == "confirm"
    assert row["decision_id"] == r.json()["decision"]["id"] and row["case_id"] == case_id
    assert row["detector"] == "chat.banned_words" and row["score"] == pytest.approx(0.7)


def test_dismiss_labels_the_text_clean_and_other_decisions_label_nothing(client, users):
    held = _case(client, chat_finding(3, player="p-bob"))
    assert _decide(client, held, users.headers("analyst", "ann"), "hold").status_code == 200
    assert _labels(client, users, held) == []
    case_id = _case(client, chat_finding(4, player="p-carl", text="nice hand idiot lol"))
    assert _decide(client, case_id, users.headers("analyst", "ann"), "dismiss").status_code == 200
    [row] = _labels(client, users, case_id)
    assert row["category"] == "clean" and row["verdict"] == "dismiss"


def test_two_reviewers_disagreeing_keep_both_labels_marked_conflicting(client, users):
    case_id = _case(client, chat_finding(5, category="collusion_talk", text="fold to me and we split"))
    assert _decide(client, case_id, users.headers("analyst", "ann"), "dismiss").status_code == 200
    assert _decide(client, case_id, users.headers("senior", "sen"), "confirm").status_code == 200
    rows = _labels(client, users, case_id)
    assert len(rows) == 2 and {x["status"] for x in rows} == {"conflicting"}
    assert "ann (analyst) clean" in rows[0]["status_reason"] and "sen (senior) collusion_talk" in rows[0]["status_reason"]
    exported = _export(client, users.headers("senior", "sen"))
    assert len(exported) == 2 and not any(x["train"] for x in exported)
    assert all("reviewers disagree" in x["excluded_reason"] for x in exported)


def test_correcting_category_and_span_is_stored_audited_and_can_settle_a_conflict(client, users):
    case_id = _case(client, chat_finding(6, text="gg idiot, I will find you"))
    ann = users.headers("analyst", "ann")
    assert _decide(client, case_id, ann, "confirm").status_code == 200
    [row] = _labels(client, users, case_id)
    r = client.post(f"/v1/labels/{row['finding_id']}/correction",
                    json={"category": "threat", "span_start": 10, "span_end": 25}, headers=ann)
    assert r.status_code == 200, r.text
    fixed = r.json()
    assert fixed["category"] == "threat" and (fixed["span_start"], fixed["span_end"]) == (10, 25)
    assert fixed["corrected_by"] == "ann" and fixed["text"][10:25] == "I will find you"
    audit = client.get("/v1/audit", params={"action": "label.correct"}, headers=users.headers("admin", "adm")).json()
    assert [e["entity_id"] for e in audit] == [row["finding_id"]]


@pytest.mark.parametrize(("body", "status", "why"), [
    ({"category": "rude_words"}, 422, "unknown category 'rude_words'"),
    ({"category": "hit_and_run"}, 422, "unknown category 'hit_and_run'"),  # a seat category, not chat
    ({"span_start": 3, "span_end": 99}, 422, "outside the message"),
    ({"span_start": 5, "span_end": 5}, 422, "(0-16 characters) or empty"),
    ({"span_start": 3}, 422, "needs both span_start and span_end"),
    ({"category": "clean", "span_start": 0, "span_end": 3}, 422, "a clean line has no offending span"),
])
def test_bad_corrections_are_refused_with_a_reason(client, users, body, status, why):
    case_id = _case(client, chat_finding(7, text="you are an idiot"))
    ann = users.headers("analyst", "ann")
    _decide(client, case_id, ann, "confirm")
    [row] = _labels(client, users, case_id)
    r = client.post(f"/v1/labels/{row['finding_id']}/correction", json=body, headers=ann)
    assert r.status_code == status and why in r.json()["detail"], r.text
    [after] = _labels(client, users, case_id)
    assert after["category"] == "insult" and after["span_start"] is None  # nothing half-applied


def test_only_the_deciding_reviewer_corrects_and_unknown_findings_are_404(client, users):
    case_id = _case(client, chat_finding(8))
    _decide(client, case_id, users.headers("analyst", "ann"), "confirm")
    [row] = _labels(client, users, case_id)
    other = client.post(f"/v1/labels/{row['finding_id']}/correction", json={"category": "hate"},
                        headers=users.headers("analyst", "bea"))
    assert other.status_code == 409 and "have not decided" in other.json()["detail"]
    missing = client.post("/v1/labels/fnd_nope/correction", json={"category": "hate"},
                          headers=users.headers("analyst", "ann"))
    assert missing.status_code == 404


def test_a_deactivated_reviewer_can_neither_decide_nor_correct_and_their_labels_do_not_train(
        client, users, engine, clock):
    case_id = _case(client, chat_finding(9))
    ann = users.headers("analyst", "ann")
    _decide(client, case_id, ann, "confirm")
    [row] = _labels(client, users, case_id)
    sessions = make_sessions(engine)
    with sessions() as s:
        user = auth.user_by_name(s, "ann")
        assert user is not None
        principal = auth.Principal(user.id, user.username, user.role, None)
        auth.update_user(s, user_id=user.id, role=None, active=False, actor="test", now=clock())
    # The API refuses the token at once; the service refuses too (a session resolved before).
    assert client.post(f"/v1/labels/{row['finding_id']}/correction", json={"category": "hate"},
                       headers=ann).status_code == 401
    with sessions() as s, pytest.raises(ForbiddenError, match="deactivated"):
        labels.correct(s, correction=labels.Correction(finding_id=row["finding_id"], category="hate"),
                       principal=principal, now=clock())
    [exported] = _export(client, users.headers("admin", "adm"))
    assert exported["train"] is False and exported["excluded_reason"] == "reviewer ann is deactivated"


def test_export_is_senior_or_admin_only_carries_provenance_and_is_audited(client, users):
    case_id = _case(client, chat_finding(10, text="you are an idiot"))
    decision = _decide(client, case_id, users.headers("analyst", "ann"), "confirm").json()["decision"]
    for role in ("analyst", "moderator", "service"):
        assert client.get("/v1/labels/export", headers=users.headers(role)).status_code == 403
    [row] = _export(client, users.headers("senior", "sen"))
    assert row["text"] == "you are an idiot" and row["category"] == "insult" and row["train"] is True
    prov = row["provenance"]
    assert prov["decision_id"] == decision["id"] and prov["case_id"] == case_id and prov["reviewer"] == "ann"
    assert prov["role"] == "analyst" and prov["finding_category"] == "insult" and prov["detector"] == "chat.banned_words"
    entries = client.get("/v1/audit", params={"action": "labels.export"}, headers=users.headers("admin", "adm")).json()
    assert len(entries) == 1 and entries[0]["actor"] == "sen" and json.loads(entries[0]["payload"])["rows"] == 1


def test_a_replayed_hook_writes_no_second_label(client, users, engine, clock):
    case_id = _case(client, chat_finding(11))
    _decide(client, case_id, users.headers("analyst", "ann"), "confirm")
    sessions = make_sessions(engine)
    with sessions() as s:
        from api.cases.models import Case
        from api.decisions.models import Decision
        case = s.get(Case, case_id)
        decision = s.query(Decision).filter_by(case_id=case_id).one()
        user = auth.user_by_name(s, "ann")
        assert case is not None and user is not None
        labels.on_decision(s, decision=decision, case=case, principal=auth.Principal(user.id, "ann", "analyst", None),
                           now=clock())
        s.commit()
    assert len(_labels(client, users, case_id)) == 1


def test_the_case_page_shows_labels_and_its_form_corrects_them(client, users):
    case_id = _case(client, chat_finding(12, text="you are an idiot"))
    csrf = login_console(client, users, "analyst", "ann")
    client.post(f"/console/cases/{case_id}/claim", data={"csrf": csrf})
    client.post(f"/console/cases/{case_id}/decide", data={"csrf": csrf, "kind": "confirm", "reason": "insult"})
    html = client.get(f"/console/cases/{case_id}").text
    assert 'id="labels"' in html and 'name="span_start"' in html
    [row] = _labels(client, users, case_id)
    url = f"/console/cases/{case_id}/labels/{row['finding_id']}"
    r = client.post(url, data={"csrf": csrf, "category": "insult", "span_start": "11", "span_end": "16"},
                    follow_redirects=True)
    assert "Label corrected." in r.text and "“idiot”" in r.text
    bad = client.post(url, data={"csrf": csrf, "category": "insult", "span_start": "x", "span_end": "3"},
                      follow_redirects=True)
    assert "span offsets are whole numbers" in bad.text
    [after] = _labels(client, users, case_id)
    assert (after["span_start"], after["span_end"]) == (11, 16)


def test_erasure_and_retention_blank_the_label_texts_and_keep_them_out_of_training(client, users, engine, clock):
    from api.privacy.players import erase_player, redact_expired

    gone = _case(client, chat_finding(13, player="p-gone", text="you are an idiot"))
    old = _case(client, chat_finding(14, player="p-old", text="shut up moron"))
    ann, sen = users.headers("analyst", "ann"), users.headers("senior", "sen")
    for case_id in (gone, old):
        assert _decide(client, case_id, ann, "dismiss").status_code == 200
    sessions = make_sessions(engine)
    with sessions() as s:
        erase_player(s, player_id="p-gone", key="k", actor="test", now=clock())
    rows = {r["provenance"]["case_id"]: r for r in _export(client, sen)}
    assert rows[gone]["text"] == "" and not rows[gone]["train"] and "text erased" in rows[gone]["excluded_reason"]
    assert rows[gone]["provenance"]["decision_id"]  # provenance stays
    assert rows[old]["text"] == "shut up moron" and rows[old]["train"]
    clock.advance(days=2)
    with sessions() as s:
        assert redact_expired(s, days=1, now=clock()) >= 1
    rows = {r["provenance"]["case_id"]: r for r in _export(client, users.headers("senior", "sen"))}  # a fresh token
    assert rows[old]["text"] == "" and not rows[old]["train"]
