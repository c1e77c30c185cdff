"""Extended JSON read in C where that gives exactly what the Python reader gives, else nothing.

libbson (PyPI ``python-bsonjs``) turns the text into BSON and pymongo's C decoder turns the BSON
into Python values, about four times faster than ``json.loads`` with the Python reader's hook.
libbson is lenient where the Python reader is strict. Its JSON grammar lets through a missing
comma (``["a" "b"]``), numbers such as ``-01``, ``1.e1`` and ``1e1.5``, and raw control
characters in strings; it reads ``{"$numberDouble": ""}`` as 0.0 and ``{"$numberInt": " 5"}``
as 5, lets an integer literal past 64 bits wrap round, and reads ``$undefined`` as null and
``{"$ref": …}`` as a DBRef. So the C path is taken only for text that simdjson (PyPI
``pysimdjson``), a strict JSON parser, reads; whose every ``$`` wrapper is one of the canonical
forms below, written out in full; and which holds no integer literal of 19 digits or more. Any
other text (and any text libbson refuses, and every text where simdjson does not load) goes to
the Python reader, which reads it or says what is wrong. The Python reader reads libbson's own
language (``fixtures``: whatever libbson refuses it refuses, and what libbson reads beyond the
Extended JSON specification it refuses too), so which reader runs never changes what a file
means. ``tests/test_fastread.py`` checks that both readers give the same values of the same
types, and ``tests/test_fastread_corpus.py`` that both refuse every parse error of the BSON
corpus.

The wrapper and literal checks are searches over the whole text. On a large text they run in
PCRE2 (PyPI ``pcre2``, which the model's ``$regex`` uses too), whose compiled-to-machine-code
search is several times faster than Python's ``re``; where PCRE2 does not load, ``re`` and
``bytes.translate`` make the same checks.
"""

from __future__ import annotations

import datetime as dt
import functools
import importlib
import re
import struct
from typing import Any

# Each canonical wrapper, whole: ``{"$numberInt": "5"}``, with nothing else in its braces. JSON's
# white space is these four characters; the possessive quantifiers (``*+``) keep no places to
# go back to, which makes a search that finds nothing faster.
_WS = r"[ \t\n\r]*+"
_INTEGER = r'"-?[0-9]++"'
# (Possessive too: with "[0-9]+\.?[0-9]*" a long run of digits that ends in no quote made re
# try every split of the run, a time that grows with the square of its length.)
_NUMBER = r'"(?:-?(?:[0-9]++(?:\.[0-9]*+)?|\.[0-9]++)(?:[eE][+-]?[0-9]++)?|-?Infinity|NaN)"'
# pymongo decodes subtype 0 as ``bytes``, where the Python reader keeps a ``Binary``: not taken.
_BASE64 = (rf'"base64"{_WS}:{_WS}"[A-Za-z0-9+/]*={{0,2}}"{_WS},'
           rf'{_WS}"subType"{_WS}:{_WS}"(?!0?[04]")[0-9a-fA-F]{{1,2}}"')
_UUID = (rf'"base64"{_WS}:{_WS}"[A-Za-z0-9+/]{{22}}=="{_WS},{_WS}"subType"{_WS}:{_WS}'
         r'"0?4"')  # 16 bytes
# What may follow ``{"$`` in a canonical wrapper, to its closing brace: ``numberInt": "5"}``.
_WRAPPER_REST = (
    r'(?:'
    rf'number(?:Int|Long)"{_WS}:{_WS}{_INTEGER}'
    rf'|number(?:Double|Decimal)"{_WS}:{_WS}{_NUMBER}'
    rf'|oid"{_WS}:{_WS}"[0-9a-fA-F]{{24}}"'
    rf'|date"{_WS}:{_WS}\{{{_WS}"\$numberLong"{_WS}:{_WS}{_INTEGER}{_WS}\}}'
    rf'|binary"{_WS}:{_WS}\{{{_WS}(?:{_BASE64}|{_UUID}){_WS}\}}'
    rf'){_WS}\}}')
