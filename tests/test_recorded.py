"""Recorded games replay exactly: same actions from the same seed (and the same rules modules)
give the same events and the same final text; and `grailwar simulate` prints what it printed
when recorded. A failure here means the rules changed; if on purpose, rerun
`python tests/record_games.py` and review the diff of tests/recorded/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from grailwar.shared.engine import apply, from_dict, new_game, to_text
from record_games import GAMES, SIMULATED, SIMULATIONS, event_record, setup_of, simulate

RECORDED = sorted((Path(__file__).parent / "recorded").glob("*.json"))
SIMULATE_OUTPUTS = sorted(SIMULATED.glob("*.txt"))
RERUN = "if the rules changed on purpose, rerun `python tests/record_games.py`"


def plain(value: Any) -> Any:
    """As JSON stores it (tuples become lists), for an exact comparison."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def test_every_recorded_game_is_present() -> None:
    """The games and simulate runs the script records are all on disk (and nothing else)."""
    assert [p.stem for p in RECORDED] == sorted(GAMES)
    assert [p.stem for p in SIMULATE_OUTPUTS] == sorted(SIMULATIONS)


def test_recorded_setups_are_the_scripts() -> None:
    """Each file was recorded from the set-up the script names for it (seed, classes, day limit,
    modules and options, priority phase), so a changed GAMES entry needs a rerun too."""
    for path in RECORDED:
        game = json.loads(path.read_text(encoding="utf-8"))
        assert setup_of(game) == GAMES[path.stem], f"{path.name}: {RERUN}"


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_recorded_game_replays_exactly(path: Path) -> None:
    """Replaying the recorded actions through `apply` gives, step by step, the recorded events
    (type, data, who sees them), and ends in the recorded final `to_text`. A game without
    `modules` is a base game."""
    game = json.loads(path.read_text(encoding="utf-8"))
    state = new_game(**setup_of(game).new_game_args())
    assert [c.master.id for c in state.camps] == game["masters"], f"Masters differ; {RERUN}"
    assert [c.servant.id for c in state.camps] == game["servants"], f"Servants differ; {RERUN}"
    for n, step in enumerate(game["steps"], start=1):
        action = from_dict(step["action"])
        assert action.to_dict() == step["action"]
        state, events = apply(state, action)
        got = plain([event_record(e) for e in events])
        if got != step["events"]:
            pairs = zip(got, step["events"], strict=False)
            first = next((i for i, (a, b) in enumerate(pairs) if a != b),
                         min(len(got), len(step["events"])))
            pytest.fail(f"step {n} ({action}): event {first} differs\n"
                        f"  recorded: {step['events'][first:first + 1]}\n"
                        f"  now:      {got[first:first + 1]}\n{RERUN}")
    assert state.over, f"the recorded game no longer ends after its actions; {RERUN}"
    assert to_text(state) == game["final"], RERUN


@pytest.mark.parametrize("name", sorted(SIMULATIONS))
def test_simulate_prints_the_recorded_output(name: str) -> None:
    """`grailwar simulate` with these arguments prints exactly what it printed when recorded
    (stdout; stderr is empty: no progress bar off a terminal, no error)."""
    args = SIMULATIONS[name]
    code, out, err = simulate(args)
    assert (code, err) == (0, "")
    expected = (SIMULATED / f"{name}.txt").read_text(encoding="utf-8")
    assert out == expected, f"`grailwar simulate {' '.join(args)}` printed otherwise; {RERUN}"
