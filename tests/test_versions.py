"""The model's rule sets for MongoDB 6.0 and 7.0 beside 8.0 and 9.0: before 8.0 an equality with
null also matches the deprecated BSON ``undefined`` (issue 19, "conda and Binder: the version
that exists"; conda-forge's MongoDB is 6.0).

Sources, in mongodb/mongo:
- ``src/mongo/db/matcher/expression_leaf.cpp`` at 0145e23406884cade3b44e7e57b20a7c62bbdb0a (a
  7.x tree: it includes ``mongo/util/pcre.h``, the PCRE2 wrapper of 6.1 on):
  ``ComparisonMatchExpression::matchesSingleElement``, the branch commented "jstNULL and
  undefined are treated the same" (lines 137-139): where the canonical types of the value and
  of the operand add up to 5 (undefined and missing are 0, null is 5) the match is
  ``EQ || LTE || GTE``; and ``InMatchExpression::matchesSingleElement`` ("When an $in has a
  null, it adopts the same semantics as {$eq:null} ... should match missing and undefined").
- The rule before 8.0 (no FCV tag), in the stored copy at commit
  1a18c8f8aec34b43553fe4d7961350d1a7a6ada4: ``{a: {$eq: null}}`` returns a_null, a_undefined
  and no_a (jstests/core/null_query_semantics.js:39-43 at 1a18c8f8); ``{a: {$ne: null}}`` leaves
  a_undefined out (jstests/core/null_query_semantics.js:50-59 at 1a18c8f8); ``{"a.b": {$eq: null}}``
  returns a_subobject_b_undefined (jstests/core/null_query_semantics.js:66-77 at 1a18c8f8);
  ``{"a.b": {$ne: null}}`` returns only a_subobject_b_not_null
  (jstests/core/null_query_semantics.js:87-90 at 1a18c8f8); with arrays,
  ``[1, "string", undefined, 4]`` matches ``{$eq: null}`` and ``{$elemMatch: {$eq: null}}``
  (jstests/core/null_query_semantics.js:147-162, 189-196 at 1a18c8f8).
- The rule from 8.0, in the stored copy at commit 1704949c0e126334813a811103e481e243291a9b,
  tagged ``requires_fcv_80`` ("In 8.0, we changed behavior for equality to null",
  jstests/core/query/null_query_semantics.js:10-11 at 1704949c): ``{a: {$eq: null}}`` returns
  a_null and no_a only (jstests/core/query/null_query_semantics.js:46-49 at 1704949c);
  ``{a: {$ne: null}}``, ``{a: {$nin: [null, 4]}}`` and ``{a: {$not: {$gte: null}}}`` return
  a_undefined (jstests/core/query/null_query_semantics.js:59-77, 117-136, 336-362 at 1704949c).
- The manual's 8.0 compatibility notes, "Queries for null don't match undefined fields"
  (https://www.mongodb.com/docs/manual/release-notes/8.0-compatibility/: ``$eq``, ``$in`` and
  ``$lookup`` named; the model has no ``$lookup``).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labkit import cli
from labkit.errors import BadInput
from labkit.model import reads, versions
from labkit.model.bson_order import MISSING, UNDEFINED

BEFORE_8 = ("6.0", "7.0")
SINCE_8 = ("8.0", "9.0")

# The first fixture (no arrays), the same _ids:
# jstests/core/query/null_query_semantics.js:29-38 at 1704949c.
SCALARS = [
    {"_id": "a_empty_subobject", "a": {}},
    {"_id": "a_null", "a": None},
    {"_id": "a_number", "a": 4},
    {"_id": "a_subobject_b_not_null", "a": {"b": "hi"}},
    {"_id": "a_subobject_b_null", "a": {"b": None}},
    {"_id": "a_subobject_b_undefined", "a": {"b": UNDEFINED}},
    {"_id": "a_undefined", "a": UNDEFINED},
    {"_id": "no_a"},
]
ALL = {doc["_id"] for doc in SCALARS}
NULL_OR_MISSING = {"a_null", "no_a"}
DOTTED_NULL = {"a_empty_subobject", "a_null", "a_number", "a_subobject_b_null", "a_undefined",
               "no_a"}

# (filter, what 8.0 and 9.0 return, what 6.0 and 7.0 return besides)
CASES = [
    ({"a": None}, NULL_OR_MISSING, {"a_undefined"}),
    ({"a": {"$eq": None}}, NULL_OR_MISSING, {"a_undefined"}),
    ({"a": {"$gte": None}}, NULL_OR_MISSING, {"a_undefined"}),
    ({"a": {"$lte": None}}, NULL_OR_MISSING, {"a_undefined"}),
    ({"a": {"$in": [None, 4]}}, NULL_OR_MISSING | {"a_number"}, {"a_undefined"}),
    ({"a": {"$all": [None]}}, NULL_OR_MISSING, {"a_undefined"}),
    ({"$or": [{"a": None}, {"a": 4}]}, NULL_OR_MISSING | {"a_number"}, {"a_undefined"}),
    ({"a.b": {"$eq": None}}, DOTTED_NULL, {"a_subobject_b_undefined"}),
    ({"a": {"$gt": None}}, set(), set()),
    ({"a": {"$lt": None}}, set(), set()),
    ({"a": {"$exists": False}}, {"no_a"}, set()),
]
NEGATIONS = [
    ({"a": {"$ne": None}}, {"a": {"$eq": None}}),
    ({"a": {"$nin": [None, 4]}}, {"a": {"$in": [None, 4]}}),
    ({"a": {"$not": {"$gte": None}}}, {"a": {"$gte": None}}),
    ({"a": {"$not": {"$lte": None}}}, {"a": {"$lte": None}}),
    ({"a.b": {"$ne": None}}, {"a.b": {"$eq": None}}),
]


def found(docs: list[dict], query: dict, version: str) -> set:
    """The _ids the model's ``find`` returns under ``version``'s rules."""
    return {doc["_id"] for doc in reads.find(docs, query, mongodb_version=version)}


def expected_for(version: str, since_8: set, before_8_besides: set) -> set:
    """A case's _ids for one version: 6.0 and 7.0 add the undefined documents."""
    return since_8 | before_8_besides if version in BEFORE_8 else since_8


