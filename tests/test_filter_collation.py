"""Collations in filters: the comparison operators and ``$expr``'s compare strings by the
collation, inside documents and arrays too; ``$regex`` never uses it; the model engine and
``labkit predict find`` pass a collation on.

Sources: MongoDB's jstests, each line read in the stored copy of mongodb/mongo at the commit
given (``jstests/core/query/collation/collation.js:406-753 at 6fdbf4c4``: count from line 406,
distinct from 518, find from 653), the manual's Collation page
(https://www.mongodb.com/docs/manual/reference/collation/: strength 2 compares base characters
and diacritics, not case) and its Case-Insensitive Indexes page
(https://www.mongodb.com/docs/manual/core/index-case-insensitive/: "the $regex operator is not
collation-aware").
"""

from __future__ import annotations

import json

import pytest
from bson import Regex
from helpers import labkit
from hypothesis import given, settings
from hypothesis import strategies as st

from labkit.engines.query import model_read
from labkit.errors import BadInput, CannotJudge
from labkit.model import bson_order, reads
from labkit.model import collation as c

pytest.importorskip("icu", reason="ICU (pyicu-wheels) is a dependency; these pin its use")

# jstests/core/query/collation/collation.js:671, 677 at 6fdbf4c4
CASE_INSENSITIVE = {"locale": "en_US", "strength": 2}
CASE_SENSITIVE = {"locale": "en_US"}
# jstests/core/query/collation/collation.js:666-667 at 6fdbf4c4
FOO_BAR = [{"_id": 1, "str": "foo"}, {"_id": 2, "str": "bar"}]
CASES = [{"_id": 1, "a": "A"}, {"_id": 2, "a": "B"}, {"_id": 3, "a": "b"}, {"_id": 4, "a": "a"}]


def ids(docs, query, collation=CASE_INSENSITIVE):
    return reads.ids(reads.find(docs, query, collation=collation))


@pytest.mark.parametrize(("query", "collation", "expected"), [
    ({"str": "FOO"}, None, []),
    ({"str": "FOO"}, CASE_SENSITIVE, []),
    ({"str": "FOO"}, CASE_INSENSITIVE, [1]),
    ({"str": {"$ne": "FOO"}}, CASE_INSENSITIVE, [2]),
    ({"str": {"$eq": "FOO"}}, CASE_INSENSITIVE, [1]),
    ({"str": "FOO"}, {"locale": "simple"}, []),
])
def test_find_compares_strings_by_the_collation(query, collation, expected):
    """``{str: "FOO"}`` finds "foo" under strength 2 only, and ``$ne`` its complement
    (jstests/core/query/collation/collation.js:674-678 at 6fdbf4c4)."""
    assert ids(FOO_BAR, query, collation) == expected


def test_a_match_on_id_uses_the_collation():
    """``{_id: "FOO"}`` finds ``_id: "foo"`` under strength 2 and not under en_US's default
    strength (jstests/core/query/collation/collation.js:663-671 at 6fdbf4c4)."""
    docs = [*FOO_BAR, {"_id": "foo"}]
    assert ids(docs, {"_id": "FOO"}, None) == []
    assert ids(docs, {"_id": "FOO"}, CASE_SENSITIVE) == []
    assert ids(docs, {"_id": "FOO"}) == ["foo"]


@pytest.mark.parametrize(("query", "collation", "expected"), [
    ({"a": {"$gt": "a"}}, None, [3]),  # bytewise: "A" and "B" sort before "a"
    ({"a": {"$gt": "a"}}, CASE_SENSITIVE, [1, 2, 3]),  # a < A < b < B
    ({"a": {"$gt": "a"}}, CASE_INSENSITIVE, [2, 3]),  # A equals a
    ({"a": {"$gte": "a"}}, CASE_INSENSITIVE, [1, 2, 3, 4]),
    ({"a": {"$lt": "b"}}, CASE_SENSITIVE, [1, 4]),
    ({"a": {"$lte": "b"}}, CASE_SENSITIVE, [1, 3, 4]),
    ({"a": {"$lte": "b"}}, CASE_INSENSITIVE, [1, 2, 3, 4]),
    ({"a": {"$lt": "B"}}, None, [1]),
])
def test_ranges_follow_the_collations_order(query, collation, expected):
    """Ranges order strings as the collation sorts them: en_US at strength 3 gives a < A < b < B
    (jstests/core/query/collation/collation.js:724-736 at 6fdbf4c4), strength 2 makes a and A equal,
    no collation compares bytes."""
    assert ids(CASES, query, collation) == expected


