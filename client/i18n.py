"""Message catalogs (`resources/i18n/{ja,ko,en}.toml`) and the names of game data in a language.

Every string the client draws comes from here: `Tr(lang)("lobby.title")`, or for game data
(classes, skills, squares, Command Spells) from the ruleset's own ja/ko/en texts.
"""

from __future__ import annotations

import contextlib
import functools
import re
import tomllib
from importlib import resources
from typing import Any

from ..shared.engine.data import Ruleset, default_ruleset

LANGS = ("ja", "ko", "en")
GLOSS = re.compile(r"\s*[（(]")  # where a true name's gloss in brackets begins

# Korean particles written in the catalog as 이(가), 을(를), 은(는), 와(과), (으)로: the first
# form follows a final consonant (받침), the second a vowel; 으로 follows a 받침 other than ㄹ.
PARTICLES = {"이(가)": ("이", "가"), "을(를)": ("을", "를"), "은(는)": ("은", "는"),
             "와(과)": ("과", "와"), "(으)로": ("으로", "로")}
PARTICLE = re.compile("|".join(re.escape(m) for m in PARTICLES))
CLOSERS = "」』》〉\"'”’ "  # a quoted name's particle follows the name inside the quotes
FINALS = "ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ"  # 받침 1..27 of a Hangul syllable
# a digit read in Korean (일 삼 육 칠 팔 영) ends in a 받침; 이 사 오 구 end in a vowel
DIGIT_FINAL = {"1": "ㄹ", "3": "ㅁ", "6": "ㄱ", "7": "ㄹ", "8": "ㄹ", "0": "ㅇ"}


def final_consonant(word: str) -> str:
    """The 받침 a word ends in ("" for a vowel): Hangul by its code, a digit by its reading;
    anything else (a Latin name) takes the vowel form, the usual fallback."""
    word = word.rstrip(CLOSERS)
    if word.endswith(")") and "(" in word:  # a gloss: the particle follows the name before it
        word = word[: word.rindex("(")].rstrip()
    if not word:
        return ""
    last = word[-1]
    if "가" <= last <= "힣":
        final = (ord(last) - 0xAC00) % 28
        return FINALS[final - 1] if final else ""
    return DIGIT_FINAL.get(last, "")


def korean_particles(text: str) -> str:
    """Resolve each particle marker by the word before it (see PARTICLES)."""

    def pick(match: re.Match[str]) -> str:
        after_consonant, after_vowel = PARTICLES[match.group()]
        final = final_consonant(text[: match.start()])
        if match.group() == "(으)로":
            return after_consonant if final not in ("", "ㄹ") else after_vowel
        return after_consonant if final else after_vowel

    return PARTICLE.sub(pick, text)


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        else:
            out[name] = str(value)
    return out


@functools.cache
def catalog(lang: str) -> dict[str, str]:
    """The flat catalog of one language: dotted key -> text."""
    if lang not in LANGS:
        raise ValueError(f"no catalog for language {lang!r}; one of {LANGS}")
    path = resources.files("grailwar.resources") / "i18n" / f"{lang}.toml"
    return _flatten(tomllib.loads(path.read_text(encoding="utf-8")))


def with_module_strings(lang: str) -> dict[str, str]:
    """The catalog with the strings of the modules' client parts (`ClientPart.strings`) that
    bring their own; the catalog itself when none does."""
    from .modules import every_part  # (the parts' modules import this one)

    extra = {k: v for part in every_part() for k, v in part.strings(lang).items()}
    return {**catalog(lang), **extra} if extra else catalog(lang)


