"""Regular expressions in the model: PCRE2 compiled as MongoDB compiles it, in ``$regex``,
under ``$not``, in ``$in`` and in ``$regexMatch``; and what the model says where PCRE2 is not.

Sources: MongoDB's jstests, each line read in the stored copy of mongodb/mongo at the commit
given (``jstests/core/query/regex/regex_unicode.js:28-122 at 6fdbf4c4``,
``jstests/core/query/regex/regex_options.js:11-29 at 4be00f9a``), the server's
``src/mongo/util/pcre_util.cpp`` and ``pcre.cpp`` (1c287af4), and the manual's pages
https://www.mongodb.com/docs/manual/reference/operator/query/regex/ and
https://www.mongodb.com/docs/manual/reference/operator/aggregation/regexMatch/.
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

UNICODE = "jstests/core/query/regex/regex_unicode.js:{} at 6fdbf4c4"
WORDS = [{"_id": 0, "text": "kyle"}, {"_id": 1, "text": "박정수"}, {"_id": 2, "text": "suárez"}]
DIGITS = [{"_id": 0, "text": "02191996"}, {"_id": 1, "text": "༢༣༤༥"},
          {"_id": 2, "text": "9୩୪୬୯6"}]


def ids(docs, query):
    """The ``_id``s ``find(query)`` returns on ``docs``, in order."""
    return [doc["_id"] for doc in find(docs, query)]


# jstests/core/query/regex/regex_unicode.js:28-122 at 6fdbf4c4, line by line:
# (line, pattern, the _ids the server returns).
UNICODE_WORDS = [
    (28, "y", [0]), (29, "e", [0, 2]), (30, "á", [2]), (31, "정", [1]),
    (34, "(*UTF)e", [0, 2]), (35, "(*UTF)á", [2]), (36, "(*UTF)정", [1]),
    (37, "(*UTF8)e", [0, 2]), (38, "(*UTF8)á", [2]), (39, "(*UTF8)정", [1]),
    (42, r"\p{Latin}", [0, 2]), (43, r"^\p{Latin}+$", [0, 2]), (44, r"\p{Hangul}", [1]),
    (45, r"^\p{Hangul}+$", [1]), (46, r"^\p{L}+$", [0, 1, 2]), (47, r"^\p{Xan}+$", [0, 1, 2]),
    (53, r"\w", [0, 2]), (58, r"^\w+$", [0]),
    (62, r"(*UCP)\w", [0, 1, 2]), (63, r"(*UCP)^\w+$", [0, 1, 2]),
    (66, "[[:alpha:]]", [0, 2]), (67, "^[[:alpha:]]+$", [0]),
    (71, "(*UCP)[[:alpha:]]", [0, 1, 2]), (72, "(*UCP)^[[:alpha:]]+$", [0, 1, 2]),
]
UNICODE_DIGITS = [
    (91, "1", [0]), (92, "9", [0, 2]), (93, "୪", [2]), (94, "༣", [1]),
    (97, r"^\p{N}+$", [0, 1, 2]), (98, r"^\p{Xan}+$", [0, 1, 2]),
    (103, r"\d", [0, 2]), (108, r"^\d+$", [0]),
    (112, r"(*UCP)\d", [0, 1, 2]), (113, r"(*UCP)^\d+$", [0, 1, 2]),
    (116, "[[:digit:]]", [0, 2]), (117, "^[[:digit:]]+$", [0]),
    (121, "(*UCP)[[:digit:]]", [0, 1, 2]), (122, "(*UCP)^[[:digit:]]+$", [0, 1, 2]),
]


@pytest.mark.parametrize(("line", "pattern", "expected"), UNICODE_WORDS)
def test_regex_unicode_words(line, pattern, expected):
    """UTF mode, Unicode properties, and \\w and [[:alpha:]] ASCII-only unless the pattern starts
    with (*UCP) (jstests/core/query/regex/regex_unicode.js:28-72 at 6fdbf4c4; each case's own
    line is its first parameter)."""
    assert ids(WORDS, {"text": {"$regex": pattern}}) == expected, UNICODE.format(line)


@pytest.mark.parametrize(("line", "pattern", "expected"), UNICODE_DIGITS)
def test_regex_unicode_digits(line, pattern, expected):
    """\\d and [[:digit:]] are ASCII digits unless (*UCP); \\p{N} and \\p{Xan} take every
    script's digits (jstests/core/query/regex/regex_unicode.js:91-122 at 6fdbf4c4; each case's own
    line is its first parameter)."""
    assert ids(DIGITS, {"text": {"$regex": pattern}}) == expected, UNICODE.format(line)


@pytest.mark.parametrize("query", [
    # jstests/core/query/regex/regex_options.js:11 at 4be00f9a
    {"a": {"$regex": Regex("O", "i")}},
    # jstests/core/query/regex/regex_options.js:12 at 4be00f9a
    {"a": Regex("O", "i")},
    # jstests/core/query/regex/regex_options.js:13 at 4be00f9a
    {"a": {"$regex": "O", "$options": "i"}},
])
def test_case_insensitive_option_in_each_form(query):
    """The i option given in the regex, bare, or in $options
    (jstests/core/query/regex/regex_options.js:11-13 at 4be00f9a)."""
    assert ids([{"_id": 0, "a": "foo"}], query) == [0]


@pytest.mark.parametrize("query", [
    # jstests/core/query/regex/regex_options.js:22 at 4be00f9a
    {"txt": {"$regex": "^hello.*", "$options": "u"}},
    # jstests/core/query/regex/regex_options.js:28 at 4be00f9a
    {"txt": {"$regex": Regex("^hello.*", "u")}},
])
def test_u_option_is_accepted(query):
    """u is a valid option since SERVER-26991 (and changes nothing)
    (jstests/core/query/regex/regex_options.js:15-16, 22, 28 at 4be00f9a)."""
    assert ids([{"_id": 0, "txt": "hello_test"}], query) == [0]


@pytest.mark.parametrize("options", ["g", "ig", "l"])
def test_unknown_option_is_refused(options):
    """An option outside i m s x u fails the query with 51108
    (jstests/core/query/regex/regex_options.js:23-24 at 4be00f9a). pymongo's Regex drops letters
    it does not know, so the /^hello.*/g of jstests/core/query/regex/regex_options.js:29 at
    4be00f9a cannot be written here."""
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
    """32,764 bytes at most: pcre.cpp's kMaxPatternLength (1c287af4). The jstest pins the sides,
    not the edge: patterns up to 26,384 bytes work and one of 32,767 fails with 51091
    (jstests/core/query/regex/regex_max_pattern_length.js:16-21, 23-25 at 4bc844ad)."""
    assert matches({"t": "a"}, {"t": {"$regex": "a" * rx.MAX_PATTERN_BYTES}}) is False
    with pytest.raises(BadInput, match="longer than MongoDB's limit"):
        find([], {"t": {"$regex": "a" * (rx.MAX_PATTERN_BYTES + 1)}})


def test_not_in_and_regex_match_use_the_same_engine():
    """$not, $in and $regexMatch each take a regex, judged by PCRE2
    (https://www.mongodb.com/docs/manual/reference/operator/query/not/,
    https://www.mongodb.com/docs/manual/reference/operator/query/in/,
    https://www.mongodb.com/docs/manual/reference/operator/aggregation/regexMatch/)."""
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
    """$regexMatch: a null or missing input or regex is false; options in either place
    (https://www.mongodb.com/docs/manual/reference/operator/aggregation/regexMatch/)."""
    assert evaluate({"$regexMatch": args}, {}) is expected


@pytest.mark.parametrize(("args", "message"), [
    ({"input": 5, "regex": "a"}, "needs 'input' to be of type string"),
    ({"input": "a", "regex": Regex("a", "i"), "options": "m"}, "options given both"),
    ({"input": "a", "regex": "a", "options": "g"}, "invalid flag 'g'"),
    ({"input": "a"}, "requires 'regex' parameter"),
    ({"input": "a", "regex": "a", "extra": 1}, "unknown argument"),
])
def test_regex_match_refusals(args, message):
    """$regexMatch: a non-string input, options twice, a bad flag, missing or unknown arguments fail
    the query (https://www.mongodb.com/docs/manual/reference/operator/aggregation/regexMatch/)."""
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
        assert str(caught.value.hint).startswith("Hint:")
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
