"""``labkit.model.explain``: each document's verdict is the deciding functions' own, its rule
is the one that decided, and every rule names its source.

Sources: the model's own cited expectations (tests/test_bson_order.py: the manual's
Comparison/Sort Order page, https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/,
``jstests/core/query/null_query_semantics.js:46-77 at 1704949c``,
``jstests/core/query/nan.js:30-55 at 4be00f9a``,
``jstests/core/query/sort/sort_array.js:59-66, 72-79 at 6fdbf4c4``,
``jstests/core/query/sort/sort_dotted_paths.js:29-34 at b6fcc56b``), and the kit's claims B1
(lesson 03) and S1 (lesson 02)."""

from __future__ import annotations

import datetime as dt
import itertools
import math
from pathlib import Path

import pytest
from bson import Decimal128, Int64, MaxKey, MinKey, Regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labkit.claims import files
from labkit.errors import BadInput
from labkit.model import bson_order, explain, fixtures, reads

ROOT = Path(__file__).resolve().parent.parent


def rows_by_id(rows):
    return {row.id: row for row in rows}


def test_orders_under_userid_42_skip_the_string_by_type_bracketing():
    """{userId: 42} skips the order whose userId is the string "42", by type bracketing, and
    matches the four numbers (claim B1; the manual's Comparison/Sort Order page)."""
    rows = rows_by_id(explain.find(fixtures.load("orders"), {"userId": 42}))
    assert [i for i, row in rows.items() if row.matched] == [1, 3, 4, 5]
    assert rows[2].rule == "type-bracketing"
    assert '"42"' in str(rows[2].because)
    assert "bracket" in str(rows[2].because)
    assert {rows[i].rule for i in (1, 3, 4, 5)} == {"bson-order"}


def test_gt_zero_skips_the_string_and_the_string_operand_skips_the_numbers():
    """{userId: {$gt: 0}} and {userId: "42"} each skip the other bracket (claim B1)."""
    orders = fixtures.load("orders")
    gt = rows_by_id(explain.find(orders, {"userId": {"$gt": 0}}))
    assert gt[2].rule == "type-bracketing"
    assert not gt[2].matched
    text = rows_by_id(explain.find(orders, {"userId": "42"}))
    assert [i for i, row in text.items() if row.matched] == [2]
    assert {text[i].rule for i in (1, 3, 4, 5)} == {"type-bracketing"}


def test_null_matches_missing_and_nothing_is_above_null():
    """{a: null} matches null and a missing field; $gt null matches nothing
    (jstests/core/query/null_query_semantics.js:46-77 at 1704949c)."""
    rows = rows_by_id(explain.find(fixtures.load("nulls"), {"a": None}))
    assert [i for i, row in rows.items() if row.matched] == [1, 2]
    assert rows[2].rule == "null-matches-missing"
    assert "missing" in str(rows[2].because)
    above = explain.find(fixtures.load("nulls"), {"a": {"$gt": None}})
    assert not any(row.matched for row in above)


def test_nan_meets_only_nan():
    """NaN equals only NaN; $lt 0 does not meet NaN (jstests/core/query/nan.js:30-55, 96-105 at
    4be00f9a)."""
    rows = rows_by_id(explain.find(fixtures.load("nans"), {"a": math.nan}))
    assert [i for i, row in rows.items() if row.matched] == [1]
    assert {row.rule for row in rows.values()} == {"nan"}
    below = rows_by_id(explain.find(fixtures.load("nans"), {"a": {"$lt": 0}}))
    assert below[1].rule == "nan"
    assert not below[1].matched


def test_an_element_of_an_array_matches():
    """{a: {$gt: 6}} matches [1, 10] by its element 10 (the manual's Query an Array page)."""
    rows = rows_by_id(explain.find(fixtures.load("arrays"), {"a": {"$gt": 6}}))
    assert rows[1].matched
    assert rows[1].rule == "array-element-matching"
    assert "10" in str(rows[1].because)
    assert not rows[4].matched
    assert rows[4].rule == "array-element-matching"


def test_ne_keeps_the_string_by_negation():
    """$ne does not bracket: {userId: {$ne: 42}} keeps only the string (claim X1, the manual's
    $ne page)."""
    rows = rows_by_id(explain.find(fixtures.load("orders"), {"userId": {"$ne": 42}}))
    assert [i for i, row in rows.items() if row.matched] == [2]
    assert {row.rule for row in rows.values()} == {"negation"}