def test_the_model_carries_four_rule_sets():
    """``VERSIONS`` names 6.0, 7.0, 8.0 and 9.0, and 8.0 stays the default."""
    assert versions.VERSIONS == ("6.0", "7.0", "8.0", "9.0")
    assert versions.CURRENT_MAJOR == "8.0"
    assert versions.check_rules_version(None) == "8.0"
    assert [versions.null_matches_undefined(v) for v in versions.VERSIONS] == \
        [True, True, False, False]


@pytest.mark.parametrize("version", ["5.0", "6.1", "7.3", "8"])
def test_a_version_without_a_rule_set_is_refused(version):
    """A version the model carries no rules for is BadInput, naming the four it knows."""
    with pytest.raises(BadInput, match=r"knows MongoDB 6\.0, 7\.0, 8\.0, 9\.0"):
        versions.check_rules_version(version)


@pytest.mark.parametrize("version", versions.VERSIONS)
@pytest.mark.parametrize(("query", "since_8", "before_8_besides"), CASES,
                         ids=[repr(case[0]) for case in CASES])
def test_equality_with_null_and_undefined_per_version(query, since_8, before_8_besides,
                                                      version):
    """``$eq``/implicit equality, ``$gte``, ``$lte``, ``$in`` and ``$all`` with null match
    undefined on 6.0 and 7.0 and not from 8.0; ``$gt``/``$lt`` null match nothing on every
    version (expression_leaf.cpp; jstests/core/null_query_semantics.js:39-48 at 1a18c8f8
    before 8.0, jstests/core/query/null_query_semantics.js:46-57, 79-115, 160-172 at 1704949c
    from 8.0; ``$gte``, ``$lte`` and ``$all`` follow the source's branch, no jstest line pins
    them with undefined)."""
    assert found(SCALARS, query, version) == expected_for(version, since_8, before_8_besides)


@pytest.mark.parametrize("version", versions.VERSIONS)
@pytest.mark.parametrize(("negation", "positive"), NEGATIONS,
                         ids=[repr(case[0]) for case in NEGATIONS])
