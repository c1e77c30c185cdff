"""A stopped or killed run removes only what it made itself: each folder and file it created,
and only while it is still the run's own. A finished report of another run beside it, a folder
another program saved in ``--out`` meanwhile, and a folder another process wrote into stay."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import ONE_CLAIM, start

from labkit.cli import main
from labkit.run import check as claimcheck


@pytest.fixture
def claim_file(tmp_path: Path) -> Path:
    path = tmp_path / "claims.yaml"
    path.write_text(ONE_CLAIM, encoding="utf-8")
    return path


def _stopped_during_the_work(monkeypatch: pytest.MonkeyPatch, meanwhile) -> None:
    """``labkit check``'s work does ``meanwhile()`` (what other programs do during the run),
    then is stopped as Ctrl-C or SIGTERM stops it."""
    def check(*args: object, **kwargs: object) -> None:
        meanwhile()
        raise KeyboardInterrupt

    monkeypatch.setattr(claimcheck, "check", check)


def test_a_stopped_run_keeps_the_finished_report_of_another_run_beside_it(
        tmp_path, claim_file, monkeypatch, capsys):
    """Runs A and B write under one ``reports/`` that neither found: B finishes while A
    works, then A is stopped; B's report stays (A's stop removed all of ``reports/``)."""
    reports = tmp_path / "reports"

    def run_b_finishes() -> None:
        (reports / "B").mkdir()
        (reports / "B" / "report.md").write_text("B's report\n", encoding="utf-8")

    _stopped_during_the_work(monkeypatch, run_b_finishes)
    assert main(["check", str(claim_file), "--quiet", "--out", str(reports / "A")]) == 130
    assert (reports / "B" / "report.md").read_text(encoding="utf-8") == "B's report\n"
    assert sorted(p.name for p in reports.iterdir()) == ["B"]


def test_a_stopped_run_in_an_existing_folder_keeps_what_another_program_saved(
        tmp_path, claim_file, monkeypatch, capsys):
    """``--out .``: a ``notes/`` folder another program saved there during the run is not the
    run's, and stays when the run is stopped (it was deleted with the run's new entries)."""
    out = tmp_path / "work"
    out.mkdir()

    def notes_saved() -> None:
        (out / "notes").mkdir()
        (out / "notes" / "todo.txt").write_text("keep me\n", encoding="utf-8")

    _stopped_during_the_work(monkeypatch, notes_saved)
    monkeypatch.chdir(out)
    assert main(["check", str(claim_file), "--quiet", "--out", "."]) == 130
    assert (out / "notes" / "todo.txt").read_text(encoding="utf-8") == "keep me\n"


def test_a_folder_the_run_made_stays_when_another_process_wrote_into_it(
        tmp_path, claim_file, monkeypatch, capsys):
    """``--out new/report``: the run made ``new/`` and ``new/report/``; another process saved
    a file in ``new/`` since, so the stop removes ``new/report/`` and keeps ``new/`` with it."""
    new = tmp_path / "new"

    def other_file() -> None:
        (new / "other.txt").write_text("theirs\n", encoding="utf-8")

    _stopped_during_the_work(monkeypatch, other_file)
    assert main(["check", str(claim_file), "--quiet", "--out", str(new / "report")]) == 130
    assert sorted(p.name for p in new.iterdir()) == ["other.txt"]


def test_a_stop_while_the_report_is_written_removes_only_the_runs_files(
        tmp_path, claim_file, monkeypatch, capsys):
    """A stop that lands while the report's files are being written leaves the folder as it
    was: the run's half-made files go, what was there before stays."""
    from labkit.outputs import report

    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("before\n", encoding="utf-8")

    def stop(*args: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "markdown", stop)  # results.json is written before report.md
    assert main(["check", str(claim_file), "--quiet", "--out", str(out)]) == 130
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]


# The child runs `labkit check` whose work waits for ever, after saying so in a file.
KILLED = textwrap.dedent("""\
    import sys, time
    from pathlib import Path
    from labkit.run import check as claimcheck
    def check(*args, **kwargs):
        Path(sys.argv[1]).write_text("working")
        time.sleep(120)
    claimcheck.check = check
    from labkit.cli import main
    sys.exit(main(["check", sys.argv[2], "--quiet", "--out", sys.argv[3]]))
""")


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX's")
def test_a_killed_run_leaves_no_folder_it_made_and_keeps_the_others(tmp_path, claim_file):
    """A run killed with SIGKILL (no handler runs) has its watcher remove the folders it made
    for ``--out``, while a finished report another run wrote under the same parent stays."""
    reports, working = tmp_path / "reports", tmp_path / "working"
    child = start([sys.executable, "-c", KILLED, str(working), str(claim_file),
                   str(reports / "A")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not working.exists():
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the run never started its work"
            time.sleep(0.05)
        (reports / "B").mkdir()
        (reports / "B" / "report.md").write_text("B's report\n", encoding="utf-8")
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        deadline = time.monotonic() + 30
        while (reports / "A").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not (reports / "A").exists()
        assert (reports / "B" / "report.md").read_text(encoding="utf-8") == "B's report\n"
    finally:
        child.kill()
        child.wait()


def test_a_name_another_process_took_since_is_left_to_it(tmp_path):
    """A file the run made that another process replaced since (another inode at that name)
    is theirs: the stop leaves it, and the folder holding it, in place."""
    from labkit.run.made import Made

    made = Made()
    folder = made.folder(tmp_path / "new")
    made.stage(folder / "report.md", b"the run's\n")
    temp = next(folder.iterdir())
    theirs = tmp_path / "theirs"
    theirs.write_bytes(b"theirs\n")
    os.replace(theirs, temp)
    assert made.undo() == [str(temp), str(folder)]
    assert temp.read_bytes() == b"theirs\n"