@pytest.mark.parametrize(("query", "expected"), [
    ({"str": {"$in": ["FOO", 5]}}, [1]),
    ({"str": {"$nin": ["FOO", 5]}}, [2]),
    ({"str": {"$in": ["BAR", "FOO"]}}, [1, 2]),
    ({"str": {"$all": ["FOO"]}}, [1]),
    ({"$or": [{"str": "BAR"}, {"str": 1}]}, [2]),
    ({"str": {"$not": {"$eq": "FOO"}}}, [2]),
])
def test_in_nin_all_and_logical_clauses_use_the_collation(query, expected):
    """``$in``, ``$nin`` and ``$all`` are equalities and ``$or``/``$not`` hold comparisons: all
    compare strings under the query's collation
    (https://www.mongodb.com/docs/manual/reference/collation/: a query's collation applies to its
    string comparisons)."""
    assert ids(FOO_BAR, query) == expected


@pytest.mark.parametrize(("docs", "query", "expected"), [
    ([{"_id": 1, "t": ["foo", "bar"]}], {"t": "FOO"}, [1]),
    ([{"_id": 1, "t": ["foo", "bar"]}], {"t": ["FOO", "BAR"]}, [1]),
    ([{"_id": 1, "t": ["foo", "bar"]}], {"t": ["BAR", "FOO"]}, []),
    ([{"_id": 1, "d": {"x": "foo"}}], {"d": {"x": "FOO"}}, [1]),
    ([{"_id": 1, "d": {"x": "foo"}}], {"d": {"X": "foo"}}, []),  # field names stay bytewise
    ([{"_id": 1, "d": [{"x": "foo"}]}], {"d.x": "FOO"}, [1]),
    ([{"_id": 1, "d": [{"x": ["a", "FOO"]}]}], {"d": {"$elemMatch": {"x": "foo"}}}, [1]),
    ([{"_id": 1, "t": ["a", "b"]}], {"t": {"$gt": ["A", "A"]}}, [1]),
    ([{"_id": 1, "t": ["a", "b"]}], {"t": {"$lte": ["A", "A"]}}, []),
])
def test_strings_inside_documents_and_arrays_use_the_collation(docs, query, expected):
    """Array elements, whole arrays, embedded documents and dotted paths compare their strings by
    the collation, never their field names
    (https://www.mongodb.com/docs/manual/reference/collation/; the same rule as sorts in
    jstests/core/query/sort/sort_dotted_paths_collation.js:94-102 at 5e8b3e0a)."""
    assert ids(docs, query) == expected


@pytest.mark.parametrize("query", [
    {"str": {"$regex": "^FOO$"}},
    {"str": Regex("^FOO$")},
    {"str": {"$in": [Regex("^FOO$")]}},
    {"str": {"$not": Regex("^foo$")}, "_id": 1},
])
def test_regex_ignores_the_collation(query):
    """``$regex`` is not collation-aware
    (https://www.mongodb.com/docs/manual/core/index-case-insensitive/): a case-sensitive pattern
    stays case-sensitive under strength 2."""
    assert ids(FOO_BAR, query) == []


@pytest.mark.parametrize(("expression", "expected"), [
    ({"$eq": ["$a", "a"]}, [1, 4]),
    ({"$ne": ["$a", "a"]}, [2, 3]),
    ({"$gt": ["$a", "a"]}, [2, 3]),
    ({"$lte": ["$a", "A"]}, [1, 4]),
    ({"$eq": [{"$cmp": ["$a", "b"]}, 0]}, [2, 3]),
    ({"$in": ["$a", ["B", "z"]]}, [2, 3]),
])
def test_expr_comparisons_use_the_collation(expression, expected):
    """``$expr``'s comparisons, ``$cmp`` and ``$in`` compare strings under the query's collation
    (jstests/core/query/collation/collation.js:748-753 at 6fdbf4c4: ``{$eq: ["$a", "a"]}`` finds "A"
    at strength 2)."""
    assert ids(CASES, {"$expr": expression}) == expected
    assert ids(CASES, {"$expr": expression}, None) != expected


