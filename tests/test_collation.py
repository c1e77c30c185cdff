"""Collations with ICU: the collation document checked as the server checks it, sorts and
comparisons under a collation, and a refusal (not a guess) where ICU cannot be loaded.

Sources: MongoDB's jstests, each line read in the stored copy of mongodb/mongo at the commit
given (``jstests/core/query/sort/sort_dotted_paths_collation.js:27-309 at 5e8b3e0a``,
``jstests/core/query/collation/collation.js:94-135, 675-677 at 6fdbf4c4``), the server's
``src/mongo/db/query/collation/collator_factory_icu.cpp``, and the manual's "Collation" page,
https://www.mongodb.com/docs/manual/reference/collation/.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labkit.errors import BadInput, CannotJudge, ParallelArrays
from labkit.model import bson_order as m
from labkit.model import collation as c

pytest.importorskip("icu", reason="ICU (pyicu-wheels) is a dependency; these pin its use")

# jstests/core/query/sort/sort_dotted_paths_collation.js:27 at 5e8b3e0a
CASE_INSENSITIVE = {"locale": "en_US", "strength": 2}
DOTTED = "jstests/core/query/sort/sort_dotted_paths_collation.js:{} at 5e8b3e0a"


def ids(docs, spec, collation=CASE_INSENSITIVE):
    return [d["_id"] for d in m.sort(docs, spec, collation=collation)]


# jstests/core/query/sort/sort_dotted_paths_collation.js:39-47 at 5e8b3e0a
ONE_ARRAY_EACH = [
    {"_id": 1, "a": "a", "b": ["b"]}, {"_id": 2, "a": "b", "b": []},
    {"_id": 3, "a": [], "b": "d"}, {"_id": 4, "a": ["a"], "b": "d"},
    {"_id": 5, "a": ["b", "C"], "b": "b"}, {"_id": 6, "a": "b", "b": ["C", "e"]},
    {"_id": 7, "a": "a", "b": ["a", "C"]}, {"_id": 8, "a": ["a", "b"], "b": "C"},
    {"_id": 9, "a": "b", "b": "C"},
]
# jstests/core/query/sort/sort_dotted_paths_collation.js:94-102 at 5e8b3e0a
LENGTH_TWO = [
    {"_id": 1, "a": {"b": "b"}}, {"_id": 2, "a": {"b": []}}, {"_id": 3, "a": {"b": ["b", "C"]}},
    {"_id": 4, "a": {"c": "a"}}, {"_id": 5, "a": []}, {"_id": 6, "a": [{"b": ["e"]}]},
    {"_id": 7, "a": [{"b": ["d", "e"]}, {"b": "G"}]},
    {"_id": 8, "a": [{"b": ["a", "C"]}, {"b": ["b", "e"]}]},
    {"_id": 9, "a": [{"b": []}, {"b": ["a", "C"]}]},
]
# jstests/core/query/sort/sort_dotted_paths_collation.js:122-130 at 5e8b3e0a
COMMON_PREFIX = [
    {"_id": 1, "a": [{"b": "d", "c": "a"}, {"b": "a", "c": "b"}]},
    {"_id": 2, "a": [{"b": "b", "c": "a"}, {"b": "d", "c": "b"}]},
    {"_id": 3, "a": [{"b": "F", "c": "a"}, {"b": "I", "c": "b"}]},
    {"_id": 4, "a": [{"b": "d", "c": "a"}, {"b": "e", "c": "C"}]},
    {"_id": 5, "a": [{"b": "b", "c": "a"}, {"b": "G", "c": "C"}]},
    {"_id": 6, "a": [{"b": "e", "c": "a"}, {"b": "C", "c": "C"}]},
    {"_id": 7, "a": [{"b": "G", "c": "b"}, {"b": "b", "c": "C"}]},
    {"_id": 8, "a": [{"b": "C", "c": "b"}, {"b": "h", "c": "C"}]},
    {"_id": 9, "a": [{"b": "h", "c": "b"}, {"b": "F", "c": "C"}]},
]
# jstests/core/query/sort/sort_dotted_paths_collation.js:269-277 at 5e8b3e0a
LENGTH_THREE = [
    {"_id": 1, "a": {"b": {"c": "b"}}}, {"_id": 2, "a": {"b": {"c": []}}},
    {"_id": 3, "a": [{"b": []}, {"b": {"c": []}}]}, {"_id": 4, "a": [{"b": {"c": "a"}}]},
    {"_id": 5, "a": {"b": [{"c": "C"}, {"d": "a"}]}}, {"_id": 6, "a": {"b": [{"c": ["e"]}]}},
    {"_id": 7, "a": []}, {"_id": 8, "a": {"b": [{"c": ["a", "C"]}, {"c": ["b", "e"]}]}},
    {"_id": 9, "a": [{"b": [{"c": []}, {"c": ["a", "C"]}]}]},
]
# jstests/core/query/sort/sort_dotted_paths_collation.js:297-302 at 5e8b3e0a
SCALARS = [
    {"_id": 1, "a": "a", "b": "X"}, {"_id": 2, "a": "a", "b": "y"},
    {"_id": 3, "a": "a", "b": "Z"}, {"_id": 4, "a": "b", "b": "x"},
    {"_id": 5, "a": "B", "b": "Y"}, {"_id": 6, "a": "B", "b": "Z"},
]

DOTTED_CASES = [  # (line of the sort pattern, documents, sort, expected _ids)
    (51, ONE_ARRAY_EACH, {"a": 1, "b": 1, "_id": 1}, [3, 7, 1, 8, 4, 2, 5, 6, 9]),
    (54, ONE_ARRAY_EACH, {"a": 1, "b": -1, "_id": 1}, [3, 4, 7, 8, 1, 6, 9, 5, 2]),
    (57, ONE_ARRAY_EACH, {"a": -1, "b": 1, "_id": 1}, [5, 2, 6, 8, 9, 7, 1, 4, 3]),
    (60, ONE_ARRAY_EACH, {"a": -1, "b": -1, "_id": 1}, [5, 6, 8, 9, 2, 4, 7, 1, 3]),
    (106, LENGTH_TWO, {"a.b": 1, "_id": 1}, [2, 9, 4, 5, 8, 1, 3, 7, 6]),
    (109, LENGTH_TWO, {"a.b": 1, "_id": -1}, [9, 2, 5, 4, 8, 3, 1, 7, 6]),
    (112, LENGTH_TWO, {"a.b": -1, "_id": 1}, [7, 6, 8, 3, 9, 1, 4, 5, 2]),
    (115, LENGTH_TWO, {"a.b": -1, "_id": -1}, [7, 8, 6, 9, 3, 1, 5, 4, 2]),
    (134, COMMON_PREFIX, {"a.c": 1, "a.b": 1, "_id": 1}, [2, 5, 1, 4, 6, 3, 8, 7, 9]),
    (137, COMMON_PREFIX, {"a.c": 1, "a.b": -1, "_id": 1}, [3, 6, 1, 4, 2, 5, 9, 7, 8]),
    (140, COMMON_PREFIX, {"a.c": -1, "a.b": 1, "_id": 1}, [7, 6, 4, 9, 5, 8, 1, 2, 3]),
    (143, COMMON_PREFIX, {"a.c": -1, "a.b": -1, "_id": 1}, [8, 5, 9, 4, 6, 7, 3, 2, 1]),
    (149, COMMON_PREFIX, {"a.c": 1, "a": 1, "_id": 1}, [2, 5, 1, 4, 6, 3, 8, 7, 9]),
    (152, COMMON_PREFIX, {"a.c": 1, "a": -1, "_id": 1}, [3, 6, 1, 4, 2, 5, 9, 7, 8]),
    (155, COMMON_PREFIX, {"a.c": -1, "a": 1, "_id": 1}, [7, 6, 4, 9, 5, 8, 1, 2, 3]),
    (158, COMMON_PREFIX, {"a.c": -1, "a": -1, "_id": 1}, [8, 5, 9, 4, 6, 7, 3, 2, 1]),
    (281, LENGTH_THREE, {"a.b.c": 1, "_id": 1}, [2, 3, 9, 5, 7, 4, 8, 1, 6]),
    (284, LENGTH_THREE, {"a.b.c": 1, "_id": -1}, [9, 3, 2, 7, 5, 8, 4, 1, 6]),
    (287, LENGTH_THREE, {"a.b.c": -1, "_id": 1}, [6, 8, 5, 9, 1, 4, 3, 7, 2]),
    (290, LENGTH_THREE, {"a.b.c": -1, "_id": -1}, [8, 6, 9, 5, 1, 4, 7, 3, 2]),
    (303, SCALARS, {"a": 1, "b": 1}, [1, 2, 3, 4, 5, 6]),
    (305, SCALARS, {"a": 1, "b": -1}, [3, 2, 1, 6, 5, 4]),
    (307, SCALARS, {"a": -1, "b": 1}, [4, 5, 6, 1, 2, 3]),
    (309, SCALARS, {"a": -1, "b": -1}, [6, 5, 4, 3, 2, 1]),
]


@pytest.mark.parametrize(("line", "docs", "spec", "expected"), DOTTED_CASES,
                         ids=[f"line{case[0]}" for case in DOTTED_CASES])
def test_case_insensitive_sorts_on_dotted_paths(line, docs, spec, expected):
    """A sort under ``{locale: "en_US", strength: 2}`` gives the order the jstest expects, arrays
    and dotted paths included (jstests/core/query/sort/sort_dotted_paths_collation.js:51-309 at
    5e8b3e0a; each case's own line is its first parameter)."""
    assert ids(docs, spec) == expected, DOTTED.format(line)


def test_parallel_arrays_are_refused_under_a_collation():
    """Two sort paths reaching two arrays in one document are still refused with a collation
    (jstests/core/query/sort/sort_dotted_paths_collation.js:63-77 at 5e8b3e0a)."""
    docs = [{"_id": 1, "a": [], "b": "a"}, {"_id": 2, "a": "a", "b": []},
            {"_id": 3, "a": [], "b": []}]
    with pytest.raises(ParallelArrays):
        ids(docs, {"a": 1, "b": 1})
    # jstests/core/query/sort/sort_dotted_paths_collation.js:79-85 at 5e8b3e0a
    assert ids(docs[:2], {"a": 1, "b": 1}) == [1, 2]


def test_a_filter_comparison_under_strength_two_ignores_case():
    """``{str: "FOO"}`` equals ``"foo"`` under ``{locale: "en_US", strength: 2}`` and not
    without a collation (jstests/core/query/collation/collation.js:674-677 at 6fdbf4c4)."""
    assert m.compare("foo", "FOO", CASE_INSENSITIVE) == 0
    assert m.compare("foo", "FOO") == 1  # bytewise: "f" (0x66) after "F" (0x46)
    assert m.compare({"str": "foo"}, {"str": "FOO"}, CASE_INSENSITIVE) == 0
    assert m.compare(["foo"], ["FOO"], CASE_INSENSITIVE) == 0


def test_field_names_are_not_collated():
    """A collation orders string values, never field names: ``{A: 1}`` and ``{a: 1}`` stay different
    (https://www.mongodb.com/docs/manual/reference/collation/: "compares strings"; the server keys
    field names bytewise)."""
    assert m.compare({"A": 1}, {"a": 1}, CASE_INSENSITIVE) == -1


@pytest.mark.parametrize(("collation", "strings"), [
    # https://www.mongodb.com/docs/manual/reference/collation/, strength: 1 compares base
    # characters only, 2 adds diacritics, 3 case.
    ({"locale": "en", "strength": 1}, ["a", "A", "á"]),
    ({"locale": "en", "strength": 2}, ["a", "A"]),
    ({"locale": "en", "strength": 2.0}, ["a", "A"]),  # an integral double is an integer
])
def test_strength_decides_which_differences_count(collation, strings):
    """Strings that differ only below the collation's strength compare equal
    (https://www.mongodb.com/docs/manual/reference/collation/ : strength)."""
    assert {m.compare(strings[0], other, collation) for other in strings} == {0}


def test_strength_two_still_tells_accents_apart():
    """At strength 2 an accent counts and case does not
    (https://www.mongodb.com/docs/manual/reference/collation/: strength 2)."""
    assert m.compare("a", "á", {"locale": "en", "strength": 2}) == -1


@pytest.mark.parametrize(("case_first", "expected"), [
    ("upper", ["A", "a", "B", "b"]), ("lower", ["a", "A", "b", "B"]),
])
def test_case_first_puts_one_case_before_the_other(case_first, expected):
    """``caseFirst`` orders upper or lower case first at strength 3
    (https://www.mongodb.com/docs/manual/reference/collation/: caseFirst)."""
    docs = [{"_id": i, "v": v} for i, v in enumerate(["b", "B", "a", "A"])]
    collated = m.sort(docs, "v:1", collation={"locale": "en", "caseFirst": case_first})
    assert [d["v"] for d in collated] == expected


def test_case_level_at_strength_one_tells_case_but_not_accents():
    """``caseLevel: true`` with strength 1 compares base letters and case, not accents
    (https://www.mongodb.com/docs/manual/reference/collation/: caseLevel)."""
    collation = {"locale": "en", "strength": 1, "caseLevel": True}
    assert m.compare("a", "á", collation) == 0
    assert m.compare("a", "A", collation) == -1


def test_numeric_ordering_orders_digit_runs_by_value():
    """``numericOrdering: true`` orders digit substrings by their value, inside longer strings too
    ("10" after "9", "a10" after "a9") (https://www.mongodb.com/docs/manual/reference/collation/:
    numericOrdering)."""
    docs = [{"_id": i, "v": v} for i, v in enumerate(["10", "9", "a10", "a9", "100", "2"])]
    collated = m.sort(docs, "v:1", collation={"locale": "en", "numericOrdering": True})
    assert [d["v"] for d in collated] == ["2", "9", "10", "100", "a9", "a10"]


@pytest.mark.parametrize(("max_variable", "hyphen", "space"), [("punct", 0, 0), ("space", -1, 0)])
def test_alternate_shifted_ignores_the_variable_characters(max_variable, hyphen, space):
    """With ``alternate: "shifted"`` spaces and punctuation are ignored up to strength 3, and
    ``maxVariable: "space"`` ignores spaces only
    (https://www.mongodb.com/docs/manual/reference/collation/: alternate, maxVariable)."""
    collation = {"locale": "en", "alternate": "shifted", "maxVariable": max_variable}
    assert m.compare("a-b", "ab", collation) == hyphen
    assert m.compare("a b", "ab", collation) == space
    assert m.compare("a-b", "ab", {"locale": "en"}) == -1  # non-ignorable, the default


def test_backwards_compares_accents_from_the_end():
    """``backwards: true`` weighs the last accent difference first, the French rule
    (https://www.mongodb.com/docs/manual/reference/collation/: backwards): "cote" < "côte" <
    "coté" < "côté" becomes "cote" < "coté" < "côte" < "côté"."""
    words = ["côté", "coté", "côte", "cote"]
    docs = [{"_id": i, "v": v} for i, v in enumerate(words)]
    plain = m.sort(docs, "v:1", collation={"locale": "en"})
    french = m.sort(docs, "v:1", collation={"locale": "en", "backwards": True})
    assert [d["v"] for d in plain] == ["cote", "coté", "côte", "côté"]
    assert [d["v"] for d in french] == ["cote", "côte", "coté", "côté"]


def test_fr_ca_compares_accents_backwards_by_default():
    """A field left out keeps the locale's default: ``fr_CA`` has ``backwards: true``
    (jstests/core/query/collation/collation.js:117-135 at 6fdbf4c4)."""
    fr_ca = {"locale": "fr_CA"}
    assert m.compare("côte", "coté", fr_ca) == m.compare("côte", "coté",
                                                         {"locale": "en", "backwards": True})
    assert m.compare("côte", "coté", fr_ca) == -1


def test_normalization_makes_composed_and_decomposed_equal():
    """``normalization: true`` checks text for canonical forms: "é" composed and "e" with a
    combining acute compare equal (https://www.mongodb.com/docs/manual/reference/collation/:
    normalization)."""
    composed, decomposed = "\u00e9", "e\u0301"
    assert m.compare(composed, decomposed, {"locale": "en", "normalization": True}) == 0


def test_identical_strength_breaks_ties_by_code_point():
    """Strength 5 (identical) tells apart what strength 4 calls equal: a zero-width space is
    ignorable up to level 4, not at the identical level
    (https://www.mongodb.com/docs/manual/reference/collation/: strength 5)."""
    plain, spaced = "ab", "a\u200bb"
    assert m.compare(plain, spaced, {"locale": "en", "strength": 4}) == 0
    assert m.compare(plain, spaced, {"locale": "en", "strength": 5}) == -1


def test_simple_locale_is_bytewise():
    """``{locale: "simple"}`` is the binary comparison (collator_factory_icu.cpp,
    makeFromBSON: a null collator)."""
    assert m.compare("a", "B", {"locale": "simple"}) == 1
    assert c.collation_strings({"locale": "simple"}) is None


@pytest.mark.parametrize(("collation", "message"), [
    # jstests/core/query/collation/collation.js:94-103 at 6fdbf4c4: not an object, no locale,
    # unknown fields, unknown locale, strength.
    ("not an object", "document with a locale"),
    ({}, "document with a locale"),
    ({"blah": 1}, "document with a locale"),
    ({"locale": "en", "blah": 1}, "unknown collation field 'blah'"),
    ({"locale": "xx"}, "not one ICU knows"),
    ({"locale": "en", "strength": 99}, "integer 1 through 5"),
    ({"locale": "en", "strength": 9.9}, "integer 1 through 5"),
    # jstests/core/query/collation/collation.js:105-109 at 6fdbf4c4
    ({"locale": "en", "version": "unknownVersion"}, "57.1"),
    # collator_factory_icu.cpp, validateCollationSpec and the typed field extractors:
    ({"locale": "en", "strength": 1, "backwards": True}, "'backwards' is invalid"),
    ({"locale": "en", "strength": 2, "caseFirst": "upper"}, "'caseFirst' is invalid"),
    ({"locale": "en", "caseLevel": 1}, "true or false"),
    ({"locale": "en", "caseFirst": "UPPER"}, "one of upper, lower, off"),
    ({"locale": "en", "alternate": "ignore"}, "one of non-ignorable, shifted"),
    ({"locale": "simple", "strength": 2}, "no other collation fields"),
    ({"locale": ""}, "not empty"),
    ({"locale": "en_us"}, "did you mean 'en_US'"),
])
def test_malformed_collations_are_refused_as_the_server_refuses_them(collation, message):
    """A collation the server refuses is BadInput, not a guess
    (jstests/core/query/collation/collation.js:94-109 at 6fdbf4c4, collator_factory_icu.cpp)."""
    with pytest.raises(BadInput, match=message):
        m.sort([{"v": "a"}], "v:1", collation=collation)


def test_server_version_is_accepted():
    """``version: "57.1"``, the server's ICU, is accepted (the server reports it:
    jstests/core/query/collation/collation.js:134 at 6fdbf4c4)."""
    assert m.compare("a", "A", {"locale": "en", "strength": 2, "version": "57.1"}) == 0


def test_without_icu_the_model_refuses_to_judge_a_collation(monkeypatch):
    """Where ICU cannot be loaded a collation is CannotJudge, never an answer from another
    ordering (issue 20: "the model says it cannot judge")."""
    monkeypatch.setattr(c, "_icu", lambda: None)
    c._collator.cache_clear()
    try:
        with pytest.raises(CannotJudge) as caught:
            m.sort([{"v": "b"}, {"v": "A"}], "v:1", collation={"locale": "en"})
        assert caught.value.library == "ICU"
        assert "Hint: pip install pyicu-wheels" in str(caught.value)
        assert m.sort([{"v": "b"}, {"v": "A"}], "v:1") == [{"v": "A"}, {"v": "b"}]
    finally:
        c._collator.cache_clear()


def test_icu_version_is_reported():
    """The ICU the model uses is named, to set beside the server's 57.1."""
    version = c.icu_version()
    assert version is not None
    assert version.split(".")[0].isdigit()


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.lists(st.text(alphabet="aAbBáéeE -1029", max_size=6), min_size=1, max_size=12),
       st.sampled_from([{"locale": "en", "strength": 1}, {"locale": "en", "strength": 2},
                        {"locale": "fr_CA"}, {"locale": "en", "numericOrdering": True},
                        {"locale": "en", "alternate": "shifted"}]))
def test_sort_agrees_with_icu_compare(words, collation):
    """Sorting by sort keys orders strings as ICU's compare does, which is how the server's
    collator compares (collator_interface_icu.cpp: compare and getComparisonKey agree)."""
    collator = c._collator(tuple(sorted(c.validate(collation).items())))
    docs = [{"_id": i, "v": w} for i, w in enumerate(words)]
    order = [d["v"] for d in m.sort(docs, "v:1", collation=collation)]
    for first, second in itertools.pairwise(order):
        assert collator.compare(first, second) <= 0


def test_the_public_compare_takes_a_collation():
    """``labkit.model.compare`` passes a collation through (docs/model.md's API table;
    jstests/core/query/collation/collation.js:674-677 at 6fdbf4c4, the strength-2 equality)."""
    from labkit import model

    assert model.compare("foo", "FOO", collation=CASE_INSENSITIVE) == 0
    assert model.compare("foo", "FOO") == 1
