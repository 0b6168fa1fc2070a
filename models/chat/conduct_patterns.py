"""Patterns for the chat-rule categories no labelled data set covers (house rules section 1).

Written from what each rule forbids, not from example lines: a pattern names the act (accusing a
named person of a crime, offering a leaked database, faking an announcement...) with the words a
player of each room language (en, id, vi, hu, uk, ru) uses for it, loosely enough for word order
and inflection. Same conventions as `patterns.py`: matched on the `bare` view (lower case, accents
stripped, homoglyphs folded), Vietnamese and Hungarian written without diacritics, Cyrillic
written normally (its accents are stripped at compile time). Scores: 0.9 = the act itself is
named; 0.85 = a strong cue; nothing here is below the rule threshold because each needs two
things together (an act and its object), which everyday table talk does not say.
"""

from __future__ import annotations

from typing import Final

_W = r"(?:\S+\s+)"
r"""One word and its space (a bounded gap between the parts of a pattern). No `\w` inside a
character class anywhere here: the prefilter in `rules.py` rewrites `\w` and cannot nest it."""

# fmt: off
# One pattern a line: the tables read as tables (ruff format would split each into five lines).
# Groups people are targeted for (ethnicity, religion, orientation, origin), plural forms.
_GROUP_EN = (
    r"(?:muslims|jews|blacks|gays|immigrants|migrants|asians|chinese|arabs|gypsies|roma|mexicans|africans|"
    r"indians|refugees|homosexuals|trannies|negroes|hindus|christians)"
)
_GROUP_ID = r"(?:cina|china|cokin|aseng|kafir|yahudi|orang hitam|negro|banci|bencong|homo|gay|lgbt|muslim|kristen)"
_GROUP_VI = r"(?:moi ro|da den|tau khua|khua|be de|bede|pede|do thai|hoi giao|nguoi da den)"
"""Without "dong tinh": unaccented it is both "homosexual" and "agree" (đồng tình); see below."""
_GROUP_HU = r"(?:cigany|zsido|neger|buzi|migrans|muszlim|arab)\w*"
_GROUP_UK = (
    r"(?:цигани|циган\w*|цыган\w*|жид\w*|євре\w*|евре\w*|чорні|черные|негр\w*|чурк\w*|хач\w*|геї|геи|гомик\w*|педик\w*|"
    r"підор\w*|пидор\w*|мусульман\w*)"
)
_DEHUMANISE_EN = (
    r"(?:animals|monkeys|apes|rats|vermin|pigs|dogs|cockroaches|subhuman|parasites|scum|filth|thieves|criminals|"
    r"terrorists|diseased|disgusting|a disease|a plague)"
)

