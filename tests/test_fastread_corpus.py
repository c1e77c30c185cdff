"""labkit reads one Extended JSON language on both of its paths, the one libbson reads: the BSON
corpus of the drivers' specifications judges it (``tests/data/bson-corpus/``, copied from
mongodb/specifications ``source/bson-corpus/tests/`` at commit 92b3c0b9; its README says how),
and libbson itself (PyPI ``python-bsonjs``, the C path's own parser) judges what the corpus does
not say. What libbson refuses, labkit refuses, whichever reader runs; where libbson reads more
than the Extended JSON specification writes (a space before a number, ``inf`` for a double,
text after a double's digits), labkit refuses that too, and says so here.

libbson's rules are read from mongodb/mongo-c-driver at commit a047e0bc (2026-08-21):
``src/libbson/src/bson/bson-json.c`` (``_bson_json_read_int64_or_set_error``: ``strtoll`` to the
string's end and within 64 bits; ``_bson_json_parse_double``: ``strtod``, a value out of range
refused unless it is spelt infinity), ``bson-decimal128.c`` (``bson_decimal128_from_string``:
a sign, then ``inf``, ``infinity`` or ``nan`` in any case, or digits with one radix point and
an exponent; no white space; an inexact value refused) and ``bson-iso8601.c``
(``_bson_iso8601_date_parse``: ``yyyy-mm-ddThh:mm``, seconds and one to three digits of
milliseconds if given, then ``Z``, ``±hhmm`` or ``±hh:mm``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bson import Binary, Int64, decode
from test_fastread import python_read, typed

from labkit.errors import BadInput
from labkit.model import _fastread, fixtures

bsonjs = pytest.importorskip("bsonjs", reason="python-bsonjs is a dependency: libbson judges")

CORPUS = Path(__file__).parent / "data" / "bson-corpus"
# The files whose valid cases are types labkit's reader reads, and how it reads them.
VALUES = ("int32", "int64", "double", "decimal128-1", "decimal128-2", "decimal128-3",
          "decimal128-4", "decimal128-5", "datetime", "oid", "string", "code", "regex",
          "binary", "minkey", "maxkey", "timestamp", "top")


def _corpus(name: str) -> dict:
    return json.loads((CORPUS / f"{name}.json").read_text(encoding="utf-8"))


def _parse_errors() -> list[tuple[str, str, str]]:
    """Every ``parseErrors`` case as an Extended JSON document: whole in ``top`` and ``binary``,
    a ``$numberDecimal``'s string in the ``decimal128`` files (bson-corpus.md, "Testing parsing
    errors")."""
    found = []
    for path in sorted(CORPUS.glob("*.json")):
        for case in _corpus(path.stem).get("parseErrors", []):
            text = case["string"]
            if path.stem.startswith("decimal128"):
                text = json.dumps({"d": {"$numberDecimal": text}})
            found.append((path.stem, case["description"], text))
    return found


def _valid() -> list[tuple[str, str, str, str, bool]]:
    """Every valid case's Extended JSON forms (canonical, relaxed, degenerate), with its
    form, its canonical BSON and whether the corpus calls it lossy."""
    found = []
    for name in VALUES:
        for case in _corpus(name).get("valid", []):
            for form in ("canonical_extjson", "relaxed_extjson", "degenerate_extjson"):
                if form in case:
                    found.append((f"{name}: {case['description']} ({form})", form, case[form],
                                  case["canonical_bson"], case.get("lossy", False)))
    return found


def _decode_errors() -> list[tuple[str, str]]:
    return [(f"{path.stem}: {case['description']}", case["bson"])
            for path in sorted(CORPUS.glob("*.json"))
            for case in _corpus(path.stem).get("decodeErrors", [])]


def _as_read(value: object, relaxed: bool = False) -> object:
    """A value pymongo decoded from BSON, as labkit's reader writes it: subtype 0 keeps its
    ``Binary`` (pymongo gives ``bytes``); ``relaxed``, an ``Int64`` as the number it is
    (relaxed Extended JSON keeps no integer's width: the spec's rule for it is a round trip
    through relaxed Extended JSON, bson-corpus.md)."""
    if isinstance(value, dict):
        return {name: _as_read(item, relaxed) for name, item in value.items()}
    if isinstance(value, list):
        return [_as_read(item, relaxed) for item in value]
    if isinstance(value, bytes) and not isinstance(value, Binary):
        return Binary(value, 0)
    if relaxed and isinstance(value, Int64):
        return int(value)
    return value


def test_the_corpus_copied_here_is_whole():
    """The corpus holds its parse errors, valid cases and decode errors (a copy cut short
    would test nothing)."""
    assert len(_parse_errors()) == 44 + 5 + 20 + 31 + 80
    assert len(_valid()) > 600
    assert len(_decode_errors()) > 40


@pytest.mark.parametrize(("name", "description", "text"), _parse_errors(),
                         ids=[f"{n}: {d}" for n, d, _ in _parse_errors()])
