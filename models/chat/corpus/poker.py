"""Poker-room chat written by the team (no public data exists for these categories).

`LABELLED`: (text, language, category) examples of every rule-based category in every room
language: the rules' test set. `TRAIN_CLEAN` / `TRAIN_TOXIC` / `TRAIN_SPAM`: small authored
training additions for the statistical heads (languages with no licensed labelled data).
"""

from __future__ import annotations

LABELLED: list[tuple[str, str, str]] = [
    # hand_in_play
    ("he has aces, fold", "en", "hand_in_play"), ("villain's got the nuts", "en", "hand_in_play"),
    ("Fold!", "en", "hand_in_play"), ("don't call, he's bluffing", "en", "hand_in_play"),
    ("dia pegang AA", "id", "hand_in_play"), ("jangan call, dia bluff", "id", "hand_in_play"),
    ("fold aja", "id", "hand_in_play"), ("nó có đôi Át đấy", "vi", "hand_in_play"),
    ("đừng theo", "vi", "hand_in_play"), ("bỏ bài đi", "vi", "hand_in_play"),
    ("neki ászai vannak", "hu", "hand_in_play"), ("ne add meg, ő blöfföl", "hu", "hand_in_play"),
    ("dobd el!", "hu", "hand_in_play"), ("в нього тузи", "uk", "hand_in_play"),
    ("не коль, він блефує", "uk", "hand_in_play"), ("скидай!", "uk", "hand_in_play"),
    ("у него тузы", "ru", "hand_in_play"),
    # collusion_talk
    ("let's both sit out till the bubble", "en", "collusion_talk"),
    ("target the big stack for the bounty", "en", "collusion_talk"),
    ("we don't bet each other ok? soft play", "en", "collusion_talk"),
    ("kita berdua sit out bareng ya", "id", "collusion_talk"), ("keroyok dia buat bounty", "id", "collusion_talk"),
    ("jangan saling bet ya bro", "id", "collusion_talk"),
    ("hai đứa mình cùng sit out nhé", "vi", "collusion_talk"), ("chia đôi bounty nhé", "vi", "collusion_talk"),
    ("đừng tố nhau nhé", "vi", "collusion_talk"),
    ("üljünk ki mindketten a buborékig", "hu", "collusion_talk"), ("osszuk el a fejpénzt", "hu", "collusion_talk"),
    ("ne emeljünk egymásra", "hu", "collusion_talk"),
    ("давай обидва сядемо аут", "uk", "collusion_talk"), ("поділимо баунті", "uk", "collusion_talk"),
    ("не ставимо один проти одного", "uk", "collusion_talk"),
    # personal_info
    ("what's your whatsapp?", "en", "personal_info"), ("add me on telegram @pokerking77", "en", "personal_info"),
    ("call me +44 7700 900123", "en", "personal_info"), ("minta nomor wa mu dong", "id", "personal_info"),
    ("add aku di line ya", "id", "personal_info"), ("cho xin số điện thoại", "vi", "personal_info"),
    ("kết bạn qua zalo nhé", "vi", "personal_info"), ("add meg a telefonszámod", "hu", "personal_info"),
    ("írj rám whatsappon", "hu", "personal_info"), ("дай свій номер", "uk", "personal_info"),
    ("пиши мені в телеграм", "uk", "personal_info"), ("mail me: john.doe@example.com", "en", "personal_info"),
    # impersonation
    ("I am support, verify your account", "en", "impersonation"),
    ("this is the security team, your account will be banned", "en", "impersonation"),
    ("saya admin, kirim password anda", "id", "impersonation"), ("tôi là admin, gửi mã OTP", "vi", "impersonation"),
    ("én vagyok az admin, igazold a fiókod", "hu", "impersonation"),
    ("я з підтримки, надішли пароль", "uk", "impersonation"),
    # malicious_link
    ("free chips here bit.ly/fr33chips", "en", "malicious_link"),
    ("download the hud http://185.22.1.9/hud.exe", "en", "malicious_link"),
    ("bonus di pokerr-bonus.xyz", "id", "malicious_link"), ("nhận chip tại xn--pkr-9la.com", "vi", "malicious_link"),
    ("ingyen zseton: tinyurl.com/zseton", "hu", "malicious_link"), ("фішки тут: free-chips.top", "uk", "malicious_link"),
    # spam
    ("buy cheap chips, visit my site", "en", "spam"), ("jual chip murah, pm", "id", "spam"),
    ("bán chip giá rẻ", "vi", "spam"), ("olcsó zsetont eladok", "hu", "spam"), ("продам фішки дешево", "uk", "spam"),
    # threat
    ("I will find you and kill you", "en", "threat"), ("aku bunuh kamu", "id", "threat"),
    ("tao sẽ giết mày", "vi", "threat"), ("megöllek", "hu", "threat"), ("я тебе вб'ю", "uk", "threat"),
    # criminal
    ("selling stolen accounts, pm me", "en", "criminal"), ("jual akun curian", "id", "criminal"),
    ("bán tài khoản hack", "vi", "criminal"), ("продам крадені акаунти", "uk", "criminal"),
    # insult
    ("you are a fucking idiot", "en", "insult"), ("dasar goblok", "id", "insult"), ("đồ ngu", "vi", "insult"),
    ("te hülye", "hu", "insult"), ("ти ідіот", "uk", "insult"),
]  # fmt: skip

