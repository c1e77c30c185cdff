"""The server layer: real servers found or started, cleaned up, only our databases touched."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from labkit import claims, servers
from labkit.errors import BadInput, ServerUnavailable


def test_no_mongodb_error_names_all_three_ways(nothing_available):
    """With nothing available the error lists what was tried and how to get each way working."""
    with pytest.raises(ServerUnavailable) as caught:
        servers.get_mongodb()
    message = str(caught.value)
    assert "LABKIT_MONGODB_URI: not set" in message
    assert "local mongod: LABKIT_MONGOD is set to " in message
    assert "no-mongod, which does not exist" in message
    assert "Docker: Docker switched off" in message
    assert message.splitlines()[-1].startswith("Hint:")
    assert "environment.yml" in message


def test_no_postgres_error_names_all_three_ways(nothing_available):
    """The same for PostgreSQL: DSN, local binaries, Docker, and a hint."""
    with pytest.raises(ServerUnavailable) as caught:
        servers.get_postgres()
    message = str(caught.value)
    for way in ("LABKIT_POSTGRES_DSN", "local PostgreSQL", "Docker"):
        assert way in message
    assert "Hint:" in message


def test_unreachable_uri_is_an_error_not_a_fallback(monkeypatch):
    """A URI that does not answer is reported; labkit does not quietly start another server."""
    port = servers.free_port()
    monkeypatch.setenv("LABKIT_MONGODB_URI",
                       f"mongodb://127.0.0.1:{port}/?serverSelectionTimeoutMS=300")
    with pytest.raises(ServerUnavailable, match="did not answer"):
        servers.get_mongodb()


@pytest.mark.parametrize("version", ["latest", "eight", "8.0-rc", ""])
def test_versions_must_be_pinned(version):
    """Tags such as ``latest`` are refused: results must name an exact server."""
    with pytest.raises(BadInput):
        servers.get_mongodb("docker", version)


def test_unknown_mode_is_bad_input():
    """Only auto, uri, local and docker are modes."""
    with pytest.raises(BadInput, match="auto, uri, local, docker"):
        servers.get_mongodb("cloud")


def test_redact_hides_passwords():
    """Passwords never reach the terminal or the report."""
    assert servers.redact("mongodb://test:s3cret@localhost:1/") == "mongodb://test:***@localhost:1/"
    assert servers.redact("postgresql://u@h/db") == "postgresql://u@h/db"


def test_client_uses_standard_uuids_and_aware_dates():
    """Every client labkit builds encodes UUIDs the standard way and returns aware datetimes."""
    from bson.binary import UuidRepresentation

    client = servers.mongo_client("mongodb://127.0.0.1:1/", connect=False)
    options = client.codec_options
    assert options.uuid_representation == UuidRepresentation.STANDARD
    assert options.tz_aware is True
    client.close()


@pytest.mark.postgres
def test_postgres_fresh_database_is_created_and_dropped(postgres_server):
    """A fresh database is usable, named with the prefix, and gone after ``drop_created``."""
    dsn = postgres_server.fresh_database("Smoke Test")
    with postgres_server.connect(dsn) as conn:
        name = conn.execute("SELECT current_database()").fetchone()[0]
    assert name.startswith("labkit_smoke_test_")
    postgres_server.drop_created()
    with postgres_server.connect() as conn:
        assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s",
                            (name,)).fetchone()[0] == 0


@pytest.mark.postgres
def test_postgres_leaves_other_databases_alone(postgres_server):
    """Dropping labkit's databases never touches a database labkit did not create."""
    with postgres_server.connect() as conn:
        conn.execute("DROP DATABASE IF EXISTS users_own_db")
        conn.execute("CREATE DATABASE users_own_db")
    try:
        postgres_server.fresh_database("x")
        postgres_server.drop_created()
        with postgres_server.connect() as conn:
            assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = "
                                "'users_own_db'").fetchone()[0] == 1
    finally:
        with postgres_server.connect() as conn:
            conn.execute("DROP DATABASE IF EXISTS users_own_db")


