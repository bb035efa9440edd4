"""The roster (issue 9): summoning, and deduction from what one seat has seen.

Summoning draws each camp's Servant from its class's roster by the seed (`random`, the
default) or takes the one named (`choose`); the draw is a stream of its own, so it changes
neither the dice nor the Masters. What a seat may deduce of a rival's Servant is
`deduction.candidates` of its view: the class's roster, narrowed by a Noble Phantasm seen
firing and by the investigation tiers.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from grailwar.cli.main import main
from grailwar.shared.engine import new_game, view_for
from grailwar.shared.engine.actions import DeclareNoblePhantasm, UseNoblePhantasm
from grailwar.shared.engine.data import CLASSES, default_ruleset
from grailwar.shared.engine.deduction import candidates
from helpers import act, duel, faces, find, ready_all, tweak

RULES = default_ruleset()


def test_random_summoning_is_by_the_seed_and_reaches_every_servant() -> None:
    """The same seed summons the same Servants; over 60 seeds every Servant of the roster is
    summoned, each class's within 2x of an even share; the Masters and the dice do not move."""
    assert [c.servant.id for c in new_game(seed=5).camps] == [
        c.servant.id for c in new_game(seed=5).camps]
    drawn = Counter(c.servant.id for seed in range(60) for c in new_game(seed=seed).camps)
    for cls in CLASSES:
        entries = RULES.roster[cls]
        for s in entries:
            assert 60 / len(entries) / 2 <= drawn[s.id] <= 60 / len(entries) * 2, (s.id, drawn)
    chosen = new_game(seed=5, servants=[RULES.roster[c][-1].id for c in CLASSES])
    drawn5 = new_game(seed=5)
    assert [c.master for c in chosen.camps] == [c.master for c in drawn5.camps]
    assert chosen.rng == drawn5.rng


def test_chosen_servants_are_played_and_checked() -> None:
    """A named Servant is the camp's sheet (HP, MP, cards, skills, Noble Phantasm); None for
    a seat draws it; a Servant of another class, an unknown id or a list of the wrong length
    is a ValueError that names the problem."""
    s = new_game(seed=1, classes=["saber", "berserker"], servants=["gyebaek", None])
    gyebaek = RULES.by_id["gyebaek"]
    camp = s.camps[0]
    assert (camp.servant, camp.mp, camp.hand) == (gyebaek, gyebaek.mp, gyebaek.cards)
    assert s.camps[1].servant in RULES.roster["berserker"]
    with pytest.raises(ValueError, match="unknown saber Servant 'grettir'; choose from el_cid"):
        new_game(classes=["saber", "berserker"], servants=["grettir", None])
    with pytest.raises(ValueError, match="unknown saber Servant 'nobody'"):
        new_game(classes=["saber", "berserker"], servants=["nobody", None])
    with pytest.raises(ValueError, match="one Servant"):
        new_game(classes=["saber", "berserker"], servants=["el_cid"])


def test_candidates_narrow_with_what_the_seat_learns() -> None:
    """At tier 0 a rival may be any Servant of its class; its Noble Phantasm seen firing
    keeps only those with that card, kind and scale; tier 1 (cards and skills) names it among
    the roster; tier 2 names it outright."""
    s = duel(("saber", "lancer"), servants=["hua_mulan", "benkei"])
    ids = lambda: [x.id for x in candidates(RULES, view_for(s, 0)["camps"][1])]  # noqa: E731
    assert ids() == [x.id for x in RULES.roster["lancer"]]
    camp = s.edit(1)
    camp.np_shown = True
    benkei = RULES.by_id["benkei"]
    same = [x.id for x in RULES.roster["lancer"] if (x.np.card, x.np.kind, x.np.scale) == (
        benkei.np.card, benkei.np.kind, benkei.np.scale)]
    assert ids() == same and "benkei" in same
    s.edit(0).known = (0, 0, 1, 0, 0, 0, 0)
    assert ids() == ["benkei"]
    s.edit(0).known = (0, 0, 2, 0, 0, 0, 0)
    assert ids() == ["benkei"] and view_for(s, 0)["camps"][1]["servant"] == "benkei"


def test_a_fired_noble_phantasm_shows_what_it_was_not_its_name() -> None:
    """Once a Noble Phantasm fires, every seat and the spectator see its card, kind and scale
    in the camp's view (`np_seen`), and not its id without tier 2."""
    rules = tweak(RULES, "saber", np={"charge": 0, "range": 0, "cards": 1, "card": "B"})
    s = duel(("saber", "caster"), rules=rules)
    s, _ = act(s, DeclareNoblePhantasm(0, 1))
    s = ready_all(s)
    assert s.prompt.seats == {0} and "np_seen" not in view_for(s, 1)["camps"][0]
    s, events = act(s, UseNoblePhantasm(0, 1), faces(7))
    np = s.camps[0].servant.np
    assert find(events, "NoblePhantasmFired")
    for viewer in (1, None):
        view = view_for(s, viewer)
        assert view["camps"][0]["np_seen"] == {"card": "B", "kind": np.kind, "scale": np.scale}
        assert "noble_phantasm" not in view["camps"][0] and np.id not in json.dumps(view)


def test_the_true_names_are_told_once_the_game_is_over() -> None:
    """Before the end the spectator sees no Servant id; once the game is over every seat and
    the spectator see every camp to tier 3 (but never another camp's hand or Master)."""
    s = new_game(seed=2, classes=["saber", "lancer"])
    assert "servant" not in view_for(s, None)["camps"][0]
    s.over, s.winner = True, 0
    for viewer in (None, 1):
        cv = view_for(s, viewer)["camps"][0]
        assert cv["servant"] == s.camps[0].servant.id and cv["profile"]
        assert "hand" not in cv and "master" not in cv


def test_simulate_reports_wins_by_servant(capsys: pytest.CaptureFixture[str]) -> None:
    """`simulate --json` counts each Servant's games and wins (random summoning); `--servants`
    names them, and a Servant of the wrong class exits 2 naming it."""
    assert main(["simulate", "--games", "4", "--classes", "saber,lancer", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sum(data["games_by_servant"].values()) == 8
    assert sum(data["wins_by_servant"].values()) == sum(data["wins_by_class"].values())
    assert set(data["games_by_servant"]) <= set(RULES.by_id)
    assert main(["simulate", "--games", "2", "--classes", "saber,lancer", "--servants",
                 "gyebaek,random", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games_by_servant"]["gyebaek"] == 2
    assert main(["simulate", "--games", "1", "--classes", "saber,lancer", "--servants",
                 "benkei,benkei"]) == 2
    assert "unknown saber Servant 'benkei'" in capsys.readouterr().err
