"""Chat, SnapCam and nickname detectors (house rules sections 1-4), built together by one factory.

`build_chat_detectors` is what the registry calls. The order matters: the per-player chat
detectors are wrapped in `LedgerTap`s that record offences, and `chat.repeat_offender` comes after
them so it sees the message's offences. With no classifier, every rule still runs.

State keys (the streaming runtime routes by them): player for the taps (lexicon, classifier,
flooding, shouting, hand-in-play), repeat offender and nickname; place (table / tournament /
private pair) for shouting matches, harassment and collusion parties; reported
player for SnapCam triage; one global key for coordinated reporting (reports are few).
"""

from __future__ import annotations

from datetime import timedelta

from pipeline.detector import Detector
from pipeline.detectors.chat.audit_sample import AuditRates, AuditSampleDetector
from pipeline.detectors.chat.banned_words import BannedWordsDetector
from pipeline.detectors.chat.classifier import CachedClassifier, ClassifierDetector
from pipeline.detectors.chat.collusion_parties import CollusionPartiesDetector
from pipeline.detectors.chat.credibility import ReporterCredibility
from pipeline.detectors.chat.flooding import FloodingDetector, FloodLimits
from pipeline.detectors.chat.hand_in_play import HandInPlayDetector
from pipeline.detectors.chat.harassment import HarassmentDetector
from pipeline.detectors.chat.lexicon import Lexicon, compile_lexicon
from pipeline.detectors.chat.nickname import NicknameDetector
from pipeline.detectors.chat.order import DEFAULT_LATENESS, EventTimeOrder, SharedOrder
from pipeline.detectors.chat.repeat import LedgerTap, OffenceLedger, RepeatOffenderDetector
from pipeline.detectors.chat.reporting import CoordinatedReportingDetector
from pipeline.detectors.chat.shouting import ShoutingDetector, ShoutingMatchDetector
from pipeline.detectors.chat.snapcam import SnapCamTriageDetector, TriageWeights
from pipeline.rules import RulesConfig
from pipeline.text_model import TextClassifier


def build_chat_detectors(
    *,
    rules: RulesConfig,
    classifier: TextClassifier | None = None,
    credibility: ReporterCredibility | None = None,
    lateness: timedelta = DEFAULT_LATENESS,
    ledger: OffenceLedger | None = None,
    lexicon: Lexicon | None = None,
) -> list[Detector]:
    """Every chat, SnapCam and nickname detector with fresh state, in the order they must run.

    `lateness`: how far out of event-time order the place-keyed detectors (shouting matches,
    harassment) accept messages and still find exactly what in-order delivery finds.
    `ledger`: the offence ledger the taps and the ladder share (default: a fresh one; shadow copies
    pass one that reads the live ledger, pipeline/shadow.py). `lexicon`: the compiled word list
    (default: compiled here; shadow copies share the live one and so its per-text memo).
    """
    lexicon = lexicon if lexicon is not None else compile_lexicon()
    shared = CachedClassifier(classifier) if classifier is not None else None
    trust = credibility if credibility is not None else ReporterCredibility()
    ledger = ledger if ledger is not None else OffenceLedger(window=rules.chat_offence_window)
    limits = FloodLimits(max_messages=rules.flood_max_messages, window=rules.flood_window)
    # Per-player offences (tapped into the ledger); shouting matches and harassment are keyed by
    # place, so they cannot share a player's ledger and do not count towards escalation.
    per_player: list[Detector] = [
        BannedWordsDetector(lexicon=lexicon, classifier=shared),
        FloodingDetector(limits=limits),
        ShoutingDetector(lexicon=lexicon),
        HandInPlayDetector(classifier=shared),
    ]
    if shared is not None:
        per_player.insert(1, ClassifierDetector(shared, lexicon=lexicon))
    weights = TriageWeights(min_priority=rules.snapcam_min_priority)
    # The place-keyed detectors are routed together and see the same messages: one reorder buffer.
    order = SharedOrder(EventTimeOrder(lateness=lateness))
    audit = AuditRates(rate=rules.chat_audit_rate, near_rate=rules.chat_audit_near_rate,
                       near_score=rules.chat_audit_near_score)
    # Not a ledger tap: an audit sample is no offence. Only registered when sampling is on.
    sampler: list[Detector] = [AuditSampleDetector(shared, audit)] if shared is not None and audit.active else []
    return [
        *(LedgerTap(d, ledger) for d in per_player),
        *sampler,
        RepeatOffenderDetector(ledger, thresholds=tuple(n for n, _ in rules.chat_ban_ladder)),
        ShoutingMatchDetector(lexicon=lexicon, lateness=lateness, shared=order),
        HarassmentDetector(classifier=shared, lateness=lateness, shared=order),
        CollusionPartiesDetector(classifier=shared, lexicon=lexicon, lateness=lateness, shared=order),
        NicknameDetector(classifier=shared, lexicon=lexicon),
        SnapCamTriageDetector(
            classifier=shared,
            credibility=trust,
            lexicon=lexicon,
            weights=weights,
            window=rules.snapcam_report_window,
        ),
        CoordinatedReportingDetector(credibility=trust, alpha=rules.false_report_alpha),
    ]


__all__ = [
    "AuditSampleDetector",
    "BannedWordsDetector",
    "CachedClassifier",
    "ClassifierDetector",
    "CollusionPartiesDetector",
    "CoordinatedReportingDetector",
    "EventTimeOrder",
    "FloodingDetector",
    "HandInPlayDetector",
    "HarassmentDetector",
    "LedgerTap",
    "NicknameDetector",
    "OffenceLedger",
    "RepeatOffenderDetector",
    "ReporterCredibility",
    "SharedOrder",
    "ShoutingDetector",
    "ShoutingMatchDetector",
    "SnapCamTriageDetector",
    "build_chat_detectors",
]
