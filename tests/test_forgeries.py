"""Issue 18's forgeries against labkit's own PostgreSQL: a bare ``labkit:`` comment, another
role's database carrying a mark that verifies, a real mark copied onto another name. Each holds
a table of data and survives ``clean_stale``, ``labkit clean`` and a run's first clean-up,
while a killed run's real database beside them is removed ("Nothing dropped that labkit did
not make")."""

from __future__ import annotations

import datetime as dt
import json
import os
import time

import canary
import pytest

from conftest import skip_unless_required
from labkit import cli, servers


@pytest.fixture(scope="module")
def own_postgres():
    """A PostgreSQL of labkit's own for this module (local binaries), whatever the DSN says."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("LABKIT_POSTGRES_DSN", raising=False)
        try:
            server = servers.get_postgres("local")
        except servers.ServerStartError:
            raise
        except servers.ServerUnavailable as exc:
            skip_unless_required("postgres", f"no local PostgreSQL: {exc.summary()}")
    yield server
    server.stop()


@pytest.fixture
def planted(own_postgres):
    """A canary and its three forgeries on labkit's own PostgreSQL, removed after the test."""
    name = canary.plant(own_postgres)
    yield name
    canary.remove(own_postgres, name)


def _killed_run(server: servers.PostgresServer) -> str:
    """A real database of a run that died: created and marked, its lease (made to last 0.3 s)
    no longer renewed and run out."""
    terms = servers.LeaseTerms(every=dt.timedelta(seconds=0.1), lasts=dt.timedelta(seconds=0.3))
    dead = servers.PostgresServer(dsn=server.dsn, how="dsn", version="?", lease=terms)
    name = canary._name_of(dead.fresh_database("killed"))
    dead._created.clear()  # the process is gone: nothing will drop it
    dead.stop()  # its renewals stop, as a killed process's do
    time.sleep(0.4)
    return name


def _names(server: servers.PostgresServer) -> set[str]:
    with server.connect() as conn:
        return {row[0] for row in conn.execute("SELECT datname FROM pg_database")}


@pytest.mark.postgres
def test_every_forgery_is_planted_with_data(own_postgres, planted):
    """All three forgeries exist on labkit's own PostgreSQL (its role is a superuser, so the
    other role can be made), each with its table of 200 rows."""
    forged = canary.forgeries(own_postgres, planted)
    assert forged == sorted(planted + end for end in (canary.BARE, canary.COPY, canary.ROLE))
    tables = canary.fingerprint(own_postgres, planted)["tables"]
    for name in forged:
        assert tables[f"{name}.precious"][1] == len(canary.ROWS)


@pytest.mark.postgres
def test_why_each_forgery_is_not_provably_labkits(own_postgres, planted):
    """The bare comment and the copied mark do not verify for their names; the other role's
    mark does verify (the strongest forgery: as if copied from labkit) and its owner stops it."""
    found = servers.PostgresServer(dsn=own_postgres.dsn, how="dsn", version="?").clean_stale()
    assert "not made for this name" in str(found.unproven[planted + canary.BARE])
    assert "not made for this name" in str(found.unproven[planted + canary.COPY])
    assert str(found.unproven[planted + canary.ROLE]).startswith(
        f"owned by role {planted + canary.ROLE}, not by this one")
    with own_postgres.connect() as conn:
        comment = conn.execute("SELECT shobj_description(oid, 'pg_database') FROM pg_database "
                               "WHERE datname = %s", (planted + canary.ROLE,)).fetchone()[0]
    assert servers.mark_verifies(planted + canary.ROLE, comment)


@pytest.mark.postgres
def test_clean_stale_drops_a_killed_runs_database_and_no_forgery(own_postgres, planted):
    """``clean_stale`` removes the killed run's real database, keeps a live run's, and leaves
    every forgery and the canary with their data byte for byte."""
    before = canary.fingerprint(own_postgres, planted)
    live = servers.PostgresServer(dsn=own_postgres.dsn, how="dsn", version="?")
    try:
        held = canary._name_of(live.fresh_database("live"))  # its own first clean-up runs here
        killed = _killed_run(own_postgres)
        found = servers.PostgresServer(dsn=own_postgres.dsn, how="dsn",
                                       version="?").clean_stale()
        assert killed in found.removed
        assert held in found.in_use
        assert set(canary.forgeries(own_postgres, planted)) <= set(found.unproven)
        names = _names(own_postgres)
        assert killed not in names
        assert held in names
        assert canary.fingerprint(own_postgres, planted) == before
    finally:
        live.stop()


