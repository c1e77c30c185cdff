"""Finding and starting PostgreSQL, `labkit.servers.postgres`: the ways tried, fresh databases
made and dropped by labkit alone, and labkit's own server: locked down, removed when its owner
dies, robust to where it runs and to a port taken under it, and what a run does when it cannot
use it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from helpers import POSIX_ONLY, kill, others_database_name, wait_until

from labkit import servers
from labkit.errors import ServerStartError, ServerUnavailable
from labkit.experiments import catalogue as claims
from labkit.run import runner
from labkit.servers import postgres, process


def test_no_postgres_error_names_all_three_ways(nothing_available):
    """The same for PostgreSQL: DSN, local binaries, Docker, and a hint."""
    with pytest.raises(ServerUnavailable) as caught:
        servers.get_postgres()
    message = str(caught.value)
    for way in ("LABKIT_POSTGRES_DSN", "local PostgreSQL", "Docker"):
        assert way in message
    assert "Hint:" in message


def test_labkit_imports_where_there_is_no_pwd_module():
    """``import labkit`` and its server layer work without ``pwd`` (Windows has none)."""
    code = ("import sys; sys.modules['pwd'] = None\n"
            "import labkit, labkit.servers, labkit.servers.reaper, labkit.cli, labkit.run.doctor\n"
            "print('imported')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.strip() == "imported", result.stderr


def test_no_geteuid_means_no_user_switch(monkeypatch):
    """Where ``os.geteuid`` does not exist (Windows), PostgreSQL runs as the current user."""
    monkeypatch.delattr(os, "geteuid", raising=False)
    assert postgres.run_as() == ([], None)


@POSIX_ONLY
def test_as_root_runuser_is_found_off_path_or_its_absence_said(monkeypatch, tmp_path):
    """As root, PostgreSQL runs through runuser, which a root shell's PATH may lack (``env -i``
    keeps only /usr/bin:/bin; util-linux puts runuser in /usr/sbin): it is taken from the
    system folders by its full path, and where it is in none, the error says so (it was
    ``[Errno 2] No such file or directory: 'runuser'``)."""
    import pwd

    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(pwd, "getpwnam", lambda name: pwd.struct_passwd(
        (name, "x", 12345, 12346, "", "/", "/bin/false")))
    empty, system = tmp_path / "empty", tmp_path / "sbin"
    empty.mkdir()
    system.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(postgres, "_SYSTEM_BIN", (str(system), str(tmp_path / "bin")))
    with pytest.raises(ServerStartError) as caught:
        postgres.run_as()
    assert str(caught.value).startswith("PostgreSQL will not run as root, and runuser")
    assert f"nor in {system}, {tmp_path / 'bin'}." in str(caught.value)
    assert str(caught.value.hint).startswith("Hint: put the folder that holds runuser")
    runuser = system / "runuser"
    runuser.write_text("#!/bin/sh\n")
    runuser.chmod(0o755)
    assert postgres.run_as() == ([str(runuser), "-u", "postgres", "--"], (12345, 12346))


def test_a_docker_postgresql_of_labkits_own_gets_the_same_settings_as_a_local_one(monkeypatch):
    """labkit's own PostgreSQL in Docker starts with the settings of its local one (shared
    buffers from the cache asked for, checkpoints only when labkit asks), as ``-c name=value``
    to the image's ``postgres`` (the official image's documented way). Docker is not run here:
    the container's start is stopped where it would reach the daemon."""
    import testcontainers.community.postgres as tc_postgres

    from labkit.servers import postgres

    seen = {}

    class Container:  # stands in for testcontainers' class only up to the daemon
        def __init__(self, image, driver=None, **credentials):
            seen["image"], seen["credentials"] = image, credentials

        def with_command(self, command):
            seen["command"] = command
            return self

        def start(self):
            raise RuntimeError("no Docker in this test")

        def stop(self):
            pass

    monkeypatch.setattr(tc_postgres, "PostgresContainer", Container)
    monkeypatch.setattr(postgres.base, "container_logs", lambda container: "")
    with pytest.raises(servers.ServerStartError):
        postgres._start_docker_postgres("16", cache_gb=8 / 1024)
    command = seen["command"]
    assert command[0] == "postgres"
    pairs = dict(arg.split("=", 1) for arg in command[2::2])
    assert command[1::2] == ["-c"] * len(pairs)
    assert pairs == postgres.own_settings(8)
    assert pairs["shared_buffers"] == "8192kB"
    assert pairs["checkpoint_timeout"] == "1d"
    # not testcontainers' "test", which labkit would hide wherever the word shows (issue 44)
    assert seen["credentials"]["username"] == "labkit"
    assert len(seen["credentials"]["password"]) >= 24


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
    """Dropping labkit's databases never touches a database this object did not create."""
    other = others_database_name()
    with postgres_server.connect() as conn:
        conn.execute(f'CREATE DATABASE "{other}"')
    try:
        postgres_server.fresh_database("x")
        postgres_server.drop_created()
        assert postgres_server.clean_stale().removed == []  # unmarked: never labkit's to drop
        with postgres_server.connect() as conn:
            assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s",
                                (other,)).fetchone()[0] == 1
    finally:
        with postgres_server.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{other}"')


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
    assert wait_until(lambda: not Path(workdir).exists())
    monkeypatch.setenv("LABKIT_POSTGRES_DSN", dsn)
    with pytest.raises(ServerUnavailable, match="did not answer"):
        servers.get_postgres("dsn")


