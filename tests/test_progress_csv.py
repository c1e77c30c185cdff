"""``labkit progress --export`` and ``--merge`` (labkit.lessons.progress_csv): a learner's
exercises as CSV (ID, tries, right or revealed, the question whole) and a room's files as one
table, with one ``Error:`` line for a bad file (issue 32, "Running a room"). The CSV is read
back with Python's csv module, RFC 4180's quoting."""

from __future__ import annotations

import csv
import io
import subprocess
import sys

import pytest

from labkit.errors import BadInput
from labkit.lessons import attempts, course, progress_csv


@pytest.fixture(autouse=True)
def _progress_elsewhere(monkeypatch, tmp_path):
    """Exercises made here record progress in a temporary file, not the user's own."""
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    monkeypatch.setattr(course, "_made", {})
    monkeypatch.setattr(course, "_here", {})
    monkeypatch.setattr(attempts, "_exercises", {})  # a fresh kernel: no exercise made yet


def _read(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_an_exercise_made_by_name_is_exported_with_its_id_tries_and_state():
    """An exercise asked for by name and answered wrong then right is one row: its ID, its
    lesson, the question whole, state right, 2 tries, right yes, revealed no."""
    made = attempts.exercise("04.after_top")
    made.check(5)
    made.check(0)
    (row,) = _read(progress_csv.to_csv(progress_csv.rows()))
    assert row["exercise_id"] == "04.after_top"
    assert row["lesson"] == "04"
    assert row["question"] == made.question
    assert (row["state"], row["tries"], row["right"], row["revealed"]) == ("right", "2", "yes",
                                                                           "no")


def test_a_revealed_exercise_says_so():
    """An exercise whose answer was revealed without a right answer: revealed yes, right no."""
    attempts.reveal("01.silent")
    (row,) = progress_csv.rows()
    assert (row["exercise_id"], row["right"], row["revealed"]) == ("01.silent", "no", "yes")


def test_a_long_question_with_commas_quotes_and_breaks_stays_whole():
    """A question longer than any display cuts, holding commas, quotes and a line break, is
    one CSV field and reads back the same."""
    question = "Which, of these \"orders\" (đơn hàng) comes first?\n" + "x" * 300
    entries = [{"lesson": "03", "exercise": question, "state": "tried", "tries": 1, "id": "03.q"}]
    (row,) = _read(progress_csv.to_csv(progress_csv.rows(entries)))
    assert row["question"] == question


def _export(folder, name, entries):
    path = folder / f"{name}.csv"
    path.write_text(progress_csv.to_csv(progress_csv.rows(entries)), encoding="utf-8")
    return path


ENTRY = {"lesson": "01", "exercise": "q?", "state": "right", "tries": 3, "id": "01.silent"}


def test_a_rooms_files_merge_into_one_table_with_each_learner(tmp_path):
    """Two learners' files merge into one table, each row with its learner (the file's name),
    and the room view is one row per learner, one column per exercise ID."""
    an = _export(tmp_path, "an", [ENTRY])
    binh = _export(tmp_path, "binh", [dict(ENTRY, state="revealed", tries=0),
                                      dict(ENTRY, id="02.first", state="tried", tries=1)])
    table = _read(progress_csv.merged_csv([an, binh]))
    assert [(r["learner"], r["exercise_id"], r["state"]) for r in table] == [
        ("an", "01.silent", "right"), ("binh", "01.silent", "revealed"),
        ("binh", "02.first", "tried")]
    view = progress_csv.room_view([an, binh])
    assert view.loc["an", "01.silent"] == "right"
    assert view.loc["an", "02.first"] == ""
    frame = progress_csv.frame([an, binh])
    assert frame["tries"].tolist() == [3, 0, 1]
    assert frame["right"].tolist() == [True, False, False]


@pytest.mark.parametrize(("content", "words"), [
    (b"name,score\nan,3\n", "lacks the columns exercise_id"),
    (b"\xff\xfe\x00garbage", "not UTF-8 text"),
    (None, "no such file"),
])
def test_a_bad_file_is_one_clear_error(tmp_path, content, words):
    """A file that is no export, not text, or missing: BadInput naming the file and why."""
    path = tmp_path / "an.csv"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(BadInput, match=words) as caught:
        progress_csv.merge([path])
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(("change", "words"), [
    ({"tries": "three"}, "line 2: tries is 'three', not a whole number"),
    ({"state": "done"}, "line 2: state is 'done', not one of seen, tried, right, revealed"),
])
def test_a_bad_row_names_its_line(tmp_path, change, words):
    """A row whose tries is not a number or whose state is unknown names its line."""
    row = dict(progress_csv.rows([ENTRY])[0], **change)
    path = tmp_path / "an.csv"
    path.write_text(progress_csv.to_csv([row]), encoding="utf-8")
    with pytest.raises(BadInput, match=words):
        progress_csv.merge([path])


def test_a_short_row_names_its_line(tmp_path):
    """A row with fewer fields than the header names its line."""
    good = progress_csv.to_csv(progress_csv.rows([ENTRY]))
    path = tmp_path / "an.csv"
    path.write_text(good + "01.x,01\n", encoding="utf-8")
    with pytest.raises(BadInput, match="line 3: it does not have the header's 8 fields"):
        progress_csv.merge([path])


def test_two_files_of_one_learner_are_refused(tmp_path):
    """Two files with one name (from two folders) would mix two learners: refused."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = _export(tmp_path / "a", "an", [ENTRY]), _export(tmp_path / "b", "an", [ENTRY])
    with pytest.raises(BadInput, match="are both an's"):
        progress_csv.merge([first, second])


def test_the_command_line_exports_and_merges(tmp_path, monkeypatch):
    """``labkit progress --export FILE`` writes the CSV; ``--merge FILES --out FILE`` writes the
    room's table; a bad file is one ``Error:`` line with exit status 2, never a traceback."""
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    attempts.reveal("01.silent")

    def labkit(*args):
        return subprocess.run([sys.executable, "-m", "labkit", "progress", *args],
                              capture_output=True, text=True, timeout=120)

    exported = labkit("--export", str(tmp_path / "an.csv"))
    assert exported.returncode == 0, exported.stderr
    assert _read((tmp_path / "an.csv").read_text())[0]["exercise_id"] == "01.silent"
    merged = labkit("--merge", str(tmp_path / "an.csv"), "--out", str(tmp_path / "room.csv"))
    assert merged.returncode == 0, merged.stderr
    assert _read((tmp_path / "room.csv").read_text())[0]["learner"] == "an"
    (tmp_path / "bad.csv").write_text("nothing\n")
    bad = labkit("--merge", str(tmp_path / "bad.csv"))
    assert bad.returncode == 2  # BadInput: the input, not labkit, is at fault
    assert bad.stderr.startswith("Error: ")
    assert "Traceback" not in bad.stderr


def test_the_progress_table_shows_each_question_whole():
    """``labkit.progress()`` in a notebook (HTML) and as text shows a long question whole,
    where pandas would cut it at 50 characters with "..." (issue 32: "cut-off question text
    for rows")."""
    question = "Which of these orders comes first once sorted by _id? " * 4
    course.record(question, "tried", 1, "05")
    frame = course.progress()
    assert question.strip() in frame._repr_html_()
    assert question.strip() in repr(frame)
    assert frame[frame.columns[1]].str.len().max() > 50  # a cut would have needed one