TRAIN_CLEAN: dict[str, list[str]] = {
    "en": ["who is the chip leader", "nice chips", "I lost half my chips", "lol", "lmao", "haha", "omg lol", "lol nice", "xD", "hahaha that river", "lol I misread my cards",
           "oh no lol", "rofl", "nice one lol", "you got me lol", "well that's poker", "idk what to do lol",
           "thx", "cheers mate", "hello everyone", "hi all", "good luck guys", "that river was brutal", "nice play", "thanks for the game", "I'm tilted lol",
           "anyone else lagging?", "what a run", "nice stack", "going to sleep soon", "I had the flush draw",
           "how many players left", "I'm on mobile", "cool avatar", "fold to the big blind every time lol"],
    "id": ["siapa chip leader sekarang", "chip ku tinggal sedikit", "chip leader nya jago", "wkwkwk", "haha", "wkwk mantap", "hehe", "astaga", "waduh", "makasih bang", "thanks bro", "mantul",
           "anjay keren", "santuy", "gas terus", "halo semua", "hai", "asik", "keren bang", "siap bos", "oke deh", "semoga menang", "kartu bagus", "mainnya keren", "aku lagi di hp", "sudah mau tidur", "ayo main lagi",
           "kartuku jelek", "berapa pemain lagi", "avatar keren", "sial river nya", "aku tadi flush draw",
           "main sampai pagi", "bang jago banget", "istirahat dulu"],
    "vi": ["ai là chip leader", "chip mình còn ít quá", "mất nửa chip rồi", "hihi", "kkk", "haha", "hehe", "trời", "ôi", "cảm ơn nha", "thanks bạn", "đỉnh", "quá đỉnh", "ok bạn",
           "xin chào", "chào cả nhà", "hay quá", "vui ghê", "thôi xong", "cố lên", "được đấy", "chúc may mắn", "bài đẹp", "chơi đỉnh quá", "mình đang dùng điện thoại", "sắp đi ngủ", "chơi tiếp nào",
           "bài mình xấu", "còn bao nhiêu người", "avatar đẹp", "river ác quá", "mình có flush draw",
           "chơi tới sáng", "anh giỏi thật", "nghỉ chút đã"],
    "hu": ["ki a chip leader most", "kevés a zsetonom", "elvesztettem a zsetonjaim felét", "haha", "hehe", "xD", "jaj", "hú", "köszi szépen", "thx", "király", "de jó", "oké", "szia", "helló",
           "jó volt", "hajrá", "na végre", "uh", "ne már", "rendben", "sok szerencsét", "jó lapok", "szép játék", "telefonról játszom", "megyek aludni", "még egy kör",
           "rossz lapjaim vannak", "hányan vagyunk még", "jó avatar", "kegyetlen river", "színhúzóm volt",
           "reggelig játszunk", "nagyon jó vagy", "pihenek egy kicsit"],
    "uk": ["хто чіп-лідер", "мало фішок лишилось", "втратив половину фішок", "хаха", "хех", "ого", "ой", "дякую дуже", "дяк", "круто", "клас", "ок", "привіт", "всім привіт",
           "добре", "вперед", "нарешті", "ну все", "давай", "супер", "ясно", "удачі всім", "гарні карти", "класна гра", "я з телефону", "скоро спати", "ще одне коло",
           "погані карти", "скільки гравців лишилось", "гарна аватарка", "жорсткий рівер", "в мене було флеш дро",
           "граємо до ранку", "ти дуже сильний", "трохи відпочину"],
}  # fmt: skip

TRAIN_TOXIC: dict[str, list[str]] = {
    "id": ["anjing lu", "dasar bangsat", "kontol", "goblok banget lu", "tolol", "bajingan kau", "babi lu",
           "kampret", "ngentot", "memek", "tai lu", "brengsek", "asu", "jancok"],
    "hu": ["kurva anyád", "baszd meg", "te geci", "faszfej", "hülye picsa", "bazmeg", "rohadj meg",
           "te szemét", "kibaszott idióta", "anyád", "buzi", "köcsög", "seggfej", "nyomorék"],
    "uk": ["пішов нахуй", "сука", "курва", "підар", "мудак", "їбав тебе", "срака", "довбойоб", "гандон",
           "блядь", "хуйло", "засранець", "виродок", "покидьок"],
    "vi": ["địt mẹ mày", "đụ má", "thằng chó", "óc chó", "đồ ngu", "vãi lồn", "con đĩ", "mẹ mày", "dm", "vcl"],
}  # fmt: skip

TRAIN_SPAM: dict[str, list[str]] = {
    "en": ["buy cheap chips at my site", "promo code FREE100 for free chips", "join my telegram group for tips",
           "selling accounts cheap pm me", "visit my stream and subscribe", "free money click here"],
    "id": ["jual chip murah pm aja", "kode promo gratis chip", "gabung grup telegram kami", "jual akun murah",
           "deposit kecil bonus besar kunjungi situs kami", "chip gratis klik link"],
    "vi": ["bán chip giá rẻ inbox", "mã khuyến mãi nhận chip miễn phí", "tham gia nhóm zalo nhận quà",
           "bán tài khoản giá rẻ", "nạp ít nhận thưởng lớn vào web", "chip miễn phí bấm link"],
    "hu": ["olcsó zsetont eladok", "promókód ingyen zsetonért", "csatlakozz a telegram csoportomhoz",
           "olcsón eladok fiókot", "kis befizetés nagy bónusz", "ingyen zseton kattints"],
    "uk": ["продам фішки дешево", "промокод на безкоштовні фішки", "підпишись на мій телеграм канал",
           "продам акаунт дешево", "малий депозит великий бонус", "безкоштовні фішки тисни"],
}  # fmt: skip
