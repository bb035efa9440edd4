"""The chat's dice commands: what is a command, the bounds, the dice-bot line."""

from __future__ import annotations

import random

import pytest
from grailwar.shared.chatdice import DiceError, parse, roll, roll_line
from grailwar.shared.engine.text import dice_line


class Fixed(random.Random):
    """A generator that answers the given faces in turn."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0)
        assert a <= face <= b
        return face


def line(text: str, *faces: int) -> str:
    command = parse(text)
    assert command is not None
    return roll_line(roll(command, Fixed(*faces)), "成功", "失敗")


@pytest.mark.parametrize(("text", "faces", "expected"), [
    ("2D6", (3, 4), "(2D6) ＞ 7[3,4] ＞ 7"),
    ("2D6+3 攻撃", (3, 4), "(2D6+3) ＞ 7[3,4]+3 ＞ 10"),
    ("1D100<=60", (42,), "(1D100<=60) ＞ 42 ＞ 成功"),
    ("1d100<=60", (61,), "(1D100<=60) ＞ 61 ＞ 失敗"),
    ("3D6-1>=10", (2, 3, 4), "(3D6-1>=10) ＞ 9[2,3,4]-1 ＞ 8 ＞ 失敗"),
    ("D6", (5,), "(1D6) ＞ 5"),
    ("２Ｄ６＋１", (1, 1), "(2D6+1) ＞ 2[1,1]+1 ＞ 3"),
    ("2D6+1D4", (6, 6, 2), "(2D6+1D4) ＞ 12[6,6]+2 ＞ 14"),
])
def test_a_command_rolls_in_the_dice_bot_format(text: str, faces: tuple[int, ...],
                                                 expected: str) -> None:
    assert line(text, *faces) == expected


def test_the_roll_carries_its_structure() -> None:
    command = parse("S1D100<=50 こっそり")
    assert command is not None and command.secret and command.comment == "こっそり"
    data = roll(command, Fixed(50))
    assert data == {"expr": "1D100<=50", "terms": [{"sign": 1, "count": 1, "faces": 100,
                                                    "dice": [50]}],
                    "total": 50, "secret": True, "comparison": "<=", "target": 50,
                    "success": True}


@pytest.mark.parametrize("text", ["hello", "2D6+", "D", "100", "Dice 2D6", "2D6攻撃", ""])
def test_plain_chat_is_no_command(text: str) -> None:
    assert parse(text) is None


@pytest.mark.parametrize(("text", "key"), [
    ("101D6", "dice"), ("1D1001", "faces"), ("0D6", "dice"), ("1D0", "faces"),
    ("1D6+1D6+1D6+1D6+1D6+1D6+1D6+1D6+1D6+1D6+1", "terms"), ("1D6+9999999", "number"),
])
def test_a_command_beyond_the_bounds_is_an_error(text: str, key: str) -> None:
    with pytest.raises(DiceError) as err:
        parse(text)
    assert err.value.key == key


def test_the_bounds_themselves_roll() -> None:
    command = parse("100D1000")
    assert command is not None
    data = roll(command, random.Random(3))
    assert len(data["terms"][0]["dice"]) == 100
    assert all(1 <= d <= 1000 for d in data["terms"][0]["dice"])


def test_english_lines_use_the_ascii_step_mark_and_japanese_and_korean_the_full_width() -> None:
    """Issue 32: "(2D6+3) > 7[3,4]+3 > 10" in English; ＞ stays in ja and ko, in the chat and
    in the game's dice lines alike."""
    command = parse("2D6+3")
    assert command is not None
    rolled = roll(command, Fixed(3, 4))
    assert roll_line(rolled, "success", "failure", "en") == "(2D6+3) > 7[3,4]+3 > 10"
    assert roll_line(rolled, "성공", "실패", "ko") == "(2D6+3) ＞ 7[3,4]+3 ＞ 10"
    event = {"dice": "2D6", "mod": -1, "faces": [6, 6], "total": 11, "result": "critical"}
    assert dice_line(event, "en") == "(2D6-1) > 12[6,6]-1 > 11 > Critical"
    assert dice_line(event, "ja").startswith("(2D6-1) ＞ 12[6,6]-1 ＞ 11 ＞ ")
