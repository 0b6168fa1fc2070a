"""Insult word list written by the team for Russian and Ukrainian (the licensed lists cover
obscenity well but hold few of the everyday insults: "дурак", "выродок", "урод", "ватник").

Written from the team's knowledge of the languages, not extracted from any data set; the writer
had read a few hundred ru_distorted comments (TRAIN rows, and a sorted listing of the file that
showed rows of every split) before writing it, so its political coinages (кремлебот, ватник,
путлер) are ones that set uses too: its test figure is not a blind one (model card). Each entry is a
lemma and its declension class; `insult_terms` expands them to the inflected forms the word lists
need (they match whole words). Over-generation is harmless (a form nobody types never matches),
so the paradigms are simple; words that are also everyday words (собака, корова, больной, бот,
орк, петух, укроп, либерал) are left out.
"""

from __future__ import annotations


def _w(words: str) -> tuple[str, ...]:
    """Space-separated words as a tuple (keeps the long lists compact)."""
    return tuple(words.split())


_HARD = ("", "а", "у", "ом", "е", "ы", "ов", "ам", "ами", "ах")
"""Masculine hard-stem nouns (урод, урода, уроду, уродом, ...)."""
_VELAR = ("", "а", "у", "ом", "е", "и", "ов", "ам", "ами", "ах")
"""Masculine nouns ending in к/г/х/ж/ш/ч (дурак, дураки) and ц (подлец, подлецы -> и/ы both)."""
_FEM = ("а", "ы", "и", "е", "у", "ой", "ою", "ам", "ами", "ах", "")
"""Nouns in -а/-я declined like feminines (дура, дуры, дуре, дурой; мудила, лошара)."""
_SOFT_FEM = ("ь", "и", "ью", "ей", "ям", "ями", "ях")
"""Soft feminines (мразь, тварь, сволочь)."""
_ADJ = ("ый", "ий", "ой", "ая", "ое", "ые", "ие", "ого", "ому", "ым", "им", "ом", "ую", "ых", "их", "ыми", "ими", "ей")  # fmt: skip
"""Adjectives (тупой, тупая, тупого, ...)."""
_UK_HARD = ("", "а", "у", "ом", "ові", "і", "и", "ів", "ам", "ами", "ах")
"""Ukrainian masculine nouns (ідіот, ідіота, ідіоти, ідіотів)."""
_UK_FEM = ("а", "и", "і", "у", "ою", "о", "ам", "ами", "ах", "")
"""Ukrainian nouns in -а (падлюка, падлюки, падлюкою)."""
_UK_ADJ = ("ий", "а", "е", "і", "ого", "ому", "им", "ою", "у", "их", "ими")
"""Ukrainian adjectives (тупий, тупа, тупого)."""

RU_STEMS: dict[tuple[str, ...], tuple[str, ...]] = {
    _HARD: _w(
        "идиот кретин дебил имбецил урод баран болван олух даун дегенерат мудак клоун холуй псих "
        "шизик гад ватник ватан кремлебот либераст москаль кацап рашист путиноид путлер пропагандон "
        "нищеброд нищеёб пиздабол балабол лахтобот педик лох хам жлоб ублюдок выродок подонок "
        "отморозок недоумок недоносок придурок дурачок ушлёпок ушлепок засранец мерзавец подлец "
        "говнюк сопляк дурак чурбан"
    ),
    _VELAR: _w(
        "дурак лох говнюк сопляк дурачк придурк ублюдк выродк подонк отморозк недоумк недоноск ушлёпк "
        "ушлепк засранц мерзавц подлец"
    ),
    _FEM: _w(
        "дур идиотк дебилк тупиц лошар мудил гадин гнид скотин шлюх проститутк дурочк сволот паскуд "
        "падл уродин вонючк брехл трепл шалав быдл ничтожеств"
    ),
    _SOFT_FEM: _w("мраз твар сволоч бестолоч бездар кремляд"),
    _ADJ: _w(
        "туп тупорыл безмозгл кончен конченн отстал убог мерзк поган вонюч ебанут долбанут чокнут "
        "ебанн дебильн идиотск ублюдочн"
    ),
}
"""Russian lemma stems by paradigm (a stem may sit in two paradigms: fleeting vowels)."""
RU_WORDS = (
    "свинья", "свиньи", "свинье", "свинью", "свиньей", "свиньёй", "свиней", "свиньям", "свиньями",
    "чмо", "быдло", "ничтожество", "пошел вон", "пошёл вон", "пошла вон", "пошли вон", "заткнись",
    "заткнитесь", "негодяй", "негодяя", "негодяю", "негодяем", "негодяи", "негодяев",
    "заткни пасть", "закрой рот", "закрой пасть", "завали хлебало", "завали ебало",
    "сдохни", "сдохните", "чтоб ты сдох", "чтоб ты сдохла", "ебанат", "ебанашка", "хохлы", "хохлов",
    "хохлам", "укропы", "укропов", "пиндосы", "пиндосов", "мразота", "мразоты", "скотина",
)  # fmt: skip
"""Forms that do not follow a paradigm above."""

UK_STEMS: dict[tuple[str, ...], tuple[str, ...]] = {
    _UK_HARD: _w(
        "ідіот дебіл кретин урод баран бовдур йолоп телепень негідник мерзотник покидьок виродок "
        "придурок недоумок ватник рашист кацап москаль лох покидьк виродк придурк недоумк козл"
    ),
    _UK_FEM: _w("падлюк тварюк сволот скотин гнид шльондр дур ідіотк"),
    _UK_ADJ: _w("туп безмозгл мерзенн смердюч вонюч"),
}
UK_WORDS = (
    "дурень", "бидло", "свиня", "свині", "свиню", "свинею", "свиней", "заткнись", "стули пельку",
    "закрий рота", "пішов геть", "пішла геть", "здохни", "щоб ти здох", "щоб ти здохла",
)  # fmt: skip


def _expand(stems: dict[tuple[str, ...], tuple[str, ...]], words: tuple[str, ...]) -> set[str]:
    forms = {stem + ending for endings, group in stems.items() for stem in group for ending in endings}
    forms |= set(words)
    # Three-letter forms ("лох", "гад", "хам") collide with too much (and the word lists ignore
    # terms under three letters anyway): single words of 4+ letters only.
    return {f for f in forms if len(f) >= 4 or " " in f}


def insult_terms() -> dict[str, set[str]]:
    """Language -> inflected insult forms (lower case, unfolded)."""
    ru = _expand(RU_STEMS, RU_WORDS) - _NOT_WORDS
    uk = _expand(UK_STEMS, UK_WORDS) - _NOT_WORDS
    return {"ru": ru, "uk": uk}


_NOT_WORDS = frozenset({"туп", "дур", "козл", "чмом"})
"""Bare stems the empty ending produces (the length rule already drops the 3-letter ones)."""
