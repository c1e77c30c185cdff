"""Fixtures: one real server per test session, a fresh database per test."""

from __future__ import annotations

import pytest

from labkit import servers


@pytest.fixture(scope="session")
def mongodb_server():
    """One real MongoDB server for the session; the test is skipped, with why, when none exists."""
    why = servers.mongodb_missing()
    if why:
        pytest.skip(why)
    server = servers.get_mongodb()
    yield server
    server.stop()


@pytest.fixture
def fresh_db(mongodb_server):
    """A new ``labkit_`` database on the session's server, dropped after the test."""
    database = mongodb_server.fresh_database("test")
    yield database
    mongodb_server.drop(database.name)


@pytest.fixture(scope="session")
def postgres_server():
    """One real PostgreSQL server for the session (DSN, local binaries or Docker), or a skip."""
    try:
        server = servers.get_postgres()
    except servers.ServerStartError:
        raise
    except servers.ServerUnavailable as exc:
        pytest.skip(f"no PostgreSQL server: {str(exc).splitlines()[0]}")
    yield server
    server.stop()
