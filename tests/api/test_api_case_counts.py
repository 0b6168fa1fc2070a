"""The per-(family, status) counters (migration 0007's triggers) equal COUNT(*) after every kind of
case write: ingestion, decisions, escalation, appeals, bulk close, retention, erasure, concurrent
writers; folding them changes no count; the console shows them exactly and filtered counts lazily."""

from __future__ import annotations

import threading

from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN, login_console
from sqlalchemy import func, select
from test_api_queue import bumhunting, hit_and_run

from api.cases import counters
from api.cases.models import Case, CaseCount
from api.db import make_sessions
from api.privacy.players import erase_player, redact_expired

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _truth(engine) -> dict[tuple[str, str], int]:
    with make_sessions(engine)() as s:
        rows = s.execute(select(Case.family, Case.status, func.count()).group_by(Case.family, Case.status)).all()
        return {(f, st): int(n) for f, st, n in rows}


def _counted(engine) -> dict[tuple[str, str], int]:
    with make_sessions(engine)() as s:
        return counters.all_counts(s)


def _ingest(client, *findings) -> list[str]:
    r = client.post("/v1/findings/batch", json=batch(*findings), headers=SVC)
    assert r.status_code == 200, r.text
    return r.json()["case_ids"]


def test_counters_equal_count_after_a_mix_of_writes(client, users, engine, clock):
    chat = _ingest(client, *(chat_finding(i, player=f"p-c{i}", table=f"t-c{i}") for i in range(6)))
    _ingest(client, *(hit_and_run(i) for i in range(8)), hit_and_run(99, automatic=False), bumhunting(1))
    _ingest(client, chat_finding(50, player="p-c0", table="t-c0"))  # joins an open case: no count moves
    assert _counted(engine) == _truth(engine) == {("chat", "open"): 6, ("seat", "open"): 10}
    ann, mod, sen = users.headers("analyst"), users.headers("moderator"), users.headers("senior")
    for case_id, decision, who in ((chat[0], {"kind": "dismiss", "reason": "banter"}, ann),
                                   (chat[1], {"kind": "confirm", "reason": "r"}, ann),
                                   (chat[2], {"kind": "escalate", "reason": "threat?"}, ann),
                                   (chat[3], {"kind": "confirm", "reason": "r", "apply": True}, mod)):
        assert client.post(f"/v1/cases/{case_id}/claim", headers=who).status_code == 200
        r = client.post(f"/v1/cases/{case_id}/decisions", json=decision, headers=who)
        assert r.status_code == 200, r.text
    assert _counted(engine) == _truth(engine)
    appeal = client.post(f"/v1/cases/{chat[3]}/appeals", json={"statement": "joking"}, headers=sen)
    assert appeal.status_code == 200 and _counted(engine) == _truth(engine)
    assert client.post(f"/v1/appeals/{appeal.json()['id']}/resolve", json={"outcome": "overturned", "reason": "ctx"},
                       headers=sen).status_code == 200
    body = {"filter": {"family": "seat", "status": "open", "automatic": True}, "expected": 8, "outcome": "actioned",
            "reason": "automatic blocks stand"}
    assert len(client.post("/v1/cases/bulk-close", json=body, headers=mod).json()["closed"]) == 8
    after_bulk = _counted(engine)
    assert after_bulk == _truth(engine) and after_bulk[("seat", "actioned")] == 8
    clock.advance(days=40)
    sessions = make_sessions(engine)
    with sessions() as s:
        assert redact_expired(s, days=30, now=clock()) > 0
        s.commit()
    with sessions() as s:
        erase_player(s, player_id="p-c4", key="k", actor="test", now=clock())
    _ingest(client, chat_finding(60, player="p-c0", table="t-c0"))  # p-c0's case was dismissed: a new one
    assert _counted(engine) == _truth(engine)
    ann = users.headers("analyst", "ann_later")  # the earlier token lapsed with the clock
    plain = client.get("/v1/cases/counts", params={"family": "chat", "status": "open"}, headers=ann).json()
    truth = _truth(engine)
    assert plain["exact"] is True
    assert client.get("/v1/cases/counts", params={"family": "chat", "age": "gt7d"}, headers=ann).json()["exact"] is False
    assert plain["statuses"] == {st: truth.get(("chat", st), 0) for st in plain["statuses"]}
    assert plain["families"] == {fam: truth.get((fam, "open"), 0) for fam in plain["families"]}
    active = client.get("/v1/cases/counts", params={"status": "active"}, headers=ann).json()["families"]
    assert active["seat"] == 2 and active["chat"] == sum(n for (f, st), n in truth.items()
                                                         if f == "chat" and st not in ("actioned", "dismissed"))


