"""``labkit progress --export`` and ``--merge`` (labkit.lessons.progress_csv): a learner's
exercises as CSV (ID, tries, right or revealed, the question whole) and a room's files as one
table, with one ``Error:`` line for a bad file (issue 32, "Running a room"). The CSV is read
back with Python's csv module, RFC 4180's quoting."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest
from helpers import fresh_lab

from labkit import i18n
from labkit.errors import BadInput
from labkit.lessons import attempts, course, progress_csv


@pytest.fixture(autouse=True)
def _progress_elsewhere(monkeypatch, tmp_path):
    """Exercises made here record progress in a temporary file, not the user's own."""
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    fresh_lab(monkeypatch)  # a fresh kernel: no exercise made yet
    monkeypatch.setattr(i18n, "_chosen", None)  # the language a test chooses stays its own


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
    with pytest.raises(BadInput, match=f"line 3: it does not have the header's "
                                       f"{len(progress_csv.COLUMNS)} fields"):
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
    course.record(question, "tried", "05", answer="1")
    frame = course.progress()
    assert question.strip() in frame._repr_html_()
    assert question.strip() in repr(frame)
    assert frame[frame.columns[2]].str.len().max() > 50  # a cut would have needed one


def _labkit(*args, env=None):
    """``labkit ARGS`` run as the instructor runs it, in its own process."""
    import os

    return subprocess.run([sys.executable, "-m", "labkit", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})


def test_merging_twice_on_three_exports_one_empty_gives_the_same_table(tmp_path):
    """``labkit progress --merge room/*.csv --out room/room.csv`` run twice on three exports (one
    with no rows) gives the same table with three participants: the second run finds the first
    run's table among the files, knows it by its learner column (not its name) and leaves it
    out, and the participant who sent no rows is kept as a row of their own."""
    room = tmp_path / "room"
    room.mkdir()
    _export(room, "an", [ENTRY])
    _export(room, "binh", [dict(ENTRY, state="tried", tries=2, right_at=None,
                                wrong=["5", "'an error'"])])
    _export(room, "cam", [])
    out = room / "everyone.csv"  # not called room.csv: the name is not what marks it

    def merge_all():
        done = _labkit("progress", "--merge", *sorted(map(str, room.glob("*.csv"))),
                       "--out", str(out))
        assert done.returncode == 0, done.stderr
        return done.stdout, out.read_text(encoding="utf-8")

    said_first, first = merge_all()
    said_second, second = merge_all()
    assert second == first
    table = _read(second)
    assert [row["learner"] for row in table] == ["an", "binh", "cam"]
    assert table[2] == {"learner": "cam", **dict.fromkeys(progress_csv.COLUMNS, "")}
    assert "Merged 3 participant(s): an, binh, cam." in said_second
    assert "No exercise rows from: cam" in said_second
    assert f"Left out {out}: it is a merged table" in said_second
    assert "Left out" not in said_first


def test_a_merged_table_alone_is_no_participant(tmp_path):
    """A merged table given as the only file, or read as one export, is refused by name: it
    is never one participant's rows."""
    (tmp_path / "sent").mkdir()
    merged = tmp_path / "an.csv"  # a name a participant's file could have
    merged.write_text(progress_csv.merged_csv([_export(tmp_path / "sent", "an", [ENTRY])]),
                      encoding="utf-8")
    with pytest.raises(BadInput, match="needs at least one participant's export"):
        progress_csv.merge([merged])
    with pytest.raises(BadInput, match="is a room's merged table"):
        progress_csv.read(merged)


def test_room_view_takes_plain_strings_and_shows_an_empty_participant(tmp_path):
    """``room_view`` takes the files' paths as strings, as docs/instructors.md writes them,
    and a participant whose file has no rows is a row of empty cells."""
    an = str(_export(tmp_path, "an", [ENTRY]))
    cam = str(_export(tmp_path, "cam", []))
    view = progress_csv.room_view([an, cam])
    assert list(view.index) == ["an", "cam"]
    assert (view.loc["an", "01.silent"], view.loc["cam", "01.silent"]) == ("right", "")
    assert progress_csv.room_view([cam]).index.tolist() == ["cam"]