def test_every_parse_error_of_the_corpus_is_refused_by_both_readers(name, description, text):
    """Each ``parseErrors`` case of the BSON corpus is refused: the C path declines it and the
    Python reader says what is wrong (``BadInput``), whichever reads the file."""
    _refused_by_both(f"[{text}]")


def _refused_by_both(array: str) -> None:
    assert _fastread.documents(array) is None
    assert isinstance(python_read(array), BadInput)
    with pytest.raises(BadInput):
        fixtures.parse(array)


@pytest.mark.parametrize(("what", "form", "text", "canonical", "lossy"), _valid(),
                         ids=[case[0] for case in _valid()])
def test_every_valid_case_reads_to_its_canonical_bsons_value(what, form, text, canonical,
                                                             lossy):
    """Each valid case's Extended JSON (canonical, relaxed, degenerate) is read by the Python
    reader, and by the C path where it takes it, to the value its canonical BSON decodes to,
    of its type (a relaxed integer: its number); unless the corpus calls the case lossy (a
    NaN's payload has no Extended JSON)."""
    read = python_read(f"[{text}]")[0]
    fast = _fastread.documents(f"[{text}]")
    if fast is not None:
        assert typed(fast[0]) == typed(read), what
    if not lossy:
        relaxed = form == "relaxed_extjson"
        expected = _as_read(decode(bytes.fromhex(canonical), _fastread._codec_options()),
                            relaxed)
        assert typed(_as_read(read, relaxed)) == typed(expected), what


@pytest.mark.parametrize(("what", "data"), _decode_errors(), ids=[w for w, _ in _decode_errors()])
def test_every_decode_error_of_the_corpus_is_refused_by_the_decoder_of_the_c_path(what, data):
    """Each ``decodeErrors`` case (BSON no valid text makes) is refused by pymongo's decoder,
    with the options the C path decodes libbson's BSON with."""
    with pytest.raises(Exception):  # noqa: B017, PT011 - InvalidBSON, or the C decoder's own
        decode(bytes.fromhex(data), _fastread._codec_options())


def _libbson_reads(document: str) -> bool:
    try:
        bsonjs.loads(document)
    except (ValueError, UnicodeError):
        return False
    return True


# What libbson refuses beyond the corpus: refused on both paths ---------------------------------

LIBBSON_REFUSES = [
    '{"a": {"$numberInt": "\\u0663"}}',  # an Arabic-Indic three: strtoll reads no digit
    '{"a": {"$numberInt": "\\uff15"}}',  # a fullwidth five
    '{"a": {"$numberLong": "\\u0661\\u0662"}}', '{"a": {"$numberLong": "5 "}}',
    '{"a": {"$date": {"$numberLong": "\\u0661"}}}',
    '{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}',  # not JSON (RFC 8259 section 6)
    '{"a": 1e400}', '{"a": -1e400}', '{"a": 1.7976931348623159e308}',  # out of a double's range
    '{"a": {"$numberDouble": "1e400"}}', '{"a": {"$numberDouble": "-1E+400"}}',
    '{"a": {"$numberDecimal": "sNaN"}}', '{"a": {"$numberDecimal": "-sNaN"}}',
    '{"a": {"$numberDecimal": "NaN5"}}', '{"a": {"$numberDecimal": "1_000"}}',
    '{"a": {"$numberDecimal": "\\u0663"}}', '{"a": {"$numberDecimal": "1 "}}',
    '{"a\\u0000": 1}', '{"a": {"b": [{"c\\u0000": 1}]}}',  # a NUL in a field name
    '{"a": {"$code": "x", "$scope": {"b\\u0000": 1}}}',
    '{"a": {"$regex": "a\\u0000"}}', '{"a": {"$regex": "a", "$options": "i\\u0000"}}',
    '{"a": {"$minKey": 1.0}}', '{"a": {"$maxKey": 1.0}}',
    '{"a": {"$binary": {"base64": "AB==", "subType": "00"}}}',  # padding bits that are not 0
    '{"a": {"$date": "2020-01-01"}}', '{"a": {"$date": "2020-01-01T00:00:00"}}',  # no time zone
    '{"a": {"$date": "2020-01-01 00:00:00Z"}}', '{"a": {"$date": "20200101T000000Z"}}',
    '{"a": {"$date": "2020-01-01T00:00:00.123456Z"}}', '{"a": {"$date": "2020-01-01T00:00:00.Z"}}',
    '{"a": {"$date": "\\u0662020-01-01T00:00:00Z"}}', '{"a": {"$date": "2020-01-01T24:00:00Z"}}',
    '{"a": {"$date": "2020-01-01T00:00:00+24:00"}}', '{"a": {"$date": "2020-01-01t00:00:00z"}}',
]


@pytest.mark.parametrize("text", LIBBSON_REFUSES)
def test_what_libbson_refuses_both_readers_refuse(text):
    """Each text libbson refuses (it says so here, through python-bsonjs) is refused by the
    Python reader too, and declined by the C path: the Python reader read Unicode digits as
    digits, NaN and Infinity as numbers, 1e400 as infinity, sNaN as a Decimal128, a NUL in a
    field name, 1.0 as MinKey's 1, and any date Python's fromisoformat reads."""
    assert not _libbson_reads(text)
    _refused_by_both(f"[{text}]")


