"""`grailwar play --text` speaks the chosen language: the prompt, the seat's line, the actions
and the log in words, as the desktop client names them, never Python reprs."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from grailwar.cli import play as text_play
from grailwar.cli.main import build_parser


def first_prompt(*flags: str) -> list[str]:
    """The lines up to the first choice: the seat moves to the first square listed (2: Move)."""
    args = build_parser().parse_args(["play", "--text", "--seed", "3", *flags])
    out = io.StringIO()
    assert text_play.run(args, io.StringIO("2\n"), out) == 0
    return out.getvalue().splitlines()


@pytest.mark.parametrize(("lang", "expected"), [
    ("ja", ["1日目 朝 | セイバー HP 165/165 MP 190/190 令呪 3 | 手札 バスター バスター アーツ "
            "アーツ クイック | 現在地：西町住宅街 -- このターンの行動を宣言してください",
            "    0: 待機", "    1: 休息", "    2: 移動: 私立暁星学園", "    7: 移動: 市役所",
            "   14: 調査: アーチャー (第0段階)", "   21: 邂逅: キャスター · 戦闘",
            "  セイバーが私立暁星学園へ移動。"]),
    ("en", ["Day 1 Morning | Saber HP 165/165 MP 190/190 Command Spells 3 | Hand Buster "
            "Buster Arts Arts Quick | At Nishimachi Residential Area -- Declare your action "
            "for this turn", "    0: Wait", "    2: Move: Gyosei Academy",
            "    7: Move: City Hall", "   21: Encounter: Caster · battle",
            "  Saber moved to Gyosei Academy."]),
])
def test_the_first_prompt_in_words(lang: str, expected: list[str]) -> None:
    lines = first_prompt("--lang", lang)
    for line in expected:
        assert line in lines, line
    assert not any("{'type'" in line or "seat=" in line for line in lines), "no reprs"


def test_the_language_defaults_to_the_clients_then_japanese(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAILWAR_CONFIG", str(tmp_path / "client.json"))
    assert "    1: 休息" in first_prompt()
    (tmp_path / "client.json").write_text(json.dumps({"lang": "fr"}), encoding="utf-8")
    assert "    1: 休息" in first_prompt()
    (tmp_path / "client.json").write_text(json.dumps({"lang": "ko"}), encoding="utf-8")
    assert "    1: 휴식" in first_prompt()


def test_quitting_mid_game_says_the_text_game_is_not_kept_and_how_to_continue() -> None:
    """Ctrl-D mid-game: the terminal game is not kept; the line names `grailwar play`."""
    from grailwar.client.i18n import Tr

    lines = first_prompt("--lang", "en")  # "2\n", then the end of the input
    assert lines[-1] == Tr("en")("text.not_kept") and "`grailwar play`" in lines[-1]
