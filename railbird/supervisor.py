"""Starts and stops the child processes of `railbird demo`: each in its own process group, so a
Ctrl-C leaves no orphan behind and every port is freed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Child:
    """One supervised process and where its output goes."""

    name: str
    process: subprocess.Popen[bytes]
    log_path: Path


@dataclass
class Supervisor:
    """Owns child processes; `stop_all` ends them in reverse start order."""

    log_dir: Path
    children: list[Child] = field(default_factory=list)

    def start(self, name: str, args: list[str], *, env: dict[str, str]) -> Child:
        """Run `railbird <args>` (same interpreter) with output to `<log_dir>/<name>.log`."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log_path = self.log_dir / f"{name}.log"
        with open(log_path, "ab") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "railbird.cli", *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
            )
        child = Child(name, process, log_path)
        self.children.append(child)
        return child

    def failed(self) -> list[Child]:
        """Children that exited on their own."""
        return [c for c in self.children if c.process.poll() is not None]

    def stop_all(self, timeout_s: float = 10.0) -> None:
        """Stop children one at a time, newest first (SIGTERM, then SIGKILL after `timeout_s`).

        Sequential on purpose: consumers finish and commit their batch while the API still answers.
        """
        for child in reversed(self.children):
            _signal_group(child.process, signal.SIGTERM)
            try:
                child.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                _signal_group(child.process, signal.SIGKILL)
                child.process.wait()
        self.children.clear()


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    if process.poll() is None:
        # It may exit between poll and kill: that is the outcome we wanted anyway.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
