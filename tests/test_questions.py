"""The lessons' exercises: each notebook asks for them by name, none is written into a
notebook (no hint or explanation shows before an answer), and each accepts its own answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from labkit.lessons import notebook, questions

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# The exercises' claims run once in the shared offline session (tests/conftest.py), which this
# file and test_answers.py read: the root conftest.py keeps both on one worker.


@pytest.fixture(autouse=True)
def _progress_elsewhere(monkeypatch, tmp_path):
    """Exercises made here record progress in a temporary file, not the user's own."""
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))


def _code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_ask_for_exercises_by_name_and_never_spell_them_out(path):
    """A lesson calls labkit.exercise("NN.name") for a known exercise and never builds one,
    so no hint, common mistake or explanation is on screen before the learner answers."""
    code = _code(path)
    assert "Exercise(" not in code
    assert "explanation=" not in code
    for name in re.findall(r'labkit\.exercise\("([^"]+)"\)', code):
        assert name in questions.EXERCISES
        assert name.startswith(path.name[:2])


def test_every_exercise_is_used_by_its_lesson():
    """Each exercise in the catalogue is asked by the notebook its name points to."""
    code = {p.name[:2]: _code(p) for p in NOTEBOOKS}
    unused = [n for n in questions.EXERCISES if f'labkit.exercise("{n}")' not in code[n[:2]]]
    assert unused == []


@pytest.mark.parametrize("name", sorted(questions.EXERCISES))
def test_each_exercise_accepts_its_own_answer_without_a_server(name, monkeypatch,
                                                              offline_session):
    """With no server, every exercise still has an answer (live, model or recorded), its own
    rule accepts it, and the feedback explains it (the claims run once, in the shared offline
    session)."""
    monkeypatch.setattr(notebook, "session", lambda: offline_session)
    exercise = questions.exercise(name)
    feedback = exercise.check(exercise.answer())
    assert feedback.correct is True, feedback.message
    assert exercise.explanation in feedback.message


def test_an_unknown_exercise_names_the_known_ones():
    """Asking for a name that does not exist is BadInput listing the catalogue."""
    from labkit.errors import BadInput

    with pytest.raises(BadInput, match=r"01\.string_range"):
        questions.exercise("99.nothing")


def _markdown(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks" / "vi").glob("*.ipynb")),
                         ids=lambda p: p.name)
def test_no_vietnamese_lesson_asks_for_a_decimal_dot(path):
    """A number is read as the learner's language writes it (answers.read_number: "0,7" in
    Vietnamese), so no Vietnamese lesson tells the learner to write a dot "as in Python"."""
    for text in _markdown(path):
        assert "dấu chấm như trong python" not in " ".join(text.split()).lower()


def test_lesson_06_shows_a_decimal_comma_in_quotes_in_the_vietnamese_edition():
    """Lesson 06's fill question shows the Vietnamese learner the comma written their way, in
    quotes (random_fill.check(0,75) would pass Python two numbers)."""
    vietnamese = ROOT / "notebooks" / "vi" / "06_btree_keys.ipynb"
    asking = [text for text in _markdown(vietnamese) if "`0.5`" in text]
    assert len(asking) == 1
    assert '`"0,5"`' in asking[0]

