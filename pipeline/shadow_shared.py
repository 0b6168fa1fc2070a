"""`chat.classifier` in shadow: its copy and the live one share their last message's findings.

The candidate thresholds change the verdict of few messages; where the verdict is the same, the
second of the two to see the message takes the first one's findings (before the tap adds the
prior offences of its own ledger) instead of fusing and building them again. Split out of
pipeline/shadow.py (module size); `pipeline.shadow` re-exports it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pipeline.contracts import ChatMessage, Event
from pipeline.detector import Detector
from pipeline.detectors.chat.classifier import ClassifierDetector
from pipeline.detectors.chat.repeat import LedgerTap
from pipeline.findings import Finding
from pipeline.text_model import TextClassifier, TextVerdict


class _LastFindings:
    """The last message a `SharedClassifierFindings` pair handled: event, verdict, findings."""

    __slots__ = ("event", "findings", "verdict")

    def __init__(self) -> None:
        self.event: Event | None = None
        self.verdict: TextVerdict | None = None
        self.findings: Sequence[Finding] = ()


class _Looked:
    """The wrapped detector's classifier, answering the text the wrapper has just looked up with
    the verdict it got (the very object the classifier's cache would hand out again), so a message
    is looked up once, not twice; any other question goes to the classifier."""

    __slots__ = ("_classifier", "text", "verdict")

    def __init__(self, classifier: TextClassifier) -> None:
        self._classifier = classifier
        self.text: str | None = None
        self.verdict: TextVerdict | None = None

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        """The looked-up verdict for that one text, else the classifier's verdicts."""
        verdict = self.verdict
        if verdict is not None and len(texts) == 1 and texts[0] == self.text:
            return [verdict]
        return self._classifier.classify(texts)


class SharedClassifierFindings:
    """A `ClassifierDetector` that takes its twin's findings for the same message when both got
    the same verdict. Its findings are a function of the message and the verdict alone (the word
    list is one object for both, the name is `chat.classifier` in both), so they are identical;
    a different verdict (the candidate thresholds flag otherwise), or any other message, is
    classified as before, from the verdict already looked up."""

    def __init__(self, inner: ClassifierDetector, last: _LastFindings) -> None:
        self._inner = inner
        self._last = last
        self._looked = _Looked(inner.classifier)
        self._scoring = dataclasses.replace(inner, classifier=self._looked)

    @property
    def inner(self) -> ClassifierDetector:
        """The wrapped detector."""
        return self._inner

    @property
    def name(self) -> str:
        """The wrapped detector's name."""
        return self._inner.name

    @property
    def topics(self) -> frozenset[str]:
        """The wrapped detector's topics."""
        return self._inner.topics

    def key(self, event: Event) -> str:
        """The wrapped detector's key."""
        return self._inner.key(event)

    def prefetch(self, events: Sequence[Event]) -> None:
        """The wrapped detector's prefetch."""
        self._inner.prefetch(events)

    def process(self, event: Event) -> Sequence[Finding]:
        """The twin's findings for this very message under the same verdict, else the wrapped one's."""
        if not isinstance(event, ChatMessage):
            return self._inner.process(event)
        text = event.text
        verdict = self._inner.classifier.classify([text])[0]
        last = self._last
        if last.event is event and last.verdict == verdict:
            return last.findings
        looked = self._looked
        looked.text, looked.verdict = text, verdict
        try:
            findings = self._scoring.process(event)  # the wrapped detector, with this verdict
        finally:
            looked.text = looked.verdict = None
        last.event, last.verdict, last.findings = event, verdict, findings
        return findings


def share_classifier_findings(live: dict[str, Detector], candidates: dict[str, Detector]) -> None:
    """Wrap both sets' `chat.classifier` (a ledger tap around a `ClassifierDetector`, one word
    list for both) in `SharedClassifierFindings` with one memo; anything else is left as it is."""
    name = "chat.classifier"
    a, b = live.get(name), candidates.get(name)
    if not (isinstance(a, LedgerTap) and isinstance(b, LedgerTap)):
        return
    x, y = a.inner, b.inner
    if not (
        type(x) is ClassifierDetector
        and type(y) is ClassifierDetector
        and x.lexicon is y.lexicon
        and x.name == y.name == name
    ):
        return
    last = _LastFindings()
    live[name] = dataclasses.replace(a, inner=SharedClassifierFindings(x, last))
    candidates[name] = dataclasses.replace(b, inner=SharedClassifierFindings(y, last))
