"""A lesson's cell run again shows what it showed the first time: every kind of card and table
the lessons display, built twice in one lesson of one kernel, renders the same (the claim cards
are tests/test_notebook.py's). Nothing a card says once per lesson moves to the second build."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
from helpers import fresh_lab

import labkit
from labkit.lessons.views import (
    bson_sort_order,
    claim_from_the_wild,
    dates_not_strings,
    start_here,
    trust_your_fake,
    type_bracketing,
)


def _shown(value: Any) -> str:
    """What a notebook displays of ``value``: its HTML (a card, a DataFrame) and its text."""
    if isinstance(value, pd.DataFrame):
        return value.to_html() + "\n" + value.to_string()
    html = getattr(value, "_repr_html_", None)
    return (html() if html else "") + "\n" + str(value)


def _orders() -> Any:
    return type_bracketing.load("orders")


def _validator_model() -> Any:
    return {"validator": type_bracketing.validator_as_stated()}


# Each kind of thing a lesson's cell shows, as the lessons build it (no server here).
BUILDS: dict[str, Callable[[], Any]] = {
    "a claim's fixture card (lesson.Fixture)": lambda: type_bracketing.Fixture("X2"),
    "a fixture table (lesson.fixture)": lambda: type_bracketing.fixture(_orders()),
    "a census table (lesson.frame)": lambda: type_bracketing.frame(
        type_bracketing.census_by_writer(_orders())),
    "the model's why table (labkit.explain)": lambda: labkit.explain({"userId": 42}, "orders"),
    "a mapping as a table (labkit.table)": lambda: labkit.table({"a": 1, "b": [1, 2]}),
    "a not-run card (labkit.on_server)": lambda: labkit.on_server(
        "validator", lambda db: None, model=_validator_model,
        model_label="MongoDB's manual states (not an observation)"),
    "a waiting card (labkit.after)": lambda: labkit.after("03.gt_zero", labkit.explain,
                                                          {"userId": 42}, "orders"),
    "the learner's query (labkit.collection)": lambda: labkit.collection("orders").find(
        {"userId": {"$gt": 0}}),
    "an exercise's question (exercise.check(None))": lambda: labkit.exercise(
        "03.over_zero").check(None),
    "the mixed fixture as a table (lesson 02)": lambda: bson_sort_order.fixture("mixed"),
    "the D3 answers the model gives (lesson 01)": lambda: labkit.table(
        dates_not_strings.model_answers(dates_not_strings.D3_QUESTIONS)),
    "the claims catalogue (lesson 00)": lambda: start_here.claims(),
}


@pytest.fixture
def lesson(monkeypatch, offline_session):
    """Lesson 03 begun in a kernel with no server, its exercises not yet tried."""
    fresh_lab(monkeypatch, offline_session, lesson="03")
    return offline_session


@pytest.mark.parametrize("what", sorted(BUILDS))
def test_a_cell_run_twice_shows_the_same(what, lesson):
    """The card or table built a second time in the lesson renders as the first did."""
    first = _shown(BUILDS[what]())
    again = _shown(BUILDS[what]())
    assert first.strip()
    assert first == again


@pytest.fixture(scope="module")
def kit_check():
    """Lesson 07's check of the kit's claim files on the model (what its cells display)."""
    return trust_your_fake.run_files([trust_your_fake.KIT_CLAIMS], ["model"])


@pytest.mark.parametrize("view", ["tally", "verdicts", "scorecard"])
def test_lesson_07s_views_of_one_check_show_the_same_twice(view, kit_check, lesson):
    """Each of lesson 07's views of its claim check, shown twice, renders the same."""
    show = getattr(trust_your_fake, view)
    first, again = _shown(show(kit_check)), _shown(show(kit_check))
    assert first.strip()
    assert first == again


def test_lesson_08s_verdicts_show_the_same_twice(kit_check, lesson):
    """Lesson 08's verdict table of a check, shown twice, renders the same."""
    first = _shown(claim_from_the_wild.verdicts(kit_check))
    assert first == _shown(claim_from_the_wild.verdicts(kit_check))
