"""A room's seats and the people in them: who a member is to the room (`Member`), what a seat
holds (`Seat`), and how room passwords and seat tokens are kept (hashed, never in the clear).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any, Protocol

from twisted.internet.interfaces import IDelayedCall

from .store import SeatRow

GRACE = 90.0  # seconds a disconnected player keeps its seat before a bot plays it


class Member(Protocol):
    name: str
    features: frozenset[str]  # what its hello asked for (protocol.FEATURES)

    def send(self, msg: dict[str, Any]) -> None: ...

    def cork(self) -> None:
        """Hold what is sent until `uncork` (a broadcast's messages to one member)."""

    def uncork(self) -> None:
        """Send what `cork` held, in order."""

    def left(self, reason: str) -> None:
        """The room let this member go on its own (kicked, seat resumed elsewhere): the member
        forgets the room and is told with a `left` message."""


def hash_secret(secret: str, salt: bytes | None = None) -> str:
    """A salted scrypt hash of a room password, stored as salt$hash."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=2**12, r=8, p=1, dklen=32)
    return salt.hex() + "$" + digest.hex()


def check_secret(secret: str, stored: str) -> bool:
    salt, _ = stored.split("$", 1)
    return hmac.compare_digest(hash_secret(secret, bytes.fromhex(salt)), stored)


def hash_token(token: str) -> str:
    """A seat token is 192 random bits, so a plain SHA-256 suffices (and costs microseconds
    where scrypt would cost ~20 ms per seat on every resume attempt)."""
    return "sha256$" + hashlib.sha256(token.encode()).hexdigest()


def check_token(token: str, stored: str) -> bool:
    return hmac.compare_digest(hash_token(token), stored)


@dataclass
class Seat:
    """One seat of the room: open, a human player, or a bot."""

    index: int
    cls: str | None = None
    kind: str = "open"  # open, human, bot
    name: str = ""
    token: str | None = None  # hashed
    level: str = "normal"
    member: Member | None = None
    away: IDelayedCall | None = None  # the grace-period timer of a disconnected player
    takeover: bool = False  # a bot plays this human seat while its player is away
    ready: bool = False  # the player said it is ready to start (before the start only)
    servant: str | None = None  # its own choice (`choose` summoning), then the one summoned

    def row(self) -> SeatRow:
        return SeatRow(self.index, self.cls, self.kind, self.name, self.token, self.level,
                       self.servant)

    @property
    def bot_plays(self) -> bool:
        return self.kind == "bot" or self.takeover
