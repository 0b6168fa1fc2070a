"""Everyday table talk written by the team, per language: the false-positive test set.

NOT used for training. Base lines are expanded with a few harmless prefixes/suffixes (names,
emoji, punctuation) the way real chat repeats itself; `table_talk(lang)` returns >= 200 lines.
"""

from __future__ import annotations

BASE: dict[str, list[str]] = {
    "en": [
        "nice hand", "gg", "gg wp", "good game everyone", "gl all", "good luck everyone", "ty", "thanks",
        "nh", "wp", "unlucky", "so close", "what a cooler", "sorry, lag", "my internet is slow today",
        "brb", "back", "how long until the break?", "who's the chip leader?", "nice river for you",
        "I had kings, unlucky", "I folded queens preflop", "that was a tough spot", "well played sir",
        "I need coffee", "it's late here", "good morning from Manila", "happy friday guys",
        "what a tournament", "finally a good hand", "the cards hate me tonight lol", "nice bluff",
        "how do you always hit the flush", "ok I'm done for today", "see you tomorrow", "good night all",
        "congrats on the win", "nice comeback", "table is quiet today", "anyone watching the match?",
        "I love this game", "ship it", "that was fun", "first time at this stake", "time bank saved me",
        "sorry I was away", "let's keep it friendly", "nice call", "great read", "what blinds are we at?",
        "only 20 left", "bubble time", "good luck at the final table", "my phone died, sorry",
        "lol", "haha nice", "omg", "wow", "running bad today", "variance is crazy",
        "I should have folded", "misclicked sorry", "can't believe that turn", "deal at the final table?",
        "I'm in for a chop if everyone agrees", "well that hurt", "nice to see you again", "long session",
    ],
    "id": [
        "gg", "tangan bagus", "mantap bang", "semoga beruntung semua", "makasih", "terima kasih",
        "sial banget", "hampir saja", "maaf lag", "internet saya lambat", "sebentar ya", "aku balik",
        "berapa lama lagi istirahat?", "siapa chip leader?", "river bagus buat kamu", "tadi aku pegang king",
        "aku lipat queen tadi", "main bagus bang", "butuh kopi", "sudah malam di sini", "selamat pagi semua",
        "selamat hari jumat", "turnamen seru", "akhirnya dapat kartu bagus", "kartunya jelek terus",
        "bluff yang bagus", "oke aku selesai hari ini", "sampai besok", "selamat malam semua",
        "selamat atas kemenangannya", "comeback yang keren", "meja sepi hari ini", "ada yang nonton bola?",
        "aku suka game ini", "seru banget", "pertama kali main di stake ini", "maaf tadi aku pergi",
        "main santai aja ya", "call yang bagus", "bacaan yang hebat", "blind berapa sekarang?",
        "tinggal 20 orang", "sudah bubble", "semoga sukses di final table", "hp ku mati, maaf",
        "wkwk", "haha mantap", "wah", "lagi apes hari ini", "variansnya gila", "harusnya aku lipat",
        "salah klik maaf", "gak percaya turn nya", "deal di final table?", "sakit juga ya",
        "senang ketemu lagi", "sesi panjang", "ayo semangat", "salam kenal semua", "nice hand bro",
    ],
    "vi": [
        "gg", "ván hay", "chơi hay lắm", "chúc mọi người may mắn", "cảm ơn", "cám ơn bạn", "xui quá",
        "suýt nữa", "xin lỗi mạng lag", "mạng mình chậm quá", "đợi chút nhé", "mình quay lại rồi",
        "bao lâu nữa nghỉ giải lao?", "ai đang dẫn chip?", "river đẹp cho bạn", "mình cầm đôi K mà thua",
        "mình bỏ đôi Q rồi", "khó quá", "chơi tốt lắm anh", "cần cà phê", "ở đây khuya rồi",
        "chào buổi sáng mọi người", "chúc cuối tuần vui vẻ", "giải đấu hay quá", "cuối cùng cũng có bài đẹp",
        "bài xấu cả tối", "bluff hay đấy", "thôi mình nghỉ hôm nay", "hẹn mai gặp lại", "chúc ngủ ngon",
        "chúc mừng chiến thắng", "lội ngược dòng đẹp", "bàn hôm nay vắng", "có ai xem bóng đá không?",
        "mình thích game này", "vui thật", "lần đầu chơi mức này", "xin lỗi mình vừa đi đâu",
        "chơi vui vẻ nhé", "call hay", "đọc bài giỏi", "blind bao nhiêu rồi?", "còn 20 người",
        "sắp bubble rồi", "chúc may mắn ở bàn cuối", "điện thoại hết pin, xin lỗi", "haha", "hay đấy",
        "trời ơi", "hôm nay đen quá", "may rủi thật", "lẽ ra mình nên bỏ", "bấm nhầm xin lỗi",
        "không tin nổi lá turn", "chia tiền ở bàn cuối không?", "đau thật", "vui được gặp lại",
        "chơi lâu quá rồi", "cố lên mọi người", "xin chào cả bàn", "ban choi hay qua",
    ],
    "hu": [
        "gg", "szép leosztás", "szép volt", "sok sikert mindenkinek", "köszi", "köszönöm", "peches",
        "majdnem", "bocs, laggol", "lassú ma a netem", "mindjárt jövök", "visszajöttem",
        "mennyi idő a szünetig?", "ki a chip leader?", "szép river neked", "királyaim voltak, peches",
        "dámákat dobtam preflop", "nehéz helyzet volt", "szépen játszottál", "kávé kell",
        "késő van már itt", "jó reggelt mindenkinek", "jó pénteket", "micsoda verseny",
        "végre egy jó lap", "ma utálnak a lapok", "szép blöff", "mára végeztem", "holnap találkozunk",
        "jó éjt mindenkinek", "gratula a győzelemhez", "szép visszatérés", "csendes ma az asztal",
        "nézi valaki a meccset?", "imádom ezt a játékot", "ez jó volt", "először játszom ezen a szinten",
        "bocs, nem voltam gépnél", "maradjunk barátságosak", "szép call", "jó olvasat",
        "mennyi a vak most?", "már csak 20-an vagyunk", "buborék", "sok sikert a döntő asztalon",
        "lemerült a telefonom, bocs", "haha", "hű", "ma nem megy", "brutális a szórás",
        "el kellett volna dobnom", "félrekattintottam, bocs", "nem hiszem el ezt a turnt",
        "osztozkodás a döntőn?", "ez fájt", "örülök, hogy újra látlak", "hosszú session",
        "hajrá mindenki", "sziasztok", "szia mindenki", "jó játékot",
    ],
    "uk": [
        "гг", "гарна роздача", "добре зіграно", "всім удачі", "дякую", "дяки", "не пощастило",
        "майже", "вибачте, лаги", "інтернет сьогодні повільний", "зараз повернусь", "я повернувся",
        "скільки до перерви?", "хто чіплідер?", "гарний рівер для тебе", "в мене були королі, не пощастило",
        "я скинув дами на префлопі", "складна ситуація", "гарно зіграв", "треба кави", "тут вже пізно",
        "доброго ранку всім", "гарної пʼятниці", "який турнір", "нарешті гарна рука",
        "карти мене сьогодні не люблять", "гарний блеф", "на сьогодні все", "до завтра",
        "на добраніч всім", "вітаю з перемогою", "гарне повернення", "стіл сьогодні тихий",
        "хтось дивиться матч?", "люблю цю гру", "було весело", "вперше на цих ставках",
        "вибачте, відходив", "давайте дружньо", "гарний колл", "гарне читання", "які зараз блайнди?",
        "залишилось 20", "бабл", "удачі за фінальним столом", "телефон сів, вибачте", "хаха",
        "ого", "сьогодні не щастить", "дисперсія шалена", "треба було скинути", "міскликнув, вибач",
        "не віриться в цей терн", "угода за фінальним столом?", "боляче", "радий знову бачити",
        "довга сесія", "всім привіт", "привіт столу", "гарної гри",
    ],
    "ru": [
        "гг", "хорошая раздача", "хорошо сыграно", "всем удачи", "спасибо", "не повезло", "почти",
        "извините, лагает", "сейчас вернусь", "я вернулся", "сколько до перерыва?", "кто чиплидер?",
        "у меня были короли, не повезло", "я скинул дам на префлопе", "нужен кофе", "уже поздно",
        "доброе утро всем", "отличный турнир", "наконец хорошая рука", "хороший блеф",
        "на сегодня все", "до завтра", "спокойной ночи", "поздравляю с победой", "хороший колл",
        "какие сейчас блайнды?", "осталось 20", "удачи за финальным столом", "телефон сел, извините",
        "хаха", "сегодня не везет", "дисперсия", "надо было скинуть", "мисклик, извини",
        "не верится в этот терн", "больно", "рад снова видеть", "всем привет", "хорошей игры",
    ],
}  # fmt: skip

_PREFIXES = ("", "", "hey ", "ok ", "", "")
_SUFFIXES = ("", " :)", " 😂", "!", " 👍", "...")


def table_talk(lang: str) -> list[str]:
    """The test set for one language: every base line, then deterministic variants up to >= 200."""
    base = BASE[lang]
    lines = list(base)
    k = 0
    while len(lines) < max(220, len(base)):
        line = base[k % len(base)]
        variant = _PREFIXES[k % len(_PREFIXES)] + line + _SUFFIXES[(k // len(base)) % len(_SUFFIXES)]
        if variant not in lines:
            lines.append(variant)
        k += 1
        if k > 10_000:
            break
    return lines
