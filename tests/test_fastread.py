"""The C path for reading Extended JSON (libbson through python-bsonjs, then pymongo's decoder)
gives exactly the values and types the Python reader gives, and declines whatever it would read
otherwise (issue 20: the model answers within a second; the Python reader stays the reference).

Sources: the Extended JSON specification (mongodb/specifications, ``source/extended-json/
extended-json.md``: the canonical wrappers, and a relaxed integer being an int32 where it fits,
else an int64) and the libbson leniencies found here, each pinned below.
"""

from __future__ import annotations

import json
import math
from unittest import mock

import pytest
from bson import Binary, Int64, Regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labkit.errors import BadInput
from labkit.model import _fastread, bson_order, fixtures, reads

pytest.importorskip("bsonjs", reason="python-bsonjs is a dependency; these pin the C path")


def typed(value):
    """A value with every type spelt out, NaN and -0.0 told apart: equal only if identical."""
    if isinstance(value, dict):
        return ("dict", [(name, typed(item)) for name, item in value.items()])
    if isinstance(value, list):
        return ("list", [typed(item) for item in value])
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    if hasattr(value, "tzinfo"):
        return (type(value).__name__, value.isoformat(), value.utcoffset())
    if isinstance(value, Binary):  # its repr hides the bytes of some subtypes (8: sensitive)
        return ("Binary", value.subtype, bytes(value))
    if isinstance(value, Regex):  # its flags an int from BSON, re's flags from a string
        return ("Regex", value.pattern, int(value.flags))
    return (type(value).__name__, repr(value))


def python_read(array_text):
    """The Python reader's values for a JSON array, or the BadInput it raises."""
    try:
        return fixtures._loads(array_text, "the test")
    except BadInput as exc:
        return exc


def past_pcre2_from(document: str) -> str:
    """An array of the same document, long enough that PCRE2 makes the reader's check."""
    return "[" + ",".join([document] * (_fastread.PCRE2_FROM // len(document) + 1)) + "]"


# Beside the integers, what libbson reads otherwise or refuses: white space, a sign, leading
# zeros past 20 characters (libbson reads them), digits of other scripts (Arabic-Indic,
# fullwidth: Python's int() reads them, libbson's strtoll does not).
INTEGER_TEXT = st.one_of(st.integers(-(2**64), 2**64).map(str),
                         st.builds(lambda zeros, n: f"{'-' if n < 0 else ''}{'0' * zeros}{abs(n)}",
                                   st.integers(1, 40), st.integers(-(2**63), 2**63)),
                         st.sampled_from([" 5", "+5", "5 ", "05", "-0", "", "-", "1e2", "٣",
                                          "\uff15", "1\u0663", "\u0661\u0662", "0" * 25]))
NUMBER_TEXT = st.one_of(
    st.floats(allow_nan=False).map(repr),
    st.integers(-(10**40), 10**40).map(str),
    st.builds(lambda m, e: f"{m}E{e}", st.integers(-(10**35), 10**35), st.integers(-6200, 6200)),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "-NaN", "inf", "nan", "", "-", " 1",
                     "1 ", "0x10", "1_0", "1.", ".5", "-0", "-0.0", "1e400", "1E-400", "٣",
                     "sNaN", "-sNaN", "NaN5", "+inF", "infinity", "1e 5", "1.5abc", "\u0663.\u0665",
                     "1.7976931348623159e308", "-1E+400", "1e99999999999"]))
HEX = st.text("0123456789abcdefABCDEF", min_size=22, max_size=26)
BASE64 = st.sampled_from(["", "AA==", "AAE=", "AAEC", "AAECAwQFBgcICQoLDA0ODw==",
                          "AAECAwQFBgcICQoLDA0ODwA=", "A", "AA=", "AB==", "AAECAwQFBgcICQoLDA0O"])
