"""The model of MongoDB's comparison rules: recorded results, the manual's rules, and invariants."""

from __future__ import annotations

import datetime as dt
import math
import re

import pytest
from bson import Binary, Code, Decimal128, Int64, MaxKey, MinKey, ObjectId, Regex, Timestamp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from labkit import bson_order as m
from labkit import fixtures
from labkit.errors import BadInput

OCT1 = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)


def found(name, query):
    """The model's ``_id``s for ``find(query)`` on a fixture, sorted."""
    return sorted(m.ids(m.find(fixtures.load(name), query)))


@pytest.mark.parametrize("name, query, recorded", [
    ("events", {"at": {"$gte": "2026-10-01"}}, ["a", "b", "c"]),
    ("events", {"atDate": {"$gte": OCT1}}, ["b", "c"]),
    ("events", {"atDate": {"$gte": "2026-10-01"}}, []),
    ("orders", {"userId": 42}, [1, 3, 4, 5]),
    ("orders", {"userId": "42"}, [2]),
    ("orders", {"userId": {"$gt": 0}}, [1, 3, 4, 5]),
    ("orders", {"userId": {"$gt": ""}}, [2]),
])
def test_recorded_query_results(name, query, recorded):
    """Each query the chapter recorded on a real server gives the same _ids in the model."""
    assert found(name, query) == recorded


def test_recorded_mixed_sort():
    """The chapter's 15-document mixed sort, exactly."""
    order = m.ids(m.sort(fixtures.load("mixed"), "v:1,_id:1"))
    assert " ".join(order) == ("emptyArr missing null dec2 array dbl9.5 int10 long100 str10 "
                               "str9 object binData oid bool date")


def test_recorded_string_sort_of_dates():
    """Dates as strings sort bytewise: 2026-9-30 comes first in descending order."""
    assert [d["at"] for d in m.sort(fixtures.load("events"), "at:-1")] == [
        "2026-9-30", "2026-10-15", "2026-10-01"]


def test_recorded_census_and_the_python_difference():
    """The shell's fixture counts int 2; the same values from Python count a double instead."""
    from labkit.experiments.bracketing import python_orders

    assert m.census(fixtures.load("orders"), "userId") == {"decimal": 1, "int": 2, "long": 1,
                                                           "string": 1}
    assert m.census(python_orders(), "userId") == {"decimal": 1, "double": 1, "int": 1,
                                                   "long": 1, "string": 1}


