"""What the client shows of the server's operator: the message of the day on the lobby (from
`welcome`), and a room the operator closed (its `left` reason explained, its seat forgotten)."""

from __future__ import annotations

from typing import Any

from grailwar.shared.protocol import CLOSED_BY_OPERATOR
from test_screens import join, render
from test_seats import keeper_in

MOTD = "今夜22時から10分間メンテナンスします"


def lobby_labels(app: Any) -> list[str]:
    render(app, "lobby")
    return [label for label, _x, _y in app.current.base.labels]


def test_the_lobby_shows_the_message_of_the_day_under_the_server(app: Any) -> None:
    app.model.handle({"t": "welcome", "version": 2, "server": "grailwar", "motd": MOTD})
    assert app.tr("admin.motd", text=MOTD) in lobby_labels(app)


def test_a_server_without_a_message_of_the_day_shows_none(app: Any) -> None:
    app.model.handle({"t": "welcome", "version": 2, "server": "grailwar", "motd": MOTD})
    app.model.handle({"t": "welcome", "version": 2, "server": "grailwar"})  # reconnected
    assert not any(MOTD in label for label in lobby_labels(app))


def test_a_room_closed_by_the_operator_is_explained_and_left(app: Any) -> None:
    join(app)
    app.model.handle({"t": "left", "reason": CLOSED_BY_OPERATOR}, now=5.0)
    assert app.model.room_id is None
    assert app.model.current_notice(5.0).text == app.tr("admin.left_closed")


def test_a_seat_in_a_room_closed_by_the_operator_is_forgotten() -> None:
    keeper, _ = keeper_in()
    keeper.take({"t": "left", "reason": CLOSED_BY_OPERATOR})
    assert keeper.held() == []
