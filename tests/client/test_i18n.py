"""The message catalogs: ja, ko and en hold the same keys with the same placeholders, every
message the client looks up exists, and the bundled fonts have every character they use."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from grailwar.client.i18n import LANGS, Tr, catalog
from grailwar.client.model import error_key
from grailwar.shared.engine.prompts import PROMPTS
from grailwar.shared.protocol import ERRORS

PLACEHOLDER = re.compile(r"{(\w+)}")


def test_the_three_catalogs_have_the_same_keys() -> None:
    """A key missing in one language would show as the raw key on screen."""
    keys = {lang: set(catalog(lang)) for lang in LANGS}
    for lang in LANGS:
        assert keys[lang] == keys["en"], (lang, keys[lang] ^ keys["en"])


def test_no_message_is_empty_and_placeholders_agree() -> None:
    en = catalog("en")
    for lang in LANGS:
        messages = catalog(lang)
        for key, text in messages.items():
            assert text.strip(), f"{lang}: {key} is empty"
            assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(en[key])), \
                f"{lang}: {key} has other placeholders than en"


def test_every_verb_error_and_class_has_a_message() -> None:
    tr = Tr("ko")
    for kind in PROMPTS.values():
        for verb in kind.verbs:
            assert tr.has(f"verb.{verb}") and tr.has(f"verb_help.{verb}"), verb
    for code in ERRORS:
        assert tr.has(error_key(tr, code)), code
    for cls in tr.rules.servants:
        assert tr.has(f"class.{cls}") and tr.has(f"class_short.{cls}")


def test_game_data_names_come_from_the_ruleset() -> None:
    assert Tr("ja").cls("saber") == "セイバー"
    assert Tr("ko").spell("hp_recovery") == "HP 회복"
    assert Tr("en").square("akatsukigahama", 0) == "Old Battlefield Woods"
    assert Tr("en")("no.such.key") == "no.such.key"  # shown, never a crash


FACES = [("Grail Sans", False), ("Grail Sans", True), ("Grail Serif", True)]


def _has(window: Any, family: str, bold: bool) -> Any:
    """A test of whether the shipped face has a character (FreeType's own cmap lookup)."""
    import pyglet
    from grailwar.client.gfx import load_fonts

    load_fonts()
    font = pyglet.font.load(family, 12, weight="bold" if bold else "normal")
    assert font.name == family, f"{family} did not load (got {font.name})"
    return lambda ch: font.face.get_character_index(ch) != 0


@pytest.mark.parametrize(("family", "bold"), FACES)
def test_the_fonts_hold_every_character_of_the_catalogs_and_data(window: Any, family: str,
                                                                  bold: bool) -> None:
    """pyglet draws an empty box for a missing glyph: every catalog and data character must be
    in each shipped face (resources/fonts/make_subset.py makes them so)."""
    has = _has(window, family, bold)
    base = Path(str(resources.files("grailwar.resources")))
    used = set()
    for path in base.rglob("*.toml"):
        used |= {c for c in path.read_text(encoding="utf-8") if c.isprintable() and c != " "}
    missing = sorted(c for c in used if not has(c))
    assert not missing, f"{family} {'bold' if bold else ''} lacks {''.join(missing[:40])}"


def test_the_regular_face_covers_kana_hangul_and_common_kanji(window: Any) -> None:
    has = _has(window, "Grail Sans", False)
    for text in ("あいうえおアイウエオ", "가각간갈감갑값갓강개", "聖杯戦争令呪宝具英霊魔術衛宮"):
        assert all(has(c) for c in text), text
    assert all(has(chr(c)) for c in range(0xAC00, 0xD7A4)), "every Hangul syllable"


def test_the_font_licence_ships_with_the_fonts() -> None:
    base = Path(str(resources.files("grailwar.resources") / "fonts"))
    text = (base / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in text
    assert (base / "make_subset.py").exists()


@pytest.mark.parametrize(("word", "marker", "expected"), [
    ("시청", "(으)로", "시청으로"),    # 받침 ㅇ
    ("항구", "(으)로", "항구로"),      # no 받침
    ("마을", "(으)로", "마을로"),      # ㄹ takes 로
    ("세이버", "이(가)", "세이버가"),
    ("랜서의 검", "이(가)", "랜서의 검이"),
    ("「HP 회복」", "을(를)", "「HP 회복」을"),  # the name inside the quotes decides
    ("‘HP 회복’", "을(를)", "‘HP 회복’을"),  # (the Korean quotes the catalog uses)
    ("보구", "을(를)", "보구를"),
    ("캐스터", "와(과)", "캐스터와"),
    ("어쌔신", "와(과)", "어쌔신과"),
    ("버서커", "은(는)", "버서커는"),
    ("엘 시드 (로드리고)", "은(는)", "엘 시드 (로드리고)는"),  # a gloss: the name before it
    ("3", "(으)로", "3으로"),          # 삼
    ("7", "(으)로", "7로"),            # 칠: ㄹ
    ("2", "이(가)", "2가"),            # 이
    ("Lancer", "이(가)", "Lancer가"),  # Latin: the vowel form
])
def test_korean_particles_follow_the_final_consonant(word: str, marker: str,
                                                      expected: str) -> None:
    from grailwar.client.i18n import korean_particles

    assert korean_particles(word + marker) == expected


def test_korean_messages_show_no_particle_markers() -> None:
    """Every ko message resolves its markers; ja and en are left as written."""
    tr = Tr("ko")
    assert tr("event.Moved", who="세이버", square="시청") == "세이버가 시청으로 이동."
    assert tr("event.Moved", who="랜서", square="항구") == "랜서가 항구로 이동."
    fill = {name: "아처" for text in catalog("ko").values() for name in PLACEHOLDER.findall(text)}
    for key in catalog("ko"):
        assert not re.search(r"\((가|를|는|과|으)\)", tr(key, **fill)), key
    assert Tr("ja")("event.Moved", who="セイバー", square="市役所") == "セイバーが市役所へ移動。"


def test_japanese_lines_break_by_the_kinsoku_rules(app: Any) -> None:
    """No line ends with an opening bracket (it goes down with what it opens) and none starts
    with a small kana or closing punctuation; Korean breaks between words (issue 32)."""
    from grailwar.client.gfx import text_width, wrap

    unit = text_width("あ")
    opener = wrap("あいうえ「かきくけこ」", unit * 5.5).split("\n")
    assert opener[0] == "あいうえ" and opener[1].startswith("「"), opener
    small = wrap("あいうえおっとりした", unit * 5.5).split("\n")
    assert not any(line[:1] in "っゃゅょァィゥェォッャュョ、。」" for line in small), small
    assert wrap("かきくけこ。」", unit * 5.5).split("\n")[-1][:1] not in "。」"
    sentence = "방을 만들면 내 자리 말고는 모든 자리를"
    korean = wrap(sentence, text_width("방을 만들면 내 ")).split("\n")
    assert [w for line in korean for w in line.split()] == sentence.split(" "), korean
