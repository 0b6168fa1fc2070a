"""What golden seeding adds to a queue fetch: GET /v1/cases?family=chat&status=open with the
golden rate at 0 (the hook reads the rates and returns) and at 0.1 with the queue already at the
rate (the steady state: counters, one count of live copies, no insert), on SQLite, in-process
(TestClient). Also the cost of a fetch that seeds (copies a 3-finding case).

    .venv/bin/python -m bench.quality_seeding [--cases 800] [--requests 100]

Writes bench/results/quality_seeding.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from api.app import create_app
from api.auth import service as auth
from api.db import make_engine, make_sessions, migrate
from api.deps import ApiConfig
from pipeline.findings import Finding, stable_id
from railbird.settings import Settings

TOKEN = "bench-service-token"
SVC = {"Authorization": f"Bearer {TOKEN}"}


def _finding(n: int, k: int = 0) -> dict[str, Any]:
    ts = datetime(2026, 3, 1, 11, 0, tzinfo=UTC)
    return Finding(finding_id=stable_id("fnd", "bench", n, k), detector="chat.banned_words", rule="chat.3",
                   family="chat", category="insult", score=0.5 + (n % 50) / 100, players=(f"p-{n}",), ts=ts,
                   table_id=f"t-{n}", summary="insult: you are an idiot",
                   evidence={"messages": [{"event_id": f"m-{n}-{k}", "ts": ts.isoformat(), "player_id": f"p-{n}",
                                           "text": "you are an idiot", "spans": []}]}).model_dump(mode="json")


def _token(engine: Engine, role: str, name: str) -> dict[str, str]:
    with make_sessions(engine)() as s:
        user = auth.create_user(s, username=name, role=role, password=None, actor="bench",
                                now=datetime.now(UTC))
        raw, _ = auth.issue_token(s, user=user, kind="api", label="bench", ttl=timedelta(days=1),
                                  now=datetime.now(UTC))
        s.commit()
    return {"Authorization": f"Bearer {raw}"}


def _time(client: TestClient, headers: dict[str, str], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        r = client.get("/v1/cases?family=chat&status=open&limit=50", headers=headers)
        out.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 200, r.text
    return out


def _summary(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {"p50_ms": round(statistics.median(ms), 2), "p95_ms": round(ms[int(len(ms) * 0.95) - 1], 2),
            "mean_ms": round(statistics.fmean(ms), 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=800)
    ap.add_argument("--requests", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'bench.db'}")
        migrate(engine)
        app = create_app(settings=Settings(env="test", data_dir=Path(tmp), service_token=TOKEN, relay_enabled=False),
                         config=ApiConfig(service_token=TOKEN, env="test"), engine=engine, run_migrations=False)
        with TestClient(app) as client:
            for start in range(0, args.cases, 500):
                body = {"findings": [_finding(n) for n in range(start, min(args.cases, start + 500))]}
                assert client.post("/v1/findings/batch", json=body, headers=SVC).status_code == 200
            mod, adm, sen = _token(engine, "moderator", "m"), _token(engine, "admin", "a"), _token(engine, "senior", "s")
            ann = _token(engine, "analyst", "ann")
            sources = []
            for n in range(args.cases, args.cases + args.cases // 8):  # closed 3-finding cases to copy
                body = {"findings": [_finding(n, k) for k in range(3)]}
                case_id = client.post("/v1/findings/batch", json=body, headers=SVC).json()["case_ids"][0]
                client.post(f"/v1/cases/{case_id}/claim", headers=mod)
                client.post(f"/v1/cases/{case_id}/decisions", headers=mod, json={"kind": "dismiss", "reason": "x"})
                assert client.post("/v1/quality/golden", headers=sen, json={
                    "case_id": case_id, "expected": "dismiss", "reason": "bench"}).status_code == 200
                sources.append(case_id)
            off = _time(client, ann, args.requests)
            client.patch("/v1/admin/quality", headers=adm, json={"golden_rate": 0.1, "reason": "bench"})
            t = time.perf_counter()
            _time(client, ann, 1)  # seeds up to 10 copies
            seeding_fetch_ms = (time.perf_counter() - t) * 1000
            for _ in range(20):  # fill the queue to the rate
                _time(client, ann, 1)
            steady = _time(client, ann, args.requests)
            live = client.get("/v1/quality/metrics", headers=sen).json()["golden_live"]
    result = {"cases_open": args.cases, "golden_live": live, "rate": 0.1, "requests": args.requests,
              "rate_0": _summary(off), "rate_0.1_steady": _summary(steady),
              "fetch_that_seeds_10_copies_ms": round(seeding_fetch_ms, 1)}
    out = Path(__file__).resolve().parent / "results" / "quality_seeding.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