HATE: Final[list[tuple[str, float, str]]] = [
    # A group called animals / vermin / criminals, told to leave, or wished dead (rule chat.3).
    ("hate", 0.9, rf"\b{_GROUP_EN}\s+(?:are|r|is)\s+(?:all\s+|just\s+|nothing but\s+|such\s+)?{_DEHUMANISE_EN}\b"),
    ("hate", 0.9, rf"\b{_GROUP_EN}\s+(?:run|control|own|rigged)\s+(?:this|the)\s+(?:site|room|world|game|banks|media)\b"),
    ("hate", 0.9, rf"\b(?:gas|kill|deport|exterminate|burn)\s+(?:all\s+)?(?:the\s+|these\s+|those\s+)?{_GROUP_EN}\b|\bgas them\b"),
    ("hate", 0.9, r"\bgo back to (?:your|ur|yr) (?:own\s+)?(?:country|jungle|cave|desert|village)\b"),
    ("hate", 0.85, r"\b(?:filthy|dirty|stinking|stinky)\s+(?:immigrant|migrant|jew|muslim|gypsy|arab|refugee)s?\b"),
    ("hate", 0.9, rf"\b(?:dasar|usir|bunuh|basmi)\s+(?:semua\s+|orang\s+)?{_GROUP_ID}\b"),
    ("hate", 0.9, rf"\b{_GROUP_ID}\s+(?:{_W}){{0,2}}(?:monyet|babi|binatang|najis|penyakit|sampah masyarakat)\b"),
    ("hate", 0.9, rf"\b(?:bon|lu|dam|do|thang|may thang)\s+(?:{_W}){{0,2}}{_GROUP_VI}\b"),
    ("hate", 0.9, r"\b(?:tau khua|moi ro|be de)\b|\bdong tinh\s+(?:benh hoan|ghe tom|kinh tom|bien thai)\b"),
    ("hate", 0.9, rf"\b(?:budos|mocskos|koszos|rohadt|retkes)\s+{_GROUP_HU}"),
    ("hate", 0.9, rf"\b{_GROUP_HU}\s+(?:{_W}){{0,2}}(?:tolvaj|bunozo|allat|majom|patkany|szemet|beteg|iranyit|nem valo|takarod|pusztul|dogol)\w*"),
    ("hate", 0.9, rf"\b{_GROUP_UK}\s+(?:{_W}){{0,2}}(?:злод\w*|вор\w*|тварин\w*|животн\w*|мавп\w*|обезьян\w*|хвор\w*|больн\w*|не повинн\w*|не должн\w*|геть|вон|убира\w*|вимітайтес\w*)"),
]

DEFAMATION: Final[list[tuple[str, float, str]]] = [
    # A person stated to have a criminal record, to have been banned for cheating, or to have
    # stolen: a claim of fact about someone's reputation made in front of the table (rule chat.1).
    ("defamation", 0.9, r"\b(?:is|was|s)\s+(?:a\s+)?(?:convicted|known|registered|proven|jailed)\s+(?:thief|fraud|fraudster|criminal|scammer|pedophile|paedophile|rapist|molester|cheat|cheater|felon)\b"),
    ("defamation", 0.9, r"\b(?:was|got|been|is)\s+(?:banned|jailed|arrested|imprisoned|convicted|kicked out|locked up)\s+(?:\S+\s+){0,4}for\s+(?:botting|cheating|fraud|theft|stealing|scamming|colluding|collusion|multi-?accounting|chip dumping|using (?:a\s+)?bots?)\b"),
    ("defamation", 0.9, r"\b(?:stole|steals|embezzled)\s+from\s+(?:his|her|their)\s+(?:own\s+)?(?:company|employer|boss|family|clients|friends)\b|\bwent to (?:prison|jail) for\b"),
    ("defamation", 0.9, r"\b(?:itu|adalah)\s+(?:seorang\s+)?(?:maling|pencuri|penipu|koruptor|pedofil|pemerkosa|napi|residivis)\b"),
    ("defamation", 0.9, r"\b(?:pernah|sudah|baru)\s+(?:dipenjara|masuk penjara|ditangkap polisi|dibui)\b"),
    ("defamation", 0.9, r"\b(?:diblokir|dibanned|diban|dikeluarkan|ditendang)\s+(?:\S+\s+){0,4}karena\s+(?:pakai\s+|pake\s+|menggunakan\s+)?(?:bot|curang|cheat|menipu|mencuri|kolusi)\b"),
    ("defamation", 0.9, r"\bla\s+(?:mot\s+)?(?:ke|thang|con|do|ten)\s+(?:trom|lua dao|an cap|toi pham|hiep dam|au dam)\b"),
    ("defamation", 0.9, r"\btung\s+(?:ngoi tu|bi bat|vao tu|an cap)\b"),
    ("defamation", 0.9, r"\bbi\s+(?:cam|ban|khoa|duoi|block)\s+(?:\S+\s+){0,5}vi\s+(?:dung bot|gian lan|lua dao|an cap|hack|xai bot)\b"),
    ("defamation", 0.9, r"\b(?:elitelt|ismert|hirhedt|rovott multu)\s+(?:tolvaj|csalo|bunozo|pedofil|szelhamos)\b|\b(?:lopta meg|ult bortonben|bortonben ult|sikkasztott)\b"),
    ("defamation", 0.9, r"\b(?:botozas|csalas|lopas|csalo)\w*(?:ert|miatt)\s+(?:tiltottak|bannoltak|zartak|rugtak|dobtak)\s+ki\b|\b(?:tiltottak|bannoltak|zartak|rugtak)\s+ki\s+(?:\S+\s+){0,3}(?:botozas|csalas|lopas)\w*"),
    ("defamation", 0.9, r"\b(?:засуджен\w*|осужден\w*|відом\w*|известн\w*)\s+(?:злод\w*|вор\w*|шахра\w*|мошенни\w*|педофіл\w*|педофил\w*|аферист\w*)|\b(?:обікрав|обокрал|сидів у тюрмі|сидел в тюрьме|сидів за|сидел за)\b"),
    ("defamation", 0.9, r"\b(?:забанили|заблокували|заблокировали|вигнали|выгнали)\s+(?:\S+\s+){0,4}за\s+(?:бот\w*|шахрайств\w*|мошенничеств\w*|чит\w*|крадіжк\w*|краж\w*)"),
]

