"""The model of MongoDB's comparison rules: recorded results, the manual's rules, and invariants."""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re

import pytest
from bson import Binary, Code, Decimal128, Int64, MaxKey, MinKey, ObjectId, Regex, Timestamp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from labkit.errors import BadInput, ConversionFailure, ParallelArrays
from labkit.model import bson_order as m
from labkit.model import fixtures, reads

OCT1 = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)


def found(name, query):
    """The model's ``_id``s for ``find(query)`` on a fixture, sorted."""
    return sorted(reads.ids(reads.find(fixtures.load(name), query)))


@pytest.mark.parametrize(("name", "query", "recorded"), [
    ("events", {"at": {"$gte": "2026-10-01"}}, ["a", "b", "c"]),
    ("events", {"atDate": {"$gte": OCT1}}, ["b", "c"]),
    ("events", {"atDate": {"$gte": "2026-10-01"}}, []),
    ("orders", {"userId": 42}, [1, 3, 4, 5]),
    ("orders", {"userId": "42"}, [2]),
    ("orders", {"userId": {"$gt": 0}}, [1, 3, 4, 5]),
    ("orders", {"userId": {"$gt": ""}}, [2]),
])
def test_recorded_query_results(name, query, recorded):
    """Each query the chapter recorded on a real server gives the same _ids in the model (the
    kit's own recorded results: labkit's fixtures, not a jstest)."""
    assert found(name, query) == recorded


def test_recorded_mixed_sort():
    """The chapter's 15-document mixed sort, exactly."""
    order = reads.ids(m.sort(fixtures.load("mixed"), "v:1,_id:1"))
    assert " ".join(order) == ("emptyArr missing null dec2 array dbl9.5 int10 long100 str10 "
                               "str9 object binData oid bool date")


def test_recorded_string_sort_of_dates():
    """Dates as strings sort bytewise: 2026-9-30 comes first in descending order."""
    assert [d["at"] for d in m.sort(fixtures.load("events"), "at:-1")] == [
        "2026-9-30", "2026-10-15", "2026-10-01"]


def test_recorded_census_and_the_python_difference():
    """The shell's fixture counts int 2; the same values from Python count a double instead."""
    from labkit.experiments.bracketing import python_orders

    assert reads.census(fixtures.load("orders"), "userId") == {"decimal": 1, "int": 2, "long": 1,
                                                           "string": 1}
    assert reads.census(python_orders(), "userId") == {"decimal": 1, "double": 1, "int": 1,
                                                   "long": 1, "string": 1}


@pytest.mark.parametrize(("query", "expected"), [
    ({"$expr": {"$gt": ["$userId", 0]}}, [1, 2, 3, 4, 5]),
    ({"userId": {"$ne": 42}}, [2]),
    ({"userId": {"$nin": [42]}}, [2]),
    ({"userId": {"$in": [42, "42"]}}, [1, 2, 3, 4, 5]),
    ({"userId": {"$type": "number"}}, [1, 3, 4, 5]),
    ({"userId": {"$type": "int"}}, [1, 4]),
    ({"userId": {"$type": ["long", 19]}}, [3, 5]),
    ({"$or": [{"userId": "42"}, {"_id": 1}]}, [1, 2]),
])
def test_operators_on_orders(query, expected):
    """$expr does not bracket, $ne and $nin do not bracket, $in and $type work as documented
    (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/,
    https://www.mongodb.com/docs/manual/reference/operator/query/expr/,
    https://www.mongodb.com/docs/manual/reference/operator/query/ne/,
    https://www.mongodb.com/docs/manual/reference/operator/query/nin/,
    https://www.mongodb.com/docs/manual/reference/operator/query/in/,
    https://www.mongodb.com/docs/manual/reference/operator/query/type/)."""
    assert found("orders", query) == expected


@pytest.mark.parametrize(("op", "expected"), [("$eq", [1, 2]), ("$gte", [1, 2]), ("$lte", [1, 2]),
                                              ("$gt", []), ("$lt", []), ("$ne", [3, 4])])
def test_null_matches_null_and_missing(op, expected):
    """null: $eq, $gte, $lte match null and missing; $gt and $lt nothing; $ne the rest
    (jstests/core/query/null_query_semantics.js:46-77 at 1704949c for $eq and $ne,
    https://www.mongodb.com/docs/manual/tutorial/query-for-null-fields/; the ranges follow
    expression_leaf.cpp)."""
    assert found("nulls", {"a": {op: None}}) == expected


@pytest.mark.parametrize(("op", "expected"), [("$eq", [1]), ("$gte", [1]), ("$lte", [1]),
                                              ("$gt", []), ("$lt", [])])
def test_nan_matches_only_nan(op, expected):
    """NaN: $gte and $lte NaN match only NaN; $gt and $lt match nothing
    (jstests/core/query/nan.js:30-55 at 4be00f9a)."""
    assert found("nans", {"a": {op: math.nan}}) == expected


def test_nan_is_not_below_zero_in_a_query():
    """In a query NaN is no number's neighbour: $lt 0 matches -inf but not NaN
    (jstests/core/query/nan.js:96-105 at 4be00f9a)."""
    assert found("nans", {"a": {"$lt": 0}}) == [3]


@pytest.mark.parametrize(("query", "expected"), [
    ({"a": {"$gt": 0}}, [1, 2, 3]), ({"a": [1, 10]}, [1]), ({"a": 10}, [1]),
    ({"a": {"$gt": [1]}}, [1, 3]), ({"a": {"$lt": -1}}, [4]),
    ({"a": {"$exists": True}}, [1, 2, 3, 4]), ({"a": {"$type": "array"}}, [1, 3, 4]),
])
def test_arrays_match_by_element_and_as_a_whole(query, expected):
    """Any element can match a scalar; an array operand compares with the whole array
    (https://www.mongodb.com/docs/manual/tutorial/query-arrays/,
    https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/)."""
    assert found("arrays", query) == expected


def test_sort_represents_arrays_by_min_ascending_and_max_descending():
    """[1, 10] sorts by 1 ascending and by 10 descending
    (jstests/core/query/sort/sort_array.js:59-66, 72-79 at 6fdbf4c4)."""
    docs = fixtures.load("arrays")
    assert reads.ids(m.sort(docs, "a:1")) == [4, 1, 3, 2]
    assert reads.ids(m.sort(docs, "a:-1")) == [1, 3, 2, 4]


def test_empty_array_sorts_below_null_both_ways():
    """An empty array is below null ascending, and last descending
    (jstests/core/query/sort/sort_dotted_paths.js:29-34 at b6fcc56b)."""
    docs = [{"_id": 1, "v": None}, {"_id": 2, "v": []}, {"_id": 3}, {"_id": 4, "v": 0}]
    assert reads.ids(m.sort(docs, "v:1,_id:1")) == [2, 1, 3, 4]
    assert reads.ids(m.sort(docs, "v:-1,_id:1")) == [4, 1, 3, 2]


