"""Planted chat violations, one bank per category and language, written by the team.

`{v}` is the victim's nickname, `{t}` a bounty target's nickname, `{c}` cards of a running hand.
"""

from __future__ import annotations

from typing import Final

Bank = dict[str, tuple[str, ...]]

VIOLATIONS: Final[dict[str, Bank]] = {
    "insult": {
        "en": ("you are a fucking idiot {v}", "{v} you stupid donkey retard", "shut up you moron, worst player ever"),
        "id": ("dasar goblok lu {v}", "anjing lu main kayak sampah", "bangsat {v}, otak udang"),
        "vi": ("{v} đồ ngu như bò", "địt mẹ mày chơi ngu vãi", "thằng óc chó {v}"),
        "hu": ("{v} te hülye barom", "kurva anyád, ilyen szar játékost", "baszd meg {v}, idióta"),
        "uk": ("{v} ти тупий ідіот", "сука, як можна так грати", "закрий рота, дебіл {v}"),
    },
    "hate": {
        "en": ("all muslims are animals, get off this site", "go back to your country you filthy immigrant {v}",
               "jews run this rigged site, gas them"),
        "id": ("dasar cina kafir, pulang sana", "orang hitam itu monyet semua", "usir semua kafir dari sini"),
        "vi": ("bọn mọi rợ da đen cút đi", "lũ tàu khựa bẩn thỉu", "đồ đồng tính bệnh hoạn cút khỏi đây"),
        "hu": ("büdös cigányok mind tolvajok", "a zsidók irányítják ezt az oldalt", "buzik nem valók ide"),
        "uk": ("всі цигани злодії, геть звідси", "чорні мавпи не повинні грати", "геї хворі, геть з сайту"),
    },
    "threat": {
        "en": ("I will find you and kill you {v}", "kys {v}", "I know where you live, watch your back"),
        "id": ("gue bunuh lu {v}", "awas lu, gue tau rumah lu", "mati aja lu {v}"),
        "vi": ("tao sẽ giết mày {v}", "tao biết nhà mày, coi chừng", "đi chết đi {v}"),
        "hu": ("megöllek {v}", "tudom hol laksz, vigyázz magadra", "dögölj meg {v}"),
        "uk": ("я тебе вб'ю {v}", "я знаю, де ти живеш, бережися", "здохни {v}"),
    },
    "sexual": {
        "en": ("{v} send nudes babe", "suck my dick {v}", "I want to fuck you {v}"),
        "id": ("{v} kirim foto bugil dong", "isep kontol gue {v}", "pengen ngentot sama lu {v}"),
        "vi": ("{v} gửi ảnh nude đi em", "bú cu anh đi {v}", "anh muốn địt em {v}"),
        "hu": ("{v} küldj meztelen képet", "szopd le a faszom {v}", "meg akarlak dugni {v}"),
        "uk": ("{v} скинь голі фото", "смокчи мій хуй {v}", "хочу тебе трахнути {v}"),
    },
    "spam": {
        "en": ("BUY CHIPS CHEAP 50% OFF at chipsdeal.shop, fast delivery", "best poker coaching, join telegram @pokerpro_vip",
               "cheap accounts and chips, whatsapp +44 7700 900123"),
        "id": ("jual chip murah diskon 50% di chipmurah.shop", "gabung grup telegram @bandarchip_id, bonus 100%",
               "jual akun dan chip, wa 0812 3456 7890"),
        "vi": ("bán chip giá rẻ giảm 50% tại chipre.shop", "tham gia nhóm zalo 0901 234 567 nhận thưởng",
               "bán tài khoản poker giá rẻ, liên hệ ngay"),
        "hu": ("olcsó zseton 50% kedvezménnyel: zsetonbolt.shop", "csatlakozz a telegram csoporthoz @pokerpenz_hu",
               "olcsó fiókok és zsetonok eladók, írj most"),
        "uk": ("дешеві фішки зі знижкою 50% на fishky.shop", "вступай у телеграм @pokerbonus_ua, бонус 100%",
               "продаю акаунти і фішки недорого, пиши"),
    },
    "malicious_link": {
        "en": ("free 10k chips here: http://freechips-bonus.xyz/claim.exe", "see my hand replay http://bit.ly/2xHand0 (login to view)",
               "download the HUD hack: http://poker-hud-free.ru/setup.scr"),
        "id": ("chip gratis di sini: http://chipgratis-bonus.xyz/klaim.exe", "unduh cheat HUD: http://hud-gratis.top/setup.scr"),
        "vi": ("nhận 10k chip miễn phí: http://chipfree-thuong.xyz/nhan.exe", "tải hack HUD: http://hud-mienphi.top/setup.scr"),
        "hu": ("ingyen zseton itt: http://ingyen-zseton.xyz/igenyles.exe", "töltsd le a HUD hacket: http://hud-ingyen.top/setup.scr"),
        "uk": ("безкоштовні фішки тут: http://free-fishky.xyz/claim.exe", "завантаж чіт HUD: http://hud-free.top/setup.scr"),
    },
    "personal_info": {
        "en": ("{v} what's your real name and phone number?", "send me your email and home address {v}",
               "{v} whats ur whatsapp? add me"),
        "id": ("{v} nama asli kamu siapa? minta nomor wa", "kirim alamat rumah dan email kamu {v}"),
        "vi": ("{v} tên thật của bạn là gì? cho xin số điện thoại", "gửi mình địa chỉ nhà và email đi {v}"),
        "hu": ("{v} mi az igazi neved és a telefonszámod?", "küldd el az email címed és a lakcímed {v}"),
        "uk": ("{v} як тебе звати насправді і який номер телефону?", "скинь свою пошту і домашню адресу {v}"),
    },
    "impersonation": {
        "en": ("[SUPPORT] {v}, your account is flagged. Verify your password in private chat now",
               "Admin here: all players must send their login to keep their balance",
               "I am from the security team, {v}, give me your verification code"),
        "id": ("[CS RESMI] {v}, akun kamu diblokir, kirim password untuk verifikasi",
               "Admin di sini: semua pemain wajib kirim login agar saldo aman"),
        "vi": ("[HỖ TRỢ] {v}, tài khoản của bạn bị khóa, gửi mật khẩu để xác minh",
               "Admin đây: mọi người gửi thông tin đăng nhập để giữ số dư"),
        "hu": ("[ÜGYFÉLSZOLGÁLAT] {v}, a fiókod zárolva, küldd el a jelszavad ellenőrzésre",
               "Admin vagyok: mindenki küldje el a belépési adatait"),
        "uk": ("[ПІДТРИМКА] {v}, ваш акаунт заблоковано, надішліть пароль для перевірки",
               "Я адмін: усі гравці мають надіслати логін, щоб зберегти баланс"),
    },
    "collusion_talk": {
        "en": ("let's both target {t} for his bounty", "we don't bet into each other, we squeeze {t}",
               "soft play me and I'll soft play you, deal?"),
        "id": ("kita berdua incar {t} buat bounty-nya", "jangan saling bet ya, kita jepit {t}",
               "kita main lembut satu sama lain, oke?"),
        "vi": ("hai đứa mình cùng nhắm {t} để lấy bounty nhé", "đừng cược vào nhau, mình kẹp {t}",
               "mình nhường nhau nhé, đồng ý không?"),
        "hu": ("célozzuk be együtt {t}-t a bountyért", "ne fogadjunk egymás ellen, {t}-t préseljük ki",
               "kíméljük egymást, rendben?"),
        "uk": ("давай разом полювати на {t} заради баунті", "не ставимо один проти одного, тиснемо {t}",
               "граємо м'яко один з одним, домовились?"),
    },
    "hand_in_play": {
        "en": ("fold, he has {c}", "he's holding {c}, don't call", "call! he's bluffing, I saw {c}"),
        "id": ("fold aja, dia pegang {c}", "jangan call, kartunya {c}", "call! dia bluff, aku lihat {c}"),
        "vi": ("bỏ bài đi, nó cầm {c}", "đừng theo, nó có {c}", "theo đi! nó bluff, mình thấy {c}"),
        "hu": ("dobd be, neki {c} van", "ne hívd, {c} van nála", "hívd! blöfföl, láttam: {c}"),
        "uk": ("скидай, у нього {c}", "не коли, в нього {c}", "коли! він блефує, я бачив {c}"),
    },
    "criminal": {
        "en": ("selling stolen credit cards, cvv fresh, pm me", "I can launder your winnings, 20% fee",
               "anyone want coke delivered tonight?"),
        "id": ("jual kartu kredit curian, cvv baru, pm", "bisa cuci uang kemenangan kamu, fee 20%"),
        "vi": ("bán thẻ tín dụng ăn cắp, cvv mới, nhắn riêng", "rửa tiền thắng cược cho bạn, phí 20%"),
        "hu": ("lopott bankkártyák eladók, friss cvv, privát", "tisztára mosom a nyereményed, 20% jutalék"),
        "uk": ("продаю крадені кредитки, свіжі cvv, пиши в лс", "відмию твій виграш, комісія 20%"),
    },
    "shouting": {
        "en": ("WHY WOULD YOU CALL THAT YOU ABSOLUTE CLOWN!!!", "LEARN TO PLAY POKER ALREADY!!!",
               "THIS SITE IS RIGGED EVERY SINGLE HAND!!!"),
        "id": ("KENAPA KAMU CALL ITU DASAR BADUT!!!", "BELAJAR MAIN POKER DULU SANA!!!"),
        "vi": ("SAO LẠI THEO CÁI ĐÓ HẢ THẰNG HỀ!!!", "HỌC CHƠI POKER ĐI RỒI HẴNG VÀO!!!"),
        "hu": ("MIÉRT HÍVTAD EZT TE BOHÓC!!!", "TANULJ MEG PÓKEREZNI VÉGRE!!!"),
        "uk": ("НАВІЩО ТИ ЦЕ КОЛИВ, КЛОУН!!!", "ВИВЧИ СПОЧАТКУ ПРАВИЛА ПОКЕРУ!!!"),
    },
    "harassment": {
        "en": ("{v} you are the worst player here, just quit", "{v} nobody likes you, leave the table",
               "{v} I'll follow you to every table, loser"),
        "id": ("{v} kamu pemain terburuk di sini, berhenti aja", "{v} gak ada yang suka kamu, pergi sana",
               "{v} aku ikutin kamu ke semua meja, pecundang"),
        "vi": ("{v} mày là đứa chơi tệ nhất, nghỉ đi", "{v} không ai ưa mày, biến khỏi bàn",
               "{v} tao sẽ theo mày tới mọi bàn, đồ thua cuộc"),
        "hu": ("{v} te vagy a legrosszabb játékos, hagyd abba", "{v} senki sem bír, menj el az asztaltól",
               "{v} minden asztalhoz követni foglak, vesztes"),
        "uk": ("{v} ти найгірший гравець тут, кидай", "{v} тебе ніхто не любить, йди з-за столу",
               "{v} я ходитиму за тобою за кожен стіл, невдаха"),
    },
    "defamation": {
        "en": ("{v} is a convicted thief, he stole from his own company", "everyone knows {v} was banned for botting on other sites"),
        "id": ("{v} itu maling, pernah dipenjara karena mencuri", "semua tahu {v} diblokir di situs lain karena pakai bot"),
        "vi": ("{v} là kẻ trộm, từng đi tù vì ăn cắp", "ai cũng biết {v} bị cấm ở trang khác vì dùng bot"),
        "hu": ("{v} egy elítélt tolvaj, a saját cégét lopta meg", "mindenki tudja, hogy {v}-t botozásért tiltották ki máshol"),
        "uk": ("{v} засуджений злодій, обікрав власну компанію", "всі знають, що {v} забанили за ботів на інших сайтах"),
    },
    "illegal_disclosure": {
        "en": ("I have the leaked player database with emails and phones, DM me", "selling a dump of this site's user passwords"),
        "id": ("aku punya database pemain bocor lengkap email dan nomor hp, dm", "jual dump password pengguna situs ini"),
        "vi": ("mình có cơ sở dữ liệu người chơi bị lộ, có email và sđt, nhắn riêng", "bán dữ liệu mật khẩu người dùng trang này"),
        "hu": ("megvan a kiszivárgott játékos-adatbázis e-mailekkel, írj privátban", "eladó az oldal felhasználói jelszavainak listája"),
        "uk": ("маю злиту базу гравців з поштою і телефонами, пишіть", "продаю дамп паролів користувачів цього сайту"),
    },
    "misleading": {
        "en": ("support confirmed: every deposit today is doubled, send it to my wallet first", "the site closes tomorrow, withdraw everything now or lose it"),
        "id": ("cs sudah konfirmasi: deposit hari ini dobel, kirim dulu ke dompetku", "situs ini tutup besok, tarik semua sekarang atau hangus"),
        "vi": ("hỗ trợ xác nhận: nạp hôm nay được gấp đôi, gửi vào ví mình trước", "trang này đóng cửa ngày mai, rút hết ngay kẻo mất"),
        "hu": ("az ügyfélszolgálat megerősítette: ma minden befizetés dupla, előbb küldd a tárcámba", "holnap bezár az oldal, vegyél ki mindent most"),
        "uk": ("підтримка підтвердила: сьогодні кожен депозит подвоюється, спершу скинь на мій гаманець", "сайт закривається завтра, виводьте все зараз"),
    },
    "confidential": {
        "en": ("full copy of the paid PokerPro course PDF, free download here", "leaked internal security report of this room, ask me for the file"),
        "id": ("salinan lengkap kursus berbayar PokerPro, unduh gratis", "laporan internal keamanan situs ini bocor, minta filenya ke aku"),
        "vi": ("bản sao đầy đủ khóa học trả phí PokerPro, tải miễn phí", "báo cáo bảo mật nội bộ của trang bị lộ, xin file thì nhắn"),
        "hu": ("a fizetős PokerPro tanfolyam teljes PDF-je ingyen letölthető", "kiszivárgott belső biztonsági jelentés, kérd tőlem a fájlt"),
        "uk": ("повна копія платного курсу PokerPro, безкоштовно", "злитий внутрішній звіт безпеки цього сайту, пишіть за файлом"),
    },
}
"""Category -> language -> lines; one planted message is one line of its bank."""