@pytest.mark.postgres
@pytest.mark.slow
def test_an_owner_killed_while_postgres_starts_leaves_nothing_behind():
    """Killed before the server answered, the owner's PostgreSQL is stopped and its folder gone."""
    _local_postgres_or_skip()
    base = Path(tempfile.mkdtemp(prefix="labkit-test-"))
    base.chmod(0o755)  # PostgreSQL may run as another user, who must reach its folder
    script = textwrap.dedent("""
        import time
        from labkit import servers
        from labkit.servers import postgres
        def stuck(dsn, version):
            print(dsn, flush=True)
            time.sleep(600)
        postgres.from_dsn = stuck
        servers.get_postgres("local")
    """)
    try:
        owner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                 text=True, env={**os.environ, "TMPDIR": str(base)})
        dsn = owner.stdout.readline().strip()
        (workdir,) = base.glob("labkit-postgres-*")
        assert (workdir / "data" / "postmaster.pid").exists()
        kill(owner)
        assert wait_until(lambda: not workdir.exists())
        import psycopg

        with pytest.raises(Exception, match=r"(?i)connection|refused|failed"):
            psycopg.connect(dsn, connect_timeout=3).close()
    finally:
        shutil.rmtree(base, ignore_errors=True)


# labkit's own PostgreSQL: locked down, and robust to where it runs --------------------------


@pytest.fixture(scope="module")
def _own_postgres():
    """One PostgreSQL labkit starts from local binaries, shared by this module's tests that
    only read it or remove what they add (each start is an initdb and a server start, a second
    or more); stopped at the module's end."""
    _local_postgres_or_skip()
    server = servers.get_postgres("local")
    yield server
    server.stop()


@pytest.fixture
def own_postgres(_own_postgres, monkeypatch):
    """The module's own PostgreSQL (``_own_postgres``), with LABKIT_POSTGRES_DSN unset for the
    test."""
    monkeypatch.delenv("LABKIT_POSTGRES_DSN", raising=False)
    return _own_postgres


@pytest.fixture
def local_postgres(tmp_path_factory, monkeypatch):
    """A PostgreSQL labkit starts from local binaries, in a temp folder reachable by the
    ``postgres`` user, for a test that stops it; stopped after the test."""
    _local_postgres_or_skip()
    monkeypatch.delenv("LABKIT_POSTGRES_DSN", raising=False)
    server = servers.get_postgres("local")
    yield server
    server.stop()