def test_type_ladder():
    """One value of each type sorts in the manual's order
    (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/)."""
    from labkit.experiments.sort_order import S1_VALUES, _one_of_each_type

    docs = m.sort(_one_of_each_type(), "v:1")
    kinds = [m.bson_type(d["v"]) for d in docs]
    assert ["number" if k == "int" else k for k in kinds] == S1_VALUES


@pytest.mark.parametrize(("lower", "higher"), [
    (Decimal128("0.1"), 0.1),  # the double 0.1 is slightly above one tenth
    (2**53, 2**53 + 1), (float(2**53), 2**53 + 1), (Int64(-1), 0), (math.nan, -math.inf),
    (-math.inf, Decimal128("-1E+6000")), (Decimal128("NaN"), -5),
    ("10", "9"), ("Z", "a"), ("z", "é"), ({"a": 1}, {"b": 0}), ({"a": 1}, {"a": 1, "b": 0}),
    ({"a": 5}, {"a": "x"}), ([1, 2], [1, 3]), ([1], [1, 0]), ([9], ["a"]),
    (Binary(b"\xff", 0), Binary(b"\x00\x00", 0)), (Binary(b"\x01", 0), Binary(b"\x00", 5)),
    (ObjectId("0" * 24), ObjectId("0" * 23 + "1")), (False, True),
    (dt.datetime(1969, 1, 1, tzinfo=dt.UTC), OCT1), (Timestamp(1, 2), Timestamp(2, 1)),
    (Regex("a", "i"), Regex("b", "")), (Code("a"), Code("b")), (Code("b"), Code("a", {})),
    (MinKey(), None), (None, 0), (0, ""), ("", {}), ({}, []), ([], Binary(b"")),
    (Binary(b""), ObjectId()), (ObjectId(), False), (True, OCT1), (OCT1, Timestamp(0, 0)),
    (Timestamp(9, 9), re.compile("a")), (re.compile("z"), Code("a")), (Code("z"), Code("a", {})),
    (Code("z", {}), MaxKey()),
])
def test_order_pairs(lower, higher):
    """Pairs from the manual's rules: the first sorts strictly before the second
    (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/)."""
    assert m.compare(lower, higher) == -1
    assert m.compare(higher, lower) == 1


@pytest.mark.parametrize(("a", "b"), [(1, 1.0), (Int64(42), Decimal128("42.00")), (-0.0, 0),
                                      (math.nan, Decimal128("NaN")), (None, None), ("x", "x"),
                                      (MinKey(), MinKey())])
def test_equal_pairs(a, b):
    """Values equal across numeric types (and NaN with NaN) compare equal
    (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/;
    jstests/core/query/nan.js:60-82 at 4be00f9a for NaN)."""
    assert m.compare(a, b) == 0


def test_bad_sort_and_operators_are_refused():
    """Malformed sorts and operators the model does not know are bad input, not guesses
    (labkit's own choice)."""
    for spec in ("v", "v:2", ":1", "v:up"):
        with pytest.raises(BadInput):
            m.parse_sort(spec)
    with pytest.raises(BadInput):
        reads.find([{"a": 1}], {"a": {"$where": "x"}})
    with pytest.raises(BadInput):
        reads.find([{"a": 1}], {"$text": {"$search": "x"}})


def test_a_sort_path_that_is_not_text_is_refused():
    """A sort path given as a number (a YAML key in a claim file) is bad input, not a traceback
    (found by mypy --strict on the model, issue "One house")."""
    with pytest.raises(BadInput):
        m.sort([{"_id": 1}], {1: 1})
    with pytest.raises(BadInput):
        m.parse_sort([(1, 1)])


# Invariants ---------------------------------------------------------------------------

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1),
    st.integers(-(2**63), 2**63 - 1).map(Int64),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(min_value=-(10**12), max_value=10**12, places=3).map(Decimal128),
    st.text(max_size=4), st.binary(max_size=3).map(lambda b: Binary(b, 0)),
    st.datetimes(timezones=st.just(dt.UTC)).map(lambda d: d.replace(microsecond=0)),
    st.binary(min_size=12, max_size=12).map(ObjectId), st.just(MinKey()), st.just(MaxKey()),
)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("ab"), inner, max_size=2)),
    max_leaves=6)


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


@settings(max_examples=300, deadline=None)
@given(values, values)
def test_compare_is_antisymmetric(a, b):
    """compare(a, b) is the negation of compare(b, a), and a value equals itself (an order's
    own law, labkit's check)."""
    assert m.compare(a, b) == -m.compare(b, a)
    assert m.compare(a, a) == 0


@settings(max_examples=300, deadline=None)
@given(values, values, values)
def test_compare_is_transitive(a, b, c):
    """If a <= b and b <= c then a <= c (an order's own law, labkit's check)."""
    x, y, z = sorted([a, b, c], key=m.sort_cmp)
    assert m.compare(x, y) <= 0
    assert m.compare(y, z) <= 0
    assert m.compare(x, z) <= 0


numbers = st.one_of(st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False),
                    st.integers(-(2**63), 2**63 - 1).map(Int64),
                    st.decimals(min_value=-(10**12), max_value=10**12, places=2).map(Decimal128))
same_bracket = st.one_of(
    st.tuples(numbers, numbers), st.tuples(st.text(max_size=4), st.text(max_size=4)),
    st.tuples(st.booleans(), st.booleans()),
    st.tuples(*[st.datetimes(timezones=st.just(dt.UTC)).map(
        lambda d: d.replace(microsecond=0))] * 2),
    st.tuples(*[st.binary(min_size=12, max_size=12).map(ObjectId)] * 2),
    st.tuples(*[st.binary(max_size=3).map(lambda b: Binary(b, 0))] * 2),
)


@settings(max_examples=300, deadline=None)
@given(same_bracket)
def test_query_comparison_agrees_with_sort_order_within_a_bracket(pair):
    """For scalars of one bracket (NaN aside), $gt/$lt/$eq match exactly as the sort orders
    them (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/)."""
    a, b = pair
    doc = {"v": a}
    step = m.compare(a, b)
    assert reads.matches(doc, {"v": {"$gt": b}}) == (step > 0)
    assert reads.matches(doc, {"v": {"$lt": b}}) == (step < 0)
    assert reads.matches(doc, {"v": {"$gte": b}}) == (step >= 0)
    assert reads.matches(doc, {"v": b}) == (step == 0)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(scalars, scalars)
def test_different_brackets_never_match(a, b):
    """A comparison operator never matches a value from another bracket (null and MinKey
    aside; https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/)."""
    assume(m.rank(a) != m.rank(b) and b is not None)
    assume(m.rank(b) not in (m.RANKS["minKey"], m.RANKS["maxKey"]))
    for op in ("$eq", "$gt", "$gte", "$lt", "$lte"):
        assert not reads.matches({"v": a}, {"v": {op: b}})