def test_mixed_sort_names_the_array_key_the_empty_array_and_the_missing_field():
    """The mixed fixture sorted by v then _id: [5, "x"] sorts by 5 between dec2 and dbl9.5; the
    empty array comes first, below null; the missing field sorts as null and _id breaks its
    tie (claim S1; jstests/core/query/sort/sort_array.js:59-66 at 6fdbf4c4,
    jstests/core/query/sort/sort_dotted_paths.js:29-34 at b6fcc56b)."""
    docs = fixtures.load("mixed")
    rows = explain.sorted_rows(docs, "v:1,_id:1")
    ids = [row.id for row in rows]
    assert ids == reads.ids(bson_order.sort(docs, "v:1,_id:1"))
    by_id = rows_by_id(rows)
    assert ids.index("dec2") < ids.index("array") < ids.index("dbl9.5")
    assert by_id["array"].key == {"v": 5, "_id": "array"}
    assert by_id["array"].rule == "array-sort-key"
    assert "smallest element, 5" in str(by_id["array"].because)
    assert ids[0] == "emptyArr"
    assert by_id["emptyArr"].rule == "empty-array-below-null"
    assert by_id["missing"].rule == "missing-sorts-as-null"
    assert "`_id`" in str(by_id["missing"].because)


def test_descending_uses_the_largest_element():
    """[1, 10] sorts by 10 descending (jstests/core/query/sort/sort_array.js:72-79 at
    6fdbf4c4)."""
    rows = explain.sorted_rows(fixtures.load("arrays"), "a:-1")
    assert rows[0].id == 1
    assert rows[0].key == {"a": 10}
    assert "largest element, 10" in str(rows[0].because)


def test_ties_on_every_path_are_any_order():
    """null and a missing field tie on a:1: listed in the file's order, and said to come back
    in any order (the manual's cursor.sort page, "Sort Consistency", runs one sort twice and
    prints its ties in two orders), never as a rule that the file's order decides."""
    rows = explain.sorted_rows(fixtures.load("nulls"), "a:1")
    assert [row.id for row in rows[:2]] == [1, 2]
    assert {row.rule for row in rows[:2]} == {"ties-any-order"}
    assert "ties: any order (cursor.sort)" in explain.RULES["ties-any-order"].says
    assert "in any order (cursor.sort)" in str(rows[0].because)
    assert "decides" not in str(rows[0].because)


def test_a_collation_is_named_where_it_compared_strings():
    """Under strength 2, "KYLE" equals "kyle" and "Kylé" does not (the manual's Collation
    page: strength 2 compares base letters and accents)."""
    docs = [{"_id": 1, "t": "kyle"}, {"_id": 2, "t": "KYLE"}, {"_id": 3, "t": "Kylé"}]
    collation = {"locale": "en", "strength": 2}
    rows = explain.find(docs, {"t": "kyle"}, collation=collation)
    assert [row.matched for row in rows] == [True, True, False]
    assert rows[1].rule == "collation"
    assert rows[2].rule == "collation"


def test_vietnamese_because(monkeypatch):
    """With LABKIT_LANG=vi the sentence is Vietnamese, the rule and source unchanged."""
    monkeypatch.setenv("LABKIT_LANG", "vi")
    row = explain.find(fixtures.load("orders"), {"userId": 42})[1]
    assert row.because.shown() != row.because.english()
    assert row.rule == "type-bracketing"


def test_json_rows_have_the_documented_fields():
    """--json's objects: _id, matched, because, rule, source for find; _id, key, because,
    rule, source for sort."""
    found = explain.find(fixtures.load("orders"), {"userId": 42})[0].to_dict()
    assert list(found) == ["_id", "matched", "because", "rule", "source"]
    ordered = explain.sorted_rows(fixtures.load("orders"), "userId:1")[0].to_dict()
    assert list(ordered) == ["_id", "key", "because", "rule", "source"]


def test_every_rule_is_listed_with_its_identifier_and_source_in_the_model_docs():
    """docs/model.md lists each rule's identifier and source."""
    doc = (ROOT / "docs" / "model.md").read_text(encoding="utf-8")
    missing = [rule.id for rule in explain.RULES.values()
               if f"`{rule.id}`" not in doc or rule.source not in doc]
    assert missing == []