def test_negations_of_null_are_complements_per_version(negation, positive, version):
    """``$ne``, ``$nin`` and ``$not`` return exactly what their positive form leaves, so on
    6.0 and 7.0 they leave undefined out and from 8.0 they return it (``{a: {$ne: null}}``
    and ``{"a.b": {$ne: null}}`` on both sides of 8.0:
    jstests/core/null_query_semantics.js:50-64, 87-95 at 1a18c8f8 and
    jstests/core/query/null_query_semantics.js:59-77, 195-210 at 1704949c)."""
    assert found(SCALARS, negation, version) == ALL - found(SCALARS, positive, version)
    undefined_returned = "a_undefined" in found(SCALARS, negation, version) \
        if negation.get("a") else "a_subobject_b_undefined" in found(SCALARS, negation, version)
    assert undefined_returned == (version in SINCE_8)


def test_the_jstest_dotted_not_equal_before_8_returns_one_document():
    """Before 8.0 ``{"a.b": {$ne: null}}`` returns only a_subobject_b_not_null
    (jstests/core/null_query_semantics.js:87-90 at 1a18c8f8); 8.0's file adds
    a_subobject_b_undefined (jstests/core/query/null_query_semantics.js:195-201 at 1704949c)."""
    assert found(SCALARS, {"a.b": {"$ne": None}}, "6.0") == {"a_subobject_b_not_null"}
    assert found(SCALARS, {"a.b": {"$ne": None}}, "8.0") == {"a_subobject_b_not_null",
                                                             "a_subobject_b_undefined"}


ARRAYS = [
    {"_id": "a_value_array_with_undefined", "a": [1, "string", UNDEFINED, 4]},
    {"_id": "a_value_array_with_null", "a": [1, "string", None, 4]},
    {"_id": "a_value_array_no_nulls", "a": [1, "string", 4]},
    {"_id": "a_object_array_some_b_undefined", "a": [{"b": UNDEFINED}, {"b": 3}]},
]


@pytest.mark.parametrize(("query", "version", "expected"), [
    ({"a": {"$eq": None}}, "6.0", {"a_value_array_with_undefined", "a_value_array_with_null"}),
    ({"a": {"$eq": None}}, "8.0", {"a_value_array_with_null"}),
    ({"a": {"$elemMatch": {"$eq": None}}}, "7.0",
     {"a_value_array_with_undefined", "a_value_array_with_null"}),
    ({"a": {"$elemMatch": {"$eq": None}}}, "8.0", {"a_value_array_with_null"}),
    ({"a.b": None}, "6.0", {"a_object_array_some_b_undefined"}),
    ({"a.b": None}, "8.0", set()),
])
def test_an_undefined_array_element_meets_null_before_8(query, version, expected):
    """An undefined element of an array, or an undefined field of a document in one, equals
    null before 8.0 and not since (the arrays half on both sides of 8.0:
    jstests/core/null_query_semantics.js:147-162, 189-196, 230-249 at 1a18c8f8 and
    jstests/core/query/null_query_semantics.js:286-302, 512-519, 552-593 at 1704949c)."""
    assert found(ARRAYS, query, version) == expected


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_undefined_is_still_no_operand(version):
    """Comparing with undefined, or ``$in`` holding it, is refused on every version
    ("cannot compare to undefined", "InMatchExpression equality cannot be undefined": the
    server's uasserts in src/mongo/db/matcher/expression_leaf.cpp)."""
    with pytest.raises(BadInput, match="undefined"):
        reads.find(SCALARS, {"a": {"$eq": UNDEFINED}}, mongodb_version=version)


VALUES = st.sampled_from([None, 0, 4, "x", [], [None], [4, None], {}, {"b": None}, {"b": 4},
                          [{"b": None}], MISSING])
QUERIES = st.sampled_from([c[0] for c in CASES] + [n[0] for n in NEGATIONS]
                          + [{"a": 4}, {"a": {"$in": [4]}}, {"a.b": 4}])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(values=st.lists(VALUES, min_size=1, max_size=6), query=QUERIES)