def test_evaluate_takes_a_collation():
    """An expression evaluated alone compares by the collation given, bytewise without one
    (https://www.mongodb.com/docs/manual/reference/collation/)."""
    assert reads.evaluate({"$eq": ["$a", "a"]}, {"a": "A"}, CASE_INSENSITIVE) is True
    assert reads.evaluate({"$eq": ["$a", "a"]}, {"a": "A"}) is False
    assert reads.matches({"a": "A"}, {"a": "a"}, CASE_INSENSITIVE) is True


def test_the_collation_ends_with_its_query():
    """A collation holds for its own query only: the next query without one is bytewise, also
    after a query refused while compiling (labkit's rule: compilation leaves nothing behind)."""
    assert ids(FOO_BAR, {"str": "FOO"}) == [1]
    assert ids(FOO_BAR, {"str": "FOO"}, None) == []
    with pytest.raises(BadInput):
        reads.find(FOO_BAR, {"str": {"$bogus": 1}}, collation=CASE_INSENSITIVE)
    assert ids(FOO_BAR, {"str": "FOO"}, None) == []


def test_a_malformed_collation_is_refused_as_the_server_refuses_it():
    """A collation the server refuses is BadInput before any document is read
    (collator_factory_icu.cpp, the same checks as sorts)."""
    with pytest.raises(BadInput, match="strength"):
        reads.find(FOO_BAR, {"str": "FOO"}, collation={"locale": "en", "strength": 9})


def test_without_icu_a_filter_under_a_collation_cannot_be_judged(monkeypatch):
    """Where ICU cannot be loaded a filter under a collation is CannotJudge, never a bytewise
    answer; a filter without a collation still answers (issue 20: same rule as PCRE2)."""
    monkeypatch.setattr(c, "_icu", lambda: None)
    c._collator.cache_clear()
    try:
        with pytest.raises(CannotJudge):
            reads.find(FOO_BAR, {"str": "FOO"}, collation=CASE_INSENSITIVE)
        assert ids(FOO_BAR, {"str": "foo"}, {"locale": "simple"}) == [1]
    finally:
        c._collator.cache_clear()


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.lists(st.text(alphabet="aAbBéÉ ", max_size=3), min_size=1, max_size=8),
       st.text(alphabet="aAbBéÉ ", max_size=3),
       st.sampled_from([CASE_INSENSITIVE, CASE_SENSITIVE, {"locale": "en", "strength": 1},
                        {"locale": "fr_CA"}]))
def test_filter_comparisons_agree_with_the_collations_compare(values, operand, collation):
    """For every comparison operator, a string field matches exactly when ``compare`` under the same
    collation says so (https://www.mongodb.com/docs/manual/reference/collation/: one order for sorts
    and comparisons)."""
    docs = [{"_id": i, "v": v} for i, v in enumerate(values)]
    signs = {"$eq": {0}, "$ne": {-1, 1}, "$gt": {1}, "$gte": {0, 1}, "$lt": {-1},
             "$lte": {-1, 0}}
    for op, wanted in signs.items():
        expected = [d["_id"] for d in docs
                    if bson_order.compare(d["v"], operand, collation) in wanted]
        assert ids(docs, {"v": {op: operand}}, collation) == expected, op


@settings(max_examples=100, derandomize=True, deadline=None)
@given(st.lists(st.one_of(st.text(alphabet="aAb", max_size=2), st.integers(-2, 2),
                          st.lists(st.text(alphabet="aA", max_size=1), max_size=2)),
                max_size=6),
       st.one_of(st.text(alphabet="aAb", max_size=2), st.integers(-2, 2)))
def test_the_simple_collation_is_no_collation(values, operand):
    """``{locale: "simple"}`` compares bytewise, exactly as a query without a collation
    (https://www.mongodb.com/docs/manual/reference/collation/: "simple" specifies simple binary
    comparison)."""
    docs = [{"_id": i, "v": v} for i, v in enumerate(values)]
    for op in ("$eq", "$ne", "$gt", "$lte", "$in"):
        query = {"v": {op: [operand] if op == "$in" else operand}}
        assert ids(docs, query, {"locale": "simple"}) == ids(docs, query, None), op


