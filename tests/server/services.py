"""The real PostgreSQL and Redis the cluster tests talk to (loopback, the machine's own).

`GRAILWAR_TEST_PG` / `GRAILWAR_TEST_REDIS` name them (defaults: the local services; for
PostgreSQL its `postgres` database, which every server has, only to create the tests' own).
Each test gets a database of its own, created for it and dropped after it. Without a service
the tests that need it are skipped with the reason, except under CI=true, where a missing
service is a failure: CI never passes by skipping them."""

from __future__ import annotations

import importlib
import os
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

PG = os.environ.get("GRAILWAR_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS = os.environ.get("GRAILWAR_TEST_REDIS", "redis://127.0.0.1:6379/0")


def missing(service: str, why: str) -> None:
    """Skip, or under CI fail, naming the service and how to start it."""
    text = f"{service} is not reachable ({why}); .ci/run starts it"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{text}: under CI the cluster tests must run, not skip")
    pytest.skip(text, allow_module_level=True)


def need(module: str) -> Any:
    """Import a driver the cluster tests need (the `cluster` extra), or skip/fail as above."""
    try:
        return importlib.import_module(module)
    except ImportError:
        missing(module, "pip install -e '.[cluster]'")


def pg_database() -> Iterator[str]:
    """A new, empty PostgreSQL database's URL; dropped afterwards."""
    psycopg = need("psycopg")
    try:
        admin = psycopg.connect(PG, autocommit=True, connect_timeout=3)
    except psycopg.Error as err:
        missing("PostgreSQL at " + PG, str(err).strip())
    name = f"grailwar_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin.execute(f"CREATE DATABASE {name}")
    try:
        yield urlsplit(PG)._replace(path=f"/{name}").geturl()
    finally:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()


def redis_url() -> str:
    """The test Redis, checked reachable; each test keeps its keys under a prefix of its own."""
    redis = need("redis")
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=3).ping()
    except redis.RedisError as err:
        missing("Redis at " + REDIS, str(err))
    return REDIS
