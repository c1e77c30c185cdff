"""Retrieval (labkit.lessons.recall): a warm-up from the lesson before opens each lesson from 02
on, a short mixed quiz closes every lesson, each question's typical mistake gets its hint, and
the closing cell says how the questions went without showing an answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import fresh_lab

import labkit
from labkit import i18n, syllabus
from labkit.lessons import questions, recall

ROOT = Path(__file__).resolve().parent.parent
EDITIONS = {"en": ROOT / "notebooks", "vi": ROOT / "notebooks" / "vi"}
NOTEBOOKS = [(code, lesson) for code in EDITIONS for lesson in syllabus.LESSONS]
EXERCISE = re.compile(r'labkit\.exercise\("([^"]+)"\)')


@pytest.fixture(autouse=True)
def _progress_elsewhere(monkeypatch, tmp_path):
    """Exercises made here record progress in a temporary file, in a fresh kernel's state."""
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    fresh_lab(monkeypatch)
    monkeypatch.setattr(i18n, "_chosen", None)


def _cells(code: str, lesson: syllabus.Lesson) -> list[tuple[str, str]]:
    cells = json.loads((EDITIONS[code] / lesson.file).read_text(encoding="utf-8"))["cells"]
    return [(c["cell_type"], "".join(c["source"])) for c in cells]


def _title(code: str, number: str) -> str:
    """Lesson ``number``'s title in the edition's language."""
    i18n.language(code)
    try:
        return i18n._(syllabus.LESSONS[int(number)].title)
    finally:
        i18n._chosen = None


@pytest.mark.parametrize("name", sorted(recall.RECALLS))
def test_each_question_answers_itself_and_hints_at_its_typical_mistake(name):
    """A question's own computed answer is right; its first listed mistake, a typical wrong
    answer, is a try that gets that mistake's own hint, not the answer."""
    asked = questions.exercise(name)
    assert asked.mistakes, name
    wrong, hint = asked.mistakes[0]
    feedback = asked.check(wrong)
    assert feedback.correct is False
    assert f"Hint: {hint}" in feedback.message
    assert asked.explanation not in feedback.message
    assert asked.check(asked.answer()).correct is True


@pytest.mark.parametrize("name", sorted(recall.RECALLS))
def test_a_question_as_the_lesson_commits_it_shows_no_answer(name):
    """``check(None)``, as the notebook's cell runs it, repeats the question and asks for a
    prediction: no explanation, no verdict, no try counted."""
    asked = questions.exercise(name)
    feedback = asked.check(None)
    assert feedback.correct is None
    assert asked.question in feedback.message
    assert asked.explanation not in feedback.message
    assert asked.attempts == 0


def test_each_warm_up_recalls_the_lesson_before_and_each_quiz_an_earlier_one_too():
    """Lessons 02 onward have one warm-up, on the lesson just before; every lesson has a quiz of
    3 to 5 questions, each on that lesson or an earlier one, and from lesson 01 on at least one
    on an earlier lesson (lesson 00's on itself only)."""
    for lesson in syllabus.LESSONS:
        number = int(lesson.number)
        warm = recall.warm_up(lesson.number)
        assert (warm is None) == (number < 2), lesson.number
        if warm:
            assert int(recall.RECALLS[warm]) == number - 1
        quiz = recall.quiz(lesson.number)
        assert 3 <= len(quiz) <= 5, lesson.number
        recalled = [int(recall.RECALLS[name]) for name in quiz]
        assert max(recalled) <= number
        assert (min(recalled) < number) == (number > 0), lesson.number


@pytest.mark.parametrize(("code", "lesson"), [n for n in NOTEBOOKS if int(n[1].number) >= 2],
                         ids=lambda v: v if isinstance(v, str) else v.number)
def test_a_lesson_opens_with_a_warm_up_naming_the_lesson_before(code, lesson):
    """Right after ``labkit.start_lesson`` comes a heading naming the lesson before, by number
    and title in the edition's language, then the warm-up's cell, then a cell that waits for
    it."""
    cells = _cells(code, lesson)
    start = next(i for i, (_kind, text) in enumerate(cells)
                 if f'labkit.start_lesson("{lesson.number}")' in text)
    (kind, heading), (_code, asked), (_code2, waits) = cells[start + 1:start + 4]
    before = recall.RECALLS[f"{lesson.number}.warm_up"]
    assert kind == "markdown"
    assert heading.startswith("## ")
    assert before in heading.splitlines()[0]
    assert _title(code, before) in heading
    assert EXERCISE.findall(asked) == [f"{lesson.number}.warm_up"]
    assert f'labkit.after("{lesson.number}.warm_up", labkit.score' in waits


