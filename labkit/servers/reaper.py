"""Stops a server and removes its files once the process that started it is gone.

A Jupyter kernel can be killed without running its exit handlers (a restart sends
SIGKILL after a grace period), so every server labkit starts gets a watcher: a small
process, detached from the owner's terminal, that reads orders on its stdin. Only the
owner holds the write end of that pipe, so the pipe closes exactly when the owner
dies, on every platform, whatever killed it:

- ``pid N [SIGNAL]`` / ``group N [SIGNAL]`` / ``pidfile PATH [SIGNAL]`` / ``path PATH``:
  stop that process (the group it leads; the one whose pid heads that file) with SIGNAL
  (default TERM; PostgreSQL's fast shutdown is INT) and remove that folder, once the owner
  is gone;
- ``forget PATH``: the owner removed that folder itself;
- ``made [PATH, DEV, INO]`` (JSON) / ``kept PATH`` (JSON): the owner made that file or folder
  (a run's report folder, a file it is writing), and once the owner is gone it is removed
  while still the owner's (``unmake``); kept: the owner has finished it, leave it;
- ``release``: the owner cleaned up by itself; leave without touching anything;
- end of input: the owner died; stop the processes and remove the folders.

A pid alone could name another process once the first has exited and the number was
reused, so the watcher pins each process when told of it: a pidfd on Linux, an open
handle on Windows (either one keeps naming that process only), the process's start time
elsewhere; a pid file's process must have started when the file says it did.

The watcher never acts because a server exited: a server that failed to start keeps
its log until its owner has read it. This file runs as a script with the standard
library only (``python -I _reaper.py``), so a watcher starts fast and imports nothing
of labkit's. ``Watcher`` is the owner's side; ``scratch_folder`` gives any engine a
temporary folder that a killed owner does not leave behind, and ``watch_made`` has a killed
owner's new files and folders removed as ``unmake`` removes them.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import IO, Protocol, TypedDict

STOP_GRACE = 20.0  # seconds a server gets to shut down cleanly before it is killed
_STILL_ACTIVE = 259  # GetExitCodeProcess's code for a process that has not exited
_PROCESS_QUERY_LIMITED_INFORMATION = 0x1000
_SYNCHRONIZE = 0x100000
_ERROR_ACCESS_DENIED = 5
_START_TOLERANCE = 2.0  # seconds between a pid file's start time and the process's own


def _windows() -> bool:
    return os.name == "nt"


class Detached(TypedDict, total=False):
    """The ``Popen`` arguments ``detached`` gives: one per platform."""

    creationflags: int
    start_new_session: bool


def detached() -> Detached:
    """``Popen`` arguments that keep a child out of reach of the owner's Ctrl-C and hang-up."""
    if _windows():
        return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200)}
    return {"start_new_session": True}


class _Kernel32(Protocol):
    """The few kernel32 functions the watcher calls (ctypes' foreign functions are untyped)."""

    def OpenProcess(self, access: int, inherit: bool, pid: int) -> int: ...  # noqa: N802

    def GetExitCodeProcess(self, handle: int, code: object) -> int: ...  # noqa: N802

    def CloseHandle(self, handle: int) -> int: ...  # noqa: N802


def _kernel32() -> _Kernel32:
    import ctypes

    if sys.platform != "win32":
        raise OSError("kernel32 exists only on Windows")
    kernel32: _Kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    return kernel32


def _last_error() -> int:
    import ctypes

    if sys.platform != "win32":
        return 0
    return ctypes.get_last_error()