def test_tries_stop_at_the_first_right_answer_and_keep_the_first_try_and_each_wrong_answer():
    """Checks are counted up to and including the first right answer, across a new kernel's
    exercise too; the entry keeps that the first try was wrong and each wrong answer, in order
    and as Python writes it; the export carries first_try and wrong_answers."""
    made = attempts.exercise("04.after_top")
    made.check(5)
    made.check("16777216")
    made.check(0)
    made.check(7)  # after the right answer: not a try, not a wrong answer
    attempts.exercise("04.after_top").check(9)  # a new kernel's exercise, still after it
    (entry,) = course.entries()
    assert (entry["tries"], entry["right_at"], entry["wrong"]) == (3, 3, ["5", "'16777216'"])
    (row,) = progress_csv.rows()
    assert (row["tries"], row["first_try"], row["right"]) == ("3", "no", "yes")
    assert json.loads(row["wrong_answers"]) == ["5", "'16777216'"]


def test_a_right_first_try_is_kept_as_such():
    """A right answer at the first try: one try, first_try yes, no wrong answers."""
    made = attempts.exercise("04.after_top")
    made.check(0)
    made.check(5)
    (row,) = progress_csv.rows()
    assert (row["tries"], row["first_try"], row["wrong_answers"]) == ("1", "yes", "")


def test_an_entry_from_before_first_tries_were_kept_says_nothing_of_them():
    """A progress entry written before first tries were kept, already right, is exported with
    first_try empty (not "no"), and a later check leaves its tries as they were."""
    course.progress_file().write_text(json.dumps(
        {"04 q?": {"lesson": "04", "exercise": "q?", "state": "right", "tries": 2}}),
        encoding="utf-8")
    course.record("q?", "tried", "04", answer="5")
    (row,) = progress_csv.rows()
    assert (row["tries"], row["first_try"], row["wrong_answers"]) == ("2", "", "")


def test_a_file_exported_before_the_new_columns_is_still_read(tmp_path):
    """An export without first_try and wrong_answers (as labkit wrote them before) merges,
    those fields empty."""
    old = tmp_path / "an.csv"
    (row,) = progress_csv.rows([ENTRY])
    kept = {name: row[name] for name in progress_csv.REQUIRED}
    old.write_text(progress_csv.to_csv([kept], progress_csv.REQUIRED), encoding="utf-8")
    (row,) = progress_csv.merge([old]).rows
    assert (row["state"], row["first_try"], row["wrong_answers"]) == ("right", "", "")
    assert progress_csv.frame([old])["wrong_answers"].tolist() == [[]]


@pytest.mark.parametrize(("change", "words"), [
    ({"first_try": "maybe"}, "line 2: first_try is 'maybe', not yes, no or empty"),
    ({"wrong_answers": "5, 6"}, "line 2: wrong_answers is not a JSON list of texts"),
    ({"wrong_answers": "[5]"}, "line 2: wrong_answers is not a JSON list of texts"),
])
def test_a_bad_first_try_or_wrong_answers_field_names_its_line(tmp_path, change, words):
    """A first_try other than yes, no or empty, or wrong answers that are no JSON list of
    texts, is refused naming the line."""
    row = dict(progress_csv.rows([ENTRY])[0], **change)
    path = tmp_path / "an.csv"
    path.write_text(progress_csv.to_csv([row]), encoding="utf-8")
    with pytest.raises(BadInput, match=words):
        progress_csv.merge([path])


