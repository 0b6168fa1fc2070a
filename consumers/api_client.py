"""Writes findings to the review API over HTTP, per the ingestion contract.

`POST /v1/findings/batch` with at most `batch_size` findings; the API is idempotent by finding id,
so re-sending after a crash or a retry only counts duplicates. Outcomes are sorted into three kinds:
acknowledged (200), transient (`TransientError`: connect errors, timeouts, 429, 5xx, and auth or
routing errors, which are configuration faults an operator fixes without losing data), and rejected
(any other 4xx): a batch the API rejects is bisected until the offending findings are isolated, so
one bad finding cannot hold back the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import httpx

from consumers.retry import TransientError
from pipeline.findings import Finding

BATCH_PATH = "/v1/findings/batch"
MAX_BATCH = 1000
CONFIG_STATUSES = frozenset({401, 403, 404, 405})
"""4xx that no single finding can cause: wrong token or URL. Retried (and alerted on), never
dead-lettered, so a rotated token does not send the whole stream to the DLQ."""


@dataclass(frozen=True, slots=True)
class Rejected:
    """A finding the API refused, with its status and message (the DLQ reason)."""

    finding: Finding
    status: int
    message: str


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """What the API did with one chunk of findings."""

    accepted: int
    duplicates: int
    requests: int
    rejected: tuple[Rejected, ...] = ()


class ReviewApiClient:
    """HTTP client of the ingestion endpoint; the token is sent, never logged or repr'd."""

    def __init__(
        self,
        *,
        base_url: str,
        token: str,
        timeout_s: float,
        batch_size: int = MAX_BATCH,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not 1 <= batch_size <= MAX_BATCH:
            raise ValueError(f"batch_size must be in 1..{MAX_BATCH}")
        self.batch_size = batch_size
        self._http = httpx.Client(
            base_url=base_url,
            timeout=timeout_s,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            transport=transport,
        )

    def __repr__(self) -> str:
        return f"ReviewApiClient(base_url={str(self._http.base_url)!r})"

    def chunks(self, findings: Sequence[Finding]) -> list[Sequence[Finding]]:
        """Findings split into request-sized chunks."""
        return [findings[i : i + self.batch_size] for i in range(0, len(findings), self.batch_size)]

    def write_chunk(self, findings: Sequence[Finding]) -> ChunkResult:
        """Write one chunk; bisect on rejection; `TransientError` when it should be retried."""
        status, payload = self._post(findings)
        if status == 200:
            return ChunkResult(_count(payload, "accepted"), _count(payload, "duplicates"), 1)
        if len(findings) == 1:
            return ChunkResult(0, 0, 1, (Rejected(findings[0], status, _message(payload)),))
        middle = len(findings) // 2
        left = self.write_chunk(findings[:middle])
        right = self.write_chunk(findings[middle:])
        return ChunkResult(
            left.accepted + right.accepted,
            left.duplicates + right.duplicates,
            1 + left.requests + right.requests,
            left.rejected + right.rejected,
        )

    def reachable(self) -> bool:
        """True when the API answers HTTP at all (any status below 500)."""
        try:
            return self._http.get("/healthz", timeout=1.0).status_code < 500
        except httpx.HTTPError:
            return False

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def _post(self, findings: Sequence[Finding]) -> tuple[int, dict[str, object]]:
        # Serialised by hand: one model_dump_json per finding is the fastest pydantic path.
        body = '{"findings":[' + ",".join(f.model_dump_json() for f in findings) + "]}"
        try:
            response = self._http.post(BATCH_PATH, content=body.encode("utf-8"))
        except httpx.TransportError as exc:
            raise TransientError(f"review API unreachable: {type(exc).__name__}", kind="connect") from exc
        status = response.status_code
        if status == 429:
            raise TransientError("review API throttled (429)", kind="throttled")
        if status >= 500:
            raise TransientError(f"review API unavailable ({status})", kind="unavailable")
        if status in CONFIG_STATUSES:
            raise TransientError(
                f"review API refused the service ({status}): check token and URL", kind="auth"
            )
        try:
            payload = response.json()
        except ValueError:
            payload = {"detail": response.text[:500]}
        return status, payload if isinstance(payload, dict) else {"detail": payload}


def _count(payload: dict[str, object], name: str) -> int:
    value = payload.get(name, 0)
    return value if isinstance(value, int) else 0


def _message(payload: dict[str, object]) -> str:
    """The API's explanation, shortened for a dead-letter reason."""
    detail = payload.get("detail", payload)
    return str(detail)[:1000]