@pytest.mark.parametrize("query, expected", [
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
    """$expr does not bracket, $ne and $nin do not bracket, $in and $type work as documented."""
    assert found("orders", query) == expected


@pytest.mark.parametrize("op, expected", [("$eq", [1, 2]), ("$gte", [1, 2]), ("$lte", [1, 2]),
                                          ("$gt", []), ("$lt", []), ("$ne", [3, 4])])
def test_null_matches_null_and_missing(op, expected):
    """null: $eq, $gte, $lte match null and missing; $gt and $lt nothing; $ne the rest."""
    assert found("nulls", {"a": {op: None}}) == expected


@pytest.mark.parametrize("op, expected", [("$eq", [1]), ("$gte", [1]), ("$lte", [1]),
                                          ("$gt", []), ("$lt", [])])
def test_nan_matches_only_nan(op, expected):
    """NaN: $gte and $lte NaN match only NaN; $gt and $lt match nothing."""
    assert found("nans", {"a": {op: math.nan}}) == expected


def test_nan_is_not_below_zero_in_a_query():
    """In a query NaN is no number's neighbour: $lt 0 matches -inf but not NaN."""
    assert found("nans", {"a": {"$lt": 0}}) == [3]


@pytest.mark.parametrize("query, expected", [
    ({"a": {"$gt": 0}}, [1, 2, 3]), ({"a": [1, 10]}, [1]), ({"a": 10}, [1]),
    ({"a": {"$gt": [1]}}, [1, 3]), ({"a": {"$lt": -1}}, [4]),
    ({"a": {"$exists": True}}, [1, 2, 3, 4]), ({"a": {"$type": "array"}}, [1, 3, 4]),
])
def test_arrays_match_by_element_and_as_a_whole(query, expected):
    """Any element can match a scalar; an array operand compares with the whole array."""
    assert found("arrays", query) == expected


def test_sort_represents_arrays_by_min_ascending_and_max_descending():
    """[1, 10] sorts by 1 ascending and by 10 descending."""
    docs = fixtures.load("arrays")
    assert m.ids(m.sort(docs, "a:1")) == [4, 1, 3, 2]
    assert m.ids(m.sort(docs, "a:-1")) == [1, 3, 2, 4]


def test_empty_array_sorts_below_null_both_ways():
    """An empty array is below null ascending, and last descending."""
    docs = [{"_id": 1, "v": None}, {"_id": 2, "v": []}, {"_id": 3}, {"_id": 4, "v": 0}]
    assert m.ids(m.sort(docs, "v:1,_id:1")) == [2, 1, 3, 4]
    assert m.ids(m.sort(docs, "v:-1,_id:1")) == [4, 1, 3, 2]


def test_type_ladder():
    """One value of each type sorts in the manual's order."""
    from labkit.experiments.sort_order import S1_VALUES, _one_of_each_type

    docs = m.sort(_one_of_each_type(), "v:1")
    kinds = [m.bson_type(d["v"]) for d in docs]
    assert ["number" if k == "int" else k for k in kinds] == S1_VALUES


@pytest.mark.parametrize("lower, higher", [
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
    """Pairs from the manual's rules: the first sorts strictly before the second."""
    assert m.compare(lower, higher) == -1
    assert m.compare(higher, lower) == 1


@pytest.mark.parametrize("a, b", [(1, 1.0), (Int64(42), Decimal128("42.00")), (-0.0, 0),
                                  (math.nan, Decimal128("NaN")), (None, None), ("x", "x"),
                                  (MinKey(), MinKey())])
def test_equal_pairs(a, b):
    """Values equal across numeric types (and NaN with NaN) compare equal."""
    assert m.compare(a, b) == 0


def test_bad_sort_and_operators_are_refused():
    """Malformed sorts and operators the model does not know are bad input, not guesses."""
    for spec in ("v", "v:2", ":1", "v:up"):
        with pytest.raises(BadInput):
            m.parse_sort(spec)
    with pytest.raises(BadInput):
        m.find([{"a": 1}], {"a": {"$where": "x"}})
    with pytest.raises(BadInput):
        m.find([{"a": 1}], {"$text": {"$search": "x"}})


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
    """compare(a, b) is the negation of compare(b, a), and a value equals itself."""
    assert m.compare(a, b) == -m.compare(b, a)
    assert m.compare(a, a) == 0


@settings(max_examples=300, deadline=None)
@given(values, values, values)
def test_compare_is_transitive(a, b, c):
    """If a <= b and b <= c then a <= c."""
    x, y, z = sorted([a, b, c], key=m.sort_cmp)
    assert m.compare(x, y) <= 0 and m.compare(y, z) <= 0 and m.compare(x, z) <= 0


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
    """For scalars of one bracket (NaN aside), $gt/$lt/$eq match exactly as the sort orders them."""
    a, b = pair
    doc = {"v": a}
    step = m.compare(a, b)
    assert m.matches(doc, {"v": {"$gt": b}}) == (step > 0)
    assert m.matches(doc, {"v": {"$lt": b}}) == (step < 0)
    assert m.matches(doc, {"v": {"$gte": b}}) == (step >= 0)
    assert m.matches(doc, {"v": b}) == (step == 0)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(scalars, scalars)
def test_different_brackets_never_match(a, b):
    """A comparison operator never matches a value from another bracket (null and MinKey aside)."""
    assume(m.rank(a) != m.rank(b) and b is not None)
    assume(m.rank(b) not in (m.RANKS["minKey"], m.RANKS["maxKey"]))
    for op in ("$eq", "$gt", "$gte", "$lt", "$lte"):
        assert not m.matches({"v": a}, {"v": {op: b}})


@settings(max_examples=100, deadline=None)
@given(st.lists(values, max_size=8))
def test_sort_output_is_ordered(items):
    """Sorted documents have non-decreasing sort keys."""
    docs = [{"_id": i, "v": v} for i, v in enumerate(items)]
    keys = [m.sort_key(d, "v") for d in m.sort(docs, "v:1")]
    assert all(m.compare(x, y) <= 0 for x, y in zip(keys, keys[1:], strict=False))


# Expected results published by MongoDB's own server tests (jstests/core/query/sort/
# sort_array.js and jstests/core/query/type/null_undefined.js), restated as fixtures here.

SERVER_SUITE_SORTS = [
    ([{"_id": 0, "a": [3, 0, 1]}, {"_id": 1, "a": [8, 4, -1]}], {"a": {"$gte": 2}}, "a:1",
     [1, 0]),
    ([{"_id": 0, "a": [3, 0, 1]}, {"_id": 1, "a": [0, 4, -1]}], {"a": {"$gte": 2}}, "a:-1",
     [1, 0]),
    ([{"_id": 0, "x": [{"y": [4, 0, 1], "z": 7}, {"y": 0, "z": 9}]},
      {"_id": 1, "x": [{"y": 1, "z": 7}, {"y": 0, "z": [8, 6]}]}], {}, "x.y:1,x.z:-1", [0, 1]),
    ([{"_id": 0, "x": [{"y": [4, 0, 1], "z": 7}, {"y": 0, "z": 9}]},
      {"_id": 1, "x": [{"y": 1, "z": 7}, {"y": 0, "z": [8, 6]}]}], {}, "x.y:-1,x.z:1", [0, 1]),
    ([{"_id": 0, "a": 1, "d": [{"e": {"f": 1, "g": [6, 5, 4]}}, {"e": {"g": [3, 2, 1]}}]},
      {"_id": 1, "a": 2, "d": [{"e": {"f": 2, "g": [5, 4, 3]}}, {"e": {"g": [2, 1, 0]}}]}],
     {}, "d.e.g:1", [1, 0]),
    ([{"_id": 2, "a": [{"b": 1, "c": 2}, {"b": 2, "c": 3}]},
      {"_id": 0, "a": [{"b": 2, "c": 0}, {"b": 1, "c": 4}]},
      {"_id": 1, "a": [{"b": 1, "c": 5}, {"b": 2, "c": 1}]}], {"a.b": 1}, "a.c:1", [0, 1, 2]),
    ([{"_id": 0, "a": [{"x": 2}, {"x": 3}]}, {"_id": 1, "a": [{"x": 1}, {"x": 4}]},
      {"_id": 2, "a": [{"x": 3}, {"x": 4}]}], {}, "a.x:1", [1, 0, 2]),
]


@pytest.mark.parametrize("docs, query, spec, expected", SERVER_SUITE_SORTS)
def test_server_suite_sort_expectations(docs, query, spec, expected):
    """Sorts through arrays and arrays of documents order as the server's own tests expect."""
    assert m.ids(m.sort(m.find(docs, query), spec)) == expected


NULL_DOCS = [{"_id": 0, "a": 1}, {"_id": 1, "b": 1}, {"_id": 2, "a": None},
             {"_id": 4, "a": [1, 2, 3]}, {"_id": 5, "a": [1, None]}]


@pytest.mark.parametrize("query, expected", [
    ({"a": {"$eq": None}}, [1, 2, 5]), ({"a": {"$type": "null"}}, [2, 5]),
    ({"$expr": {"$eq": ["$a", None]}}, [2]),
])
def test_server_suite_null_expectations(query, expected):
    """null in queries (missing and arrays holding null match) and in $expr (null only)."""
    assert m.ids(m.find(NULL_DOCS, query)) == expected
