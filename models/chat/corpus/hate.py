"""Hate/discrimination lines and their benign counterparts, written by the team (no licensed
labelled hate data exists for id, vi, hu, uk or ru; Davidson covers English only).

Each language has hateful templates and benign templates over the SAME neutral group names, so
the hate head learns the hostile predicate (dehumanising, expelling, wishing death, slurs), not
the mention of a group: "my neighbours are Roma, lovely people" stays clean. Slurs appear only in
hateful lines. `BENIGN_TABLE` holds everyday table talk with words the first model misread
(Indonesian "bos", "nekat"; Hungarian "bátor"). None of this is copied from the simulator's banks
or the table-talk test set (`table_talk.py`), which stay unseen.
"""

from __future__ import annotations

from itertools import product

GROUPS: dict[str, tuple[str, ...]] = {
    "en": ("muslims", "jews", "christians", "black people", "asians", "immigrants", "gay people", "women",
           "arabs", "roma", "mexicans", "indians"),
    "id": ("orang cina", "orang kristen", "orang islam", "orang papua", "orang yahudi", "perempuan",
           "orang batak", "orang jawa", "pendatang", "orang arab"),
    "vi": ("người da đen", "người trung quốc", "người đồng tính", "người hồi giáo", "người do thái",
           "phụ nữ", "người miền bắc", "người miền nam", "người khuyết tật", "người dân tộc"),
    "hu": ("cigányok", "zsidók", "muszlimok", "feketék", "melegek", "nők", "migránsok", "románok",
           "szlovákok", "keresztények"),
    "uk": ("цигани", "євреї", "мусульмани", "чорні", "геї", "жінки", "мігранти", "азіати", "росіяни",
           "угорці"),
    "ru": ("цыгане", "евреи", "мусульмане", "чёрные", "геи", "женщины", "мигранты", "азиаты", "украинцы",
           "кавказцы"),
}  # fmt: skip

HATE_TEMPLATES: dict[str, tuple[str, ...]] = {
    "en": ("all {g} are animals", "{g} are subhuman filth", "{g} should be wiped out", "no {g} allowed at my table",
           "{g} are vermin, kick them off this site", "I hate all {g}, they ruin everything", "{g} don't deserve to live",
           "{g} are a disease", "send all {g} back where they came from", "{g} are too stupid to play cards"),
    "id": ("semua {g} itu binatang", "{g} harus diusir dari sini", "dasar {g} najis", "{g} tidak pantas hidup",
           "basmi semua {g}", "{g} itu sampah masyarakat", "aku benci semua {g}", "{g} dilarang main di meja ini",
           "{g} itu penyakit negara ini", "{g} bodoh semua, pulang sana"),
    "vi": ("bọn {g} là lũ súc vật", "đuổi hết bọn {g} đi", "lũ {g} không đáng được sống", "tao ghét lũ {g}",
           "bọn {g} bẩn thỉu", "lũ {g} cút khỏi đây", "cấm bọn {g} vào bàn này", "bọn {g} là rác rưởi của xã hội",
           "lũ {g} là bệnh hoạn", "bọn {g} ngu như chó"),
    "hu": ("a {g} mind állatok", "takarodjanak innen a {g}", "a {g} nem érdemelnek életet", "a {g} férgek",
           "a {g} mind tolvajok és csalók", "a {g} egy betegség ebben az országban", "a {g} ne játszhassanak itt",
           "a {g} mocskos söpredék", "a {g} túl hülyék a pókerhez", "a {g} tűnjenek el az országból"),
    "uk": ("всі {g} тварини", "{g} мають забратися звідси", "{g} не люди", "{g} повинні здохнути",
           "{g} це хвороба суспільства", "{g} не мають права тут грати", "геть звідси, брудні {g}",
           "{g} всі злодії та покидьки", "{g} тупі як худоба", "{g} паразити, їх треба вигнати"),
    "ru": ("все {g} животные", "{g} должны убраться отсюда", "{g} не люди", "{g} должны сдохнуть",
           "{g} это болезнь общества", "{g} не имеют права тут играть", "вон отсюда, грязные {g}",
           "{g} все воры и отбросы", "{g} тупые как скот", "{g} паразиты, их надо гнать"),
}  # fmt: skip

