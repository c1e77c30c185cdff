"""``labkit.outputs.explanations``: the model's explanations as ``labkit explain``'s table and
as the notebooks' ``labkit.explain`` frame, with --json's columns and the model's own rows.

Sources: the rows' rules and sources are ``labkit.model.explain``'s (tests/test_explain.py);
the orders fixture is claim B1's, the mixed fixture claim S1's."""

from __future__ import annotations

import pytest

import labkit
from labkit.errors import BadInput
from labkit.model import explain, fixtures
from labkit.outputs import explanations


def test_the_find_table_has_a_line_per_document_and_each_source_once():
    """One line per document (its _id, yes or no, the rule, why), then each rule's source once."""
    text = explanations.table(explain.find(fixtures.load("orders"), {"userId": 42}))
    lines = text.splitlines()
    assert lines[0].split()[:4] == ["_id", "matched", "rule", "because"]
    assert lines[2].split()[:3] == ["2", "no", "type-bracketing"]
    sources = lines[lines.index("Sources:") + 1:]
    assert sorted(line.split(":")[0].strip() for line in sources) == ["bson-order",
                                                                      "type-bracketing"]


def test_the_sort_table_shows_each_key_as_mongosh_writes_it():
    """A sort row shows the value it sorts by on each path: [5, "x"] sorts by 5."""
    text = explanations.table(explain.sorted_rows(fixtures.load("mixed"), "v:1,_id:1"))
    line = next(line for line in text.splitlines() if line.startswith("array "))
    assert 'v: 5, _id: "array"' in line
    assert "array-sort-key" in line


def test_an_id_that_would_act_on_the_terminal_is_escaped():
    """An _id holding a line break stays on its row, escaped."""
    text = explanations.table(explain.find([{"_id": "a\nb", "v": 1}], {"v": 1}))
    assert len(text.splitlines()) == 5  # heading, the row, a blank line, "Sources:", one rule


def test_labkit_explain_gives_jsons_columns_for_a_filter_and_a_sort():
    """labkit.explain takes a filter document or a sort, and documents or a fixture's name; its
    columns are --json's and its rows the model's."""
    found = labkit.explain({"userId": 42}, "orders")
    assert list(found.columns) == ["_id", "matched", "because", "rule", "source"]
    assert list(found["_id"][found["matched"]]) == [1, 3, 4, 5]
    ordered = labkit.explain("v:1,_id:1", fixtures.load("mixed"))
    assert list(ordered.columns) == ["_id", "key", "because", "rule", "source"]
    assert list(ordered["_id"]) == [row.id for row in explain.sorted_rows(
        fixtures.load("mixed"), "v:1,_id:1")]
    pairs = labkit.explain([("a", -1)], "arrays")
    assert list(pairs["_id"]) == [1, 3, 2, 4]


def test_labkit_explain_shows_each_reason_whole():
    """pandas cuts a cell at 50 characters: lesson 03's labkit.explain({"a": 10}, "arrays")
    showed "`a` is an array [1, 10]: its element 10 pass..." The frame's page and text keep
    each reason and source whole (the manual's Query an Array page, array-element-matching)."""
    found = labkit.explain({"a": 10}, "arrays")
    reason = found["because"][0]
    assert len(reason) > 50
    for shown in (found._repr_html_(), repr(found)):
        assert reason.replace('"', "&quot;") in shown or reason in shown
        assert found["source"][0] in shown


def test_labkit_explain_refuses_what_is_neither_a_filter_nor_a_sort():
    """A number is neither a filter nor a sort: BadInput, which a notebook shows as one line."""
    with pytest.raises(BadInput):
        labkit.explain(5, "orders")
