"""The server layer: real servers found or started, cleaned up, only our databases touched."""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest
from helpers import sleeper

from labkit import servers
from labkit.errors import BadInput, ServerStartError, ServerUnavailable
from labkit.experiments import catalogue as claims
from labkit.run import runner
from labkit.servers import base, mongo, postgres, process
from labkit.servers import reaper as _reaper

POSIX_ONLY = pytest.mark.skipif(os.name == "nt", reason="uses POSIX signals and a shell script")


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


def _others_name() -> str:
    """A name for a database the server object did not create: labkit_-prefixed and random, so
    that a test never drops a user's database of a fixed name."""
    return f"labkit_not_created_by_this_object_{uuid.uuid4().hex[:8]}"


@pytest.mark.postgres
def test_postgres_leaves_other_databases_alone(postgres_server):
    """Dropping labkit's databases never touches a database this object did not create."""
    other = _others_name()
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
    assert _wait_until(lambda: not Path(workdir).exists())
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
    assert first.name not in names
    assert second.name in names
    mongodb_server.drop(second.name)


@pytest.mark.mongodb
def test_full_run_leaves_the_users_databases_alone(mongodb_server, monkeypatch, tmp_path):
    """On a user's server (by URI), a full run creates and drops only labkit_ databases."""
    client = mongodb_server.client()
    other = _others_name()
    users = client[other]
    users.keep.insert_one({"precious": True})
    monkeypatch.setenv("LABKIT_MONGODB_URI", mongodb_server.uri)
    before = set(client.list_database_names())
    try:
        with runner.Context("uri") as ctx:
            ctx.btree_n = 20_000
            runner.run(claims.registered(), ctx)
        after = set(client.list_database_names())
        assert users.keep.find_one({"precious": True}) is not None
        assert before == after
    finally:
        client.drop_database(other)


BROKEN_MONGOD = """\
#!/bin/sh
if [ "$1" = "--version" ]; then echo "db version v7.0.99"; exit 0; fi
while [ $# -gt 0 ]; do
  if [ "$1" = "--logpath" ]; then echo "exception in initAndListen: disk on fire" > "$2"; fi
  shift
done
exit 48
"""