def _local_postgres_or_skip() -> str:
    bindir = servers.find_postgres_bin()
    if bindir is None:
        pytest.skip("no local PostgreSQL binaries (initdb, pg_ctl) on this machine")
    return bindir


@pytest.mark.postgres
def test_local_postgres_starts_and_stops_cleanly():
    """labkit starts its own PostgreSQL from local binaries and removes every file on stop."""
    _local_postgres_or_skip()
    with servers.get_postgres("local") as server:
        assert server.how == "local"
        workdir = server.workdir
        assert (workdir / "data" / "postmaster.pid").exists()
        with server.connect() as conn:
            assert conn.execute("SELECT 1").fetchone()[0] == 1
    assert not workdir.exists()


@pytest.mark.postgres
@pytest.mark.slow
def test_killed_owner_still_gets_its_server_stopped_and_removed(monkeypatch):
    """When the process that started a server is killed (a kernel restart), a watcher cleans up."""
    _local_postgres_or_skip()
    script = textwrap.dedent("""
        import sys, time
        from labkit import servers
        server = servers.get_postgres("local")
        print(server.dsn, server.workdir, flush=True)
        time.sleep(600)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    dsn, workdir = child.stdout.readline().split()
    assert Path(workdir, "data", "postmaster.pid").exists()
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    deadline = time.monotonic() + 30
    while Path(workdir).exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not Path(workdir).exists()
    monkeypatch.setenv("LABKIT_POSTGRES_DSN", dsn)
    with pytest.raises(ServerUnavailable, match="did not answer"):
        servers.get_postgres("dsn")


@pytest.mark.mongodb
def test_fresh_database_per_experiment(mongodb_server):
    """Each fresh database has the prefix and a new name; dropping it leaves the others."""
    first = mongodb_server.fresh_database("a")
    second = mongodb_server.fresh_database("a")
    assert first.name != second.name
    assert first.name.startswith("labkit_a_")
    first.t.insert_one({"x": 1})
    second.t.insert_one({"x": 1})
    mongodb_server.drop(first.name)
    names = mongodb_server.client().list_database_names()
    assert first.name not in names and second.name in names
    mongodb_server.drop(second.name)


@pytest.mark.mongodb
def test_full_run_leaves_the_users_databases_alone(mongodb_server, monkeypatch, tmp_path):
    """On a user's server (by URI), a full run creates and drops only labkit_ databases."""
    client = mongodb_server.client()
    users = client["users_own_db"]
    users.keep.insert_one({"precious": True})
    monkeypatch.setenv("LABKIT_MONGODB_URI", mongodb_server.uri)
    before = set(client.list_database_names())
    try:
        with claims.Context("uri") as ctx:
            ctx.btree_n = 20_000
            claims.run(claims.registered(), ctx)
        after = set(client.list_database_names())
        assert users.keep.find_one({"precious": True}) is not None
        assert before == after
    finally:
        client.drop_database("users_own_db")


def test_a_mongod_that_will_not_start_is_reported_with_its_log(tmp_path, monkeypatch):
    """A local mongod that dies at start gives what was run, its log's last lines, and a hint.

    The binary here is a stand-in that fails on purpose: the test is about labkit's
    error report, and no MongoDB result comes from it.
    """
    broken = tmp_path / "mongod"
    broken.write_text(textwrap.dedent("""\
        #!/bin/sh
        if [ "$1" = "--version" ]; then echo "db version v7.0.99"; exit 0; fi
        while [ $# -gt 0 ]; do
          if [ "$1" = "--logpath" ]; then echo "exception in initAndListen: disk on fire" > "$2"; fi
          shift
        done
        exit 48
        """))
    broken.chmod(0o755)
    monkeypatch.setenv("LABKIT_MONGOD", str(broken))
    with pytest.raises(servers.ServerStartError) as caught:
        servers.get_mongodb("local")
    message = str(caught.value)
    assert "did not answer" in message
    assert "Last lines of its log:\nexception in initAndListen: disk on fire" in message
    assert message.splitlines()[-1].startswith("Hint:")
    assert not list(Path("/tmp").glob("labkit-mongod-*/db"))  # its files are removed
