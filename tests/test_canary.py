"""The canary check on a user's PostgreSQL can fail: a changed row, a dropped database or a
new unmarked one each change the fingerprint; labkit's own marked databases do not."""

from __future__ import annotations

import canary
import pytest

from labkit import servers


@pytest.mark.postgres
def test_the_fingerprint_sees_every_change_labkit_must_not_make(postgres_server):
    """Changing a canary row, or adding an unmarked database, changes the fingerprint; a
    database labkit marked (a run's fresh database) does not."""
    name = canary.plant(postgres_server)
    try:
        before = canary.fingerprint(postgres_server, name)
        own = servers.PostgresServer(dsn=postgres_server.dsn, how="dsn", version="?")
        own.fresh_database("canary_check")
        assert canary.fingerprint(postgres_server, name) == before
        own.stop()
        with postgres_server.connect(canary._in(postgres_server, name)) as conn:
            conn.execute("UPDATE precious SET note = 'changed' WHERE id = 7")
        assert canary.fingerprint(postgres_server, name) != before
    finally:
        canary.remove(postgres_server, name)


@pytest.mark.postgres
def test_the_suite_planted_its_canary_on_a_dsn_server(postgres_canary, postgres_server):
    """With LABKIT_POSTGRES_DSN set, the session's canary exists now and is checked at the end."""
    if postgres_canary is None:
        pytest.skip("LABKIT_POSTGRES_DSN is not set: there is no user's server to guard")
    with postgres_server.connect() as conn:
        assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s",
                            (postgres_canary,)).fetchone()[0] == 1
