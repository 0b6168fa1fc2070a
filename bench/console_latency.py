"""Console page latency with 1,000,000 cases in PostgreSQL: the queue with filters, search, the player page.

Seeds a fresh database like `bench.api_latency` (COPY: 1,000,000 cases over five families and seven
statuses, 20,000 with two chat findings and a proposed action) plus the search tags ingestion
writes (`case_tags`: a detector per case, a table per case, a language per chat case, nicknames for
the cases with findings, ~2.2 million rows), serves `railbird api` in a separate process, logs a
moderator into the console and times sequential keep-alive page loads (full HTML, tab counts and
saved views included):
- queue with filters: family x status x one of (none, category, detector, language, age, assignee
  none, automatic-already, sort by age/score/findings), first pages and pages by cursor;
- search: a player id, a nickname, a table (status `all`, every family);
- player page: a player with cases (and findings for some);
- case page of one open chat case with 1,000 findings;
- the tab counts a filtered queue page loads after it is drawn (`/console/queue-counts`; not a page,
  reported apart).
Target p95 <= 300 ms per page kind (issue 20). Writes bench/results/console_latency.json.

    .venv/bin/python -m bench.console_latency [--cases 1000000] [--requests 400]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import psycopg

from api.auth import service as auth
from api.db import make_engine, make_sessions, migrate
from bench.api_latency import ADMIN_DSN, FAMILIES, T0, seed, serve, summary
from consumers.broker import free_port

RESULTS = Path(__file__).resolve().parent / "results" / "console_latency.json"
DB = "railbird_bench_console"
TARGET_P95_MS = 300.0
PASSWORD = "bench-password-1"
FILTERS: list[dict[str, str]] = [
    {}, {"category": "hit_and_run"}, {"detector": "seat.hit_and_run"}, {"language": "vi"}, {"age": "gt7d"},
    {"assignee_id": "none"}, {"automatic": "no"}, {"sort": "oldest"}, {"sort": "score"}, {"sort": "findings"},
]
STATUSES = ["open", "open", "open", "escalated", "on_hold", "confirmed", "actioned", "dismissed"]


def recreate_database() -> str:
    """Drop and create the bench database; returns its SQLAlchemy URL."""
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB}"')
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{DB}"


def seed_tags(url: str, *, n_cases: int, n_detailed: int) -> None:
    """The tags ingestion would have written for the seeded cases (COPY), then VACUUM ANALYZE."""
    dsn = url.replace("postgresql+psycopg", "postgresql")
    detector = {"chat": "chat.lexicon", "snapcam": "snapcam.reports", "nickname": "nickname.offensive",
                "seat": "seat.hit_and_run", "hand": "hand.chip_dumping"}
    langs = ("en", "vi", "id", "ru", "hu")
    with psycopg.connect(dsn) as conn, conn.cursor() as cur:
        with cur.copy("COPY case_tags (tag, case_id, family) FROM STDIN") as copy:
            for i in range(n_cases):
                cid = f"case_{i:010d}"
                family = FAMILIES[i % 5]
                copy.write_row((f"det:{detector[family]}", cid, family))
                copy.write_row((f"table:t{i % 50_000}", cid, family))
                if family == "chat":
                    copy.write_row((f"lang:{langs[(i // 5) % 5]}", cid, family))
                if i < n_detailed:
                    copy.write_row(("nick:nick", cid, family) if i % 100 else (f"nick:nick{i}", cid, family))
        conn.commit()
        conn.autocommit = True
        cur.execute("VACUUM ANALYZE")


BIG_CASE = "case_big_1000"


def seed_big_case(url: str, *, findings: int = 1_000) -> None:
    """One open chat case with `findings` findings (a chat line each, as ingestion stores them, a
    detector and language tag, nicknames) and a proposal: the case page's worst case in issue 20."""
    dsn = url.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(dsn) as conn, conn.cursor() as cur:
        cur.execute("INSERT INTO cases (id, family, category, rule, subject_id, incident, open_key, status, priority, "
                    "max_score, finding_count, summary, created_at, updated_at, reopened) VALUES (%s, 'chat', "
                    "'insult', 'chat.3', 'p-big', 'table:t-big', 'chat|p-big|table:t-big', 'open', 90, 0.95, %s, "
                    "'insults at t-big', %s, %s, 0)", (BIG_CASE, findings, T0, T0))
        with cur.copy("COPY findings (finding_id, case_id, detector, rule, family, category, score, subject_id, "
                      "players, ts, summary, document, ingested_at) FROM STDIN") as copy:
            for k in range(findings):
                ts = T0 + timedelta(seconds=30 * k)
                doc = {"finding_id": f"fbig{k}", "detector": "chat.lexicon", "family": "chat", "category": "insult",
                       "players": ["p-big"], "table_id": "t-big", "evidence": {"language": "en", "messages": [{
                           "event_id": f"mbig{k}", "ts": ts.isoformat(), "player_id": "p-big", "nickname": "BigMouth",
                           "table_id": "t-big", "channel": "table", "text": f"you are an idiot number {k}",
                           "spans": [{"start": 11, "end": 16, "label": "insult"}]}]}}
                copy.write_row((f"fbig{k}", BIG_CASE, "chat.lexicon", "chat.3", "chat", "insult", 0.95, "p-big",
                                json.dumps(["p-big"]), ts, f"p-big insulted the table ({k + 1} lines)",
                                json.dumps(doc), ts))
        cur.execute("INSERT INTO case_actions (action_id, case_id, finding_id, disposition, kind, scope, scope_value, "
                    "player_id, starts_at, expires_at, reason, rule, status) VALUES ('abig', %s, 'fbig0', 'proposed', "
                    "'chat_ban', 'feature', 'chat', 'p-big', %s, NULL, 'insult', 'chat.3', 'pending')", (BIG_CASE, T0))
        for t in ("det:chat.lexicon", "lang:en", "table:t-big", "nick:bigmouth"):
            cur.execute("INSERT INTO case_tags (tag, case_id, family) VALUES (%s, %s, 'chat')", (t, BIG_CASE))
        conn.commit()