# explain agrees with predict: on the kit's claim files and on generated inputs -------------------


def _kit_reads():
    for spec in files.load([ROOT / "claims"]):
        docs = next(iter(spec.fixture.values()), [])
        for step in spec.steps:
            if step.operation == "find":
                yield pytest.param(docs, step.arguments, id=f"{spec.id}:{step.line}")


@pytest.mark.parametrize(("docs", "arguments"), list(_kit_reads()))
def test_explain_agrees_with_predict_on_the_kit_claims(docs, arguments):
    """On every find of the kit's claim files, explain's matched set is predict's, and its
    clauses add up to the same verdict."""
    query = arguments.get("filter", {})
    rows = explain.find(docs, query)
    assert [row.id for row in rows if row.matched] == reads.ids(reads.find(docs, query))
    assert all(row.explained == row.matched for row in rows)
    if "sort" in arguments:
        spec = list(arguments["sort"].items())
        assert [row.id for row in explain.sorted_rows(docs, spec)] == \
            reads.ids(bson_order.sort(docs, spec))


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(-3, 3).map(Int64),
    st.sampled_from([0.5, -1.5, math.nan, math.inf, -math.inf, 2.0]),
    st.sampled_from(["1", "a", "A", "á", "b", "", "10", "9"]),
    st.sampled_from([Decimal128("1"), Decimal128("NaN"), Decimal128("-2.5")]),
    st.just(dt.datetime(2020, 1, 1, tzinfo=dt.UTC)), st.just(MinKey()), st.just(MaxKey()),
)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("ab"), inner, max_size=2)),
    max_leaves=5)
documents = st.lists(st.fixed_dictionaries({"v": values}, optional={"w": values}),
                     max_size=6).map(lambda docs: [{"_id": i, **d} for i, d in enumerate(docs)])
paths = st.sampled_from(["v", "w", "v.a", "v.0", "w.b"])
comparisons = st.builds(lambda path, op, value: {path: {op: value}}, paths, st.sampled_from(
    ["$eq", "$gt", "$gte", "$lt", "$lte", "$ne"]), scalars)
conditions = st.one_of(
    comparisons, st.builds(lambda path, value: {path: value}, paths, values),
    st.builds(lambda path, items, op: {path: {op: items}}, paths, st.lists(scalars, min_size=1,
                                                                           max_size=3),
              st.sampled_from(["$in", "$nin", "$all"])),
    st.builds(lambda path, flag: {path: {"$exists": flag}}, paths, st.booleans()),
    st.builds(lambda path, name: {path: {"$type": name}}, paths,
              st.sampled_from(["number", "string", "array", "null"])),
    st.builds(lambda c: {next(iter(c)): {"$not": next(iter(c.values()))}}, comparisons),
    st.builds(lambda path, low, high: {path: {"$gt": low, "$lt": high}}, paths, scalars, scalars),
    st.builds(lambda value: {"$expr": {"$gt": ["$v", value]}}, scalars),
)
filters = st.recursive(conditions, lambda inner: st.one_of(
    st.builds(lambda op, clauses: {op: clauses}, st.sampled_from(["$and", "$or", "$nor"]),
              st.lists(inner, min_size=1, max_size=3)),
    st.builds(lambda a, b: {**a, **b}, inner, inner)), max_leaves=4)
collations = st.sampled_from([None, {"locale": "simple"}, {"locale": "en", "strength": 1},
                              {"locale": "en", "strength": 2}, {"locale": "en"},
                              {"locale": "en", "numericOrdering": True}])
sorts = st.lists(st.tuples(paths, st.sampled_from([1, -1])), min_size=1, max_size=3,
                 unique_by=lambda pair: pair[0])
versions = st.sampled_from(["6.0", "8.0", "9.0"])


def _or_refused(function, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    except BadInput as exc:
        return type(exc)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, filters, collations, versions)