WRAPPED = st.one_of(
    st.builds(lambda t: {"$numberInt": t}, INTEGER_TEXT),
    st.builds(lambda t: {"$numberLong": t}, INTEGER_TEXT),
    st.builds(lambda t: {"$numberDouble": t}, NUMBER_TEXT),
    st.builds(lambda t: {"$numberDecimal": t}, NUMBER_TEXT),
    st.builds(lambda t: {"$oid": t}, HEX),
    st.builds(lambda t: {"$date": {"$numberLong": t}},
              st.one_of(INTEGER_TEXT, st.sampled_from(
                  ["253402300799999", "253402300800000", "-62135596800000",
                   "-62135596800001"]))),
    st.builds(lambda d, s: {"$binary": {"base64": d, "subType": s}}, BASE64,
              st.sampled_from(["00", "0", "4", "04", "03", "80", "ff", "100", "g"])),
    st.builds(lambda t: {"$date": t}, st.sampled_from(
        ["2020-01-01T00:00:00Z", "2020-01-01T00:00Z", "2020-01-01T00:00:00.5+0100",
         "2020-01-01T00:00:00.123-05:30", "2020-01-01", "2020-01-01T00:00:00",
         "2020-01-01 00:00:00Z", "20200101T000000Z", "2020-01-01T00:00:00.1234Z",
         "2020-02-30T00:00:00Z", "2020-01-01T00:00:60Z", "0000-01-01T00:00:00Z",
         "٢٠٢٠-01-01T00:00:00Z", "2020-01-01T00:00:00.Z"])),
    st.builds(lambda p, o: {"$regularExpression": {"pattern": p, "options": o}},
              st.sampled_from(["a", "a\0"]), st.sampled_from(["i", "i\0"])),
    st.sampled_from([{"$undefined": True}, {"$ref": "c", "$id": 1}, {"$minKey": 1},
                     {"$minKey": 1.0}, {"$maxKey": True}, {"$regex": "a\0"},
                     {"$maxKey": 1}, {"$symbol": "s"}, {"$code": "x"},
                     {"$timestamp": {"t": 1, "i": 2}},
                     {"$uuid": "0f8fad5b-d9cb-469f-a165-70867728950e"},
                     {"$regularExpression": {"pattern": "a", "options": "xi"}},
                     {"$regex": "a", "$options": "i"}, {"$gt": 1}, {"$numberInt": "1", "b": 1},
                     {"b": 1, "$numberInt": "1"}, {"$binary": "AAAA", "$type": "00"}]),
)
# Floats with NaN and the infinities, which json.dumps writes as bare NaN and Infinity (not
# JSON); names and strings with a NUL, which a BSON field name cannot hold.
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                    st.floats(), st.text(max_size=8),
                    st.sampled_from(["$x", "a\"$numberInt\": \"1", "\\u0024numberInt", "a\0"]))
VALUES = st.recursive(st.one_of(SCALARS, WRAPPED),
                      lambda inner: st.one_of(st.lists(inner, max_size=3),
                                              st.dictionaries(st.text(max_size=4), inner,
                                                              max_size=3)),
                      max_leaves=12)
DOCUMENTS = st.lists(st.dictionaries(st.text(max_size=4), VALUES, max_size=4), max_size=5)


def libbson_reads(array_text: str) -> bool:
    """Whether libbson itself (python-bsonjs) reads the array as Extended JSON."""
    import bsonjs

    try:
        bsonjs.loads('{"d": ' + array_text + "}")
    except (ValueError, UnicodeError):
        return False
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS, st.booleans())
def test_the_c_path_reads_as_the_python_reader_or_declines(docs, ascii_only):
    """Generated Extended JSON, canonical and malformed: where the C path answers, the Python
    reader gives the same values of the same types (it never accepts what Python refuses);
    and the Python reader never accepts what libbson refuses (it read Unicode digits, NaN,
    1e400, sNaN, a NUL in a field name, and dates libbson does not; and leading zeros past 20
    characters it refused where the C path read them), so the two paths read one language."""
    text = json.dumps(docs, ensure_ascii=ascii_only)
    fast = _fastread.documents(text)
    slow = python_read(text)
    if fast is not None:
        assert not isinstance(slow, BadInput), (text, fast)
        assert typed(fast) == typed(slow)
    if not isinstance(slow, BadInput):
        assert libbson_reads(text), text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS, st.booleans(), st.sampled_from(["", " ", "\n", "\t", "  "]))