def moderator(url: str) -> None:
    """A console user in the bench database."""
    engine = make_engine(url)
    with make_sessions(engine)() as s:
        auth.create_user(s, username="bench_mod", role="moderator", password=PASSWORD, actor="bench",
                         now=datetime.now(UTC))
        s.commit()
    engine.dispose()


def login(client: httpx.Client) -> None:
    """Sign the client into the console (session cookie kept by the client)."""
    page = client.get("/console/login")
    nonce = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert nonce is not None, "no login form"
    r = client.post("/console/login", data={"csrf": nonce.group(1), "username": "bench_mod", "password": PASSWORD})
    if r.status_code not in (200, 303) or "/console/login" in str(r.url):
        raise SystemExit(f"console login failed: {r.status_code}")


def timed(client: httpx.Client, path: str, params: dict[str, str] | None = None) -> tuple[float, str]:
    """Milliseconds for one page (status must be 200) and its HTML."""
    t = time.perf_counter()
    r = client.get(path, params=params)
    ms = (time.perf_counter() - t) * 1000
    if r.status_code != 200:
        raise SystemExit(f"{path} {params} -> {r.status_code}: {r.text[:300]}")
    return ms, r.text


def queue_pages(client: httpx.Client, n: int, rng: random.Random) -> list[float]:
    """Queue pages with a filter each, first pages and up to 5 pages deep by cursor."""
    out: list[float] = []
    while len(out) < n:
        params = {"family": rng.choice(FAMILIES), "status": rng.choice(STATUSES), **rng.choice(FILTERS)}
        for _ in range(rng.randrange(1, 6)):
            ms, html = timed(client, "/console/", params)
            out.append(ms)
            more = re.search(r'id="next-page" href="[^"]*cursor=([^"&]+)', html)
            if not more or len(out) >= n:
                break
            params["cursor"] = more.group(1)
    return out


def search_pages(client: httpx.Client, n: int, rng: random.Random, n_cases: int) -> list[float]:
    """The search box: a player id, a nickname or a table, over every family and status."""
    def query() -> str:
        kind = rng.randrange(3)
        if kind == 0:
            return f"p{rng.randrange(min(n_cases, 200_000))}"
        if kind == 1:
            return f"nick{rng.randrange(0, 20_000, 100)}"
        return f"t{rng.randrange(50_000)}"
    return [timed(client, "/console/", {"family": "all", "status": "all", "q": query()})[0] for _ in range(n)]