def _alive_windows(pid: int) -> bool:
    # os.kill(pid, 0) is no probe on Windows: signal 0 there is CTRL_C_EVENT.
    import ctypes

    kernel32 = _kernel32()
    handle = kernel32.OpenProcess(_PROCESS_QUERY_LIMITED_INFORMATION, False, pid)
    if not handle:
        return _last_error() == _ERROR_ACCESS_DENIED
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return False
        return code.value == _STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists (on POSIX, an unreaped zombie still counts)."""
    if _windows():
        return _alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


class Process:
    """One process, pinned when first seen so that a reused pid never stands in for it."""

    def __init__(self, pid: int, signum: int = signal.SIGTERM, group: bool = False) -> None:
        self.pid, self.signum = pid, signum
        self.group = group and not _windows()
        self.fd: int | None = None
        self.handle = None
        self.started = _start_time(pid)
        if _windows():
            self.handle = _open_windows(pid)
        elif hasattr(os, "pidfd_open"):
            with contextlib.suppress(OSError):
                self.fd = os.pidfd_open(pid)

    def alive(self) -> bool:
        """Whether this very process still exists (an exited one never comes back)."""
        if self.fd is not None:
            readable, _, _ = select.select([self.fd], [], [], 0)
            return not readable
        if not alive(self.pid):
            return False
        return self.started is None or _same_start(_start_time(self.pid), self.started)

    def send(self, signum: int) -> None:
        """Send ``signum`` to this process (and, for a group leader, its whole group), never to
        another one that took its pid."""
        with contextlib.suppress(OSError):
            if self.group and self.alive():
                os.killpg(self.pid, signum)  # the leader lives: the group is still its own
            elif self.fd is not None:
                signal.pidfd_send_signal(self.fd, signum)
            elif self.alive():
                # On Windows os.kill is TerminateProcess: immediate, there is nothing gentler.
                # The open handle keeps the pid from being reused meanwhile.
                os.kill(self.pid, signum)

    def close(self) -> None:
        """Let go of the pin (the pidfd or handle)."""
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None
        if self.handle:
            with contextlib.suppress(OSError):
                _kernel32().CloseHandle(self.handle)
            self.handle = None


def _open_windows(pid: int) -> int | None:
    return _kernel32().OpenProcess(_PROCESS_QUERY_LIMITED_INFORMATION | _SYNCHRONIZE, False,
                                   pid) or None


def _same_start(now: float | None, then: float) -> bool:
    return now is not None and abs(now - then) <= _START_TOLERANCE


def _start_time(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), where the platform says."""
    if _windows():
        return None  # an open handle pins the process instead
    with contextlib.suppress(OSError, ValueError, IndexError):
        if os.path.exists("/proc/stat"):
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
                ticks = int(handle.read().rsplit(")", 1)[1].split()[19])
            with open("/proc/stat", encoding="ascii") as handle:
                boot = next(int(line.split()[1]) for line in handle if line.startswith("btime"))
            return boot + ticks / os.sysconf("SC_CLK_TCK")
        out = subprocess.run(["ps", "-o", "lstart=", "-p", str(pid)], capture_output=True,
                             text=True, timeout=10, env={**os.environ, "LC_ALL": "C"}).stdout
        if out.strip():
            return time.mktime(time.strptime(out.strip(), "%a %b %d %H:%M:%S %Y"))
    return None


def stop(processes: list[Process], grace: float = STOP_GRACE) -> None:
    """Ask each process to stop (its own signal), wait up to ``grace`` s, then kill what is left."""
    for process in processes:
        process.send(process.signum)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(p.alive() for p in processes):
        time.sleep(0.2)
    if not _windows():
        for process in processes:
            if process.alive():
                process.send(signal.SIGKILL)
    for process in processes:
        process.close()


def remove(path: str, attempts: int = 10) -> None:
    """Remove a folder; retry briefly, as Windows keeps a dead process's files locked a moment."""
    for _ in range(attempts):
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.exists(path):
            return
        time.sleep(0.5)


# What an owner made: the path, and the device and inode it had when it was made.
MadeEntry = tuple[str, int, int]


def unmake(entries: list[MadeEntry]) -> list[str]:
    """Remove what an owner made, newest first, each only while it is still the owner's: the
    same file or folder it made (a name someone else took since, with another device or
    inode, is theirs), and a folder only once it is empty (one another process wrote into
    stays, with what they wrote). Returns the paths left in place."""
    left = []
    for path, dev, ino in reversed(entries):
        try:
            found = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError:
            left.append(path)
            continue
        if (found.st_dev, found.st_ino) != (dev, ino):
            left.append(path)
            continue
        try:
            if stat.S_ISDIR(found.st_mode):
                os.rmdir(path)  # refuses a folder that is not empty: then it stays
            else:
                os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError:
            left.append(path)
    return left


