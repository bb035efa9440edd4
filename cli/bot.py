"""`grailwar bot --connect HOST:PORT --room NAME`: a network bot that joins a room and plays."""

from __future__ import annotations

import argparse
from typing import Any

from ..shared.protocol import DEFAULT_PORT, LEVELS
from .client import add_tls_arguments, tls_pin


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bot", help="join a room on a server as a bot player")
    p.add_argument("--connect", required=True, help="HOST[:PORT]")
    p.add_argument("--room", required=True, help="room name or id")
    p.add_argument("--level", default="normal", choices=LEVELS)
    p.add_argument("--name", default="bot")
    p.add_argument("--seed", type=int, default=0)
    add_tls_arguments(p)
    p.set_defaults(run=run)


def split_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":") if ":" in text else (text, "", str(DEFAULT_PORT))
    return host, int(port)


def describe_refusal(refusal: Any, server: str) -> str:
    if refusal.kind == "changed":
        return (f"REFUSED: the certificate of {server} is not the pinned one "
                f"(pinned {refusal.pinned}, got {refusal.seen})")
    return (f"REFUSED: the certificate of {server} is not trusted by this system "
            f"(SHA-256 {refusal.seen}; pass --trust-fingerprint to accept it)")


def run(args: argparse.Namespace) -> int:
    from twisted.internet import reactor
    from twisted.internet.protocol import ClientFactory

    from ..client.botclient import BotPlayer

    host, port = split_address(args.connect)
    pin = tls_pin(args)
    if pin is None:
        return 2
    room = int(args.room) if args.room.isdigit() else args.room
    player = BotPlayer(room, args.level, args.seed)
    trust: Any = None
    if args.tls or pin:
        from ..client.tls import ServerTrust

        trust = ServerTrust(host, pin or None)  # no pin file: a bot trusts what it is told
    refused: list[str] = []

    class Factory(ClientFactory):
        def buildProtocol(self, addr):
            return player.connection(args.name, reactor)

        def clientConnectionLost(self, connector, reason):
            if trust is not None and trust.refusal is not None:
                refused.append(describe_refusal(trust.refusal, f"{host}:{port}"))
            reactor.stop()

        def clientConnectionFailed(self, connector, reason):
            print(f"cannot connect to {host}:{port}: {reason.getErrorMessage()}")
            reactor.stop()

    if trust is None:
        reactor.connectTCP(host, port, Factory())
    else:
        reactor.connectSSL(host, port, Factory(), trust)
    reactor.run()
    if refused:
        print(refused[0])
        return 1
    for err in player.errors:
        print(f"server error {err['code']}: {err['message']}")
    return 0 if player.over or not player.errors else 1