ILLEGAL_DISCLOSURE: Final[list[tuple[str, float, str]]] = [
    # Data nobody may lawfully pass on: leaked or stolen user databases and password dumps (chat.2).
    ("illegal_disclosure", 0.9, r"\b(?:leaked|stolen|hacked|dumped|scraped)\s+(?:\S+\s+){0,2}(?:database|db|data ?base|user data|player data|customer data|password list|passwords of|credentials|email list|dump)\b"),
    ("illegal_disclosure", 0.9, r"\b(?:dump|database|db|list|leak)\s+(?:of\s+)?(?:\S+\s+){0,3}(?:user|player|customer|member|account)s?'?\s+(?:passwords?|emails?|data|phones?|details|logins?)\b"),
    ("illegal_disclosure", 0.9, r"\b(?:database|data|dump|daftar)\s+(?:\S+\s+){0,2}(?:pemain|pengguna|member|user)\s+(?:\S+\s+){0,1}(?:bocor|curian|hasil hack)|\bdump\s+(?:password|kata sandi|data)\s+(?:pengguna|pemain|member)\b"),
    ("illegal_disclosure", 0.9, r"\b(?:co so du lieu|du lieu|data|dump)\s+(?:\S+\s+){0,3}(?:bi lo|ro ri|bi hack|danh cap)\b|\b(?:du lieu|data|dump)\s+mat khau\s+(?:nguoi dung|nguoi choi|tai khoan)\b"),
    ("illegal_disclosure", 0.9, r"\bkiszivargott\s+(?:\S+\s+){0,1}(?:jatekos|felhasznaloi|ugyfel)?[\s-]?(?:adatbazis|adatok|jelszav|email)\w*|\b(?:felhasznal|jatekos|ugyfel)\w*\s+jelszav\w*\s+(?:listaj|adatbazis)\w*"),
    ("illegal_disclosure", 0.9, r"\b(?:злит\w*|слит\w*|вкраден\w*|украден\w*|зламан\w*|взломан\w*)\s+(?:\S+\s+){0,1}(?:баз\w*|дамп\w*|парол\w*)|\b(?:дамп|базу|базы|бази)\s+(?:\S+\s+){0,1}(?:паролів|паролей|користувачів|пользователей|гравців|игроков)\b"),
]

