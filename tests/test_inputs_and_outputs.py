"""Every file a command reads is read within labkit's bounds, and no output of a command is
one of its inputs (issue 46, "Trust, round five", items 2 and 5).

Before: ``compare`` followed a link to ``/dev/zero`` until the kernel killed it (23.6 GB) and
waited for ever on a FIFO; ``progress --merge`` read a growing file whole; ``--junit x.yaml``
replaced the claim file it judged with XML (exit 0) and ``--merge … --out an.csv`` a learner's
export."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from helpers import ONE_CLAIM, fresh_lab

from labkit.cli import main
from labkit.lessons import course

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


@pytest.fixture(autouse=True)
def _progress_elsewhere(monkeypatch, tmp_path):
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    fresh_lab(monkeypatch)


def _refused(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("Error:")
    assert len(err.strip().splitlines()) == 1
    return err


@pytest.fixture
def results(tmp_path):
    """A real results.json of the model's run of one claim file."""
    claims = tmp_path / "claims.yaml"
    claims.write_text(ONE_CLAIM, encoding="utf-8")
    assert main(["check", str(claims), "--out", str(tmp_path / "run"), "--quiet"]) in (0, 1)
    return tmp_path / "run" / "results.json"


def _hostile(tmp_path, kind):
    path = tmp_path / f"{kind}.json"
    if kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        os.mkfifo(path)  # nobody writes to it
    return path


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_compare_reads_within_bounds(tmp_path, capsys, results, kind):
    err = _refused(["compare", str(results), str(_hostile(tmp_path, kind)),
                    "--out", str(tmp_path / "o")], capsys)
    # /dev/zero is no file of documents; an ended pipe with nothing in it is no JSON
    assert ("not a regular file or a pipe" if kind == "zero" else "it is not JSON") in err


def test_compare_refuses_a_file_beyond_the_bound_by_its_size(tmp_path, capsys, results):
    big = tmp_path / "big.json"
    with big.open("wb") as file:
        file.truncate(17 * 1024 * 1024)  # sparse: 17 MiB said, nothing written
    assert "larger than 16 MiB" in _refused(
        ["compare", str(results), str(big), "--out", str(tmp_path / "o")], capsys)


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_merge_reads_within_bounds(tmp_path, capsys, kind):
    path = tmp_path / "an.csv"
    if kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        os.mkfifo(path)
    err = _refused(["progress", "--merge", str(path)], capsys)
    assert ("not a regular file or a pipe" if kind == "zero" else "lacks the columns") in err


def test_junit_over_the_claim_file_is_refused_and_the_file_kept(tmp_path, capsys):
    claims = tmp_path / "claims.yaml"
    claims.write_text(ONE_CLAIM, encoding="utf-8")
    err = _refused(["check", str(claims), "--junit", str(claims), "--out",
                    str(tmp_path / "r")], capsys)
    assert "--junit" in err
    assert "inputs" in err
    assert claims.read_text(encoding="utf-8") == ONE_CLAIM
    # the same file through a folder and a link to it
    link = tmp_path / "link.yaml"
    link.symlink_to(claims)
    _refused(["check", str(tmp_path / "claims.yaml"), "--junit", str(link), "--out",
              str(tmp_path / "r")], capsys)


def test_a_report_folder_that_holds_the_claim_file_is_refused(tmp_path, capsys):
    # A claim file named results.json in the folder --out writes to.
    folder = tmp_path / "here"
    folder.mkdir()
    claims = folder / "results.json"
    claims.write_text(json.dumps([{"id": "a", "title": "t", "fixture": [], "find": {},
                                   "expect": {"count": 0}}]), encoding="utf-8")
    before = claims.read_bytes()
    _refused(["check", str(folder), "--out", str(folder)], capsys)
    assert claims.read_bytes() == before


def test_compare_never_writes_over_what_it_compares(tmp_path, capsys, results):
    other = tmp_path / "compare.md"
    shutil.copy(results, other)
    _refused(["compare", str(results), str(other), "--out", str(tmp_path)], capsys)


def _export(tmp_path, name):
    course.record("q?", "right", "01", answer="5")
    path = tmp_path / name
    assert main(["progress", "--export", str(path)]) == 0
    return path


def test_merge_out_over_a_learners_export_is_refused(tmp_path, capsys):
    an = _export(tmp_path, "an.csv")
    binh = _export(tmp_path, "binh.csv")
    before = an.read_bytes()
    capsys.readouterr()
    _refused(["progress", "--merge", str(an), str(binh), "--out", str(an)], capsys)
    assert an.read_bytes() == before


def test_merge_again_with_its_own_output_among_the_files_gives_the_same_table(tmp_path, capsys):
    # The documented pattern: labkit progress --merge room/*.csv --out room/room.csv, twice.
    room = tmp_path / "room"
    room.mkdir()
    files = [_export(room, "an.csv"), _export(room, "binh.csv")]
    out = room / "room.csv"
    assert main(["progress", "--merge", *map(str, files), "--out", str(out)]) == 0
    first = out.read_text(encoding="utf-8")
    assert main(["progress", "--merge", *map(str, sorted(room.glob("*.csv"))),
                 "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == first
    assert "Left out" in capsys.readouterr().out  # with --out, what was merged goes to stdout


def test_export_over_the_progress_file_is_refused(tmp_path, capsys):
    course.record("q?", "right", "01", answer="5")
    target = course.progress_file()
    before = target.read_bytes()
    _refused(["progress", "--export", str(target)], capsys)
    assert target.read_bytes() == before


def test_junit_over_a_fixture_file_or_a_hard_link_is_refused(tmp_path, capsys):
    """The files a check reads are its claim files and the fixture files they name; a name
    another of the same file has (a hard link) is the same input (from a second read: --junit
    over a claim's fixture file replaced it with JUnit XML)."""
    docs = tmp_path / "docs.json"
    docs.write_text('[{"_id": 1}]', encoding="utf-8")
    claims = tmp_path / "claims.yaml"
    claims.write_text("- {id: f, title: t, fixture_file: docs.json, find: {},"
                      " expect: {count: 1}}\n", encoding="utf-8")
    _refused(["check", str(claims), "--junit", str(docs), "--out", str(tmp_path / "r")], capsys)
    assert docs.read_text(encoding="utf-8") == '[{"_id": 1}]'
    os.link(claims, tmp_path / "same.yaml")
    _refused(["check", str(claims), "--junit", str(tmp_path / "same.yaml"), "--out",
              str(tmp_path / "r")], capsys)
