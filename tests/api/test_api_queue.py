"""The queue over the JSON API: filters, search, sorts with keyset pages, tab counts, saved views."""

from __future__ import annotations

from datetime import timedelta

import pytest
from api_factories import T0, batch, chat_finding

from pipeline.findings import ActionProposal, Finding, stable_id


def hit_and_run(n: int, *, player: str | None = None, automatic: bool = True) -> Finding:
    """A hit-and-run finding; `automatic` carries an automatic table block (the usual case)."""
    who = player or f"p-hr{n}"
    fid = stable_id("fnd", "hr", who, n)
    ts = T0 + timedelta(minutes=n)
    action = ActionProposal(action_id=stable_id("act", fid), disposition="automatic" if automatic else "proposed",
                            kind="table_block", scope="account", player_id=who, starts_at=ts,
                            expires_at=ts + timedelta(hours=24), reason="hit and run", rule="table_leaving")
    return Finding(finding_id=fid, detector="seat.hit_and_run", rule="table_leaving", family="seat",
                   category="hit_and_run", score=1.0, players=(who,), ts=ts, table_id=f"t-hr{n}",
                   summary=f"{who} left after a big pot", actions=(action,))


def bumhunting(n: int) -> Finding:
    fid = stable_id("fnd", "bh", n)
    return Finding(finding_id=fid, detector="seat.bumhunting", rule="bumhunting", family="seat",
                   category="bumhunting", score=0.8, players=(f"p-bh{n}", "p-fish"), ts=T0, table_id="t-bh",
                   summary="sat only with weak players")


@pytest.fixture
def seeded(client, users):
    svc = users.headers("service")
    classifier = chat_finding(5, player="p-vi", table="t-vn", text="đồ ngu")
    findings = [
        chat_finding(1, player="p-alice", table="t-1"),
        _nick(chat_finding(2, player="p-bob", table="t-2", score=0.6, category="spam", text="cheap chips"), "Bobby"),
        _nick(_with_language(classifier, "vi"), "Vĩnh"),
        *(hit_and_run(i) for i in range(6)),
        hit_and_run(9, automatic=False),
        bumhunting(1),
    ]
    r = client.post("/v1/findings/batch", json=batch(*findings), headers=svc)
    assert r.status_code == 200, r.text
    return users.headers("moderator", "mod_q")


def _nick(f: Finding, nickname: str) -> Finding:
    messages = [{**m, "nickname": nickname} for m in f.evidence["messages"]]
    return f.model_copy(update={"evidence": {**f.evidence, "messages": messages}})


def _with_language(f: Finding, lang: str) -> Finding:
    ev = {**f.evidence, "language": lang}
    return f.model_copy(update={"detector": "chat.classifier", "evidence": ev})


def _subjects(client, headers, **params) -> list[str]:
    r = client.get("/v1/cases", params=params, headers=headers)
    assert r.status_code == 200, r.text
    return [c["subject_id"] for c in r.json()["items"]]


def test_filters_narrow_the_queue(client, seeded):
    h = seeded
    assert set(_subjects(client, h, family="seat")) == {*(f"p-hr{i}" for i in (0, 1, 2, 3, 4, 5, 9)), "p-bh1"}
    assert _subjects(client, h, family="seat", category="bumhunting") == ["p-bh1"]
    assert _subjects(client, h, family="seat", detector="seat.bumhunting") == ["p-bh1"]
    assert _subjects(client, h, family="chat", language="vi") == ["p-vi"]
    assert _subjects(client, h, family="chat", language="VI") == ["p-vi"]
    automatic = _subjects(client, h, family="seat", automatic="true")
    assert sorted(automatic) == [f"p-hr{i}" for i in range(6)]
    assert sorted(_subjects(client, h, family="seat", automatic="false")) == ["p-bh1", "p-hr9"]
    assert _subjects(client, h, family="seat", age="gt24h") == []
    assert len(_subjects(client, h, family="seat", age="lt1h")) == 8


def test_search_by_player_nickname_table_tournament_hand_and_case(client, seeded, users):
    h = seeded
    svc = users.headers("service")
    hand = Finding(finding_id="fnd-hand-1", detector="hand.chip_dumping", rule="collusion", family="hand",
                   category="chip_dumping", score=0.9, players=("p-dumper", "p-receiver"), ts=T0,
                   tournament_id="mtt-9", table_id="t-99", summary="chips dumped",
                   evidence={"hand_ids": ["hand-777"]})
    assert client.post("/v1/findings/batch", json=batch(hand), headers=svc).status_code == 200
    every = {"status": "all"}
    assert _subjects(client, h, q="p-alice", **every) == ["p-alice"]
    assert _subjects(client, h, q="p-receiver", **every) == ["p-dumper"]  # a named player, not the subject
    assert _subjects(client, h, q="ALICE", **every) == ["p-alice"]  # nickname, case-folded
    assert _subjects(client, h, q="VĨNH", **every) == ["p-vi"]
    assert _subjects(client, h, q="t-2", **every) == ["p-bob"]
    assert _subjects(client, h, q="mtt-9", **every) == ["p-dumper"]
    assert _subjects(client, h, q="hand-777", **every) == ["p-dumper"]
    case_id = client.get("/v1/cases", params={"q": "p-bob"}, headers=h).json()["items"][0]["id"]
    assert _subjects(client, h, q=case_id, **every) == ["p-bob"]
    assert _subjects(client, h, q="nobody-at-all", **every) == []


