"""Stops a server and removes its files once the process that started it is gone.

A Jupyter kernel can be killed without running its exit handlers (a restart
sends SIGKILL after a grace period), so every server labkit starts gets one of
these watchers, running in its own session.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import time


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _stop(pids: list[int], grace: float = 20.0) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.2)
    for pid in pids:
        if _alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    """Watch ``PARENT`` and, when it dies, stop ``PIDS`` (comma-separated) and remove ``PATHS``."""
    parent, pids, *paths = argv
    targets = [int(pid) for pid in pids.split(",") if pid]
    while _alive(int(parent)):
        if not any(_alive(pid) for pid in targets):
            break
        time.sleep(1.0)
    _stop(targets)
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