def test_without_undefined_6_0_7_0_and_8_0_agree(values, query):
    """Fixed-seed property: on documents that hold no undefined, the 6.0, 7.0 and 8.0 rule sets
    return the same documents for every null query above (undefined is their only
    difference)."""
    docs = [{"_id": i} if v is MISSING else {"_id": i, "a": v} for i, v in enumerate(values)]
    answers = {version: found(docs, query, version) for version in ("6.0", "7.0", "8.0")}
    assert answers["6.0"] == answers["8.0"]
    assert answers["7.0"] == answers["8.0"]


def test_predict_find_offers_every_rule_set(capsys, tmp_path):
    """``labkit predict find --mongodb-version`` takes its choices from ``VERSIONS``: 6.0 finds
    the undefined document with ``{a: null}``, 8.0 does not."""
    path = tmp_path / "docs.json"
    path.write_text('[{"_id": 1, "a": {"$undefined": true}}, {"_id": 2, "a": null}]',
                    encoding="utf-8")
    answers = {}
    for version in versions.VERSIONS:
        status = cli.main(["predict", "find", str(path), "--filter", '{"a": null}',
                           "--mongodb-version", version, "--json"])
        out, err = capsys.readouterr()
        assert status == 0, err
        answers[version] = json.loads(out)
    assert answers == {"6.0": [1, 2], "7.0": [1, 2], "8.0": [2], "9.0": [2]}


def test_predict_help_lists_the_rule_sets(capsys):
    """``labkit predict find --help`` lists 6.0, 7.0, 8.0 and 9.0 as the choices."""
    with pytest.raises(SystemExit):
        cli.main(["predict", "find", "--help"])
    out = capsys.readouterr().out
    assert "{6.0,7.0,8.0,9.0}" in out


# jstests/core/query/type/null_undefined.js:12-24 at 1704949c: a = 1 (0), missing (1), null (2),
# undefined (3), [1, 2, 3] (4), [1, null] (5), [null, undefined] (6), [1, undefined] (7),
# [1, null, undefined] (8).
NU_DOCS = [{"_id": 0, "a": 1}, {"_id": 1, "b": 1}, {"_id": 2, "a": None},
           {"_id": 3, "a": UNDEFINED}, {"_id": 4, "a": [1, 2, 3]}, {"_id": 5, "a": [1, None]},
           {"_id": 6, "a": [None, UNDEFINED]}, {"_id": 7, "a": [1, UNDEFINED]},
           {"_id": 8, "a": [1, None, UNDEFINED]}]


@pytest.mark.parametrize(("version", "expected"), [
    ("6.0", [1, 2, 3, 5, 6, 7, 8]), ("7.0", [1, 2, 3, 5, 6, 7, 8]),
    ("8.0", [1, 2, 5, 6, 8]), ("9.0", [1, 2, 5, 6, 8]),
])
def test_null_undefined_js_equality_per_version(version, expected):
    """``{a: {$eq: null}}`` gives 1, 2, 5, 6, 8 from 8.0; before 8.0 the undefined value (3)
    and the array holding only undefined besides 1 (7) join it, as the ``$or`` with
    ``{$type: "undefined"}`` returns on 8.0
    (jstests/core/query/type/null_undefined.js:60-68 at 1704949c; the ``$eq`` alone is that
    line without its ``$type`` clause, labkit's derivation)."""
    docs = reads.find(NU_DOCS, {"a": {"$eq": None}}, mongodb_version=version)
    assert reads.ids(docs) == expected
    with_type = reads.find(NU_DOCS, {"$or": [{"a": {"$eq": None}},
                                             {"a": {"$type": "undefined"}}]},
                           mongodb_version=version)
    assert reads.ids(with_type) == [1, 2, 3, 5, 6, 7, 8]


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_every_rule_set_compiles_regexes_as_pcre2(version):
    """The model runs PCRE2 for 6.0 too: a class escape as a range end is refused on every rule
    set, as PCRE2 refuses it (labkit's own choice, docs/model.md: a 6.0 server, on PCRE, may
    accept it)."""
    with pytest.raises(BadInput, match="invalid range in character class"):
        reads.find([{"_id": 1, "a": "x"}], {"a": {"$regex": r"[\w-.]"}},
                   mongodb_version=version)
