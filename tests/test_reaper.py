"""The watcher, `labkit.servers.reaper`: when the process that started a server dies, the server
is stopped and its files removed; released, exited on its own, forgotten or named by a pid file
that is no longer its own, it is left alone; on Windows, the same through the platform's calls."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import kill, sleeper, wait_until

from labkit.servers import reaper as _reaper

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
        kill(_owner(child, folder, "keep")[0])
        assert child.wait(timeout=30) != 0
        assert wait_until(lambda: not folder.exists())
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
        kill(owner)
        assert child.poll() is None
        assert folder.exists()
    finally:
        kill(child)


def test_watcher_does_nothing_when_the_server_exits_on_its_own(tmp_path):
    """The server exiting is no signal: its files stay until the owner dies, then go."""
    folder = tmp_path / "server"
    folder.mkdir()
    child = sleeper()
    owner, watcher = _owner(child, folder, "keep")
    try:
        pinned = _pidfds(watcher) is not None and wait_until(lambda: _pidfds(watcher) == 1, 10)
        if pinned:
            kill(child)
            # The watcher let go of the exited server at its next look, and acted on nothing.
            assert wait_until(lambda: _pidfds(watcher) == 0)
        else:  # no pidfd to see the watcher's look by: outwait it (it looks each second)
            kill(child)
            time.sleep(2.5)
        assert folder.exists()
    finally:
        kill(owner)
    assert wait_until(lambda: not folder.exists())


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
