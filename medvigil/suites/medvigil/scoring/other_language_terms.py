"""Answers in other languages, for the learned judge (:mod:`.judge_features`): the refusal phrases,
the negation cues and the tier-4 findings that multilingual VLMs write in the languages they most
often answer in (Chinese, Japanese, Korean, Spanish, Portuguese, German, French, Italian, Russian,
Arabic, Hindi). The English readers see none of them: "未提供图像" refuses, "脑出血" is a
haemorrhage, "kein Hinweis auf Blutung" negates one.

Written from the languages' medical vocabulary, not from any labelled answer. Only the findings that
are tier 4 whatever their qualifier are listed, with the pneumothorax only under tension.
"""

import re

# "no image was provided", "please upload", "cannot assess / determine", "hidden", "the premise"
REFUSAL_PHRASES = (
    # Chinese
    "未提供",
    "没有提供",
    "未收到",
    "没有收到",
    "请上传",
    "请提供",
    "无法判断",
    "无法评估",
    "无法确定",
    "无法诊断",
    "无法回答",
    "不能判断",
    "不能确定",
    "看不到",
    "遮挡",
    "前提",
    "不符",
    # Japanese
    "画像がありません",
    "提供されていません",
    "アップロード",
    "判断できません",
    "評価できません",
    "確認できません",
    "診断できません",
    "見えません",
    "隠れて",
    "前提",
    # Korean
    "이미지가 없",
    "업로드",
    "판단할 수 없",
    "평가할 수 없",
    "확인할 수 없",
    "가려져",
    # Spanish / Portuguese / Italian
    "no se proporcion",
    "no recib",
    "no puedo",
    "no es posible",
    "imposible",
    "envíe",
    "proporcione",
    "premisa",
    "não recebi",
    "não foi fornecid",
    "não consigo",
    "não é possível",
    "impossível",
    "envie",
    "forneça",
    "premissa",
    "nessuna immagine",
    "non posso",
    "non è possibile",
    "impossibile",
    "premessa",
    # German / French
    "kein bild",
    "nicht beurteilbar",
    "nicht möglich",
    "kann nicht",
    "kann ich nicht",
    "bitte laden",
    "bitte senden",
    "verdeckt",
    "prämisse",
    "pas d'image",
    "aucune image",
    "je ne peux pas",
    "impossible de",
    "veuillez",
    "masqué",
    "prémisse",
    # Russian / Arabic / Hindi
    "нет изображения",
    "не могу",
    "невозможно",
    "загрузите",
    "пришлите",
    "لا توجد صورة",
    "لا أستطيع",
    "يرجى",
    "छवि नहीं",
    "कृपया",
)

# a cue that negates a finding standing within a few words (or characters, in CJK) after it
NEGATIONS = (
    "未见",
    "未发现",
    "未显示",
    "没有",
    "无",
    "排除",
    "阴性",
    "認めない",
    "認められない",
    "ありません",
    "見られない",
    "見当たらない",
    "なし",
    "없",
    "아니",
    "no",
    "sin",
    "ningún",
    "ninguna",
    "não",
    "sem",
    "nenhum",
    "nenhuma",
    "ausencia",
    "ausência",
    "kein",
    "keine",
    "keinen",
    "keiner",
    "nicht",
    "ohne",
    "pas de",
    "aucun",
    "aucune",
    "sans",
    "absence",
    "non",
    "nessun",
    "nessuna",
    "senza",
    "нет",
    "не",
    "без",
    "отсутств",
    "لا",
    "لم",
    "ليس",
    "بدون",
    "नहीं",
    "बिना",
)

