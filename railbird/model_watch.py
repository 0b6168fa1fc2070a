"""The consumers' side of the model registry: which chat model to serve, fetched and verified.

`railbird consume` asks the review API for the promoted model (`GET /v1/models/promoted`) at start
and every `policy_refresh_s` while its lanes run (the `PolicyWatch` pattern). A new version is
downloaded into the cache dir, verified (its sha256, then every registry check) and only then
do the lanes restart with it. If the API is unreachable, the download breaks or a check fails,
the lanes keep serving the model they have, and the log says why (once per refused artifact).
Version 0 is the shipped artifact: the process's own configured file, nothing to download.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import httpx

from models.chat.checks import ArtifactRefusedError, check_artifact, sha256_of

log = logging.getLogger("railbird.models")

SHIPPED = 0


@dataclass(frozen=True, slots=True)
class ServingModel:
    """A chat model a consumer serves: its registry version, digest and file (None: the configured one)."""

    version: int
    sha256: str
    path: Path | None = None


class ModelUnavailableError(Exception):
    """The promoted model could not be had; the reason goes to the log."""


class ModelSource(Protocol):
    """Where the promoted model comes from (the review API; a double in tests)."""

    def promoted(self) -> tuple[int, str]:
        """(version, sha256) in force; raises ModelUnavailableError."""
        ...

    def download(self, version: int, dest: Path) -> None:
        """Write the version's bytes to `dest`; raises ModelUnavailableError."""
        ...


@dataclass(frozen=True, slots=True)
class ApiModelSource:
    """The review API's `/v1/models/promoted` and `/v1/models/{version}/artifact`."""

    base_url: str
    token: str
    timeout_s: float
    client: httpx.Client | None = None
    """Injected in tests (a TestClient, which keeps its own timeout); None: a fresh httpx call each time."""

    def _get(self, path: str) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.token}"}
        url = f"{self.base_url.rstrip('/')}{path}"
        try:
            if self.client is not None:
                resp = self.client.get(url, headers=headers)
            else:
                resp = httpx.get(url, headers=headers, timeout=self.timeout_s)
            resp.raise_for_status()
            return resp
        except httpx.HTTPError as exc:
            raise ModelUnavailableError(f"GET {path}: {exc}") from None

    def promoted(self) -> tuple[int, str]:
        try:
            doc = self._get("/v1/models/promoted").json()
            return int(doc["version"]), str(doc["sha256"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelUnavailableError(f"unreadable /v1/models/promoted ({exc})") from None

    def download(self, version: int, dest: Path) -> None:
        # The artifact is ~25 MB: one response body is fine, and the digest is checked after.
        dest.write_bytes(self._get(f"/v1/models/{version}/artifact").content)


def obtain(source: ModelSource, *, version: int, sha256: str, cache_dir: Path) -> ServingModel:
    """The promoted model on local disk, verified; ModelUnavailableError with the reason otherwise.
    A verified file is kept as `cache_dir/models/<sha256>.skops` (a restart does not download again)."""
    if version == SHIPPED:
        return ServingModel(SHIPPED, sha256)
    folder = cache_dir / "models"
    final = folder / f"{sha256}.skops"
    if final.is_file() and sha256_of(final) == sha256:
        return ServingModel(version, sha256, final)
    folder.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=".download-", suffix=".skops", dir=folder)
    os.close(fd)
    staged = Path(name)
    try:
        source.download(version, staged)
        try:
            check_artifact(staged, expected_sha256=sha256, cache_dir=cache_dir)
        except ArtifactRefusedError as exc:
            raise ModelUnavailableError(f"version {version} refused: {exc.reason}") from None
        os.replace(staged, final)
    finally:
        staged.unlink(missing_ok=True)
    return ServingModel(version, sha256, final)


@dataclass
class ModelWatch:
    """Polls the promoted model while lanes run; a new, verified one stops them so `run` restarts
    with it. A refused artifact is remembered by digest: logged once, not downloaded every poll."""

    source: ModelSource
    cache_dir: Path
    current: ServingModel
    every_s: float
    latest: ServingModel | None = None
    refused: dict[str, str] = field(default_factory=dict)
    """sha256 -> why it was refused."""

    def start(self, stop: threading.Event) -> threading.Thread | None:
        """Poll in a daemon thread until `stop` (never when every_s is 0); the thread, to join."""
        if self.every_s <= 0:
            return None
        thread = threading.Thread(target=self._poll, args=(stop,), name="railbird-model", daemon=True)
        thread.start()
        return thread

    def _poll(self, stop: threading.Event) -> None:
        while not stop.wait(self.every_s):
            if self.check() is not None and not stop.is_set():
                stop.set()

    def check(self) -> ServingModel | None:
        """One poll: the new model to restart with, or None (no change, or it cannot be served)."""
        try:
            version, sha256 = self.source.promoted()
        except ModelUnavailableError as exc:
            log.warning("promoted chat model unavailable (%s); serving version %d", exc, self.current.version)
            return None
        if self._serving(version, sha256) or sha256 in self.refused:
            return None
        try:
            model = obtain(self.source, version=version, sha256=sha256, cache_dir=self.cache_dir)
        except ModelUnavailableError as exc:
            self.refused[sha256] = str(exc)
            log.error("chat model version %d (%s) not served: %s; still serving version %d (%s)",
                      version, sha256, exc, self.current.version, self.current.sha256)
            return None
        log.info("chat model version %d (%s) replaces version %d: restarting the lanes",
                 version, sha256, self.current.version)
        self.latest = model
        return model

    def _serving(self, version: int, sha256: str) -> bool:
        # Version 0 means "the configured artifact", whatever its digest on this host.
        if version == SHIPPED:
            return self.current.version == SHIPPED
        return sha256 == self.current.sha256


def initial(source: ModelSource, *, cache_dir: Path, configured: Path) -> ServingModel:
    """The model to start with: the promoted one if it can be had, else the configured artifact."""
    fallback = ServingModel(SHIPPED, sha256_of(configured))
    watch = ModelWatch(source, cache_dir, fallback, every_s=0)
    return watch.check() or fallback
