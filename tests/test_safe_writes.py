"""Every output file (report.md, report.html, results.json, the JUnit XML, a plot) is written
whole beside its name and renamed into place: a planted link is never followed, a full disk or
an interrupt leaves the report that was there, and something that is not a regular file where
an output goes (a link, a named pipe) is refused with an ``Error:`` line before the work."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ONE_CLAIM

from labkit.cli import main
from labkit.outputs import report
from labkit.run import check as claimcheck

NAMES = ("report.html", "report.md", "results.json")
posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX's")


@pytest.fixture
def claim_file(tmp_path: Path) -> Path:
    path = tmp_path / "claims.yaml"
    path.write_text(ONE_CLAIM, encoding="utf-8")
    return path


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _work_never_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    def check(*args: object, **kwargs: object) -> None:
        raise AssertionError("the work started before the output was checked")

    monkeypatch.setattr(claimcheck, "check", check)


def test_a_planted_link_in_the_report_folder_is_refused_and_its_target_untouched(
        tmp_path, claim_file, monkeypatch, capsys):
    """In a shared folder, ``report.md -> victim.txt`` is refused before the work with an
    ``Error:`` line naming it; the victim keeps its text (it was overwritten, as root too)."""
    shared, victim = tmp_path / "shared", tmp_path / "victim.txt"
    shared.mkdir()
    victim.write_text("precious\n", encoding="utf-8")
    (shared / "report.md").symlink_to(victim)
    _work_never_starts(monkeypatch)
    assert main(["check", str(claim_file), "--quiet", "--out", str(shared)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: "), err
    assert str(shared / "report.md") in err
    assert "symbolic link" in err
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert (shared / "report.md").is_symlink()


def test_a_link_given_as_junit_is_refused_and_its_target_untouched(
        tmp_path, claim_file, monkeypatch, capsys):
    """``--junit`` naming a link is refused before the work; the file it points to stays."""
    victim, link = tmp_path / "victim.txt", tmp_path / "junit.xml"
    victim.write_text("precious\n", encoding="utf-8")
    link.symlink_to(victim)
    _work_never_starts(monkeypatch)
    assert main(["check", str(claim_file), "--quiet", "--out", str(tmp_path / "out"),
                 "--junit", str(link)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: --junit"), err
    assert str(link) in err
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert not (tmp_path / "out").exists()


def test_a_link_that_appears_during_the_run_is_replaced_not_followed(tmp_path, claim_file,
                                                                      monkeypatch, capsys):
    """A link planted at ``report.md`` after the checks, while the claims run, never has its
    target written: the report is refused there, and the victim keeps its text."""
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    real_check = claimcheck.check

    def plant_then_check(*args: object, **kwargs: object):
        (out / "report.md").symlink_to(victim)
        return real_check(*args, **kwargs)

    monkeypatch.setattr(claimcheck, "check", plant_then_check)
    status = main(["check", str(claim_file), "--quiet", "--out", str(out)])
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert status == 2, capsys.readouterr()
    assert "symbolic link" in capsys.readouterr().err


def _labkit_briefly(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m labkit`` with a short bound: a named pipe opened for writing blocks for ever."""
    return subprocess.run([sys.executable, "-m", "labkit", *args], capture_output=True,
                          text=True, timeout=60)


@posix_only
def test_a_named_pipe_given_as_junit_is_refused_before_the_work(tmp_path, claim_file):
    """``--junit`` naming a FIFO ends at once with an ``Error:`` line naming it (the run did its
    work, then blocked for ever opening the pipe)."""
    fifo = tmp_path / "junit.xml"
    os.mkfifo(fifo)
    done = _labkit_briefly("check", str(claim_file), "--quiet", "--out", str(tmp_path / "out"),
                           "--junit", str(fifo))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("Error: --junit")
    assert str(fifo) in done.stderr
    assert "named pipe" in done.stderr
    assert not (tmp_path / "out").exists()


@posix_only
def test_a_named_pipe_as_results_json_in_the_report_folder_is_refused_before_the_work(
        tmp_path, claim_file):
    """``results.json`` a FIFO inside ``--out``: refused at once with an ``Error:`` line naming
    it, before any claim runs (the run blocked for ever after its work)."""
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "results.json")
    done = _labkit_briefly("check", str(claim_file), "--quiet", "--out", str(out))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("Error: --out")
    assert str(out / "results.json") in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["results.json"]