@pytest.fixture
def own_tempdir(tmp_path, monkeypatch):
    """Make labkit's temporary folders land in this test's folder, and only look there."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


@POSIX_ONLY
def test_a_mongod_that_will_not_start_is_reported_with_its_log_every_time(
        own_tempdir, tmp_path_factory, monkeypatch):
    """A local mongod that dies at start gives, in 20 runs out of 20, its log's last lines.

    The binary here is a stand-in that fails on purpose: the test is about labkit's
    error report, and no MongoDB result comes from it.
    """
    broken = tmp_path_factory.mktemp("bin") / "mongod"
    broken.write_text(BROKEN_MONGOD)
    broken.chmod(0o755)
    monkeypatch.setenv("LABKIT_MONGOD", str(broken))
    reports = []
    for _ in range(20):
        with pytest.raises(ServerStartError) as caught:
            servers.get_mongodb("local")
        reports.append(caught.value)
    assert [e.log_tail for e in reports] == ["exception in initAndListen: disk on fire"] * 20
    message = str(reports[-1])
    assert f"Started {broken} on port" in message
    assert "did not answer" in message
    assert "Last lines of its log:\nexception in initAndListen: disk on fire" in message
    assert message.splitlines()[-1].startswith("Hint:")
    assert reports[-1].hint.startswith("Hint: run the same mongod by hand")
    assert list(own_tempdir.iterdir()) == []  # every run's folder is removed


@POSIX_ONLY
def test_in_auto_mode_a_failed_local_start_is_one_of_the_ways_tried(own_tempdir, monkeypatch,
                                                                      tmp_path_factory):
    """In auto mode a mongod that will not start is listed, with its log, and Docker is tried."""
    broken = tmp_path_factory.mktemp("bin") / "mongod"
    broken.write_text(BROKEN_MONGOD)
    broken.chmod(0o755)
    monkeypatch.delenv("LABKIT_MONGODB_URI", raising=False)
    monkeypatch.setenv("LABKIT_MONGOD", str(broken))
    monkeypatch.setattr(base, "docker_status", lambda: (False, "Docker switched off"))
    with pytest.raises(ServerUnavailable) as caught:
        servers.get_mongodb()
    error = caught.value
    assert not isinstance(error, ServerStartError)
    assert [way.split(":")[0] for way in error.tried] == [
        "LABKIT_MONGODB_URI", "local mongod", "Docker"]
    assert error.tried[1].startswith("local mongod: failed to start:\n")
    assert "disk on fire" in error.tried[1]
    assert error.hint == servers.MONGO_HINT
    assert list(own_tempdir.iterdir()) == []


@pytest.mark.parametrize("cache_gb", [0.1, 0.2499, 0, -1, math.nan, math.inf, 10001, "0.5",
                                      True, [0.5]])
def test_a_cache_mongod_would_refuse_is_refused_before_anything_starts(
        cache_gb, tmp_path, monkeypatch):
    """Below 0.25 GB, above 10000, NaN, infinite or not a number: BadInput naming the range."""
    ran = tmp_path / "ran"
    spy = tmp_path / "mongod"
    spy.write_text(f"#!/bin/sh\ntouch {ran}\necho 'db version v7.0.99'\n")
    spy.chmod(0o755)
    monkeypatch.setenv("LABKIT_MONGOD", str(spy))
    with pytest.raises(BadInput, match=r"from 0\.25 to 10000 GB"):
        servers.get_mongodb("local", cache_gb=cache_gb)
    assert not ran.exists()


@pytest.mark.parametrize(("given", "used"), [(None, 0.25), (0.25, 0.25), (1.5, 1.5), (2, 2.0)])
def test_the_cache_defaults_to_the_smallest_mongod_accepts(given, used):
    """No size given means 0.25 GB; a valid size is used as given."""
    assert servers.DEFAULT_CACHE_GB == 0.25
    assert servers.check_cache_gb(given) == used


GIB = 1024**3


@pytest.mark.parametrize(("status", "asked", "gb", "text"), [
    ({"wiredTiger": {"cache": {"maximum bytes configured": GIB // 4}}}, 0.25, 0.25,
     "WiredTiger cache 0.25 GB (set by labkit)"),
    ({"wiredTiger": {"cache": {"maximum bytes configured": GIB}}}, 0.25, 1.0,
     "WiredTiger cache 1 GB (labkit asked for 0.25 GB)"),
    ({}, 0.25, 0.25, "WiredTiger cache 0.25 GB (set by labkit)"),
    ({"wiredTiger": {"cache": {"maximum bytes configured": 3 * GIB // 2}}}, None, 1.5,
     "WiredTiger cache 1.5 GB (the server's own setting; labkit did not start this server)"),
    ({"ok": 1.0}, None, None,
     "WiredTiger cache: the server's own setting (not readable: serverStatus has no "
     "wiredTiger.cache section); labkit did not start this server"),
    (RuntimeError("not authorized on admin to execute command serverStatus\nmore"), None,
     None, "WiredTiger cache: the server's own setting (not readable: not authorized on admin "
     "to execute command serverStatus); labkit did not start this server"),
])
def test_the_cache_is_reported_from_what_the_server_states(status, asked, gb, text):
    """The cache comes from serverStatus's wiredTiger.cache; unreadable, the report says why."""
    assert mongo.cache_report(status, asked) == (gb, text)


def test_describe_names_the_cache():
    """A server's one-line description ends with its WiredTiger cache."""
    server = servers.MongoServer(uri="mongodb://u:pw@h:1/", how="uri", version="7.0.14",
                                 cache_gb=1.5, cache="WiredTiger cache 1.5 GB (x)")
    assert server.describe() == ("MongoDB 7.0.14 (uri: mongodb://u:***@h:1/; "
                                 "WiredTiger cache 1.5 GB (x))")


def test_one_fallback_chain_builds_the_tried_list():
    """Ways are tried in order; reasons become the tried list; the first server wins."""
    calls = []

    def way(name, outcome):
        def attempt():
            calls.append(name)
            if isinstance(outcome, Exception):
                raise outcome
            return outcome
        return name, attempt

    failed = ServerStartError("Started x, but it did not answer.", log_tail="boom",
                              hint="look")
    with pytest.raises(ServerUnavailable) as caught:
        base.first_server("Thing", [way("A", "not set"), way("B", failed)], False, "go")
    assert caught.value.tried == ["A: not set", "B: failed to start:\n" + str(failed)]
    assert caught.value.hint == "Hint: go"
    with pytest.raises(ServerStartError):
        base.first_server("Thing", [way("B", failed)], True, "go")
    calls.clear()
    found = object()
    assert base.first_server("Thing", [way("A", "no"), way("B", found), way("C", "x")],
                                 False, "go") is found
    assert calls == ["A", "B"]


