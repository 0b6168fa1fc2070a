"""The consumers load the promoted chat model without a redeploy: a promoted version is downloaded,
verified and triggers the lanes' restart; a corrupt one is refused and the old model keeps serving."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.db import make_engine, make_sessions, migrate
from api.deps import ApiConfig
from api.models_registry import service
from api.models_registry.store import ArtifactStore
from models.chat.artifact import DEFAULT_PATH
from railbird.model_watch import ApiModelSource, ModelWatch, ServingModel, initial
from railbird.settings import Settings
from railbird.wiring import load_chat_classifier, with_model
from tests import model_artifacts as arts

TOKEN = "test-service-token"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@dataclass
class Room:
    """A review API with a registry, and the consumer's view of it."""

    client: TestClient
    settings: Settings
    sessions: object

    def source(self) -> ApiModelSource:
        return ApiModelSource("http://testserver", TOKEN, 10.0, client=self.client)

    def register_and_promote(self, path: Path) -> int:
        store = ArtifactStore(self.settings.data_dir / "models")
        with make_sessions(self.client.app.state.engine)() as s:  # type: ignore[attr-defined]
            row, _ = service.register(s, store, path=path, expected_sha256=None, actor="admin", note="", now=NOW)
            service.promote(s, store, version=row.version, actor="admin", reason="test", confirm=True,
                            shipped=DEFAULT_PATH, now=NOW)
            return row.version


@pytest.fixture(scope="module")
def candidates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("candidates")
    return {"a": arts.candidate(root / "a.skops", shift=0.02), "b": arts.candidate(root / "b.skops", shift=-0.02)}


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    settings = Settings(env="test", data_dir=tmp_path / "api", service_token=TOKEN, relay_enabled=False)
    engine = make_engine(f"sqlite:///{tmp_path / 'railbird.db'}")
    migrate(engine)
    app = create_app(settings=settings, config=ApiConfig(service_token=TOKEN, env="test"), engine=engine,
                     run_migrations=False)
    with TestClient(app) as client:
        yield Room(client, settings, make_sessions(engine))
    engine.dispose()


def test_nothing_promoted_serves_the_configured_artifact(room: Room, tmp_path: Path):
    start = initial(room.source(), cache_dir=tmp_path / "cache", configured=DEFAULT_PATH)
    assert start.version == 0 and start.path is None
    assert start.sha256 == hashlib.sha256(DEFAULT_PATH.read_bytes()).hexdigest()
    watch = ModelWatch(room.source(), tmp_path / "cache", start, every_s=0)
    assert watch.check() is None and watch.latest is None


def test_a_promoted_version_is_downloaded_verified_and_restarts_the_lanes(room: Room, candidates, tmp_path: Path):
    cache = tmp_path / "consumer-cache"
    start = initial(room.source(), cache_dir=cache, configured=DEFAULT_PATH)
    version = room.register_and_promote(candidates["a"])
    watch = ModelWatch(room.source(), cache, start, every_s=0.05)
    stop = threading.Event()
    thread = watch.start(stop)
    assert stop.wait(120), "the watch never stopped the lanes for the promoted model"
    assert thread is not None
    thread.join(30)  # the poll that stopped the lanes has returned: nothing runs against the API any more
    model = watch.latest
    assert model is not None and model.version == version
    assert model.path == cache / "models" / f"{model.sha256}.skops"
    assert model.path.read_bytes() == candidates["a"].read_bytes()
    # The rebuilt lanes' classifier is the promoted model (its thresholds are the shipped ones + 0.02).
    served = load_chat_classifier(with_model(Settings(env="test", data_dir=tmp_path), model))
    shipped = arts.shipped()
    assert served.model.thresholds["insult"] == pytest.approx(min(0.99, shipped.thresholds["insult"] + 0.02))
    # A restart finds it promoted and verified in the cache: no change, nothing to do.
    again = ModelWatch(room.source(), cache, model, every_s=0)
    assert again.check() is None
    assert initial(room.source(), cache_dir=cache, configured=DEFAULT_PATH) == model


def test_a_corrupt_artifact_is_refused_once_and_the_old_model_keeps_serving(room: Room, candidates, tmp_path: Path,
                                                                            caplog: pytest.LogCaptureFixture):
    cache = tmp_path / "consumer-cache"
    current = ServingModel(0, hashlib.sha256(DEFAULT_PATH.read_bytes()).hexdigest())
    room.register_and_promote(candidates["b"])
    sha = hashlib.sha256(candidates["b"].read_bytes()).hexdigest()
    stored = room.settings.data_dir / "models" / f"{sha}.skops"
    stored.write_bytes(stored.read_bytes()[: 1 << 20])  # the API's copy broke after promotion
    watch = ModelWatch(room.source(), cache, current, every_s=0.02)
    stop = threading.Event()
    with caplog.at_level(logging.INFO, logger="railbird.models"):
        assert watch.check() is None
        thread = watch.start(stop)  # later polls see the same digest: refused again without a download or a log
        assert not stop.wait(1.0), "a refused model stopped the lanes"
        stop.set()
        assert thread is not None
        thread.join(30)  # before the API goes away with the fixture
    assert watch.latest is None and watch.current == current
    assert "sha256 mismatch" in watch.refused[sha]
    refusals = [r for r in caplog.records if "not served" in r.getMessage()]
    assert len(refusals) == 1 and "still serving version 0" in refusals[0].getMessage()
    assert not (cache / "models" / f"{sha}.skops").exists()
    assert [p.name for p in (cache / "models").iterdir()] == []  # no half-written download left behind


def test_an_unreachable_api_keeps_the_current_model(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    source = ApiModelSource("http://127.0.0.1:9", TOKEN, 0.5)
    start = initial(source, cache_dir=tmp_path, configured=DEFAULT_PATH)
    assert start.version == 0 and start.path is None
    watch = ModelWatch(source, tmp_path, start, every_s=0)
    with caplog.at_level(logging.WARNING, logger="railbird.models"):
        assert watch.check() is None
    assert "promoted chat model unavailable" in caplog.text


def test_consume_rebuilds_the_lanes_with_the_new_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """`railbird consume`'s loop: a model watch that found a new version restarts `serve` with
    settings naming the downloaded file; a run that ends with nothing new returns its code."""
    import argparse

    from railbird import wiring
    from railbird.commands import consume

    downloaded = ServingModel(5, "ab" * 32, tmp_path / "v5.skops")
    built: list[Path | None] = []
    calls: list[int] = []

    def factory(settings: Settings, policy: object, shadow_model: Path | None) -> object:
        assert shadow_model is None  # no policy, so no candidate model in shadow
        built.append(settings.chat_model_path)
        return dict

    def serve(settings: Settings, **kw: object) -> int:
        calls.append(1)
        watch = kw["model_watch"]
        assert isinstance(watch, ModelWatch)
        if len(calls) == 1:
            watch.latest = downloaded  # what the watch's thread leaves after a verified download
        return 0

    monkeypatch.setattr(wiring, "fetch_policy", lambda settings: None)
    monkeypatch.setattr(wiring, "initial_model", lambda settings: ServingModel(0, "cd" * 32))
    monkeypatch.setattr(wiring, "make_detector_factory", factory)
    monkeypatch.setattr(consume, "serve", serve)
    code = consume.run(argparse.Namespace(all=True, topic=None, metrics_port=0),
                       Settings(env="test", data_dir=tmp_path))
    assert code == 0 and len(calls) == 2
    assert built == [None, downloaded.path]
