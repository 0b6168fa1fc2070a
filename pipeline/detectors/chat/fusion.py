"""One category per chat message, from the classifier's verdict and the banned-word lexicon.

`chat.classifier` and `chat.banned_words` look at the same message; they must name the same rule,
or one of them reports a hateful line as a mere insult. `fuse` decides once, for both:

- **Specific before generic.** `insult` is the catch-all of rule chat.3; when a message also shows
  a specific offence (hate, threat, sexual, defamation, a leaked database, a fake announcement...)
  the specific one is the rule it breaks. Among specific ones the strongest score wins.
- **Advertising needs something advertised.** The statistical spam head was trained largely on
  SMS spam, where "call" is a strong cue, so poker talk ("bátor call", "call nekat") can score
  high. A spam verdict counts only with a rule span showing what is advertised: a link, a
  messenger handle or number, or an offer pattern (selling chips, a discount, "join my group").
- **A bare model insult needs to be sure.** Without any word-list or rule evidence, the toxic
  head alone must reach `STAT_ONLY_INSULT`; mild put-downs ("clown", "loser") are the harassment
  detector's business when aimed at someone, not banned words on their own.
- **Hate needs its target shown.** Hate is an attack on a group. The statistical hate head learnt
  Davidson's hate class, where slurs and profanity go together, so plain profanity at a player
  ("fuck you", "go fuck yourself": hate 0.50-0.67) crosses its threshold, and "specific before
  generic" then labelled the line hate. A hate verdict counts only with a span showing the
  target: a hate pattern (a group and a hostile predicate) or a listed slur. Without one it is
  dropped, and the line stands on its other categories: "fuck you" on the insult the model
  flagged itself; "I hate rivers" (hate 0.60, insult 0.42) on nothing.
- **Calling yourself names insults nobody.** A mild insult word in a first-person frame ("I'm an
  idiot for calling", "я идиот", `self_aimed.py`) is no evidence of an insult; when every insult
  span of a line is such a word, the line is not an insult (vulgar words and slurs never qualify).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.categories import CATEGORIES
from pipeline.detectors.chat.self_aimed import aimed_at_self
from pipeline.findings import Span
from pipeline.text_model import TextVerdict

GENERIC = "insult"
ADVERTISING_EVIDENCE = frozenset({"spam", "malicious_link", "personal_info"})
"""Span labels that show what a message advertises (rule hits: offer patterns, links, contacts)."""
WORD_EVIDENCE = frozenset({"insult", "hate", "threat", "sexual"})
HATE = "hate"
"""A span with this label (pattern or word list) shows the group a hate verdict needs."""
STAT_ONLY_INSULT = 0.9
"""Toxic-head score an insult needs when no word list or pattern supports it."""
NAMED_BY_EVIDENCE = frozenset({"hate", "sexual"})
"""chat.3 categories a classifier with operating points reports as such only with a span of
their own label (or past their automatic point); otherwise as the rule's generic insult."""
STAT_ONLY_SPAM = 0.9
"""Spam-head score advertising needs without a rule span showing what is advertised (classifiers
with operating points; without them such a verdict never counts)."""
LEXICON_SCORE = 0.95
"""Rank of a banned-word hit among candidates: the list is short and unambiguous, but a pattern
naming the act (0.9+) of another specific category is as strong."""


@dataclass(frozen=True, slots=True)
class Fused:
    """The category a message breaks, its score, the spans supporting it, and where it came from."""

    category: str
    score: float
    spans: tuple[Span, ...]
    from_model: bool
    """True when the classifier flagged this category itself (not only the word list)."""


def _is_chat(category: str) -> bool:
    known = CATEGORIES.get(category)
    return known is not None and known[0] == "chat"