MISLEADING: Final[list[tuple[str, float, str]]] = [
    # Deliberately false notices: a fake confirmed promotion paid to a player's own wallet, or the
    # room "closing" so everyone should withdraw now (rule chat.9). Complaints ("rigged") are not it.
    ("misleading", 0.9, r"\b(?:site|room|platform|casino|poker ?room)\s+(?:is\s+|will\s+)?(?:closes|closing|close|shuts? down|shutting down|goes bankrupt|going bankrupt|is bankrupt)\s+(?:\S+\s+){0,1}(?:tomorrow|today|tonight|soon|this week)\b"),
    ("misleading", 0.9, r"\bwithdraw\s+(?:all\s+(?:of\s+)?)?(?:your|ur)\s+(?:balance|money|funds|chips|winnings)\s+(?:now|today|before)\b|\bwithdraw everything (?:now\s+)?or lose\b"),
    ("misleading", 0.9, r"\b(?:support|admin|staff|management|the site|cs)\s+(?:has\s+|just\s+)?(?:confirmed|announced|said|says)\b.{0,60}\b(?:doubled|double|tripled|x2|x3)\b"),
    ("misleading", 0.85, r"\bsend\s+(?:it|them|the money|your deposit|the deposit|chips|money)\s+to\s+my\s+(?:wallet|account|paypal|bank)\b"),
    ("misleading", 0.9, r"\b(?:situs|web|website|room)\s+(?:ini\s+)?(?:akan\s+)?(?:tutup|bangkrut|ditutup)\s+(?:besok|hari ini|nanti malam|minggu ini)\b"),
    ("misleading", 0.9, r"\b(?:cs|admin|support)\s+(?:sudah|udah|telah)\s+(?:konfirmasi|bilang|umumkan)\b.{0,50}\b(?:dobel|double|ganda|dua kali)\b"),
    ("misleading", 0.9, r"\b(?:trang|web|san|nha cai)\s+(?:nay\s+)?(?:se\s+|sap\s+)?(?:dong cua|pha san|dong)\s+(?:ngay mai|hom nay|toi nay|tuan nay)\b"),
    ("misleading", 0.9, r"\b(?:ho tro|admin|cskh)\s+(?:da\s+)?(?:xac nhan|thong bao)\b.{0,50}\b(?:gap doi|x2|nhan doi)\b"),
    ("misleading", 0.9, r"\b(?:holnap|ma este|ma)\s+(?:bezar|megszunik|csodbe megy)\s+(?:az\s+)?oldal|\boldal\s+(?:holnap\s+)?(?:bezar|megszunik)\b|\b(?:vegyel|vegyetek|vegyel)\s+ki\s+mindent\b"),
    ("misleading", 0.9, r"\b(?:ugyfelszolgalat|admin|support)\s+(?:\S+\s+)?(?:megerositette|bejelentette)\b.{0,60}\b(?:dupla|duplaz\w*|ketszeres)\b"),
    ("misleading", 0.9, r"\b(?:сайт|рум|казино)\s+(?:\S+\s+)?(?:закривається|закрывается|закриється|закроется|банкрут\w*)\s+(?:завтра|сьогодні|сегодня)\b|\b(?:виводьте|виведіть|выводите|выведите)\s+(?:все|гроші|деньги)\b"),
    ("misleading", 0.9, r"\b(?:підтримка|поддержка|адмін\w*|админ\w*)\s+(?:\S+\s+)?(?:підтвердила|подтвердила|оголосила|объявила)\b.{0,60}\b(?:подвою\w*|удвоен\w*|подвое\w*|удвою\w*)"),
]

