"""Killed at any point, labkit leaves nothing behind: SIGTERM and SIGKILL sent while a local
PostgreSQL starts and while a load runs, from ``labkit btree``, ``labkit run`` and a plain
Python owner; afterwards no process and no folder of that run remains (bounded waits), and a
SIGTERM ends in one "Stopped." line, also when it lands inside an import the run makes lazily
(moments during the command's own imports: tests/test_signals.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest
from helpers import start

from labkit import servers

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not os.path.isdir("/proc"),
                                 reason="finds a run's processes through /proc (Linux)")]

CLEANUP_DEADLINE = 60.0  # generous: the watcher gives a server 20 s before SIGKILL
PHASE_DEADLINE = 120.0

PLAIN_OWNER = textwrap.dedent("""
    from labkit.engines import btree
    from labkit.engines.btree_engine import Settings
    from labkit import servers
    server = servers.get_postgres("local")
    btree.ENGINES["sqlite"].load("uuid4", 3_000_000, Settings(), None)
""")


def _needs_postgres() -> None:
    if servers.find_postgres_bin() is None:
        pytest.skip("no local PostgreSQL binaries (initdb, pg_ctl) on this machine")


def _base() -> Path:
    base = Path(tempfile.mkdtemp(prefix="labkit-interrupt-"))
    base.chmod(0o755)  # PostgreSQL runs as another user when labkit is root
    return base


def _environ(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().replace(b"\0", b"\n").decode(
            errors="replace")
    except OSError:
        return ""


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")
    except OSError:
        return ""


def leftovers(base: Path) -> list[str]:
    """What remains of a run whose TMPDIR was ``base``: folders, and live processes that name
    it or inherited it (servers, helpers, watchers)."""
    found = [f"folder {p.name}" for p in base.iterdir()]
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        status = Path(f"/proc/{pid}/stat")
        try:
            if status.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue  # exited, waiting to be reaped: not running
        except (OSError, IndexError):
            continue
        if str(base) in _cmdline(pid) or f"TMPDIR={base}\n" in _environ(pid):
            found.append(f"process {pid}: {_cmdline(pid)[:120]}")
    return found


class Owner:
    """A labkit process under test, its stderr read as it comes."""

    def __init__(self, argv: list[str], base: Path) -> None:
        env = {**os.environ, "TMPDIR": str(base)}
        env.pop("LABKIT_POSTGRES_DSN", None)
        self.process = start(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stderr:
            self.stderr.append(line)

    def said(self, text: str) -> bool:
        return any(text in line for line in self.stderr)


def _wait(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def _phase(base: Path, owner: Owner, point: str):
    """A condition that holds once the run reached ``point``."""
    def exists(pattern: str):
        return lambda: any(base.glob(pattern))

    return {
        "initdb": exists("labkit-postgres-*/data"),
        "server starting": exists("labkit-postgres-*/data/postmaster.pid"),
        "postgres load": lambda: owner.said("% uuid4") or owner.said("into postgres"),
        "sqlite load": exists("labkit-sqlite-*/btree.db"),
    }[point]


OWNERS = {
    "labkit btree": [sys.executable, "-m", "labkit", "btree", "--engine", "postgres",
                     "--keys", "uuid4", "--n", "2000000"],
    "labkit btree sqlite": [sys.executable, "-m", "labkit", "btree", "--engine", "sqlite",
                            "--keys", "uuid4", "--n", "3000000"],
    # 100,000 keys: each load still lasts about half a second here, a wide window for a signal
    # sent as soon as it starts, while the run reaches PostgreSQL's load in a few seconds.
    "labkit run": [sys.executable, "-m", "labkit", "run", "--claims", "U4", "--btree-n",
                   "100000"],
    "python owner": [sys.executable, "-c", PLAIN_OWNER],
}
CASES = [(owner, point, signum)
         for owner, points in (("labkit btree", ("initdb", "server starting", "postgres load")),
                               ("labkit btree sqlite", ("sqlite load",)),
                               ("labkit run", ("sqlite load", "server starting",
                                               "postgres load")),
                               ("python owner", ("initdb", "server starting", "sqlite load")))
         for point in points
         for signum in (signal.SIGTERM, signal.SIGKILL)]
# A closed terminal or a dropped SSH session (issue 46, item 8): before, a hang-up left the
# run's database and its servers behind.
if hasattr(signal, "SIGHUP"):
    CASES += [("labkit run", "postgres load", signal.SIGHUP),
              ("labkit btree", "server starting", signal.SIGHUP)]


@pytest.mark.postgres
@pytest.mark.parametrize(("owner", "point", "signum"), CASES,
                         ids=[f"{o}-{p}-{s.name}" for o, p, s in CASES])
def test_a_killed_run_leaves_no_process_and_no_folder(owner, point, signum):
    """The owner gets ``signum`` once it reached ``point``; within the deadline nothing of its
    run is left: no PostgreSQL, helper or watcher, no server, scratch or report-less folder."""
    if "sqlite" not in owner or owner == "labkit run":
        _needs_postgres()
    base = _base()
    out = base.parent / f"{base.name}-report"
    argv = OWNERS[owner] + (["--out", str(out)] if owner == "labkit run" else [])
    running = Owner(argv, base)
    try:
        _wait(_phase(base, running, point), PHASE_DEADLINE, f"{owner} to reach {point}")
        assert running.process.poll() is None, "".join(running.stderr)
        running.process.send_signal(signum)
        status = running.process.wait(timeout=CLEANUP_DEADLINE)
        deadline = time.monotonic() + CLEANUP_DEADLINE
        while leftovers(base) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert leftovers(base) == []
        if signum != signal.SIGKILL and owner.startswith("labkit"):
            assert status == 128 + signum
            assert "Traceback" not in "".join(running.stderr)
            assert "error ignored" not in "".join(running.stderr)  # psycopg's rollback warning
            _wait(lambda: running.said("Stopped."), CLEANUP_DEADLINE, "its last line")
            assert running.stderr[-1] == "Stopped.\n", running.stderr
        if signum != signal.SIGKILL and owner == "labkit run":
            assert not out.exists()  # the --out folder it made, empty until the report
    finally:
        running.process.kill()
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(base, ignore_errors=True)


# The child makes one module's import slow: as it is about to run that module's code (the
# module already in sys.modules, still empty), it sends itself the signal, so the signal lands
# at the same point of that import on every run. "logging" is imported lazily during a run
# (by docker, psycopg or matplotlib, whichever comes first); "docker" is such an import itself.
SLOW_IMPORT = """\
import importlib.abc, importlib.util, os, signal, sys
target, signame, *args = sys.argv[1:]
class Slow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, module=None):
        if name != target:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        real = spec.loader
        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return real.create_module(spec)
            def exec_module(self, module):
                os.kill(os.getpid(), getattr(signal, signame))
                real.exec_module(module)
        spec.loader = Loader()
        return spec