def _a_first_report(claim_file: Path, out: Path, capsys: pytest.CaptureFixture[str]
                    ) -> dict[str, bytes]:
    assert main(["check", str(claim_file), "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    before = _files(out)
    assert sorted(before) == sorted(NAMES)
    # The next run's report differs in every file (runs within one second look alike).
    claim_file.write_text(ONE_CLAIM.replace("title: plain", "title: the next run"),
                          encoding="utf-8")
    return before


def test_an_interrupt_while_the_report_is_written_leaves_the_earlier_report_whole(
        tmp_path, claim_file, monkeypatch, capsys):
    """Ctrl-C while report.md is made, in a folder holding an earlier report: all three files
    are the earlier ones (results.json was the new run's beside the old report.md)."""
    out = tmp_path / "out"
    before = _a_first_report(claim_file, out, capsys)

    def interrupted(*args: object) -> str:
        signal.raise_signal(signal.SIGINT)
        raise AssertionError("SIGINT did not interrupt")

    monkeypatch.setattr(report, "markdown", interrupted)
    assert main(["check", str(claim_file), "--quiet", "--out", str(out)]) == 130
    assert _files(out) == before


def test_an_interrupt_while_the_files_are_put_in_place_waits_until_all_are(
        tmp_path, claim_file, monkeypatch, capsys):
    """Ctrl-C landing between the renames acts once all three new files are in place: the
    folder never holds a mix of the earlier report and the new one."""
    out = tmp_path / "out"
    before = _a_first_report(claim_file, out, capsys)
    real_replace = os.replace
    calls: list[str] = []

    def replace(source: str, target: str) -> None:
        real_replace(source, target)
        calls.append(os.fspath(target))
        if len(calls) == 1:
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(os, "replace", replace)
    assert main(["check", str(claim_file), "--quiet", "--out", str(out)]) == 130
    after = _files(out)
    assert sorted(after) == sorted(NAMES)
    assert all(after[name] != before[name] for name in NAMES)
    assert len(calls) == 3


@pytest.fixture
def full_disk(tmp_path: Path):
    """A small tmpfs at ``tmp_path/disk`` (root only), unmounted afterwards."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(disk)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(disk: Path) -> None:
    """Fill ``disk`` to its last byte."""
    def write_until_full() -> None:
        with open(disk / "filler", "wb", buffering=0) as handle:
            while True:
                handle.write(b"\0" * 4096)

    with pytest.raises(OSError, match="No space left") as full:
        write_until_full()
    assert full.value.errno == errno.ENOSPC


def test_a_full_disk_keeps_the_earlier_report_and_says_so(full_disk, claim_file, capsys):
    """On a disk that fills up, the new report fails with an ``Error:`` line naming the file
    and the earlier report stays whole (results.json was 8,192 bytes of invalid JSON)."""
    out = full_disk / "out"
    before = _a_first_report(claim_file, out, capsys)
    _fill(full_disk)
    assert main(["check", str(claim_file), "--quiet", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: could not write "), err
    assert str(out) in err
    assert os.strerror(errno.ENOSPC) in err
    assert _files(out) == before
    json.loads(before["results.json"])


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="finds a file's name in /proc")
def test_a_disk_full_at_the_last_file_puts_none_of_the_new_files_in_place(
        tmp_path, claim_file, monkeypatch, capsys):
    """ENOSPC while report.html is written, after results.json and report.md were: none of
    the three new files is put in place, and no temporary file is left."""
    out = tmp_path / "out"
    before = _a_first_report(claim_file, out, capsys)
    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(".report.html"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    assert main(["check", str(claim_file), "--quiet", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"could not write {out / 'report.html'}" in err, err
    assert _files(out) == before


def test_a_plot_file_is_written_whole_and_a_link_there_is_refused(tmp_path, capsys):
    """``labkit btree --plot`` refuses a link at the plot's name before the load, and writes a
    plain file whole where there is none."""
    victim, link = tmp_path / "victim.txt", tmp_path / "plot.png"
    victim.write_text("precious\n", encoding="utf-8")
    link.symlink_to(victim)
    args = ["btree", "--engine", "model", "--keys", "int", "--n", "200", "--quiet"]
    assert main([*args, "--plot", str(link)]) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert victim.read_text(encoding="utf-8") == "precious\n"
    plot = tmp_path / "plain.png"
    assert main([*args, "--plot", str(plot)]) == 0
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.png", "plot.png", "victim.txt"]