CONFIDENTIAL: Final[list[tuple[str, float, str]]] = [
    # Others' paid material passed around free, and an operator's internal documents (chat.11).
    ("confidential", 0.9, r"\b(?:copy|pdf|download|rip|torrent|leak)\s+(?:\S+\s+){0,2}(?:of\s+)?(?:the\s+)?(?:paid|premium|private|members?-only)\s+(?:\S+\s+){0,2}(?:course|training|videos?|ebook|book|coaching|solver|software|materials?)\b"),
    ("confidential", 0.9, r"\bpaid\s+(?:\S+\s+){0,2}(?:course|training|ebook|solver|videos?)\b.{0,40}\b(?:free download|for free|free pdf|pdf|torrent)\b"),
    ("confidential", 0.9, r"\b(?:leaked|stolen)\s+(?:\S+\s+){0,2}internal\s+(?:\S+\s+){0,2}(?:report|document|docs|files|memo|audit|emails)\b|\bcracked\s+(?:pio|gto|solver|hud|tracker)\w*"),
    ("confidential", 0.9, r"\b(?:salinan|copy|pdf|file)\s+(?:\S+\s+){0,2}(?:kursus|kelas|materi|ebook|video)\s+berbayar\b|\b(?:kursus|kelas|materi|ebook)\s+berbayar\b.{0,40}\b(?:gratis|unduh|download)\b"),
    ("confidential", 0.9, r"\b(?:laporan|dokumen|data)\s+internal\s+(?:\S+\s+){0,4}bocor|\bbocoran\s+(?:laporan|dokumen)\s+internal\b"),
    ("confidential", 0.9, r"\b(?:ban sao|file|pdf)\s+(?:\S+\s+){0,2}(?:khoa hoc|tai lieu|giao trinh|video)\s+tra phi\b|\b(?:khoa hoc|tai lieu|giao trinh)\s+tra phi\b.{0,40}\b(?:mien phi|tai ve|download)\b"),
    ("confidential", 0.9, r"\b(?:bao cao|tai lieu)\s+(?:\S+\s+){0,2}noi bo\s+(?:\S+\s+){0,4}(?:bi lo|ro ri)\b"),
    ("confidential", 0.9, r"\bfizetos\s+(?:\S+\s+){0,2}(?:tanfolyam|kurzus|video|ebook|anyag)\w*\b.{0,40}\b(?:ingyen|letoltheto|pdf)\w*|\bkiszivargott\s+belso\s+(?:\S+\s+){0,2}(?:jelentes|dokumentum|anyag)\w*"),
    ("confidential", 0.9, r"\b(?:копія|копия|pdf|файл)\s+(?:\S+\s+){0,2}платн\w+\s+(?:курс\w*|тренінг\w*|тренинг\w*)|\bплатн\w+\s+курс\w*\b.{0,40}\b(?:безкоштовно|бесплатно|скачати|скачать)"),
    ("confidential", 0.9, r"\b(?:злит\w*|слит\w*)\s+(?:\S+\s+){0,1}(?:внутрішн\w*|внутренн\w*)\s+(?:\S+\s+){0,1}(?:звіт\w*|отчет\w*|документ\w*)"),
]

CRIMINAL: Final[list[tuple[str, float, str]]] = [
    # Carding, laundering and drugs (rule chat.8), beyond the selling patterns of `patterns.py`.
    ("criminal", 0.85, r"\bcvv\b|\bstolen (?:credit |debit |bank )?cards?\b|\bcarding\b"),
    ("criminal", 0.9, r"\b(?:launder|wash|clean)\s+(?:your |the |my |ur )?(?:money|winnings|cash|funds|profits)\b"),
    ("criminal", 0.85, r"\b(?:coke|cocaine|weed|meth|mdma|molly|ecstasy|heroin|drugs|pills)\s+(?:delivered|delivery|for sale|plug)\b|\bwant (?:some )?(?:cocaine|weed|meth|mdma|drugs)\b"),
    ("criminal", 0.9, r"\bkartu kredit curian\b|\bcuci uang\b|\b(?:jual|beli|antar)\s+(?:narkoba|sabu|ganja|ekstasi|kokain)\b"),
    ("criminal", 0.9, r"\bthe tin dung\s+(?:an cap|danh cap|trom)\b|\brua tien\b|\b(?:ban|giao)\s+(?:ma tuy|can sa|thuoc lac)\b"),
    ("criminal", 0.9, r"\blopott\s+(?:bank|hitel)kartya\w*|\b(?:tisztara mos\w*|penzmos\w*)"),
    ("criminal", 0.9, r"\b(?:крадені|краденые|вкрадені|украденные)\s+(?:кредитк\w*|картк\w*|карт\w*)|\b(?:відмию|відмити|отмою|отмыть|відмиваю|отмываю)\s+(?:\S+\s+)?(?:виграш\w*|выигрыш\w*|гроші|деньги)"),
]