def test_the_model_engine_passes_a_claims_collation():
    """A claim file's ``collation`` reaches find (filter and sort), countDocuments and aggregate's
    ``$match`` and ``$sort`` (jstests/core/query/collation/collation.js:415-425 at 6fdbf4c4:
    strength 2 counts 1; jstests/core/query/collation/collation.js:355-363 at 6fdbf4c4: ``$match``
    under strength 2 finds 1)."""
    docs = [dict(d) for d in CASES]
    found = model_read(docs, "find", {"filter": {"a": "a"}, "sort": {"a": 1, "_id": 1},
                                      "collation": CASE_INSENSITIVE})
    assert reads.ids(found) == [1, 4]
    assert model_read(FOO_BAR, "countDocuments",
                      {"filter": {"str": "FOO"}, "collation": CASE_INSENSITIVE}) == 1
    assert model_read(FOO_BAR, "countDocuments",
                      {"filter": {"str": "FOO"}, "collation": CASE_SENSITIVE}) == 0
    piped = model_read(docs, "aggregate", {
        "pipeline": [{"$match": {"a": {"$gte": "a"}}}, {"$sort": {"a": -1, "_id": 1}}],
        "collation": CASE_SENSITIVE})
    assert reads.ids(piped) == [2, 3, 1, 4]


def test_distinct_under_a_collation_keeps_the_first_of_the_strings_it_makes_equal():
    """``distinct`` under a collation gives each value once, in the collation's order (the
    server keeps them in a set ordered by its comparator), and of strings the collation makes
    equal it keeps the first stored: MongoDB's CRUD specification expects ["PING"] of "PING"
    and "ping" at strength 2 (tests/data/crud-unified/distinct-collation.yml, mongodb/
    specifications at 92b3c0b9); jstests/core/query/collation/collation.js:528-535 at 6fdbf4c4
    checks only ``toLowerCase()`` of the one value it gets."""
    assert model_read(FOO_BAR, "distinct", {"fieldName": "str",
                                            "collation": CASE_INSENSITIVE}) == ["bar", "foo"]
    ping = [{"_id": 1, "string": "PING"}, {"_id": 2, "string": "ping"}]
    assert model_read(ping, "distinct", {"fieldName": "string",
                                         "collation": CASE_INSENSITIVE}) == ["PING"]


def test_predict_find_takes_a_collation(tmp_path):
    """``labkit predict find --collation`` applies the collation to the filter
    (jstests/core/query/collation/collation.js:675, 677 at 6fdbf4c4)."""
    fixture = tmp_path / "foo.json"
    fixture.write_text(json.dumps(FOO_BAR))
    args = ["predict", "find", str(fixture), "--filter", '{"str": "FOO"}', "--json"]
    assert json.loads(labkit(*args).stdout) == []
    result = labkit(*args, "--collation", json.dumps(CASE_INSENSITIVE))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [1]


@pytest.mark.mongodb
@pytest.mark.parametrize("query", [
    {"str": "FOO"}, {"str": {"$ne": "FOO"}}, {"str": {"$in": ["FOO", 5]}},
    {"str": {"$gt": "BAR"}}, {"str": {"$regex": "^FOO$"}}, {"$expr": {"$eq": ["$str", "FOO"]}},
])
@pytest.mark.parametrize("collation", [CASE_INSENSITIVE, CASE_SENSITIVE])
def test_model_and_server_agree_under_a_collation(mongodb_server, query, collation):
    """The server's ``find(query).collation(...)``, asked through the engine's pymongo path,
    matches the model's _ids (jstests/core/query/collation/collation.js:674-678 at 6fdbf4c4)."""
    from labkit.engines.query import pymongo_read

    database = mongodb_server.fresh_database("filter_collation")
    try:
        database.docs.insert_many([dict(d) for d in FOO_BAR])
        arguments = {"filter": query, "collation": collation}
        server = sorted(d["_id"] for d in pymongo_read(database.docs, "find", arguments))
        assert server == ids(FOO_BAR, query, collation)
    finally:
        mongodb_server.drop(database.name)