class Tr:
    """Translate keys in one language; a missing key shows as the key itself (never a crash)."""

    def __init__(self, lang: str = "en", rules: Ruleset | None = None) -> None:
        self.lang = lang if lang in LANGS else "en"
        self.messages = with_module_strings(self.lang)
        self._rules = rules

    @property
    def rules(self) -> Ruleset:
        if self._rules is None:
            self._rules = default_ruleset()
        return self._rules

    def __call__(self, key: str, /, **kw: Any) -> str:
        text = self.messages.get(key)
        if text is None:
            return key
        if kw:
            with contextlib.suppress(KeyError, IndexError, ValueError):  # shown as written
                text = text.format(**kw)
        return korean_particles(text) if self.lang == "ko" else text

    def has(self, key: str) -> bool:
        return key in self.messages

    def duration(self, seconds: int) -> str:
        """A timer's length as a person says it: 5 minutes, 90 seconds, 1 minute 30."""
        minutes, rest = divmod(seconds, 60)
        if not minutes:
            return self("lobby.seconds", n=rest)
        if not rest:
            return self("lobby.minutes", n=minutes)
        return self("lobby.minutes_seconds", m=minutes, s=rest)

    # --- game data ---------------------------------------------------------------------------
    def cls(self, cls: str | None) -> str:
        return self(f"class.{cls}") if cls else "—"

    def short(self, cls: str | None) -> str:
        return self(f"class_short.{cls}") if cls else "?"

    def param(self, param: str) -> str:
        """A Servant parameter's name: 筋力 / 근력 / STR."""
        return self(f"param.{param}")

    def ranks(self, ranks: dict[str, str]) -> str:
        """A Servant's parameters, three to a line ("筋力 A  耐久 B  敏捷 A" and "魔力 D …"):
        broken here, since pyglet may break Japanese text between a name and its rank."""
        items = [f"{self.param(p)} {rank}" for p, rank in ranks.items()]
        return "\n".join("  ".join(items[i:i + 3]) for i in range(0, len(items), 3))

    def skill(self, skill_id: str) -> str:
        skill = self.rules.skills.get(skill_id)
        return skill.name.get(self.lang) if skill else skill_id

    def skill_text(self, skill_id: str) -> str:
        skill = self.rules.skills.get(skill_id)
        return skill.text.get(self.lang) if skill else ""

    def skill_help(self, skill_id: str) -> str:
        """What hovering a known skill shows: its name, its text, and its MP cost and 1D100
        check when it has them (the text does not say them)."""
        skill = self.rules.skills.get(skill_id)
        if skill is None:
            return skill_id
        terms = [self("skill_help.cost", mp=skill.mp)] if skill.mp else []
        if skill.check is not None:
            terms.append(self("skill_help.check", check=skill.check))
        return "\n".join([self.skill(skill_id), self.skill_text(skill_id), " · ".join(terms)]
                         ).strip()

    def spell(self, spell_id: str) -> str:
        spell = self.rules.command_spells.get(spell_id)
        return spell.name.get(self.lang) if spell else spell_id

    def spell_text(self, spell_id: str) -> str:
        spell = self.rules.command_spells.get(spell_id)
        return spell.text.get(self.lang) if spell else ""

    def spell_cost(self, spell_id: str) -> int:
        spell = self.rules.command_spells.get(spell_id)
        return spell.cost if spell else 1

    def square(self, map_id: str, index: int) -> str:
        grid = self.rules.maps.get(map_id)
        if grid is None or not 0 <= index < len(grid.squares):
            return f"#{index}"
        return grid.squares[index].name.get(self.lang)

    def city(self, map_id: str) -> str:
        grid = self.rules.maps.get(map_id)
        return grid.name.get(self.lang) if grid else map_id

    def buff(self, buff_id: str) -> str:
        for table in (self.rules.buffs, self.rules.debuffs):
            for item in table:
                if item.id == buff_id:
                    return item.name.get(self.lang)
        return buff_id

    def source(self, source: str) -> str:
        """A buff's source as a name: cs:<spell>, buff:<id>, debuff:<id>, np:<id>, a skill id."""
        kind, _, ident = source.partition(":")
        if kind == "cs":
            return self.spell(ident)
        if kind in ("buff", "debuff"):
            return self.buff(ident)
        if kind == "np":
            return self.np_name(ident)
        if source in ("np",):
            return self("panel.np")
        if source == "skill":
            return self("panel.skills")
        return self.skill(source)

    def servant_by_id(self, servant_id: str) -> Any:
        return self.rules.by_id.get(servant_id)

    def np_by_id(self, np_id: str) -> Any:
        return next((s.np for s in self.rules.by_id.values() if s.np.id == np_id), None)

    def np_name(self, np_id: str | None) -> str:
        np = self.np_by_id(np_id) if np_id else None
        return np.name.get(self.lang) if np else self("event.np_unknown")

    def true_name(self, servant_id: str) -> str:
        servant = self.servant_by_id(servant_id)
        return servant.true_name.get(self.lang) if servant else servant_id

    def short_name(self, servant_id: str) -> str:
        """A true name without its gloss in brackets ("El Cid" for "El Cid (Rodrigo Díaz de
        Vivar)"), so that a class's candidates fit on a line or a button."""
        return GLOSS.split(self.true_name(servant_id), maxsplit=1)[0]

    def np_signature(self, card: str, kind: str, scale: str) -> str:
        """What firing shows of a Noble Phantasm (its card, kind and scale), not its name."""
        return " · ".join((self.card(card), self(f"np_kind.{kind}"), self(f"np_scale.{scale}")))

    def master_name(self, master_id: str) -> str:
        master = self.rules.masters.get(master_id)
        return master.name.get(self.lang) if master else master_id

    def module(self, name: str) -> str:
        """A rules module's name (its id if this client does not know it)."""
        return self(f"module.{name}") if self.has(f"module.{name}") else name

    def card(self, kind: str) -> str:
        return self(f"card.{kind}") if kind else self("card.none")