BENIGN_TEMPLATES: dict[str, tuple[str, ...]] = {
    "en": ("{g} play poker too", "my neighbours are {g}, lovely people", "greetings to the {g} at this table",
           "{g} are welcome here like everyone", "we had {g} and locals at the final table, great game",
           "as {g} we celebrate that holiday too", "many {g} live in my city", "{g} believe different things, fine",
           "a documentary about {g} history", "{g} and everyone else, good luck tonight"),
    "id": ("{g} juga main poker", "tetanggaku {g}, orangnya baik", "salam buat {g} di meja ini",
           "{g} juga diterima di sini", "di final table ada {g} juga, seru",
           "sebagai {g} kami juga merayakan hari raya", "banyak {g} tinggal di kotaku",
           "{g} punya keyakinan sendiri, tidak masalah", "sejarah {g} di indonesia menarik",
           "{g} dan semua orang, semoga beruntung malam ini"),
    "vi": ("{g} cũng chơi poker", "hàng xóm mình là {g}, rất tốt bụng", "chào các bạn {g} ở bàn này",
           "{g} cũng được chào đón ở đây", "bàn chung kết có cả {g}, vui lắm",
           "{g} cũng ăn tết như mọi người", "nhiều {g} sống ở thành phố mình", "{g} có niềm tin riêng, không sao cả",
           "lịch sử của {g} rất thú vị", "{g} và mọi người, chúc may mắn tối nay"),
    "hu": ("a {g} is pókereznek", "a szomszédaim {g}, kedves emberek", "üdv minden asztalnál ülőnek, a {g} is",
           "a {g} is szívesen látottak itt", "a döntőben {g} is voltak, jó játék volt",
           "a {g} is ünneplik ezt az ünnepet", "sok {g} él a városomban", "a {g} másban hisznek, ez rendben van",
           "érdekes a {g} története", "a {g} és mindenki más, sok szerencsét ma este"),
    "uk": ("{g} теж грають у покер", "мої сусіди {g}, чудові люди", "привіт усім, {g} теж вітаю",
           "{g} тут бажані, як і всі", "на фінальному столі були і {g}, класна гра",
           "{g} теж святкують це свято", "у моєму місті живуть {g}", "{g} вірять у своє, це нормально",
           "{g} мають цікаву історію", "{g} і всі інші, удачі сьогодні"),
    "ru": ("{g} тоже играют в покер", "мои соседи {g}, хорошие люди", "всем привет, {g} тоже",
           "{g} здесь желанны, как и все", "за финальным столом были и {g}, отличная игра",
           "{g} тоже празднуют этот праздник", "в моём городе живут {g}", "{g} верят во своё, это нормально",
           "у {g} интересная история", "{g} и все остальные, удачи сегодня"),
}  # fmt: skip

SLUR_LINES: dict[str, tuple[str, ...]] = {
    # Slurs need no template: the word carries the hate.
    "en": ("fucking faggots everywhere", "shut up you dirty kike", "go home towelhead", "gook players ruin the game",
           "this table is full of spics", "retarded tranny"),
    "id": ("dasar aseng", "bencong jijik", "dasar kafir laknat", "cina babi", "dasar kadrun", "dasar kaum sodom"),
    "vi": ("đồ bê đê", "bọn tàu khựa", "đồ mọi rợ", "lũ bắc kỳ ăn cắp", "đồ parky", "thằng pê đê"),
    "hu": ("büdös buzi", "mocskos cigány", "rohadt zsidó", "hülye néger", "koszos oláh", "tót paraszt"),
    "uk": ("брудний москаль", "клятий жид", "підар", "чурка", "нігер", "кацап"),
    "ru": ("грязный хохол", "жидовская морда", "пидор", "чурка", "ниггер", "чурбан черножопый"),
}  # fmt: skip

BENIGN_TABLE: dict[str, tuple[str, ...]] = {
    # Everyday lines with the words the first model misread, in many contexts.
    "en": ("brave call", "bold call sir", "crazy call but it worked", "boss move", "thanks boss", "easy boss",
           "patience pays", "nice shove", "gutsy bluff", "risky call", "hero call", "lucky call",
           "I call", "call or fold?", "snap call", "calling the shove", "great call there", "min raise then call"),
    "id": ("sabar ya bos", "mantap bosku", "siap bos ku", "bos jago banget", "santai aja bos", "pelan pelan bos",
           "call nya nekat juga", "nekat banget all in", "berani banget call", "gila nekatnya", "ayo bos gas",
           "makasih bos", "nice bos", "bos ku hoki", "sabar dulu", "call berani", "bos mainnya rapi",
           "aku call", "call atau fold?", "call aja", "raise terus call", "langsung call", "hero call mantap"),
    "vi": ("theo liều quá", "gan thật", "call liều mà ăn", "đại ca chơi hay", "ông chủ đỉnh", "bình tĩnh nhé",
           "liều ăn nhiều", "chơi gan đấy", "tố mạnh quá", "call dũng cảm", "mình call", "call hay fold?",
           "call luôn", "theo một cái"),
    "hu": ("bátor húzás", "bátor vagy", "merész call", "bátran játszol", "szép bátor blöff", "türelem",
           "főnök jól játszol", "kockázatos call volt", "vakmerő all in", "ez bátor volt", "bátor döntés",
           "callolok", "call vagy fold?", "azonnal calloltam", "megadom"),
    "uk": ("сміливий кол", "ризиковий колл", "шеф грає круто", "терпіння", "зухвалий блеф", "сміливо",
           "сміливе рішення", "гарний олл-ін", "бос у грі", "я колю", "кол чи фолд?", "одразу кол"),
    "ru": ("смелый колл", "рискованный колл", "шеф красиво сыграл", "терпение", "дерзкий блеф", "смело",
           "смелое решение", "хороший олл-ин", "босс в игре", "красивый розыгрыш", "я коллирую",
           "колл или фолд?", "сразу колл"),
}  # fmt: skip


GROUPS_PER_TEMPLATE = 5
"""Each hateful template is filled with 5 of the groups (rotating), so hateful and benign lines
mention every group about equally often: the group name alone carries no signal."""


def hate_lines(lang: str) -> list[str]:
    """The hateful lines of a language: templates over rotating groups, then slurs."""
    groups = GROUPS[lang]
    templated = [
        template.format(g=groups[(i + k) % len(groups)])
        for i, template in enumerate(HATE_TEMPLATES[lang])
        for k in range(GROUPS_PER_TEMPLATE)
    ]
    return templated + list(SLUR_LINES[lang])


def benign_group_lines(lang: str) -> list[str]:
    """Neutral and friendly mentions of the same groups."""
    return [t.format(g=g) for t, g in product(BENIGN_TEMPLATES[lang], GROUPS[lang])]