def _pid_file(pidfile: str) -> tuple[int | None, float | None]:
    """The pid heading ``pidfile`` and, where the file records it (PostgreSQL's third line),
    when that process started."""
    try:
        with open(pidfile, encoding="ascii", errors="replace") as handle:
            lines = handle.read().splitlines()
        pid = int(lines[0].strip())
    except (OSError, ValueError, IndexError):
        return None, None
    try:
        return pid, float(lines[2].strip())
    except (ValueError, IndexError):
        return pid, None


def _signal_named(name: str) -> int:
    return getattr(signal, f"SIG{name}", signal.SIGTERM) if name else signal.SIGTERM


class _Orders:
    """What the watcher was told so far; each process is pinned as soon as it is named."""

    def __init__(self) -> None:
        self.processes: dict[int, Process] = {}
        self.pidfiles: list[tuple[str, int]] = []
        self.paths: list[str] = []
        self.made: list[MadeEntry] = []
        self.lock = threading.Lock()

    def take(self, line: str) -> bool:
        """Record one order; False for ``release``."""
        word, _, arg = line.rstrip("\r\n").partition(" ")
        with self.lock:
            if word == "release":
                return False
            if word in ("pid", "group"):
                pid, _, name = arg.partition(" ")
                if pid.isdigit() and int(pid) not in self.processes:
                    process = Process(int(pid), _signal_named(name), group=word == "group")
                    if process.alive():
                        self.processes[int(pid)] = process
                    else:
                        process.close()
            elif word == "pidfile" and arg:
                path, _, name = arg.rpartition(" ") if arg.endswith(
                    (" INT", " TERM", " QUIT")) else (arg, "", "")
                self.pidfiles.append((path, _signal_named(name)))
            elif word == "path" and arg:
                self.paths.append(arg)
            elif word == "forget" and arg in self.paths:
                self.paths.remove(arg)
            elif word in ("made", "kept") and arg:
                self._take_made(word, arg)
        return True

    def _take_made(self, word: str, arg: str) -> None:
        try:
            value = json.loads(arg)
        except ValueError:
            return
        if word == "kept":
            self.made = [entry for entry in self.made if entry[0] != value]
        elif isinstance(value, list) and len(value) == 3 and isinstance(value[0], str) \
                and all(isinstance(n, int) for n in value[1:]):
            self.made.append((value[0], value[1], value[2]))

    def forget_exited(self) -> None:
        with self.lock:
            for pid, process in list(self.processes.items()):
                if not process.alive():
                    process.close()
                    del self.processes[pid]

    def _from_pidfiles(self) -> list[Process]:
        found = []
        for path, signum in self.pidfiles:
            pid, started = _pid_file(path)
            if pid is None or pid in self.processes:
                continue
            process = Process(pid, signum)
            # A pid file left by a killed server may name a pid that is now someone else's.
            if process.alive() and (started is None or process.started is None
                                    or _same_start(process.started, started)):
                found.append(process)
            else:
                process.close()
        return found

    def act(self, settle: float = 1.0) -> None:
        with self.lock:
            processes = list(self.processes.values()) + self._from_pidfiles()
            self.processes.clear()
            paths = list(self.paths)
            made = list(self.made)
        stop(processes)
        # A server forked just before its owner died may write its pid file a moment later.
        if self.pidfiles:
            time.sleep(settle)
            stop(self._from_pidfiles())
        for path in paths:
            remove(path)
        unmake(made)


def watch(stream: IO[str], poll: float = 1.0) -> bool:
    """Follow the orders on ``stream`` until it ends (act; True) or says ``release`` (False)."""
    orders = _Orders()
    done = threading.Event()

    def forget() -> None:
        while not done.wait(poll):
            orders.forget_exited()

    threading.Thread(target=forget, daemon=True).start()
    try:
        for line in stream:
            if not orders.take(line):
                return False
        orders.act()
        return True
    finally:
        done.set()


