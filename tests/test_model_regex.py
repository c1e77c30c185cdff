"""Regular expressions in the model: PCRE2 compiled as MongoDB compiles it, in ``$regex``,
under ``$not``, in ``$in`` and in ``$regexMatch``; and what the model says where PCRE2 is not.

Sources: MongoDB's ``jstests/core/query/regex/regex_unicode.js`` (commit 591928c6),
``regex_options.js`` (4be00f9a), ``src/mongo/util/pcre_util.cpp`` and ``pcre.cpp`` (1c287af4),
and the manual's ``$regex`` and ``$regexMatch`` pages.
"""

from __future__ import annotations

import re
import sys

import pytest
from bson import Regex
from hypothesis import given, settings
from hypothesis import strategies as st

from labkit.errors import BadInput, CannotJudge
from labkit.model import evaluate, find, matches
from labkit.model import regex as rx

WORDS = [{"_id": 0, "text": "kyle"}, {"_id": 1, "text": "박정수"}, {"_id": 2, "text": "suárez"}]
DIGITS = [{"_id": 0, "text": "02191996"}, {"_id": 1, "text": "༢༣༤༥"},
          {"_id": 2, "text": "9୩୪୬୯6"}]


def ids(docs, query):
    """The ``_id``s ``find(query)`` returns on ``docs``, in order."""
    return [doc["_id"] for doc in find(docs, query)]


# regex_unicode.js, line by line: (line, pattern, the _ids the server returns).
UNICODE_WORDS = [
    (30, "y", [0]), (31, "e", [0, 2]), (32, "á", [2]), (33, "정", [1]),
    (36, "(*UTF)e", [0, 2]), (37, "(*UTF)á", [2]), (38, "(*UTF)정", [1]),
    (39, "(*UTF8)e", [0, 2]), (40, "(*UTF8)á", [2]), (41, "(*UTF8)정", [1]),
    (44, r"\p{Latin}", [0, 2]), (45, r"^\p{Latin}+$", [0, 2]), (46, r"\p{Hangul}", [1]),
    (47, r"^\p{Hangul}+$", [1]), (48, r"^\p{L}+$", [0, 1, 2]), (49, r"^\p{Xan}+$", [0, 1, 2]),
    (55, r"\w", [0, 2]), (60, r"^\w+$", [0]),
    (64, r"(*UCP)\w", [0, 1, 2]), (65, r"(*UCP)^\w+$", [0, 1, 2]),
    (68, "[[:alpha:]]", [0, 2]), (69, "^[[:alpha:]]+$", [0]),
    (73, "(*UCP)[[:alpha:]]", [0, 1, 2]), (74, "(*UCP)^[[:alpha:]]+$", [0, 1, 2]),
]
UNICODE_DIGITS = [
    (93, "1", [0]), (94, "9", [0, 2]), (95, "୪", [2]), (96, "༣", [1]),
    (99, r"^\p{N}+$", [0, 1, 2]), (100, r"^\p{Xan}+$", [0, 1, 2]),
    (105, r"\d", [0, 2]), (110, r"^\d+$", [0]),
    (114, r"(*UCP)\d", [0, 1, 2]), (115, r"(*UCP)^\d+$", [0, 1, 2]),
    (118, "[[:digit:]]", [0, 2]), (119, "^[[:digit:]]+$", [0]),
    (123, "(*UCP)[[:digit:]]", [0, 1, 2]), (124, "(*UCP)^[[:digit:]]+$", [0, 1, 2]),
]


@pytest.mark.parametrize(("line", "pattern", "expected"), UNICODE_WORDS)
def test_regex_unicode_words(line, pattern, expected):
    """regex_unicode.js (the line given): UTF mode, Unicode properties, and \\w and [[:alpha:]]
    ASCII-only unless the pattern starts with (*UCP)."""
    assert ids(WORDS, {"text": {"$regex": pattern}}) == expected, f"regex_unicode.js:{line}"


