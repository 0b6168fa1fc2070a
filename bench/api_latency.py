"""Review API latency with 1,000,000 cases in PostgreSQL: the queue page and the case page over HTTP.

Seeds a fresh database (COPY: 1,000,000 cases over five families and seven statuses, 90 days of
ages; 20,000 of them carry two chat findings and a proposed action each, like real ingested cases),
serves the API with `railbird api` (uvicorn) on loopback in a separate process, and times sequential
keep-alive requests from this process:
- queue page: GET /v1/cases?family=F&status=S&limit=50, first pages and pages reached by following
  `next_cursor` up to 20 pages deep (keyset pagination);
- case page: GET /v1/cases/{id} (case, findings, proposals, decisions, sanctions, appeals).
The peer figures are the design targets (p99 <= 50 ms queue, <= 100 ms case page); the
same run also times the queue query with OFFSET pagination 50,000 rows deep, to show why keyset.
Writes bench/results/api_latency.json. Needs PostgreSQL at 127.0.0.1:5432 (trust auth).

    .venv/bin/python -m bench.api_latency [--cases 1000000] [--requests 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg
from sqlalchemy import text

from api.auth import service as auth
from api.db import make_engine, make_sessions, migrate
from consumers.broker import free_port

RESULTS = Path(__file__).resolve().parent / "results" / "api_latency.json"
ADMIN_DSN = "postgresql://postgres@127.0.0.1:5432/test"
DB = "railbird_bench_api"
FAMILIES = ("chat", "snapcam", "nickname", "seat", "hand")
STATUSES = (("open", 30), ("escalated", 5), ("on_hold", 5), ("confirmed", 5), ("appealed", 1),
            ("actioned", 29), ("dismissed", 25))
CATEGORY = {"chat": "insult", "snapcam": "snapcam_abuse", "nickname": "offensive_nickname",
            "seat": "hit_and_run", "hand": "chip_dumping"}
TARGET_QUEUE_P99_MS, TARGET_CASE_P99_MS = 50.0, 100.0
SERVICE_TOKEN = "bench-service-token"
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def recreate_database() -> str:
    """Drop and create the bench database; returns its SQLAlchemy URL."""
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB}"')
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{DB}"


def seed(url: str, *, n_cases: int, n_detailed: int, seed_value: int = 7) -> list[str]:
    """COPY the cases (and findings for `n_detailed` of them); returns the detailed case ids."""
    rng = random.Random(seed_value)
    weights = [w for _, w in STATUSES]
    names = [s for s, _ in STATUSES]
    dsn = url.replace("postgresql+psycopg", "postgresql")
    detailed: list[str] = []
    with psycopg.connect(dsn) as conn, conn.cursor() as cur:
        with cur.copy("COPY cases (id, family, category, rule, subject_id, incident, open_key, status, priority, "
                      "max_score, finding_count, summary, created_at, updated_at, reopened) FROM STDIN") as copy:
            for i in range(n_cases):
                family = FAMILIES[i % 5]
                status = rng.choices(names, weights)[0]
                created = T0 + timedelta(seconds=rng.randrange(90 * 86400))
                cid = f"case_{i:010d}"
                open_key = f"{family}|p{i}|-" if status not in ("actioned", "dismissed") else None
                score = round(rng.uniform(0.5, 1.0), 3)
                copy.write_row((cid, family, CATEGORY[family], "chat.3", f"p{i % 200_000}", "-", open_key, status,
                                rng.randrange(101), score, 2 if i < n_detailed else 1,
                                f"{CATEGORY[family]} by p{i % 200_000}", created, created, 0))
                if i < n_detailed:
                    detailed.append(cid)
        with cur.copy("COPY findings (finding_id, case_id, detector, rule, family, category, score, subject_id, "
                      "players, ts, summary, document, ingested_at) FROM STDIN") as copy:
            for i, cid in enumerate(detailed):
                for k in range(2):
                    doc = {"finding_id": f"f{i}_{k}", "evidence": {"messages": [{
                        "event_id": f"m{i}_{k}", "ts": T0.isoformat(), "player_id": f"p{i}", "nickname": "nick",
                        "channel": "table", "text": "you are an idiot " * 4,
                        "spans": [{"start": 11, "end": 16, "label": "insult"}]}]}}
                    copy.write_row((f"f{i}_{k}", cid, "chat.lexicon", "chat.3", "chat", "insult", 0.9, f"p{i}",
                                    json.dumps([f"p{i}"]), T0, "insult", json.dumps(doc), T0))
        with cur.copy("COPY case_actions (action_id, case_id, finding_id, disposition, kind, scope, scope_value, "
                      "player_id, starts_at, expires_at, reason, rule, status) FROM STDIN") as copy:
            for i, cid in enumerate(detailed):
                copy.write_row((f"a{i}", cid, f"f{i}_0", "proposed", "chat_ban", "feature", "chat", f"p{i}", T0,
                                None, "insult", "chat.3", "pending"))
        conn.commit()
        conn.autocommit = True
        cur.execute("ANALYZE")
    return detailed


def analyst_token(url: str) -> str:
    """A user and a bearer token in the bench database."""
    engine = make_engine(url)
    with make_sessions(engine)() as s:
        user = auth.create_user(s, username="bench", role="analyst", password=None, actor="bench",
                                now=datetime.now(UTC))
        raw, _ = auth.issue_token(s, user=user, kind="api", label="bench", ttl=timedelta(days=1),
                                  now=datetime.now(UTC))
        s.commit()
    engine.dispose()
    return raw


def serve(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    """`railbird api` in a child process, relay off; returns once /healthz answers."""
    env = {**os.environ, "RAILBIRD_DATABASE_URL": url, "RAILBIRD_API_PORT": str(port),
           "RAILBIRD_SERVICE_TOKEN": SERVICE_TOKEN,
           "RAILBIRD_RELAY_ENABLED": "false", "RAILBIRD_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen([sys.executable, "-m", "railbird.cli", "api"], env=env, stdout=log.open("wb"),
                            stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"API did not start; see {log}")


def timed(client: httpx.Client, path: str, params: dict[str, Any] | None = None) -> tuple[float, dict[str, Any]]:
    """Milliseconds for one request (status must be 200) and its JSON."""
    t = time.perf_counter()
    r = client.get(path, params=params)
    ms = (time.perf_counter() - t) * 1000
    if r.status_code != 200:
        raise SystemExit(f"{path} -> {r.status_code}: {r.text[:200]}")
    return ms, r.json()


def timed_raw(client: httpx.Client, path: str) -> float:
    """Milliseconds for a request that touches neither auth nor the database (the HTTP floor)."""
    t = time.perf_counter()
    client.get(path)
    return (time.perf_counter() - t) * 1000


def queue_latencies(client: httpx.Client, n: int, rng: random.Random) -> list[float]:
    """First pages and cursor-followed pages across families and statuses."""
    out: list[float] = []
    statuses = ["open", "open", "open", "escalated", "on_hold", "confirmed", "actioned", "dismissed"]
    while len(out) < n:
        params: dict[str, Any] = {"family": rng.choice(FAMILIES), "status": rng.choice(statuses), "limit": 50}
        for _ in range(rng.randrange(1, 21)):
            ms, body = timed(client, "/v1/cases", params)
            out.append(ms)
            if not body["next_cursor"] or len(out) >= n:
                break
            params["cursor"] = body["next_cursor"]
    return out


def case_latencies(client: httpx.Client, ids: list[str], n: int, rng: random.Random) -> list[float]:
    """Case pages of cases with findings and proposals."""
    return [timed(client, f"/v1/cases/{rng.choice(ids)}")[0] for _ in range(n)]


def offset_vs_keyset(url: str) -> dict[str, float]:
    """The queue query up to 50,000 rows deep: OFFSET vs the keyset predicate (ms, median of 5)."""
    engine = make_engine(url)
    order = "ORDER BY -priority, created_at, id"
    base = "SELECT id FROM cases WHERE family = 'chat' AND status = 'dismissed'"
    with engine.connect() as conn:
        total = conn.execute(text(base.replace("SELECT id", "SELECT count(*)"))).scalar_one()
        depth = min(50_000, total // 2)
        row = conn.execute(text(f"{base} {order} OFFSET {depth} LIMIT 1")).first()
        assert row is not None
        anchor = conn.execute(text("SELECT priority, created_at, id FROM cases WHERE id = :i"), {"i": row[0]}).one()

        def run(sql: str, **p: Any) -> float:
            times = []
            for _ in range(5):
                t = time.perf_counter()
                conn.execute(text(sql), p).all()
                times.append((time.perf_counter() - t) * 1000)
            return round(statistics.median(times), 2)

        offset_ms = run(f"{base} {order} OFFSET {depth} LIMIT 50")
        keyset_ms = run(f"{base} AND (-priority, created_at, id) > (:p, :c, :i) {order} LIMIT 50",
                        p=-anchor[0], c=anchor[1], i=anchor[2])
    engine.dispose()
    return {"rows_deep": depth, "offset_ms": offset_ms, "keyset_ms": keyset_ms}


def ingest_rate(base_url: str, *, batches: int, size: int = 1_000) -> dict[str, float]:
    """Findings per second through POST /v1/findings/batch (1 in 4 with an automatic mute)."""
    from pipeline.findings import ActionProposal, Finding, stable_id

    def finding(i: int) -> Finding:
        fid = stable_id("fnd", "bench", i)
        ts = T0 + timedelta(seconds=i)
        auto = i % 4 == 0
        kind = "chat_mute" if auto else "chat_ban"
        action = ActionProposal(action_id=stable_id("act", fid, kind), disposition="automatic" if auto else "proposed",
                                kind=kind, scope="feature", scope_value="chat", player_id=f"b{i % 5000}",
                                starts_at=ts, expires_at=ts + timedelta(minutes=15) if auto else None,
                                reason="insult", rule="chat.3")
        return Finding(finding_id=fid, detector="chat.lexicon", rule="chat.3", family="chat", category="insult",
                       score=0.9, players=(f"b{i % 5000}",), ts=ts, table_id=f"bt{i % 700}", summary="insult",
                       evidence={"messages": [{"event_id": f"bm{i}", "ts": ts.isoformat(), "player_id": f"b{i}",
                                               "nickname": "n", "channel": "table", "text": "you idiot",
                                               "spans": [{"start": 4, "end": 9, "label": "insult"}]}]},
                       actions=(action,))

    bodies = ['{"findings":[' + ",".join(finding(b * size + i).model_dump_json() for i in range(size)) + "]}"
              for b in range(batches)]
    headers = {"Authorization": f"Bearer {SERVICE_TOKEN}", "Content-Type": "application/json"}
    times = []
    with httpx.Client(base_url=base_url, headers=headers, timeout=120) as client:
        for body in bodies:
            t = time.perf_counter()
            r = client.post("/v1/findings/batch", content=body)
            times.append(time.perf_counter() - t)
            if r.status_code != 200 or r.json()["accepted"] != size:
                raise SystemExit(f"ingest failed: {r.status_code} {r.text[:200]}")
    return {"batches": batches, "batch_size": size, "median_batch_s": round(statistics.median(times), 3),
            "findings_per_s": round(size / statistics.median(times))}


def summary(ms: list[float]) -> dict[str, float]:
    """Median, p95, p99 and max in milliseconds."""
    s = sorted(ms)
    return {"n": len(s), "median_ms": round(statistics.median(s), 2),
            "p95_ms": round(s[int(0.95 * (len(s) - 1))], 2), "p99_ms": round(s[int(0.99 * (len(s) - 1))], 2),
            "max_ms": round(s[-1], 2)}


def main() -> None:
    """Seed, serve, measure, write the results."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--detailed", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=2_000)
    parser.add_argument("--ingest-batches", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the bench database afterwards")
    args = parser.parse_args()
    url = recreate_database()
    migrate(make_engine(url))
    t = time.perf_counter()
    ids = seed(url, n_cases=args.cases, n_detailed=args.detailed)
    seed_s = time.perf_counter() - t
    print(f"seeded {args.cases:,} cases ({args.detailed:,} with findings) in {seed_s:.1f}s")
    token = analyst_token(url)
    port = free_port()
    proc = serve(url, port, Path("/tmp/railbird_bench_api.log"))
    rng = random.Random(11)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {token}"},
                          timeout=10) as client:
            queue_latencies(client, 200, rng)  # warm-up: connections, plans, caches
            case_latencies(client, ids, 200, rng)
            load_before = os.getloadavg()[0]
            floor = summary([timed_raw(client, "/healthz") for _ in range(args.requests // 2)])
            queue = summary(queue_latencies(client, args.requests, rng))
            case = summary(case_latencies(client, ids, args.requests, rng))
            load_after = os.getloadavg()[0]
        ingest = ingest_rate(f"http://127.0.0.1:{port}", batches=args.ingest_batches)
    finally:
        proc.terminate()
        proc.wait(10)
    deep = offset_vs_keyset(url)
    result = {
        "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "cases": args.cases, "cases_with_findings": args.detailed, "seed_s": round(seed_s, 1),
        "load_average_1m": [round(load_before, 2), round(load_after, 2)],
        "http_floor_healthz": floor, "queue_page": queue, "case_page": case,
        "target_queue_p99_ms": TARGET_QUEUE_P99_MS, "target_case_p99_ms": TARGET_CASE_P99_MS,
        "queue_p99_ratio_to_target": round(queue["p99_ms"] / TARGET_QUEUE_P99_MS, 3),
        "case_p99_ratio_to_target": round(case["p99_ms"] / TARGET_CASE_P99_MS, 3),
        "deep_page_sql": deep, "ingest": ingest,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"HTTP floor (/healthz): median {floor['median_ms']} ms, p99 {floor['p99_ms']} ms; "
          f"load average {load_before:.1f} -> {load_after:.1f} on {os.cpu_count()} cpus")
    print(f"queue page: median {queue['median_ms']} ms, p99 {queue['p99_ms']} ms (target {TARGET_QUEUE_P99_MS})")
    print(f"case page:  median {case['median_ms']} ms, p99 {case['p99_ms']} ms (target {TARGET_CASE_P99_MS})")
    print(f"{deep['rows_deep']:,} rows deep: OFFSET {deep['offset_ms']} ms vs keyset {deep['keyset_ms']} ms")
    print(f"ingestion: {ingest['findings_per_s']} findings/s (batches of {ingest['batch_size']}, "
          f"median {ingest['median_batch_s']} s per batch)")
    if not args.keep:
        with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')


if __name__ == "__main__":
    main()
