"""Ctrl-C, SIGTERM and SIGHUP at any moment of the ``labkit`` command, its imports included:
exit status 130, 143 or 129, one line, no traceback; a stopped run or check removes what it made in
``--out``; a stop interrupting psycopg prints no rollback warning (issue 18)."""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import start

from labkit import cli
from labkit.errors import Stopped

ROOT = Path(__file__).resolve().parent.parent
GOOD = "- {id: X.a, title: t, fixture: [{_id: 1}], find: {}, expect: {ids: [1]}}\n"
SUBPROCESS_BOUND = 120  # a bound on a wait, so a hang fails; no test asserts a duration

# The child sends itself the signal the moment ``target`` is first imported: the moment is
# the same on every run, wherever it falls in labkit's start. ``how`` is the entry: "-m" as
# ``python -m labkit`` (argv[0] is "-m" while runpy imports the package) or "script" as the
# console script pip writes (``from labkit.cli import main; sys.exit(main())``).
TRIP = """\
import os, runpy, signal, sys
target, signame, how, *args = sys.argv[1:]
class Trip:
    def find_spec(self, name, path=None, module=None):
        if name == target:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), getattr(signal, signame))
        return None
sys.meta_path.insert(0, Trip())
if how == "-m":
    sys.argv[:] = ["-m", *args]
    runpy.run_module("labkit", run_name="__main__", alter_sys=True)
else:
    sys.argv[:] = [os.path.join(os.path.dirname(sys.executable), "labkit"), *args]
    from labkit.cli import main
    sys.exit(main())
"""

# From labkit's first import to the report: the package's own imports (the Ctrl-C
# 0.2 s after start), the command line, a claim file's reader, the check, the report.
MOMENTS = ["labkit._version", "labkit.experiments.catalogue", "labkit.servers", "labkit.cli",
           "labkit.claims.files", "yaml", "labkit.engines.fakes", "labkit.outputs.report"]
CASES = [(moment, signame, how) for moment in MOMENTS
         for signame, how in (("SIGINT", "-m"), ("SIGTERM", "script"))]
# A hang-up (a closed terminal, a dropped SSH session) stops it as SIGTERM does (issue 46,
# item 8): before, it ended the process on the spot, with no clean-up.
CASES += [(moment, "SIGHUP", how) for moment, how in (
    ("labkit._version", "-m"), ("labkit.claims.files", "script"),
    ("labkit.outputs.report", "-m"))]

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"),
                                reason="a process sends itself SIGINT and SIGTERM (POSIX)")


@pytest.mark.parametrize(("moment", "signame", "how"), CASES,
                         ids=[f"{m}-{s}-{h}" for m, s, h in CASES])