def test_errors_keep_what_was_tried_and_the_hint_as_data():
    """The message and the one-line summary are built from ``tried`` and ``hint``."""
    error = ServerUnavailable("No Thing server is available.",
                              tried=["A: not set", "B: failed to start:\nHint: inner\nlog"],
                              hint="do this")
    assert str(error) == ("No Thing server is available. Tried:\n  - A: not set\n"
                          "  - B: failed to start:\n    Hint: inner\n    log\nHint: do this")
    assert error.summary() == ("No Thing server is available (tried A: not set; B: failed to "
                               "start:). Hint: do this")
    start = ServerStartError("It did not answer.", log_tail="a\nb", hint="Hint: try")
    assert str(start) == "It did not answer.\nLast lines of its log:\na\nb\nHint: try"
    assert (start.log_tail, start.hint) == ("a\nb", "Hint: try")


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


# The watcher ------------------------------------------------------------------------------

OWNER = """\
import sys, time
from labkit.servers.reaper import Watcher
watcher = Watcher()
watcher.watch_pid(int(sys.argv[1]))
watcher.watch_path(sys.argv[2])
if sys.argv[3] == "release":
    watcher.release()
print("ready", watcher.pid, flush=True)
time.sleep(600)
"""


def _owner(child: subprocess.Popen, path: Path, how: str) -> tuple[subprocess.Popen, int]:
    """An owner whose watcher watches ``child`` and ``path``, and its watcher's pid."""
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(child.pid), str(path), how],
                             stdout=subprocess.PIPE, text=True)
    word, pid = owner.stdout.readline().split()
    assert word == "ready"
    return owner, int(pid)


def _kill(process: subprocess.Popen) -> None:
    process.kill()
    process.wait()


