"""`railbird demo` (what `make demo` runs): cases appear within 30 s of the stack being up, and
Ctrl-C stops everything with no process left listening."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from consumers.broker import free_port, port_open

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

SUMMARY = re.compile(r"findings (\d+)\s+cases (\d+)")


def test_demo_shows_cases_and_stops_cleanly_on_sigint(tmp_path: Path) -> None:
    broker_port, api_port, metrics_port = free_port(), free_port(), free_port()
    env = dict(os.environ)
    env.update({
        "RAILBIRD_DATA_DIR": str(tmp_path),
        "RAILBIRD_EMBEDDED_BROKER_PORT": str(broker_port),
        "RAILBIRD_API_PORT": str(api_port),
        "RAILBIRD_METRICS_PORT": str(metrics_port),
        "PYTHONUNBUFFERED": "1",
    })
    demo = subprocess.Popen(
        [sys.executable, "-m", "railbird.cli", "demo", "--rate", "200"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    assert demo.stdout is not None
    os.set_blocking(demo.stdout.fileno(), False)
    output = ""
    up_at: float | None = None
    cases = 0
    deadline = time.monotonic() + 150
    try:
        while time.monotonic() < deadline and demo.poll() is None:
            chunk = demo.stdout.read() or b""
            output += chunk.decode("utf-8", "replace")
            if up_at is None and "Review console:" in output:
                up_at = time.monotonic()
            counts = SUMMARY.findall(output.replace("\r", "\n"))
            cases = int(counts[-1][1]) if counts else 0
            if cases > 0:
                break
            time.sleep(0.5)
        assert up_at is not None, output[-2000:]
        assert cases > 0, output[-2000:]
        assert time.monotonic() - up_at <= 30, "cases must appear within 30 s of the stack being up"
        assert f"http://127.0.0.1:{api_port}/console/" in output
    finally:
        demo.send_signal(signal.SIGINT)
        code = demo.wait(timeout=90)
    rest = demo.stdout.read() or b""
    assert code == 0, (output + rest.decode("utf-8", "replace"))[-2000:]
    assert "no process left running" in rest.decode("utf-8", "replace")
    for port in (broker_port, api_port, metrics_port):
        assert not port_open("127.0.0.1", port), f"port {port} still listening after Ctrl-C"
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True, check=False)
    assert leftovers.stdout.strip() == "", f"orphan processes: {leftovers.stdout}"
