"""The model's aggregation expressions (labkit.model.expr): field paths through nested
arrays, and the ``$expr`` operators ``$getField``, ``$literal``, ``$cond``, ``$switch``,
``$and``/``$or``/``$not``, ``$cmp``, ``$size`` and ``$arrayElemAt``.

Sources: MongoDB's jstests, each line read in the stored copy of mongodb/mongo at the commit
given (``jstests/core/query/expr/expr_in_index_use.js:25-244 at f08f8682``,
``jstests/aggregation/expressions/array_elem_at.js:13-67 at 1a8480a0``), and the manual's pages,
each named by its address.
"""

from __future__ import annotations

import pytest
from bson import Decimal128, Int64, Regex

import labkit.model as model
from labkit.errors import BadInput
from labkit.model import evaluate, find

ELEM_AT = "jstests/aggregation/expressions/array_elem_at.js:{} at 1a8480a0"


def ids(docs, query):
    """The ``_id``s ``find(query)`` returns on ``docs``, in order."""
    return [doc["_id"] for doc in find(docs, query)]


# Field paths through arrays ------------------------------------------------------------------

CATEGORIES = [
    {"_id": 6, "category": []}, {"_id": 7, "category": [[]]}, {"_id": 8, "category": [None]},
    {"_id": 9, "category": [[], [""]]}, {"_id": 10, "category": ["clothing", "electronics"]},
    {"_id": 12, "category": [["clothing"], ["electronics"]]}, {"_id": 15, "category": [{}]},
    {"_id": 17, "category": [[["clothing", "materials", "electronics"]]]},
    {"_id": 19, "category": [[[None]]]}, {"_id": 27, "category": {"a": "clothing"}},
    {"_id": 29, "category": [{"a": "clothing"}, {"a": "electronics"}, {}]},
]


def test_expr_path_through_nested_arrays_keeps_only_documents_fields():
    """"$category.a" over an array keeps the a of elements that are documents and drops every
    other element, nested arrays included ([[]] gives []): the documents are those of
    jstests/core/query/expr/expr_in_index_use.js:25-56 at f08f8682 and the expected _ids those of
    jstests/core/query/expr/expr_in_index_use.js:219-235 at f08f8682."""
    query = {"$expr": {"$in": ["$category.a", [[]]]}}
    assert ids(CATEGORIES, query) == [6, 7, 8, 9, 10, 12, 15, 17, 19]


@pytest.mark.parametrize(("path", "doc", "value"), [
    ("$x.a", {"x": [[], [""], {}, {"a": 1}, [{"a": 2}]]}, [1]),
    ("$x.a.b", {"x": [{"a": [{"b": 1}, [{"b": 2}], 3]}]}, [[1]]),
    ("$x.a", {"x": {"a": [[1]]}}, [[1]]),
    ("$x.a", {"x": [{"a": [[1]]}]}, [[[1]]]),
])
def test_field_path_values(path, doc, value):
    """At each array only documents are followed; an array reached at the end of the path is
    kept whole (https://www.mongodb.com/docs/manual/core/field-paths/, "Array of Nested
    Arrays"; the server's ExpressionFieldPath)."""
    assert evaluate(path, doc) == value


def test_expr_in_on_dotted_path_and_get_field():
    """"$category.a" reads a subfield
    (jstests/core/query/expr/expr_in_index_use.js:169-173 at f08f8682);
    {$getField: "category.a"} reads the field whose name holds the dot
    (jstests/core/query/expr/expr_in_index_use.js:240-244 at f08f8682)."""
    docs = [{"_id": 26, "category.a": "clothing"}, {"_id": 27, "category": {"a": "clothing"}}]
    wanted = ["clothing", "electronics"]
    assert ids(docs, {"$expr": {"$in": ["$category.a", wanted]}}) == [27]
    assert ids(docs, {"$expr": {"$in": [{"$getField": "category.a"}, wanted]}}) == [26]


def test_literal_keeps_an_operator_document_as_data():
    """{$literal: {$toDouble: 1}} is a document, not a conversion
    (jstests/core/query/expr/expr_in_index_use.js:185-199 at f08f8682)."""
    docs = [{"_id": 21, "category": 1}, {"_id": 25, "category": {"$toDouble": 1}}]
    query = {"$expr": {"$in": ["$category", [{"$literal": {"$toDouble": 1}}]]}}
    assert ids(docs, query) == [25]
    assert ids(docs, {"$expr": {"$in": ["$category", [{"$toDouble": 1}]]}}) == [21]


