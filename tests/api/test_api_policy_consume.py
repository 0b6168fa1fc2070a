"""The real `railbird consume` picks up an admin's policy change while running: before it, a first
threat in chat is muted automatically; after auto-mute is switched off in the API, the same offence
by another player waits for review. Real broker, real API, real consumer process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import httpx
import pytest
from api_support import FakeClock, Users

from api.app import create_app
from api.db import make_engine, migrate
from api.deps import ApiConfig
from consumers.broker import free_port
from pipeline.contracts import CHAT
from railbird.settings import Settings
from tests.consumers.streaming_harness import ROOT, produce, wait_until
from tests.live_server import serve_app
from tests.samples import chat_value

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(300)]
TOKEN = "policy-consume-token"


def _ready(port: int) -> bool:
    try:
        return urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2).status == 200
    except OSError:
        return False


def _sanctions(base: str, headers: dict[str, str], player: str) -> list[dict]:
    return httpx.get(f"{base}/v1/sanctions", params={"player_id": player}, headers=headers, timeout=10).json()


def _findings(base: str, headers: dict[str, str], player: str) -> list[dict]:
    return httpx.get(f"{base}/v1/findings", params={"player_id": player}, headers=headers, timeout=10).json()


def test_consumer_applies_a_policy_change_without_a_redeploy(tmp_path: Path, kafka_broker) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'api.db'}")
    migrate(engine)
    settings = Settings(env="test", data_dir=tmp_path, service_token=TOKEN, relay_enabled=False)
    app = create_app(settings=settings, config=ApiConfig(service_token=TOKEN, env="test"), engine=engine,
                     run_migrations=False)
    users = Users(engine, FakeClock())
    metrics = free_port()
    with serve_app(app) as base:
        # Tokens made on the fake clock would be expired for the real one: log in instead.
        users.token("admin", "ada", password="admin-pass-12")
        users.token("senior", "sam", password="senior-pass-12")
        adm = _login(base, "ada", "admin-pass-12")
        sen = _login(base, "sam", "senior-pass-12")
        env = {**os.environ, "RAILBIRD_KAFKA_BOOTSTRAP": kafka_broker.bootstrap, "RAILBIRD_API_URL": base,
               "RAILBIRD_SERVICE_TOKEN": TOKEN, "RAILBIRD_CONSUMER_GROUP_PREFIX": f"pol{free_port()}",
               "RAILBIRD_TOPIC_PARTITIONS": "1", "RAILBIRD_CONSUMER_SESSION_TIMEOUT_MS": "6000",
               "RAILBIRD_CONSUMER_HEARTBEAT_MS": "1000", "RAILBIRD_METRICS_PORT": str(metrics),
               "RAILBIRD_POLICY_REFRESH_S": "1"}
        log = tmp_path / "consume.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "railbird.cli", "consume", "--topic", CHAT], cwd=ROOT,
                                    env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: _ready(metrics), 120, f"/readyz; log: {log.read_text()[-2000:]}")
            # An insult past the model's automatic point ("kys loser" is a threat below its own since
            # format 5, reviewed rather than muted).
            produce(kafka_broker.bootstrap, CHAT,
                    [chat_value(event_id="pol-1", player_id="p-before", text="you are a stupid idiot")])
            wait_until(lambda: _sanctions(base, sen, "p-before"), 60, "an automatic mute before the change")
            assert _sanctions(base, sen, "p-before")[0]["kind"] == "chat_mute"
            r = httpx.patch(f"{base}/v1/admin/policy", headers=adm, timeout=30,
                            json={"auto_mute_enabled": False, "reason": "mutes paused"})
            assert r.status_code == 200 and r.json()["revision"] == 1, r.text
            wait_until(lambda: "replaces 0: restarting the lanes" in log.read_text(), 30, "the restart")
            # The old lanes finish their batch and commit first; the new ones log the revision they run.
            wait_until(lambda: any(m.startswith("enforcement policy revision 1,") for m in _messages(log)), 120,
                       "lanes rebuilt")
            wait_until(lambda: _ready(metrics), 120, f"/readyz after the restart; log: {log.read_text()[-2000:]}")
            produce(kafka_broker.bootstrap, CHAT,
                    [chat_value(event_id="pol-2", player_id="p-after", text="you are a stupid idiot")])
            wait_until(lambda: _findings(base, sen, "p-after"), 90, "the finding after the change")
            assert _sanctions(base, sen, "p-after") == [], "auto-mute is off: the offence waits for review"
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
    engine.dispose()


def _messages(log: Path) -> list[str]:
    return [json.loads(line).get("msg", "") for line in log.read_text().splitlines() if line.startswith("{")]


def _login(base: str, username: str, password: str) -> dict[str, str]:
    r = httpx.post(f"{base}/v1/auth/login", json={"username": username, "password": password}, timeout=10)
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}
