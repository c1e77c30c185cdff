"""labkit.syllabus, the one record per lesson: the notebooks, modules, topics and claim-ID
letters it names are the ones that exist, and ``@claim`` checks each claim against it at import.

The claims and their letters are docs/claims.md's (D dates, S sort order, B bracketing, O
ObjectId, U UUIDv7 and B-trees, X from MongoDB's manual and server tests).
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import labkit.experiments
from labkit import cli, syllabus
from labkit.claims.claim import TOPIC_TEXT, TOPICS, Claim, Observation
from labkit.claims.registry import REGISTRY, claim
from labkit.errors import BadInput
from labkit.experiments import catalogue
from labkit.lessons import course, questions

ROOT = Path(__file__).resolve().parent.parent


def _numbers(lessons) -> list[str]:
    return [lesson.number for lesson in lessons]


def _experiment(module: str):
    """An experiment function that says it was written in ``module``, as ``@claim`` reads it."""
    def experiment(ctx) -> Observation:
        return Observation(1, "model", "1")

    experiment.__module__ = module
    return experiment


def test_one_record_per_notebook_in_course_order():
    """The records are lessons 00 to 08 in order, one for each notebook in notebooks/."""
    assert _numbers(syllabus.LESSONS) == [f"{n:02d}" for n in range(9)]
    notebooks = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert [lesson.file for lesson in syllabus.LESSONS] == notebooks


def test_the_records_name_every_experiments_module_once():
    """Each module a record names is importable under labkit.experiments, and every lesson
    module there (not catalogue, not a private helper) is named by exactly one record."""
    named = [lesson.module for lesson in syllabus.LESSONS if lesson.module]
    on_disk = {info.name for info in pkgutil.iter_modules(labkit.experiments.__path__)
               if not info.name.startswith("_") and info.name != "catalogue"}
    assert sorted(named) == sorted(on_disk)
    for module in named:
        assert importlib.import_module(f"labkit.experiments.{module}")


def test_a_lesson_with_claims_has_a_topic_and_a_letter():
    """A record with a module gives its topic, the topic's words and at least one letter; a
    lesson without one (00, 07, 08) gives none of them."""
    for lesson in syllabus.LESSONS:
        facts = (lesson.topic, lesson.topic_text, lesson.letters)
        assert all(facts) if lesson.module else not any(facts), lesson.number


def test_the_topics_come_from_the_records_in_lesson_order():
    """TOPICS are the records' topics in lesson order, the five ``labkit run --topics`` has
    always listed; lessons sharing a topic (04, 05) spell its words the same."""
    assert syllabus.TOPICS == ("dates", "sort-order", "bracketing", "objectid", "btree")
    assert TOPICS is syllabus.TOPICS
    assert TOPIC_TEXT is syllabus.TOPIC_TEXT
    for topic in TOPICS:
        assert {lesson.topic_text for lesson in syllabus.by_topic(topic)} == {TOPIC_TEXT[topic]}
    assert TOPIC_TEXT == {"dates": "dates", "sort-order": "sort order",
                          "bracketing": "type bracketing", "objectid": "ObjectId",
                          "btree": "B-tree keys"}


def test_lookups_by_topic_and_by_claim():
    """by_topic, by_module and by_claim find the lessons a topic, module or ID belongs to: O
    is 04's and 05's letter, an X claim may be in any lesson with claims, T and a malformed ID
    in none."""
    assert _numbers(syllabus.by_topic("objectid")) == ["04", "05"]
    assert syllabus.by_topic("astrology") == ()
    assert syllabus.by_topic("") == ()
    assert syllabus.by_module("btree_keys").number == "06"
    assert syllabus.by_module("catalogue") is None
    assert syllabus.by_module("") is None
    assert _numbers(syllabus.by_claim("O10")) == ["04", "05"]
    assert _numbers(syllabus.by_claim("D1")) == ["01"]
    assert _numbers(syllabus.by_claim("X7")) == ["01", "02", "03", "04", "05", "06"]
    for wrong in ("T1", "D0", "D01", "d1", "D", "DX1", ""):
        assert syllabus.by_claim(wrong) == (), wrong


def test_letters_are_listed_in_lesson_order_then_the_manuals():
    """Claims are listed by their letter's first lesson, then X: D, S, B, O, U, X (the order
    of docs/claims.md and results.json)."""
    assert syllabus.LETTERS == ("D", "S", "B", "O", "U", "X")
    assert syllabus.letters_text() == ("D (01), S (02), B (03), O (04, 05), U (06), "
                                       "X (any lesson: MongoDB's manual)")


def test_every_registered_claim_sits_in_a_lesson_of_its_letter_and_topic():
    """Each of the 31 claims' experiment lives in the module of a lesson its ID's letter
    allows, and its topic is that lesson's."""
    claims = catalogue.registered()
    assert len(claims) == 31
    for item in claims:
        lesson = syllabus.by_module(item.experiment.__module__.rsplit(".", 1)[-1])
        assert lesson in syllabus.by_claim(item.id), item.id
        assert item.topic == lesson.topic, item.id
        assert catalogue.lesson_of(item) == f"notebooks/{lesson.file}"