@pytest.mark.parametrize(("line", "pattern", "expected"), UNICODE_DIGITS)
def test_regex_unicode_digits(line, pattern, expected):
    """regex_unicode.js (the line given): \\d and [[:digit:]] are ASCII digits unless (*UCP);
    \\p{N} and \\p{Xan} take every script's digits."""
    assert ids(DIGITS, {"text": {"$regex": pattern}}) == expected, f"regex_unicode.js:{line}"


@pytest.mark.parametrize("query", [
    {"a": {"$regex": Regex("O", "i")}},  # regex_options.js:11
    {"a": Regex("O", "i")},  # regex_options.js:12
    {"a": {"$regex": "O", "$options": "i"}},  # regex_options.js:13
])
def test_case_insensitive_option_in_each_form(query):
    """regex_options.js:11-13: the i option given in the regex, bare, or in $options."""
    assert ids([{"_id": 0, "a": "foo"}], query) == [0]


@pytest.mark.parametrize("query", [
    {"txt": {"$regex": "^hello.*", "$options": "u"}},  # regex_options.js:21
    {"txt": {"$regex": Regex("^hello.*", "u")}},  # regex_options.js:27
])
def test_u_option_is_accepted(query):
    """regex_options.js:21,27: u is a valid option since SERVER-26991 (and changes nothing)."""
    assert ids([{"_id": 0, "txt": "hello_test"}], query) == [0]


@pytest.mark.parametrize("options", ["g", "ig", "l"])
def test_unknown_option_is_refused(options):
    """regex_options.js:22-23: an option outside i m s x u fails the query (51108). (pymongo's
    Regex drops letters it does not know, so /^hello.*/g of line 28 cannot be written here.)"""
    with pytest.raises(BadInput, match="invalid flag"):
        find([], {"txt": {"$regex": "^hello.*", "$options": options}})


@pytest.mark.parametrize(("options", "text", "expected"), [
    ("m", "a\nb", True),  # ^ after a newline
    ("", "a\nb", False),
    ("s", "a\nb", True),  # the dot takes the newline
    ("x", "ab", True),  # blanks in the pattern are ignored
])
def test_options_m_s_x(options, text, expected):
    """pcre_util.cpp flagsToOptions: m, s and x are PCRE2's MULTILINE, DOTALL and EXTENDED."""
    pattern = {"m": "^b", "": "^b", "s": "a.b", "x": "a b"}[options]
    assert matches({"t": text}, {"t": {"$regex": pattern, "$options": options}}) is expected


@pytest.mark.parametrize(("pattern", "text", "expected"), [
    (r"\x{263A}", "☺", True),  # Perl's \x{…}, which the binding's ALT_BSUX would refuse
    (r"\x41", "A", True),
    ("(?i)KYLE", "kyle", True),
])
def test_pcre_syntax_as_mongodb_compiles_it(pattern, text, expected):
    """pcre.cpp compiles with MongoDB's options only: \\x{…} is PCRE2's, not ECMAScript's."""
    assert matches({"t": text}, {"t": {"$regex": pattern}}) is expected


@pytest.mark.parametrize("pattern", [r"\u263A", "(", "a{2,1}", "[z-a]"])
def test_patterns_pcre2_refuses_fail_the_query(pattern):
    """expression_leaf.cpp: a pattern PCRE2 cannot compile fails the query (51091)."""
    with pytest.raises(BadInput, match="invalid regular expression"):
        find([], {"t": {"$regex": pattern}})


def test_pattern_longer_than_the_limit_is_refused():
    """pcre.cpp kMaxPatternLength (regex_max_pattern_length.js): 32,764 bytes at most."""
    assert matches({"t": "a"}, {"t": {"$regex": "a" * rx.MAX_PATTERN_BYTES}}) is False
    with pytest.raises(BadInput, match="longer than MongoDB's limit"):
        find([], {"t": {"$regex": "a" * (rx.MAX_PATTERN_BYTES + 1)}})