# tier-4 findings (the rubric's families) in the languages above
FINDINGS = {
    "haemorrhage": (
        "出血",
        "血肿",
        "血腫",
        "출혈",
        "혈종",
        "hemorragia",
        "emorragia",
        "hémorragie",
        "blutung",
        "hämatom",
        "hématome",
        "ematoma",
        "saignement",
        "кровоизлияни",
        "гематом",
        "نزيف",
        "रक्तस्राव",
    ),
    "pneumothorax": (
        "张力性气胸",
        "大量气胸",
        "緊張性気胸",
        "긴장성 기흉",
        "neumotórax a tensión",
        "pneumotórax hipertensivo",
        "spannungspneumothorax",
        "pneumothorax sous tension",
        "pneumotorace iperteso",
        "напряжённый пневмоторакс",
    ),
    "aortic dissection": (
        "夹层",
        "大動脈解離",
        "박리",
        "disección",
        "dissecção",
        "dissektion",
        "dissezione",
        "расслоени",
    ),
    "pulmonary embolism": (
        "肺栓塞",
        "肺动脉栓塞",
        "肺塞栓",
        "폐색전",
        "embolia pulmonar",
        "tromboembolismo pulmonar",
        "lungenembolie",
        "embolie pulmonaire",
        "embolia polmonare",
        "тромбоэмболия",
        "тэла",
    ),
    "malignancy": (
        "癌",
        "恶性",
        "肿瘤",
        "转移",
        "がん",
        "悪性",
        "腫瘍",
        "転移",
        "악성",
        "종양",
        "전이",
        "cáncer",
        "câncer",
        "cancro",
        "maligno",
        "maligna",
        "metástasis",
        "metástase",
        "metastasi",
        "karzinom",
        "krebs",
        "bösartig",
        "maligne",
        "metastase",
        "carcinome",
        "tumeur",
        "métastase",
        "tumore",
        "рак",
        "злокачествен",
        "метастаз",
        "опухол",
        "سرطان",
        "कैंसर",
    ),
}

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _pattern(terms) -> re.Pattern:
    """Alphabetic terms from a word start (a stem may run on: "кровоизлияни|е"); CJK anywhere."""
    parts = []
    for term in sorted(set(terms), key=len, reverse=True):
        escaped = re.escape(term)
        parts.append(escaped if _CJK.search(term) else rf"(?<!\w){escaped}")
    return re.compile("|".join(parts), re.I)


REFUSAL = _pattern(REFUSAL_PHRASES)
NEGATION = _pattern(NEGATIONS)
FINDING = {family: _pattern(terms) for family, terms in FINDINGS.items()}
# how far back a negation reaches: characters in CJK text, else words
_CLAUSE_END = re.compile(
    r"[.;!?。；！？\n]|\bbut\b|\bpero\b|\bmas\b|\baber\b|\bmais\b|但|但是|しかし|그러나"
)
NEGATION_REACH_CHARS = 12
NEGATION_REACH_WORDS = 5


# function words: an answer with more of another language's than of English's is in that language
# (words English also writes -- "a", "as", "do", "die", "per", "al" -- are left out)
ENGLISH_WORDS = frozenset(
    "the is are was were of and with there this that no not in on to an be it for by at from or "
    "which has have can cannot you your if but yes".split()
)
OTHER_WORDS = frozenset(
    "der den dem das und ist nicht ein eine einer im mit kein keine keinen auf zu für bei wird "
    "sind el la los las del y es en un una con sin se que por para muy pero hay está son soy "
    "os da é em um uma com não são na nas nos há sem "
    "le les des et est une dans avec pas sur du au qui par ce cette mais pour "
    "il lo gli di è della delle dei nel nella nell alla sono che ma questo questa".split()
)
_WORD = re.compile(r"[^\W\d_]+")


def non_english_share(text: str) -> float:
    """The share of the letters of ``text`` outside ASCII."""
    letters = [c for c in text if c.isalpha()]
    return sum(not c.isascii() for c in letters) / len(letters) if letters else 0.0


def is_other_language(text: str) -> bool:
    """Is ``text`` mostly in a language other than English: mostly outside ASCII (CJK, Cyrillic,
    Arabic, Devanagari), or with at least two function words of German, Spanish, Portuguese,
    French or Italian and more of them than of English? English shorthand ("L SDH 8mm") is
    English."""
    if non_english_share(text) > 0.3:
        return True
    words = _WORD.findall(text.lower())
    other = sum(w in OTHER_WORDS for w in words)
    return other >= 2 and other > sum(w in ENGLISH_WORDS for w in words)


def findings(text: str) -> list[tuple[str, bool]]:
    """(family, negated) per tier-4 mention in another language: negated when a negation cue
    stands shortly before it in its clause ("未见出血", "sin hemorragia", "kein Hinweis auf eine
    Blutung")."""
    out = []
    for family, pattern in FINDING.items():
        for match in pattern.finditer(text):
            before = _CLAUSE_END.split(text[: match.start()])[-1]
            if _CJK.search(match.group()):
                reach = before[-NEGATION_REACH_CHARS:]
            else:
                reach = " ".join(before.split()[-NEGATION_REACH_WORDS:])
            out.append((family, bool(NEGATION.search(reach))))
    return out


def refuses(text: str) -> bool:
    """Does ``text`` hold a refusal phrase of another language?"""
    return bool(REFUSAL.search(text))
