"""Player history names every player a finding names (pairs, groups, victims), on both backends,
and the 0003 migration backfills the association for findings stored before it."""

from __future__ import annotations

from datetime import timedelta

from alembic import command
from api_factories import T0, batch, chat_finding
from api_support import SERVICE_TOKEN
from sqlalchemy import Engine, select

from api.cases.models import Case
from api.db import alembic_config, make_sessions
from api.findings.models import FindingPlayer, FindingRow
from pipeline.findings import Finding, stable_id

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def collusion(n: int, *players: str) -> Finding:
    """A hand finding about several players, the first being the main subject."""
    return Finding(
        finding_id=stable_id("fnd", "collusion", n, *players), detector="hand.collusion", rule="collusion",
        family="hand", category="chip_dumping", score=0.8, players=players, ts=T0 + timedelta(minutes=n),
        table_id="t-9", summary=f"chips moved from {players[0]} to {players[1]}",
        evidence={"statistics": [{"name": "transfers", "value": 7}]},
    )


def test_history_lists_findings_and_cases_of_every_named_player(client, users):
    r = client.post("/v1/findings/batch", json=batch(collusion(1, "p-dumper", "p-receiver", "p-third"),
                                                      chat_finding(2, player="p-receiver")), headers=SVC)
    assert r.status_code == 200 and r.json()["accepted"] == 2
    ann = users.headers("analyst")
    dumper = client.get("/v1/players/p-dumper", headers=ann).json()
    receiver = client.get("/v1/players/p-receiver", headers=ann).json()
    third = client.get("/v1/players/p-third", headers=ann).json()
    stranger = client.get("/v1/players/p-stranger", headers=ann).json()
    assert [f["category"] for f in dumper["findings"]] == ["chip_dumping"]
    assert sorted(f["category"] for f in receiver["findings"]) == ["chip_dumping", "insult"]
    assert [f["category"] for f in third["findings"]] == ["chip_dumping"]
    case_of_pair = dumper["cases"][0]["id"]
    assert case_of_pair in {c["id"] for c in receiver["cases"]} and len(receiver["cases"]) == 2
    assert [c["id"] for c in third["cases"]] == [case_of_pair]
    assert stranger["findings"] == [] and stranger["cases"] == []


def test_repeated_batch_adds_no_association_twice(client, engine):
    body = batch(collusion(3, "p-a", "p-b"))
    client.post("/v1/findings/batch", json=body, headers=SVC)
    assert client.post("/v1/findings/batch", json=body, headers=SVC).json()["duplicates"] == 1
    with make_sessions(engine)() as s:
        rows = s.execute(select(FindingPlayer.player_id, FindingPlayer.position).order_by(FindingPlayer.position))
        assert list(rows) == [("p-b", 1)], "the subject is findings.subject_id, not a row here"


def test_migration_backfills_findings_stored_before_it(engine: Engine):
    cfg = alembic_config(engine)
    command.downgrade(cfg, "0002")
    try:
        with make_sessions(engine)() as s:
            s.add(Case(id="cas-old", family="hand", category="chip_dumping", rule="collusion", subject_id="p-x",
                       incident="t-9", open_key=None, status="open", priority=50, max_score=0.8, finding_count=1,
                       summary="old", created_at=T0, updated_at=T0))
            s.flush()
            s.add(FindingRow(finding_id="fnd-old", case_id="cas-old", detector="hand.collusion", rule="collusion",
                             family="hand", category="chip_dumping", score=0.8, subject_id="p-x",
                             players=["p-x", "p-y", "p-x"], ts=T0, table_id="t-9", tournament_id=None,
                             summary="old", document={}, ingested_at=T0))
            s.commit()
    finally:
        command.upgrade(cfg, "heads")
    with make_sessions(engine)() as s:
        rows = s.execute(select(FindingPlayer.player_id, FindingPlayer.case_id, FindingPlayer.position,
                                FindingPlayer.ts).order_by(FindingPlayer.position)).all()
    assert rows == [("p-y", "cas-old", 1, T0)]


def test_erasure_moves_the_association_to_the_pseudonym(client, users, engine, clock):
    from api.privacy.players import erase_player

    client.post("/v1/findings/batch", json=batch(collusion(4, "p-dumper", "p-gone")), headers=SVC)
    with make_sessions(engine)() as s:
        alias = erase_player(s, player_id="p-gone", key="k", actor="test", now=clock()).pseudonym
    ann = users.headers("analyst")
    assert client.get("/v1/players/p-gone", headers=ann).json()["findings"] == []
    assert [f["category"] for f in client.get(f"/v1/players/{alias}", headers=ann).json()["findings"]] == ["chip_dumping"]
    assert len(client.get("/v1/players/p-dumper", headers=ann).json()["findings"]) == 1


def test_export_lists_cases_that_name_the_player(client, engine):
    from api.privacy.players import export_player

    client.post("/v1/findings/batch", json=batch(collusion(5, "p-main", "p-partner")), headers=SVC)
    with make_sessions(engine)() as s:
        partner = export_player(s, player_id="p-partner")
        stranger = export_player(s, player_id="p-nobody")
    assert [c["subject_id"] for c in partner["cases"]] == ["p-main"]
    assert [f["category"] for f in partner["findings"]] == ["chip_dumping"]
    assert stranger["cases"] == [] and stranger["findings"] == []
