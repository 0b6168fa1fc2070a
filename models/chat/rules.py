"""Rule-based scores: the hand-written patterns, link analysis and contact details.

All matching runs on the `bare` view; spans are reported in view offsets and mapped back to the
original text by the caller.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Any

from models.chat.normalize import strip_accents
from models.chat.patterns import PATTERNS

SHORTENERS = frozenset(
    [
        "bit.ly",
        "tinyurl.com",
        "t.co",
        "goo.gl",
        "is.gd",
        "cutt.ly",
        "rb.gy",
        "s.id",
        "shorturl.at",
        "tiny.cc",
        "ow.ly",
        "buff.ly",
        "t.ly",
        "v.gd",
        "rebrand.ly",
        "bl.ink",
        "shorte.st",
        "adf.ly",
        "lnkd.in",
        "qr.ae",
        "tr.im",
    ]
)
SUSPICIOUS_TLDS = frozenset(
    [
        "zip",
        "mov",
        "xyz",
        "top",
        "click",
        "tk",
        "ml",
        "ga",
        "cf",
        "gq",
        "icu",
        "cam",
        "rest",
        "country",
        "work",
        "loan",
        "bid",
        "win",
        "sbs",
        "cfd",
        "buzz",
        "monster",
        "quest",
        "lol",
        "mom",
        "support",
        "help",
    ]
)
EXECUTABLE = frozenset(
    [
        "exe",
        "scr",
        "bat",
        "cmd",
        "msi",
        "apk",
        "js",
        "vbs",
        "jar",
        "ps1",
        "dll",
        "com",
        "pif",
        "hta",
        "lnk",
        "iso",
        "img",
        "dmg",
    ]
)
COMMON_TLDS = frozenset(
    [
        "com",
        "net",
        "org",
        "io",
        "co",
        "me",
        "info",
        "biz",
        "app",
        "dev",
        "gg",
        "tv",
        "ly",
        "be",
        "to",
        "in",
        "us",
        "uk",
        "de",
        "fr",
        "ru",
        "ua",
        "hu",
        "vn",
        "id",
        "my",
        "sg",
        "ph",
        "th",
        "cc",
        "ws",
        "la",
        "pw",
        "ai",
        "eu",
        "site",
        "online",
        "shop",
        "store",
        "link",
        "live",
        "club",
        "fun",
        "space",
        "website",
        "page",
    ]
)
_BAIT = re.compile(
    r"(?:login|log-in|signin|verify|secure|account|wallet|bonus|free|gift|promo|claim|reward|chip)"
)

_URL = re.compile(
    r"(?:(?:https?|ftp|hxxps?)://|www\.)[^\s<>\"']+"
    r"|\b(?:[a-z0-9\-]{1,63}\.)+(?:[a-z]{2,24}|xn--[a-z0-9\-]+)(?::\d{2,5})?(?:/[^\s<>\"']*)?"
    r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?(?:/[^\s]*)?"
)
_EMAIL = re.compile(r"\b[\w.+\-]{1,64}@[\w\-]{1,63}(?:\.[\w\-]{1,63})+\b")
_PHONE = re.compile(r"(?<![\w.])\+?\d[\d \-().]{7,18}\d(?![\w.])")
_MESSENGERS = (
    r"(?:wa|whats ?app|telegram|tele|tg|line|zalo|viber|signal|discord|skype|wechat|insta(?:gram)?|ig|"
    r"snap(?:chat)?|телеграм|телега|тг|вайбер|ватсап)"
)
_HANDLE = re.compile(
    rf"\b{_MESSENGERS}\s*(?:[:=]\s*@?|@)[a-z0-9_.\-]{{3,32}}"
    rf"|\b{_MESSENGERS}\s+(?=[a-z0-9_.]*\d)[a-z0-9_.\-]{{4,32}}"
    r"|(?<![\w@])@[a-z0-9_]{4,32}\b"
)
_NO_DIGITS = str.maketrans("", "", "0123456789")
_ASCII_DIGIT = re.compile(r"[0-9]")
_URL_HINT = re.compile(r"\.[a-z\d]")
"""Every `_URL` match without '://' or 'www.' has a dot before a letter or digit; sentence
dots ('ok. gg') do not, and the full pattern costs ~9 us on any text holding a dot."""


@dataclass(frozen=True, slots=True)
class RuleHit:
    """One rule's match: category, score, [start, end) in the bare view, a short reason."""

    category: str
    score: float
    start: int
    end: int
    reason: str


