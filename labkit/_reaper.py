"""Stops a server and removes its files once the process that started it is gone.

A Jupyter kernel can be killed without running its exit handlers (a restart sends
SIGKILL after a grace period), so every server labkit starts gets a watcher: a small
process, detached from the owner's terminal, that reads orders on its stdin. Only the
owner holds the write end of that pipe, so the pipe closes exactly when the owner
dies, on every platform, whatever killed it:

- ``pid N`` / ``pidfile PATH`` / ``path PATH``: stop that process (or the one whose
  pid heads that file) and remove that folder, once the owner is gone;
- ``release``: the owner cleaned up by itself; leave without touching anything;
- end of input: the owner died; stop the processes and remove the folders.

The watcher never acts because a server exited: a server that failed to start keeps
its log until its owner has read it. This file runs as a script with the standard
library only (``python -I _reaper.py``), so a watcher starts fast and imports nothing
of labkit's. ``Watcher`` is the owner's side.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

STOP_GRACE = 20.0  # seconds a server gets to shut down cleanly before it is killed
_STILL_ACTIVE = 259  # GetExitCodeProcess's code for a process that has not exited
_PROCESS_QUERY_LIMITED_INFORMATION = 0x1000
_ERROR_ACCESS_DENIED = 5


def _windows() -> bool:
    return os.name == "nt"


def detached() -> dict:
    """``Popen`` arguments that keep a child out of reach of the owner's Ctrl-C and hang-up."""
    if _windows():
        return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200)}
    return {"start_new_session": True}


def _kernel32():
    import ctypes

    return ctypes.WinDLL("kernel32", use_last_error=True)


def _last_error() -> int:
    import ctypes

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


def stop(pids: list[int], grace: float = STOP_GRACE) -> None:
    """Ask each process to stop, wait up to ``grace`` seconds, then kill what is left."""
    for pid in pids:
        with contextlib.suppress(OSError):
            # On Windows this is TerminateProcess: immediate, there is nothing gentler.
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.2)
    if _windows():
        return
    for pid in pids:
        if alive(pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def remove(path: str, attempts: int = 10) -> None:
    """Remove a folder; retry briefly, as Windows keeps a dead process's files locked a moment."""
    for _ in range(attempts):
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.exists(path):
            return
        time.sleep(0.5)


def _pid_in(pidfile: str) -> int | None:
    try:
        with open(pidfile, encoding="ascii", errors="replace") as handle:
            return int(handle.readline().strip())
    except (OSError, ValueError):
        return None


class _Orders:
    """What the watcher was told so far; pids that exit are forgotten, so a reused pid is safe."""

    def __init__(self) -> None:
        self.pids: set[int] = set()
        self.pidfiles: list[str] = []
        self.paths: list[str] = []
        self.lock = threading.Lock()

    def take(self, line: str) -> bool:
        """Record one order; False for ``release``."""
        word, _, arg = line.rstrip("\r\n").partition(" ")
        with self.lock:
            if word == "release":
                return False
            if word == "pid" and arg.isdigit():
                self.pids.add(int(arg))
            elif word == "pidfile" and arg:
                self.pidfiles.append(arg)
            elif word == "path" and arg:
                self.paths.append(arg)
        return True

    def forget_exited(self) -> None:
        with self.lock:
            self.pids = {pid for pid in self.pids if alive(pid)}

    def act(self) -> None:
        with self.lock:
            pids = set(self.pids)
            pids.update(pid for pid in map(_pid_in, self.pidfiles) if pid is not None)
            paths = list(self.paths)
        stop(sorted(pids))
        for path in paths:
            remove(path)


def watch(stream, poll: float = 1.0) -> bool:
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

    def watch_pid(self, pid: int) -> None:
        """Stop process ``pid`` if the owner dies."""
        self._send(f"pid {int(pid)}")

    def watch_pidfile(self, path: os.PathLike | str) -> None:
        """Stop the process whose pid heads ``path`` (read when the owner dies)."""
        self._send(f"pidfile {os.fspath(path)}")

    def watch_path(self, path: os.PathLike | str) -> None:
        """Remove folder ``path`` if the owner dies."""
        self._send(f"path {os.fspath(path)}")

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


def main() -> int:
    """Run as a watcher: follow the orders on stdin."""
    if not _windows():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