@pytest.mark.postgres
def test_labkit_own_postgres_wants_its_generated_password(own_postgres):
    """Without the generated password nobody gets in (no trust authentication), and there is
    no Unix socket to reach it by."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    params = conninfo_to_dict(own_postgres.dsn)
    assert len(params["password"]) >= 24
    for wrong in ("", "labkit", "wrong"):
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(**{**params, "password": wrong}, connect_timeout=5).close()
    with own_postgres.connect() as conn:
        assert conn.execute("SHOW unix_socket_directories").fetchone()[0] == ""
        assert conn.execute("SHOW listen_addresses").fetchone()[0] == "127.0.0.1"
        assert conn.execute("SELECT count(*) FROM pg_hba_file_rules WHERE auth_method = "
                            "'trust'").fetchone()[0] == 0


@pytest.mark.postgres
@POSIX_ONLY
def test_no_secret_is_on_any_command_line_while_postgres_starts(own_postgres):
    """The generated password is on no process's command line (every local user can read them)."""
    from psycopg.conninfo import conninfo_to_dict

    password = conninfo_to_dict(own_postgres.dsn)["password"]
    listing = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert password not in listing
    assert not (own_postgres.workdir / "pwfile").exists()


@pytest.mark.postgres
@POSIX_ONLY
def test_postgres_starts_under_a_tmpdir_with_spaces_and_a_long_path(tmp_path, monkeypatch):
    """A TMPDIR with a space, deep enough that a socket path in it would pass 107 bytes."""
    _local_postgres_or_skip()
    base = Path(tempfile.mkdtemp(prefix="labkit test ")) / ("deep folder " + "x" * 90)
    base.mkdir()
    for folder in (base, base.parent):
        folder.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    try:
        with servers.get_postgres("local") as server:
            assert " " in str(server.workdir)
            assert len(str(server.workdir)) > 107
            with server.connect() as conn:
                assert conn.execute("SELECT 1").fetchone()[0] == 1
        assert list(base.iterdir()) == []
    finally:
        shutil.rmtree(base.parent, ignore_errors=True)


@pytest.mark.postgres
def test_a_port_taken_before_postgres_binds_it_is_retried_and_said(monkeypatch):
    """The first port labkit picks is taken by the time the server binds it: another port is
    used, and the cause is kept if every attempt fails."""
    import socket

    _local_postgres_or_skip()
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    taken = blocker.getsockname()[1]
    ports = iter([taken])
    real = process.free_port
    monkeypatch.setattr(process, "free_port", lambda: next(ports, None) or real())
    try:
        with servers.get_postgres("local") as server:
            assert f":{taken}/" not in server.dsn
        monkeypatch.setattr(process, "free_port", lambda: taken)
        with pytest.raises(ServerStartError) as caught:
            servers.get_postgres("local")
        assert f"port {taken} was taken" in str(caught.value)
        assert "Address already in use" in str(caught.value)
    finally:
        blocker.close()


@pytest.mark.postgres
def test_a_connected_client_does_not_hold_up_stopping_the_server(local_postgres):
    """Stopping with a client still connected is a fast shutdown: the client is cut off, the
    server is gone well before a smart shutdown's wait would end (generous bound)."""
    import psycopg

    client = local_postgres.connect()
    started = time.monotonic()
    local_postgres.stop()
    assert time.monotonic() - started < 15
    with pytest.raises(psycopg.OperationalError):
        client.execute("SELECT 1")
    client.close()


STALE_OWNER = """\
import datetime as dt, sys, time
from labkit import servers
terms = servers.LeaseTerms(every=dt.timedelta(seconds=0.1), lasts=dt.timedelta(seconds=1))
server = servers.PostgresServer(dsn=sys.argv[1], how="dsn", version="?", lease=terms)
server.fresh_database("stale")
print(server._created[0], flush=True)
time.sleep(600)
"""


