"""The canary check on a user's PostgreSQL can fail: a changed row, a dropped database or a
new unmarked one each change the fingerprint; labkit's own marked databases do not. Beside
the canary stand issue 18's forgeries, which a clean-up must leave as they are."""

from __future__ import annotations

import threading
import uuid

import canary
import pytest
from psycopg import sql

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


@pytest.mark.postgres
@pytest.mark.parametrize("end", [canary.BARE, canary.COPY, canary.ROLE])
def test_the_fingerprint_sees_a_forgery_dropped_or_changed(postgres_server, end):
    """Each forgery is in the fingerprint (issue 18: the suite must not drop them): a row of it
    changed, or it dropped, changes the fingerprint."""
    name = canary.plant(postgres_server)
    try:
        forged = name + end
        if forged not in canary.forgeries(postgres_server, name):
            pytest.skip("the DSN's role may not create roles: no other role's database")
        before = canary.fingerprint(postgres_server, name)
        with postgres_server.connect(canary._in(postgres_server, forged)) as conn:
            conn.execute("UPDATE precious SET note = 'changed' WHERE id = 7")
        changed = canary.fingerprint(postgres_server, name)
        assert changed != before
        with postgres_server.connect() as conn:
            conn.execute(f'DROP DATABASE "{forged}" WITH (FORCE)')
        dropped = canary.fingerprint(postgres_server, name)
        assert dropped != changed
        assert forged not in [row[0] for row in dropped["databases"]]
    finally:
        canary.remove(postgres_server, name)


@pytest.mark.postgres
def test_a_clean_up_leaves_the_canary_and_its_forgeries_as_they_are(postgres_server):
    """``clean_stale`` on the session's server changes nothing planted (issue 18: forgeries
    were dropped by the suite's clean-ups)."""
    name = canary.plant(postgres_server)
    try:
        before = canary.fingerprint(postgres_server, name)
        found = servers.PostgresServer(dsn=postgres_server.dsn, how="dsn",
                                       version="?").clean_stale()
        assert not set(canary.forgeries(postgres_server, name)) & set(found.removed)
        assert canary.fingerprint(postgres_server, name) == before
    finally:
        canary.remove(postgres_server, name)


@pytest.mark.postgres
def test_a_database_being_marked_is_read_once_marked_and_one_left_unmarked_counts(
        postgres_server, monkeypatch):
    """labkit marks a database it makes by a second statement, so another test's run may show
    one unmarked for a moment (a clean-clone run with five workers failed on one): the
    fingerprint waits for its mark. A database of labkit's shape still unmarked once the wait
    is over counts like any other."""
    name = canary.plant(postgres_server)
    being_made = f"labkit_btree_uuid7_{uuid.uuid4().hex[:8]}"
    try:
        before = canary.fingerprint(postgres_server, name)
        with postgres_server.connect() as conn:
            conn.execute(f'CREATE DATABASE "{being_made}"')

        def mark() -> None:
            with postgres_server.connect() as conn:
                conn.execute(sql.SQL("COMMENT ON DATABASE {} IS {}").format(
                    sql.Identifier(being_made), sql.Literal(servers.mark_for(being_made))))

        marking = threading.Timer(0.3, mark)
        marking.start()
        try:
            assert canary.fingerprint(postgres_server, name) == before
        finally:
            marking.join()
        with postgres_server.connect() as conn:
            conn.execute(f"COMMENT ON DATABASE \"{being_made}\" IS NULL")
        monkeypatch.setattr(canary, "_BEING_MADE", 0.2)
        left = canary.fingerprint(postgres_server, name)
        assert being_made in [row[0] for row in left["databases"]]
    finally:
        with postgres_server.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{being_made}" WITH (FORCE)')
        canary.remove(postgres_server, name)
