"""Vulgar words run together or disguised inside nicknames are flagged; clean names that merely
contain one (the Scunthorpe problem) are not. The detector is fed chat events and checked on what
it flags and what it leaves alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.chat.lexicon import build_terms
from models.chat.normalize import Normalizer
from pipeline.detectors.chat.nickname import NicknameDetector
from pipeline.detectors.chat.nickname_words import ROOTS, WORDS, name_words, undo_leet, vulgar_in_name
from railbird.settings import load_settings
from tests.chat.chat_events import FakeClassifier, msg

VULGAR = [
    # the three
    "FuckTheFish", "Sh1tHead", "C0ckSuck3r",
    # run together, any case
    "fuckthefish", "FUCKTHEFISH", "xXShitLordXx", "BigCock99", "DumbAss_Joe", "TheRealAsshole",
    "BitchPlease", "WhoreHouse", "SlutMachine", "PussySlayer", "PornKing", "Motherfucker_7",
    "DickHead42", "JackAss", "CuntPunter", "WankerBanker", "NiggaPlease", "FaggotHunter", "RapistRick",
    "BlowJobBob", "DildoBaggins", "Tits_McGee", "Anal_Lover", "Ass_Man", "Nazi_Gold",
    # leetspeak between letters
    "Sh1tStain", "B1tch_Queen", "Fvck_Y0u", "C0ck_Master", "Wh0re_4_U", "P0rnStar", "A$$hole",
    "Fuk_Y0u69", "5hitHead",
    # separators and wrappers
    "f_u_c_k_e_r", "Shit.Show", "xx-cunt-xx", "__fuck__",
    # Indonesian, Hungarian, Vietnamese, Ukrainian, Russian
    "KontolGede", "MemekBasah", "Ngentot_Terus", "JancokKowe", "PepekLu", "Asu_Kowe",
    "KurvaAnyja", "FaszKalap", "PicsaFej", "GeciGyerek", "BazdmegJoska", "SeggFej",
    "DitMeMay", "DumeMay_9", "OcCho_99", "VclVcl",
    "ХуйЛо", "ПиздаБоль", "Ебанько", "БлядьКакая", "СукаЗла", "Мудило99", "ПідорасТут", "Гандон_1",
]  # fmt: skip

CLEAN = [
    # the three
    "Assassin_77", "Dickens_Reader", "Cockatoo_Joe",
    # Scunthorpe traps: clean words and names holding a vulgar one
    "Scunthorpe_Fan", "Peacock99", "Hancock", "Hitchcock_Fan", "Cocktail_Lover", "Cockpit_Ace", "Woodcock",
    "Dickson", "Dickinson_E", "Moby_Dick", "Benedict", "ClassAct", "BassPlayer", "Glasshouse", "Massive_Stack",
    "Passion_Fruit", "Embassy", "Grasshopper", "Titanic", "Titan_Q", "Constitution", "Analyst", "Canal_Boat",
    "Banality", "Therapist", "Grape_Ape", "Drape", "Scrapes", "Sextant", "Essex_Boy", "Middlesex", "Cumulus",
    "Document", "Cucumber", "Circumference", "Shitake", "Matsushita", "Pushit_Real", "Mishit_Ok", "Fukuoka",
    "Penistone", "Pussycat_Doll", "Swanky", "Suckerpunch", "Cocksure", "Homo_Sapiens", "Tai_Chi", "Babi_Guling",
    "Pina_Colada", "Arsenal_Fan", "Sussex", "Skyscraper", "Buttercup", "Shell_Shock", "Hello_Kitty",
    # ordinary names
    "Bob", "Closer77", "Baromfi", "AceHigh", "NguyenVan", "Anh_Tuan", "Anh_Lớn", "Đức_Anh", "Các_Bạn",
    "Kovács_Béla", "Szegedi_Pista", "Olena", "Олександр", "ДимаПокер", "Застрахуй_Меня", "Рубля_Нет",
    "Сукачев", "PutriCantik", "ShipIt", "lagmonster", "Player1", "RiverRat", "NutsOnly", "AllInAnna",
    "FishHunter", "Dealer_Dan", "Lucky7", "Poker4Life", "ButtonMasher",
    # a root spelt across a word join or by a trailing number (seen in a simulated room)
    "CalmFish175", "LuckyFish178", "FishItOut", "Fish_It", "PushItReal", "Grass_Hole",
]  # fmt: skip


@pytest.mark.parametrize("nickname", VULGAR)
def test_vulgar_names_are_flagged(nickname: str) -> None:
    (finding,) = NicknameDetector(classifier=FakeClassifier()).process(msg("gl all", nickname=nickname))
    assert finding.category == "offensive_nickname" and finding.evidence["nickname"] == nickname


@pytest.mark.parametrize("nickname", CLEAN)
def test_clean_names_holding_a_vulgar_word_are_left_alone(nickname: str) -> None:
    assert NicknameDetector(classifier=FakeClassifier()).process(msg("gl all", nickname=nickname)) == ()


@pytest.mark.parametrize("word", sorted(ROOTS | WORDS))
def test_every_listed_word_is_found_in_every_shape_of_name(word: str) -> None:
    """Whole word with a number, between other words, and (roots only) run together lower case."""
    shapes = [f"{word.capitalize()}_77", f"xx_{word}_xx", f"The{word.capitalize()}Guy"]
    if word in ROOTS:
        shapes.append(f"my{word}guy")
    missed = [s for s in shapes if vulgar_in_name(s) is None]
    assert not missed


def test_leetspeak_is_undone_between_letters_only() -> None:
    assert undo_leet("Sh1tHead") == "ShitHead" and undo_leet("C0ckSuck3r") == "CockSucker"
    assert undo_leet("Assassin_77") == "Assassin_77" and undo_leet("Player1") == "Player1"
    assert name_words("FuckTheFish_99") == ["fuck", "the", "fish"]
    assert name_words("5hitHead") == ["hit", "head"] and name_words("5hitHead", edges=True) == ["shit", "head"]


def test_whole_word_and_hidden_hits_say_which() -> None:
    finding = NicknameDetector().judge("BigCock99")
    assert finding is not None and "vulgar word (cock)" in finding[1]
    finding = NicknameDetector().judge("fuckthefish")
    assert finding is not None and "hidden in the name (fuck)" in finding[1]


def test_latin_roots_are_vulgar_according_to_the_licensed_word_lists() -> None:
    """An independent check of the hand-written lists: every Latin-script root or word (other than
    the Vietnamese shorthands) begins a term of the licensed lists (LDNOOBW, glin-profanity), read
    the way the model's training reads them (`build_terms`)."""
    wordlists = load_settings().datasets_dir / "wordlists"
    if not Path(wordlists, "ldnoobw_v2").is_dir():
        pytest.skip(f"licensed word lists not at {wordlists}")
    terms = build_terms(wordlists, normalizer=Normalizer())
    words = {w for term in terms for w in term.split()}
    vietnamese = {"ditme", "dumemay", "dcm", "vcl", "occho"}
    latin = sorted(w for w in ROOTS | WORDS if w.isascii() and w not in vietnamese)
    unknown = [w for w in latin if not any(t.startswith(w) for t in words)]
    assert len(unknown) <= len(latin) // 10, unknown


def test_the_simulators_generated_names_stay_clean() -> None:
    """Every honest name the simulator makes (two parts and a number 1-999; numbers 175 and 178
    once read as "shit" across "Fish" and the digits)."""
    from simulator.phrases import NICKNAME_PARTS

    detector = NicknameDetector()
    numbers = [*range(1, 1000, 37), 175, 178]
    names = [f"{a}{b}{n}" for a in NICKNAME_PARTS[0] for b in NICKNAME_PARTS[1] for n in numbers]
    flagged = [n for n in names if detector.judge(n) is not None]
    assert flagged == []