@settings(max_examples=100, deadline=None)
@given(st.lists(values, max_size=8))
def test_sort_output_is_ordered(items):
    """Sorted documents have non-decreasing sort keys (labkit's check of its own sort)."""
    docs = [{"_id": i, "v": v} for i, v in enumerate(items)]
    keys = [m.sort_key(d, "v") for d in m.sort(docs, "v:1")]
    assert all(m.compare(x, y) <= 0 for x, y in itertools.pairwise(keys))


# Expected results published by MongoDB's own server tests, restated as fixtures here; each row
# names the lines of its data and of its expectation in the stored copy of mongodb/mongo.

SERVER_SUITE_SORTS = [
    # jstests/core/query/sort/sort_array.js:48-49, 59-66 at 6fdbf4c4
    ([{"_id": 0, "a": [3, 0, 1]}, {"_id": 1, "a": [8, 4, -1]}], {"a": {"$gte": 2}}, "a:1",
     [1, 0]),
    # jstests/core/query/sort/sort_array.js:69-70, 72-79 at 6fdbf4c4
    ([{"_id": 0, "a": [3, 0, 1]}, {"_id": 1, "a": [0, 4, -1]}], {"a": {"$gte": 2}}, "a:-1",
     [1, 0]),
    # jstests/core/query/sort/sort_array.js:115-116, 118-126 at 6fdbf4c4
    ([{"_id": 0, "x": [{"y": [4, 0, 1], "z": 7}, {"y": 0, "z": 9}]},
      {"_id": 1, "x": [{"y": 1, "z": 7}, {"y": 0, "z": [8, 6]}]}], {}, "x.y:1,x.z:-1", [0, 1]),
    # jstests/core/query/sort/sort_array.js:115-116, 128-136 at 6fdbf4c4
    ([{"_id": 0, "x": [{"y": [4, 0, 1], "z": 7}, {"y": 0, "z": 9}]},
      {"_id": 1, "x": [{"y": 1, "z": 7}, {"y": 0, "z": [8, 6]}]}], {}, "x.y:-1,x.z:1", [0, 1]),
    # jstests/core/query/sort/sort_array.js:222-225, 227-233 at 6fdbf4c4
    ([{"_id": 0, "a": 1, "d": [{"e": {"f": 1, "g": [6, 5, 4]}}, {"e": {"g": [3, 2, 1]}}]},
      {"_id": 1, "a": 2, "d": [{"e": {"f": 2, "g": [5, 4, 3]}}, {"e": {"g": [2, 1, 0]}}]}],
     {}, "d.e.g:1", [1, 0]),
    # jstests/core/query/sort/sort_array.js:237-248 at 6fdbf4c4
    ([{"_id": 2, "a": [{"b": 1, "c": 2}, {"b": 2, "c": 3}]},
      {"_id": 0, "a": [{"b": 2, "c": 0}, {"b": 1, "c": 4}]},
      {"_id": 1, "a": [{"b": 1, "c": 5}, {"b": 2, "c": 1}]}], {"a.b": 1}, "a.c:1", [0, 1, 2]),
    # jstests/core/query/sort/sort_array.js:281-291 at 6fdbf4c4
    ([{"_id": 0, "a": [{"x": 2}, {"x": 3}]}, {"_id": 1, "a": [{"x": 1}, {"x": 4}]},
      {"_id": 2, "a": [{"x": 3}, {"x": 4}]}], {}, "a.x:1", [1, 0, 2]),
]


@pytest.mark.parametrize(("docs", "query", "spec", "expected"), SERVER_SUITE_SORTS)
def test_server_suite_sort_expectations(docs, query, spec, expected):
    """Sorts through arrays and arrays of documents order as the server's own tests expect
    (jstests/core/query/sort/sort_array.js:47-291 at 6fdbf4c4, each row's lines in its comment)."""
    assert reads.ids(m.sort(reads.find(docs, query), spec)) == expected


NULL_DOCS = [{"_id": 0, "a": 1}, {"_id": 1, "b": 1}, {"_id": 2, "a": None},
             {"_id": 4, "a": [1, 2, 3]}, {"_id": 5, "a": [1, None]}]


@pytest.mark.parametrize(("query", "expected"), [
    # jstests/core/query/type/null_undefined.js:60-68 at 1704949c, without the undefined documents
    ({"a": {"$eq": None}}, [1, 2, 5]),
    # jstests/core/query/type/null_undefined.js:51-58 at 1704949c, without the undefined documents
    ({"a": {"$type": "null"}}, [2, 5]),
    # jstests/core/query/type/null_undefined.js:97-98 at 1704949c: $expr's null is null only
    ({"$expr": {"$eq": ["$a", None]}}, [2]),
])
def test_server_suite_null_expectations(query, expected):
    """null in queries (missing and arrays holding null match) and in $expr (null only), on the
    documents of jstests/core/query/type/null_undefined.js:12-24 at 1704949c without
    undefined."""
    assert reads.ids(reads.find(NULL_DOCS, query)) == expected


# MongoDB's own test suite, restated. Each table and row cites the jstests lines of its data and
# of its expectation at the commit read; the model must give the same _ids.

U = m.UNDEFINED
# jstests/core/query/sort/sort_dotted_paths.js:17-27 at b6fcc56b
SDP_BASIC = [{"_id": 1, "a": 1}, {"_id": 2, "a": U}, {"_id": 3, "a": None}, {"_id": 4, "a": {}},
             {"_id": 5, "a": []}, {"_id": 6, "a": [1]}, {"_id": 7, "a": [[1]]}, {"_id": 8},
             {"_id": 9, "a": [U]}]
# jstests/core/query/sort/sort_dotted_paths.js:39-49 at b6fcc56b
SDP_TWO_ARRAYS = [
    {"_id": 1, "a": 1, "b": [2]}, {"_id": 2, "a": 2, "b": []}, {"_id": 3, "a": [], "b": 4},
    {"_id": 4, "a": [1], "b": 4}, {"_id": 5, "a": [2, 3], "b": 2},
    {"_id": 6, "a": 2, "b": [3, 5]}, {"_id": 7, "a": 1, "b": [1, 3]},
    {"_id": 8, "a": [1, 2], "b": 3}, {"_id": 9, "a": 2, "b": 3}]
# jstests/core/query/sort/sort_dotted_paths.js:81-91 at b6fcc56b
SDP_LENGTH_TWO = [
    {"_id": 1, "a": {"b": 2}}, {"_id": 2, "a": {"b": []}}, {"_id": 3, "a": {"b": [2, 3]}},
    {"_id": 4, "a": {"c": 1}}, {"_id": 5, "a": []}, {"_id": 6, "a": [{"b": [5]}]},
    {"_id": 7, "a": [{"b": [4, 5]}, {"b": 7}]}, {"_id": 8, "a": [{"b": [1, 3]}, {"b": [2, 5]}]},
    {"_id": 9, "a": [{"b": []}, {"b": [1, 3]}]}]


def _pairs(*rows):
    return [{"_id": i, "a": [{"b": b1, "c": c1}, {"b": b2, "c": c2}]}
            for i, (b1, c1, b2, c2) in enumerate(rows, start=1)]