def test_folding_keeps_every_count(client, engine):
    for i in range(5):
        _ingest(client, chat_finding(i, player=f"p-f{i}"), hit_and_run(i))
    with make_sessions(engine)() as s:
        before = s.scalar(select(func.count()).select_from(CaseCount))
    assert before >= 2
    counters.fold(engine)
    with make_sessions(engine)() as s:
        assert s.scalar(select(func.count()).select_from(CaseCount)) == 2
    assert _counted(engine) == _truth(engine) == {("chat", "open"): 5, ("seat", "open"): 5}
    with make_sessions(engine)() as s:
        counters.recount(s)
        s.commit()
    assert _counted(engine) == _truth(engine)


def test_concurrent_writers_keep_the_counters_exact(client, users, engine):
    """Ingesting threads, a bulk close and folds at once (PostgreSQL: truly parallel; SQLite: the
    writers take turns, with retries when the database is busy)."""
    errors: list[BaseException] = []

    def ingest(k: int) -> None:
        try:
            for j in range(6):
                n = 1000 + k * 100 + j
                for _ in range(20):
                    r = client.post("/v1/findings/batch", headers=SVC, json=batch(
                        hit_and_run(n), chat_finding(n, player=f"p-x{n}", table=f"t-x{n}")))
                    if r.status_code == 200:
                        break
                assert r.status_code == 200, r.text
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def folds() -> None:
        for _ in range(10):
            counters.fold(engine)

    _ingest(client, *(hit_and_run(i) for i in range(20)))
    mod = users.headers("moderator")
    threads = [threading.Thread(target=ingest, args=(k,)) for k in range(4)] + [threading.Thread(target=folds)]
    for t in threads:
        t.start()
    ids = [c["id"] for c in client.get("/v1/cases", params={"family": "seat", "limit": 20, "sort": "oldest"},
                                       headers=mod).json()["items"]]
    r = client.post("/v1/cases/bulk-close", headers=mod, json={"case_ids": ids, "outcome": "actioned",
                                                                 "reason": "blocks stand"})
    for t in threads:
        t.join()
    assert not errors, errors
    assert r.status_code in (200, 503), r.text
    assert _counted(engine) == _truth(engine)
    assert sum(_truth(engine).values()) == 20 + 4 * 6 * 2


def test_console_counts_exact_inline_and_filtered_after_the_page(client, users):
    _ingest(client, *(hit_and_run(i) for i in range(12)), bumhunting(1), chat_finding(1, player="p-alice"))
    login_console(client, users, name="mod_counts")
    plain = client.get("/console/?family=seat").text
    assert 'seat <span class="count">13</span>' in plain and "data-counts=" not in plain
    filtered = client.get("/console/?family=seat&category=bumhunting").text
    assert 'data-counts="/console/queue-counts?' in filtered and '<span class="count" data-family="seat"></span>' in filtered
    counts = client.get("/console/queue-counts", params={"family": "seat", "category": "bumhunting"})
    assert counts.status_code == 200
    assert counts.json()["families"]["seat"] == "1" and counts.json()["statuses"]["open"] == "1"
    assert counts.json()["families"]["chat"] == "0"
    bad = client.get("/console/queue-counts", params={"family": "poker"})
    assert bad.status_code == 422


def test_detector_filter_within_a_family_uses_the_tag_family(client, users):
    _ingest(client, hit_and_run(1), chat_finding(1, player="p-alice"))
    ann = users.headers("analyst")
    got = client.get("/v1/cases", params={"family": "seat", "detector": "seat.hit_and_run"}, headers=ann).json()
    assert [c["subject_id"] for c in got["items"]] == ["p-hr1"]
    none = client.get("/v1/cases", params={"family": "chat", "detector": "seat.hit_and_run"}, headers=ann).json()
    assert none["items"] == []
    every = client.get("/v1/cases", params={"detector": "seat.hit_and_run"}, headers=ann).json()
    assert [c["subject_id"] for c in every["items"]] == ["p-hr1"]
    later = client.get("/v1/cases", params={"family": "chat", "detector": "chat.banned_words"}, headers=ann).json()
    assert [c["subject_id"] for c in later["items"]] == ["p-alice"]