IMPERSONATION: Final[list[tuple[str, float, str]]] = [
    # A line presented as coming from staff ("[SUPPORT] ...", "Admin here: ..."), or asking for
    # login details the way staff never do (rule chat.4).
    ("impersonation", 0.9, r"^\W*(?:\[\s*|\(\s*)?(?:official\s+|resmi\s+)?(?:admin|administrator|support|moderator|staff|security|cs resmi|customer service|ho tro|cskh|quan tri vien|ugyfelszolgalat|підтримка|поддержка|адмін|админ|модератор)(?:\s+resmi)?(?:\s*[\]):]|\s+(?:here|di sini|disini|day|vagyok|тут|на зв'язку)\s*[:,.!-])"),
    ("impersonation", 0.9, r"\b(?:send|give|tell|share|dm|type)\s+(?:me\s+|us\s+)?(?:your|their|ur)\s+(?:login|password|pin|otp|verification code|2fa code|credentials)\b"),
    ("impersonation", 0.9, r"\bkirim\s+(?:\S+\s+)?(?:login|password|kata sandi|otp|pin|kode verifikasi)\b|\bgui\s+(?:\S+\s+)?(?:thong tin dang nhap|mat khau|ma otp|ma xac minh)\b"),
    ("impersonation", 0.9, r"\bkuld\w*\s+(?:\S+\s+){0,2}(?:belepesi adat\w*|jelszav\w*|ellenorzo kod\w*)|\b(?:надішліть|надішли|пришлите|пришли|отправь\w*|скинь)\s+(?:\S+\s+)?(?:пароль|логін|логин)\b"),
]

CONTACT_SOLICITING: Final[list[tuple[str, float, str]]] = [
    # Asking for someone's address, number or e-mail with words in between (rule chat.10).
    ("personal_info", 0.85, r"\b(?:minta|kasih|kirim|kirimin|share|bagi)\s+(?:\S+\s+){0,2}(?:alamat|email|nomor|nomer|no hp|no wa|nama asli|nama lengkap)\b(?:\s+\S+){0,3}\s+(?:kamu|mu|lu|lo|anda|km)\b"),
    ("personal_info", 0.85, r"\b(?:дай|скинь|напиши|кинь|скажи|надішли|пришли)\s+(?:мені\s+|мне\s+)?(?:свій|свою|свої|свой|свои|твій|твою|твой|твои|ваш|вашу)\s+(?:\S+\s+)?(?:номер|телефон|пошту|почту|адресу|адрес|email|імейл)\b"),
]

THREATS: Final[list[tuple[str, float, str]]] = [
    ("threat", 0.92, r"\bя знаю,?\s+(?:де|где)\s+(?:ти живеш|ты живешь)\b"),
]

SEXUAL: Final[list[tuple[str, float, str]]] = [
    # Sexual propositions and requests for nude pictures (rule chat.3, obscene/indecent).
    ("sexual", 0.9, r"\b(?:want|wanna|gonna|going|like)\s+(?:to\s+)?(?:fuck|bang|shag)\s+(?:you|u|ya|her)\b"),
    ("sexual", 0.9, r"\b(?:gui|cho xin|send|kirim)\s+(?:\S+\s+)?(?:anh|hinh|foto|pics?)\s+(?:nude|khoa than|nong|bugil|telanjang)\b|\b(?:muon|thich)\s+dit\s+(?:em|anh|may)\b"),
    ("sexual", 0.9, r"\bmeg\s+(?:akarlak|foglak|kene)\s+dugni\b|\bdugni\s+(?:akarlak|foglak)\b|\bszopd le\b"),
    ("sexual", 0.9, r"\b(?:скинь|надішли|пришли|покажи)\s+(?:\S+\s+)?(?:голі|голые|голое|інтимні|интимные|нюдс\w*)\b|\b(?:хочу|хочу тебе|хочу тебя)\s+(?:тебе\s+|тебя\s+)?(?:трахнути|трахнуть|вийобати|выебать)\b"),
]