def _wait_until(condition, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    return condition()


def _pidfds(pid: int) -> int | None:
    """How many processes ``pid`` holds pinned (its pidfds), where Linux's /proc says."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    links = []
    for fd in fds:
        try:
            links.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
    return sum(link == "anon_inode:[pidfd]" for link in links)


def test_watcher_stops_the_server_and_removes_its_files_when_the_owner_is_killed(tmp_path):
    """Owner killed: the watched process is stopped and the watched folder removed."""
    folder = tmp_path / "server"
    folder.mkdir()
    child = sleeper()
    try:
        _kill(_owner(child, folder, "keep")[0])
        assert child.wait(timeout=30) != 0
        assert _wait_until(lambda: not folder.exists())
    finally:
        child.kill()


def test_watcher_leaves_everything_alone_once_the_owner_releases_it(tmp_path):
    """Owner released the watcher, then died: the process runs on and the folder stays."""
    folder = tmp_path / "server"
    folder.mkdir()
    child = sleeper()
    try:
        owner, watcher = _owner(child, folder, "release")
        # release() returns once the watcher has left: no one is left to act on the death.
        assert not _reaper.alive(watcher)
        _kill(owner)
        assert child.poll() is None
        assert folder.exists()
    finally:
        _kill(child)


def test_watcher_does_nothing_when_the_server_exits_on_its_own(tmp_path):
    """The server exiting is no signal: its files stay until the owner dies, then go."""
    folder = tmp_path / "server"
    folder.mkdir()
    child = sleeper()
    owner, watcher = _owner(child, folder, "keep")
    try:
        pinned = _pidfds(watcher) is not None and _wait_until(lambda: _pidfds(watcher) == 1, 10)
        if pinned:
            _kill(child)
            # The watcher let go of the exited server at its next look, and acted on nothing.
            assert _wait_until(lambda: _pidfds(watcher) == 0)
        else:  # no pidfd to see the watcher's look by: outwait it (it looks each second)
            _kill(child)
            time.sleep(2.5)
        assert folder.exists()
    finally:
        _kill(owner)
    assert _wait_until(lambda: not folder.exists())


def test_watcher_stops_the_process_named_in_a_pid_file(tmp_path):
    """A pid file is read when the owner dies: a server whose pid came late is still stopped."""
    child = sleeper()
    pidfile = tmp_path / "postmaster.pid"
    orders = _reaper._Orders()
    try:
        assert orders.take(f"pidfile {pidfile}\n")
        pidfile.write_text(f"{child.pid}\n/data\n")
        acting = threading.Thread(target=orders.act, kwargs={"settle": 0})
        acting.start()
        assert child.wait(timeout=30) == -signal.SIGTERM  # reaped here, as init would
        acting.join(timeout=30)
        assert not acting.is_alive()
        assert not orders.take("release\n")
    finally:
        child.kill()


def test_a_pid_file_naming_a_process_that_started_later_is_ignored(tmp_path):
    """A pid file left by a killed server whose pid now belongs to another process (it started
    later than the file says) is not acted on: the watcher signals no stranger."""
    stranger = sleeper()
    pidfile = tmp_path / "postmaster.pid"
    pidfile.write_text(f"{stranger.pid}\n/data\n{int(time.time()) - 3600}\n")
    orders = _reaper._Orders()
    try:
        assert orders.take(f"pidfile {pidfile} INT\n")
        orders.act(settle=0)
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()


def test_a_pid_file_naming_its_own_process_is_acted_on_with_the_signal_asked(tmp_path):
    """The same pid file with the process's true start time: that process gets SIGINT, the
    signal the order named (PostgreSQL's fast shutdown)."""
    child = sleeper()
    pidfile = tmp_path / "postmaster.pid"
    started = _reaper._start_time(child.pid)
    if started is None:
        child.kill()
        pytest.skip("this platform does not tell a process's start time")
    pidfile.write_text(f"{child.pid}\n/data\n{int(started)}\n")
    orders = _reaper._Orders()
    try:
        assert orders.take(f"pidfile {pidfile} INT\n")
        orders.act(settle=0)
        assert child.wait(timeout=30) == -signal.SIGINT
    finally:
        child.kill()


def test_a_process_that_exited_is_never_signalled_again(tmp_path):
    """Once a watched process has exited, the watcher forgets it: its pid may be reused."""
    child = sleeper()
    orders = _reaper._Orders()
    assert orders.take(f"pid {child.pid} TERM\n")
    pinned = orders.processes[child.pid]
    child.kill()
    child.wait()
    assert not pinned.alive()
    orders.forget_exited()
    assert orders.processes == {}


def test_a_forgotten_folder_is_left_alone(tmp_path):
    """A folder the owner removed and said so (``forget``) is not touched when the owner dies,
    even if something new now has that name."""
    folder = tmp_path / "scratch"
    folder.mkdir()
    orders = _reaper._Orders()
    orders.take(f"path {folder}\n")
    orders.take(f"forget {folder}\n")
    orders.act()
    assert folder.exists()


class FakeKernel32:
    """Stands in for Windows' kernel32: one process, with the exit code given."""

    def __init__(self, handle: int, exit_code: int) -> None:
        self.handle, self.exit_code, self.closed = handle, exit_code, []

    def OpenProcess(self, access, inherit, pid):  # noqa: N802 (the Windows API's name)
        assert access & 0x1000
        assert inherit is False
        return self.handle

    def GetExitCodeProcess(self, handle, code_ref):  # noqa: N802
        code_ref._obj.value = self.exit_code
        return 1

    def CloseHandle(self, handle):  # noqa: N802
        self.closed.append(handle)


@pytest.mark.parametrize(("handle", "exit_code", "last_error", "alive"), [
    (7, 259, 0, True),    # STILL_ACTIVE
    (7, 0, 0, False),     # exited with status 0
    (0, 0, 87, False),    # no such process (invalid parameter)
    (0, 0, 5, True),      # exists, but belongs to someone else (access denied)
])
def test_on_windows_liveness_comes_from_the_process_exit_code(
        monkeypatch, handle, exit_code, last_error, alive):
    """On Windows a process is alive while GetExitCodeProcess says STILL_ACTIVE; no os.kill."""
    kernel32 = FakeKernel32(handle, exit_code)
    monkeypatch.setattr(_reaper, "_windows", lambda: True)
    monkeypatch.setattr(_reaper, "_kernel32", lambda: kernel32)
    monkeypatch.setattr(_reaper, "_last_error", lambda: last_error)
    monkeypatch.setattr(os, "kill", lambda *a: pytest.fail("os.kill is no probe on Windows"))
    assert _reaper.alive(1234) is alive
    assert kernel32.closed == ([handle] if handle else [])


def test_on_windows_stopping_terminates_and_never_needs_sigkill(monkeypatch):
    """On Windows the watcher stops a server with TerminateProcess (os.kill with SIGTERM) only."""
    sent = []
    kernel32 = FakeKernel32(7, 259)
    monkeypatch.setattr(_reaper, "_windows", lambda: True)
    monkeypatch.setattr(_reaper, "_kernel32", lambda: kernel32)
    monkeypatch.setattr(_reaper, "alive", lambda pid: not any(p == pid for p, _ in sent))
    monkeypatch.setattr(os, "kill", lambda pid, sig: sent.append((pid, sig)))
    processes = [_reaper.Process(11), _reaper.Process(12)]
    assert [p.handle for p in processes] == [7, 7]  # each pinned by an open handle
    _reaper.stop(processes, grace=1)
    assert sent == [(11, signal.SIGTERM), (12, signal.SIGTERM)]
    assert kernel32.closed == [7, 7]


def test_processes_are_detached_the_platforms_way(monkeypatch):
    """A new session on POSIX; a new process group on Windows (no Ctrl-C from the console)."""
    monkeypatch.setattr(_reaper, "_windows", lambda: False)
    assert _reaper.detached() == {"start_new_session": True}
    monkeypatch.setattr(_reaper, "_windows", lambda: True)
    assert _reaper.detached() == {"creationflags": 0x200}


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
        _kill(owner)
        assert _wait_until(lambda: not workdir.exists())
        import psycopg

        with pytest.raises(Exception, match=r"(?i)connection|refused|failed"):
            psycopg.connect(dsn, connect_timeout=3).close()
    finally:
        shutil.rmtree(base, ignore_errors=True)


# What only a real MongoDB can confirm ----------------------------------------------------


@pytest.mark.mongodb
def test_a_started_mongod_really_has_the_small_cache():
    """A mongod labkit starts states a 0.25 GB WiredTiger cache in serverStatus."""
    if servers.find_mongod() is None and not servers.docker_status()[0]:
        pytest.skip("no local mongod and no Docker: labkit cannot start a mongod here")
    mode = "local" if servers.find_mongod() else "docker"
    with servers.get_mongodb(mode) as server:
        status = server.client().admin.command("serverStatus")
        assert status["wiredTiger"]["cache"]["maximum bytes configured"] == 268435456
        assert server.cache_gb == 0.25
        assert server.cache == "WiredTiger cache 0.25 GB (set by labkit)"
        assert server.cache in server.describe()


@pytest.mark.mongodb
def test_a_server_by_uri_reports_its_own_cache(mongodb_server, monkeypatch):
    """On a server found by URI the cache is the server's own, and the report says so."""
    monkeypatch.setenv("LABKIT_MONGODB_URI", mongodb_server.uri)
    server = servers.get_mongodb("uri")
    try:
        assert "labkit did not start this server" in server.cache
        assert server.cache.startswith("WiredTiger cache")
    finally:
        server.stop()


# labkit's own PostgreSQL: locked down, and robust to where it runs --------------------------


@pytest.fixture
def local_postgres(tmp_path_factory, monkeypatch):
    """A PostgreSQL labkit starts from local binaries, in a temp folder reachable by the
    ``postgres`` user; stopped after the test."""
    _local_postgres_or_skip()
    monkeypatch.delenv("LABKIT_POSTGRES_DSN", raising=False)
    server = servers.get_postgres("local")
    yield server
    server.stop()


@pytest.mark.postgres
def test_labkit_own_postgres_wants_its_generated_password(local_postgres):
    """Without the generated password nobody gets in (no trust authentication), and there is
    no Unix socket to reach it by."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    params = conninfo_to_dict(local_postgres.dsn)
    assert len(params["password"]) >= 24
    for wrong in ("", "labkit", "wrong"):
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(**{**params, "password": wrong}, connect_timeout=5).close()
    with local_postgres.connect() as conn:
        assert conn.execute("SHOW unix_socket_directories").fetchone()[0] == ""
        assert conn.execute("SHOW listen_addresses").fetchone()[0] == "127.0.0.1"
        assert conn.execute("SELECT count(*) FROM pg_hba_file_rules WHERE auth_method = "
                            "'trust'").fetchone()[0] == 0


@pytest.mark.postgres
@POSIX_ONLY
def test_no_secret_is_on_any_command_line_while_postgres_starts(local_postgres):
    """The generated password is on no process's command line (every local user can read them)."""
    from psycopg.conninfo import conninfo_to_dict

    password = conninfo_to_dict(local_postgres.dsn)["password"]
    listing = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert password not in listing
    assert not (local_postgres.workdir / "pwfile").exists()


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
import sys, time
from labkit import servers
server = servers.PostgresServer(dsn=sys.argv[1], how="dsn", version="?")
server.fresh_database("stale")
print(server._created[0], flush=True)
time.sleep(600)
"""


@pytest.mark.postgres
def test_databases_left_by_a_killed_run_are_removed_by_the_next_and_only_those(local_postgres):
    """A run killed with SIGKILL leaves its marked database; the next run's clean-up removes it
    (and says so) but keeps a live run's database and every unmarked one."""
    live = servers.PostgresServer(dsn=local_postgres.dsn, how="dsn", version="?")
    other = _others_name()
    with local_postgres.connect() as conn:
        conn.execute(f'CREATE DATABASE "{other}"')
    owner = subprocess.Popen([sys.executable, "-c", STALE_OWNER, local_postgres.dsn],
                             stdout=subprocess.PIPE, text=True)
    try:
        left = owner.stdout.readline().strip()
        live.fresh_database("live")
        in_use = servers.PostgresServer(dsn=local_postgres.dsn, how="dsn", version="?")
        assert left in in_use.clean_stale().in_use  # its owner still lives: kept
        _kill(owner)
        found = in_use.clean_stale()
        assert found.removed == [left]
        assert live._created[0] in found.in_use
        with local_postgres.connect() as conn:
            names = {row[0] for row in conn.execute("SELECT datname FROM pg_database")}
        assert left not in names
        assert other in names
        assert live._created[0] in names
    finally:
        owner.kill()
        live.stop()
        with local_postgres.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{other}"')


@pytest.mark.postgres
def test_a_role_that_is_not_superuser_is_told_so_before_any_load(local_postgres):
    """With a DSN whose role may not create extensions, the B-tree load is refused up front,
    plainly, as not run for PostgreSQL; the model and SQLite rows are unaffected."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    role, password = f"labkit_plain_{uuid.uuid4().hex[:6]}", "plain-pw-123"
    with local_postgres.connect() as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN CREATEDB PASSWORD '{password}'")
    dsn = make_conninfo(**{**conninfo_to_dict(local_postgres.dsn), "user": role,
                           "password": password})
    try:
        plain = servers.from_dsn(dsn, None)
        assert (plain.superuser, plain.createdb, plain.role) == (False, True, role)
        with runner.Context(btree_n=2000, postgres_provider=lambda: plain,
                            mongodb_provider=_refuse) as ctx:
            results = runner.run(claims.select(ids=["U4"]), ctx).claims
        rows = {row.engine: row for row in results[0].rows}
        assert rows["PostgreSQL"].verdict == "not-run"
        assert "needs a PostgreSQL superuser" in rows["PostgreSQL"].reason
        assert f"role {role}" in rows["PostgreSQL"].reason
        assert rows["SQLite"].verdict in ("holds", "finding")
        assert rows["model (rightmost splits)"].verdict == "holds"
    finally:
        with local_postgres.connect() as conn:
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
        rows = {row.engine.removesuffix(" · size"): row for row in result.rows}
        assert rows["PostgreSQL"].verdict == "error", str(rows["PostgreSQL"])
        assert "connection" in rows["PostgreSQL"].reason.lower()
        assert rows["SQLite"].verdict in ("holds", "finding")
        assert rows["model (50/50 splits)"].verdict in ("holds", "finding")


@pytest.mark.parametrize(("uri", "seconds"), [
    ("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300", 0.3),
    ("mongodb://127.0.0.1:1/?serverselectiontimeoutms=250", 0.25),  # option names: any case
    ("mongodb://127.0.0.1:1/", 5.0),
])
def test_a_uri_timeout_is_kept_and_labkit_gives_one_where_it_sets_none(uri, seconds):
    """The URI's own serverSelectionTimeoutMS wins (pymongo lets keyword options override the
    URI's, so labkit adds its 5 s only where the URI sets none; pymongo's MongoClient docs)."""
    client = servers.mongo_client(uri)
    try:
        assert client.options.server_selection_timeout == seconds
    finally:
        client.close()


def test_a_docker_postgresql_of_labkits_own_gets_the_same_settings_as_a_local_one(monkeypatch):
    """labkit's own PostgreSQL in Docker starts with the settings of its local one (shared
    buffers from the cache asked for, checkpoints only when labkit asks), as ``-c name=value``
    to the image's ``postgres`` (the official image's documented way). Docker is not run here:
    the container's start is stopped where it would reach the daemon."""
    import testcontainers.community.postgres as tc_postgres

    from labkit.servers import postgres

    seen = {}

    class Container:  # stands in for testcontainers' class only up to the daemon
        def __init__(self, image, driver=None):
            seen["image"] = image

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