# jstests/core/query/sort/sort_dotted_paths.js:108-118 at b6fcc56b
SDP_PREFIX = _pairs((4, 1, 1, 2), (2, 1, 4, 2), (6, 1, 9, 2), (4, 1, 5, 3), (2, 1, 7, 3),
                    (5, 1, 3, 3), (7, 2, 2, 3), (3, 2, 8, 3), (8, 2, 6, 3))
# jstests/core/query/sort/sort_dotted_paths.js:150-160 at b6fcc56b
SDP_NESTED = _pairs(([4, 1], 1, [1, 5], 2), (2, [1, 3], 4, [2, 4]), ([6, 4], 1, [9, 7], 2),
                    (4, [1, 2], 5, [3, 2]), ([2, 3], 1, [7, 6], 3), (5, [], 3, 3),
                    ([], 2, 2, 3), (3, [2], 8, [3]), ([8], 2, [6], 3))


@pytest.mark.parametrize(("docs", "spec", "expected"), [
    # jstests/core/query/sort/sort_dotted_paths.js:29-31 at b6fcc56b
    (SDP_BASIC, "a:1,_id:1", [2, 5, 9, 3, 8, 1, 6, 4, 7]),
    # jstests/core/query/sort/sort_dotted_paths.js:32-34 at b6fcc56b
    (SDP_BASIC, "a:-1,_id:1", [7, 4, 1, 6, 3, 8, 2, 5, 9]),
    # jstests/core/query/sort/sort_dotted_paths_numeric.js:17-27, 31-33 at b6fcc56b
    (SDP_BASIC, "a.0:1,_id:1", [9, 1, 2, 3, 4, 5, 8, 6, 7]),
    # jstests/core/query/sort/sort_dotted_paths_numeric.js:17-27, 34-36 at b6fcc56b
    (SDP_BASIC, "a.0:-1,_id:1", [7, 6, 1, 2, 3, 4, 5, 8, 9]),
    # jstests/core/query/sort/sort_dotted_paths.js:51-53 at b6fcc56b
    (SDP_TWO_ARRAYS, "a:1,b:1,_id:1", [3, 7, 1, 8, 4, 2, 5, 6, 9]),
    # jstests/core/query/sort/sort_dotted_paths.js:54-56 at b6fcc56b
    (SDP_TWO_ARRAYS, "a:1,b:-1,_id:1", [3, 4, 7, 8, 1, 6, 9, 5, 2]),
    # jstests/core/query/sort/sort_dotted_paths.js:57-59 at b6fcc56b
    (SDP_TWO_ARRAYS, "a:-1,b:1,_id:1", [5, 2, 6, 8, 9, 7, 1, 4, 3]),
    # jstests/core/query/sort/sort_dotted_paths.js:60-62 at b6fcc56b
    (SDP_TWO_ARRAYS, "a:-1,b:-1,_id:1", [5, 6, 8, 9, 2, 4, 7, 1, 3]),
    # jstests/core/query/sort/sort_dotted_paths.js:93-95 at b6fcc56b
    (SDP_LENGTH_TWO, "a.b:1,_id:1", [2, 9, 4, 5, 8, 1, 3, 7, 6]),
    # jstests/core/query/sort/sort_dotted_paths.js:96-98 at b6fcc56b
    (SDP_LENGTH_TWO, "a.b:1,_id:-1", [9, 2, 5, 4, 8, 3, 1, 7, 6]),
    # jstests/core/query/sort/sort_dotted_paths.js:99-101 at b6fcc56b
    (SDP_LENGTH_TWO, "a.b:-1,_id:1", [7, 6, 8, 3, 9, 1, 4, 5, 2]),
    # jstests/core/query/sort/sort_dotted_paths.js:102-104 at b6fcc56b
    (SDP_LENGTH_TWO, "a.b:-1,_id:-1", [7, 8, 6, 9, 3, 1, 5, 4, 2]),
    # jstests/core/query/sort/sort_dotted_paths.js:120-122 at b6fcc56b
    (SDP_PREFIX, "a.c:1,a.b:1,_id:1", [2, 5, 1, 4, 6, 3, 8, 7, 9]),
    # jstests/core/query/sort/sort_dotted_paths.js:123-125 at b6fcc56b
    (SDP_PREFIX, "a.c:1,a.b:-1,_id:1", [3, 6, 1, 4, 2, 5, 9, 7, 8]),
    # jstests/core/query/sort/sort_dotted_paths.js:126-128 at b6fcc56b
    (SDP_PREFIX, "a.c:-1,a.b:1,_id:1", [7, 6, 4, 9, 5, 8, 1, 2, 3]),
    # jstests/core/query/sort/sort_dotted_paths.js:129-131 at b6fcc56b
    (SDP_PREFIX, "a.c:-1,a.b:-1,_id:1", [8, 5, 9, 4, 6, 7, 3, 2, 1]),
    # jstests/core/query/sort/sort_dotted_paths.js:135-137 at b6fcc56b
    (SDP_PREFIX, "a.c:1,a:1,_id:1", [2, 5, 1, 4, 6, 3, 8, 7, 9]),
    # jstests/core/query/sort/sort_dotted_paths.js:141-143 at b6fcc56b
    (SDP_PREFIX, "a.c:-1,a:1,_id:1", [7, 6, 4, 9, 5, 8, 1, 2, 3]),
    # jstests/core/query/sort/sort_dotted_paths.js:162-164 at b6fcc56b
    (SDP_NESTED, "a.c:1,a.b:1,_id:1", [6, 1, 2, 5, 3, 4, 7, 8, 9]),
    # jstests/core/query/sort/sort_dotted_paths.js:165-167 at b6fcc56b
    (SDP_NESTED, "a.c:1,a.b:-1,_id:1", [6, 3, 1, 4, 5, 2, 9, 8, 7]),
    # jstests/core/query/sort/sort_dotted_paths.js:168-170 at b6fcc56b
    (SDP_NESTED, "a.c:-1,a.b:1,_id:1", [2, 7, 6, 4, 5, 9, 8, 1, 3]),
    # jstests/core/query/sort/sort_dotted_paths.js:171-173 at b6fcc56b
    (SDP_NESTED, "a.c:-1,a.b:-1,_id:1", [2, 8, 5, 9, 4, 6, 7, 3, 1]),
])
def test_server_suite_dotted_sorts(docs, spec, expected):
    """Sorts through arrays build index keys: undefined and [] lowest, a.0 keeps a nested array
    whole, and paths into one array pair up per element
    (jstests/core/query/sort/sort_dotted_paths.js:17-173 at b6fcc56b and
    jstests/core/query/sort/sort_dotted_paths_numeric.js:17-36 at b6fcc56b, each row's lines in
    its comment)."""
    assert reads.ids(m.sort(docs, spec)) == expected