@pytest.mark.parametrize(("code", "lesson"), NOTEBOOKS,
                         ids=lambda v: v if isinstance(v, str) else v.number)
def test_a_lesson_ends_with_its_quiz_after_everything_else(code, lesson):
    """The lesson's last cells are its quiz: a heading, one cell per question in the order
    ``recall.quiz`` gives, after the key points where the lesson has them, and a last cell
    that waits for every question and then shows the score."""
    cells = _cells(code, lesson)
    quiz = recall.quiz(lesson.number)
    tail = cells[-(len(quiz) + 2):]
    assert tail[0][0] == "markdown"
    assert [EXERCISE.findall(text) for _kind, text in tail[1:-1]] == [[name] for name in quiz]
    last = tail[-1][1]
    assert "labkit.after(quiz, labkit.score, quiz)" in last
    assert all(f'"{name}"' in last for name in quiz)
    asked = [name for _kind, text in cells for name in EXERCISE.findall(text)]
    assert [name for name in asked if ".quiz_" in name] == quiz
    keys = [i for i, (kind, text) in enumerate(cells)
            if kind == "markdown" and text.startswith(("## Key points", "## Những điểm chính"))]
    assert all(i < len(cells) - len(tail) for i in keys)


def test_the_score_waits_for_the_quiz_and_then_names_what_to_read_again():
    """Until every question is tried the score cell waits; then it counts the questions right
    first time and, for one missed first, names the lesson that explains it."""
    quiz = recall.quiz("03")
    made = {name: labkit.exercise(name) for name in quiz}
    waiting = labkit.after(quiz, labkit.score, quiz)
    assert str(waiting).startswith(i18n._(
        "This cell shows the answer to exercise {name}").format(name=quiz[0]))
    first, second, third = quiz
    made[first].check(made[first].answer())
    wrong = made[second].mistakes[0][0]
    made[second].check(wrong)
    made[second].check(made[second].answer())
    made[third].reveal()
    shown = str(labkit.after(quiz, labkit.score, quiz))
    taught = syllabus.LESSONS[int(recall.RECALLS[second])]
    assert shown.splitlines() == [
        "Right first time: 1 of 3.",
        f"{first}: right first time.",
        f"{second}: right on try 2; lesson {taught.number} ({taught.title}) explains it.",
        f"{third}: revealed; lesson {recall.RECALLS[third]} "
        f"({syllabus.LESSONS[int(recall.RECALLS[third])].title}) explains it."]
    for name in quiz:
        assert made[name].explanation not in shown


def test_the_score_speaks_the_lesson_language():
    """In Vietnamese the score's sentences and the lesson's title are Vietnamese, the title
    in one pair of parentheses (it read "bài 03 (Type bracketing (so sánh …))")."""
    labkit.language("vi")
    warm = labkit.exercise("04.warm_up")
    warm.check(warm.mistakes[0][0])
    shown = labkit.score("04.warm_up")
    assert str(shown).splitlines() == [
        "Đúng ngay lần đầu: 0 trên 1 câu.",
        "04.warm_up: chưa đúng; bài 03 (Type bracketing: so sánh trong cùng nhóm kiểu) giải "
        "thích điều này."]
    assert "<br>" in shown._repr_html_()


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_a_quiz_answered_by_the_model_says_it_predicts(lang, monkeypatch):
    """A learner's walk: a quiz's right answer said "The live run on labkit's model (8.0
    rules) agrees" ("Lần chạy thật" in Vietnamese), as if something had been observed. The
    model's agreement is worded as a prediction."""
    monkeypatch.setattr(i18n, "_chosen", lang)
    asked = questions.exercise("00.quiz_string_42")
    message = str(asked.check(asked.answer()).message)
    assert "live run" not in message
    assert "chạy thật" not in message
    assert ("predicts the same" if lang == "en" else "dự đoán cùng kết quả") in message
