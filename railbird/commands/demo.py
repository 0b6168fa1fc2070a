"""`railbird demo`: the whole system on embedded defaults, with a live summary until Ctrl-C."""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

import httpx

from consumers.broker import EmbeddedBroker, free_port, port_open
from consumers.topics import ensure_topics
from railbird.demo_status import DemoStatus, OffsetReader, read_status
from railbird.settings import Settings
from railbird.supervisor import Supervisor

DEMO_HISTORY_MINUTES = 60
"""The simulated room has been open this long when the demo starts: its last hour streams at
--rate (about 70 s at 200 events/s), then the room runs on the wall clock, so no event, finding or
sanction is dated ahead of now."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Traffic rate, seed, and an optional duration (for scripted runs)."""
    parser.add_argument("--rate", type=float, default=200.0, help="simulated events per second")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--duration", type=float, default=0.0, help="stop after N seconds (0 = Ctrl-C)")
    parser.add_argument("--keep-data", action="store_true", help="keep the previous demo database")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Start broker, API, consumers, simulator; print a summary every 2 s; stop everything cleanly."""
    demo_dir = settings.data_dir / "demo"
    if demo_dir.exists() and not args.keep_data:
        shutil.rmtree(demo_dir)
    demo_dir.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    broker_port = _port(settings.embedded_broker_port)
    api_port = _port(settings.api_port)
    api_url = f"http://127.0.0.1:{api_port}"
    token = secrets.token_urlsafe(24)
    env = _child_env(settings, demo_dir, broker_port, api_port, api_url, token)
    supervisor = Supervisor(log_dir=demo_dir / "logs")
    print(f"railbird demo: starting broker on 127.0.0.1:{broker_port} ...", flush=True)
    with EmbeddedBroker(port=broker_port, log_path=demo_dir / "logs" / "broker.log") as broker:
        try:
            ensure_topics(broker.bootstrap, partitions=settings.topic_partitions)
            supervisor.start("api", ["api"], env=env)
            _wait_http(f"{api_url}/healthz", stop, supervisor)
            logins = _seed(env, demo_dir)
            supervisor.start("consumers", ["consume", "--all"], env=env)
            # The event archive and the retroactive-run worker (docs/shadow-and-retro.md): small, idle
            # when nothing is queued, so an admin can try a retroactive run on the demo's traffic.
            supervisor.start("archive", ["archive"], env=env)
            supervisor.start("retro", ["retro", "work"], env=env)
            supervisor.start(
                "simulator",
                ["simulate", "--profile", "demo", "--seed", str(args.seed), "--rate", str(args.rate), "--minutes", "600",
                 "--start", f"now-{DEMO_HISTORY_MINUTES}m", "--live"],
                env=env,
            )
            _banner(api_url, logins, demo_dir)
            return _summarise(broker.bootstrap, api_url, token, supervisor, stop, args.duration)
        finally:
            print("\nrailbird demo: stopping consumers, simulator, API and broker ...", flush=True)
            supervisor.stop_all()
            print("railbird demo: stopped; no process left running.", flush=True)


def _port(preferred: int) -> int:
    return preferred if not port_open("127.0.0.1", preferred) else free_port()


def _child_env(
    settings: Settings, demo_dir: Path, broker_port: int, api_port: int, api_url: str, token: str
) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "RAILBIRD_ENV": "dev",
            "RAILBIRD_DATA_DIR": str(demo_dir),
            "RAILBIRD_KAFKA_BOOTSTRAP": f"127.0.0.1:{broker_port}",
            "RAILBIRD_DATABASE_URL": f"sqlite:///{demo_dir / 'railbird.db'}",
            "RAILBIRD_API_PORT": str(api_port),
            "RAILBIRD_API_URL": api_url,
            "RAILBIRD_SERVICE_TOKEN": token,
            "RAILBIRD_CONSUMER_SESSION_TIMEOUT_MS": "6000",
            "RAILBIRD_TOPIC_PARTITIONS": str(settings.topic_partitions),
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def _wait_http(url: str, stop: threading.Event, supervisor: Supervisor, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and not stop.is_set():
        if failed := supervisor.failed():
            raise SystemExit(f"{failed[0].name} exited; see {failed[0].log_path}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass  # not up yet
        time.sleep(0.2)
    raise SystemExit(f"API did not answer {url} within {timeout_s:.0f}s")


def _seed(env: dict[str, str], demo_dir: Path) -> str:
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "railbird.cli", "admin", "seed-demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    (demo_dir / "logs" / "seed.log").write_text(out.stdout + out.stderr, encoding="utf-8")
    if out.returncode != 0:
        raise SystemExit(f"seeding demo users failed: {out.stderr.strip()[-500:]}")
    return out.stdout.strip()


def _banner(api_url: str, logins: str, demo_dir: Path) -> None:
    print(f"\nReview console: {api_url}/console/   (API docs: {api_url}/docs)")
    if logins:
        print(logins)
    print(f"Logs: {demo_dir / 'logs'}/   Ctrl-C stops everything.\n", flush=True)


def _summarise(
    bootstrap: str, api_url: str, token: str, supervisor: Supervisor, stop: threading.Event, duration: float
) -> int:
    started = time.monotonic()
    last = DemoStatus()
    offsets = OffsetReader(bootstrap)
    try:
        while not stop.wait(2.0):
            if failed := [c for c in supervisor.failed() if c.name != "simulator"]:
                print(f"\n{failed[0].name} exited unexpectedly; last lines of {failed[0].log_path}:")
                print(_tail(failed[0].log_path))
                return 1
            last = read_status(offsets, api_url, token, previous=last)
            print(f"\r{last.line(time.monotonic() - started)}", end="", flush=True)
            if duration and time.monotonic() - started >= duration:
                break
    finally:
        offsets.close()
    print()
    return 0


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