def test_the_room_by_question_counts_first_tries_and_the_common_wrong_answers(tmp_path):
    """The table by question says, per exercise ID, how many met it, got it right first try
    and right at all, and the wrong answers given, most given first, each once a participant."""
    first = dict(ENTRY, right_at=1, tries=1, wrong=[])
    late = dict(ENTRY, right_at=3, tries=3, wrong=["5", "5", "'x'"])
    stuck = dict(ENTRY, state="tried", right_at=None, tries=1, wrong=["5"])
    files = [_export(tmp_path, name, [entry]) for name, entry in
             (("an", first), ("binh", late), ("chi", stuck))] + [_export(tmp_path, "dung", [])]
    table = progress_csv.by_question(files)
    (row,) = table.to_dict("records")
    assert row == {"ID": "01.silent", "question": "q?", "met": 3, "tried": 3,
                   "right first try": 1, "right": 2, "revealed": 0,
                   "wrong answers given": "5 (\u00d72); 'x' (\u00d71)"}


def test_the_vietnamese_export_writes_the_questions_in_vietnamese(tmp_path):
    """``LABKIT_LANG=vi labkit progress --export`` writes each question as the Vietnamese
    lesson asks it (the ID and the state stay as they are), not only its message."""
    made = attempts.exercise("04.after_top")
    made.check(0)
    target = tmp_path / "an.csv"
    done = _labkit("progress", "--export", str(target), env={"LABKIT_LANG": "vi"})
    assert done.returncode == 0, done.stderr
    (row,) = _read(target.read_text(encoding="utf-8"))
    i18n.language("vi")
    assert row["question"] == i18n._(made.question) != made.question
    assert (row["exercise_id"], row["state"]) == ("04.after_top", "right")


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "There is no exercise 'nope.x'. An exercise's ID is the name in the cell"),
    ("vi", "Không có bài tập 'nope.x'. ID của một bài tập"),
])
def test_revealing_an_unknown_exercise_is_one_line_in_the_learners_language(lang, words):
    """``labkit.reveal("nope.x")`` answers with one line in the learner's language that says
    where the IDs are (labkit.progress()), never a traceback; a name in a lesson's range
    lists that lesson's IDs."""
    i18n.language(lang)
    said = attempts.reveal("nope.x")
    assert said.correct is None
    assert said.message.startswith(words)
    assert "labkit.progress()" in said.message
    assert "\n" not in said.message
    listed = "01.string_range, 01.silent, 01.october, 01.in_time, 01.quiz_month"
    assert listed in attempts.reveal("01.nope").message
    assert course.entries() == []


@pytest.mark.parametrize(("lang", "word"), [("en", "not answered yet"), ("vi", "chưa trả lời")])
def test_an_exercise_not_answered_yet_is_not_said_to_be_viewed(lang, word):
    """An exercise whose cell ran but which is not answered is "not answered yet" in the
    progress table, not "seen"/"đã xem", which read like its answer was viewed."""
    i18n.language(lang)
    made = attempts.exercise("04.after_top")
    frame = course.progress()
    assert frame[frame[i18n._("ID")] == "04.after_top"][i18n._("state")].tolist() == [word]
    assert made.question


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_field_a_spreadsheet_would_run_is_written_as_text_and_read_back(tmp_path, start):
    """OWASP's CSV injection rule (issue 46, item 4): a field starting with = + - @ or a tab
    or carriage return is written after a ', in the export and in the merged table, with a
    learner's name taken from a file name such as ``=1+2.csv``; merging reads it back whole."""
    formula = f"{start}HYPERLINK(\"http://x\",\"y\")"
    row = dict(progress_csv.rows([ENTRY])[0], question=formula, exercise_id=formula)
    text = progress_csv.to_csv([row])
    fields = next(csv.DictReader(io.StringIO(text, newline="")))
    assert fields["question"] == "'" + formula
    assert fields["exercise_id"] == "'" + formula
    learner = tmp_path / f"{start}1+2.csv"
    learner.write_text(text, encoding="utf-8")
    room = progress_csv.merge([learner])
    assert room.table()[0]["question"] == formula  # read back as the learner's file meant it
    merged = next(csv.DictReader(io.StringIO(room.csv(), newline="")))
    assert merged["learner"] == f"'{start}1+2"
    assert merged["question"] == "'" + formula
    again = tmp_path / "room.csv"
    again.write_text(room.csv(), encoding="utf-8")
    assert progress_csv.merge([learner, again]).csv() == room.csv()