@pytest.mark.postgres
def test_databases_left_by_a_killed_run_are_removed_by_the_next_and_only_those(own_postgres):
    """A run killed with SIGKILL leaves its marked database; once its lease has run out (a
    second here, renewed ten times a second while it lived), the next run's clean-up removes it
    (and says so) but keeps a live run's database and every unmarked one."""
    live = servers.PostgresServer(dsn=own_postgres.dsn, how="dsn", version="?")
    other = others_database_name()
    with own_postgres.connect() as conn:
        conn.execute(f'CREATE DATABASE "{other}"')
    owner = subprocess.Popen([sys.executable, "-c", STALE_OWNER, own_postgres.dsn],
                             stdout=subprocess.PIPE, text=True)
    try:
        left = owner.stdout.readline().strip()
        live.fresh_database("live")
        in_use = servers.PostgresServer(dsn=own_postgres.dsn, how="dsn", version="?")
        assert left in in_use.clean_stale().in_use  # its owner still lives: kept
        kill(owner)
        time.sleep(1.2)  # past the killed run's last lease end
        found = in_use.clean_stale()
        assert found.removed == [left]
        assert live._created[0] in found.in_use
        with own_postgres.connect() as conn:
            names = {row[0] for row in conn.execute("SELECT datname FROM pg_database")}
        assert left not in names
        assert other in names
        assert live._created[0] in names
    finally:
        owner.kill()
        live.stop()
        with own_postgres.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{other}"')


@pytest.mark.postgres
def test_a_role_that_is_not_superuser_is_told_so_before_any_load(own_postgres):
    """With a DSN whose role may not create extensions, the B-tree load is refused up front,
    plainly, as not run for PostgreSQL; the model and SQLite rows are unaffected."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    role, password = f"labkit_plain_{uuid.uuid4().hex[:6]}", "plain-pw-123"
    with own_postgres.connect() as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN CREATEDB PASSWORD '{password}'")
    dsn = make_conninfo(**{**conninfo_to_dict(own_postgres.dsn), "user": role,
                           "password": password})
    try:
        plain = servers.from_dsn(dsn, None)
        assert (plain.superuser, plain.createdb, plain.role) == (False, True, role)
        with runner.Context(btree_n=2000, postgres_provider=lambda: plain,
                            mongodb_provider=_refuse) as ctx:
            results = runner.run(claims.select(ids=["U4"]), ctx).claims
        rows = {str(row.engine): row for row in results[0].rows}
        assert rows["PostgreSQL"].verdict == "not-run"
        assert "needs a PostgreSQL superuser" in str(rows["PostgreSQL"].reason)
        assert f"role {role}" in str(rows["PostgreSQL"].reason)
        assert rows["SQLite"].verdict in ("holds", "finding")
        assert rows["model (rightmost splits)"].verdict == "holds"
    finally:
        with own_postgres.connect() as conn:
            conn.execute(f"DROP ROLE IF EXISTS {role}")


def _refuse():
    raise ServerUnavailable("not in this test")


@pytest.mark.postgres
def test_postgres_stopping_mid_run_costs_only_its_own_verdicts(local_postgres):
    """PostgreSQL gone between claims: its rows are errors with the cause; the model and SQLite
    verdicts of the same claims stay."""
    with runner.Context(btree_n=2000, postgres_provider=lambda: local_postgres,
                        mongodb_provider=_refuse) as ctx:
        ctx.postgres()
        local_postgres.stop()
        results = runner.run(claims.select(ids=["U4", "U5", "U6"]), ctx).claims
    for result in results:
        rows = {str(row.engine).removesuffix(" · size"): row for row in result.rows}
        assert rows["PostgreSQL"].verdict == "error", str(rows["PostgreSQL"])
        assert "connection" in str(rows["PostgreSQL"].reason).lower()
        assert rows["SQLite"].verdict in ("holds", "finding")
        assert rows["model (50/50 splits)"].verdict in ("holds", "finding")
