"""Subprocess entry for integration tests: the real `railbird consume` runtime (`serve`), with the
test detectors instead of the registry. Usage: python -m tests.consumers.consume_proc TOPIC..."""

from __future__ import annotations

import os
import sys

from kafka import codec

from consumers.logs import configure_json_logging
from pipeline.detector import Detector
from pipeline.rules import RULES_PRESETS
from railbird.commands.consume import serve
from railbird.settings import load_settings
from tests.consumers.detector_doubles import BurstDetector, TalkativeDetector, WordDetector


def factory() -> dict[str, Detector]:
    """The test detectors, fresh state."""
    return {"test.word": WordDetector(), "test.burst": BurstDetector(), "test.talkative": TalkativeDetector()}


HIDE_CODECS = "RAILBIRD_TEST_HIDE_CODECS"
"""Comma-separated codecs this process pretends to lack (an install without their libraries, the
situation of issue 21): kafka-python then raises UnsupportedCodecError on such a batch."""


def hide_codecs(names: str) -> None:
    """Make kafka-python believe the named codecs' libraries are missing."""
    for name in filter(None, (n.strip() for n in names.split(","))):
        setattr(codec, {"snappy": "snappy", "zstd": "zstd", "lz4": "lz4"}[name], None)


def main() -> int:
    """Run until SIGTERM, like `railbird consume --topic ...`."""
    hide_codecs(os.environ.get(HIDE_CODECS, ""))
    settings = load_settings()
    configure_json_logging(level="INFO")
    rules = next(iter(RULES_PRESETS.values()))
    return serve(
        settings, inputs=sys.argv[1:], factory=factory, rules=rules, metrics_port=settings.metrics_port
    )


if __name__ == "__main__":
    raise SystemExit(main())