_COMMON = frozenset(
    [
        "i",
        "a",
        "an",
        "the",
        "to",
        "it",
        "s",
        "t",
        "of",
        "and",
        "or",
        "me",
        "my",
        "you",
        "u",
        "ya",
        "yo",
        "is",
        "are",
        "on",
        "in",
        "at",
        "this",
        "that",
        "so",
        "do",
        "be",
        "we",
    ]
)
_ESCAPE = re.compile(r"\\[a-zA-Z]|\[[^\]]*\]|\{[^}]*\}")
_LITERAL = re.compile(r"[^\W\d_]+")
_TOKEN = re.compile(r"[^\W\d_]+")


def triggers(pattern: str) -> frozenset[str]:
    """Words of a pattern's literal text, minus very common ones: a text none of whose words
    equals (short) or starts like (4+ letters) one of them cannot match, so the regex is skipped.
    Empty = always run the regex."""
    words = _LITERAL.findall(_ESCAPE.sub(" ", pattern))
    return frozenset(w if len(w) < 4 else w[:4] for w in words if w not in _COMMON)


def _loosen(pattern: str) -> str:
    """An RE2-compilable pattern matching at least everything `pattern` matches: Python's
    Unicode word classes spelled as Unicode properties, word boundaries and lookarounds dropped."""
    out = pattern.replace(r"[^\W\d_]", r"\pL").replace(r"\w", r"[\pL\pN_]").replace(r"\W", r"[^\pL\pN_]")
    out = out.replace(r"\b", "")
    while (start := out.find("(?!")) >= 0 or (start := out.find("(?=")) >= 0:
        depth, end = 0, start
        for end in range(start, len(out)):
            depth += {"(": 1, ")": -1}.get(out[end], 0) if out[end - 1 : end] != "\\" else 0
            if depth == 0:
                break
        out = out[:start] + out[end + 1 :]
    return out


def _re2_set(patterns: list[str]) -> Any:
    """RE2 multi-pattern set (one linear pass for every pattern), or None without google-re2."""
    try:
        import re2
    except ImportError:
        return None
    options = re2.Options()
    options.max_mem = 64 << 20  # the default 8 MiB budget is too small for every pattern in one set
    regex_set = re2.Set.SearchSet(options)
    for pattern in patterns:
        if regex_set.Add(pattern) < 0:
            return None
    regex_set.Compile()
    return regex_set


_LETTERISH = r"[^\x00-\x40\x5b-\x60\x7b-\x7f]"
"""Any character but an ASCII non-letter: a superset of Python's letters without relying on
RE2's Unicode tables agreeing with Python's."""
_GATES = (
    # Leetspeak inside a word (`_LEET_IN_WORD`): a digit/symbol run touching a letter.
    rf"{_LETTERISH}[|!]*[013457@$]|{_LETTERISH}[|!]+{_LETTERISH}|[013457@$]{_LETTERISH}",
    # Spaced-out letters (`_SPACED_OUT`): three single letters between separators.
    rf"(?:^|[^a-zA-Z0-9]){_LETTERISH}[ .\-_*+]{_LETTERISH}[ .\-_*+]{_LETTERISH}(?:$|[^a-zA-Z0-9])",
)
"""Superset checks for `undo_disguise`, run in the same RE2 pass as the patterns: its two
Python regexes cost ~4 us per line and find something on ~3 % of lines."""


