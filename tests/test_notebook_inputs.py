"""What a notebook passes, taken or refused in one line (issue 46, "Trust, round five", item
10): ``Exercise.check`` with numpy and pandas values never raises; ``labkit.explain`` refuses a
document or filter nested past MongoDB's 100 levels, or containing itself, where it gave a bare
RecursionError (5,000 levels) or accepted 150; a collation locale ICU cannot hold is one
``Error:`` line.

MongoDB's limit is the manual's "MongoDB Limits and Thresholds", Nested Depth for BSON
Documents: "MongoDB supports no more than 100 levels of nesting for BSON documents"."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from helpers import fresh_lab

import labkit
from labkit.cli import main
from labkit.errors import BadInput
from labkit.lessons import questions


@pytest.fixture(autouse=True)
def _progress_elsewhere(monkeypatch, tmp_path):
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    fresh_lab(monkeypatch)


NOTEBOOK_VALUES = [pd.NaT, np.array([1, 2]), np.array([[1, 2]]), pd.Series([1, 2]),
                   pd.DataFrame({"a": [1]}), np.int64(3), np.float64(np.nan),
                   pd.Timestamp("2026-01-01"), np.datetime64("2026-01-01"), [np.int64(1)]]


@pytest.mark.parametrize("name", ["00.when", "01.quiz_objectid_time", "02.first",
                                  "03.gt_zero", "04.timestamp_hex"])
def test_an_exercise_takes_numpy_and_pandas_values_without_raising(name):
    # 00.when and 01.quiz_objectid_time raised ValueError on pandas' NaT, a datetime of no time
    exercise = questions.exercise(name)
    for value in NOTEBOOK_VALUES:
        feedback = exercise.check(value)
        assert feedback.correct in (None, False, True)
        assert feedback.message


def _deep(levels: int) -> dict:
    top = {"_id": 1}
    inner = top
    for _ in range(levels):
        inner["a"] = {}
        inner = inner["a"]
    return top


def _itself() -> dict:
    doc: dict = {"_id": 1}
    doc["me"] = doc
    return doc


@pytest.mark.parametrize(("documents", "query"), [
    ([_deep(5000)], {"a": 1}),
    ([_deep(150)], {"a": 1}),
    ([_itself()], {"a": 1}),
    ([{"_id": 1}], _deep(150)),
    ([_deep(5000)], "a:1"),
], ids=["5000 levels", "150 levels", "contains itself", "a filter of 150", "sort, 5000 levels"])
def test_explain_refuses_nesting_past_mongodbs_limit(documents, query):
    with pytest.raises(BadInput, match="nested more than 100 levels"):
        labkit.explain(query, documents)


def test_explain_takes_a_document_within_the_limit():
    assert len(labkit.explain({"a": 1}, [_deep(98)])) == 1


@pytest.mark.parametrize("locale", ["a" * 200, "en_" + "x" * 400])
def test_a_locale_icu_cannot_hold_is_one_error_line(tmp_path, capsys, locale):
    data = tmp_path / "docs.json"
    data.write_text('[{"_id": 1, "s": "a"}]', encoding="utf-8")
    assert main(["predict", "find", str(data), "--filter", '{"s": "a"}',
                 "--collation", json.dumps({"locale": locale})]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: collation locale")
    assert len(err.strip().splitlines()) == 1


def test_explain_takes_a_dataframe_and_an_array_of_documents():
    frame = pd.DataFrame({"_id": [1, 2], "userId": [42, 7]})
    rows = labkit.explain({"userId": 42}, frame)
    assert len(rows) == 2
    assert len(labkit.explain({"userId": 42}, np.array([{"_id": 1, "userId": 42}]))) == 1


@pytest.mark.parametrize("documents", [[1, 2], 5, [{"_id": 1}, "x"]],
                         ids=["numbers", "a number", "a string among them"])
def test_explain_says_what_documents_it_takes(documents):
    # before: AttributeError: 'int' object has no attribute 'get'
    with pytest.raises(BadInput, match="takes its documents as"):
        labkit.explain({"a": 1}, documents)


def test_an_empty_cell_of_a_dataframe_is_a_missing_field():
    """From a second read: pd.DataFrame(documents) writes NaN where a document lacks a field,
    and {a: null} explained that row as "holds the double NaN … does not match"; a list of the
    same documents matches it."""
    frame = pd.DataFrame([{"_id": 1, "a": 1}, {"_id": 2}])
    rows = labkit.explain({"a": None}, frame)
    assert rows.iloc[:, 1].tolist() == [False, True]
