"""Reviewer quality: golden items seeded into the queue at the admin's rate, indistinguishable and
never enforced; sampled second reviews with a third reviewer on disagreement; accuracy and
agreement for seniors and admins only."""

from __future__ import annotations

from datetime import datetime

import pytest
from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN, login_console
from sqlalchemy import func, select, text

from api.cases import counters
from api.cases.models import Case
from api.db import make_sessions
from api.outbox.models import OutboxEvent
from api.quality.answers import draw
from api.quality.models import QualityItem, SecondReview
from api.sanctions.models import Sanction

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _ingest(client, n: int, *, player: str | None = None, category: str = "insult", **kw) -> str:
    f = chat_finding(n, player=player or f"p-{n}", category=category, **kw)
    r = client.post("/v1/findings/batch", json=batch(f), headers=SVC)
    assert r.status_code == 200, r.text
    return r.json()["case_ids"][0]


def _decide(client, case_id: str, headers: dict[str, str], kind: str, apply: bool = False):
    claim = client.post(f"/v1/cases/{case_id}/claim", headers=headers)
    assert claim.status_code == 200, claim.text
    return client.post(f"/v1/cases/{case_id}/decisions", headers=headers,
                       json={"kind": kind, "reason": f"{kind} it", "apply": apply})


def _closed(client, n: int, headers: dict[str, str], kind: str) -> str:
    """A case closed by `headers`' user: actioned (confirm + apply, a moderator) or dismissed."""
    case_id = _ingest(client, n)
    r = _decide(client, case_id, headers, kind, apply=kind == "confirm")
    assert r.status_code == 200, r.text
    return case_id


def _rates(client, users, golden: float = 0.0, second: float = 0.0):
    r = client.patch("/v1/admin/quality", headers=users.headers("admin", "adm"),
                     json={"golden_rate": golden, "second_review_rate": second, "reason": "quality programme"})
    assert r.status_code == 200, r.text
    return r.json()


def _golden(client, users, case_id: str, expected: str):
    return client.post("/v1/quality/golden", headers=users.headers("senior", "sen"),
                       json={"case_id": case_id, "expected": expected, "reason": "textbook insult"})