class RuleSet:
    """The compiled patterns, each behind a word trigger so most lines run none of them."""

    def __init__(self) -> None:
        self._patterns: list[tuple[str, float, re.Pattern[str]]] = []
        self._by_word: dict[str, set[int]] = {}
        self._always: set[int] = set()
        for k, (category, score, pattern) in enumerate(PATTERNS):
            bare = _bare_pattern(pattern)
            self._patterns.append((category, score, re.compile(bare)))
            words = triggers(bare)
            if not words:
                self._always.add(k)
            for word in words:
                self._by_word.setdefault(word, set()).add(k)
        self._set = _re2_set([_loosen(_bare_pattern(p)) for _, _, p in PATTERNS] + list(_GATES))

    def active(self, text: str) -> set[int]:
        """Indices of the patterns that may match: RE2's one-pass multi-pattern set when the
        library is installed (a loosened superset of every pattern), else the trigger words."""
        if self._set is not None:
            return {k for k in self._set.Match(text) or () if k < len(self._patterns)}
        tokens = set(_TOKEN.findall(text))
        keys = tokens | {t[:4] for t in tokens if len(t) > 4}
        found = set(self._always)
        for word in self._by_word.keys() & keys:
            found |= self._by_word[word]
        return found

    def find(self, text: str, *, prefilter: bool = True) -> list[RuleHit]:
        """Every rule hit in a bare-view text, also where leetspeak or spaced-out letters hid it."""
        matched = self._set.Match(text) or [] if prefilter and self._set is not None else None
        hits = self._patterns_in(text, prefilter, matched)
        hits.extend(find_links(text))
        hits.extend(find_contacts(text))
        n = len(self._patterns)
        undone = undo_disguise(
            text,
            leet_possible=matched is None or n in matched,
            spaced_possible=matched is None or n + 1 in matched,
        )
        if undone is not None:
            # The bare view keeps digits and spacing (card ranks, "3bet", amounts): the patterns
            # run again on the undisguised text, and its hits are mapped back onto the bare view.
            plain, where = undone
            seen = {(h.category, h.start, h.end) for h in hits}
            for h in self._patterns_in(plain, prefilter, None):
                start, end = where[h.start], where[h.end - 1] + 1
                if h.end > h.start and (h.category, start, end) not in seen:
                    hits.append(RuleHit(h.category, h.score, start, end, h.reason))
        return hits

    def _patterns_in(self, text: str, prefilter: bool, matched: list[int] | None) -> list[RuleHit]:
        """Pattern hits; `matched` = this text's RE2 set matches when already computed."""
        hits: list[RuleHit] = []
        n = len(self._patterns)
        if matched is not None:
            indices: set[int] | range = {k for k in matched if k < n}
        else:
            indices = self.active(text) if prefilter else range(n)
        for k in sorted(indices):
            category, score, regex = self._patterns[k]
            hits.extend(RuleHit(category, score, m.start(), m.end(), category) for m in regex.finditer(text))
        return hits


_LEET_CHAR = re.compile(r"[013457@$|!]")
_LEET_MAP = str.maketrans("013457@$|!", "oieastasli")
_LEET_IN_WORD = re.compile(
    r"(?<=[^\W\d_])[013457@$|!]+(?=[^\W\d_])|(?<=[^\W\d_])[013457@$]+\b|\b[013457@$](?=[^\W\d_]{2})(?!bet)"
)
_WIDE_SPACE = re.compile(r"\s{2,}")
_SPACED_OUT = re.compile(r"(?<![^\W_])(?:[^\W\d_][ .\-_*+]){2,}[^\W\d_](?![^\W_])")


def undo_disguise(
    text: str, *, leet_possible: bool = True, spaced_possible: bool = True
) -> tuple[str, list[int]] | None:
    """Leetspeak inside words undone ("s3nd" -> "send", 1:1) and spaced-out letters joined
    ("k y s" -> "kys"), with each character's offset in `text`; None when there is neither.
    `*_possible` False = a superset check (`_GATES`) already ruled that kind out."""
    # The cheap character test first: most lines have no digit or symbol at all.
    leet = leet_possible and _LEET_CHAR.search(text) is not None and _LEET_IN_WORD.search(text) is not None
    spaced = spaced_possible and _SPACED_OUT.search(text) is not None
    if not (leet or spaced):
        return None
    if leet:
        text = _LEET_IN_WORD.sub(lambda m: m.group(0).translate(_LEET_MAP), text)
    if not spaced:
        return text, list(range(len(text)))
    keep = [True] * len(text)
    for m in _SPACED_OUT.finditer(text):
        for i in range(m.start() + 1, m.end(), 2):
            keep[i] = False
    for m in _WIDE_SPACE.finditer(text):  # "s e n d  n u d e s": words were two spaces apart
        for i in range(m.start() + 1, m.end()):
            keep[i] = False
    where = [i for i, k in enumerate(keep) if k]
    return "".join(text[i] for i in where), where


