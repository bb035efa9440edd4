"""`grailwar play --text` speaks the chosen language: the prompt, the seat's line, the actions
and the log in words, as the desktop client names them, never Python reprs."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from grailwar.cli import play as text_play
from grailwar.cli.main import build_parser
from grailwar.client.i18n import Tr


def first_prompt(*flags: str, answers: str = "1\n2\n") -> list[str]:
    """The lines up to the input's end: by default Move (the first verb), to the second square
    listed, then the input ends."""
    args = build_parser().parse_args(["play", "--text", "--seed", "3", *flags])
    out = io.StringIO()
    assert text_play.run(args, io.StringIO(answers), out) == 0
    return out.getvalue().splitlines()


@pytest.mark.parametrize(("lang", "expected"), [
    ("ja", ["1日目 朝 | セイバー HP 165/165 MP 190/190 令呪 3 | 手札 バスター バスター アーツ "
            "アーツ クイック | 現在地：西町住宅街", "このターンの行動を宣言してください",
            "  1: 移動 (12)  2: 待機  3: 休息  4: 調査 (6)  5: 邂逅 (4)  6: 不意打ち (2)  "
            "7: 魂喰い  8: 令呪 (46)", "    1: 私立暁星学園", "    2: 古戦場の森",
            "  セイバーが古戦場の森へ移動。",
            "  （移動は無料です。続けてこのターンの宣言を選んでください）",
            "  1: 待機  2: 休息  3: 調査 (6)  4: 魂喰い  5: 令呪 (46)"]),
    ("en", ["Day 1 Morning | Saber HP 165/165 MP 190/190 Command Spells 3 | Hand Buster "
            "Buster Arts Arts Quick | At Nishimachi Residential Area",
            "Declare your action for this turn", "    1: Gyosei Academy",
            "  Saber moved to Old Battlefield Woods."]),
])
def test_the_first_prompt_in_words(lang: str, expected: list[str]) -> None:
    """The status, where every camp stands, the prompt, the verbs with how many choices each
    has; a verb's choices next; a Move is said to be free (issue 32: 79-137 numbered lines
    at every prompt, and the status scrolled off)."""
    lines = first_prompt("--lang", lang)
    for line in expected:
        assert line in lines, line
    camps = next(line for line in lines if line.startswith("  ") and " · " in line)
    assert camps.count(" · ") == 6  # seven camps, each with its square
    assert not any("{'type'" in line or "seat=" in line for line in lines), "no reprs"
    assert len([x for x in lines if x.startswith("    ")]) <= 12  # only the Move's squares


def test_help_explains_and_b_goes_back_and_a_wrong_number_says_the_range() -> None:
    tr = Tr("en")
    lines = first_prompt("--lang", "en", answers="h\n4\nb\n99\n2\n")
    assert "  " + tr("text.help") in lines
    assert "    1: Archer (Tier 0)" in lines  # Investigate's targets, then back
    assert "  " + tr("text.pick", n=8) in lines
    assert "  Saber declared Wait." in lines  # 2: Wait


def test_the_language_defaults_to_the_clients_then_japanese(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAILWAR_CONFIG", str(tmp_path / "client.json"))
    assert "このターンの行動を宣言してください" in first_prompt()
    (tmp_path / "client.json").write_text(json.dumps({"lang": "fr"}), encoding="utf-8")
    assert "このターンの行動を宣言してください" in first_prompt()
    (tmp_path / "client.json").write_text(json.dumps({"lang": "ko"}), encoding="utf-8")
    assert "  " + Tr("ko")("text.move_free") in first_prompt()


def test_quitting_mid_game_says_the_text_game_is_not_kept_and_how_to_continue() -> None:
    """Ctrl-D mid-game: the terminal game is not kept; the line names `grailwar play`."""
    lines = first_prompt("--lang", "en")  # "2\n", then the end of the input
    assert lines[-1] == Tr("en")("text.not_kept") and "`grailwar play`" in lines[-1]
