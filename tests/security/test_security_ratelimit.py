"""Rate limits: logins and writes per client, 429 with Retry-After; ingestion is never throttled."""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import Engine

from api.ratelimit import RateLimits, TokenBuckets, rate_limits_from
from railbird.settings import Settings
from tests.api.api_factories import batch, chat_finding
from tests.security.conftest import PASSWORD, SERVICE_TOKEN, make_client


def test_password_guessing_is_throttled_per_address(client, login_as) -> None:
    login_as("ana", "analyst")
    codes = [client.post("/v1/auth/login", json={"username": "ana", "password": f"guess-{i}"}).status_code
             for i in range(8)]
    assert codes[:5] == [401] * 5, "the burst is answered normally"
    assert codes[5:] == [429] * 3
    blocked = client.post("/v1/auth/login", json={"username": "ana", "password": PASSWORD})
    assert blocked.status_code == 429, "even the right password waits: the bucket is per address"
    assert int(blocked.headers["retry-after"]) >= 1 and "retry" in blocked.json()["detail"]


def test_console_login_form_shares_the_login_limit(client) -> None:
    started = time.monotonic()
    codes = [client.post("/console/login", data={"username": "x", "password": "y"}).status_code
             for _ in range(12)]
    refilled = int((time.monotonic() - started) / 6)  # 10/min: one token every 6 s on a slow machine
    assert 429 in codes and 5 <= codes.index(429) <= 5 + refilled, codes


def test_writes_are_limited_per_credential_not_globally(engine: Engine, tmp_path: Path, login_as) -> None:
    with make_client(engine, tmp_path, rate_limit_write_per_min=60) as client:
        alice, bob = login_as("alice", "moderator"), login_as("bob", "moderator")
        started = time.monotonic()
        codes = [client.post("/v1/cases/nope/claim", headers=alice).status_code for _ in range(80)]
        elapsed = time.monotonic() - started
        # Burst 60, then one token a second: a slow (shared) machine lets a few more through.
        assert codes[:60] == [404] * 60 and codes[-1] == 429
        assert codes.count(404) <= 60 + int(elapsed) + 1 and set(codes) == {404, 429}
        assert client.post("/v1/cases/nope/claim", headers=bob).status_code == 404, "bob has his own bucket"
        assert client.get("/v1/cases", headers=alice).status_code == 200, "reads are not limited"


def test_ingestion_is_exempt(engine: Engine, tmp_path: Path) -> None:
    with make_client(engine, tmp_path, rate_limit_write_per_min=1) as client:
        service = {"Authorization": f"Bearer {SERVICE_TOKEN}"}
        for i in range(5):
            r = client.post("/v1/findings/batch", json=batch(chat_finding(i)), headers=service)
            assert r.status_code == 200, r.text


def test_buckets_refill_with_time_and_forget_old_clients() -> None:
    now = [0.0]
    buckets = TokenBuckets(per_min=60, burst=2, max_keys=3, clock=lambda: now[0])
    assert [buckets.take("a"), buckets.take("a")] == [0.0, 0.0]
    assert buckets.take("a") == 1.0, "one token per second: wait 1 s"
    now[0] += 1.0
    assert buckets.take("a") == 0.0
    for key in ("b", "c", "d", "e"):
        buckets.take(key)
    assert len(buckets._buckets) == 3, "memory bounded by max_keys"


def test_settings_switch_limits() -> None:
    assert rate_limits_from(Settings(env="test")) is None
    assert rate_limits_from(Settings(env="dev")) == RateLimits()
    assert rate_limits_from(Settings(env="dev", rate_limit_enabled=False)) is None
    limits = rate_limits_from(Settings(env="test", rate_limit_enabled=True, rate_limit_login_per_min=0))
    assert limits is not None and limits.login_per_min == 0
