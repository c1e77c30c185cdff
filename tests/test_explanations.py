"""``labkit.outputs.explanations``: the model's explanations as ``labkit explain``'s table and
as the notebooks' ``labkit.explain`` frame, with --json's columns and the model's own rows.

Sources: the rows' rules and sources are ``labkit.model.explain``'s (tests/test_explain.py);
the orders fixture is claim B1's, the mixed fixture claim S1's."""

from __future__ import annotations

import json
import re
from pathlib import Path

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
    page = found._repr_html_()
    assert reason.replace('"', "&quot;").replace("`a`", "<code>a</code>") in page
    assert reason in repr(found)
    for shown in (page, repr(found)):
        assert found["source"][0] in shown


def test_labkit_explain_refuses_what_is_neither_a_filter_nor_a_sort():
    """A number is neither a filter nor a sort: BadInput, which a notebook shows as one line."""
    with pytest.raises(BadInput):
        labkit.explain(5, "orders")


@pytest.fixture
def vietnamese():
    """The learner's language set to Vietnamese for one test, then back."""
    before = labkit.language()
    labkit.language("vi")
    yield
    labkit.language(before)


def test_the_explanation_page_reads_as_the_learners_words_with_each_source_once(vietnamese):
    """``labkit.explain``'s page writes whether each document matched in the learner's words
    ("✓ có", "✗ không", never True or False), its code as code (no backtick shown), and each
    rule's source once, as a link under the table, not on every row; the frame keeps
    ``matched`` as a bool and ``source`` per row to filter by."""
    found = labkit.explain({"a": 10}, "arrays")
    page = found._repr_html_()
    cells = re.sub(r"<[^>]+>", " ", page)
    assert "\u2713 c\u00f3" in page
    assert "\u2717 kh\u00f4ng" in page
    assert "True" not in cells
    assert "False" not in cells
    assert "`" not in page
    assert "<code>a</code>" in page
    for source in set(found.iloc[:, 4]):
        assert page.count(f"href='{source}'") == 1
    assert len(found) > len(set(found.iloc[:, 4]))  # a source several rows share: shown once
    assert found.iloc[:, 1].dtype == bool
    text = repr(found)
    assert "True" not in text
    assert "False" not in text
    assert all(text.count(source) == 1 for source in set(found.iloc[:, 4]))


def test_a_sort_explanation_page_shows_each_key_as_code():
    """A sort's page shows the value each document sorts by as mongosh writes it, as code."""
    page = labkit.explain("v:1,_id:1", "mixed")._repr_html_()
    assert "<code>v: [], _id: &quot;emptyArr&quot;</code>" in page


VI = Path(__file__).resolve().parent.parent / "notebooks" / "vi"
NAMED_COLUMN = re.compile(r"c\u1ed9t \*([^*]+)\*")  # "cột *vì*": the column a lesson names


@pytest.mark.parametrize("lesson", ["02_bson_sort_order", "03_type_bracketing"])
def test_the_vietnamese_lessons_name_the_explanation_columns_as_shown(lesson, vietnamese):
    """Where the Vietnamese lessons 02 and 03 tell the learner to read a column of
    ``labkit.explain``'s table, they name it as the table heads it (*vì*, *quy tắc*), not by
    its English name (*because*, *rule*)."""
    cells = json.loads((VI / f"{lesson}.ipynb").read_text(encoding="utf-8"))["cells"]
    text = "".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    named = {" ".join(name.split()) for name in NAMED_COLUMN.findall(text)}
    headings = set(labkit.explain("v:1,_id:1", "mixed").columns) | \
        set(labkit.explain({"a": 10}, "arrays").columns)
    assert named
    assert named <= headings, named - headings
