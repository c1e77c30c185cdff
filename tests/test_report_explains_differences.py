"""Where a claim's answer differs from its expectation on an engine, labkit check's report shows
beside it labkit's model's explanation of the documents in question (issue 31, item 5): those
expected and not returned, returned and not expected, or out of order, labelled as the model's.

The claims below are judged on the model, a real engine of labkit check; their expectations
are wrong on purpose, so that the model's answer differs from them. The model's answers are
those of claim B1 (the orders of claims/lesson03_bracketing.yaml: ``{userId: 42}`` skips the
string "42", the manual's BSON comparison order page, type bracketing) and of claim S1 (a
missing field sorts as null, jstests/core/query/sort/sort_dotted_paths.js:29-34 at b6fcc56b).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from labkit.claims import files
from labkit.engines.query import ModelEngine
from labkit.outputs import report
from labkit.run import check

# The orders of claim B1 as mongosh stores them (data/orders.json); the expectation of the
# first claim names the string "42" and leaves out the long, the double and the decimal.
WRONG = """\
- id: W1
  title: "an expectation that {userId: 42} matches the string"
  source: "claim B1, inverted"
  fixture:
    - {_id: 1, userId: 42}
    - {_id: 2, userId: "42"}
    - {_id: 3, userId: {$numberLong: "42"}}
    - {_id: "<b>*x*</b>", userId: {$numberDouble: "42.0"}}
  find: {userId: 42}
  expect: {ids: [1, 2]}
- id: W2
  title: "an expectation that a missing field sorts last"
  source: "claim S1, inverted"
  fixture:
    - {_id: 1, v: 5}
    - {_id: 2}
    - {_id: 3, v: "a"}
  find: {filter: {}, sort: {v: 1}}
  expect: {ids: [1, 3, 2], ordered: true}
- id: W3
  title: "a claim that holds"
  source: "claim B1"
  fixture:
    - {_id: 1, userId: 42}
    - {_id: 2, userId: "42"}
  find: {userId: 42}
  expect: {ids: [1]}
"""


@pytest.fixture
def checked(tmp_path: Path) -> check.CheckRun:
    path = tmp_path / "wrong.yaml"
    path.write_text(WRONG, encoding="utf-8")
    return check.check(files.load([path]), ["model"])


def _row(run: check.CheckRun, claim_id: str):
    (row,) = next(r for r in run.run.claims if r.claim.id == claim_id).rows
    return row


def test_the_documents_in_question_are_those_the_answer_and_expectation_disagree_about(checked):
    """W1: the string "42" was expected and not returned, the long and the double returned and
    not expected; the int, in both, is not in question. W3 holds: nothing is explained."""
    (read,) = _row(checked, "W1").explained
    assert (read.operation, read.asked) == ("find", {"filter": {"userId": 42}})
    found = [(item.how, item.row.id, item.row.matched, item.row.rule) for item in read.documents]
    assert found == [("missing", 2, False, "type-bracketing"),
                     ("extra", 3, True, "bson-order"),
                     ("extra", "<b>*x*</b>", True, "bson-order")]
    assert _row(checked, "W3").explained == ()


def test_documents_out_of_order_are_explained_by_the_sort(checked):
    """W2: the answer holds the expected documents in another order, each in another place
    than expected; each is explained by its sort key, in the model's sorted order (a missing
    v sorts as null, below the numbers and the strings)."""
    (read,) = _row(checked, "W2").explained
    found = [(item.how, item.row.id, item.row.key, item.row.rule) for item in read.documents]
    assert found == [("moved", 2, {"v": None}, "missing-sorts-as-null"),
                     ("moved", 1, {"v": 5}, "type-order"),
                     ("moved", 3, {"v": "a"}, "type-order")]


def test_report_md_shows_the_explanation_labelled_as_the_models_and_escaped(checked):
    """report.md names the model as the explainer, never MongoDB; values from the claim file
    are escaped (an _id of HTML and emphasis marks stays text inside a code span)."""
    text = report.markdown(checked.run)
    section = text.split("## W1")[1].split("## W2")[0]
    assert "labkit's model explains the documents in question" in section
    assert "not an answer of MongoDB's" in section
    assert "expected, not returned" in section
    assert "returned, not expected" in section
    assert "type-bracketing" in section
    assert 'holds the string "42"' in section
    assert '`"<b>*x*</b>"`' in section
    assert "## W3" in text
    assert "labkit's model explains" not in text.split("## W3")[1]


def test_report_html_shows_the_explanation_escaped(checked):
    """report.html gives the same explanation as a table, every value escaped."""
    page = report.html_report(checked.run)
    section = page.split("id='W1'")[1].split("id='W2'")[0]
    assert "labkit&#x27;s model explains the documents in question" in section
    assert "&quot;&lt;b&gt;*x*&lt;/b&gt;&quot;" in section
    assert "<b>*x*</b>" not in section
    assert "missing-sorts-as-null" in page.split("id='W2'")[1]


@pytest.mark.parametrize(("speaks_for", "rules"), [("7.0.12", "7.0"), ("8.0", "8.0"),
                                                   ("4.4.29", None), (None, None)])
def test_the_explanation_follows_the_rule_set_of_the_engines_version(speaks_for, rules):
    """A server of 7.0.12 is explained by the model's 7.0 rules; a version the model carries no
    rules of (4.4), or none, by the current major's (None)."""

    class Speaking(ModelEngine):
        pass

    engine = Speaking()
    engine.speaks_for = speaks_for
    assert check._rules_of(engine) == rules


def test_the_vietnamese_report_names_the_model_and_shows_its_code_as_code(checked, monkeypatch):
    """Lesson 08's report section read "model (labkit's rules for MongoDB 8.0) 0.1.0" in
    Vietnamese, and the model's reasons showed their backticks ("không có \\`price\\`:"): the
    engine's words follow the language, results.json keeps them English, and each backticked
    field path in a reason is a code span in report.md and <code> in report.html."""
    import labkit
    from labkit import i18n

    monkeypatch.setattr(i18n, "_chosen", None)
    labkit.language("vi")
    try:
        text, page = report.markdown(checked.run), report.html_report(checked.run)
    finally:
        monkeypatch.setattr(i18n, "_chosen", None)
    section = text.split("## W2")[1].split("## W3")[0]
    assert "- model (quy tắc MongoDB 8.0 của labkit) " in section
    assert "labkit's" not in section
    assert "không có `v`: " in section
    assert "\\`" not in section
    assert "không có <code>v</code>: " in page.split("id='W2'")[1]
    assert "`" not in page.split("id='W2'")[1].split("id='W3'")[0]
    (row,) = next(r for r in checked.run.claims if r.claim.id == "W2").rows
    assert row.to_dict()["engine"] == "model (labkit's rules for MongoDB 8.0)"
