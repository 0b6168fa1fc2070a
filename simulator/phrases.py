"""Everyday table talk in the room's five languages, written by the team (no external data).

The benign lines include near-misses on purpose: card talk about a finished hand, final-table deal
talk, friendly caps and emoji, so that detectors are measured on what they must leave alone too.
"""

from __future__ import annotations

from typing import Final

LANGUAGES: Final = ("en", "id", "vi", "hu", "uk")
LANGUAGE_SHARE: Final = (0.40, 0.20, 0.15, 0.10, 0.15)
"""Share of players per chat language in the simulated room."""

DURING_HAND: Final[dict[str, tuple[str, ...]]] = {
    "en": (
        "lag again?", "come on dealer", "so slow today", "anyone from Manila?", "gl all",
        "coffee time", "wow this table is quiet", "my internet is awful tonight", "what time is it there?",
        "brb after this one", "sorry, phone rang", "lol", "haha", "ok", "running bad today",
        "this level goes fast", "where is everyone from?", "good luck everyone",
    ),
    "id": (
        "lag lagi?", "ayo dealer", "lambat banget hari ini", "ada yang dari Surabaya?", "gl semua",
        "ngopi dulu", "sepi ya meja ini", "sinyal jelek nih", "jam berapa di sana?", "wkwkwk",
        "sabar bos", "semoga beruntung semua", "main santai aja", "mantap",
    ),
    "vi": (
        "lag nữa à?", "nhanh lên nào", "hôm nay chậm quá", "có ai ở Sài Gòn không?", "chúc may mắn cả bàn",
        "uống cà phê đã", "bàn này yên tĩnh ghê", "mạng nhà mình yếu quá", "haha", "ok bạn",
        "xin lỗi, có điện thoại", "chơi vui nhé",
    ),
    "hu": (
        "megint lagol?", "gyerünk osztó", "de lassú ma minden", "van itt valaki Debrecenből?", "sok sikert mindenkinek",
        "kávészünet", "csendes ez az asztal", "rossz a netem ma", "haha", "oké",
        "bocs, csörgött a telefon", "jó játékot",
    ),
    "uk": (
        "знову лаг?", "давай, дилер", "сьогодні все так повільно", "хтось із Києва?", "усім удачі",
        "кава-брейк", "тихий стіл сьогодні", "інтернет жахливий", "ха-ха", "ок",
        "вибачте, дзвонили", "гарної гри",
    ),
}

AFTER_HAND: Final[dict[str, tuple[str, ...]]] = {
    "en": (
        "nh", "gg wp", "ty", "nice hand", "ship it", "wp", "vnh", "gg", "unlucky", "ty sir",
        "I had AK and folded lol", "nice river", "sick call", "well played", "ggs", "I folded two pair there",
        "NICE HAND!!", "gg 👍", "😂😂", "ship it 🚢",
    ),
    "id": (
        "nh", "gg wp", "makasih", "tangan bagus", "mantap bos", "gg", "sial", "aku tadi pegang AK, fold wkwk",
        "river bagus", "call nekat", "main bagus", "gg 👍",
    ),
    "vi": (
        "nh", "gg wp", "cảm ơn", "tay đẹp", "gg", "xui quá", "mình cầm AK mà bỏ bài haha", "river đẹp",
        "call liều thế", "chơi hay", "gg 👍",
    ),
    "hu": (
        "nh", "gg wp", "kösz", "szép leosztás", "gg", "pech", "AK-m volt és bedobtam haha", "szép river",
        "bátor call", "szépen játszottad", "gg 👍",
    ),
    "uk": (
        "nh", "gg wp", "дякую", "гарна роздача", "gg", "не пощастило", "у мене були AK, скинув лол",
        "гарний рівер", "сміливий кол", "добре зіграно", "gg 👍",
    ),
}

DEAL_TALK: Final[dict[str, tuple[str, ...]]] = {
    "en": ("anyone want a deal?", "ICM chop? everyone click the deal button", "deal is fine by me"),
    "id": ("mau deal semua?", "bagi rata pakai tombol deal?", "aku setuju deal"),
    "vi": ("chia giải không mọi người?", "mọi người bấm nút deal nhé", "mình đồng ý chia"),
    "hu": ("valaki akar dealt?", "ICM osztozás? mindenki nyomja a deal gombot", "nekem jó a deal"),
    "uk": ("хтось хоче діл?", "ICM поділ? всі натисніть кнопку угоди", "я за діл"),
}
"""Final-table deal talk: allowed when every remaining player takes the deal option."""

LOBBY: Final[dict[str, tuple[str, ...]]] = {
    "en": ("any good tables tonight?", "when does the bounty start?", "gl in the main event all",
           "who is running the freeroll?", "anyone know the rake at vip?"),
    "id": ("ada meja bagus malam ini?", "turnamen bounty mulai jam berapa?", "semangat semua"),
    "vi": ("tối nay bàn nào vui?", "giải bounty mấy giờ bắt đầu?", "chúc mọi người may mắn"),
    "hu": ("van jó asztal ma este?", "mikor kezdődik a bounty?", "sok sikert mindenkinek a versenyen"),
    "uk": ("є гарні столи сьогодні?", "коли починається баунті?", "всім удачі в турнірі"),
}

PRIVATE: Final[dict[str, tuple[str, ...]]] = {
    "en": ("gg earlier", "nice game yesterday", "are you playing the bounty tonight?"),
    "id": ("gg tadi", "main bagus kemarin", "ikut bounty malam ini?"),
    "vi": ("gg lúc nãy", "hôm qua chơi hay đấy", "tối nay bạn chơi bounty không?"),
    "hu": ("gg az előbb", "szép játék tegnap", "játszol ma a bountyn?"),
    "uk": ("gg раніше", "гарна гра вчора", "граєш сьогодні баунті?"),
}

NICKNAME_PARTS: Final = (
    ("Lucky", "Silent", "Big", "Tiny", "Royal", "Crazy", "Cool", "Golden", "Night", "River", "Ace",
     "Mega", "Sir", "Lady", "Shark", "Chip", "Bluff", "Nuts", "Donk", "Calm"),
    ("Fish", "Tiger", "Hunter", "Queen", "King", "Rider", "Wolf", "Panda", "Player", "Boss", "Cat",
     "Joker", "Dealer", "Ninja", "Storm", "Lion", "Owl", "Bear", "Hawk", "Fox"),
)

OFFENSIVE_NICKNAMES: Final = (
    "FuckYouAll", "RetardSlayer", "KontolBesar", "DitMeMay", "KurvaAnyad", "SukaBlyat",
    "Anjing_Lu", "NiggaPlease", "Cunt_Crusher", "HitlerWasRight", "Baszdmeg", "ХуйТобі",
)
"""Nicknames that break the nickname rule (insult, hate, sexual), a few per language."""
