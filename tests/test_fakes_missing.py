"""Lesson 07's in-process fakes (mongomock, montydb): installed wherever the lessons are (the
lab extra), and, where someone installs labkit without them, said to be missing, with how to add
them, by every part of the kit that needs them: the lesson's tally and first line, its exercise,
``labkit doctor`` and the answer sheet's check. Their absence is simulated by making
``importlib.metadata`` find no such package, never by uninstalling them."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest

import labkit
from labkit import i18n
from labkit.claims import files as claimfiles
from labkit.engines import fakes
from labkit.lessons import checkviews, questions, sheet
from labkit.names import FAKES
from labkit.run import check as claimcheck
from labkit.run import doctor

ROOT = Path(__file__).resolve().parent.parent
LESSON_ENGINES = ["model", "mongomock", "montydb"]
HOW = "pip install mongomock montydb"


@pytest.fixture
def without_fakes(monkeypatch):
    """importlib.metadata finds neither fake, as in an environment that installed labkit
    without them; every other package is found as it is."""
    found = importlib.metadata.version

    def version(name: str) -> str:
        if name in FAKES:
            raise importlib.metadata.PackageNotFoundError(name)
        return found(name)

    monkeypatch.setattr(importlib.metadata, "version", version)


@pytest.fixture
def english(monkeypatch):
    """English, whatever an earlier test chose."""
    monkeypatch.setattr(i18n, "_chosen", None)
    labkit.language("en")


def _two_claims() -> list[claimfiles.ClaimSpec]:
    """B1's {userId: 42} entry and the one after it, from the kit's claim files."""
    specs = claimfiles.load([claimfiles.KIT_CLAIMS])
    index = [s.id for s in specs].index("B1.eq_42")
    return specs[index:index + 2]


# Where the lessons are installed, the fakes are -----------------------------------------------


def test_the_lab_extra_holds_every_fake():
    """Every route a learner takes installs the lab extra (make's targets, environment.yml for
    Binder and conda, the dev container's image: tests/test_environment.py and
    tests/test_classroom.py pin that), so the lab extra holds each fake lesson 07 judges."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    lab = {re.split(r"[<>=\[;\s]", spec)[0] for spec in extras["lab"]}
    assert set(FAKES) <= lab


def test_the_fakes_are_installed_here():
    """This environment has both fakes, so every test below simulates their absence."""
    assert all(fakes.version(name) for name in FAKES)


# The lesson ------------------------------------------------------------------------------------


def test_the_tally_says_not_installed_not_zero(without_fakes, english):
    """A fake that is not installed answered nothing: its tally row says "not installed", never
    "0 of 2", which would read as every answer wrong; the model's row still counts."""
    tally = checkviews.tally(claimcheck.check(_two_claims(), LESSON_ENGINES))
    cells = tally.iloc[:, 0].to_dict()
    assert cells["mongomock"] == "not installed"
    assert cells["montydb"] == "not installed"
    assert "2 of 2" in cells.values()
    assert not any(re.fullmatch(r"0 of \d+", cell) for cell in cells.values())


def test_the_tally_counts_an_installed_fake(english):
    """Where the fakes are installed, their rows count what they agree on (B1.eq_42: mongomock
    misses the Decimal128 document, so it is not 2 of 2)."""
    tally = checkviews.tally(claimcheck.check(_two_claims(), LESSON_ENGINES))
    cells = tally.iloc[:, 0].to_dict()
    assert re.fullmatch(r"[01] of 2", cells[f"mongomock {fakes.version('mongomock')}"])


def test_the_tally_is_translated(without_fakes, monkeypatch):
    """In Vietnamese, a fake that is not installed is "chưa cài"."""
    monkeypatch.setattr(i18n, "_chosen", None)
    labkit.language("vi")
    tally = checkviews.tally(claimcheck.check(_two_claims(), LESSON_ENGINES))
    assert tally.iloc[:, 0].to_dict()["mongomock"] == "chưa cài"


def test_the_lessons_first_line_names_missing_fakes_and_how_to_add_them(without_fakes, english):
    """The line printed before the check names the fakes that are not installed and how to add
    them; with them installed, it says nothing of installing."""
    note = checkviews.engines_note(LESSON_ENGINES)
    assert "Not installed here: mongomock, montydb" in note
    assert HOW in note
    assert "%pip install mongomock montydb" in note


def test_the_lessons_first_line_is_quiet_where_the_fakes_are(english):
    """With both fakes installed, the first line says nothing of installing them."""
    assert "install" not in checkviews.engines_note(LESSON_ENGINES).lower()


@pytest.mark.parametrize(("code", "said", "how"), [
    ("en", "mongomock is not installed.", "Install the fakes where labkit runs: " + HOW),
    ("vi", "mongomock chưa được cài đặt.",
     "Hãy cài các bản giả lập vào môi trường labkit đang chạy: " + HOW),
])
def test_the_exercise_says_the_fake_is_missing_in_the_lessons_language(
        without_fakes, monkeypatch, tmp_path, code, said, how):
    """07.mongomock_42 answered right ([1, 3, 4]) where mongomock is not installed: no verdict,
    and a message in the lesson's language that says so and how to add it, never Python's
    PackageNotFoundError in English."""
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    monkeypatch.setattr(i18n, "_chosen", None)
    labkit.language(code)
    feedback = questions.exercise("07.mongomock_42").check([1, 3, 4])
    assert feedback.correct is None
    assert said in feedback.message
    assert how in feedback.message
    assert "PackageNotFoundError" not in feedback.message
    assert "Traceback" not in feedback.message


# labkit doctor -----------------------------------------------------------------------------------


def test_doctor_names_the_installed_fakes_with_their_versions(english):
    """With both fakes installed, the doctor's fakes line is [OK] with each one's version."""
    check = doctor._fakes()
    assert check.ok
    assert check.detail == ", ".join(f"{name} {importlib.metadata.version(name)}"
                                     for name in FAKES)
    assert check.line().startswith("[OK]   in-process fakes (lesson 07): mongomock ")


def test_doctor_says_how_to_add_missing_fakes(without_fakes, english):
    """Without the fakes, the doctor's line is optional ([--], no "Not ready"), names both and
    says how to install them; the run as a whole has that line."""
    check = doctor._fakes()
    assert (check.ok, check.required) == (False, False)
    assert check.line().startswith("[--]   in-process fakes (lesson 07): mongomock, montydb "
                                   "not installed.")
    assert HOW in check.line()
    assert any(c.name == check.name and not c.ok for c in doctor.run().checks)


# The answer sheet's check -------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [["check"], []])
def test_the_answer_sheet_ends_in_one_line_without_the_fakes(without_fakes, monkeypatch,
                                                             tmp_path, capsys, argv):
    """``python -m labkit.lessons.sheet check`` (and the command that writes the sheets) where
    mongomock is not installed: exit status 1 and one ``Error:`` line naming the exercise and
    how to add the fake, never a traceback; no sheet is written over. (Only lesson 07's exercise is
    made here, to keep the test fast.)"""
    monkeypatch.setattr(questions, "EXERCISES",
                        {"07.mongomock_42": questions.EXERCISES["07.mongomock_42"]})
    sheets = {code: tmp_path / path.name for code, path in sheet.SHEETS.items()}
    for path in sheets.values():
        path.write_text("a sheet made where the fakes were installed\n", encoding="utf-8")
    monkeypatch.setattr(sheet, "SHEETS", sheets)
    assert sheet.main(argv) == 1
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith("Error: the answer to 07.mongomock_42 cannot be had here")
    assert "mongomock is not installed." in line
    assert HOW in line
    assert all(path.read_text(encoding="utf-8").startswith("a sheet made where")
               for path in sheets.values())