# $getField ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("expression", "doc", "value"), [
    ({"$getField": "a.b"}, {"a.b": 1, "a": {"b": 2}}, 1),
    ({"$getField": {"field": "a.b", "input": "$$CURRENT"}}, {"a.b": 1}, 1),
    ({"$getField": {"field": {"$literal": "$p"}, "input": "$o"}}, {"o": {"$p": 4}}, 4),
    ({"$getField": {"$literal": "$p"}}, {"$p": 5}, 5),
    ({"$getField": {"field": "x", "input": "$o"}}, {"o": {}}, model.MISSING),
    ({"$getField": {"field": "x", "input": "$nothing"}}, {}, None),
    ({"$getField": {"field": "x", "input": None}}, {}, None),
])
def test_get_field(expression, doc, value):
    """$getField: a field by its whole name; a null or missing input gives null, a missing field
    nothing (https://www.mongodb.com/docs/manual/reference/operator/aggregation/getField/)."""
    assert evaluate(expression, doc) == value


@pytest.mark.parametrize(("expression", "message"), [
    ({"$getField": "$a"}, "constant"),
    ({"$getField": {"field": 5}}, "type String"),
    ({"$getField": {"input": {}}}, "requires 'field'"),
    ({"$getField": {"field": "a", "other": 1}}, "unknown argument"),
    ({"$getField": {"field": "a", "input": 5}}, "type Object"),
])
def test_get_field_refusals(expression, message):
    """$getField: field is a constant string ($-names in $literal), input an object; anything else
    fails the query
    (https://www.mongodb.com/docs/manual/reference/operator/aggregation/getField/)."""
    with pytest.raises(BadInput, match=message):
        evaluate(expression, {})


# $cond, $switch, $and/$or/$not, $cmp ----------------------------------------------------------

@pytest.mark.parametrize(("expression", "value"), [
    ({"$cond": [True, "yes", "no"]}, "yes"),
    ({"$cond": [0, "yes", "no"]}, "no"),
    ({"$cond": {"if": None, "then": "yes", "else": "no"}}, "no"),
    ({"$cond": {"if": [], "then": "yes", "else": "no"}}, "yes"),  # an array is true
    ({"$cond": [True, "yes", {"$size": 5}]}, "yes"),  # the branch not taken is not evaluated
])
def test_cond(expression, value):
    """$cond: both forms; the if is read as $expr reads truth
    (https://www.mongodb.com/docs/manual/reference/operator/aggregation/cond/)."""
    assert evaluate(expression, {}) == value


@pytest.mark.parametrize("expression", [
    {"$cond": [True, 1]}, {"$cond": {"if": True, "then": 1}},
    {"$cond": {"if": True, "then": 1, "else": 2, "other": 3}},
])
def test_cond_refusals(expression):
    """$cond: three arguments, if/then/else and nothing else
    (https://www.mongodb.com/docs/manual/reference/operator/aggregation/cond/)."""
    with pytest.raises(BadInput):
        evaluate(expression, {})


def test_switch_takes_the_first_true_branch():
    """$switch: branches in order, then the default
    (https://www.mongodb.com/docs/manual/reference/operator/aggregation/switch/)."""
    spec = {"branches": [{"case": {"$gt": ["$v", 10]}, "then": "big"},
                         {"case": {"$gt": ["$v", 0]}, "then": "some"}], "default": "none"}
    assert [evaluate({"$switch": spec}, {"v": v}) for v in (11, 5, 0)] == ["big", "some", "none"]


@pytest.mark.parametrize("spec", [
    {"branches": []}, {"branches": [{"case": True}]}, {"branches": [5]},
    {"branches": [{"case": True, "then": 1, "x": 2}]}, {"branches": [], "other": 1},
])
def test_switch_refusals(spec):
    """$switch: at least one branch, each an object with case and then
    (https://www.mongodb.com/docs/manual/reference/operator/aggregation/switch/)."""
    with pytest.raises(BadInput):
        evaluate({"$switch": spec}, {})