# A ``"$`` that does not open one of those wrappers whole: not right after ``{``, or not
# followed by a whole wrapper. Searching for it builds nothing where there is none.
_STRAY_DOLLAR = rf'"\$(?:(?<!\{{"\$)|(?!{_WRAPPER_REST}))'
# A run of 19 digits that may be a number literal: right after a byte that may come before a
# literal's digits in JSON (a colon, a comma, "[", white space, a decimal point, an exponent's
# "e" or "+"), or after a minus that does not open a string. After '"', '"-' or any other
# byte (an ObjectId's hex letter), the run is inside a string.
# (Written digits first, the bytes before them looked back at: a search that starts at the
# digits is faster than one that starts at every comma and space.)
_LONG_LITERAL = (r'[0-9]{19}(?<=^[0-9]{19}|[:,\[ \t\r\n.eE+][0-9]{19}|^-[0-9]{19}'
                 r'|[^"]-[0-9]{19})')
_STRAY_DOLLAR_RE = re.compile(_STRAY_DOLLAR)
# Every ASCII digit as "0"; '"' and "-" as themselves; "s" for the bytes before a literal's
# digits (as in _LONG_LITERAL); "x" for every other byte, which only a string holds there.
_MARKS = bytes(0x30 if 0x30 <= byte <= 0x39 else byte if byte in b'"-'
               else 0x73 if byte in b":,[ \t\r\n.eE+" else 0x78 for byte in range(256))
_LONG_RUN = b"0" * 19
# Below this many characters, loading PCRE2 costs more than its faster search saves.
PCRE2_FROM = 256 * 1024


def _takes(text: str) -> bool:
    """Whether simdjson reads the text as strict JSON, every ``"$`` in it opens one of the whole
    canonical wrappers above and no number literal has 19 digits or more (libbson wraps one
    past 64 bits round). A ``"$`` or a long run of digits inside a string only sends the text
    to the Python reader."""
    if "\\u0024" in text:  # a "$" written as an escape: libbson and json read it as "$"
        return False
    data = text.encode("utf-8", "surrogatepass")
    if not _strict_json(data):
        return False
    searches = _pcre2_searches() if len(text) >= PCRE2_FROM else None
    if searches is not None:
        try:
            return all(search(data) is None for search in searches)
        except Exception:  # a limit of PCRE2's (match or stack): re makes the same check
            pass
    return _STRAY_DOLLAR_RE.search(text) is None and _no_long_digits(data)


# simdjson reads a large array in pieces of about this many bytes, each cut at a comma between
# two documents: its memory then stays a few MB. Read whole, 6 MB of text took some 20 MB, and
# after it was freed the C library kept the next large blocks in its heap, where they stayed
# (the peak of a sort of 100,000 documents rose from 80 to 97 MB).
STRICT_PIECE = 512 * 1024
# A refused piece reaches on to the next cut this many times at most (a cut inside a string),
# so that no piece is longer than some 2.5 MB; past that the Python reader reads the text.
STRICT_REACHES = 4
_BETWEEN_DOCUMENTS = re.compile(rb"\}[ \t\n\r]*+(,)[ \t\n\r]*+\{")


def _strict_json(data: bytes) -> bool:
    """Whether simdjson reads the text as JSON by RFC 8259: every text it reads, Python's
    ``json`` reads the same (but for a leading byte-order mark, which simdjson skips: ``parse``
    strips it, and libbson refuses one), and libbson's leniencies of grammar are out of the way.
    False where simdjson does not load, or refuses the text (a lone surrogate, NaN, a number out
    of range too: the Python reader reads those or says what is wrong).

    An array is read in pieces: cut at commas, ``[a, b, c, d]`` is valid whenever ``[a, b]`` and
    ``[c, d]`` both are arrays of at least one value, since putting the comma back joins their
    values into one array. A valid piece ends where a document ends, so each cut before a
    refused piece is sound; the refused piece's own cut may fall inside a string (documents
    holding ``"}, {"``), so it reaches on to the next cut, up to STRICT_REACHES times."""
    try:
        simdjson = importlib.import_module("simdjson")  # by name: no type information
    except ImportError:
        return False
    parser = simdjson.Parser()
    start = 0  # where the next piece's documents begin: 0, or just past a sound cut's comma
    while True:
        reach = start + STRICT_PIECE
        for _attempt in range(STRICT_REACHES + 1):
            cut = _next_cut(data, reach)
            if _reads(parser, _piece(data, start, cut)):
                break
            if cut is None:
                return False
            reach = cut + 1
        else:
            return False
        if cut is None:
            return True
        start = cut + 1