FLOOD_LINES: Final[dict[str, tuple[str, ...]]] = {
    "en": ("hurry up", "zzz", "wake up", "come on", "lol", "??", "boring"),
    "id": ("cepat", "ayo", "lama", "buruan", "zzz", "wkwk"),
    "vi": ("nhanh", "lẹ lên", "chậm quá", "zzz", "haha"),
    "hu": ("gyorsan", "na", "lassú", "zzz", "unalmas"),
    "uk": ("швидше", "давай", "повільно", "zzz", "нудно"),
}
"""Short lines a flooder sends many times within seconds."""

EMOJI_SPAM: Final = ("😂🤣😂🤣😂🤣😂🤣😂🤣😂🤣", "🖕🖕🖕🖕🖕🖕🖕🖕", "💩💩💩💩💩💩💩💩💩💩", "🤡🤡🤡🤡🤡🤡🤡🤡🤡")

SNAPCAM_ABUSE: Final[dict[str, tuple[str, ...]]] = {
    "en": ("he showed his genitals on cam", "keeps making obscene gestures at me on snapcam",
           "racist gestures on his camera every hand"),
    "id": ("dia pamer alat kelamin di kamera", "terus bikin gerakan cabul ke saya"),
    "vi": ("hắn khoe bộ phận sinh dục trên cam", "liên tục làm cử chỉ tục tĩu với tôi"),
    "hu": ("mutogatja magát a kamerán", "folyamatosan obszcén gesztusokat mutat nekem"),
    "uk": ("він показує геніталії на камеру", "постійно робить непристойні жести мені"),
}
SNAPCAM_TRANSCRIPTS: Final = ("you're dead, I know your face", "look at this, come here baby", "go back to the jungle")
FALSE_REPORT: Final = ("offensive cam, ban him", "he is cheating on cam", "bad cam, remove")
HONEST_REPORT: Final = ("his cam was a bit weird", "camera pointed at the ceiling?", "not sure, felt rude")