def test_pcre2_and_re_make_the_same_check(docs, ascii_only, space):
    """On a large text the check runs in PCRE2, elsewhere in Python's re and bytes.translate:
    both take and decline the same texts (generated with white space of each kind, and digit
    runs before and inside strings)."""
    text = json.dumps(docs, ensure_ascii=ascii_only, separators=("," + space, ":" + space))
    searches = _fastread._pcre2_searches()
    assert searches is not None  # the binding loads here: a dependency
    by_pcre2 = all(search(text.encode("utf-8", "surrogatepass")) is None
                   for search in searches) and "\\u0024" not in text
    by_re = _fastread._STRAY_DOLLAR_RE.search(text) is None and _fastread._no_long_digits(
        text.encode("utf-8", "surrogatepass")) and "\\u0024" not in text
    assert by_pcre2 == by_re, text


LONG_RUNS = ['[{"a": 1234567890123456789}]', '[{"a":-1234567890123456789}]',
             '[1234567890123456789]', '[-1234567890123456789]', '[1.5e1234567890123456789]',
             '[{"a": [1,\t1234567890123456789]}]', '[{"a": "x1234567890123456789"}]',
             '[{"a": "-1234567890123456789"}]', '[{"a": "1234567890123456789"}]',
             '[{"o": {"$oid": "8a1623532566627707648800"}}]', '["a", "-", 12345678901234567890]']


@pytest.mark.parametrize("text", LONG_RUNS)
def test_both_checks_tell_a_literal_from_digits_in_a_string(text):
    """The same runs of 19 digits are number literals to PCRE2's search and to the fallback."""
    searches = _fastread._pcre2_searches()
    assert searches is not None
    assert (searches[1](text.encode()) is None) == _fastread._no_long_digits(text.encode())


def test_a_large_text_is_checked_by_pcre2_and_read_the_same(monkeypatch):
    """A text past PCRE2_FROM is checked by PCRE2; a stray wrapper in it still declines."""
    line = '{"_id": {"$numberInt": "1"}, "v": {"$oid": "8a1623532566627707648800"}}'
    text = past_pcre2_from(line)
    assert len(text) >= _fastread.PCRE2_FROM
    calls = []
    searches = _fastread._pcre2_searches()
    monkeypatch.setattr(_fastread, "_pcre2_searches", lambda: calls.append(1) or searches)
    fast = _fastread.documents(text)
    assert fast is not None
    assert calls
    assert typed(fast) == typed(python_read(text))
    assert _fastread.documents(text[:-1] + ', {"v": {"$numberInt": " 5"}}]') is None


@pytest.mark.parametrize("number", [
    "1" * 200_000 + "x", "1." + "1" * 100_000 + "e" + "2" * 99_999 + "x"])
def test_a_long_run_of_digits_in_a_wrapper_is_checked_in_one_pass(number):
    """A wrapper's number of 200,000 digits that never closes is declined by re's check, which
    reads it once: before the check's quantifiers were possessive, re tried every split of the
    run: 20,000 digits took 8 s, and this text would take some 13 minutes, which is how a return
    of that pattern would show here. Below PCRE2_FROM, so re checks it."""
    text = '[{"a": {"$numberDouble": "' + number + '"}}]'
    assert len(text) < _fastread.PCRE2_FROM
    assert _fastread.documents(text) is None


def test_the_python_reader_and_convert_read_a_long_number_in_one_pass():
    """The same text is refused by the Python reader with its message, and ``$convert`` of a
    string of 200,000 digits and a letter fails as a conversion, each reading it once (their
    number patterns were not possessive either)."""
    from labkit.model.convert import ConversionFailure, _numeric_string

    digits = 200_000
    with pytest.raises(BadInput, match=r"\$numberDouble needs a number string"):
        fixtures.parse('[{"a": {"$numberDouble": "' + "1" * digits + 'x"}}]')
    with pytest.raises(ConversionFailure):
        _numeric_string("1" * digits + "x", "double")