def _queue(client, headers) -> list[dict]:
    r = client.get("/v1/cases?family=chat&status=open&limit=200", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["items"]


def _live_copies(engine) -> dict[str, QualityItem]:
    with make_sessions(engine)() as s:
        return {i.copy_case_id: i for i in s.scalars(select(QualityItem).where(QualityItem.live_source.is_not(None)))}


def _counts_match_cases(engine) -> None:
    """The trigger-kept counters agree with the cases table (copies included, answered ones gone)."""
    with make_sessions(engine)() as s:
        actual = {(f, st): n for f, st, n in s.execute(text(
            "SELECT family, status, count(*) FROM cases GROUP BY family, status")).all()}
        assert counters.all_counts(s) == actual


def test_golden_items_are_seeded_at_the_rate_over_many_queue_fetches(client, users, engine):
    mod = users.headers("moderator", "mod")
    sources = [_closed(client, i, mod, "confirm") for i in range(8)]
    for case_id in sources:
        assert _golden(client, users, case_id, "confirm").status_code == 200
    real = [_ingest(client, 100 + i) for i in range(30)]
    rate = 0.2
    _rates(client, users, golden=rate)
    ann = users.headers("analyst", "ann")
    golden_served = 0
    for i in range(40):
        items = _queue(client, ann)
        live = _live_copies(engine)
        golden_open = sum(1 for c in items if c["id"] in live)
        # At the rate, never over it; one more copy would pass it (or no unused source is left).
        assert golden_open <= rate * len(items) + 1e-9
        assert (golden_open + 1) > rate * (len(items) + 1) or len(live) == len(sources)
        top = items[0]
        golden_served += top["id"] in live
        assert _decide(client, top["id"], ann, "dismiss").status_code == 200
        _ingest(client, 200 + i)  # new work keeps arriving
        _counts_match_cases(engine)
    assert golden_served > 0 and len(real) == 30
    m = client.get("/v1/quality/metrics", headers=users.headers("senior", "sen")).json()
    assert m["golden_answered"] == golden_served
    ann_row = next(r for r in m["accuracy_by_reviewer"] if r["key"] == "ann")
    assert ann_row["n"] == golden_served and ann_row["hits"] == 0  # dismissed every textbook insult


def test_no_seeding_when_the_rate_is_zero_or_for_admins(client, users, engine):
    mod = users.headers("moderator", "mod")
    _golden(client, users, _closed(client, 1, mod, "confirm"), "confirm")
    for i in range(5):
        _ingest(client, 10 + i)
    _queue(client, users.headers("analyst", "ann"))
    assert _live_copies(engine) == {}
    _rates(client, users, golden=0.5)
    _queue(client, users.headers("admin", "adm"))  # an admin does not review: no seeding
    assert _live_copies(engine) == {}
    _queue(client, users.headers("analyst", "ann"))
    assert len(_live_copies(engine)) == 1


def _shape(value):
    """The keys and value types of a JSON document, recursively (what a client can see besides values)."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [_shape(v) for v in value[:1]]
    return type(value).__name__


def test_a_golden_copy_looks_like_a_new_case(client, users, engine, clock):
    mod = users.headers("moderator", "mod")
    source = _closed(client, 1, mod, "confirm")
    _golden(client, users, source, "confirm")
    clock.advance(days=20)
    real = _ingest(client, 50, player="p-real")
    _rates(client, users, golden=0.5)
    ann = users.headers("analyst", "ann")
    items = _queue(client, ann)
    (copy_id,) = _live_copies(engine)
    listed = {c["id"]: c for c in items}
    assert set(listed) == {copy_id, real}
    assert _shape(listed[copy_id]) == _shape(listed[real])
    assert listed[copy_id]["status"] == "open" and listed[copy_id]["decided_at"] is None
    assert listed[copy_id]["subject_id"] == "p-1"  # the player ids are kept
    copy = client.get(f"/v1/cases/{copy_id}", headers=ann).json()
    fresh = client.get(f"/v1/cases/{real}", headers=ann).json()
    assert _shape(copy) == _shape(fresh)
    assert copy["decisions"] == [] and copy["sanctions"] == [] and copy["appeals"] == []
    assert [a["status"] for a in copy["actions"]] == ["pending"]
    body = client.get(f"/v1/cases/{copy_id}", headers=ann).text + client.get(
        f"/v1/cases/{copy_id}/evidence", headers=ann).text
    assert "golden" not in body.lower() and "quality" not in body.lower() and source not in body
    # The evidence is as recent as the case: moved forward with it, not 20 days old.
    created = datetime.fromisoformat(copy["case"]["created_at"])
    for f in copy["findings"]:
        assert abs((created - datetime.fromisoformat(f["ts"])).total_seconds()) < 3600
    evidence = client.get(f"/v1/cases/{copy_id}/evidence", headers=ann).json()
    assert all(abs((created - datetime.fromisoformat(m["ts"])).total_seconds()) < 3600
               for m in evidence["messages"])
    # New findings about the player go to a real case, never into the copy.
    new_case = _ingest(client, 60, player="p-1")
    assert new_case != copy_id
    # The console page: no word of it, and the players' histories there leave the original out.
    login_console(client, users, role="analyst", name="ann2")
    page = client.get(f"/console/cases/{copy_id}")
    assert page.status_code == 200 and "p-1" in page.text and copy_id in page.text
    assert "golden" not in page.text.lower() and source not in page.text
    assert 'href="/console/quality"' not in page.text


def test_deciding_a_golden_copy_applies_nothing_and_is_graded(client, users, engine):
    mod = users.headers("moderator", "mod")
    source = _closed(client, 1, mod, "confirm")
    _golden(client, users, source, "confirm")
    _ingest(client, 2)
    with make_sessions(engine)() as s:
        sanctions_before = s.scalar(select(func.count()).select_from(Sanction))
        events_before = s.scalar(select(func.count()).select_from(OutboxEvent))
    _rates(client, users, golden=0.5)
    mod2 = users.headers("moderator", "mod2")
    _queue(client, mod2)
    (copy_id,) = _live_copies(engine)
    r = _decide(client, copy_id, mod2, "confirm", apply=True)
    assert r.status_code == 200, r.text
    assert r.json()["sanctions"] == [] and r.json()["decision"]["kind"] == "confirm"
    with make_sessions(engine)() as s:
        assert s.scalar(select(func.count()).select_from(Sanction)) == sanctions_before
        assert s.scalar(select(func.count()).select_from(OutboxEvent)) == events_before
        assert s.get(Case, copy_id) is None  # the item left the queue, and the player's records
        item = s.scalar(select(QualityItem).where(QualityItem.copy_case_id == copy_id))
        assert item is not None and item.answer == "confirm" and item.correct is True
    assert client.get(f"/v1/cases/{copy_id}", headers=mod2).status_code == 404
    assert copy_id not in {c["id"] for c in _queue(client, mod2)} or len(_live_copies(engine)) == 1
    _counts_match_cases(engine)
    m = client.get("/v1/quality/metrics", headers=users.headers("admin", "adm")).json()
    row = next(x for x in m["accuracy_by_reviewer"] if x["key"] == "mod2")
    assert (row["n"], row["hits"], row["rate"]) == (1, 1, 1.0) and 0 < row["low"] < 1
    assert m["accuracy_by_category"][0]["key"] == "insult"


def test_a_wrong_answer_and_a_hold_on_a_golden_copy(client, users, engine):
    mod = users.headers("moderator", "mod")
    _golden(client, users, _closed(client, 1, mod, "confirm"), "confirm")
    _ingest(client, 2)
    _rates(client, users, golden=0.5)
    ann = users.headers("analyst", "ann")
    _queue(client, ann)
    (copy_id,) = _live_copies(engine)
    assert _decide(client, copy_id, ann, "hold").status_code == 200  # not an answer: the copy waits
    assert client.get(f"/v1/cases/{copy_id}", headers=ann).json()["case"]["status"] == "on_hold"
    assert _decide(client, copy_id, ann, "dismiss").status_code == 200
    with make_sessions(engine)() as s:
        item = s.scalar(select(QualityItem).where(QualityItem.copy_case_id == copy_id))
        assert item is not None and item.answer == "dismiss" and item.correct is False
        assert s.get(Case, copy_id) is None
    _counts_match_cases(engine)


@pytest.mark.parametrize(("body", "status", "words"), [
    ({"golden_rate": 0.6, "reason": "x"}, 422, "outside [0, 0.5]"),
    ({"second_review_rate": -0.1, "reason": "x"}, 422, "outside [0, 0.5]"),
    ({"golden_rate": 0.1}, 422, "reason"),
])
def test_rates_outside_the_range_are_refused(client, users, body, status, words):
    r = client.patch("/v1/admin/quality", headers=users.headers("admin"), json=body)
    assert r.status_code == status and words in r.text
    assert client.get("/v1/quality/settings", headers=users.headers("admin")).json()["revision"] == 0


def test_rates_are_audited_and_revisioned(client, users):
    first = _rates(client, users, golden=0.1, second=0.2)
    assert (first["revision"], first["golden_rate"], first["second_review_rate"]) == (1, 0.1, 0.2)
    stale = client.patch("/v1/admin/quality", headers=users.headers("admin", "adm"),
                         json={"golden_rate": 0.3, "reason": "x", "expected_revision": 0})
    assert stale.status_code == 409
    entries = [e for e in client.get("/v1/audit", headers=users.headers("admin", "adm")).json()
               if e["action"] == "quality.rates"]
    assert len(entries) == 1 and entries[0]["actor"] == "adm"
    assert client.patch("/v1/admin/quality", headers=users.headers("senior"),
                        json={"golden_rate": 0.1, "reason": "x"}).status_code == 403


def test_bad_golden_items_are_refused_with_a_reason(client, users):
    mod = users.headers("moderator", "mod")
    closed = _closed(client, 1, mod, "confirm")
    still_open = _ingest(client, 2)
    r = _golden(client, users, closed, "escalate")
    assert r.status_code == 422 and "not a decision for a chat case" in r.json()["detail"]
    assert _golden(client, users, closed, "hold").status_code == 422
    r = _golden(client, users, still_open, "confirm")
    assert r.status_code == 409 and "only a closed case" in r.json()["detail"]
    assert _golden(client, users, "case_nope", "confirm").status_code == 404
    analyst = client.post("/v1/quality/golden", headers=users.headers("analyst"),
                          json={"case_id": closed, "expected": "confirm", "reason": "x"})
    assert analyst.status_code == 403
    ok = _golden(client, users, closed, "confirm")
    assert ok.status_code == 200 and ok.json()["expected"] == "confirm"
    listed = client.get("/v1/quality/golden", headers=users.headers("admin")).json()
    assert [g["case_id"] for g in listed] == [closed]


def test_second_reviews_are_sampled_at_the_rate(client, users, engine):
    rate = 0.3
    _rates(client, users, second=rate)
    ann = users.headers("analyst", "ann")
    closed = [_closed(client, i, ann, "dismiss") for i in range(60)]
    with make_sessions(engine)() as s:
        sampled = {r.case_id for r in s.scalars(select(SecondReview))}
        expected = {c.id for c in s.scalars(select(Case).where(Case.id.in_(closed)))
                    if c.decided_at is not None and draw(c.id, c.decided_at) < rate}
    assert sampled == expected
    assert 6 <= len(sampled) <= 32  # 18 expected of 60; far outside means the rate is not applied
    # Each sampled case has a blind copy in the open queue (a second review never reopens the case).
    assert len(_live_copies(engine)) == len(sampled)
    _counts_match_cases(engine)


def _sampled_case(client, users, engine, headers, kind: str) -> tuple[str, str]:
    """Close cases until one is sampled for a second review; (case id, copy id)."""
    for n in range(100):
        case_id = _closed(client, n, headers, kind)
        live = {i.source_case_id: cid for cid, i in _live_copies(engine).items()}
        if case_id in live:
            return case_id, live[case_id]
    raise AssertionError("no case sampled at rate 0.5 in 100")


def test_second_review_agreement_and_the_first_reviewer_is_refused(client, users, engine):
    _rates(client, users, second=0.5)
    ann = users.headers("analyst", "ann")
    case_id, copy_id = _sampled_case(client, users, engine, ann, "dismiss")
    own = _decide(client, copy_id, ann, "dismiss")
    assert own.status_code == 409 and "another reviewer" in own.json()["detail"]
    assert client.post(f"/v1/cases/{copy_id}/release", headers=ann).status_code == 200
    bob = users.headers("analyst", "bob")
    assert _decide(client, copy_id, bob, "dismiss").status_code == 200
    assert client.get(f"/v1/cases/{case_id}", headers=bob).json()["case"]["status"] == "dismissed"
    sen = users.headers("senior", "sen")
    (review,) = [r for r in client.get("/v1/quality/reviews", headers=sen).json() if r["case_id"] == case_id]
    assert review["status"] == "agreed" and review["second_kind"] == "dismiss"
    m = client.get("/v1/quality/metrics", headers=sen).json()
    bob_row = next(r for r in m["agreement_by_reviewer"] if r["key"] == "bob")
    assert (bob_row["n"], bob_row["hits"]) == (1, 1)


@pytest.mark.parametrize(("third", "status"), [("dismiss", "upheld"), ("confirm", "overturned")])
def test_disagreement_goes_to_a_third_reviewer(client, users, engine, third, status):
    _rates(client, users, second=0.5)
    ann = users.headers("analyst", "ann")
    case_id, copy_id = _sampled_case(client, users, engine, ann, "dismiss")
    bob = users.headers("analyst", "bob")
    assert _decide(client, copy_id, bob, "confirm").status_code == 200
    third_copy = {i.source_case_id: cid for cid, i in _live_copies(engine).items()}[case_id]
    assert third_copy != copy_id
    refused = _decide(client, third_copy, bob, "confirm")  # bob already answered: not the third reviewer
    assert refused.status_code == 409
    client.post(f"/v1/cases/{third_copy}/release", headers=bob)
    cat = users.headers("analyst", "cat")
    assert _decide(client, third_copy, cat, third).status_code == 200
    sen = users.headers("senior", "sen")
    (review,) = [r for r in client.get("/v1/quality/reviews", headers=sen).json() if r["case_id"] == case_id]
    assert review["status"] == status and review["third_kind"] == third
    # An overturn is for the seniors to act on (appeal); the closed case itself is untouched.
    assert client.get(f"/v1/cases/{case_id}", headers=sen).json()["case"]["status"] == "dismissed"
    with make_sessions(engine)() as s:
        assert s.scalar(select(func.count()).select_from(Sanction)) == 0
    m = client.get("/v1/quality/metrics", headers=sen).json()
    by = {r["key"]: r for r in m["agreement_by_reviewer"]}
    assert by["bob"]["n"] == 2 and by["cat"]["n"] == 2 and by["ann"]["n"] == 2
    assert by["cat"]["hits"] == 1  # agrees with exactly one of the two
    assert m["agreement_by_category"][0] == {**m["agreement_by_category"][0], "key": "insult", "n": 1, "hits": 0}
    _counts_match_cases(engine)


@pytest.mark.parametrize(("role", "code"), [("senior", 200), ("admin", 200), ("analyst", 403), ("moderator", 403)])
def test_quality_pages_by_role(client, users, role, code):
    assert client.get("/v1/quality/metrics", headers=users.headers(role)).status_code == code
    assert client.get("/v1/quality/reviews", headers=users.headers(role)).status_code == code
    login_console(client, users, role=role, name=f"{role}1")
    page = client.get("/console/quality")
    assert page.status_code == code
    if code == 200:
        assert "Accuracy on golden items" in page.text and "Agreement on second reviews" in page.text
    nav = client.get("/console/").text
    assert ('href="/console/quality"' in nav) == (code == 200)


def test_a_bulk_close_grades_the_copies_it_closes(client, users, engine):
    mod = users.headers("moderator", "mod")
    _golden(client, users, _closed(client, 1, mod, "confirm"), "dismiss")
    real = _ingest(client, 2)
    _rates(client, users, golden=0.5)
    mod2 = users.headers("moderator", "mod2")
    _queue(client, mod2)
    (copy_id,) = _live_copies(engine)
    r = client.post("/v1/cases/bulk-close", headers=mod2,
                    json={"case_ids": [copy_id, real], "outcome": "dismissed", "reason": "not abuse"})
    assert r.status_code == 200 and sorted(r.json()["closed"]) == sorted([copy_id, real]), r.text
    with make_sessions(engine)() as s:
        item = s.scalar(select(QualityItem).where(QualityItem.copy_case_id == copy_id))
        assert item is not None and (item.answer, item.correct, item.live_source) == ("dismiss", True, None)
        assert s.get(Case, copy_id) is None and s.get(Case, real).status == "dismissed"
    _counts_match_cases(engine)


def test_console_forms_mark_golden_and_set_rates(client, users):
    mod = users.headers("moderator", "mod")
    closed = _closed(client, 1, mod, "confirm")
    csrf = login_console(client, users, role="admin", name="adm1")
    r = client.post("/console/quality/rates", data={"csrf": csrf, "golden_rate": "0.7", "reason": "too much"})
    assert r.status_code == 200 and "outside [0, 0.5]" in r.text  # followed back to the page, flash shown
    r = client.post("/console/quality/rates", data={"csrf": csrf, "golden_rate": "lots", "reason": "x"})
    assert "not a number" in r.text
    r = client.post("/console/quality/rates", data={"csrf": csrf, "golden_rate": "0.2", "second_review_rate": "0.1",
                                                    "reason": "start", "expected_revision": "0"})
    assert "Rates changed" in r.text
    assert client.get("/v1/quality/settings", headers=users.headers("senior")).json()["golden_rate"] == 0.2
    r = client.post("/console/quality/golden", data={"csrf": csrf, "case_id": closed, "expected": "escalate",
                                                     "reason": "x"})
    assert "not a decision for a chat case" in r.text
    r = client.post("/console/quality/golden", data={"csrf": csrf, "case_id": closed, "expected": "confirm",
                                                     "reason": "textbook"})
    assert "is a golden item" in r.text and closed in r.text
    client.post("/console/logout", data={"csrf": csrf})
    csrf = login_console(client, users, role="senior", name="sen1")
    r = client.post("/console/quality/rates", data={"csrf": csrf, "golden_rate": "0.1", "reason": "x"})
    assert r.status_code == 403  # the rates are the admin's


def test_a_golden_source_reopened_on_appeal_is_not_seeded(client, users, engine):
    mod = users.headers("moderator", "mod")
    source = _closed(client, 1, mod, "confirm")
    _golden(client, users, source, "confirm")
    for i in range(4):
        _ingest(client, 10 + i)
    r = client.post(f"/v1/cases/{source}/appeals", headers=users.headers("senior", "sen"),
                    json={"statement": "the player says it was a quote"})
    assert r.status_code == 200, r.text
    _rates(client, users, golden=0.5)
    _queue(client, users.headers("analyst", "ann"))
    assert _live_copies(engine) == {}


def test_concurrent_fetches_do_not_pass_the_rate(client, users, engine):
    from concurrent.futures import ThreadPoolExecutor

    mod = users.headers("moderator", "mod")
    for i in range(12):
        _golden(client, users, _closed(client, i, mod, "confirm"), "confirm")
    for i in range(20):
        _ingest(client, 100 + i)
    _rates(client, users, golden=0.25)
    headers = [users.headers("analyst", f"racer{i}") for i in range(6)]
    with ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(lambda h: client.get("/v1/cases?family=chat&status=open", headers=h).status_code,
                              headers))
    assert all(c == 200 for c in codes), codes
    live = len(_live_copies(engine))
    assert 0 < live <= 0.25 * (20 + live) + 1e-9  # 6 of 26: one fetch seeded, the others found it full
    _counts_match_cases(engine)
