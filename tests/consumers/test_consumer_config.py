"""The runtime's tunables come from Settings alone (issue 21, 6): RuntimeConfig has no defaults
that could drift from Settings' (fetch_max_wait_ms had: 100 there, 20 in Settings)."""

from __future__ import annotations

import dataclasses

from consumers.runtime import RuntimeConfig
from railbird.commands.consume import runtime_config
from railbird.settings import Settings


def test_runtime_config_has_no_defaults_of_its_own() -> None:
    fields = dataclasses.fields(RuntimeConfig)
    assert all(f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING for f in fields)


def test_every_runtime_tunable_is_taken_from_the_settings() -> None:
    settings = Settings(env="test", consumer_fetch_max_wait_ms=33, consumer_max_poll_records=7,
                        consumer_local_state=False, consumer_overlap_writes=True, consumer_retry_cap_ms=1500)
    config = runtime_config(settings)
    assert (config.fetch_max_wait_ms, config.max_poll_records, config.local_state, config.overlap_writes,
            config.retry_cap_s) == (33, 7, False, True, 1.5)
    assert runtime_config(Settings(env="test")).fetch_max_wait_ms == 20