def player_pages(client: httpx.Client, n: int, rng: random.Random, n_detailed: int) -> list[float]:
    """Player pages; half of them of players with findings."""
    def pid() -> str:
        return f"p{rng.randrange(n_detailed)}" if rng.random() < 0.5 else f"p{rng.randrange(200_000)}"
    return [timed(client, f"/console/players/{pid()}")[0] for _ in range(n)]


def count_requests(client: httpx.Client, n: int, rng: random.Random) -> list[float]:
    """The tab counts a filtered queue page fetches after it is drawn (`/console/queue-counts`)."""
    out: list[float] = []
    filters = [f for f in FILTERS if f and "sort" not in f]
    for _ in range(n):
        t = time.perf_counter()
        r = client.get("/console/queue-counts", params={"family": rng.choice(FAMILIES), "status": rng.choice(STATUSES),
                                                        **rng.choice(filters)})
        out.append((time.perf_counter() - t) * 1000)
        if r.status_code != 200:
            raise SystemExit(f"queue-counts -> {r.status_code}: {r.text[:300]}")
    return out


def big_case_pages(client: httpx.Client, n: int) -> list[float]:
    """The console page of the 1,000-finding case."""
    out = []
    for _ in range(n):
        ms, html = timed(client, f"/console/cases/{BIG_CASE}")
        out.append(ms)
    if "BigMouth" not in html and "p-big" not in html:
        raise SystemExit("the big case page does not show its case")
    return out


def main() -> None:
    """Seed, serve, measure, write the results."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--detailed", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--runs", type=int, default=3, help="measurement rounds on the same server")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    url = recreate_database()
    migrate(make_engine(url))
    t = time.perf_counter()
    seed(url, n_cases=args.cases, n_detailed=args.detailed)
    seed_tags(url, n_cases=args.cases, n_detailed=args.detailed)
    seed_big_case(url)
    seed_s = time.perf_counter() - t
    print(f"seeded {args.cases:,} cases with tags in {seed_s:.0f}s", flush=True)
    moderator(url)
    port = free_port()
    proc = serve(url, port, Path("/tmp/railbird_bench_console.log"))
    rng = random.Random(13)
    runs: list[dict[str, object]] = []
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30, follow_redirects=True) as client:
            login(client)
            queue_pages(client, 40, rng)  # warm-up
            search_pages(client, 20, rng, args.cases)
            player_pages(client, 20, rng, args.detailed)
            big_case_pages(client, 5)
            count_requests(client, 10, rng)
            for run in range(args.runs):
                load = os.getloadavg()[0]
                result = {"load_average_1m": round(load, 2),
                          "queue_filtered": summary(queue_pages(client, args.requests, rng)),
                          "search": summary(search_pages(client, args.requests // 2, rng, args.cases)),
                          "player_page": summary(player_pages(client, args.requests // 2, rng, args.detailed)),
                          "case_page_1000_findings": summary(big_case_pages(client, args.requests // 8)),
                          "filtered_tab_counts_after_page": summary(count_requests(client, args.requests // 4, rng))}
                runs.append(result)
                print(f"run {run + 1}: " + ", ".join(f"{k} p95 {v['p95_ms']} ms (median {v['median_ms']})"  # type: ignore[index]
                                                     for k, v in result.items() if isinstance(v, dict)), flush=True)
    finally:
        proc.terminate()
        proc.wait(10)
    kinds = ("queue_filtered", "search", "player_page", "case_page_1000_findings", "filtered_tab_counts_after_page")
    medians = {k: {"p95_ms_median_of_runs": sorted(r[k]["p95_ms"] for r in runs)[len(runs) // 2],  # type: ignore[index]
                   "median_ms_median_of_runs": sorted(r[k]["median_ms"] for r in runs)[len(runs) // 2]}  # type: ignore[index]
               for k in kinds}
    out = {"cases": args.cases, "cases_with_findings": args.detailed, "seed_s": round(seed_s), "cpus": os.cpu_count(),
           "target_p95_ms": TARGET_P95_MS, "runs": runs, "medians": medians}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(medians, indent=2))
    if not args.keep:
        with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')


if __name__ == "__main__":
    main()