def test_a_claim_of_no_lessons_letter_is_refused_at_once():
    """``@claim("T1")`` raises BadInput as it is written, naming T1 and every lesson's letter,
    and registers nothing (before, T1 registered and every run then died on the order key)."""
    with pytest.raises(BadInput) as caught:
        claim("T1", title="a new claim", source="manual", topic="dates", expected=1)
    text = str(caught.value)
    assert "'T1'" in text
    assert syllabus.letters_text() in text
    assert "labkit/syllabus.py" in text
    assert "T1" not in REGISTRY


@pytest.mark.parametrize("claim_id", ["D0", "D01", "d1", "DD1", "D1.5", "1D"])
def test_a_malformed_claim_id_is_refused(claim_id):
    """An ID is one capital letter and a number from 1 without a leading zero (O10): any other
    form is refused by ``@claim`` with its name."""
    with pytest.raises(BadInput, match=repr(claim_id).replace(".", r"\.")):
        claim(claim_id, title="t", source="manual", topic="dates", expected=1)


def test_a_claim_outside_its_letters_lesson_is_refused():
    """An O claim written in lesson 01's module is refused when it is registered, naming the
    claim and the lessons that may hold it (04 and 05)."""
    register = claim("O99", title="t", source="manual", topic="dates", expected=1)
    with pytest.raises(BadInput) as caught:
        register(_experiment("labkit.experiments.dates"))
    text = str(caught.value)
    assert "O99" in text
    assert "04 (labkit.experiments.objectid_anatomy)" in text
    assert "05 (labkit.experiments.objectid_ordering)" in text
    assert "O99" not in REGISTRY


def test_a_claim_of_another_topic_than_its_lessons_is_refused():
    """A D claim whose topic is not lesson 01's (dates) is refused, naming both topics."""
    register = claim("D99", title="t", source="manual", topic="objectid", expected=1)
    with pytest.raises(BadInput, match=r"D99.*'objectid'.*lesson 01 teaches 'dates'"):
        register(_experiment("labkit.experiments.dates"))
    assert "D99" not in REGISTRY


def test_a_claim_outside_every_lessons_module_is_refused():
    """An experiment that no lesson's module holds (here, this test file's) is refused."""
    register = claim("D99", title="t", source="manual", topic="dates", expected=1)
    with pytest.raises(BadInput, match=r"D99: its experiment is in test_syllabus.*01 \(labkit"):
        register(_experiment("test_syllabus"))
    assert "D99" not in REGISTRY


def test_an_x_claim_may_sit_in_any_lesson_with_its_topic():
    """X, the manual's letter, is accepted in a lesson's module with that lesson's topic, and is
    listed after every lesson's own letters."""
    try:
        claim("X99", title="t", source="manual", topic="dates", expected=1)(
            _experiment("labkit.experiments.dates"))
        assert catalogue.registered()[-1].id == "X99"
    finally:
        REGISTRY.pop("X99", None)


def test_a_claim_put_in_the_table_by_hand_is_listed_last_not_a_crash(monkeypatch):
    """An ID that bypassed ``@claim`` (no lesson's letter) sorts after every other claim and
    can be selected: the order never raises ValueError (it did: "substring not found")."""
    odd = Claim(id="T1", title="t", source="manual", topic="dates", expected=1,
                experiment=_experiment("test_syllabus"))
    monkeypatch.setitem(REGISTRY, "T1", odd)
    listed = [c.id for c in catalogue.registered()]
    assert listed[-1] == "T1"
    assert len(listed) == 32
    assert catalogue.select(ids=["t1"]) == [odd]
    assert catalogue.lesson_of(odd) == ""


def test_the_course_the_sheet_and_the_catalogue_read_the_record():
    """course.LESSONS is the record, the catalogue keeps no lesson table of its own (it finds a
    claim's notebook through the record), and the answer sheet has a heading for each lesson
    with exercises, in the record's order."""
    assert course.LESSONS is syllabus.LESSONS
    assert not hasattr(catalogue, "LESSONS")
    d1 = catalogue.get("D1")
    assert catalogue.lesson_of(d1) == f"notebooks/{syllabus.by_module('dates').file}"
    headings = [line for line in (ROOT / "docs" / "answers.md").read_text(
        encoding="utf-8").splitlines() if line.startswith("## ")]
    assert headings == [f"## {lesson.number} {lesson.title}" for lesson in syllabus.LESSONS
                        if any(n.startswith(lesson.number + ".") for n in
                               questions.EXERCISES)]


def test_every_exercise_is_named_after_a_lesson_of_the_record():
    """An exercise's name starts with its lesson's number ("04.timestamp_hex"), a record's:
    the sheet, the progress table and ``exercise()`` read the lesson from it."""
    numbers = {lesson.number for lesson in syllabus.LESSONS}
    assert {name.split(".", 1)[0] for name in questions.EXERCISES} <= numbers


def test_the_topics_help_lists_the_records_topics():
    """``labkit run --topics``'s help lists TOPICS in the record's order, as before."""
    run = next(action for action in cli.build_parser()._subparsers._group_actions[0]
               .choices["run"]._actions if "--topics" in action.option_strings)
    assert run.help == "comma-separated topics: dates, sort-order, bracketing, objectid, btree"
