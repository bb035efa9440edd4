"""The roster on screen (issue 9): the dossier's candidates as a deduction aid, the summoning
option of a new room, the Servant choice of a `choose` room, all from server messages."""

from __future__ import annotations

from typing import Any

import pytest
from grailwar.shared.engine import new_game
from grailwar.shared.engine.data import CLASSES
from test_model import state_msg
from test_screens import join, render


def labels(app: Any) -> list[str]:
    return [label for label, _x, _y in app.current.base.labels]


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_the_dossier_shows_each_rivals_candidates(app: Any, lang: str) -> None:
    """Archer's Noble Phantasm was seen firing (two candidates left, and what was seen),
    Lancer is known to tier 1 (deduced), Rider to tier 2 (its true name), Caster to none
    (its whole roster): each row says so in the client's language."""
    app.set_lang(lang)
    tr = app.tr
    join(app, 0)
    state = new_game(seed=2, classes=list(CLASSES),
                     servants=["el_cid", "jumong", "benkei", "rostam", None, None, None])
    state.edit(1).np_shown = True
    state.edit(0).known = (0, 0, 1, 2, 0, 0, 0)
    app.model.handle(state_msg(state, 0))
    render(app, "dossier")
    shown = labels(app)
    assert tr("dossier.candidates", n=2, total=3) in shown
    assert " · ".join((tr.short_name("jumong"), tr.short_name("odysseus"))) in shown
    assert tr("dossier.np_seen", what=tr.np_signature("Q", "attack", "anti_army")) in shown
    assert tr("dossier.deduced") in shown and tr.true_name("benkei") in shown
    assert tr.true_name("rostam") in shown
    assert " · ".join(tr.short_name(s.id) for s in tr.rules.roster["caster"]) in shown
    help_text = app.current.region_by_id("candidates:archer").help
    assert tr.true_name("odysseus") in help_text and tr.true_name("tawara_toda") not in help_text
    assert app.current.region_by_id("candidates:rider") is None, "known: no candidates"
