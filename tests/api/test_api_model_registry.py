"""Model registry: candidates pass their checks or are refused with the reason; promotion, rollback
and retirement are audited and admin-only; a regression on an evaluation set must be confirmed; a
failed promotion leaves the model in force."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import FakeClock, csrf_of, login_console
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from api.app import create_app
from api.db import make_sessions
from api.deps import ApiConfig
from api.models_registry import service
from models.chat.artifact import DEFAULT_PATH
from railbird.settings import Settings
from tests import model_artifacts as arts

SHIPPED_SHA = hashlib.sha256(DEFAULT_PATH.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every artifact the tests upload, written once per module (a save takes seconds)."""
    root = tmp_path_factory.mktemp("artifacts")
    good = arts.candidate(root / "good.skops", shift=0.01)
    return {
        "good": good,
        "good2": arts.candidate(root / "good2.skops", shift=-0.01),
        "no_head": arts.without_last_head(root / "no_head.skops"),
        "small_talk": arts.flags_small_talk(root / "small_talk.skops"),
        "format4": arts.other_format(root / "format4.skops"),
        "garbage": arts.garbage(root / "garbage.skops"),
        "truncated": arts.truncated(root / "truncated.skops", good),
    }


@pytest.fixture
def client(engine: Engine, settings: Settings, clock: FakeClock) -> Iterator[TestClient]:
    """The app with a body limit an artifact fits in (the shared fixture allows 2 MB)."""
    config = ApiConfig(service_token="test-service-token", env="test", clock=clock, max_body_bytes=64 << 20)
    with TestClient(create_app(settings=settings, config=config, engine=engine, run_migrations=False)) as c:
        yield c


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def upload(client: TestClient, headers: dict[str, str], path: Path, *, digest: str | None = None,
           note: str = "") -> Any:
    return client.post("/v1/models", params={"sha256": digest or sha(path), "note": note}, content=path.read_bytes(),
                       headers={**headers, "Content-Type": "application/octet-stream"})


def audit_actions(client: TestClient, adm: dict[str, str]) -> list[str]:
    return [e["action"] for e in client.get("/v1/audit", headers=adm).json() if e["action"].startswith("model.")]


def test_a_candidate_is_checked_registered_once_and_the_shipped_model_stays_in_force(client, users, files, settings):
    adm = users.headers("admin")
    r = upload(client, adm, files["good"], note="thresholds +0.01")
    assert r.status_code == 201, r.text
    body = r.json()
    assert (body["version"], body["status"], body["created"], body["sha256"]) == (1, "candidate", True,
                                                                                   sha(files["good"]))
    assert body["size"] == files["good"].stat().st_size and body["format"] == "skops-chat-5"
    assert body["checks"]["format_version"] == 5 and "hand_in_play" in body["checks"]["heads"]
    assert body["checks"]["sanity"]["you are a worthless idiot"]["flagged"]
    stored = settings.data_dir / "models" / f"{body['sha256']}.skops"
    assert stored.read_bytes() == files["good"].read_bytes()
    again = upload(client, adm, files["good"])
    assert again.status_code == 200 and again.json()["version"] == 1 and not again.json()["created"]
    assert audit_actions(client, adm) == ["model.register"]
    # Nothing promoted yet: the consumers are told to serve the shipped artifact, and can fetch it.
    promoted = client.get("/v1/models/promoted", headers=users.headers("service")).json()
    assert (promoted["version"], promoted["sha256"], promoted["source"]) == (0, SHIPPED_SHA, "shipped")
    listing = client.get("/v1/models", headers=adm).json()
    assert [v["version"] for v in listing["versions"]] == [1] and listing["in_force"]["version"] == 0