@pytest.mark.postgres
def test_labkit_clean_leaves_every_forgery_and_says_why(own_postgres, planted, capsys,
                                                       monkeypatch):
    """``labkit clean`` and ``labkit clean --json`` on the DSN's server: the killed run's
    database is removed, each forgery is listed as left with why, and nothing planted changed
    (issue 18: two such databases were dropped by ``labkit clean``)."""
    monkeypatch.setenv("LABKIT_POSTGRES_DSN", own_postgres.dsn)
    monkeypatch.delenv("LABKIT_MONGODB_URI", raising=False)
    before = canary.fingerprint(own_postgres, planted)
    killed = _killed_run(own_postgres)
    assert cli.main(["clean"]) == 0
    out = capsys.readouterr().out
    assert f"removed 1 stale labkit database(s): {killed}" in out
    assert "that labkit cannot prove it made" in out
    assert str(servers.secret_path()) in out
    for forged in canary.forgeries(own_postgres, planted):
        assert f"  {forged}: " in out
    assert killed not in _names(own_postgres)
    assert cli.main(["clean", "--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert report["removed"] == []
    assert set(canary.forgeries(own_postgres, planted)) <= set(report["unproven"])
    assert canary.fingerprint(own_postgres, planted) == before


@pytest.mark.postgres
def test_a_runs_first_clean_up_leaves_every_forgery(own_postgres, planted):
    """A run's first fresh database cleans up first (as the suite's fixtures do): it removes
    the killed run's database and no forgery (issue 18: dropped "again by the test suite")."""
    before = canary.fingerprint(own_postgres, planted)
    killed = _killed_run(own_postgres)
    run = servers.PostgresServer(dsn=own_postgres.dsn, how="dsn", version="?")
    try:
        run.fresh_database("first")
        assert killed in run.cleaned.removed
        assert set(canary.forgeries(own_postgres, planted)) <= set(run.cleaned.unproven)
    finally:
        run.stop()
    assert canary.fingerprint(own_postgres, planted) == before


@pytest.mark.postgres
def test_databases_marked_before_the_secret_was_deleted_are_left_and_said(
        own_postgres, tmp_path, monkeypatch, capsys):
    """Deleting the secret: a killed run's database marked with it can no longer be proven
    labkit's, so ``labkit clean`` leaves it, with its data, and says there is no secret."""
    monkeypatch.setenv(servers.CONFIG_VARIABLE, str(tmp_path / "config"))
    monkeypatch.setenv("LABKIT_POSTGRES_DSN", own_postgres.dsn)
    monkeypatch.delenv("LABKIT_MONGODB_URI", raising=False)
    killed = _killed_run(own_postgres)
    try:
        with own_postgres.connect(canary._in(own_postgres, killed)) as conn:
            conn.execute("CREATE TABLE kept AS SELECT generate_series(1, 100) AS id")
        servers.secret_path().unlink()
        assert cli.main(["clean"]) == 0
        out = capsys.readouterr().out
        assert f"  {killed}: there is no secret at {servers.secret_path()}" in out
        assert "removed 0 stale labkit database(s)." in out
        with own_postgres.connect(canary._in(own_postgres, killed)) as conn:
            assert conn.execute("SELECT count(*) FROM kept").fetchone()[0] == 100
    finally:
        with own_postgres.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{killed}" WITH (FORCE)')


@pytest.mark.postgres
def test_a_database_made_under_another_role_is_not_that_roles_to_clean(own_postgres):
    """A killed run's real database, cleaned by another role (here, one that may create
    databases but owns none of labkit's): left, as another role's, even though its mark
    verifies."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    killed = _killed_run(own_postgres)
    role = f"{killed}_cleaner"
    with own_postgres.connect() as conn:
        conn.execute(f"CREATE ROLE \"{role}\" LOGIN CREATEDB PASSWORD 'cleaner-pw-123'")
    dsn = make_conninfo(**{**conninfo_to_dict(own_postgres.dsn), "user": role,
                           "password": "cleaner-pw-123"})
    try:
        found = servers.from_dsn(dsn).clean_stale()
        assert found.removed == []
        assert str(found.unproven[killed]).startswith("owned by role labkit, not by this one")
        assert killed in _names(own_postgres)
    finally:
        with own_postgres.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{killed}" WITH (FORCE)')
            conn.execute(f'DROP ROLE IF EXISTS "{role}"')


@pytest.mark.postgres
@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_a_secret_others_may_read_stops_labkit_clean_before_any_drop(
        own_postgres, tmp_path, monkeypatch, capsys):
    """A secret others may read proves nothing: ``labkit clean`` says so in an ``Error:`` line
    with a hint, exits 1, and drops nothing, not even a killed run's real database."""
    monkeypatch.setenv(servers.CONFIG_VARIABLE, str(tmp_path / "config"))
    monkeypatch.setenv("LABKIT_POSTGRES_DSN", own_postgres.dsn)
    monkeypatch.delenv("LABKIT_MONGODB_URI", raising=False)
    killed = _killed_run(own_postgres)
    try:
        servers.secret_path().chmod(0o644)
        assert cli.main(["clean"]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"Error: labkit's secret at {servers.secret_path()} may be read")
        assert f"Hint: chmod 600 {servers.secret_path()}" in err
        assert killed in _names(own_postgres)
    finally:
        with own_postgres.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{killed}" WITH (FORCE)')