def test_switch_without_default_fails_when_no_case_is_true():
    """$switch: no true case and no default fails the query
    (https://www.mongodb.com/docs/manual/reference/operator/aggregation/switch/)."""
    with pytest.raises(BadInput, match="no default"):
        evaluate({"$switch": {"branches": [{"case": False, "then": 1}]}}, {})


@pytest.mark.parametrize(("expression", "value"), [
    ({"$and": []}, True), ({"$or": []}, False), ({"$and": [1, "a", [0]]}, True),
    ({"$and": [1, 0]}, False), ({"$or": [None, "$missing", 0.0]}, False),
    ({"$or": [None, Decimal128("0.1")]}, True), ({"$not": [0]}, True), ({"$not": [[]]}, False),
    ({"$not": "$missing"}, True),
])
def test_and_or_not(expression, value):
    """$and, $or, $not: null, missing, false and zero are false; all else true
    (https://www.mongodb.com/docs/manual/reference/operator/aggregation/and/,
    https://www.mongodb.com/docs/manual/reference/operator/aggregation/or/,
    https://www.mongodb.com/docs/manual/reference/operator/aggregation/not/)."""
    assert evaluate(expression, {}) is value


@pytest.mark.parametrize(("left", "right", "value"), [
    (1, 1.0, 0), (1, "a", -1), ("b", "a", 1), (None, "$missing", 1), ([1], 5, 1),
    (Regex("a"), {"a": 1}, 1), (Int64(2), Decimal128("2.5"), -1),
])
def test_cmp(left, right, value):
    """$cmp: -1, 0 or 1 in BSON order, across types
    (https://www.mongodb.com/docs/manual/reference/operator/aggregation/cmp/,
    https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/)."""
    assert evaluate({"$cmp": [left, right]}, {}) == value


# $size, $arrayElemAt --------------------------------------------------------------------------

def test_size():
    """$size: the length of an array; anything else fails the query
    (https://www.mongodb.com/docs/manual/reference/operator/aggregation/size/)."""
    assert evaluate({"$size": "$a"}, {"a": [1, [2, 3]]}) == 2
    assert evaluate({"$size": [[]]}, {}) == 0
    for bad in ({"a": 5}, {}):
        with pytest.raises(BadInput, match="must be an array"):
            evaluate({"$size": "$a"}, bad)


@pytest.mark.parametrize(("line", "index", "value"), [
    (13, 2, 3), (17, 1.0, 2), (21, Decimal128("2.0"), 3), (25, -1, 5), (27, -5, 1),
    (31, 5, model.MISSING), (33, 2**31 - 1, model.MISSING),
    (35, Int64(2**31 - 1), model.MISSING), (39, -6, model.MISSING),
    (41, -(2**31), model.MISSING), (43, Int64(-(2**31)), model.MISSING), (47, None, None),
])
def test_array_elem_at(line, index, value):
    """Whole-number indexes, negative from the end, nothing out of bounds, null for a null index
    (jstests/aggregation/expressions/array_elem_at.js:10-47 at 1a8480a0; each case's own line
    is its first parameter)."""
    doc = {"a": [1, 2, 3, 4, 5]}
    assert evaluate({"$arrayElemAt": ["$a", index]}, doc) == value, ELEM_AT.format(line)


def test_array_elem_at_null_array():
    """A null array gives null (jstests/aggregation/expressions/array_elem_at.js:49 at 1a8480a0)."""
    assert evaluate({"$arrayElemAt": [None, 4]}, {}) is None


@pytest.mark.parametrize(("line", "args"), [
    (55, [["one", "arg"]]), (58, ["one", 2]), (61, [[1, 2], "2"]), (64, [[1, 2], 1.5]),
    (65, [[1, 2], Decimal128("1.5")]), (66, [[1, 2], 2.0**32]), (67, [[1, 2], -(2.0**31) - 1]),
])
def test_array_elem_at_refusals(line, args):
    """Two arguments, an array and a 32-bit whole number
    (jstests/aggregation/expressions/array_elem_at.js:54-67 at 1a8480a0; each case's own line
    is its first parameter)."""
    with pytest.raises(BadInput):
        evaluate({"$arrayElemAt": args}, {})
