"""Extended JSON read in C where that gives exactly what the Python reader gives, else nothing.

libbson (PyPI ``python-bsonjs``) turns the text into BSON and pymongo's C decoder turns the BSON
into Python values, about four times faster than ``json.loads`` with the Python reader's hook.
libbson is lenient where the Python reader is strict: it reads ``{"$numberDouble": ""}`` as 0.0,
``{"$numberInt": " 5"}`` as 5, lets an integer literal past 64 bits wrap round, and reads
``$undefined`` as null and ``{"$ref": …}`` as a DBRef. So the C path is taken only for text whose
every ``$`` wrapper is one of the canonical forms below, written out in full, and which holds no
integer literal of 19 digits or more; any other text (and any text libbson refuses) goes to the
Python reader, which reads it or says what is wrong. ``tests/test_fastread.py`` checks that both
readers give the same values of the same types.
"""

from __future__ import annotations

import datetime as dt
import re
import struct
from typing import Any

# Each canonical wrapper, whole: ``{"$numberInt": "5"}``, with nothing else in its braces.
_INTEGER = r'"-?[0-9]++"'
_NUMBER = r'"(?:-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|-?Infinity|NaN)"'
# pymongo decodes subtype 0 as ``bytes``, where the Python reader keeps a ``Binary``: not taken.
_BASE64 = (r'"base64"\s*+:\s*+"[A-Za-z0-9+/]*={0,2}"\s*+,'
           r'\s*+"subType"\s*+:\s*+"(?!0?[04]")[0-9a-fA-F]{1,2}"')
_UUID = r'"base64"\s*+:\s*+"[A-Za-z0-9+/]{22}=="\s*+,\s*+"subType"\s*+:\s*+"0?4"'  # 16 bytes
# What may follow ``{"$`` in a canonical wrapper, to its closing brace: ``numberInt": "5"}``.
_WRAPPER_REST = (
    r'(?:'
    rf'number(?:Int|Long)"\s*+:\s*+{_INTEGER}'
    rf'|number(?:Double|Decimal)"\s*+:\s*+{_NUMBER}'
    r'|oid"\s*+:\s*+"[0-9a-fA-F]{24}"'
    rf'|date"\s*+:\s*+\{{\s*+"\$numberLong"\s*+:\s*+{_INTEGER}\s*+\}}'
    rf'|binary"\s*+:\s*+\{{\s*+(?:{_BASE64}|{_UUID})\s*+\}}'
    r')\s*+\}')
# A ``"$`` that does not open one of those wrappers whole: not right after ``{``, or not
# followed by a whole wrapper. Searching for it builds nothing where there is none, which is
# faster than taking every wrapper out of the text and looking at what is left; the possessive
# quantifiers (``*+``, Python 3.11) keep no places to go back to.
_STRAY_DOLLAR = re.compile(rf'"\$(?:(?<!\{{"\$)|(?!{_WRAPPER_REST}))')
# Every ASCII digit as "0"; '"' and "-" as themselves; "s" for the other bytes that may come
# right before a number literal's digits in JSON (after a colon, a comma, "[", white space, a
# decimal point, an exponent's "e" or "+"); "x" for every other byte, which only a string holds.
_MARKS = bytes(0x30 if 0x30 <= byte <= 0x39 else byte if byte in b'"-'
               else 0x73 if byte in b":,[ \t\r\n.eE+" else 0x78 for byte in range(256))
_LONG_RUN = b"0" * 19


def _takes(text: str) -> bool:
    """Whether every ``"$`` in the text opens one of the whole canonical wrappers above and no
    number literal has 19 digits or more (libbson wraps one past 64 bits round). A ``"$`` or a
    long run of digits inside a string only sends the text to the Python reader."""
    if "\\u0024" in text:  # a "$" written as an escape: libbson and json read it as "$"
        return False
    return _STRAY_DOLLAR.search(text) is None and _no_long_digits(text)


def _no_long_digits(text: str) -> bool:
    """Whether no run of 19 ASCII digits or more may be a number literal (one that long may be
    past 64 bits, which libbson wraps round). A run right after a byte no literal follows is
    inside a string: after '"' or '"-' (a wrapper's ``"-9223372036854775808"``), or after a
    letter (an ObjectId's hex). Any other long run only costs the C path."""
    marks = text.encode("utf-8", "surrogatepass").translate(_MARKS)
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
