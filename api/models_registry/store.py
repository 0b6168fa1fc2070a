"""Artifact bytes on disk, named by their sha256: one file per distinct artifact, written once.

Files, not database rows: a 25 MB artifact per version would make every backup and every
PostgreSQL replica carry it, and the consumers' download is a plain file response. The data dir
must therefore be shared by every API process (one volume), which a single review API already is.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True, slots=True)
class ArtifactStore:
    """`root/<sha256>.skops`; writes go through a temporary file and a rename, so a reader never
    sees half an artifact and two uploads of the same bytes end with one file."""

    root: Path

    def path_for(self, sha256: str) -> Path:
        """Where the artifact of this digest lives (whether or not it exists yet)."""
        if not SHA256.match(sha256):
            raise ValueError(f"not a sha256 hex digest: {sha256!r}")
        return self.root / f"{sha256}.skops"

    def staging(self, chunks: Iterable[bytes]) -> Path:
        """Write uploaded bytes to a temporary file in the store's directory (same filesystem as
        the final name); the caller checks it, then `keep`s or deletes it."""
        self.root.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".upload-", suffix=".skops", dir=self.root)
        try:
            with os.fdopen(fd, "wb") as fh:
                for chunk in chunks:
                    fh.write(chunk)
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
        return Path(name)

    def keep(self, staged: Path, sha256: str) -> Path:
        """Move a checked file to its content address (replacing an identical one is harmless)."""
        final = self.path_for(sha256)
        os.replace(staged, final)
        return final

    def copy_in(self, source: Path, sha256: str) -> Path:
        """Store a local file (the CLI's path) under its digest, unless that file is already there."""
        final = self.path_for(sha256)
        if final.is_file():
            return final
        with source.open("rb") as fh:
            staged = self.staging(iter(lambda: fh.read(1 << 20), b""))
        return self.keep(staged, sha256)
