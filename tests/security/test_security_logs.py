"""No secret reaches a log: the API and a consumer run as real processes at DEBUG level through
logins (right and wrong passwords), token use, bad tokens, an API outage and chat traffic; then
their logs are searched for every secret involved."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from consumers.broker import EmbeddedBroker, free_port
from tests.faults.rig import ROOT, SERVICE_TOKEN, Rig, make_rig, wait_until
from tests.faults.traffic import chat_traffic

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

PASSWORD = "Hunter2-very-secret-passphrase"
WRONG_PASSWORD = "Wrong-but-still-secret-guess-77"
FORGED_TOKEN = "forged-token-abcdefghijklmnopqrstuvwxyz012345"


class DebugRig(Rig):
    """The rig with every process logging at DEBUG."""

    def env(self) -> dict[str, str]:
        return {**super().env(), "RAILBIRD_LOG_LEVEL": "DEBUG"}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    with EmbeddedBroker(port=free_port(), log_path=tmp_path / "logs" / "broker.log") as broker:
        base = make_rig(tmp_path, broker)
        r = DebugRig(tmp=base.tmp, broker=base.broker, db_path=base.db_path)
        r.start_api()
        try:
            yield r
        finally:
            r.stop_all()


def test_tokens_and_passwords_never_reach_the_logs(rig: Rig) -> None:
    subprocess.run([sys.executable, "-m", "railbird.cli", "admin", "create-user", "--username", "ana",
                    "--role", "analyst", "--password-stdin"], input=PASSWORD, text=True, env=rig.env(),
                   cwd=ROOT, check=True, capture_output=True, timeout=60)
    api = rig.api_url
    assert httpx.post(f"{api}/v1/auth/login", json={"username": "ana", "password": WRONG_PASSWORD}).status_code == 401
    login = httpx.post(f"{api}/v1/auth/login", json={"username": "ana", "password": PASSWORD})
    session_token = login.json()["token"]
    assert httpx.get(f"{api}/v1/cases", headers={"Authorization": f"Bearer {session_token}"}).status_code == 200
    assert httpx.get(f"{api}/v1/cases", headers={"Authorization": f"Bearer {FORGED_TOKEN}"}).status_code == 401
    assert httpx.post(f"{api}/v1/findings/batch", json={"findings": "x"},
                      headers={"Authorization": f"Bearer {SERVICE_TOKEN}"}).status_code == 422

    rig.start_consumer()
    rig.produce(chat_traffic(400, seed=3))
    wait_until(lambda: len(rig.db_rows("SELECT finding_id FROM findings")) > 5, timeout_s=120,
               what="findings written by the consumer")
    rig.kill_api()  # the consumer's retries log the failure: the token must not be in them
    time.sleep(4)
    rig.start_api()
    assert httpx.post(f"{api}/v1/auth/logout", headers={"Authorization": f"Bearer {session_token}"}).status_code == 204
    rig.stop_all()

    logs = {p.name: p.read_text(errors="replace") for p in (rig.tmp / "logs").glob("*.log") if p.name != "broker.log"}
    assert sum(len(t) for t in logs.values()) > 10_000, "DEBUG logging really produced output"
    for secret in (SERVICE_TOKEN, PASSWORD, WRONG_PASSWORD, FORGED_TOKEN, session_token):
        leaks = [name for name, t in logs.items() if secret in t]
        assert not leaks, f"a secret ({secret[:4]}...) is in {leaks}"