def test_a_signal_at_any_moment_ends_in_one_line(tmp_path, moment, signame, how):
    """Ctrl-C (SIGINT) or SIGTERM when ``moment`` is first imported ends ``labkit check`` with
    exit status 130 or 143, "Interrupted." or "Stopped." and no traceback, and leaves no
    ``--out`` folder (the issue: a traceback from ``import labkit``, exit -2 or -15)."""
    (tmp_path / "claims.yaml").write_text(GOOD, encoding="utf-8")
    out = tmp_path / "report" / "check"
    child = start([sys.executable, "-c", TRIP, moment, signame, how, "check",
                   str(tmp_path / "claims.yaml"), "--quiet", "--out", str(out)],
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                  env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, err = child.communicate(timeout=SUBPROCESS_BOUND)
    signum = getattr(signal, signame)
    assert child.returncode == 128 + signum, err
    assert "Traceback" not in err
    assert err.strip().splitlines() == ["Interrupted." if signame == "SIGINT" else "Stopped."]
    assert not (tmp_path / "report").exists()


def _call(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = cli.main(argv)
    return status, err.getvalue()


def _stop(signum: int):
    def stop(*args, **kwargs):
        raise Stopped(signum) if signum != signal.SIGINT else KeyboardInterrupt

    return stop


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=["SIGINT", "SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("command", ["run", "check"])
def test_a_stopped_run_removes_the_out_folder_it_made(tmp_path, monkeypatch, command, signum):
    """A run or check stopped after ``--out`` was made removes it, and the missing parents it
    made too (the issue: an interrupted run left an empty ``--out``, 12 of 12)."""
    from labkit.run import check as claimcheck
    from labkit.run import runner

    monkeypatch.setattr(runner, "run", _stop(signum))
    monkeypatch.setattr(claimcheck, "check", _stop(signum))
    (tmp_path / "claims.yaml").write_text(GOOD, encoding="utf-8")
    out = tmp_path / "new" / "report"
    argv = (["run", "--claims", "D2"] if command == "run"
            else ["check", str(tmp_path / "claims.yaml")]) + ["--quiet", "--out", str(out)]
    status, err = _call(argv)
    assert status == 128 + signum
    assert err.strip().splitlines()[-1] in ("Interrupted.", "Stopped.")
    assert not (tmp_path / "new").exists()


def test_a_stopped_run_keeps_what_its_out_folder_held(tmp_path, monkeypatch):
    """Into a folder that was there, a stopped run removes only what it wrote: an older report
    stays, a half-written new one (staged in the run's record, ``made.Made``) goes."""
    from labkit.outputs import report

    out = tmp_path / "reports"
    out.mkdir()
    (out / "older.html").write_text("kept")

    def half_written(run, folder, made):
        made.stage(Path(folder) / "report.html", b"half")
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "write", half_written)
    status, _ = _call(["run", "--claims", "D2", "--quiet", "--out", str(out)])
    assert status == 130
    assert sorted(p.name for p in out.iterdir()) == ["older.html"]


class _OneCommand:
    """A parser that hands ``main`` one command function, whatever the arguments."""

    def __init__(self, func) -> None:
        self.func = func

    def parse_args(self, argv=None) -> argparse.Namespace:
        return argparse.Namespace(func=self.func)


@pytest.fixture
def psycopg_logger():
    """psycopg's logger, its level restored after the test (a stop quiets it)."""
    logger = logging.getLogger("psycopg")
    level = logger.level
    yield logger
    logger.setLevel(level)


def test_a_stop_shows_no_psycopg_rollback_warning(monkeypatch, psycopg_logger, caplog):
    """The warning psycopg logs when a stop interrupted its command ("error ignored in
    rollback … another command is already in progress") is not shown: one SIGTERM, one
    "Stopped." (the issue)."""
    def interrupted_query(args):
        try:
            os.kill(os.getpid(), signal.SIGTERM)  # taken before the next line runs
            raise AssertionError("SIGTERM did not stop the command")
        finally:  # as psycopg's connection does when its rollback fails
            psycopg_logger.warning("error ignored in rollback on <psycopg.Connection>: "
                                   "another command is already in progress")

    monkeypatch.setattr(cli, "build_parser", lambda: _OneCommand(interrupted_query))
    status, err = _call(["doctor"])
    assert status == 143
    assert err.strip().splitlines() == ["Stopped."]
    # pytest's log capture stands where psycopg's warning would reach stderr
    assert [r.getMessage() for r in caplog.records if r.name == "psycopg"] == []


@pytest.mark.postgres
def test_a_sigterm_during_a_postgres_copy_stops_quietly(monkeypatch, postgres_server,
                                                        psycopg_logger, caplog):
    """SIGTERM in the middle of a COPY into labkit's PostgreSQL (as a B-tree load runs) ends
    in one "Stopped." line and status 143, with nothing from psycopg (the issue: "error
    ignored in rollback … another command is already in progress" before "Stopped.")."""
    dsn = postgres_server.fresh_database("signals")

    def load(args):
        with postgres_server.connect(dsn) as conn:
            conn.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
            with conn.cursor() as cur, cur.copy("COPY t (id) FROM STDIN") as copy:
                for key in range(100_000):
                    copy.write_row((key,))
                    if key == 1_000:
                        os.kill(os.getpid(), signal.SIGTERM)  # taken at the next line
        raise AssertionError("the load ended before SIGTERM stopped it")

    monkeypatch.setattr(cli, "build_parser", lambda: _OneCommand(load))
    try:
        status, err = _call(["doctor"])
    finally:
        postgres_server.drop_created()
    assert status == 143
    assert err.strip().splitlines() == ["Stopped."]
    assert [r.getMessage() for r in caplog.records if r.name == "psycopg"] == []
