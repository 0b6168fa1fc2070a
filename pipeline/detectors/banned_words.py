"""Old import path of `chat.banned_words`; the detector now lives in `pipeline.detectors.chat`."""

from __future__ import annotations

from pipeline.detectors.chat.banned_words import DEFAULT_TERMS, BannedWordsDetector

__all__ = ["DEFAULT_TERMS", "BannedWordsDetector"]
