"""docs/instructors.md agrees with the course (issue 21): every lesson in the timings with its
minutes and the right sum, plans that add up, every exercise's common mistakes, and answers
pointed at the generated sheet, not at Python source."""

from __future__ import annotations

import re
from pathlib import Path

from labkit.lessons import course, questions

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "instructors.md"


def _section(title: str) -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def test_the_timings_list_every_lesson_with_its_minutes_and_their_sum():
    """Each lesson of labkit.course has its row with its minutes; the total row is their sum."""
    table = _section("Timings").split("\n### ", 1)[0]
    rows = dict(re.findall(r"^\| (\d\d) [^|]+\| (\d+) \|", table, flags=re.MULTILINE))
    assert rows == {lesson.number: str(lesson.minutes) for lesson in course.LESSONS}
    total = sum(lesson.minutes for lesson in course.LESSONS)
    assert f"| **all nine** | **{total}** |" in table
    assert len(course.LESSONS) == 9


def test_each_plan_adds_up_to_its_stated_total():
    """The 3-hour tracks and the full day: their minutes add up to the total row."""
    section = _section("Timings")
    three_hours = section.split("### A 3-hour session", 1)[1].split("### ", 1)[0]
    rows = [r for r in re.findall(r"^\|[^*\n]*$", three_hours, flags=re.MULTILINE)
            if re.search(r"\| (\d+) \|", r)]
    tracks = [[int(m) for m in re.findall(r"\| (\d+) (?=\|)", r)] for r in rows]
    assert sum(t[0] for t in tracks) == 180
    assert sum(t[1] for t in tracks) == 180
    day = section.split("### A full day", 1)[1]
    minutes = [int(m) for m in re.findall(r"^\| \d\d:\d\d \|[^|]+\| (\d+) \|$", day,
                                          flags=re.MULTILINE)]
    assert sum(minutes) == 475
    assert "| **16:55** | | **475** |" in day


def test_every_exercise_has_its_common_mistake():
    """Each exercise of the catalogue has a row in the common mistakes table."""
    table = _section("Common mistakes, and what to say")
    assert [n for n in questions.EXERCISES if f"| `{n}` |" not in table] == []


def test_the_answers_are_the_generated_sheet_not_python_source():
    """The guide points at docs/answers.md and docs/answers.vi.md, never at questions.py."""
    text = GUIDE.read_text(encoding="utf-8")
    assert "questions.py" not in text
    assert "(answers.md)" in text
    assert "(answers.vi.md)" in text
    assert "all seven" not in text
    assert "all eight" not in text