@pytest.mark.parametrize("params", [
    {"family": "poker"}, {"status": "closed"}, {"sort": "random"}, {"age": "old"}, {"automatic": "maybe"},
    {"q": "x" * 129}, {"detector": "d" * 200}, {"cursor": "not-a-cursor"}, {"limit": 0},
])
def test_bad_queue_parameters_are_422(client, seeded, params):
    r = client.get("/v1/cases", params=params, headers=seeded)
    assert r.status_code == 422, (params, r.status_code, r.text)
    assert r.status_code < 500


@pytest.mark.parametrize("sort", ["priority", "oldest", "newest", "findings", "score"])
def test_every_sort_pages_through_each_case_once_in_order(client, seeded, sort):
    h = seeded
    seen: list[dict] = []
    params: dict[str, object] = {"status": "all", "sort": sort, "limit": 3}
    for _ in range(10):
        body = client.get("/v1/cases", params=params, headers=h).json()
        seen.extend(body["items"])
        if not body["next_cursor"]:
            break
        params["cursor"] = body["next_cursor"]
    ids = [c["id"] for c in seen]
    assert len(ids) == len(set(ids)) == 11
    key = {"priority": lambda c: (-c["priority"], c["created_at"], c["id"]),
           "oldest": lambda c: (c["created_at"], c["id"]),
           "newest": lambda c: (c["created_at"], c["id"]),
           "findings": lambda c: (c["finding_count"], c["id"]),
           "score": lambda c: (c["max_score"], c["id"])}[sort]
    assert seen == sorted(seen, key=key, reverse=sort in ("newest", "findings", "score"))


def test_a_cursor_of_another_sort_is_refused(client, seeded):
    body = client.get("/v1/cases", params={"status": "all", "sort": "oldest", "limit": 2}, headers=seeded).json()
    r = client.get("/v1/cases", params={"status": "all", "sort": "score", "cursor": body["next_cursor"]},
                   headers=seeded)
    assert r.status_code == 422 and "same sort" in r.json()["detail"]


def test_tab_counts_follow_the_filter(client, seeded):
    r = client.get("/v1/cases/counts", params={"family": "seat", "automatic": "true"}, headers=seeded)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["families"] == {"chat": 0, "snapcam": 0, "nickname": 0, "seat": 6, "hand": 0}
    assert body["statuses"]["open"] == 6 and body["statuses"]["actioned"] == 0
    plain = client.get("/v1/cases/counts", params={"status": "open"}, headers=seeded).json()
    assert plain["families"]["chat"] == 3 and plain["families"]["seat"] == 8


def test_my_cases_and_unassigned(client, seeded, users):
    h = seeded
    case_id = client.get("/v1/cases", params={"q": "p-alice"}, headers=h).json()["items"][0]["id"]
    assert client.post(f"/v1/cases/{case_id}/claim", headers=h).status_code == 200
    assert _subjects(client, h, assignee_id="me", status="active") == ["p-alice"]
    assert "p-alice" not in _subjects(client, h, assignee_id="none", family="chat")
    other = users.headers("analyst", "ann_q")
    assert _subjects(client, other, assignee_id="me", status="active") == []


def test_saved_views_are_per_user_and_validated(client, seeded, users):
    h = seeded
    body = {"name": "auto hit-and-run", "params": {"family": "seat", "automatic": "yes", "sort": "oldest"}}
    r = client.post("/v1/saved-views", json=body, headers=h)
    assert r.status_code == 200, r.text
    view_id = r.json()["id"]
    again = client.post("/v1/saved-views", json={**body, "params": {"family": "seat"}}, headers=h)
    assert again.json()["id"] == view_id and again.json()["params"] == {"family": "seat"}  # same name replaces
    assert [v["name"] for v in client.get("/v1/saved-views", headers=h).json()] == ["auto hit-and-run"]
    other = users.headers("analyst", "ann_v")
    assert client.get("/v1/saved-views", headers=other).json() == []
    assert client.delete(f"/v1/saved-views/{view_id}", headers=other).status_code == 404
    for bad in ({"family": "poker"}, {"colour": "red"}, {"sort": "random"}):
        r = client.post("/v1/saved-views", json={"name": "bad", "params": bad}, headers=h)
        assert r.status_code == 422, (bad, r.text)
    assert client.delete(f"/v1/saved-views/{view_id}", headers=h).status_code == 204
    assert client.get("/v1/saved-views", headers=h).json() == []


def test_migration_0005_backfills_tags_from_stored_findings(client, seeded, engine):
    from alembic import command

    from api.db import alembic_config, migrate

    assert _subjects(client, seeded, q="Bobby", status="all") == ["p-bob"]
    command.downgrade(alembic_config(engine), "0004")  # drops case_tags and saved_views
    migrate(engine)  # 0005 again: the tags come back from findings.document
    assert _subjects(client, seeded, q="Bobby", status="all") == ["p-bob"]
    assert _subjects(client, seeded, family="chat", language="vi") == ["p-vi"]