COLLUSION: Final[list[tuple[str, float, str]]] = [
    # Agreeing not to play against each other, or to hunt one player together (rule chat.7).
    ("collusion_talk", 0.9, r"\b(?:don'?t|do not|never|we won'?t)\s+(?:bet|raise|play|go)\s+(?:into|against|vs)\s+each other\b"),
    ("collusion_talk", 0.9, r"\b(?:dung|khong)\s+(?:cuoc|to|theo)\s+(?:vao\s+)?nhau\b|\b(?:nhuong nhau|kep|cung nham)\s+(?:\S+\s+){0,3}(?:lay\s+)?bounty\b"),
    ("collusion_talk", 0.9, r"\bnhuong nhau\b|\b(?:celozzuk|vadasszuk|szedjuk|intezzuk)\s+(?:be\s+|le\s+|el\s+)?(?:\S+\s+){0,3}(?:a |az )?(?:fejpenz|bounty)\w*"),
    ("collusion_talk", 0.9, r"\bne\s+(?:fogadjunk|emeljunk|jatsszunk|licitaljunk)\s+egymas\s+ellen\b|\bkimeljuk egymast\b"),
    ("collusion_talk", 0.9, r"\b(?:давай|давайте)\s+(?:разом|вместе|обидва|оба)?\s*(?:полювати|поохотимся|полюємо|охотиться|виб'?ємо|выбьем)\s+на\b"),
    ("collusion_talk", 0.9, r"\b(?:граємо|играем)\s+(?:м'?яко|мягко)\s+(?:один з одним|друг с другом)\b|\b(?:saling|satu sama lain)\b.{0,20}\b(?:lembut|lunak|ngalah)\b|\b(?:main\s+)?(?:lembut|lunak)\s+satu sama lain\b"),
]

SPAM: Final[list[tuple[str, float, str]]] = [
    # Invitations to a channel or group with something on offer: advertising, not contact sharing.
    ("spam", 0.9, r"\b(?:join|subscribe to|follow)\s+(?:my\s+|our\s+|the\s+)?(?:telegram|tg|discord|whatsapp|zalo|channel|group|vip group|server)\b"),
    ("spam", 0.9, r"\b(?:gabung|masuk)\s+(?:ke\s+)?(?:grup|group|channel|telegram|discord)\b|\btham gia\s+(?:nhom|group|kenh)\b|\bcsatlakozz\s+(?:a\s+|az\s+)?(?:\S+\s+)?(?:csoport|csatorna|telegram)\w*"),
    ("spam", 0.9, r"\b(?:вступай|вступайте|приєднуйся|приєднуйтесь|присоединяйся|присоединяйтесь|підписуйся|подписывайся)\s+(?:\S+\s+)?(?:в|у|на|до)?\s*(?:телеграм\w*|канал\w*|груп\w*|чат\w*)"),
    ("spam", 0.9, r"\b(?:best|cheap|cheapest|pro)\s+(?:poker\s+)?(?:coaching|staking|rakeback|chips|accounts)\b|\b\d{2,3}\s?% (?:off|bonus|discount)\b|\bbonus \d{2,3}\s?%"),
    ("spam", 0.85, r"\b(?:olcso|elado|eladok|veszek|olcson)\w*\s+(?:\S+\s+){0,2}(?:zseton|chip|fiok|account)\w*|\b(?:zseton|fiok|chip)\w*\s+(?:\S+\s+){0,3}(?:elado|eladok|olcson)\b"),
]

CONDUCT_PATTERNS: Final[list[tuple[str, float, str]]] = [
    *HATE, *DEFAMATION, *ILLEGAL_DISCLOSURE, *MISLEADING, *CONFIDENTIAL, *CRIMINAL, *IMPERSONATION,
    *CONTACT_SOLICITING, *THREATS, *SEXUAL, *COLLUSION, *SPAM,
]
"""Appended to `patterns.PATTERNS`."""
# fmt: on