def _bare_pattern(pattern: str) -> str:
    """Strip accents from the pattern's non-ASCII letters as the bare view does."""
    return "".join(c if c.isascii() else (strip_accents(c.lower()) or c) for c in pattern)


def find_links(text: str) -> list[RuleHit]:
    """Links: any link is advertising in table chat; risky ones are also malicious_link."""
    if "." not in text or not ("://" in text or "www." in text or _URL_HINT.search(text)):
        return []
    hits: list[RuleHit] = []
    for m in _URL.finditer(text):
        url = m.group(0).rstrip(".,!?)")
        host = _host(url)
        if host is None:
            continue
        risk, reason = link_risk(host, url)
        end = m.start() + len(url)
        hits.append(RuleHit("spam", 0.7, m.start(), end, "link"))
        if risk > 0:
            hits.append(RuleHit("malicious_link", risk, m.start(), end, reason))
    return hits


def _host(url: str) -> str | None:
    """Host of a URL-looking string, or None when it is not plausibly a link (e.g. '3.5bb')."""
    rest = re.sub(r"^(?:[a-z]+://)", "", url)
    host = re.split(r"[/:?#]", rest, maxsplit=1)[0]
    host = host.rsplit("@", 1)[-1]
    if not host or "." not in host:
        return None
    if _is_ip(host):
        return host
    tld = host.rsplit(".", 1)[-1]
    has_scheme = "://" in url or url.startswith("www.")
    if has_scheme or tld in COMMON_TLDS or tld in SUSPICIOUS_TLDS or tld.startswith("xn--"):
        return host
    return None


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def link_risk(host: str, url: str) -> tuple[float, str]:
    """Score in [0, 1] that a link is malicious, and why (0 for an ordinary-looking link)."""
    path = url.split(host, 1)[-1]
    ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    tld = host.rsplit(".", 1)[-1]
    if ext in EXECUTABLE:
        return 0.95, f"executable .{ext}"
    if _is_ip(host):
        return 0.9, "IP-address host"
    if "xn--" in host:
        return 0.9, "punycode host"
    if "@" in url.split("//", 1)[-1].split("/", 1)[0]:
        return 0.9, "credentials in link"
    if host in SHORTENERS:
        return 0.8, "link shortener"
    if tld in SUSPICIOUS_TLDS:
        return 0.8, f"suspicious .{tld}"
    if _BAIT.search(host) or host.count(".") >= 4:
        return 0.75, "bait host"
    return 0.0, "link"


def find_contacts(text: str) -> list[RuleHit]:
    """Contact details posted in chat: e-mail, phone numbers, messenger handles."""
    hits = (
        [RuleHit("personal_info", 0.85, m.start(), m.end(), "e-mail") for m in _EMAIL.finditer(text)]
        if "@" in text
        else []
    )
    # Most lines hold no digit: the regex answers that faster than counting them.
    digits = len(text) - len(text.translate(_NO_DIGITS)) if _ASCII_DIGIT.search(text) else 0
    if digits < 9:
        return hits + _handles(text, digits)
    for m in _PHONE.finditer(text):
        digits = sum(c.isdigit() for c in m.group(0))
        amount = re.fullmatch(r"\d{1,3}(?:[,.]\d{3})+", m.group(0).replace(" ", ""))  # chip counts
        if 9 <= digits <= 15 and not amount:
            hits.append(RuleHit("personal_info", 0.8, m.start(), m.end(), "phone number"))
    return hits + _handles(text, digits)


def _handles(text: str, digits: int) -> list[RuleHit]:
    """Messenger handles: '@name' alone is weak, 'telegram: name' or 'wa 0812...' strong
    (`digits`: how many ASCII digits the text holds)."""
    hits: list[RuleHit] = []
    if "@" in text or ":" in text or "=" in text or digits >= 3:
        for m in _HANDLE.finditer(text):
            if m.group(0).startswith("@") and "@" in text[max(0, m.start() - 1) : m.start()]:
                continue
            named = not m.group(0).startswith("@")
            hits.append(
                RuleHit("personal_info", 0.75 if named else 0.55, m.start(), m.end(), "messenger handle")
            )
    return hits
