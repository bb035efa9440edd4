"""`grailwar bot --connect HOST:PORT --room NAME`: a network bot that joins a room and plays."""

from __future__ import annotations

import argparse

from ..server.app import DEFAULT_PORT


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bot", help="join a room on a server as a bot player")
    p.add_argument("--connect", required=True, help="HOST[:PORT]")
    p.add_argument("--room", required=True, help="room name or id")
    p.add_argument("--level", default="heuristic")
    p.add_argument("--name", default="bot")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(run=run)


def split_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":") if ":" in text else (text, "", str(DEFAULT_PORT))
    return host, int(port)


def run(args: argparse.Namespace) -> int:
    from twisted.internet import reactor
    from twisted.internet.protocol import ClientFactory

    from ..client.botclient import BotPlayer

    host, port = split_address(args.connect)
    room = int(args.room) if args.room.isdigit() else args.room
    player = BotPlayer(room, args.level, args.seed)

    class Factory(ClientFactory):
        def buildProtocol(self, addr):
            return player.connection(args.name, reactor)

        def clientConnectionLost(self, connector, reason):
            reactor.stop()

        def clientConnectionFailed(self, connector, reason):
            print(f"cannot connect to {host}:{port}: {reason.getErrorMessage()}")
            reactor.stop()

    reactor.connectTCP(host, port, Factory())
    reactor.run()
    for err in player.errors:
        print(f"server error {err['code']}: {err['message']}")
    return 0 if player.over or not player.errors else 1