@pytest.mark.parametrize(("docs", "spec"), [
    # jstests/core/query/sort/sort_dotted_paths_parallel_arrays.js:18-24 at b6fcc56b
    ([{"_id": 1, "a": [], "b": 1}, {"_id": 2, "a": 1, "b": []}, {"_id": 3, "a": [], "b": []}],
     "a:1,b:1"),
    # jstests/core/query/sort/sort_dotted_paths_parallel_arrays.js:20-21, 25-26 at b6fcc56b
    ([{"_id": 1, "a": [], "b": []}], "_id:1,a:1,b:1"),
    # jstests/core/query/sort/sort_dotted_paths_parallel_arrays.js:32-38 at b6fcc56b
    ([{"_id": 1, "a": {"b": [1, 2], "c": [3, 4]}}], "a.b:1,a.c:1"),
    # jstests/core/query/sort/sort_dotted_paths_parallel_arrays.js:40-46 at b6fcc56b
    ([{"_id": 1, "a": {"b": [1, 2]}, "c": {"d": [3, 4]}}], "a.b:1,c.d:1"),
])
def test_parallel_arrays_cannot_be_sorted(docs, spec):
    """A sort on two paths that reach two different arrays is an error, as on the server
    (jstests/core/query/sort/sort_dotted_paths_parallel_arrays.js:18-46 at b6fcc56b)."""
    with pytest.raises(ParallelArrays):
        m.sort(docs, spec)


def test_parallel_arrays_filtered_out_sort_fine():
    """With the documents holding both arrays filtered out, the same sort works
    (jstests/core/query/sort/sort_dotted_paths.js:64-77 at b6fcc56b)."""
    docs = [{"_id": 1, "a": [], "b": 1}, {"_id": 2, "a": 1, "b": []}, {"_id": 3, "a": [], "b": []}]
    kept = reads.find(docs, {"$or": [{"a": {"$not": {"$type": "array"}}},
                                 {"b": {"$not": {"$type": "array"}}}]})
    assert reads.ids(m.sort(kept, "a:1,b:1")) == [1, 2]


# The 8.0 file, tagged requires_fcv_80, read at the stored commit: the documents of
# jstests/core/query/null_query_semantics.js:29-38 at 1704949c (NQS_PLAIN) and, after the
# multikey insert, jstests/core/query/null_query_semantics.js:261-276 at 1704949c (NQS_ARRAYS).
# Each case names the lines of the test function that asserts it. The 9.0 file (tagged
# requires_fcv_90) is not among the stored copies: 9.0's change for these documents is the
# manual's page https://www.mongodb.com/docs/manual/release-notes/9.0-compatibility/ ("Null
# Comparisons on Dotted Paths That Traverse Arrays"); where 9.0 keeps 8.0's answer, that is
# labkit's reading of the same page.
NQS_PLAIN = [
    {"_id": "a_empty_subobject", "a": {}}, {"_id": "a_null", "a": None},
    {"_id": "a_number", "a": 4}, {"_id": "a_subobject_b_not_null", "a": {"b": "hi"}},
    {"_id": "a_subobject_b_null", "a": {"b": None}},
    {"_id": "a_subobject_b_undefined", "a": {"b": U}}, {"_id": "a_undefined", "a": U},
    {"_id": "no_a"}]
NQS_ARRAYS = [
    *NQS_PLAIN,
    {"_id": "a_double_array", "a": [[]]}, {"_id": "a_empty_array", "a": []},
    {"_id": "a_object_array_b_mix_null_undefined_missing",
     "a": [{"b": None}, {"b": U}, {"b": None}, {}]},
    {"_id": "a_object_array_no_b_nulls", "a": [{"b": 1}, {"b": 3}, {"b": "string"}]},
    {"_id": "a_object_array_some_b_nulls", "a": [{"b": None}, {"b": 3}, {"b": None}]},
    {"_id": "a_object_array_some_b_undefined", "a": [{"b": U}, {"b": 3}]},
    {"_id": "a_object_array_some_b_missing", "a": [{"b": 3}, {}]},
    {"_id": "a_value_array_all_nulls", "a": [None, None]},
    {"_id": "a_value_array_no_nulls", "a": [1, "string", 4]},
    {"_id": "a_value_array_with_null", "a": [1, "string", None, 4]},
    {"_id": "a_value_array_with_undefined", "a": [1, "string", U, 4]}]
ALL = {d["_id"] for d in NQS_ARRAYS}
PLAIN = {d["_id"] for d in NQS_PLAIN}
EQ_NULL = {"a_null", "a_value_array_all_nulls", "a_value_array_with_null", "no_a"}
DOTTED_NULL_80 = {"a_empty_subobject", "a_null", "a_number", "a_subobject_b_null",
                  "a_undefined", "no_a", "a_object_array_b_mix_null_undefined_missing",
                  "a_object_array_some_b_nulls", "a_object_array_some_b_missing"}
DOTTED_NULL_90 = DOTTED_NULL_80 | {"a_double_array", "a_empty_array", "a_value_array_all_nulls",
                                   "a_value_array_no_nulls", "a_value_array_with_null",
                                   "a_value_array_with_undefined"}
STRINGS = {"a_object_array_no_b_nulls"}  # its b holds "string", which /^str.*/ matches
ELEM_B_NULL = {"a_double_array", "a_object_array_b_mix_null_undefined_missing",
               "a_object_array_some_b_nulls", "a_object_array_some_b_missing"}
ELEM_B_NOT_NULL = {"a_object_array_no_b_nulls", "a_object_array_some_b_nulls",
                   "a_object_array_some_b_undefined", "a_object_array_some_b_missing",
                   "a_object_array_b_mix_null_undefined_missing"}
ELEM_NOT_NULL = ELEM_B_NOT_NULL - {"a_object_array_some_b_missing"} | {
    "a_double_array", "a_object_array_some_b_missing", "a_value_array_no_nulls",
    "a_value_array_with_undefined", "a_value_array_with_null"}