def test_a_failing_pcre2_search_leaves_the_check_to_re(monkeypatch):
    """Should PCRE2 stop on one of its limits, re makes the check instead of the read failing."""
    def fails(data):
        raise RuntimeError("match limit exceeded")
    monkeypatch.setattr(_fastread, "_pcre2_searches", lambda: (fails, fails))
    line = '{"_id": {"$numberInt": "1"}}'
    text = past_pcre2_from(line)
    assert _fastread.documents(text) is not None
    assert _fastread.documents(text[:-1] + ', {"v": {"$numberInt": " 5"}}]') is None


def test_without_pcre2_re_checks_a_large_text(monkeypatch):
    """Where PCRE2 does not load, the same large text is checked by re, with the same outcome."""
    monkeypatch.setitem(__import__("sys").modules, "pcre2", None)
    _fastread._pcre2_searches.cache_clear()
    try:
        assert _fastread._pcre2_searches() is None
        line = '{"_id": {"$numberInt": "1"}}'
        text = past_pcre2_from(line)
        assert _fastread.documents(text) is not None
        assert _fastread.documents(text[:-1] + ', {"v": 12345678901234567890}]') is None
    finally:
        _fastread._pcre2_searches.cache_clear()


@pytest.mark.parametrize("text", [
    '[{"a": 99999999999999999999999}]',  # libbson wraps it round to 200376420520689663
    '[{"a": -9223372036854775809}]',
    '[{"a": [1, 99999999999999999999999]}]',  # a long literal after "[", "," or white space
    '[{"a":-99999999999999999999999}]',
    '[{"a": 1.5e99999999999999999999}]',  # an exponent that long, too
    '[{"a": {"$numberDouble": ""}}]',  # libbson: 0.0
    '[{"a": {"$numberDouble": "0x10"}}]',  # libbson: 16.0
    '[{"a": {"$numberInt": " 5"}}]',  # libbson: 5
    '[{"a": {"$numberLong": "+5"}}]',
    '[{"a": {"$numberDecimal": "inf"}}]',
    '[{"a": {"$undefined": true}}]',  # libbson: null
    '[{"a": {"$ref": "c", "$id": 1}}]',  # libbson: a DBRef, the Python reader a document
    '[{"a": {"$regularExpression": {"pattern": "a", "options": "xi"}}}]',  # flags as a number
    '[{"a": {"$binary": {"base64": "AAEC", "subType": "04"}}}]',  # a UUID of 3 bytes
    '[{"a": {"b": 1, "$numberInt": "5"}}]',  # libbson keeps the field
    '[{"a": {"\\u0024numberInt": " 5"}}]',  # an escaped "$" is still a wrapper to both
    '[{"a": 1}], "e": [{"b": 2}]',  # not one array
    '[{"a": "\\ud800"}]',
    '[{"a": "$5"}]',  # a "$" in a string only costs the C path
    '[{"a": {"$binary": {"base64": "AAE=", "subType": "00"}}}]',  # pymongo: bytes
    # libbson's own grammar, looser than JSON's (each read by it, refused by the Python reader):
    '["a" "b"]', '["a"\n"b"]', '[{"a": 1 "b": 2}]',  # a missing comma
    '[{"_id": 1, "v": -01}]', '[-00.1]', '[1e1.5]', '[5e.3]', '[1.e1]', '[0e.0]',
    '["a\x1fb"]', '["a\x14b"]',  # a raw control character in a string
    '["\\ud800x\\udc00"]',  # a lone high surrogate, then a lone low one: libbson pairs them
    # the same, beside a long run of digits in a string (which an earlier check declined):
    '[{"s": "12345678901234567890123", "v": 1e1.5}]',
    '[{"s": "12345678901234567890123", "v": "\\ud800x\\udc00"}]',
])
def test_what_libbson_reads_otherwise_goes_to_the_python_reader(text):
    """Each leniency of libbson found here sends the text to the Python reader."""
    assert _fastread.documents(text) is None