def test_explain_find_is_predict_on_generated_filters(docs, query, collation, version):
    """explain's matched set is exactly predict's (reads.find), or both refuse the filter; and
    the rule each row names adds up to the filter's own verdict."""
    found = _or_refused(reads.find, docs, query, collation=collation, mongodb_version=version)
    rows = _or_refused(explain.find, docs, query, collation=collation, mongodb_version=version)
    if isinstance(found, type):
        assert rows is found
        return
    assert [row.id for row in rows if row.matched] == reads.ids(found)
    for row in rows:
        assert row.explained == row.matched, row
        assert row.rule in explain.RULES
        assert row.source


def _in_order(before, after, directions) -> bool:
    for mine, theirs, direction in zip(before, after, directions, strict=True):
        if mine != theirs:
            return (mine < theirs) == (direction > 0)
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, sorts, collations)
def test_explain_sort_is_predict_on_generated_sorts(docs, spec, collation):
    """explain's order is exactly predict's (bson_order.sort), or both refuse the sort; each
    row's key is the value sort_values gives, and the keys stand in the sort's order."""
    order = _or_refused(bson_order.sort, docs, spec, collation=collation)
    rows = _or_refused(explain.sorted_rows, docs, spec, collation=collation)
    if isinstance(order, type):
        assert rows is order
        return
    assert [row.id for row in rows] == reads.ids(order)
    directions = [direction for _, direction in spec]
    keys = [[k for _, k in bson_order.sort_values(doc, spec, collation)] for doc in order]
    assert all(_in_order(a, b, directions) for a, b in itertools.pairwise(keys))
    for row in rows:
        assert row.rule in explain.RULES
        assert row.source


def test_a_missing_field_is_explained_against_minkey_and_maxkey():
    """$gt MinKey takes the document without the field, and says why with its own rule (it
    crashed explain when the model first took it: no rule spoke for a missing field that
    matches); a null reads "holds the value null", not "the null null"."""
    docs = [{"_id": "none"}, {"_id": "null", "a": None}, {"_id": "min", "a": MinKey()}]
    rows = rows_by_id(explain.find(docs, {"a": {"$gt": MinKey()}}))
    assert (rows["none"].matched, rows["none"].rule) == (True, "min-max-key")
    assert "stands above MinKey and below MaxKey" in str(rows["none"].because)
    assert "holds the value null, which passes" in str(rows["null"].because)
    assert not rows["min"].matched
    below = rows_by_id(explain.find(docs, {"a": {"$lt": MinKey()}}))
    assert (below["none"].matched, below["none"].rule) == (False, "min-max-key")


def test_an_equality_says_equal_and_a_null_reads_once_in_each_language(monkeypatch):
    """A learner's walk: "passes {"$eq": "P1"} in BSON order" for an equality; a null read "the
    null null" in English and, once fixed, "giá trị giá trị null" in Vietnamese."""
    from labkit import i18n
    from labkit.i18n import shown

    docs = [{"_id": 1, "a": "P1"}, {"_id": 2, "a": None}, {"_id": 3, "a": "P2"}]
    rows = rows_by_id(explain.find(docs, {"a": "P1"}))
    assert str(rows[1].because) == '`a` holds the string "P1", equal to {"$eq": "P1"}\'s value'
    assert "not equal to" in str(rows[3].because)
    monkeypatch.setattr(i18n, "_chosen", "vi")
    above = rows_by_id(explain.find(docs, {"a": {"$gt": MinKey()}}))
    assert shown(above[2].because).startswith("`a` chứa giá trị null, thoả")
    assert "giá trị giá trị" not in shown(above[2].because)


def test_an_in_with_a_regular_expression_names_the_value_that_decides():
    """An engineer's walk: $in with a regular expression was one generic row, its operand cut
    in the middle of the regex's Extended JSON. Each value of the $in is now its own test: the
    string an equality takes, the pattern a regular expression matches."""
    docs = [{"_id": 1, "a": "abc"}, {"_id": 2, "a": "x"}, {"_id": 3, "a": "Xyz"}]
    rows = rows_by_id(explain.find(docs, {"a": {"$in": [Regex("^ab", "i"), "x"]}}))
    assert [rows[i].matched for i in (1, 2, 3)] == [True, True, False]
    assert str(rows[1].because) == ('`a` holds the string "abc": {"$regex": "^ab", "$options": '
                                    '"i"} matches it')
    assert str(rows[2].because) == '`a` holds the string "x", equal to {"$eq": "x"}\'s value'
    assert '{"$regex": "^ab", "$options": "i"} does not match it' in str(rows[3].because)