def model_candidates(verdict: TextVerdict, *, word_labels: frozenset[str], hand_running: bool) -> dict[str, float]:
    """Categories the classifier flagged that survive the evidence rules above, with scores
    (`word_labels`: the labels of the banned-word spans on the same message, none if empty)."""
    labels = {s.label for s in verdict.spans}
    out: dict[str, float] = {}
    for category in verdict.flagged:
        if not _is_chat(category) or (category == "hand_in_play" and not hand_running):
            continue
        score = verdict.scores.get(category, 0.0)
        if verdict.automatic is not None:
            # A classifier with operating points: every category has a head trained on poker
            # chat and a review point tuned on independent chat with these gates' cases in it,
            # so the gates (written for a model that knew SMS spam and tweets) stand aside, but
            # for advertising with nothing advertised: the spam head still carries SMS promotions
            # ("only 20 left" 0.84), so without a link, handle or offer it must be sure.
            if category == "spam" and not labels & ADVERTISING_EVIDENCE and score < STAT_ONLY_SPAM:
                continue
            unshown = category in NAMED_BY_EVIDENCE and not {category} & (labels | word_labels)
            if unshown and (category not in (verdict.automatic or ()) or _surer_insult(verdict, category)):
                # Hate and sexual are told apart from insult (one rule, chat.3, one sanction) by
                # what the line shows: a group, a sexual word. Without it the line stays in
                # the rule as an insult ("go fuck yourself" is no hate, "fuck you" no sexual talk).
                out[GENERIC] = max(out.get(GENERIC, 0.0), score)
                continue
            out[category] = score
            continue
        if category == "spam" and not labels & ADVERTISING_EVIDENCE:
            continue
        if category == HATE and HATE not in labels and HATE not in word_labels:
            continue  # no group shown
        if category == GENERIC and score < STAT_ONLY_INSULT and not (word_labels or labels & WORD_EVIDENCE):
            continue
        out[category] = score
    return out


def _surer_insult(verdict: TextVerdict, category: str) -> bool:
    """Hate with no group shown yields to an insult the model flags and is surer of: the hate head
    learnt Davidson's hate class, where profanity and slurs go together, so profanity at a player
    can pass even hate's automatic point ("go fuck yourself": hate 0.76, insult 0.98). On the dev
    set 6 of 150 hate lines are read so (still rule chat.3), no insult line the other way."""
    return (
        category == HATE
        and GENERIC in verdict.flagged
        and verdict.scores.get(GENERIC, 0.0) > verdict.scores.get(category, 0.0)
    )


def fuse(verdict: TextVerdict | None, words: Sequence[Span], *, hand_running: bool, text: str = "") -> Fused | None:
    """The one category of a message (None when it breaks no chat rule); `text` is the message
    the spans point into (without it no insult is read as aimed at the writer)."""
    if not words and (verdict is None or not verdict.flagged):
        return None  # most lines: no listed word and nothing flagged leaves no candidate below
    insults = [s for s in (*words, *(verdict.spans if verdict else ())) if s.label == GENERIC]
    self_aimed = {s for s in insults if aimed_at_self(text, s)}
    words = [s for s in words if s not in self_aimed]
    word_labels = frozenset(s.label for s in words)
    model = model_candidates(verdict, word_labels=word_labels, hand_running=hand_running) if verdict else {}
    if insults and len(self_aimed) == len(set(insults)):
        model.pop(GENERIC, None)  # every insult word is the writer's name for themself
    candidates = dict(model)
    for span in words:
        if _is_chat(span.label):
            candidates[span.label] = max(candidates.get(span.label, 0.0), LEXICON_SCORE)
    if not candidates:
        return None
    specific = {c: s for c, s in candidates.items() if c != GENERIC}
    pool = specific or candidates
    category = max(sorted(pool), key=lambda c: pool[c])
    supporting = [s for s in words if s.label == category]
    if verdict is not None:
        supporting += [s for s in verdict.spans if s.label == category]
    if not supporting:
        supporting = list(words) + (list(verdict.spans) if verdict is not None else [])
    spans = tuple(sorted(set(supporting), key=lambda s: (s.start, s.end, s.label)))
    return Fused(category, pool[category], spans, category in model)
