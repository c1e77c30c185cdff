"""A command run beside a server labkit holds (``labkit server -- COMMAND``): a stop signal is
passed on to it, then waited for within a bound, and its exit status becomes labkit's."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Mapping
from types import FrameType

from labkit._signals import SIGNALS, take
from labkit.errors import BadInput
from labkit.i18n import N_, Message

COMMAND_STOP_GRACE = 30.0  # seconds a command gets to finish after Ctrl-C or SIGTERM


class Command:
    """A command run beside the server: a stop signal is passed on, then waited for (bounded)."""

    def __init__(self, command: list[str], env: Mapping[str, str],
                 grace: float = COMMAND_STOP_GRACE) -> None:
        self.grace = grace
        self.deadline: float | None = None
        try:
            self.child = subprocess.Popen(command, env=env)
        except OSError as exc:
            raise BadInput(Message(N_("cannot run {command}: {error}"), command=repr(command[0]),
                                   error=exc.strerror or str(exc))) from exc

    def forward(self, signum: int, frame: FrameType | None = None) -> None:
        """Pass a stop signal on to the command; from now on, wait for it only ``grace`` s."""
        # At a terminal, Ctrl-C reaches the command too: it sees two, and JupyterLab reads
        # a second Ctrl-C as "stop now" instead of asking for confirmation.
        with contextlib.suppress(OSError, ValueError):  # ValueError: Windows lacks SIGINT here
            self.child.send_signal(signum)
        if self.deadline is None:
            self.deadline = time.monotonic() + self.grace

    def wait(self) -> int:
        """The command's exit status (128 + N when signal N ended it); killed past the bound."""
        while True:
            try:
                status = self.child.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                if self.deadline is not None and time.monotonic() > self.deadline:
                    self.child.kill()
                    status = self.child.wait()
                    break
        return 128 - status if status < 0 else status


def run_beside(command: list[str], env: Mapping[str, str]) -> int:
    """Run ``command`` to its end; Ctrl-C, SIGTERM and SIGHUP are passed on to it, not obeyed
    here."""
    running = Command(command, env)
    # SIGHUP too: a closed terminal stops the command, never orphans it; a signal ignored
    # here (nohup ignores SIGHUP) stays ignored, for labkit and the command alike (take)
    previous = {signum: take(signum, running.forward) for signum in SIGNALS}
    try:
        return running.wait()
    finally:
        for signum, handler in previous.items():
            if handler is not None:  # a handler set outside Python, left as it is
                signal.signal(signum, handler)
