"""The model's filter rules that have no other home (labkit.model.match): ``$mod`` with a
dividend past int64, truncated, NaN or infinite; and the model's public API (``find``, ``sort``,
``compare``, ``matches``, ``evaluate``), each taking a server version.

Sources: MongoDB's jstests, each line read in the stored copy of mongodb/mongo at the commit
given (``jstests/core/query/mod/mod_special_values.js:34-96 at 6fdbf4c4``), the server's
``src/mongo/db/matcher/expression_leaf.cpp`` (ModMatchExpression), and the manual's pages, each
named by its address.
"""

from __future__ import annotations

import pytest
from bson import Decimal128, Int64, MaxKey, MinKey

import labkit.model as model
from labkit.errors import BadInput
from labkit.model import find


def ids(docs, query):
    """The ``_id``s ``find(query)`` returns on ``docs``, in order."""
    return [doc["_id"] for doc in find(docs, query)]


# $mod ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dividend", [
    -1e19,  # jstests/core/query/mod/mod_special_values.js:52-54 at 6fdbf4c4
    Decimal128("1e19"),  # jstests/core/query/mod/mod_special_values.js:56-62 at 6fdbf4c4
    2.0**63,  # the first double past int64 (expression_leaf.cpp: representAs<long long>)
    1 << 63,  # an integer past int64
])
def test_mod_dividend_past_int64_never_matches(dividend):
    """Since 5.1 a dividend whose truncation is not a 64-bit integer never matches, even
    {$mod: [1, 0]} (jstests/core/query/mod/mod_special_values.js:51-62 at 6fdbf4c4: a double
    and a decimal past int64; the two edges 2**63 are labkit's own cases of the same rule)."""
    assert ids([{"_id": 1, "attribute": dividend}], {"attribute": {"$mod": [1, 0]}}) == []


def test_mod_dividend_at_the_edge_of_int64_matches():
    """expression_leaf.cpp ModMatchExpression: -2**63 is a 64-bit integer and is divided."""
    docs = [{"_id": 1, "a": -(2.0**63)}, {"_id": 2, "a": Int64(-(2**63))}]
    assert ids(docs, {"a": {"$mod": [2, 0]}}) == [1, 2]
    assert ids(docs, {"a": {"$mod": [-1, 0]}}) == [1, 2]  # safeMod: no overflow at -1


def test_mod_truncates_the_dividend():
    """Doubles and decimals are truncated toward zero
    (jstests/core/query/mod/mod_special_values.js:64-79 at 6fdbf4c4)."""
    docs = [{"_id": 1, "attribute": 14.5}, {"_id": 2, "attribute": 14.50001},
            {"_id": 3, "attribute": 15.01}, {"_id": 4, "attribute": Decimal128("14.5")},
            {"_id": 5, "attribute": Decimal128("14.50001")},
            {"_id": 6, "attribute": Decimal128("15.01")}, {"_id": 7, "attribute": 24},
            {"_id": 8, "attribute": Int64(34)}]
    assert ids(docs, {"attribute": {"$mod": [10, 4]}}) == [1, 2, 4, 5, 7, 8]


def test_mod_nan_and_infinity_never_match():
    """NaN and the infinities, double or decimal, never match
    (jstests/core/query/mod/mod_special_values.js:81-96 at 6fdbf4c4)."""
    values = [Decimal128("-NaN"), Decimal128("NaN"), Decimal128("-Inf"), Decimal128("Inf"),
              float("nan"), float("inf"), float("-inf")]
    docs = [{"_id": i, "attribute": v} for i, v in enumerate(values)]
    assert ids(docs, {"attribute": {"$mod": [1, 0]}}) == []


@pytest.mark.parametrize("bad", [
    float("nan"), float("inf"), 1e19, Decimal128("NaN"), Decimal128("Infinity"),
    Decimal128("1e19"),
])
@pytest.mark.parametrize("place", ["divisor", "remainder"])
def test_mod_operands_must_fit_int64(bad, place):
    """A NaN, infinite or past-int64 divisor or remainder fails the query with BadValue
    (jstests/core/query/mod/mod_special_values.js:34-49 at 6fdbf4c4)."""
    operand = [bad, 1] if place == "divisor" else [1, bad]
    with pytest.raises(BadInput, match="64-bit integer"):
        find([], {"attribute": {"$mod": operand}})


# The public API -------------------------------------------------------------------------------

def test_public_api_is_documented():
    """Issue 20: labkit.model documents a public API; each name in __all__ has a docstring."""
    assert {"find", "sort", "compare", "matches", "evaluate"} <= set(model.__all__)
    for name in model.__all__:
        item = getattr(model, name)
        if callable(item):
            assert (item.__doc__ or "").strip(), name


def test_public_api_takes_a_server_version():
    """Issue 20: find, sort and compare take a MongoDB version; 9.0 changed null through
    arrays (https://www.mongodb.com/docs/manual/release-notes/9.0-compatibility/, "Null
    Comparisons on Dotted Paths That Traverse Arrays"), and an unknown version is refused."""
    docs = [{"_id": 1, "a": [1, {"b": 2}]}]
    assert ids(docs, {"a.b": None}) == []
    assert [d["_id"] for d in model.find(docs, {"a.b": None}, mongodb_version="9.0")] == [1]
    assert model.sort([{"v": 2}, {"v": 1}], {"v": 1}, mongodb_version="9.0") == [{"v": 1},
                                                                                  {"v": 2}]
    assert model.compare(1, "a", mongodb_version="8.0") == -1
    with pytest.raises(BadInput, match="knows MongoDB"):
        model.compare(1, 2, mongodb_version="4.4")


# Copied from jstests/core/index/index_bounds_minkey.js:26-33 at 1e98a0f2 and
# jstests/core/index/index_bounds_maxkey.js:26-33 at 1e98a0f2 (mongodb/mongo): three documents,
# one without `a`, counted against each bound.
_NO_A = [{"_id": 1, "a": "string"}, {"_id": 2, "a": {"b": 1}}, {"_id": 3}]


@pytest.mark.parametrize(("query", "count"), [
    ({"a": {"$gt": MinKey()}}, 3), ({"a": {"$gte": MinKey()}}, 3),
    ({"a": {"$lt": MinKey()}}, 0), ({"a": {"$lte": MinKey()}}, 0),
    ({"a": {"$gt": MaxKey()}}, 0), ({"a": {"$gte": MaxKey()}}, 0),
    ({"a": {"$lt": MaxKey()}}, 3), ({"a": {"$lte": MaxKey()}}, 3),
    ({"a": {"$eq": MinKey()}}, 0), ({"a": {"$ne": MinKey()}}, 3),
])
def test_a_missing_field_stands_above_minkey_and_below_maxkey(query, count):
    """"All documents are considered greater than MinKey, regardless of the presence of the
    queried field" (and less than MaxKey): the server's matcher meets a missing path as an
    empty element, of neither MinKey's type nor MaxKey's (expression_leaf.cpp). An engineer's
    walk found the model leaving the document without `a` out."""
    assert len(find(_NO_A, query)) == count