class Watcher:
    """The owner's side: starts a watcher process and sends it orders through a pipe."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-I", os.path.abspath(__file__)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            encoding="utf-8", **detached(),
        )
        self.owner_pid = os.getpid()

    @property
    def pid(self) -> int:
        """The watcher process's id."""
        return self._process.pid

    def _send(self, line: str) -> None:
        pipe = self._process.stdin
        if pipe is None or pipe.closed:
            return
        with contextlib.suppress(OSError, ValueError):  # a watcher that is gone cannot help
            pipe.write(line + "\n")
            pipe.flush()

    def watch_pid(self, pid: int, signal_name: str = "TERM") -> None:
        """Stop process ``pid`` with SIGTERM (or ``signal_name``) if the owner dies."""
        self._send(f"pid {int(pid)} {signal_name}")

    def watch_group(self, pid: int, signal_name: str = "TERM") -> None:
        """Stop the process group that ``pid`` leads (a helper and its children) if the owner
        dies while the leader lives."""
        self._send(f"group {int(pid)} {signal_name}")

    def watch_pidfile(self, path: os.PathLike[str] | str, signal_name: str = "TERM") -> None:
        """Stop the process whose pid heads ``path`` (read when the owner dies)."""
        self._send(f"pidfile {os.fspath(path)} {signal_name}")

    def watch_path(self, path: os.PathLike[str] | str) -> None:
        """Remove folder ``path`` if the owner dies."""
        self._send(f"path {os.fspath(path)}")

    def forget_path(self, path: os.PathLike[str] | str) -> None:
        """The owner removed folder ``path`` itself: never touch that name again."""
        self._send(f"forget {os.fspath(path)}")

    def watch_made(self, path: str, dev: int, ino: int) -> None:
        """Remove file or folder ``path`` if the owner dies while it is still the one made
        (``unmake``)."""
        # JSON keeps any name on one line: a newline, a byte that is not UTF-8 (surrogateescape).
        self._send("made " + json.dumps([path, dev, ino]))

    def keep_made(self, path: str) -> None:
        """The owner finished ``path``: leave it when the owner dies."""
        self._send("kept " + json.dumps(path))

    def release(self, timeout: float = 10.0) -> None:
        """The owner has cleaned up: the watcher leaves without acting."""
        self._send("release")
        with contextlib.suppress(OSError):
            if self._process.stdin is not None:
                self._process.stdin.close()
        try:
            self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


_scratch_lock = threading.Lock()
_scratch_watcher: Watcher | None = None


def _shared_watcher() -> Watcher:
    """This process's one watcher for scratch folders, started on first use."""
    global _scratch_watcher
    with _scratch_lock:
        # A forked child does not own its parent's pipe: it starts its own watcher.
        if _scratch_watcher is None or _scratch_watcher.owner_pid != os.getpid():
            _scratch_watcher = Watcher()
            atexit.register(_scratch_watcher.release)
        return _scratch_watcher


@contextlib.contextmanager
def scratch_folder(prefix: str) -> Iterator[str]:
    """A temporary folder, removed on exit, and by a watcher if this process is killed first."""
    watcher = _shared_watcher()
    path = tempfile.mkdtemp(prefix=prefix)
    watcher.watch_path(path)
    try:
        yield path
    finally:
        remove(path)
        watcher.forget_path(path)


def watch_made(path: str, dev: int, ino: int) -> None:
    """Have this process's watcher remove ``path`` (made by this process, with that device
    and inode) if this process is killed before it keeps it (``keep_made``)."""
    _shared_watcher().watch_made(path, dev, ino)


def keep_made(path: str) -> None:
    """This process keeps ``path``: its watcher leaves it."""
    _shared_watcher().keep_made(path)


def main() -> int:
    """Run as a watcher: follow the orders on stdin."""
    if not _windows():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
