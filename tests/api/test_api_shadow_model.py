"""A registered chat model in shadow: the policy pins the version's sha256 from the registry, serves
it to the consumers, and refuses an unknown version, the model in force, or a model with nothing
(or nothing chat) to run it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from api_support import login_console
from fastapi.testclient import TestClient

from api.db import make_sessions
from api.models_registry import service
from api.models_registry.store import ArtifactStore
from models.chat.artifact import DEFAULT_PATH
from railbird.settings import Settings
from tests import model_artifacts as arts

SVC = {"Authorization": "Bearer test-service-token"}
NOW_REASON = "trial the retrained model"


@pytest.fixture(scope="module")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return arts.candidate(tmp_path_factory.mktemp("shadow-model") / "cand.skops", shift=-0.05)


def register(client: TestClient, settings: Settings, path: Path, *, promote: bool = False) -> int:
    store = ArtifactStore(settings.data_dir / "models")
    from datetime import UTC, datetime

    now = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
    with make_sessions(client.app.state.engine)() as s:  # type: ignore[attr-defined]
        row, _ = service.register(s, store, path=path, expected_sha256=None, actor="admin", note="", now=now)
        if promote:
            service.promote(s, store, version=row.version, actor="admin", reason="x", confirm=True,
                            shipped=DEFAULT_PATH, now=now)
        return row.version


def test_a_candidate_model_is_pinned_and_served_to_the_consumers(client, users, settings, artifact):
    version = register(client, settings, artifact)
    adm = users.headers("admin")
    r = client.patch("/v1/admin/policy", headers=adm, json={
        "shadow": {"detectors": ["chat.classifier", "chat.harassment"], "model_version": version},
        "reason": NOW_REASON})
    assert r.status_code == 200, r.text
    served = client.get("/v1/policy", headers=SVC).json()["shadow"]
    assert served["model_version"] == version
    assert served["model_sha256"] == hashlib.sha256(artifact.read_bytes()).hexdigest()
    changes = [e for e in client.get("/v1/audit", headers=adm).json() if e["action"] == "policy.change"]
    assert len(changes) == 1 and f'"model_version":{version}' in changes[0]["payload"]
    # The same candidate again is no change; dropping the model is one.
    again = client.patch("/v1/admin/policy", headers=adm, json={
        "shadow": {"detectors": ["chat.classifier", "chat.harassment"], "model_version": version}, "reason": "x"})
    assert again.json()["revision"] == r.json()["revision"]
    off = client.patch("/v1/admin/policy", headers=adm, json={
        "shadow": {"detectors": ["chat.classifier"]}, "reason": "back to the live model"})
    assert off.json()["shadow"]["model_version"] is None and off.json()["shadow"]["model_sha256"] is None


@pytest.mark.parametrize(("shadow", "reason"), [
    ({"detectors": ["chat.classifier"], "model_version": 99}, "no model version 99 in the registry"),
    ({"detectors": [], "model_version": "V"}, "name the detectors to run"),
    ({"detectors": ["seat.hit_and_run"], "model_version": "V"}, "needs a chat detector in shadow"),
    ({"detectors": ["chat.classifier"], "model_version": 0}, "greater than or equal to 1"),
])
def test_a_shadow_model_that_cannot_run_is_refused_with_the_reason(client, users, settings, artifact, shadow, reason):
    version = register(client, settings, artifact)
    body = {**shadow, "model_version": version if shadow["model_version"] == "V" else shadow["model_version"]}
    r = client.patch("/v1/admin/policy", headers=users.headers("admin"), json={"shadow": body, "reason": "x"})
    assert r.status_code == 422 and reason in r.text, r.text
    assert client.get("/v1/policy", headers=SVC).json()["revision"] == 0


def test_the_model_in_force_is_not_shadowed_against_itself(client, users, settings, artifact):
    version = register(client, settings, artifact, promote=True)
    r = client.patch("/v1/admin/policy", headers=users.headers("admin"), json={
        "shadow": {"detectors": ["chat.classifier"], "model_version": version}, "reason": "x"})
    assert r.status_code == 422 and "is the model in force" in r.text


def test_the_policy_page_sets_a_candidate_model_and_the_shadow_page_names_it(client, users, settings, artifact):
    version = register(client, settings, artifact)
    csrf = login_console(client, users, role="admin", name="adm_shadow_model")
    assert 'name="shadow_model_version"' in client.get("/console/admin/policy").text
    r = client.post("/console/admin/policy", data={
        "csrf": csrf, "expected_revision": "0", "rules_version": "id-vi-2022-09-28", "auto_mute_enabled": "on",
        "shadow_detector_chat.classifier": "on", "shadow_model_version": str(version), "reason": "trial"},
        follow_redirects=True)
    assert "Policy changed" in r.text, r.text
    assert client.get("/v1/policy", headers=SVC).json()["shadow"]["model_version"] == version
    assert f'name="shadow_model_version" inputmode="numeric" maxlength="8" value="{version}"' in \
        client.get("/console/admin/policy").text
    assert f"scoring chat with model version {version}" in client.get("/console/shadow").text
    bad = client.post("/console/admin/policy", data={
        "csrf": csrf, "expected_revision": "1", "rules_version": "id-vi-2022-09-28", "auto_mute_enabled": "on",
        "shadow_detector_chat.classifier": "on", "shadow_model_version": "42", "reason": "typo"},
        follow_redirects=True)
    assert "no model version 42" in bad.text and client.get("/v1/policy", headers=SVC).json()["revision"] == 1