sys.meta_path.insert(0, Slow())
sys.argv[:] = [os.path.join(os.path.dirname(sys.executable), "labkit"), *args]
from labkit.cli import main
sys.exit(main())
"""
LAZY_IMPORTS = [(module, signame) for module in ("logging", "docker")
                for signame in ("SIGTERM", "SIGINT")]


@pytest.mark.parametrize(("module", "signame"), LAZY_IMPORTS,
                         ids=[f"{m}-{s}" for m, s in LAZY_IMPORTS])
def test_a_signal_during_a_lazy_import_stops_the_run(tmp_path, module, signame):
    """A SIGTERM (or Ctrl-C) that lands while a run imports ``module`` ends the run with 143
    (130), one "Stopped." ("Interrupted.") line and no report; before, a SIGTERM inside
    logging's import made the handler's own ``import logging`` fail on the half-made module,
    and that failure became the engine's verdict ("no Docker daemon answered
    (AttributeError)") in a run that finished with a report."""
    out = tmp_path / "report"
    env = {key: value for key, value in os.environ.items()
           if key not in ("LABKIT_MONGODB_URI", "LABKIT_POSTGRES_DSN")}
    # --mongodb docker: the way that imports docker (and, through it, logging) on any machine.
    child = start([sys.executable, "-c", SLOW_IMPORT, module, signame, "run", "--claims", "D1",
                   "--mongodb", "docker", "--quiet", "--out", str(out)],
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    _, err = child.communicate(timeout=PHASE_DEADLINE)
    signum = getattr(signal, signame)
    assert child.returncode == 128 + signum, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == ("Stopped." if signum == signal.SIGTERM
                                            else "Interrupted."), err
    assert not out.exists()