def test_not_in_and_regex_match_use_the_same_engine():
    """The manual's $not, $in and $regexMatch pages: each takes a regex, judged by PCRE2."""
    assert ids(WORDS, {"text": {"$not": Regex(r"^\w+$")}}) == [1, 2]
    assert ids(WORDS, {"text": {"$in": [Regex(r"^\p{Hangul}+$"), "kyle"]}}) == [0, 1]
    assert ids(WORDS, {"text": {"$nin": [Regex(r"\p{Hangul}")]}}) == [0, 2]
    assert ids(WORDS, {"$expr": {"$regexMatch": {"input": "$text", "regex": r"^\w+$"}}}) == [0]
    assert ids(WORDS, {"$expr": {"$regexMatch": {"input": "$text",
                                                 "regex": r"(*UCP)^\w+$"}}}) == [0, 1, 2]


@pytest.mark.parametrize(("args", "expected"), [
    ({"input": "$missing", "regex": "a"}, False),
    ({"input": None, "regex": "a"}, False),
    ({"input": "abc", "regex": None}, False),
    ({"input": "ABC", "regex": "b", "options": "i"}, True),
    ({"input": "ABC", "regex": Regex("b", "i")}, True),
])
def test_regex_match_values(args, expected):
    """The manual's $regexMatch: null or missing input or regex is false; options in either
    place."""
    assert evaluate({"$regexMatch": args}, {}) is expected


@pytest.mark.parametrize(("args", "message"), [
    ({"input": 5, "regex": "a"}, "needs 'input' to be of type string"),
    ({"input": "a", "regex": Regex("a", "i"), "options": "m"}, "options given both"),
    ({"input": "a", "regex": "a", "options": "g"}, "invalid flag 'g'"),
    ({"input": "a"}, "requires 'regex' parameter"),
    ({"input": "a", "regex": "a", "extra": 1}, "unknown argument"),
])
def test_regex_match_refusals(args, message):
    """The manual's $regexMatch errors: non-string input, options twice, a bad flag, missing or
    unknown arguments fail the query."""
    with pytest.raises(BadInput, match=re.escape(message)):
        evaluate({"$regexMatch": args}, {})


def test_a_stored_regex_matches_by_pattern_and_flags():
    """expression_leaf.cpp RegexMatchExpression: a regex value is compared, not matched."""
    docs = [{"_id": 0, "r": Regex("a", "i")}, {"_id": 1, "r": Regex("a")},
            {"_id": 2, "r": Regex("b", "i")}, {"_id": 3, "r": "A"}]
    assert ids(docs, {"r": Regex("a", "i")}) == [0, 3]


def test_without_pcre2_the_model_cannot_judge_a_regex(monkeypatch):
    """Issue 20: where PCRE2 cannot load, a regex is CannotJudge (never Python's re), and
    filters without a regex still answer."""
    monkeypatch.setitem(sys.modules, "pcre2", None)  # import pcre2 now raises ImportError
    rx._library.cache_clear()
    rx._compiled.cache_clear()
    try:
        with pytest.raises(CannotJudge) as caught:
            find(WORDS, {"text": {"$regex": "k"}})
        assert caught.value.library == "pcre2"
        assert caught.value.hint.startswith("Hint:")
        with pytest.raises(CannotJudge):
            evaluate({"$regexMatch": {"input": "k", "regex": "k"}}, {})
        assert ids(WORDS, {"text": "kyle"}) == [0]
    finally:
        rx._library.cache_clear()
        rx._compiled.cache_clear()


def test_a_filter_without_a_regex_never_loads_pcre2():
    """Issue 20: PCRE2 must not slow the cases that do not use it; it is imported on first use."""
    import subprocess

    code = ("import sys; from labkit.model import find; "
            "find([{'a': 1}], {'a': {'$gt': 0}}); print('pcre2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet=st.characters(max_codepoint=0x7F, exclude_categories=("Cs",)),
               max_size=12),
       st.text(alphabet="abcAB.^$*+?()-", max_size=6))
def test_ascii_agrees_with_python_where_the_syntaxes_agree(text, pattern):
    """On ASCII text with a pattern of literals, dots, anchors, classes and quantifiers, PCRE2
    and Python's re agree (a fixed-seed check that subjects and patterns reach PCRE2 intact)."""
    try:
        expected = re.search(pattern, text) is not None
    except re.error:
        return
    try:
        search = rx.compile_regex(pattern, "")
    except BadInput:
        return
    assert search(text) is expected
