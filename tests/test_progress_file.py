"""The progress file (issue 46, "Trust, round five", items 3 and 10): two kernels recording at
once both keep what they wrote, a read during a write sees a whole file, and a spoiled file
is set aside in one line, never a traceback, in ``labkit progress`` and in every exercise cell
that records."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from helpers import fresh_lab

from labkit.cli import main
from labkit.lessons import course, progress_csv

PER_KERNEL = 150


@pytest.fixture(autouse=True)
def _progress_elsewhere(monkeypatch, tmp_path):
    """Each test's own progress file (the kernels started here inherit it)."""
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    fresh_lab(monkeypatch)


# A kernel recording its own exercises, one try each, as fast as it can.
KERNEL = textwrap.dedent("""
    import sys
    from labkit.lessons import course
    for i in range(int(sys.argv[2])):
        course.record(f"question {i} of {sys.argv[1]}", "tried", "01", answer="5")
""")


def _kernel(tag: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", KERNEL, tag, str(PER_KERNEL)])


def test_two_kernels_recording_at_once_keep_every_entry():
    # The issue measured 7 to 14 of 400 entries kept when the file was rewritten in place.
    kernels = [_kernel("a"), _kernel("b")]
    assert [k.wait(timeout=120) for k in kernels] == [0, 0]
    kept = course.entries()
    assert len(kept) == 2 * PER_KERNEL
    assert {entry["tries"] for entry in kept} == {1}


def test_a_read_during_writes_never_sees_a_part_of_the_file():
    writer = _kernel("w")
    counts = []
    while writer.poll() is None:
        counts.append(len(course.entries()))
    assert writer.wait() == 0
    counts.append(len(course.entries()))
    assert counts == sorted(counts)  # never fewer than before: no empty or half file read
    assert counts[-1] == PER_KERNEL


SPOILED = [
    ("not JSON", b"{\"01 q\": {\"lesson\": \"01\", "),
    ("not an object", b"[1, 2, 3]"),
    ("not UTF-8", b"\xff\xfe{}"),
]


@pytest.mark.parametrize(("name", "content"), SPOILED, ids=[n for n, _ in SPOILED])
def test_a_spoiled_file_is_set_aside_in_one_line_when_a_cell_records(name, content, capsys):
    path = course.progress_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    course.record("q?", "tried", "01", answer="5")  # never raises
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "cannot be read" in err
    [kept] = path.parent.glob(path.name + ".unreadable-*")
    assert kept.read_bytes() == content  # nothing the learner had is lost
    assert [entry["exercise"] for entry in course.entries()] == ["q?"]


@pytest.mark.parametrize("entry", [
    {"lesson": "01"},  # no question, no state
    {"lesson": "01", "exercise": "q?", "state": "done", "tries": 1},
    {"lesson": 1, "exercise": "q?", "state": "tried", "tries": 1},
    {"lesson": "01", "exercise": "q?", "state": "tried", "tries": "three"},
    "not an entry",
], ids=["no question", "unknown state", "lesson a number", "tries a word", "a string"])
def test_a_spoiled_entry_breaks_neither_the_table_nor_a_record(entry, capsys):
    path = course.progress_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"01 q?": entry}), encoding="utf-8")
    assert main(["progress"]) == 0
    course.record("q?", "tried", "01", answer="5")
    assert progress_csv.rows()  # the export reads it too
    capsys.readouterr()


def test_labkit_progress_on_a_spoiled_file_is_one_line_and_keeps_the_file(capsys):
    path = course.progress_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"{oops")
    assert main(["progress"]) == 0
    err = capsys.readouterr().err
    assert "cannot be read" in err
    assert "Traceback" not in err
    assert path.read_bytes() == b"{oops"  # only a write sets it aside


def test_a_progress_file_that_is_a_device_is_refused_without_reading_it(capsys, monkeypatch):
    monkeypatch.setenv("LABKIT_PROGRESS", "/dev/zero")
    assert course.entries() == []
    assert "not a regular file" in capsys.readouterr().err