def test_the_c_path_reads_the_canonical_forms():
    """Every canonical wrapper the C path takes is read by it, typed as the Python reader types
    it (int, Int64, float, Decimal128, ObjectId, aware UTC datetime, DatetimeMS, Binary)."""
    text = json.dumps([{
        "i": {"$numberInt": "-7"}, "l": {"$numberLong": "9223372036854775807"},
        "big": 5_000_000_000, "d": {"$numberDouble": "-0.0"}, "n": {"$numberDouble": "NaN"},
        "m": {"$numberDecimal": "1.50"}, "o": {"$oid": "6553f1003f2a91c8d400303a"},
        "t": {"$date": {"$numberLong": "1700000000000"}},
        "far": {"$date": {"$numberLong": "253402300800000"}},
        "u": {"$binary": {"base64": "AAECAwQFBgcICQoLDA0ODw==", "subType": "04"}},
        "b": {"$binary": {"base64": "AAE=", "subType": "80"}}, "s": "é", "x": [1, {"y": None}],
    }])
    fast = _fastread.documents(text)
    assert fast is not None
    assert typed(fast) == typed(python_read(text))
    assert type(fast[0]["big"]) is Int64  # relaxed: past int32 it is an int64


PLAIN = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6),
              st.floats(allow_nan=False, allow_infinity=False, width=32),
              st.text("ab1 .-e", max_size=4)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text("abc", max_size=2), inner, max_size=3)),
    max_leaves=8)
EDITS = st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(
    ["", ",", ":", "[", "]", "{", "}", '"', "-", "+", ".", "e", "E", "0", "1", " ", "\n", "\x1f",
     "\\", "\\u", "\\ud800", "\\udc00", "$", "N", "00", "-0", ".e", "e."])),
    min_size=1, max_size=3)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.dictionaries(st.text("abc", max_size=2), PLAIN, max_size=3), min_size=1,
                max_size=3), EDITS)
def test_an_edited_text_is_read_as_the_python_reader_reads_it_or_declined(docs, edits):
    """Plain JSON documents with a few characters replaced: a comma, a quote, a digit, a minus,
    an exponent, a backslash escape, a control character. Wherever the C path answers, the
    Python reader reads the same values. libbson's grammar is looser than JSON's, so only a text
    simdjson reads as strict JSON may reach it (without that step this finds a text libbson
    reads and the Python reader refuses, such as '[-000, {}]', in most runs)."""
    text = json.dumps(docs)
    for at, piece in edits:
        at %= len(text) + 1
        text = text[:at] + piece + text[at + 1:]
    fast = _fastread.documents(text)
    with mock.patch.object(_fastread, "STRICT_PIECE", 1):  # simdjson reads it in pieces
        assert (_fastread.documents(text) is None) == (fast is None), text
    if fast is not None:
        slow = python_read(text)
        assert not isinstance(slow, BadInput), (text, fast)
        assert typed(fast) == typed(slow)


@pytest.mark.parametrize("piece", [1, 20, 10**6])
def test_simdjson_reads_a_large_array_in_pieces_with_the_same_outcome(piece, monkeypatch):
    """A large array is read by simdjson in pieces cut at commas between documents: a valid
    one stays valid, and a flaw in any piece (a number libbson reads and JSON does not) is
    found. Where a cut falls inside a string, the piece reaches on to the next cut."""
    monkeypatch.setattr(_fastread, "STRICT_PIECE", piece)
    docs = [f'{{"_id": {i}, "s": "a,b"}}' for i in range(30)]
    text = ("[" + ",".join(docs) + "]").encode()
    assert _fastread._strict_json(text)
    for at in (0, 14, 29):
        flawed = [*docs[:at], '{"v": -01}', *docs[at:]]
        assert not _fastread._strict_json(("[" + ",".join(flawed) + "]").encode())
    cut = _fastread._next_cut(text, piece)
    assert (cut is not None) == (piece < 10**6)
    if cut is not None:  # the first piece and the rest hold every byte but the cut's comma
        first, rest = _fastread._piece(text, 0, cut), _fastread._piece(text, cut + 1, None)
        assert first[:-1] + b"," + rest[1:] == text
    tricky = [f'{{"_id": {i}, "s": "}},{{"}}' for i in range(30)]  # "},{" inside strings
    assert _fastread._strict_json(("[" + ",".join(tricky) + "]").encode())
    flawed = [*tricky[:14], '{"v": -01}', *tricky[14:]]
    assert not _fastread._strict_json(("[" + ",".join(flawed) + "]").encode())