@pytest.mark.parametrize(("kind", "reason"), [
    ("garbage", "not a skops chat model archive"),
    ("truncated", "not a skops chat model archive"),
    ("format4", "format version 4, expected 5"),
    ("no_head", "no head for hand_in_play"),
    ("small_talk", "clean line 'nice hand, gl all' flagged"),
    ("sha_mismatch", "sha256 mismatch"),
])
def test_an_artifact_failing_a_check_is_refused_with_its_reason(client, users, files, kind, reason):
    adm = users.headers("admin")
    path = files["good"] if kind == "sha_mismatch" else files[kind]
    r = upload(client, adm, path, digest="0" * 64 if kind == "sha_mismatch" else None)
    assert r.status_code == 422, r.text
    assert reason in r.json()["detail"]
    assert client.get("/v1/models", headers=adm).json()["versions"] == []
    assert audit_actions(client, adm) == ["model.refuse"]
    assert client.get("/v1/audit/verify", headers=adm).json()["ok"]


def test_promote_rollback_and_retire_are_audited_and_move_the_model_in_force(client, users, files):
    adm = users.headers("admin", "admin1")
    v1 = upload(client, adm, files["good"]).json()["version"]
    v2 = upload(client, adm, files["good2"]).json()["version"]
    # Never compared: promoting needs the explicit confirmation, and says why.
    refused = client.post(f"/v1/models/{v1}/promote", headers=adm, json={"reason": "first"})
    assert refused.status_code == 409 and "never compared" in refused.json()["detail"]
    assert client.post(f"/v1/models/{v1}/promote", headers=adm, json={"confirm_regressions": True}).status_code == 422
    ok = client.post(f"/v1/models/{v1}/promote", headers=adm, json={"reason": "first", "confirm_regressions": True})
    assert ok.status_code == 200, ok.text
    assert (ok.json()["version"], ok.json()["sha256"], ok.json()["promoted_by"]) == (v1, sha(files["good"]), "admin1")
    svc = users.headers("service")
    seen = client.get("/v1/models/promoted", headers=svc).json()
    assert seen["version"] == v1
    blob = client.get(f"/v1/models/{v1}/artifact", headers=svc)
    assert blob.status_code == 200 and hashlib.sha256(blob.content).hexdigest() == seen["sha256"]
    assert client.post(f"/v1/models/{v1}/promote", headers=adm,
                       json={"reason": "again", "confirm_regressions": True}).status_code == 409
    client.post(f"/v1/models/{v2}/promote", headers=adm, json={"reason": "second", "confirm_regressions": True})
    statuses = {v["version"]: v["status"] for v in client.get("/v1/models", headers=adm).json()["versions"]}
    assert statuses == {v1: "retired", v2: "promoted"}
    assert client.post(f"/v1/models/{v2}/retire", headers=adm, json={"reason": "x"}).status_code == 409
    back = client.post("/v1/models/rollback", headers=adm, json={"reason": "v2 mutes too much"})
    assert back.status_code == 200 and back.json()["version"] == v1
    statuses = {v["version"]: v["status"] for v in client.get("/v1/models", headers=adm).json()["versions"]}
    assert statuses == {v1: "promoted", v2: "retired"}
    # Rolling back again returns to what was in force before v1: the shipped artifact; then nothing is left.
    assert client.post("/v1/models/rollback", headers=adm, json={"reason": "all"}).json()["version"] == 0
    assert client.get("/v1/models/promoted", headers=svc).json()["sha256"] == SHIPPED_SHA
    assert client.post("/v1/models/rollback", headers=adm, json={"reason": "more"}).status_code == 409
    # The rollback retired v2 already: retiring it again changes nothing and writes nothing.
    assert client.post(f"/v1/models/{v2}/retire", headers=adm, json={"reason": "done"}).json()["status"] == "retired"
    assert audit_actions(client, adm) == ["model.rollback", "model.rollback", "model.promote",
                                          "model.promote", "model.register", "model.register"]
    entries = client.get("/v1/audit", headers=adm).json()
    promote_v1 = next(e for e in entries if e["action"] == "model.promote" and e["entity_id"] == str(v1))
    payload = json.loads(promote_v1["payload"])
    assert payload["previous_sha256"] == SHIPPED_SHA and payload["reason"] == "first"
    assert payload["confirmed_warnings"] and promote_v1["actor"] == "admin1"
    history = client.get("/v1/models", headers=adm).json()["history"]
    assert [(h["action"], h["version"]) for h in history] == [("rollback", 0), ("rollback", v1),
                                                              ("promote", v2), ("promote", v1)]
    assert client.get("/v1/audit/verify", headers=adm).json()["ok"]