@pytest.mark.parametrize("version", ["8.0", "9.0"])
@pytest.mark.parametrize(("docs", "query", "expected"), [
    # jstests/core/query/null_query_semantics.js:46-57 at 1704949c, testBasicNullQuery
    (NQS_PLAIN, {"a": {"$eq": None}}, {"a_null", "no_a"}),
    # jstests/core/query/null_query_semantics.js:59-77 at 1704949c, testBasicNotEqualsNullQuery
    (NQS_PLAIN, {"a": {"$ne": None}}, PLAIN - {"a_null", "no_a"}),
    # jstests/core/query/null_query_semantics.js:79-96 at 1704949c, testInNullQuery
    (NQS_PLAIN, {"a": {"$in": [None, 4]}}, {"a_null", "a_number", "no_a"}),
    # jstests/core/query/null_query_semantics.js:98-115 at 1704949c, testOrNullQuery
    (NQS_PLAIN, {"$or": [{"a": None}, {"a": 4}]}, {"a_null", "a_number", "no_a"}),
    # jstests/core/query/null_query_semantics.js:117-136 at 1704949c, testNotInNullQuery
    (NQS_PLAIN, {"a": {"$nin": [None, 4]}}, PLAIN - {"a_null", "a_number", "no_a"}),
    # jstests/core/query/null_query_semantics.js:138-158 at 1704949c, testNotInNullAndRegexQuery
    (NQS_PLAIN, {"a": {"$nin": [None, re.compile("^hi.*")]}}, PLAIN - {"a_null", "no_a"}),
    # jstests/core/query/null_query_semantics.js:160-172 at 1704949c, testExistsFalse
    (NQS_PLAIN, {"a": {"$exists": False}}, {"no_a"}),
    # jstests/core/query/null_query_semantics.js:174-193 at 1704949c, testDottedEqualsNull
    (NQS_PLAIN, {"a.b": {"$eq": None}}, {"a_empty_subobject", "a_null", "a_number",
                                         "a_subobject_b_null", "a_undefined", "no_a"}),
    # jstests/core/query/null_query_semantics.js:195-210 at 1704949c, testDottedNotEqualsNull
    (NQS_PLAIN, {"a.b": {"$ne": None}}, {"a_subobject_b_not_null", "a_subobject_b_undefined"}),
    # jstests/core/query/null_query_semantics.js:212-228 at 1704949c, testDottedExistsFalse
    (NQS_PLAIN, {"a.b": {"$exists": False}}, {"no_a", "a_empty_subobject", "a_null",
                                              "a_number", "a_undefined"}),
    # jstests/core/query/null_query_semantics.js:230-258 at 1704949c (…WithNoArrays)
    (NQS_PLAIN, {"a": {"$elemMatch": {"$eq": None}}}, set()),
    # jstests/core/query/null_query_semantics.js:230-258 at 1704949c (…WithNoArrays)
    (NQS_PLAIN, {"a": {"$elemMatch": {"b": {"$ne": None}}}}, set()),
    # jstests/core/query/null_query_semantics.js:286-302 at 1704949c, testBasicNullQuery
    (NQS_ARRAYS, {"a": {"$eq": None}}, EQ_NULL),
    # jstests/core/query/null_query_semantics.js:304-334 at 1704949c, testBasicNotEqualsNullQuery
    (NQS_ARRAYS, {"a": {"$ne": None}}, ALL - EQ_NULL),
    # jstests/core/query/null_query_semantics.js:336-362 at 1704949c, testBasicNotEqualsGTENullQuery
    (NQS_ARRAYS, {"a": {"$not": {"$gte": None}}}, ALL - EQ_NULL),
    # jstests/core/query/null_query_semantics.js:439-478 at 1704949c (…AndEmptyArrayQuery)
    (NQS_ARRAYS, {"a": {"$nin": [None, []]}},
     ALL - EQ_NULL - {"a_double_array", "a_empty_array"}),
    # jstests/core/query/null_query_semantics.js:480-510 at 1704949c, testNotInNullAndRegexQuery
    (NQS_ARRAYS, {"a": {"$nin": [None, re.compile("^str.*")]}},
     ALL - EQ_NULL - {"a_value_array_no_nulls", "a_value_array_with_undefined"}),
    # jstests/core/query/null_query_semantics.js:512-527 at 1704949c, testElemMatchValue
    (NQS_ARRAYS, {"a": {"$elemMatch": {"$eq": None}}},
     {"a_value_array_all_nulls", "a_value_array_with_null"}),
    # jstests/core/query/null_query_semantics.js:529-550 at 1704949c, testElemMatchValue
    (NQS_ARRAYS, {"a": {"$elemMatch": {"$ne": None}}}, ELEM_NOT_NULL),
    # jstests/core/query/null_query_semantics.js:733-744 at 1704949c, testDottedElemMatchValue
    (NQS_ARRAYS, {"a.b": {"$elemMatch": {"$eq": None}}}, set()),
    # jstests/core/query/null_query_semantics.js:746-773 at 1704949c, testElemMatchObject
    (NQS_ARRAYS, {"a": {"$elemMatch": {"b": {"$eq": None}}}}, ELEM_B_NULL),
    # jstests/core/query/null_query_semantics.js:775-786 at 1704949c, testElemMatchObject
    (NQS_ARRAYS, {"a": {"$elemMatch": {"b": {"$ne": None}}}}, ELEM_B_NOT_NULL),
])
def test_server_suite_null_semantics(docs, query, expected, version):
    """null matches null and missing, never undefined, in 8.0 and 9.0 alike; an array element
    that is an array is a document to $elemMatch
    (jstests/core/query/null_query_semantics.js:29-786 at 1704949c, each row's lines in its
    comment)."""
    assert set(reads.ids(reads.find(docs, query, mongodb_version=version))) == expected


@pytest.mark.parametrize(("query", "v80", "v90"), [
    # jstests/core/query/null_query_semantics.js:552-593 at 1704949c, testDottedEqualsNull
    ({"a.b": {"$eq": None}}, DOTTED_NULL_80, DOTTED_NULL_90),
    # jstests/core/query/null_query_semantics.js:632-655 at 1704949c, testDottedInNullQuery
    ({"a.b": {"$in": [None, 75]}}, DOTTED_NULL_80, DOTTED_NULL_90),
    # jstests/core/query/null_query_semantics.js:657-680 at 1704949c, testDottedOrNullQuery
    ({"$or": [{"a.b": None}, {"a.b": 75}]}, DOTTED_NULL_80, DOTTED_NULL_90),
    # jstests/core/query/null_query_semantics.js:595-630 at 1704949c, testDottedNotEqualsNull
    ({"a.b": {"$ne": None}}, ALL - DOTTED_NULL_80, ALL - DOTTED_NULL_90),
    # jstests/core/query/null_query_semantics.js:682-706 at 1704949c, testDottedNotInNullQuery
    ({"a.b": {"$nin": [None, 75]}}, ALL - DOTTED_NULL_80, ALL - DOTTED_NULL_90),
    # jstests/core/query/null_query_semantics.js:708-731 at 1704949c (…NotInNullAndRegexQuery)
    ({"a.b": {"$nin": [None, re.compile("^str.*")]}}, ALL - DOTTED_NULL_80 - STRINGS,
     ALL - DOTTED_NULL_90 - STRINGS),
])
def test_dotted_null_changed_in_90(query, v80, v90):
    """{"a.b": null} through arrays of scalars and empty arrays: no match in 8.0, a match in 9.0; an
    element without b is null in both (8.0: jstests/core/query/null_query_semantics.js:552-731 at
    1704949c, each row's lines in its comment; 9.0: the manual's
    https://www.mongodb.com/docs/manual/release-notes/9.0-compatibility/)."""
    assert set(reads.ids(reads.find(NQS_ARRAYS, query, mongodb_version="8.0"))) == v80
    assert set(reads.ids(reads.find(NQS_ARRAYS, query, mongodb_version="9.0"))) == v90


