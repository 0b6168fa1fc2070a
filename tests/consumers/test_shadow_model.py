"""A registered chat model in shadow, on the consumer's side: the candidate the policy pins is
downloaded and verified like a promoted one, and the shadow copies find exactly what a live pipeline
serving that model would find; a candidate that cannot be had turns shadow off, never shadows with
the live model."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.db import make_engine, make_sessions, migrate
from api.deps import ApiConfig
from api.models_registry import service
from api.models_registry.store import ArtifactStore
from api.policy.rules import PolicySettings
from api.policy.shadow import ShadowSettings
from pipeline.registry import build_detectors
from railbird.model_watch import ApiModelSource
from railbird.settings import Settings
from railbird.wiring import load_chat_classifier, make_detector_factory, shadow_model_file
from tests import model_artifacts as arts
from tests.pipeline.test_shadow import LATENESS, LIVE, by_id, run, traffic

TOKEN = "test-service-token"
NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return arts.candidate(tmp_path_factory.mktemp("cand") / "cand.skops", shift=-0.05)


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[TestClient, Settings]]:
    settings = Settings(env="test", data_dir=tmp_path / "api", service_token=TOKEN, relay_enabled=False,
                        rules_version=LIVE.version)
    engine = make_engine(f"sqlite:///{tmp_path / 'railbird.db'}")
    migrate(engine)
    app = create_app(settings=settings, config=ApiConfig(service_token=TOKEN, env="test"), engine=engine,
                     run_migrations=False)
    with TestClient(app) as client:
        yield client, settings
    engine.dispose()


def candidate_policy(client: TestClient, settings: Settings, path: Path, *, sha: str | None = None) -> PolicySettings:
    """The candidate registered (not promoted) and a policy running it in shadow behind chat.classifier."""
    with make_sessions(client.app.state.engine)() as s:  # type: ignore[attr-defined]
        row, _ = service.register(s, ArtifactStore(settings.data_dir / "models"), path=path, expected_sha256=None,
                                  actor="admin", note="", now=NOW)
        version, digest = row.version, row.sha256
    return PolicySettings(rules_version=LIVE.version, shadow=ShadowSettings(
        detectors=("chat.classifier",), model_version=version, model_sha256=sha or digest))


def source(client: TestClient) -> ApiModelSource:
    return ApiModelSource("http://testserver", TOKEN, 10.0, client=client)


def test_the_shadow_copy_scores_with_the_candidate_exactly_as_a_live_one_would(api, artifact):
    client, settings = api
    policy = candidate_policy(client, settings, artifact)
    kept, path = shadow_model_file(settings, policy, source(client))
    assert kept == policy and path is not None
    assert hashlib.sha256(path.read_bytes()).hexdigest() == policy.shadow.model_sha256
    chat = [(t, e) for t, e in traffic() if t == "chat.messages"]
    both = run(make_detector_factory(settings, policy, path)(), chat)
    shadow = by_id(f for f in both if f.shadow and f.detector == "chat.classifier")
    live = by_id(f for f in both if not f.shadow and f.detector == "chat.classifier")
    served = load_chat_classifier(settings.model_copy(update={"chat_model_path": artifact}))
    reference = by_id(f for f in run(build_detectors(rules=LIVE, classifier=served, chat_lateness=LATENESS), chat)
                      if f.detector == "chat.classifier")
    assert shadow == reference
    # The candidate's lower review points flag lines the live model lets through: the copy did not
    # score with the live model.
    assert set(shadow) - set(live) and set(live) <= set(shadow)


def test_a_candidate_that_fails_its_checks_turns_shadow_off(api, artifact, caplog):
    client, settings = api
    policy = candidate_policy(client, settings, artifact, sha="0" * 64)
    with caplog.at_level(logging.ERROR, logger="railbird.wiring"):
        kept, path = shadow_model_file(settings, policy, source(client))
    assert path is None and kept is not None and not kept.shadow.enabled
    assert "cannot run in shadow" in caplog.text and "sha256" in caplog.text


def test_a_policy_naming_a_model_needs_its_file(api, artifact):
    _, settings = api
    policy = PolicySettings(rules_version=LIVE.version, shadow=ShadowSettings(
        detectors=("chat.classifier",), model_version=3, model_sha256="a" * 64))
    with pytest.raises(ValueError, match="version 3 in shadow"):
        make_detector_factory(settings, policy, None)
