"""Links and contact details in chat: every link is advertising in table chat, risky ones are
malicious; e-mail addresses, phone numbers and messenger handles are personal info. Runs on the
`bare` view (see rules.py); `RuleHit` is the hit type rules.py shares.
"""

from __future__ import annotations

import ipaddress
import re
from typing import NamedTuple

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
URL_GATE = r"(?:https?|ftp|hxxps?)://|www\.|[a-z0-9\-]\.[a-z][a-z]|\.[0-9]|\.[^\x00-\x7f]"
"""A prefilter superset of `_URL`: a scheme or 'www.'; a label character, a dot and two letters (the
last label: a TLD or 'xn--'); or a dot before a digit (an IP address; any non-ASCII character
stands in for Python's Unicode digits). Fires on ~2 % of lines; `_URL_HINT` let ~5 % through."""
HANDLE_GATE = rf"@|{_MESSENGERS}[^a-z0-9]"
"""A prefilter superset of `_HANDLE` (run in the rules' one prefilter pass, see rules.py): every handle holds
an '@' or a messenger name followed by whitespace, ':' or '=', none of which is in [a-z0-9].
It fires on ~2 % of lines; the old test (an '@', ':', '=' or three digits) on ~21 %."""
_DIGITS = "0123456789"
_ASCII_DIGIT = re.compile(r"[0-9]")
_URL_HINT = re.compile(r"\.[a-z\d]")
"""Every `_URL` match without '://' or 'www.' has a dot before a letter or digit; sentence
dots ('ok. gg') do not, and the full pattern costs ~9 us on any text holding a dot."""


class RuleHit(NamedTuple):
    """One rule's match: category, score, [start, end) in the bare view, a short reason."""

    category: str
    score: float
    start: int
    end: int
    reason: str


def find_links(text: str, *, possible: bool = True) -> list[RuleHit]:
    """Links: any link is advertising in table chat; risky ones are also malicious_link.
    `possible` False = `URL_GATE` already ruled links out."""
    if not possible or "." not in text or not ("://" in text or "www." in text or _URL_HINT.search(text)):
        return []  # cannot hold a URL: skip the scan (tests check it equals `scan_links`)
    return scan_links(text)


def scan_links(text: str) -> list[RuleHit]:
    """Every URL-looking string analysed, with no prefilter (`find_links` is the fast path)."""
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


def find_contacts(text: str, *, handles_possible: bool = True) -> list[RuleHit]:
    """Contact details posted in chat: e-mail, phone numbers, messenger handles.
    `handles_possible` False = `HANDLE_GATE` already ruled messenger handles out."""
    hits = (
        [RuleHit("personal_info", 0.85, m.start(), m.end(), "e-mail") for m in _EMAIL.finditer(text)]
        if "@" in text
        else []
    )
    # Most lines hold no digit: the regex answers that faster than counting them.
    # ASCII digits counted by ten C-level `str.count` calls: a deleting `translate` cost ~6 us
    # on a non-ASCII line (measured).
    digits = sum(map(text.count, _DIGITS)) if _ASCII_DIGIT.search(text) else 0
    if digits < 9:
        return hits + _handles(text, digits) if handles_possible else hits
    for m in _PHONE.finditer(text):
        # Its own count: `digits` (the whole line's) still gates the handles below.
        in_match = sum(c.isdigit() for c in m.group(0))
        amount = re.fullmatch(r"\d{1,3}(?:[,.]\d{3})+", m.group(0).replace(" ", ""))  # chip counts
        if 9 <= in_match <= 15 and not amount:
            hits.append(RuleHit("personal_info", 0.8, m.start(), m.end(), "phone number"))
    return hits + _handles(text, digits) if handles_possible else hits


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