def test_default_version_is_the_default_servers():
    """Without a version the model follows the kit's default server, MongoDB 8.0."""
    from labkit.model.versions import CURRENT_MAJOR
    from labkit.servers import DEFAULT_MONGO_VERSION

    assert DEFAULT_MONGO_VERSION == "8.0"
    assert CURRENT_MAJOR == DEFAULT_MONGO_VERSION
    assert set(reads.ids(reads.find(NQS_ARRAYS, {"a.b": None}))) == DOTTED_NULL_80
    with pytest.raises(BadInput):  # 7.0 has a rule set since issue 19; 5.0 has none
        reads.find(NQS_ARRAYS, {"a.b": None}, mongodb_version="5.0")


# jstests/core/query/type/null_undefined.js:12-24 at 1704949c: a = 1 (0), missing (1), null (2),
# undefined (3), [1, 2, 3] (4), [1, null] (5), [null, undefined] (6), [1, undefined] (7),
# [1, null, undefined] (8).
NU_DOCS = [{"_id": 0, "a": 1}, {"_id": 1, "b": 1}, {"_id": 2, "a": None}, {"_id": 3, "a": U},
           {"_id": 4, "a": [1, 2, 3]}, {"_id": 5, "a": [1, None]}, {"_id": 6, "a": [None, U]},
           {"_id": 7, "a": [1, U]}, {"_id": 8, "a": [1, None, U]}]


@pytest.mark.parametrize(("query", "expected"), [
    # jstests/core/query/type/null_undefined.js:44-49 at 1704949c
    ({"a": {"$type": "undefined"}}, [3, 6, 7, 8]),
    # jstests/core/query/type/null_undefined.js:51-58 at 1704949c
    ({"a": {"$type": ["null", "undefined"]}}, [2, 3, 5, 6, 7, 8]),
    # jstests/core/query/type/null_undefined.js:60-68 at 1704949c
    ({"$or": [{"a": {"$eq": None}}, {"a": {"$type": "undefined"}}]},
     [1, 2, 3, 5, 6, 7, 8]),
    # jstests/core/query/type/null_undefined.js:60-68 at 1704949c without its $type clause
    # (labkit's derivation)
    ({"a": {"$eq": None}}, [1, 2, 5, 6, 8]),
    # jstests/core/query/type/null_undefined.js:70 at 1704949c
    ({"$expr": {"$eq": [{"$type": "$a"}, "undefined"]}}, [3]),
    # jstests/core/query/type/null_undefined.js:72-73 at 1704949c
    ({"$expr": {"$in": [{"$type": "$a"}, ["null", "undefined"]]}}, [2, 3]),
])
def test_server_suite_undefined(query, expected):
    """undefined is a type of its own: null does not match it, $type finds it
    (jstests/core/query/type/null_undefined.js:44-73 at 1704949c, each row's lines in its
    comment)."""
    assert reads.ids(reads.find(NU_DOCS, query)) == expected


def test_missing_equals_undefined_in_expr():
    """In $expr a missing field equals undefined and not null
    (jstests/core/query/type/null_undefined.js:94-101 at 1704949c)."""
    assert reads.evaluate({"$eq": ["$a", "$x"]}, {"a": U}) is True
    assert reads.evaluate({"$eq": ["$a", None]}, {"a": U}) is False
    assert reads.evaluate({"$eq": ["$x", None]}, {}) is False


def test_dbref_is_an_embedded_document():
    """A DBRef read from Extended JSON compares as the document {$ref, $id}
    (https://www.mongodb.com/docs/manual/reference/database-references/: DBRefs are embedded
    documents); it no longer aborts a query."""
    docs = fixtures.parse('[{"_id": 1, "r": {"$ref": "c", "$id": 5}}, {"_id": 2, "r": 1}]')
    assert m.bson_type(docs[0]["r"]) == "object"
    assert reads.ids(m.sort(docs, "r:-1")) == [1, 2]
    assert reads.ids(reads.find(docs, {"r": {"$ref": "c", "$id": 5}})) == [1]
    assert reads.ids(reads.find(docs, {"r.$id": 5})) == [1]


def test_bindata_subtype_3_is_not_a_uuid():
    """A 16-byte subtype-3 BinData keeps its subtype and sorts below the same bytes as subtype 4
    (BinData orders by length, then subtype, then bytes:
    https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/)."""
    data = "AAECAwQFBgcICQoLDA0ODw=="
    docs = fixtures.parse(
        f'[{{"_id": 4, "v": {{"$binary": {{"base64": "{data}", "subType": "04"}}}}}},'
        f' {{"_id": 3, "v": {{"$binary": {{"base64": "{data}", "subType": "03"}}}}}},'
        ' {"_id": 5, "v": {"$uuid": "00010203-0405-0607-0809-0a0b0c0d0e0f"}}]')
    assert [d["v"].subtype for d in docs] == [4, 3, 4]
    assert reads.ids(m.sort(docs, "v:1,_id:1")) == [3, 4, 5]
    assert reads.ids(reads.find(docs, {"v": docs[1]["v"]})) == [3]


@pytest.mark.parametrize(("docs", "query", "expected"), [
    ([{"_id": 1, "a": [[5]]}, {"_id": 2, "a": [5]}], {"a.0": 5}, [2]),
    ([{"_id": 1, "a": [[5]]}, {"_id": 2, "a": [5]}], {"a.0": [5]}, [1]),
    ([{"_id": 1, "a": [{"b": 1}, {}]}, {"_id": 2, "a": [{"b": 1}]}], {"a.b": None}, [1]),
    ([{"_id": 1, "a": [{"b": 1}, {}]}, {"_id": 2, "a": [{"b": 1}]}], {"a.b": {"$ne": None}},
     [2]),
])
def test_positional_and_dotted_paths(docs, query, expected):
    """a.0 reaching an array yields that array, not its elements; a subdocument without b gives
    a null a.b (jstests/core/query/sort/sort_dotted_paths_numeric.js:17-36 at b6fcc56b: "a.0"
    keeps [[1]]'s inner array whole; jstests/core/query/null_query_semantics.js:552-593 at
    1704949c: an element without b makes a.b null)."""
    assert reads.ids(reads.find(docs, query)) == expected


def test_expr_field_path_through_an_array_is_an_array():
    """In $expr, "$a.b" through an array of subdocuments is the array of the b's present
    (https://www.mongodb.com/docs/manual/reference/operator/query/expr/ uses aggregation
    expressions; https://www.mongodb.com/docs/manual/core/field-paths/: field paths through arrays
    give arrays)."""
    doc = {"a": [{"b": 1}, {}]}
    assert reads.evaluate("$a.b", doc) == [1]
    assert reads.matches(doc, {"$expr": {"$eq": ["$a.b", [1]]}})
    assert not reads.matches(doc, {"$expr": {"$eq": ["$a.b", 1]}})
    assert reads.evaluate("$a.b", {"a": [1, 2]}) == []


MIXED = [{"_id": 1, "v": [1, 2, 3]}, {"_id": 2, "v": ["1", 2]}, {"_id": 3, "v": 7},
         {"_id": 4, "v": "Apple"}, {"_id": 5, "v": ["apple", "pear"]}, {"_id": 6},
         {"_id": 7, "v": Decimal128("7.9")}, {"_id": 8, "v": -7.5}, {"_id": 9, "v": []}]


