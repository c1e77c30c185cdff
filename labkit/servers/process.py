"""The server processes labkit starts itself: their folder, port, log, watcher, and stopping."""

from __future__ import annotations

import atexit
import contextlib
import socket
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from labkit.errors import ServerStartError
from labkit.i18n import Text
from labkit.servers.reaper import STOP_GRACE, Watcher, detached, remove

PORT_ATTEMPTS = 5  # a port found free can be taken before the server binds it: pick again
T = TypeVar("T")


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def log_tail(path: Path, lines: int = 15) -> str:
    """The last ``lines`` lines of a server's log, or a note that there are none."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log was written)"
    return "\n".join(text.splitlines()[-lines:]) or "(the log is empty)"


@dataclass
class Stopper:
    """Runs a server's clean-up once, whether called directly or at interpreter exit."""

    action: Callable[[], None] | None

    def __post_init__(self) -> None:
        atexit.register(self)

    def __call__(self) -> None:
        action, self.action = self.action, None
        if action is not None:
            atexit.unregister(self)
            action()


class OwnedServer:
    """A server process labkit starts: its folder, port, log, watcher, and how it stops.

    The watcher is told about the folder before anything runs and about each process
    as soon as it exists, so a killed owner never leaves a server or files behind.
    Stopping removes the folder before releasing the watcher: whatever moment the
    owner dies at, one of the two cleans up.
    """

    def __init__(self, kind: str, log_name: str) -> None:
        self.watcher = Watcher()
        try:
            self.workdir = Path(tempfile.mkdtemp(prefix=f"labkit-{kind}-"))
        except BaseException:
            self.watcher.release()
            raise
        self.watcher.watch_path(self.workdir)
        self.log = self.workdir / log_name
        self.port = free_port()
        self.taken: list[int] = []  # the ports found taken when the server came to bind them
        self._log_start = 0  # where the latest start's lines begin in the log
        self.process: subprocess.Popen[bytes] | None = None
        self.shutdown: Callable[[], None] | None = None
        self.stopper = Stopper(self._stop)

    def new_port(self) -> None:
        """Pick another free port (the one picked was taken before the server bound it)."""
        self.taken.append(self.port)
        self.port = free_port()

    def on_a_free_port(self, start: Callable[[], T], taken: Callable[[], bool]) -> T:
        """``start()`` the server on ``self.port``; where it fails and ``taken()`` then says the
        port was taken before the server bound it, again on another, PORT_ATTEMPTS in all."""
        for _attempt in range(PORT_ATTEMPTS - 1):
            self._mark_log()
            try:
                return start()
            except Exception:
                if not taken():
                    raise
                self.new_port()
        self._mark_log()
        return start()

    def _mark_log(self) -> None:
        """Note where the next start's lines begin: a start on another port appends to the
        same log, and an earlier clash there is not this start's."""
        try:
            self._log_start = self.log.stat().st_size
        except OSError:
            self._log_start = 0

    def written_since_start(self) -> str:
        """What the server wrote to its log since its latest start began."""
        try:
            with self.log.open("rb") as log:
                log.seek(self._log_start)
                return log.read().decode(errors="replace")
        except OSError:  # no log was written
            return ""

    def exited_over_its_port(self, exit_code: int, sign: str) -> bool:
        """Whether the process has exited with ``exit_code``, or with ``sign`` in its log: the
        server's own signs that another process holds its port."""
        code = self.process.poll() if self.process is not None else None
        if code is None:
            return False
        return code == exit_code or sign.lower() in self.written_since_start().lower()

    def popen(self, command: list[str]) -> subprocess.Popen[bytes]:
        """Start the server process, out of reach of the terminal's Ctrl-C, and watch it."""
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT, **detached())
        self.watcher.watch_pid(self.process.pid)
        return self.process

    def running(self) -> bool:
        """False once the process labkit started has exited."""
        return self.process is None or self.process.poll() is None

    def failed(self, message: Text, hint: Text) -> ServerStartError:
        """Read the log, then clean up, then return the error to raise: in that order."""
        tail = log_tail(self.log)
        self.stopper()
        return ServerStartError(message, log_tail=tail, hint=hint)

    def _stop(self) -> None:
        try:
            if self.shutdown is not None:
                with contextlib.suppress(Exception):
                    self.shutdown()
            if self.process is not None:
                if self.process.poll() is None:
                    self.process.terminate()
                try:
                    self.process.wait(timeout=STOP_GRACE)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            remove(str(self.workdir))
        finally:
            self.watcher.release()
