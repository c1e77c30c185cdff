"""The model's tight paths give what its general rules give: a sort on top-level fields sorted by
columns (a column of ints, strings or ObjectIds being its own key), and a filter's comparison on
a top-level field tested value by value (issue 20: the model answers within a second).

Sources: the manual's "Comparison/Sort Order" page (docs/manual/reference/bson-type-comparison-
order: the type order, numbers compared by value, an array sorted by its smallest element
ascending and its largest descending) and "Comparison Query Operators" with "Type Bracketing"
(a comparison matches only values of the operand's type bracket).
"""

from __future__ import annotations

import datetime as dt
import functools
import math

import pytest
from bson import Binary, Decimal128, Int64, MaxKey, MinKey, ObjectId, Regex, Timestamp
from hypothesis import given, settings
from hypothesis import strategies as st

from labkit.model import bson_order, reads
from labkit.model.bson_order import MISSING, TYPE_RANKS, UNDEFINED

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1),
    st.integers(-(2**63), 2**63 - 1).map(Int64), st.floats(), st.text(max_size=3),
    st.sampled_from([Decimal128("1.5"), Decimal128("-0"), Decimal128("NaN"), Decimal128("1E+400"),
                     ObjectId("6553f1003f2a91c8d400303a"), MinKey(), MaxKey(), UNDEFINED,
                     dt.datetime(2020, 1, 1, tzinfo=dt.UTC), Timestamp(1, 2), Regex("a", "i"),
                     Binary(b"\x00" * 16, 4), {"a": 1}, {"a": "B"}, [], [1, "a"], [[2]]]))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3))
DOCUMENTS = st.lists(st.fixed_dictionaries({}, optional={"v": VALUES, "w": VALUES}),
                     max_size=12).map(lambda docs: [{"_id": i, **d} for i, d in enumerate(docs)])
# Columns of one type, the ones a sort may take as their own keys (and floats, which it may not:
# NaN sorts below every number, where Python's order of floats has no place for it).
UNIFORM = st.sampled_from([
    st.integers(-(2**63), 2**63 - 1), st.integers().map(lambda i: Int64(i % 2**63)),
    st.floats(), st.text(max_size=3), st.binary(min_size=12, max_size=12).map(ObjectId),
    st.one_of(st.integers(-5, 5), st.integers(-5, 5).map(Int64)), st.booleans(),
    st.builds(Binary, st.binary(max_size=3), st.sampled_from([0, 4, 128])),  # length first
    st.one_of(st.integers(-5, 5), st.floats(-5, 5), st.sampled_from([math.nan, Decimal128("1")])),
]).flatmap(lambda values: st.lists(values, max_size=12)).map(
    lambda values: [{"_id": i, "v": v} for i, v in enumerate(values)])
OPERANDS = SCALARS.filter(lambda v: v is not None and v is not UNDEFINED
                          and not isinstance(v, Regex))


def reference_sort(docs, pairs):
    """Stable sorts, least significant path first, by each document's key on each path as
    ``sort_key`` gives it (the general rule for one path)."""
    out = list(docs)
    for path, direction in reversed(pairs):
        out.sort(key=functools.cmp_to_key(lambda a, b, p=path, d=direction: bson_order.compare(
            bson_order.sort_key(a, p, d < 0), bson_order.sort_key(b, p, d < 0))),
            reverse=direction < 0)
    return [doc["_id"] for doc in out]


@settings(max_examples=500, deadline=None)
@given(st.one_of(DOCUMENTS, UNIFORM),
       st.sampled_from([[("v", 1)], [("v", -1)], [("v", 1), ("_id", -1)],
                                   [("w", -1), ("v", 1)], [("_id", -1)]]))
def test_a_sort_by_columns_is_the_general_rule(docs, pairs):
    """Sorting top-level paths by columns gives the order of the general rule, path by path
    (documents with arrays on two paths are refused by both, as parallel arrays)."""
    try:
        fast = reads.ids(bson_order.sort(docs, pairs))
    except bson_order.ParallelArrays:
        assert any(isinstance(d.get(a), list) and isinstance(d.get(b), list)
                   for d in docs for (a, _), (b, _) in [pairs] if len(pairs) == 2)
        return
    assert fast == reference_sort(docs, pairs)


def bracketed(op, operand, value):
    """Type bracketing, stated once: a value or an element of an array value matches when its
    key has the operand's rank and compares as the operator says; NaN meets only NaN."""
    wanted = bson_order.key(operand)
    candidates = [value] + (value if isinstance(value, list) else [])
    for c in candidates:
        if c is MISSING:
            continue
        k = bson_order.key(c)
        if k[0] != wanted[0]:
            continue
        if k == (3, 0) or wanted == (3, 0):
            if k == wanted and op in ("$eq", "$gte", "$lte"):
                return True
            continue
        sign = (k > wanted) - (k < wanted)
        if {"$eq": sign == 0, "$gt": sign > 0, "$gte": sign >= 0, "$lt": sign < 0,
                "$lte": sign <= 0}[op]:
            return True
    return False


@settings(max_examples=400, deadline=None)
@given(DOCUMENTS, st.sampled_from(["$eq", "$gt", "$gte", "$lt", "$lte"]), OPERANDS)
def test_a_top_level_comparison_is_type_bracketing(docs, op, operand):
    """``find({v: {op: operand}})`` on a top-level field matches exactly the documents that
    type bracketing admits, arrays included (minKey and maxKey operands excluded: they
    compare across brackets)."""
    if bson_order.key(operand)[0] in (0, 15):
        return
    found = reads.ids(reads.find(docs, {"v": {op: operand}}))
    assert found == [d["_id"] for d in docs if bracketed(op, operand, d.get("v", MISSING))]
    if op == "$eq" and not isinstance(operand, dict):  # {v: operand} is the same equality
        assert reads.ids(reads.find(docs, {"v": operand})) == found


@pytest.mark.parametrize("value", [
    None, True, 1, Int64(2), 2.5, math.nan, Decimal128("3"), "s", {"a": 1}, [1], Binary(b"x", 0),
    Binary(b"\x00" * 16, 4), b"x", ObjectId("6553f1003f2a91c8d400303a"),
    dt.datetime(2020, 1, 1, tzinfo=dt.UTC), bson_order.DatetimeMS(5), Timestamp(1, 2),
    Regex("a"), MinKey(), MaxKey(), UNDEFINED, MISSING])
def test_type_ranks_agree_with_keys(value):
    """The rank a type has in TYPE_RANKS is the first item of its values' sort keys."""
    assert TYPE_RANKS[type(value)] == bson_order.key(value)[0]