def comparison_for(path: Path, baseline_sha: str, deltas: dict[str, float]) -> dict[str, Any]:
    """A comparison document like `models.chat.compare.compare` writes, with chosen ROC-AUCs."""
    sets = {name: {"n": 100, "positives": 20, "candidate": {"roc_auc": round(0.9 + d, 4)},
                   "baseline": {"roc_auc": 0.9}, "delta_roc_auc": d} for name, d in deltas.items()}
    return {"candidate": {"version": 1, "sha256": sha(path)}, "baseline": {"version": 0, "sha256": baseline_sha},
            "sets": sets, "tolerance": 0.01}


def test_a_regression_beyond_the_tolerance_must_be_confirmed_with_a_reason(client, users, files, engine, clock):
    adm = users.headers("admin")
    v1 = upload(client, adm, files["good"]).json()["version"]
    deltas = {"public:davidson_test_hate": -0.02, "independent_dev:en": -0.005, "decisions:insult": 0.03}
    with make_sessions(engine)() as s:
        service.record_comparison(s, version=v1, comparison=comparison_for(files["good"], SHIPPED_SHA, deltas),
                                  actor="admin", now=clock())
    detail = client.get(f"/v1/models/{v1}", headers=adm).json()
    assert [r["set"] for r in detail["regressions"]] == ["public:davidson_test_hate"] and detail["warnings"] == []
    refused = client.post(f"/v1/models/{v1}/promote", headers=adm, json={"reason": "better on decisions"})
    assert refused.status_code == 409
    assert "public:davidson_test_hate (0.9 -> 0.88)" in refused.json()["detail"]
    assert "independent_dev:en" not in refused.json()["detail"]
    assert client.get("/v1/models/promoted", headers=adm).json()["version"] == 0
    ok = client.post(f"/v1/models/{v1}/promote", headers=adm,
                     json={"reason": "better on decisions", "confirm_regressions": True})
    assert ok.status_code == 200
    assert client.get("/v1/models", headers=adm).json()["history"][0]["confirmed_regressions"] == [
        "public:davidson_test_hate"]
    assert "model.compare" in audit_actions(client, adm)


def test_no_regression_promotes_without_confirmation_and_a_stale_comparison_warns(client, users, files, engine, clock):
    adm = users.headers("admin")
    v1 = upload(client, adm, files["good"]).json()["version"]
    v2 = upload(client, adm, files["good2"]).json()["version"]
    with make_sessions(engine)() as s:
        service.record_comparison(s, version=v1, comparison=comparison_for(files["good"], SHIPPED_SHA,
                                                                           {"independent_dev:en": 0.0}),
                                  actor="admin", now=clock())
        doc = comparison_for(files["good2"], SHIPPED_SHA, {"independent_dev:en": 0.0})
        service.record_comparison(s, version=v2, comparison=doc, actor="admin", now=clock())
        with pytest.raises(service.InvalidError):  # a comparison of other bytes is not this version's
            service.record_comparison(s, version=v2, comparison=comparison_for(files["good"], SHIPPED_SHA, {}),
                                      actor="admin", now=clock())
    assert client.post(f"/v1/models/{v1}/promote", headers=adm, json={"reason": "clean"}).status_code == 200
    # v2 was compared against the shipped model, which is no longer in force.
    stale = client.get(f"/v1/models/{v2}", headers=adm).json()
    assert stale["regressions"] == [] and "not version 1 now in force" in stale["warnings"][0]
    assert client.post(f"/v1/models/{v2}/promote", headers=adm, json={"reason": "x"}).status_code == 409