def test_a_piece_reaches_on_a_few_cuts_at_most(monkeypatch):
    """A string holding many "}, {" makes every cut in it unsound: past STRICT_REACHES cuts the
    piece stops growing and the Python reader reads the text (simdjson's memory stays small)."""
    monkeypatch.setattr(_fastread, "STRICT_PIECE", 4)
    inside = '"' + "}, {" * 20 + '"'
    text = f'[{{"a": {inside}}}, {{"b": 1}}, {{"c": 2}}, {{"d": 3}}, {{"e": 4}}]'.encode()
    assert json.loads(text)  # valid JSON
    seen = []
    real = _fastread._reads
    monkeypatch.setattr(_fastread, "_reads", lambda parser, piece: seen.append(len(piece))
                        or real(parser, piece))
    assert not _fastread._strict_json(text)
    assert len(seen) == _fastread.STRICT_REACHES + 1
    monkeypatch.setattr(_fastread, "STRICT_REACHES", 25)
    assert _fastread._strict_json(text)  # allowed to reach past the string, it reads it


def test_without_simdjson_the_c_path_declines(monkeypatch):
    """Where simdjson does not load, nothing says libbson may read a text: the Python reader
    reads every one."""
    monkeypatch.setitem(__import__("sys").modules, "simdjson", None)
    assert _fastread.documents('[{"_id": {"$numberInt": "1"}}]') is None
    assert fixtures.parse('[{"_id": {"$numberInt": "1"}}]') == [{"_id": 1}]


@pytest.mark.parametrize("text", [
    '[{"l": {"$numberLong": "-9223372036854775808"}}]',  # 19 digits in a wrapper's string
    '[{"o": {"$oid": "8a1623532566627707648800"}}]',  # a run of 22 digits after a hex letter
    '[{"s": "x12345678901234567890123"}]',
    '[{"s": "-12345678901234567890123"}]',
])
def test_a_long_run_of_digits_inside_a_string_keeps_the_c_path(text):
    """A run of 19 digits or more that only a string can hold (after a quote, a quote and a
    minus, or a letter) is no number literal libbson could wrap round: the C path reads it."""
    fast = _fastread.documents(text)
    assert fast is not None
    assert typed(fast) == typed(python_read(text))


def test_a_file_reads_the_same_either_way(tmp_path, monkeypatch):
    """``fixtures.read`` on a file of mixed documents, one per line, gives the same documents
    and the same sort and find answers through the C path and through the Python reader."""
    lines = [json.dumps({"_id": {"$numberInt": str(i)}, "v": value}) for i, value in enumerate([
        {"$numberInt": "3"}, {"$numberLong": "-3000"}, {"$numberDouble": "2.5"},
        {"$numberDecimal": "2.50"}, "text", None, {"a": 1}, [2, "b"], [], True,
        {"$oid": "6553f1003f2a91c8d400303a"}, {"$date": {"$numberLong": "-86400000"}},
        {"$binary": {"base64": "AAECAwQFBgcICQoLDA0ODw==", "subType": "04"}},
        {"$numberDouble": "NaN"}] * 3)]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _fastread.documents("[" + ",".join(lines) + "]") is not None  # the C path is taken
    fast = fixtures.read(path)
    monkeypatch.setattr(_fastread, "documents", lambda text: None)
    slow = fixtures.read(path)
    assert typed(fast) == typed(slow)
    assert reads.ids(bson_order.sort(fast, "v:1,_id:1")) == reads.ids(
        bson_order.sort(slow, "v:1,_id:1"))
    query = {"v": {"$gt": 0}}
    assert reads.ids(reads.find(fast, query)) == reads.ids(reads.find(slow, query))


def test_without_the_binding_the_python_reader_answers(monkeypatch):
    """Where python-bsonjs cannot be imported (a platform without its wheel), the C path
    declines and the Python reader reads the file (ImportError is the only signal)."""
    monkeypatch.setitem(__import__("sys").modules, "bsonjs", None)
    text = '[{"_id": {"$numberInt": "1"}}]'
    assert _fastread.documents(text) is None
    assert fixtures.parse(text) == [{"_id": 1}]