# What libbson reads that the specification does not write: refused, by choice -----------------

LENIENCIES = [
    '{"a": {"$numberInt": " 5"}}', '{"a": {"$numberInt": "+5"}}',  # strtoll skips white space
    '{"a": {"$numberDouble": ""}}', '{"a": {"$numberDouble": "0x10"}}',  # strtod, unchecked
    '{"a": {"$numberDouble": "1.5abc"}}', '{"a": {"$numberDouble": "inf"}}',
    '{"a": {"$numberDouble": "-NaN"}}', '{"a": {"$numberDouble": "\\u0663"}}',
    '{"a": {"$numberDecimal": "1e 5"}}',  # sscanf skips white space before the exponent
    '{"a": {"$date": "2020-02-31T00:00:00Z"}}',  # a day that does not exist: timegm moves it on
    '{"a": {"$date": "2020-01-01T00:00:60Z"}}',
    '{"a": {"$oid": "ZZZZZZZZZZZZZZZZZZZZZZZZ"}}',  # not hexadecimal: libbson reads zeros
    '{"a": {"$timestamp": {"t": 4294967296, "i": 1}}}',  # past 32 bits: libbson wraps it
    '{"a": {"$binary": {"base64": "AA==", "subType": "100"}}}',  # libbson: "10", subtype 16
    '{"a": {"$binary": {"base64": "AAEC\\nAw==", "subType": "00"}}}',  # b64_pton skips spaces
]


@pytest.mark.parametrize("text", LENIENCIES)
def test_what_libbson_reads_beyond_the_specification_labkit_refuses(text):
    """Each of libbson's readings beyond what the Extended JSON specification writes (white
    space or text around a number, ``inf`` for a double, a day that does not exist, an ObjectId
    that is not hexadecimal, a timestamp past 32 bits, a subtype of three digits, base64 broken
    by white space) is refused by labkit on both paths, with what is wrong: a fixture that
    holds one is a mistake, not a value."""
    assert _libbson_reads(text)
    _refused_by_both(f"[{text}]")


# Where libbson and the specification agree, labkit reads as they do -----------------------------

READ_AS_LIBBSON = [
    ('{"a": {"$numberLong": "0000000000000000000000000000001"}}', 1),  # leading zeros: strtoll
    ('{"a": {"$numberLong": "-000000000000000000000009223372036854775808"}}', -(2**63)),
    ('{"a": {"$numberInt": "-0000000000000000000000000000042"}}', -42),
    ('{"a": {"$date": {"$numberLong": "000000000000000000000001"}}}', 1),
    ('{"a": {"$numberDecimal": "-NaN"}}', "NaN"),  # libbson drops a NaN's sign
    ('{"a": {"$numberDecimal": "+inF"}}', "Infinity"),
    ('{"a": {"$date": "2020-01-01T00:00Z"}}', 1577836800000),  # seconds may be left out
    ('{"a": {"$date": "2020-01-01T01:00:00.5+0100"}}', 1577836800500),
    ('{"a": {"$date": "0000-01-01T00:00:00Z"}}', -62167219200000),  # year 0, before datetime's
]


@pytest.mark.parametrize(("text", "value"), READ_AS_LIBBSON)
def test_labkit_reads_what_libbson_reads_as_libbson_reads_it(text, value):
    """Leading zeros in an integer's string (any number of them, where a 20-digit bound refused
    them on the Python path alone), a NaN's sign, ``inf`` in a Decimal128, a date without
    seconds or with an offset, year 0: read by both readers to libbson's value."""
    array = f"[{text}]"
    expected = _as_read(decode(bsonjs.loads(text), _fastread._codec_options()))["a"]
    read = python_read(array)[0]["a"]
    assert typed(read) == typed(expected)
    fast = _fastread.documents(array)
    if fast is not None:
        assert typed(fast[0]["a"]) == typed(read)
    shown = str(read) if not hasattr(read, "timestamp") else None
    if isinstance(value, str):
        assert shown == value
    elif hasattr(expected, "tzinfo") or type(expected).__name__ == "DatetimeMS":
        millis = int(expected) if type(expected).__name__ == "DatetimeMS" else round(
            expected.timestamp() * 1000)
        assert millis == value
    else:
        assert int(read) == value


def test_which_reader_runs_never_changes_what_a_file_means():
    """A ``$numberLong`` of more than 20 characters (leading zeros) means 1 in a file the C path
    reads and in the same file with a string holding ``$`` beside it, which sends it to the
    Python reader (it was ``Int64(1)`` in the first and a refusal of 28 digits in the second)."""
    long_one = '{"n": {"$numberLong": "0000000000000000000000000001"}}'
    alone, beside = f"[{long_one}]", f'[{long_one}, {{"s": "$x"}}]'
    assert _fastread.documents(alone) is not None  # the C path reads it
    assert _fastread.documents(beside) is None  # the Python reader does
    assert typed(fixtures.parse(alone)[0]) == typed(fixtures.parse(beside)[0]) == typed(
        {"n": Int64(1)})
