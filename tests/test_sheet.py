"""The instructors' answer sheet (issue 21): generated from the exercises in both languages,
kept in step by this test, and never pointing at Python source for the answers."""

from __future__ import annotations

import pytest

from labkit.lessons import questions, sheet

# Making a sheet runs every exercise's claim offline (lesson 05's starts four processes and
# waits for a shared second, about 5 s): each language's sheet is made once for this file and
# every test reads that text; both are made in the suite's shared offline session, so the
# claims run once for both languages and for the exercises' tests (test_answers.py and
# test_questions.py, which the root conftest.py keeps on one worker with this file).


@pytest.fixture(scope="module")
def made(offline_session):
    """``sheet.sheet``, each language's text made on first use and kept for the module (the
    tests only read it). The sheet's own offline session (a ``runner.Context`` with no server
    and 2,000-key loads) is the shared one of the same kind; the first test compares the text
    with the committed files, which ``python -m labkit.lessons.sheet`` makes in sessions of
    its own, so a difference between the two would fail it."""
    texts: dict[str, str] = {}

    def made(code: str) -> str:
        if code not in texts:
            texts[code] = sheet.sheet(code, offline_session)
        return texts[code]

    return made


@pytest.mark.parametrize("code", sorted(sheet.SHEETS))
def test_the_answer_sheet_is_in_step_with_the_exercises(code, made):
    """docs/answers.md and docs/answers.vi.md equal what the exercises give now; regenerate
    them with ``python -m labkit.lessons.sheet``."""
    path = sheet.SHEETS[code]
    assert path.read_text(encoding="utf-8") == made(code), (
        f"{path.name} is out of step: run {sheet.COMMAND}")


@pytest.mark.parametrize("code", sorted(sheet.SHEETS))
def test_every_exercise_is_on_the_sheet_with_its_answer_and_explanation(code, made):
    """Each exercise has its heading, an answer line and a why line on each sheet."""
    text = made(code)
    for name in questions.EXERCISES:
        section = text.split(f"### `{name}`", 1)[1].split("\n### ", 1)[0]
        assert section.count("\n- **") >= 4, name


def test_a_measured_answer_is_not_printed_as_a_figure(made):
    """06's answers vary with each run's random keys: the sheet says the run measures them and
    prints no figure (issue 21: no expected value printed as if observed)."""
    text = made("en")
    section = text.split("### `06.random_fill`", 1)[1].split("\n### ", 1)[0]
    answer = next(line for line in section.splitlines() if line.startswith("- **Answer**"))
    assert "measures it" in answer
    assert "%" not in answer


def test_the_vietnamese_sheet_has_no_english_labels(made):
    """The Vietnamese sheet's headings and labels are Vietnamese."""
    text = made("vi")
    for english in ("Answer sheet", "**Answer**", "**Why**", "**Hint 1**", "Common mistake",
                    "computed by", "labkit's model's prediction"):
        assert english not in text


def test_the_check_command_reports_nothing_when_in_step(capsys, made, monkeypatch):
    """``python -m labkit.lessons.sheet check`` exits 0 and prints nothing when both are in
    step (it compares each file with ``sheet.sheet``, here the module's made texts)."""
    monkeypatch.setattr(sheet, "sheet", lambda code, _session=None: made(code))
    assert sheet.main(["check"]) == 0
    assert capsys.readouterr().out == ""