def _next_cut(data: bytes, reach: int) -> int | None:
    """The comma of the first ``}, {`` at or past ``reach``; None where less than a piece is left
    after ``reach`` (the rest is read in one piece with what comes before)."""
    if len(data) - reach <= STRICT_PIECE:
        return None
    found = _BETWEEN_DOCUMENTS.search(data, reach)
    return None if found is None else found.start(1)


def _piece(data: bytes, start: int, cut: int | None) -> bytes:
    """The documents from ``start`` to the comma at ``cut`` (or to the end) as one array."""
    if cut is None:
        return data if start == 0 else b"[" + data[start:]  # its own "]" ends it
    return data[:cut] + b"]" if start == 0 else b"[" + data[start:cut] + b"]"


def _reads(parser: Any, piece: bytes) -> bool:
    try:
        return len(parser.parse(piece)) > 0  # a piece of several is an array of documents
    except (ValueError, TypeError, RuntimeError, MemoryError):
        return False


@functools.cache
def _pcre2_searches() -> tuple[Any, Any] | None:
    """PCRE2's searches for a stray ``"$`` and for a long literal in UTF-8 bytes, or None where
    the binding does not load (then ``re`` searches)."""
    try:
        pcre2 = importlib.import_module("pcre2")  # by name: the binding has no type information
        return (pcre2.compile(_STRAY_DOLLAR.encode()).search,
                pcre2.compile(_LONG_LITERAL.encode()).search)
    except Exception:  # any failure to load or compile: re makes the check
        return None


def _no_long_digits(data: bytes) -> bool:
    """Whether no run of 19 ASCII digits or more in the UTF-8 text may be a number literal, by
    the rule of ``_LONG_LITERAL`` (one that long may be past 64 bits, which libbson wraps
    round)."""
    marks = data.translate(_MARKS)
    start = marks.find(_LONG_RUN)
    while start != -1:
        before = marks[max(start - 2, 0):start]
        if before[-1:] not in (b'"', b"x") and before != b'"-':
            return False
        end = start + len(_LONG_RUN)
        while marks[end:end + 1] == b"0":  # to the end of this run
            end += 1
        start = marks.find(_LONG_RUN, end)
    return True


def documents(array_text: str) -> list[Any] | None:
    """The values of a JSON array read in C, or None where only the Python reader may read it
    (libbson or its binding absent, a form the C path does not take, text libbson refuses)."""
    if not _takes(array_text):
        return None
    try:
        import bsonjs  # type: ignore[import-not-found]  # no type stubs
        from bson import decode
    except ImportError:
        return None
    try:
        raw = bsonjs.loads('{"d": ' + array_text + "}")
    except (ValueError, UnicodeError):
        return None
    del array_text  # where the caller handed over its only copy, the memory is free again
    # Exactly one field, the array: text such as '[1], "e": 2' is not an array.
    if raw[4] != 4 or _INT32.unpack_from(raw, 7)[0] + 8 != len(raw):
        return None
    values: list[Any] = decode(raw, _codec_options())["d"]
    return values


_INT32 = struct.Struct("<i")


def _codec_options() -> Any:
    """BSON decoded as the Python reader reads Extended JSON: dates as aware UTC datetimes (a
    ``DatetimeMS`` beyond what ``datetime`` holds), UUIDs as ``Binary`` of subtype 4."""
    from bson.binary import UuidRepresentation
    from bson.codec_options import CodecOptions, DatetimeConversion

    return CodecOptions(tz_aware=True, tzinfo=dt.UTC,
                        uuid_representation=UuidRepresentation.UNSPECIFIED,
                        datetime_conversion=DatetimeConversion.DATETIME_AUTO)