def test_a_failed_promotion_leaves_the_model_in_force(client, users, files, settings):
    adm = users.headers("admin")
    v1 = upload(client, adm, files["good"]).json()["version"]
    v2 = upload(client, adm, files["good2"]).json()["version"]
    client.post(f"/v1/models/{v1}/promote", headers=adm, json={"reason": "a", "confirm_regressions": True})
    stored = settings.data_dir / "models" / f"{sha(files['good2'])}.skops"
    stored.write_bytes(stored.read_bytes()[:-10] + b"0123456789")
    r = client.post(f"/v1/models/{v2}/promote", headers=adm, json={"reason": "b", "confirm_regressions": True})
    assert r.status_code == 422 and "stored artifact changed" in r.json()["detail"]
    assert client.get("/v1/models/promoted", headers=adm).json()["version"] == v1
    assert client.post("/v1/models/99/promote", headers=adm, json={"reason": "b"}).status_code == 404
    assert client.get("/v1/models/promoted", headers=adm).json()["version"] == v1
    assert audit_actions(client, adm).count("model.promote") == 1


def test_only_admins_change_the_registry_every_role_reads_the_model_in_force(client, users, files):
    adm = users.headers("admin")
    v1 = upload(client, adm, files["good"]).json()["version"]
    for role in ("analyst", "moderator", "senior", "service"):
        h = users.headers(role)
        assert upload(client, h, files["good"]).status_code == 403
        assert client.get("/v1/models", headers=h).status_code == 403
        assert client.get(f"/v1/models/{v1}", headers=h).status_code == 403
        assert client.post(f"/v1/models/{v1}/promote", headers=h,
                           json={"reason": "x", "confirm_regressions": True}).status_code == 403
        assert client.post("/v1/models/rollback", headers=h, json={"reason": "x"}).status_code == 403
        assert client.post(f"/v1/models/{v1}/retire", headers=h, json={"reason": "x"}).status_code == 403
        assert client.get("/v1/models/promoted", headers=h).status_code == 200
        assert client.get(f"/v1/models/{v1}/artifact", headers=h).status_code == 200
    assert client.get("/v1/models/promoted").status_code == 401
    assert client.get("/v1/models/7/artifact", headers=adm).status_code == 404
    assert client.get(f"/v1/models/{10**30}", headers=adm).status_code == 422
    assert client.post(f"/v1/models/{10**30}/promote", headers=adm, json={"reason": "x"}).status_code == 422


def test_the_promotion_page_lists_versions_warns_and_needs_confirmation(client, users, files, engine, clock):
    adm = users.headers("admin")
    v1 = upload(client, adm, files["good"]).json()["version"]
    with make_sessions(engine)() as s:
        service.record_comparison(s, version=v1, comparison=comparison_for(
            files["good"], SHIPPED_SHA, {"public:vihsd_test_hate": -0.03, "independent_dev:vi": 0.01}),
            actor="admin", now=clock())
    csrf = login_console(client, users, role="admin", name="admin2")
    page = client.get("/console/admin/models")
    assert page.status_code == 200
    assert "public:vihsd_test_hate" in page.text and "regresses" in page.text and sha(files["good"])[:12] in page.text
    form = {"csrf": csrf_of(page.text), "reason": "try it"}
    r = client.post(f"/console/admin/models/{v1}/promote", data=form, follow_redirects=True)
    assert "explicit confirmation" in r.text
    assert client.get("/v1/models/promoted", headers=adm).json()["version"] == 0
    r = client.post(f"/console/admin/models/{v1}/promote", data={**form, "confirm_regressions": "on"},
                    follow_redirects=True)
    assert "in force" in r.text and client.get("/v1/models/promoted", headers=adm).json()["version"] == v1
    r = client.post("/console/admin/models/rollback", data={"csrf": csrf, "reason": "back"}, follow_redirects=True)
    assert client.get("/v1/models/promoted", headers=adm).json()["version"] == 0


def test_the_promotion_page_is_for_admins_only(client, users):
    login_console(client, users, role="senior", name="senior1")
    assert client.get("/console/admin/models").status_code == 403
