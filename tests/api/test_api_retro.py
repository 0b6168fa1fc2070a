"""Retroactive runs through the admin API and the worker: over archived events that were streamed
the diff against what was flagged at the time is empty; a policy revision with a higher insult
threshold shows the findings it would not have flagged; bad requests are refused with a reason;
a failing run records its error; everything audited. SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from api_support import FakeClock, Users, login_console
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from api.db import make_sessions
from consumers.archive import ArchivedRecord, SegmentWriter
from pipeline.contracts import Event
from pipeline.findings import Finding
from pipeline.runner import Pipeline
from railbird.retro_jobs import Sources, archive_root, work
from railbird.settings import Settings
from railbird.wiring import make_detector_factory, rules_from
from simulator import Room, RoomConfig

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
"""The room's start: three hours before the test clock (2026-03-01 12:00)."""
RANGE = (START + timedelta(minutes=4), START + timedelta(minutes=11))


@pytest.fixture(scope="module")
def room() -> list[tuple[str, Event]]:
    return list(Room(RoomConfig.for_profile("demo", seed=11, minutes=14, players=60, start=START)).events())


@pytest.fixture(scope="module")
def live_findings(room: list[tuple[str, Event]]) -> list[Finding]:
    """What the consumers flagged: the pipeline the stream builds from the settings, every event."""
    settings = Settings(env="test")
    pipeline = Pipeline(make_detector_factory(settings)(), rules=rules_from(settings))
    return pipeline.process_all(room) + list(pipeline.flush().findings)


def stream(client: TestClient, settings: Settings, room: list[tuple[str, Event]], findings: list[Finding]) -> None:
    """The archiver's copy of the events and the API's copy of the findings."""
    writer = SegmentWriter(archive_root(settings), name="test")
    writer.append(ArchivedRecord(topic, 0, n, int(event.ts.timestamp() * 1000), event.model_dump_json().encode())
                  for n, (topic, event) in enumerate(room))
    writer.close()
    for i in range(0, len(findings), 1000):
        body = {"findings": [f.model_dump(mode="json") for f in findings[i:i + 1000]]}
        r = client.post("/v1/findings/batch", json=body, headers={"Authorization": "Bearer test-service-token"})
        assert r.status_code == 200, r.text


def no_kafka(lo: int, hi: int) -> Iterator[ArchivedRecord]:
    raise ConnectionError("no broker in this test")


def run_queue(engine: Engine, settings: Settings, kafka: Callable[[int, int], Iterator[ArchivedRecord]] = no_kafka) -> int:
    return work(settings=settings, sessions=make_sessions(engine),
                sources=Sources(archive=archive_root(settings), kafka=kafka), stop=threading.Event(), once=True)