@pytest.mark.parametrize("text", [
    '{"a": {"$numberInt": "1"}}\n\n{"b": 2}\n  \n{"c": 3}',  # blank lines
    '{"a": 1}\r\n{"b": 2}\r\n',  # Windows line ends
    '{"a": "x\u2028y"}\n{"b": 2}',  # a line separator inside a string stays in it
    '{"a": 1}\x0c{"b": 2}',  # a form feed ends no line (and is not JSON whitespace)
    '{"a": 1}  \n\t{"b": 2}',
    '{"a": "x\ny"}\n{"b": 2}', '{"a": "$x\ny"}',  # a string over a line's end
    '{"a": 1}, {"b": 2}', '{"a": [1\n2]}',  # two documents on a line; one over two lines
])
def test_documents_one_per_line_read_the_same_either_way(text, monkeypatch):
    """Documents one per line give the same documents (or the same refusal) through the C path
    and the Python reader, whatever ends their lines; only "\\n" ends a line (JSON Lines)."""
    def outcome():
        try:
            return typed(fixtures.parse(text))
        except BadInput as exc:
            return str(exc)
    fast = outcome()
    monkeypatch.setattr(_fastread, "documents", lambda text: None)
    assert fast == outcome()


@pytest.mark.parametrize(("text", "says"), [
    ('{"a": "x\ny"}\n{"b": 2}', "line 1 is not Extended JSON: Unterminated string"),
    ('{"b": 2}\n{"a": "$x\ny"}', "line 2 is not Extended JSON: Unterminated string"),
    ('{"a": 1}, {"b": 2}', "line 1 is not Extended JSON: Extra data"),
    ('{"a": [1\n2]}', "line 1 is not Extended JSON"),
])
def test_a_document_that_is_not_one_line_is_refused_with_its_line(text, says):
    """One document per line means each line is one document (JSON Lines). A line break
    inside a string was read as a comma, so ``{"a": "x`` and ``y"}`` became ``{"a": "x,y"}``
    without a word; where the C path declined, a mismatch of counts raised a ValueError."""
    with pytest.raises(BadInput, match=says):
        fixtures.parse(text)


@pytest.mark.parametrize(("text", "says"), [
    ('\n\n{"a": 1}\n{"b": }', "line 4 is not Extended JSON"),  # blank lines before count
    ('  \n{"a": 1}\n{"b": }', "line 3 is not Extended JSON"),
    ('\ufeff\n{"a": 1}\n{"b": }', "line 3 is not Extended JSON"),
    ('{"a": 1}\r\n\r\n{"b": }', "line 3 is not Extended JSON"),
    ('{"a": 1}\n5', "line 2: expected a document .*, not a value of type int"),
    ('\n{"a": 1}\n[{"b": 2}]', "line 3: expected a document .*, not a value of type array"),
])
def test_a_bad_line_is_named_by_its_line_in_the_file(text, says, monkeypatch):
    """The line named is the file's own line: blank lines before the first document count
    (the text was stripped first, and the count started after them); a line holding a value
    that is no document is named too. The same through the C path and the Python reader."""
    with pytest.raises(BadInput, match=says):
        fixtures.parse(text)
    monkeypatch.setattr(_fastread, "documents", lambda text: None)
    with pytest.raises(BadInput, match=says):
        fixtures.parse(text)


def test_a_byte_order_mark_then_white_space_then_an_array_is_an_array():
    """A byte-order mark, white space, then ``[``: an array of documents, not lines."""
    assert fixtures.parse('\ufeff [{"a": 1}]') == [{"a": 1}]


def test_a_line_separator_inside_a_string_is_kept():
    """U+2028 inside a string is part of the string, not the end of a line (JSON Lines ends a
    line at "\\n" only)."""
    assert fixtures.parse('{"a": "x\u2028y"}\n{"b": 2}') == [{"a": "x\u2028y"}, {"b": 2}]
