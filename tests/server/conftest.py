"""Fixtures of the server tests: the real services (services.py) and a store of each kind."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from services import pg_database


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this test."""
    yield from pg_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The same test on the SQLite store and on the PostgreSQL store (results settled by hand:
    `settle(store)`)."""
    if request.param == "sqlite":
        from grailwar.server.store import Store

        store: Any = Store()
        yield store
        store.close()
        return
    from grailwar.server.pgstore import PgStore

    for url in pg_database():
        store = PgStore(url)
        yield store
        store.close()