@pytest.mark.parametrize(("query", "expected"), [
    # https://www.mongodb.com/docs/manual/reference/operator/query/all/:
    # equivalent to an $and of equalities; an empty $all matches nothing
    ({"v": {"$all": [1, 2]}}, [1]),
    ({"v": {"$all": [2, "1"]}}, [2]),
    ({"v": {"$all": []}}, []),
    ({"v": {"$all": [{"$elemMatch": {"$gt": 2}}]}}, [1]),
    # https://www.mongodb.com/docs/manual/reference/operator/query/size/:
    # arrays of exactly that length, no bracketing with other types
    ({"v": {"$size": 2}}, [2, 5]),
    ({"v": {"$size": 0}}, [9]),
    # https://www.mongodb.com/docs/manual/reference/operator/query/mod/:
    # numbers only, decimals and doubles truncated toward zero, remainder signed
    ({"v": {"$mod": [4, 3]}}, [1, 3, 7]),
    ({"v": {"$mod": [4, -3]}}, [8]),
    # https://www.mongodb.com/docs/manual/reference/operator/query/regex/:
    # strings (and array elements), with $options, beside other operators
    ({"v": {"$regex": "^a", "$options": "i"}}, [4, 5]),
    ({"v": {"$regex": "^a", "$options": "i", "$nin": ["Apple"]}}, [5]),
    ({"v": {"$not": re.compile("^a", re.I)}}, [1, 2, 3, 6, 7, 8, 9]),
    ({"v": {"$not": {"$regex": "^a"}}}, [1, 2, 3, 4, 6, 7, 8, 9]),
    # https://www.mongodb.com/docs/manual/reference/operator/query/elemMatch/:
    # one element meets every condition
    ({"v": {"$elemMatch": {"$gt": 1, "$lt": 3}}}, [1, 2]),
    ({"v": {"$elemMatch": {"$type": "string"}}}, [2, 5]),
    # https://www.mongodb.com/docs/manual/reference/operator/query/type/ and
    # https://www.mongodb.com/docs/manual/reference/operator/query/exists/
    ({"v": {"$type": "number"}}, [1, 2, 3, 7, 8]),
    ({"v": {"$exists": False}}, [6]),
    ({"v": {"$in": [re.compile("^p"), 7]}}, [3, 5]),
])
def test_operators_with_mixed_types(query, expected):
    """$all, $size, $mod, $regex with $options and under $not, $elemMatch, $type, $exists and
    $in on a field of mixed types, as the manual's operator pages state (each group's page in
    its comment)."""
    assert reads.ids(reads.find(MIXED, query)) == expected


@pytest.mark.parametrize(("expression", "expected"), [
    # https://www.mongodb.com/docs/manual/reference/operator/aggregation/in/,
    # https://www.mongodb.com/docs/manual/reference/operator/aggregation/type/,
    # https://www.mongodb.com/docs/manual/reference/operator/aggregation/isNumber/,
    # https://www.mongodb.com/docs/manual/reference/operator/aggregation/ifNull/
    ({"$in": ["$v", [7, "7"]]}, [3]),
    ({"$eq": [{"$type": "$v"}, "missing"]}, [6]),
    ({"$isNumber": "$v"}, [3, 7, 8]),
    ({"$eq": [{"$ifNull": ["$v", "none"]}, "none"]}, [6]),
    # https://www.mongodb.com/docs/manual/reference/operator/aggregation/convert/:
    # strings that hold numbers become numbers; onError otherwise
    ({"$gt": [{"$convert": {"input": "$v", "to": "double", "onError": -1, "onNull": -2}}, 5]},
     [3, 7]),
    ({"$eq": [{"$convert": {"input": "$v", "to": "decimal", "onError": 0}}, -7.5]}, [8]),
])
def test_expression_operators_for_mixed_types(expression, expected):
    """$in, $type, $isNumber, $ifNull, $convert, $toString and $toDecimal in $expr (the
    aggregation operator pages, each in its comment)."""
    assert reads.ids(reads.find(MIXED, {"$expr": expression})) == expected


def test_conversions():
    """$toDouble parses numeric strings, $toDecimal keeps 15 digits of a double, $toString writes
    numbers and dates as the manual's examples show
    (https://www.mongodb.com/docs/manual/reference/operator/aggregation/toString/,
    https://www.mongodb.com/docs/manual/reference/operator/aggregation/toDecimal/,
    https://www.mongodb.com/docs/manual/reference/operator/aggregation/toDouble/)."""
    from labkit.model.convert import convert

    assert convert("42", "double") == 42.0
    assert convert(2.5, "decimal") == Decimal128("2.50000000000000")
    assert convert(Int64(5), "string") == "5"
    assert convert(True, "string") == "true"
    assert convert(OCT1, "string") == "2026-10-01T00:00:00.000Z"
    assert reads.ids(reads.find(MIXED[2:4], {"$expr": {"$eq": [{"$toString": "$v"}, "7"]}})) == [3]
    with pytest.raises(BadInput):  # how MongoDB writes -7.5 is not the model's to guess
        convert(-7.5, "string")
    with pytest.raises(ConversionFailure):
        convert("abc", "double")
    with pytest.raises(ConversionFailure):
        reads.find([{"v": "abc"}], {"$expr": {"$gt": [{"$toDouble": "$v"}, 0]}})


def test_numeric_ordering_collation():
    """A collation with numericOrdering orders digit strings by value: "2" before "10"
    (https://www.mongodb.com/docs/manual/reference/collation/: numericOrdering); other strings are
    ordered by ICU as the server orders them (issue 20), and refused where ICU cannot load
    (tests/test_collation.py)."""
    docs = [{"_id": i, "v": v} for i, v in enumerate(["10", "9", "100", "2"])]
    assert [d["v"] for d in m.sort(docs, "v:1")] == ["10", "100", "2", "9"]
    collated = m.sort(docs, "v:1", collation={"locale": "en", "numericOrdering": True})
    assert [d["v"] for d in collated] == ["2", "9", "10", "100"]
    mixed = m.sort([*docs, {"_id": 9, "v": "1a"}], "v:1", collation={"locale": "en",
                                                                      "numericOrdering": True})
    assert [d["v"] for d in mixed] == ["1a", "2", "9", "10", "100"]


@pytest.mark.parametrize("code", [math.inf, -math.inf, math.nan, Decimal128("Infinity")])
def test_a_type_code_that_is_no_whole_number_is_refused(code):
    """``{$type: [inf, 1]}`` is refused as MongoDB refuses a type code that is not a whole number of
    a BSON type (https://www.mongodb.com/docs/manual/reference/operator/query/type/, "Available
    Types"), not a crash in ``int()``."""
    with pytest.raises(BadInput, match="is not a BSON type number"):
        reads.find([{"a": 1}], {"a": {"$type": [code, 1]}})
