"""One frozen settings object per process, read from the environment once, in `main`.

Nothing below the command layer reads `os.environ`: components receive this object (or the few
values they need) as arguments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from consumers.codecs import Compression

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEV_SERVICE_TOKEN = "dev-service-token-change-me"


class Settings(BaseSettings):
    """Every tunable of a Railbird process; environment variables are `RAILBIRD_<FIELD>`."""

    model_config = SettingsConfigDict(env_prefix="RAILBIRD_", frozen=True, extra="ignore")

    env: Literal["dev", "test", "production"] = "dev"
    data_dir: Path = PROJECT_ROOT / "data"
    datasets_dir: Path = PROJECT_ROOT.parent / "shared" / "datasets"
    hands_dir: Path = PROJECT_ROOT.parent / "shared" / "hands"

    # Kafka (Apache Kafka in production; the embedded tansu broker on loopback by default).
    kafka_bootstrap: str = "127.0.0.1:19092"
    embedded_broker_port: int = Field(default=19092, ge=1, le=65535)
    topic_partitions: int = Field(default=8, ge=1, le=1024)
    topic_replication: int = Field(default=1, ge=1, le=7)
    consumer_group_prefix: str = "railbird"
    kafka_compression: Compression = "zstd"
    """Codec of the records Railbird produces for itself: re-key bundles, changelogs, dead letters
    (only Railbird and operators' tools read them). zstd had the best ratio on chat JSON (0.06 of
    the raw bytes; lz4 0.13, snappy 0.12, gzip 0.08) at kafka-python CPU within noise of none
    (docs/operations.md, "Compression"). Consumers decode every codec whatever this says."""
    events_compression: Compression = "gzip"
    """Codec of `enforcement.events` (the outbox relay), read by every game server's client: gzip
    is the one codec every Kafka client decodes without an extra library (kafkajs, for one, needs
    plugins for the others), and the events are few, so its CPU does not matter."""
    consumer_session_timeout_ms: int = Field(default=10_000, ge=1_000)
    consumer_heartbeat_ms: int = Field(default=1_000, ge=100)
    consumer_max_poll_records: int = Field(default=500, ge=1, le=100_000)
    consumer_poll_timeout_ms: int = Field(default=200, ge=1)
    consumer_max_poll_interval_ms: int = Field(default=300_000, ge=10_000)
    """Kafka evicts a member that does not poll for this long; retries poll (paused) every second."""
    consumer_keepalive_s: float = Field(default=1.0, gt=0)
    consumer_fetch_max_wait_ms: int = Field(default=20, ge=0)
    """How long a fetch may wait for data. Apache Kafka answers as soon as data arrives, so this only
    paces idle fetches; tansu (the embedded broker) always waits it out, so it adds half of it per
    hop on average (kafka-python's 500 ms default put up to 0.5 s on the p99)."""
    consumer_state_lookback_s: float = Field(default=13 * 3600, ge=0)
    """Re-key topic history replayed to rebuild a stateful detector (12 h hit-and-run window + 1 h);
    a detector declaring a longer `state_window` gets its own."""
    consumer_local_state: bool = True
    """Detectors keyed by the producer's own key (chat by sender) keep their state in the input
    partition instead of going through the re-key topic (`consumers.local_stage`)."""
    consumer_overlap_writes: bool = False
    """Poll and process the next batch while the previous one's findings are written and its
    re-keyed records acknowledged (`consumers.writer`). Off by default: on the 2-core bench, where
    the API answers in ~5-30 ms, it measured no better (docs/operations.md); it pays off when the
    review API is a network hop away."""
    consumer_retry_base_ms: int = Field(default=100, ge=1)
    consumer_retry_cap_ms: int = Field(default=30_000, ge=1)
    api_batch_size: int = Field(default=1000, ge=1, le=1000)
    metrics_host: str = "127.0.0.1"
    metrics_port: int = Field(default=9464, ge=0, le=65535)
    """Port of /metrics, /healthz, /readyz of `railbird consume`; 0 disables the server."""
    consumer_detectors: str = ""
    """Comma-separated detector names `railbird consume` runs; empty runs every registered one
    (an operator's switch to take one misbehaving detector out without a deploy)."""

    # Review API.
    database_url: str = ""
    """SQLAlchemy URL; empty means SQLite at `data_dir/railbird.db`."""
    api_host: str = "127.0.0.1"
    api_port: int = Field(default=8000, ge=1, le=65535)
    api_url: str = "http://127.0.0.1:8000"
    api_timeout_s: float = Field(default=10.0, gt=0)
    clip_url_template: str = Field(default="", max_length=500, pattern=r"^$|^https?://[^\s]*\{clip_ref\}[^\s]*$")
    """Where the console plays a SnapCam clip: an http(s) URL with `{clip_ref}` (URL-quoted in),
    e.g. `https://clips.internal/v1/{clip_ref}.mp4`; empty shows the bare reference."""
    service_token: str = DEV_SERVICE_TOKEN
    relay_enabled: bool = True
    relay_interval_ms: int = Field(default=100, ge=10)
    rate_limit_enabled: bool | None = None
    """Per-client limits on logins and writes (api/ratelimit.py); None = on, except with env=test."""
    rate_limit_login_per_min: int = Field(default=10, ge=0)
    rate_limit_write_per_min: int = Field(default=300, ge=0)
    retention_days: int = Field(default=365, ge=0)
    """Chat text and evidence of cases closed longer ago than this are redacted (0 = keep forever)."""
    retention_enabled: bool | None = None
    """The API process applies `retention_days` every `retention_interval_s`; None = on, except with
    env=test (tests drive the clock and call the job themselves)."""
    retention_interval_s: float = Field(default=3600.0, ge=1)
    pseudonym_key: str = ""
    """HMAC key of the pseudonyms `railbird player erase` leaves; empty = the service token."""

    # Detection.
    rules_version: str = "id-vi-2022-09-28"
    """Rules version until an admin sets a policy in the review API (`/v1/admin/policy`)."""
    policy_refresh_s: float = Field(default=30.0, ge=0)
    """How often `railbird consume` polls the API's policy; a new revision restarts its lanes with
    it (0 = read it at start only)."""
    chat_model_path: Path | None = None
    """Chat classifier artifact; None means the one shipped in `models/artifacts/`."""
    compiled_cache_dir: Path | None = None
    """Where the chat classifier keeps its compiled pattern database between processes (a
    compile takes ~1 s, a cached load under 1 ms); None means `data_dir/cache`."""
    chat_reorder_lateness_s: float = Field(default=30.0, ge=0, le=86_400)
    """Event time by which a table's chat may arrive out of order and still give the shouting-match
    and harassment detectors the findings in-order delivery gives (they hold messages this long in
    event time, so their findings come this much later). Size it to the skew a consumer failover
    causes between input partitions: the session timeout (10 s) plus a rebalance and a batch, so
    30 s; replays must use the value the stream used to reproduce its findings."""

    log_level: str = "INFO"

    def resolved_cache_dir(self) -> Path:
        """The compiled-pattern cache with the `data_dir` default filled in."""
        return self.compiled_cache_dir or self.data_dir / "cache"

    def resolved_database_url(self) -> str:
        """The database URL with the embedded SQLite default filled in."""
        return self.database_url or f"sqlite:///{self.data_dir / 'railbird.db'}"


def load_settings() -> Settings:
    """Read the settings from the environment; call once per process, in `main`."""
    return Settings()
