"""How the ``labkit`` command takes Ctrl-C, SIGTERM and SIGHUP (a closed terminal, a dropped SSH
session): at any moment, the usual exit status (130, 143, 129), one line, no traceback.

Imported first by ``labkit/__init__.py``. While the command imports, nothing is started yet:
a signal ends it at once. While a command runs, a signal unwinds it as Ctrl-C does, so every
server is stopped and every folder it made removed.
"""

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import NoReturn

# What ``signal.signal`` takes and ``signal.getsignal`` gives: a Python handler, SIG_DFL or
# SIG_IGN, or None for a handler set outside Python.
Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None

# SIGHUP where there is one (not on Windows): a hang-up stops a command as SIGTERM does.
SIGNALS = (signal.SIGINT, signal.SIGTERM,
           *((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ()))


def said(signum: int) -> str:
    """The line the command ends with when a signal stopped it."""
    return "Interrupted." if signum == signal.SIGINT else "Stopped."


def _exit_quietly(signum: int, frame: FrameType | None) -> NoReturn:
    print(f"\n{said(signum)}", file=sys.stderr)
    raise SystemExit(128 + signum)


def _is_the_command() -> bool:
    """``python -m labkit`` (argv[0] is "-m" while runpy imports the package, as the Python
    manual says of -m) or the ``labkit`` script; never a notebook kernel or a test run."""
    script = os.path.splitext(os.path.basename(sys.argv[0]))[0] if sys.argv else ""
    return sys.argv[:1] == ["-m"] or script == "labkit"


_received: int | None = None  # the signal that is unwinding the running command, if any


def _unwinder() -> Callable[[int, FrameType | None], NoReturn]:
    """The handler that unwinds a running command, with everything it needs imported now.

    Nothing is imported when the signal lands: it may land in the middle of any import (psycopg
    and matplotlib import ``logging`` lazily), where the module being imported is still half
    made, and an ``import`` in the handler would fail there and stand in for the stop.
    """
    import logging

    # not at the top: this module sets its handler before anything else of labkit loads
    from labkit.errors import Stopped

    psycopg = logging.getLogger("psycopg")

    def unwind(signum: int, frame: FrameType | None) -> NoReturn:
        global _received
        _received = signum
        # A stop interrupts whatever psycopg was doing: its warning that the rollback of that
        # command failed ("error ignored in rollback … another command is already in
        # progress") is expected then, and not shown. Nothing here may replace the stop.
        with suppress(Exception):
            psycopg.setLevel(logging.ERROR)
        if signum != signal.SIGINT:
            raise Stopped(signum)
        raise KeyboardInterrupt

    return unwind


def raise_if_stopping(exc: BaseException) -> None:
    """Raise the stop instead of ``exc`` when a signal is unwinding the command: whatever a
    library turned the stop into on its way out (an ``ImportError`` from an import it cut
    short, a driver's own error) is the stop, never an engine's result."""
    if _received is None:
        return
    from labkit.errors import Stopped  # not at the top: see _unwinder

    stop = Stopped(_received) if _received != signal.SIGINT else KeyboardInterrupt()
    raise stop from exc


@contextmanager
def as_interrupts() -> Iterator[None]:
    """While a command runs, Ctrl-C, SIGTERM and SIGHUP unwind it alike; only the main thread can
    take signals (elsewhere nothing changes)."""
    global _received
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received = None
    unwind = _unwinder()
    previous = {signum: take(signum, unwind) for signum in SIGNALS}
    try:
        yield
    finally:
        _received = None
        for signum, handler in previous.items():
            if handler is not None:  # None: a handler set outside Python, left as it is
                signal.signal(signum, handler)


def take(signum: int, handler: Callable[[int, FrameType | None], object]) -> Handler:
    """Set ``handler`` for ``signum`` unless the signal is ignored (a shell's background job
    ignores Ctrl-C, and so does Python then); the handler there was before."""
    previous = signal.getsignal(signum)
    if previous is not signal.SIG_IGN:
        signal.signal(signum, handler)
    return previous


def stopped(exc: KeyboardInterrupt) -> int:
    """The signal that stopped the command; from now on signals are ignored, as a second one
    while the command says so would only print a traceback."""
    if threading.current_thread() is threading.main_thread():
        for signum in SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
    return int(getattr(exc, "signum", signal.SIGINT))


if _is_the_command():
    for _signum in SIGNALS:
        take(_signum, _exit_quietly)