def queue(client: TestClient, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    payload = {"start": RANGE[0].isoformat(), "end": RANGE[1].isoformat(), "warmup_hours": 1.0, "reason": "check"}
    r = client.post("/v1/retro-runs", headers=headers, json=payload | body)
    assert r.status_code == 201, r.text
    assert r.json()["status"] == "queued"
    return dict(r.json())


def test_a_run_over_streamed_events_has_an_empty_diff_and_a_higher_threshold_shows_gone_findings(
    client: TestClient, users: Users, engine: Engine, settings: Settings, clock: FakeClock,
    room: list[tuple[str, Event]], live_findings: list[Finding],
) -> None:
    stream(client, settings, room, live_findings)
    adm = users.headers("admin")
    in_range = [f for f in live_findings if RANGE[0] <= f.ts < RANGE[1]]
    assert len(in_range) > 30

    first = queue(client, adm)
    assert run_queue(engine, settings) == 1
    done = client.get(f"/v1/retro-runs/{first['id']}", headers=adm).json()
    assert done["status"] == "done", done["error"]
    assert done["progress"] == 1.0 and done["events_read"] > 0 and done["policy_revision"] == 0
    diff = done["result"]["diff"]
    assert diff["empty"] and diff["same"] == len(in_range) == done["result"]["flagged_then"]
    assert {d["detector"] for d in diff["detectors"]} == {f.detector for f in in_range}
    # The hour of warm-up before the archive's first hour was asked of Kafka (auto), which failed:
    # a warning, not a failure (the room starts with the archive, so nothing was missing).
    assert done["result"]["records_by_source"] == {"archive": len(room)}
    assert len(done["result"]["warnings"]) == 1 and "no broker in this test" in done["result"]["warnings"][0]

    r = client.patch("/v1/admin/policy", headers=adm, json={
        "category_thresholds": {"insult": 0.999}, "reason": "fewer insult flags?"})
    assert r.status_code == 200 and r.json()["revision"] == 1
    clock.advance(minutes=1)
    second = queue(client, adm, policy_revision=1, detectors=["chat.classifier", "chat.banned_words"])
    assert run_queue(engine, settings) == 1
    changed = client.get(f"/v1/retro-runs/{second['id']}", headers=adm).json()
    assert changed["status"] == "done", changed["error"]
    diff = changed["result"]["diff"]
    assert diff["gone"] > 0 and not diff["empty"] and diff["new"] == 0
    assert {d["detector"] for d in diff["detectors"]} <= {"chat.classifier", "chat.banned_words"}
    gone = [e for d in diff["detectors"] for e in d["gone_examples"]]
    assert gone and all(e["category"] == "insult" for e in gone)
    then = {f.finding_id for f in in_range}
    assert all(e["finding_id"] in then for e in gone)

    listed = client.get("/v1/retro-runs", headers=adm).json()["runs"]
    assert [run["id"] for run in listed] == [second["id"], first["id"]]
    actions = [e["action"] for e in client.get("/v1/audit", headers=adm).json() if e["entity_type"] == "retro_run"]
    assert actions.count("retro_run.create") == 2 and actions.count("retro_run.done") == 2
    assert client.get("/v1/audit/verify", headers=adm).json()["ok"]


def test_a_failing_run_records_its_error(client: TestClient, users: Users, engine: Engine, settings: Settings,
                                         clock: FakeClock) -> None:
    adm = users.headers("admin")
    broken = queue(client, adm, source="kafka")

    def unreachable(lo: int, hi: int) -> Iterator[ArchivedRecord]:
        raise ConnectionError("broker down")

    assert run_queue(engine, settings, unreachable) == 1
    failed = client.get(f"/v1/retro-runs/{broken['id']}", headers=adm).json()
    assert failed["status"] == "failed" and "broker down" in failed["error"] and failed["result"] is None

    empty = queue(client, adm, source="kafka")
    assert run_queue(engine, settings, lambda lo, hi: iter(())) == 1
    nothing = client.get(f"/v1/retro-runs/{empty['id']}", headers=adm).json()
    assert nothing["status"] == "failed" and "no stored events" in nothing["error"]
    actions = [e["action"] for e in client.get("/v1/audit", headers=adm).json() if e["entity_type"] == "retro_run"]
    assert actions.count("retro_run.fail") == 2


@pytest.mark.parametrize(("body", "reason"), [
    ({"start": RANGE[1].isoformat(), "end": RANGE[0].isoformat()}, "must be after start"),
    ({"end": "2026-03-01T12:30:00+00:00"}, "in the future"),
    ({"start": "2025-01-01T00:00:00+00:00"}, "retention"),
    ({"detectors": ["chat.classifier", "chat.mind_reader"]}, "unknown detector"),
    ({"detectors": []}, "at least one detector"),
    ({"policy_revision": 7}, "policy revision 7 does not exist"),
    ({"source": "archive"}, "no events are archived"),
    ({"start": "2026-03-01T10:00:00"}, "timezone"),
    ({"source": "tape"}, "auto"),
    ({"reason": ""}, "reason"),
])
def test_bad_requests_are_refused_with_the_reason(client: TestClient, users: Users, settings: Settings,
                                                  body: dict[str, Any], reason: str) -> None:
    payload = {"start": RANGE[0].isoformat(), "end": RANGE[1].isoformat(), "reason": "x"} | body
    r = client.post("/v1/retro-runs", headers=users.headers("admin"), json=payload)
    assert r.status_code == 422 and reason in r.text, r.text


def test_auto_is_refused_within_the_archives_time_when_it_holds_nothing_there(
    client: TestClient, users: Users, settings: Settings
) -> None:
    writer = SegmentWriter(archive_root(settings), name="t")
    writer.append([ArchivedRecord("chat.messages", 0, 0, int(START.timestamp() * 1000), b"{}")])
    writer.close()
    adm = users.headers("admin")
    later = {"start": (START + timedelta(hours=2)).isoformat(), "end": (START + timedelta(hours=2, minutes=5)).isoformat(),
             "reason": "x"}
    r = client.post("/v1/retro-runs", headers=adm, json=later)
    assert r.status_code == 422 and "no events are archived" in r.text
    before = {"start": (START - timedelta(hours=2)).isoformat(), "end": (START - timedelta(hours=1)).isoformat(),
              "reason": "older than the archive: Kafka may hold it"}
    assert client.post("/v1/retro-runs", headers=adm, json=before).status_code == 201


def test_only_admins_queue_and_read_runs(client: TestClient, users: Users) -> None:
    body = {"start": RANGE[0].isoformat(), "end": RANGE[1].isoformat(), "reason": "x", "source": "kafka"}
    for role in ("analyst", "senior", "service"):
        headers = users.headers(role)
        assert client.post("/v1/retro-runs", headers=headers, json=body).status_code == 403
        assert client.get("/v1/retro-runs", headers=headers).status_code == 403
    assert client.get("/v1/retro-runs/retro_nope", headers=users.headers("admin")).status_code == 404


def test_admin_starts_a_run_on_the_console_and_watches_it_finish(
    client: TestClient, users: Users, engine: Engine, settings: Settings
) -> None:
    csrf = login_console(client, users, role="admin", name="adm_retro")
    page = client.get("/console/admin/retro")
    assert page.status_code == 200 and "No runs yet." in page.text and 'value="chat.classifier"' in page.text
    bad = client.post("/console/admin/retro", data={"csrf": csrf, "start": "2026-03-01T09:10", "end": "2026-03-01T09:00",
                                                     "source": "kafka", "reason": "x"}, follow_redirects=True)
    assert "must be after start" in bad.text
    r = client.post("/console/admin/retro", data={
        "csrf": csrf, "start": "2026-03-01T09:00", "end": "2026-03-01T09:03", "source": "kafka", "warmup_hours": "0",
        "detectors": "", "policy_revision": "", "reason": "what would flag?"}, follow_redirects=True)
    assert "queued" in r.text and 'http-equiv="refresh"' in r.text and "<progress" in r.text
    quiet = Room(RoomConfig(seed=3, players=40, minutes=3, start=START, hands=False))
    records = [ArchivedRecord(t, 0, n, int(e.ts.timestamp() * 1000), e.model_dump_json().encode())
               for n, (t, e) in enumerate(quiet.events())]
    assert run_queue(engine, settings, lambda lo, hi: iter(records)) == 1
    run_id = client.get("/v1/retro-runs", headers=users.headers("admin")).json()["runs"][0]["id"]
    done = client.get(f"/console/admin/retro?run={run_id}").text
    assert 'id="retro-summary"' in done and 'http-equiv="refresh"' not in done and "<strong>0</strong> gone" in done
    assert "2026-03-01 09:00 to 2026-03-01 09:03" in done
    assert client.post("/console/admin/retro", data={"csrf": "forged", "reason": "x"}).status_code == 403


@pytest.mark.parametrize("role", ["analyst", "moderator", "senior"])
def test_only_admins_reach_the_retro_page(client: TestClient, users: Users, role: str) -> None:
    csrf = login_console(client, users, role=role, name=f"{role}_retro")
    assert client.get("/console/admin/retro").status_code == 403
    assert client.post("/console/admin/retro", data={"csrf": csrf, "reason": "x"}).status_code == 403
    assert 'href="/console/admin/retro"' not in client.get("/console/").text


def test_the_command_line_refuses_with_the_reason_and_runs_a_range_at_once(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from railbird.cli import main

    monkeypatch.setenv("RAILBIRD_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RAILBIRD_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.setenv("RAILBIRD_ENV", "test")
    quiet = Room(RoomConfig(seed=4, players=40, minutes=5, start=START, hands=False))
    writer = SegmentWriter(tmp_path / "archive", name="cli")
    writer.append(ArchivedRecord(t, 0, n, int(e.ts.timestamp() * 1000), e.model_dump_json().encode())
                  for n, (t, e) in enumerate(quiet.events()))
    writer.close()
    later = (START + timedelta(minutes=5)).isoformat()
    assert main(["retro", "run", "--start", later, "--end", START.isoformat()]) == 2
    assert "must be after start" in capsys.readouterr().err
    assert main(["retro", "run", "--start", START.isoformat(), "--end", later, "--detectors", "seat.nope"]) == 2
    assert "unknown detector" in capsys.readouterr().err
    code = main(["retro", "run", "--start", START.isoformat(), "--end", later, "--source", "archive",
                 "--warmup-hours", "0", "--detectors", "seat.hit_and_run,chat.flooding"])
    out = capsys.readouterr().out
    assert code == 0, out
    import json

    result = json.loads(out)
    assert result["id"].startswith("retro_") and result["events_in_range"] > 0
    # Nothing was ingested into this database: everything the run finds is new.
    assert result["diff"]["same"] == 0 and result["diff"]["new"] == result["found_now"]
    assert result["records_by_source"] == {"archive": result["events_read"]}
