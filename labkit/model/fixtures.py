"""The documents' fixtures, kept as canonical Extended JSON in ``data/``, one file per collection.

One loader serves the server and the model alike, so both see the same BSON types
(an ``int`` where the shell stored an int32, ``Int64`` for ``NumberLong``, ...).

The Extended JSON read is one language, libbson's (mongodb/mongo-c-driver
``src/libbson/src/bson/bson-json.c``, ``bson-decimal128.c`` and ``bson-iso8601.c``), judged by
the BSON corpus of the drivers' specifications: whatever libbson refuses is refused here, so
that the C path (``_fastread``, libbson itself) and this reader never differ on what a file
means. Where libbson reads more than the Extended JSON specification writes (white space or
text around a number's digits, ``inf`` for a double, a day that does not exist, an ObjectId
that is not hexadecimal, a timestamp past 32 bits, a binary subtype of three digits), this
reader refuses that too, saying what is wrong. ``tests/test_fastread_corpus.py`` holds both lists.
"""

from __future__ import annotations

import datetime as dt
import io
import itertools
import json
import math
import os
import re
import stat
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from labkit._paths import CHECKOUT, PACKAGE
from labkit.errors import BadInput, ModelLimit
from labkit.i18n import N_, Message, Text
from labkit.model import _fastread
from labkit.model.bson_order import UNDEFINED, bson_type

if TYPE_CHECKING:
    from pymongo.collection import Collection
    from pymongo.database import Database

    from labkit.model.bson_order import Document


def _data_folder() -> Path:
    """``labkit/data`` in an installed wheel, else the checkout's top-level ``data/``."""
    installed = PACKAGE / "data"
    return installed if installed.is_dir() else CHECKOUT / "data"


DATA = _data_folder()


# The bounds within which labkit reads what comes from outside (files, options): each is said in
# ``labkit --help``, and each refusal is one BadInput naming the bound.
MAX_DEPTH = 100  # the manual: MongoDB supports no more than 100 levels of nesting
MAX_FILE_DEPTH = MAX_DEPTH + 10  # a claim file's levels around its documents (a Unified Test
# Format filter starts 7 levels deep)
MAX_FILE_BYTES = 16 * 1024 * 1024  # as large as BSON's largest document
MAX_INTEGER_DIGITS = 20  # a 64-bit integer, BSON's widest, has at most 19
MAX_ALIAS_VALUES = 100_000  # values YAML aliases may repeat in all ("billion laughs")
_READ_CHUNK = 1024 * 1024


def limits_text() -> str:
    """The bounds in words, for ``--help``, in the language in use."""
    return Message(N_("Files are read within bounds: at most {mib} MiB, a regular file or a pipe "
                      "that ends; documents nested at most {depth} levels (BSON's limit), a "
                      "claim file {file_depth}; integers of at most {digits} digits; YAML "
                      "aliases repeating at most {aliases:,} values in all."),
                   mib=MAX_FILE_BYTES // 2**20, depth=MAX_DEPTH, file_depth=MAX_FILE_DEPTH,
                   digits=MAX_INTEGER_DIGITS, aliases=MAX_ALIAS_VALUES).shown()


def read_bytes(path: str | Path, most: int = MAX_FILE_BYTES) -> bytes:
    """A file's bytes, within ``most`` (``MAX_FILE_BYTES``, or less): a regular file (its size
    is known before any read) or a pipe that ends; a device (``/dev/zero``), a folder or a
    socket is BadInput. Every file labkit reads from outside comes through here."""
    # O_NONBLOCK: opening a FIFO nobody writes to returns at once instead of waiting for ever
    # (Windows has no FIFOs and no such flag: a plain open there).
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, os.O_RDONLY | nonblocking)
    except FileNotFoundError as exc:
        raise BadInput(Message(N_("{path}: no such file"), path=str(path))) from exc
    except OSError as exc:
        raise BadInput(Message(N_("cannot read {path}: {error}"), path=str(path),
                                       error=exc.strerror)) from exc
    try:
        _check_kind_and_size(path, os.fstat(fd), most)
    except BaseException:
        os.close(fd)
        raise
    if nonblocking:  # a pipe's writer may be slower than labkit: wait for its data
        os.set_blocking(fd, True)
    with io.FileIO(fd, "rb") as stream:
        return _read_within_bound(path, stream, most)


def _check_kind_and_size(path: str | Path, status: os.stat_result, most: int) -> None:
    if stat.S_ISREG(status.st_mode):
        _check_size(path, status.st_size, most)
    elif not stat.S_ISFIFO(status.st_mode):
        raise BadInput(Message(N_("{path} is not a regular file or a pipe (labkit's "
                                  "bounds: see labkit --help)"), path=str(path)))


def _check_size(path: str | Path, size: int, most: int) -> None:
    if size > most:
        raise BadInput(Message(N_("{path} is larger than {mib:,} MiB, the most labkit reads "
                                  "of such a file (labkit's bounds: see labkit --help)"),
                               path=str(path), mib=most // 2**20))


def _read_within_bound(path: str | Path, stream: io.FileIO, most: int) -> bytes:
    """Read to the end, refusing as soon as more than ``most`` came (a regular file can grow
    while it is read; a pipe has no size)."""
    chunks: list[bytes] = []
    total = 0
    while chunk := stream.read(_READ_CHUNK):
        total += len(chunk)
        _check_size(path, total, most)
        chunks.append(chunk)
    return b"".join(chunks)


def _named(where: Text) -> Message:
    """``where`` (a path, an option, a label marked with ``N_``) as a message's value: a label
    is shown in the learner's language, anything else as it is."""
    return where if isinstance(where, Message) else Message(where)


def check_integer_text(text: str, where: Text) -> None:
    """Refuse an integer literal of more than ``MAX_INTEGER_DIGITS`` digits before converting
    it (Python refuses beyond 4,300, and a long conversion costs quadratic time)."""
    digits = len(text) - (text[:1] in "+-")
    if digits > MAX_INTEGER_DIGITS:
        raise BadInput(Message(N_("{where} holds an integer of {digits:,} digits; "
                                          "labkit reads at most {most:,} (a 64-bit integer has "
                                          "19)"), where=_named(where), digits=digits,
                                       most=MAX_INTEGER_DIGITS))


class _Decoder:
    """Canonical and relaxed Extended JSON into exact BSON values, checked as MongoDB checks.

    Binary keeps its subtype (3 stays 3), ``$undefined`` stays undefined, a DBRef stays
    the embedded document it is for comparison, and a malformed wrapper is BadInput.
    In a filter (``query=True``), ``{"$regex": …, "$options": …}`` is left for the
    query operator.
    """

    # ASCII digits only: Python's \d and int() read every script's digits ("٣" as 3), libbson's
    # strtoll and strtod none.
    _INT = re.compile(r"-?[0-9]+")
    # Possessive, so that a long run of digits is read once (see _fastread._NUMBER).
    _DOUBLE = re.compile(r"-?(?:[0-9]++(?:\.[0-9]*+)?|\.[0-9]++)(?:[eE][+-]?[0-9]++)?"
                         r"|-?Infinity|NaN")
    # What bson_decimal128_from_string reads: a sign, then inf, infinity or nan in any case, or
    # digits with at most one radix point and an exponent (no white space, no "_", no sNaN).
    _DECIMAL = re.compile(r"[+-]?(?:(?:[0-9]++(?:\.[0-9]*+)?|\.[0-9]++)(?:[eE]([+-]?[0-9]++))?"
                          r"|(?i:inf|infinity|nan))")

    def __init__(self, query: bool = False, nul: bool = False) -> None:
        self.query = query
        self.nul = nul  # the text holds a NUL (only as "\u0000": JSON has no raw one)

    def __call__(self, doc: dict[str, Any]) -> Any:
        if self.nul:
            for name in doc:
                if "\0" in name:
                    raise BadInput(Message(N_(
                        "the field name {name} holds a NUL character, which a BSON field name "
                        "cannot hold"), name=repr(name)))
        for name in doc:
            if name[:1] == "$":
                decode = self._SINGLE.get(name)
                if decode is not None and len(doc) == 1:
                    return decode(self, doc[name])
                return self._wrapper(doc)
        return doc

    def _wrapper(self, doc: dict[str, Any]) -> Any:
        names = set(doc)
        for name in names & self._SINGLE.keys():
            raise BadInput(Message(N_("{name} takes no other fields: {fields}"),
                                           name=name, fields=str(sorted(names))))
        if "$binary" in names:
            return self._binary(doc)
        if "$code" in names:
            return self._code(doc)
        if "$regex" in names and not self.query and names <= {"$regex", "$options"} \
                and isinstance(doc["$regex"], str):
            from bson import Regex

            return Regex(self._cstring(doc["$regex"], "$regex"),
                         self._cstring(self._text(doc.get("$options", ""), "$options"),
                                       "$options"))
        if "$dbPointer" in names:
            raise ModelLimit(Message(N_("the model does not handle the deprecated "
                                              "DBPointer type")))
        return doc  # a DBRef, a query operator, or a field name that starts with $

    @staticmethod
    def _text(value: Any, what: str) -> str:
        if not isinstance(value, str):
            raise BadInput(Message(N_("{what} needs a string, not {value}"), what=what,
                                           value=repr(value)))
        return value

    @staticmethod
    def _cstring(text: str, what: str) -> str:
        """``text``, a regular expression's pattern or options, which BSON keeps NUL-ended."""
        if "\0" in text:
            raise BadInput(Message(N_("{what} holds a NUL character, which a BSON "
                                              "regular expression cannot hold"), what=what))
        return text

    def _oid(self, value: Any) -> Any:
        from bson import ObjectId

        text = self._text(value, "$oid")
        if len(text) != 24 or not all(c in "0123456789abcdefABCDEF" for c in text):
            raise BadInput(Message(N_("$oid needs 24 hexadecimal digits, not {text}"),
                                           text=repr(text)))
        return ObjectId(text)

    def _integer(self, value: Any, what: str, bits: int) -> int:
        text = self._text(value, what)
        if not self._INT.fullmatch(text):
            raise BadInput(Message(N_("{what} needs a decimal integer string, not "
                                              "{text}"), what=what, text=repr(text[:40])))
        # Leading zeros, however many, are read as libbson's strtoll reads them: the bound is on
        # the digits that count.
        negative = text[0] == "-"
        digits = text[negative:].lstrip("0") or "0"
        check_integer_text(digits, what)
        number = -int(digits) if negative else int(digits)
        if not -(2 ** (bits - 1)) <= number < 2 ** (bits - 1):
            raise BadInput(Message(N_("{what} {text} is out of range for a {bits}-bit "
                                              "integer"), what=what, text=text, bits=bits))
        return number

    def _int(self, value: Any) -> Any:
        if type(value) is str and value.isascii():
            digits = value[1:] if value[:1] == "-" else value
            if digits.isdigit() and len(digits) < 11:
                number = int(value)
                if -(2**31) <= number < 2**31:
                    return number
        return self._integer(value, "$numberInt", 32)

    def _long(self, value: Any) -> Any:
        from bson import Int64

        return Int64(self._integer(value, "$numberLong", 64))

    def _double(self, value: Any) -> Any:
        text = self._text(value, "$numberDouble")
        if not self._DOUBLE.fullmatch(text):
            raise BadInput(Message(N_("$numberDouble needs a number string, not "
                                              "{text}"), text=repr(text[:40])))
        number = float(text)
        if math.isinf(number) and text[-1] != "y":  # beyond a double, not spelt Infinity
            raise BadInput(Message(N_("$numberDouble {text} is beyond a double's range; "
                                              "write \"Infinity\" or \"-Infinity\" for "
                                              "infinity"), text=repr(text[:40])))
        return number

    def _decimal(self, value: Any) -> Any:
        from bson import Decimal128

        text = self._text(value, "$numberDecimal")
        found = self._DECIMAL.fullmatch(text)
        # libbson reads the exponent as a 32-bit integer, and refuses one that is not.
        exponent = found.group(1) if found else None
        if exponent is not None:
            digits = exponent.lstrip("+-").lstrip("0")
            found = found if len(digits) <= 10 and int(digits or "0") < 2**31 else None
        try:
            if found is None:
                raise ValueError(text)
            number = Decimal128(text)
        except (ValueError, TypeError, ArithmeticError):
            raise BadInput(Message(N_("$numberDecimal {text} is not a Decimal128 "
                                              "number"), text=repr(text[:40]))) from None
        # libbson keeps no NaN's sign (BSON_DECIMAL128_SET_NAN): one NaN.
        return Decimal128("NaN") if number.to_decimal().is_nan() else number

    def _uuid(self, value: Any) -> Any:
        from bson import Binary

        text = self._text(value, "$uuid")
        if not re.fullmatch(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", text):
            raise BadInput(Message(N_("$uuid needs a UUID such as "
                                              "0f8fad5b-d9cb-469f-a165-70867728950e, not {text}"),
                                           text=repr(text)))
        return Binary(uuid.UUID(text).bytes, 4)

    def _binary(self, doc: dict[str, Any]) -> Any:
        import base64
        import binascii

        from bson import Binary

        body = doc["$binary"]
        if isinstance(body, dict) and set(doc) == {"$binary"}:
            if set(body) != {"base64", "subType"}:
                raise BadInput(Message(N_("$binary needs exactly base64 and subType")))
            data, subtype = body["base64"], body["subType"]
        elif isinstance(body, str) and set(doc) == {"$binary", "$type"}:
            data, subtype = body, doc["$type"]
        else:
            raise BadInput(Message(N_("$binary needs {\"base64\": …, \"subType\": …}")))
        data, subtype = self._text(data, "base64"), self._text(subtype, "subType")
        if not re.fullmatch(r"[0-9a-fA-F]{1,2}", subtype):
            raise BadInput(Message(N_("$binary subType needs one or two hex digits, "
                                              "not {subtype}"), subtype=repr(subtype)))
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise BadInput(Message(N_("$binary base64 {data} is not base64"),
                                           data=repr(data[:40]))) from None
        canonical = base64.b64encode(raw).decode("ascii")
        if canonical != data:
            # Padding bits that are not zero ("MC==", as the manual writes BinData(0, "MC==")):
            # libbson's b64_pton refuses them, and Extended JSON's base64 is the canonical form.
            raise BadInput(Message(N_("$binary base64 {data} is not canonical base64 (its last "
                                      "bits are not zero); the same bytes are {canonical}"),
                                   data=repr(data[:40]), canonical=repr(canonical[:40])))
        number = int(subtype, 16)
        if number == 4 and len(raw) != 16:
            raise BadInput(Message(N_("a UUID (BinData subtype 4) has 16 bytes, not "
                                              "{count:,}"), count=len(raw)))
        return Binary(raw, number)

    def _code(self, doc: dict[str, Any]) -> Any:
        from bson import Code

        if not set(doc) <= {"$code", "$scope"}:
            raise BadInput(Message(N_("$code takes only $scope beside it")))
        scope = doc.get("$scope")
        if scope is not None and not isinstance(scope, dict):
            raise BadInput(Message(N_("$scope needs a document")))
        return Code(self._text(doc["$code"], "$code"), scope)

    def _date(self, value: Any) -> Any:
        from bson import DatetimeMS, Int64

        # The hook reads inner documents first: {"$numberLong": …} comes as the Int64 it made.
        # A bare number, which libbson reads as milliseconds, is refused: the BSON corpus calls
        # it a parse error (top.json, "Bad $date (number, not string or hash)"); one past 32
        # bits, an Int64 here too, is found in the text (``_BARE_DATE``).
        if isinstance(value, Int64):
            ms = int(value)
        elif isinstance(value, str):
            ms = self._iso_millis(value)
        else:
            raise BadInput(Message(N_("$date needs an ISO-8601 string or "
                                              "{{\"$numberLong\": …}}, not {value}"),
                                           value=repr(value)))
        if not -(2**63) <= ms < 2**63:
            raise BadInput(Message(N_("$date {ms} ms is out of range for a BSON Date"),
                                           ms=str(ms)))
        try:
            return _EPOCH + dt.timedelta(milliseconds=ms)
        except OverflowError:
            return DatetimeMS(ms)  # a valid Date beyond what datetime holds

    # The dates _bson_iso8601_date_parse reads: yyyy-mm-ddThh:mm, then :ss and one to three
    # digits of milliseconds if given, then Z, ±hhmm or ±hh:mm (a time zone it requires).
    _ISO = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})"
                      r"(?::([0-9]{2})(?:\.([0-9]{1,3}))?)?(?:Z|([+-])([0-9]{2}):?([0-9]{2}))")

    @classmethod
    def _iso_millis(cls, text: str) -> int:
        """The milliseconds since the epoch of an ISO-8601 date as libbson reads one; a day or
        time that does not exist (February 30th, 24:00, a 60th second: libbson's timegm moves
        them on to the next) is refused."""
        found = cls._ISO.fullmatch(text)
        if found is not None:
            year, month, day, hour, minute = (int(part) for part in found.group(1, 2, 3, 4, 5))
            second = int(found.group(6) or 0)
            millis = int((found.group(7) or "0").ljust(3, "0"))
            sign, zone_hours, zone_minutes = found.group(8, 9, 10)
            zone = (0, 0) if sign is None else (int(zone_hours), int(zone_minutes))
            offset = (-1 if sign == "-" else 1) * (zone[0] * 60 + zone[1])
            if 1 <= month <= 12 and 1 <= day <= _days_in(year, month) and hour <= 23 \
                    and minute <= 59 and second <= 59 and zone[0] <= 23 and zone[1] <= 59:
                days = _days_from_civil(year, month, day)
                return (((days * 24 + hour) * 60 + minute - offset) * 60 + second) * 1000 + millis
        raise BadInput(Message(N_(
            "$date {text} is not a date as Extended JSON writes one: yyyy-mm-ddThh:mm, then :ss "
            "and .mmm if given, then Z, ±hhmm or ±hh:mm, naming a day and time that exist"),
            text=repr(text[:40])))

    def _timestamp(self, value: Any) -> Any:
        from bson import Timestamp

        if not isinstance(value, dict) or set(value) != {"t", "i"} or not all(
                isinstance(value[k], int) and not isinstance(value[k], bool)
                and 0 <= value[k] < 2**32 for k in "ti"):
            raise BadInput(Message(N_("$timestamp needs {\"t\": seconds, \"i\": "
                                              "increment}, unsigned 32-bit integers")))
        return Timestamp(value["t"], value["i"])

    def _regular_expression(self, value: Any) -> Any:
        from bson import Regex

        if not isinstance(value, dict) or set(value) != {"pattern", "options"}:
            raise BadInput(Message(N_("$regularExpression needs {\"pattern\": …, "
                                              "\"options\": …}")))
        return Regex(self._cstring(self._text(value["pattern"], "pattern"), "pattern"),
                     self._cstring(self._text(value["options"], "options"), "options"))

    def _symbol(self, value: Any) -> Any:
        return self._text(value, "$symbol")

    def _min_key(self, value: Any) -> Any:
        from bson import MinKey

        if type(value) is not int or value != 1:  # not true, not 1.0 (the corpus: parse errors)
            raise BadInput(Message(N_("$minKey needs the value 1")))
        return MinKey()

    def _max_key(self, value: Any) -> Any:
        from bson import MaxKey

        if type(value) is not int or value != 1:
            raise BadInput(Message(N_("$maxKey needs the value 1")))
        return MaxKey()

    def _undefined(self, value: Any) -> Any:
        if value is not True:
            raise BadInput(Message(N_("$undefined needs the value true")))
        return UNDEFINED

    _SINGLE: ClassVar[dict[str, Callable[[_Decoder, Any], Any]]] = {
        "$oid": _oid, "$numberInt": _int, "$numberLong": _long, "$numberDouble": _double,
        "$numberDecimal": _decimal, "$uuid": _uuid, "$date": _date, "$timestamp": _timestamp,
        "$regularExpression": _regular_expression, "$symbol": _symbol, "$minKey": _min_key,
        "$maxKey": _max_key, "$undefined": _undefined,
    }


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _days_in(year: int, month: int) -> int:
    """The days of ``month`` in the proleptic Gregorian calendar (year 0 a leap year)."""
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date, year 0 included (datetime stops at
    year 1; libbson's timegm does not): H. Hinnant's days_from_civil."""
    year -= month <= 2
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    return era * 146_097 + of_era * 365 + of_era // 4 - of_era // 100 + of_year - 719_468
_SURROGATE = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")


def _json_int(text: str) -> int:
    """A JSON integer as Extended JSON's relaxed form reads it: an int32 where it fits, else
    an ``Int64`` (as a server stores it, and as the C reader gives it)."""
    check_integer_text(text, N_("the input"))
    number = int(text)
    if -(2**31) <= number < 2**31:
        return number
    if not -(2**63) <= number < 2**63:
        raise BadInput(Message(N_("the integer {text} does not fit in 64 bits"),
                                       text=text[:30]))
    from bson import Int64

    return Int64(number)


def _check_depth_and_text(value: Any, where: Text, strings: bool) -> None:
    """Refuse nesting beyond MongoDB's limit and (if ``strings``) text that is not UTF-8."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is dict:
            children = item.values()
            if strings:
                for name in item:
                    _utf8(name, where)
        elif kind is list:
            children = item
        else:
            if strings and isinstance(item, str):
                _utf8(item, where)
            continue
        if depth > MAX_DEPTH:
            raise BadInput(Message(N_("{where} is nested more than {depth} levels deep "
                                              "(MongoDB's limit)"), where=_named(where),
                                           depth=MAX_DEPTH))
        for child in children:
            if strings or type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))


def check_nesting(value: Any, where: Text) -> None:
    """Refuse a value from Python (a notebook's documents or filter) nested beyond MongoDB's
    100 levels, one that contains itself among them (never a RecursionError): the check files
    get when they are read."""
    _check_depth_and_text(value, where, strings=False)


def _utf8(text: str, where: Text) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise BadInput(Message(N_("{where} holds a lone surrogate U+{code:04X}, which is "
                                          "not valid UTF-8 (BSON strings are UTF-8)"),
                                       where=_named(where), code=ord(bad))) from None


def _json_float(text: str) -> float:
    """A JSON number with a fraction or an exponent as a double; one beyond a double's range is
    refused, as libbson refuses it (where Python's float makes it an infinity)."""
    number = float(text)
    if math.isinf(number):
        raise BadInput(Message(N_("the number {text} is beyond a double's range; write "
                                          "{{\"$numberDouble\": \"Infinity\"}} for infinity"),
                                       text=text[:40]))
    return number


def _json_constant(word: str) -> float:
    """NaN, Infinity and -Infinity written bare, which Python's json reads and JSON (RFC 8259,
    section 6) and libbson do not: refused, with the Extended JSON to write."""
    raise BadInput(Message(N_("{word} is not a JSON number; write "
                                      "{{\"$numberDouble\": \"{word}\"}}"), word=word))


# A "$date" whose value is a bare number (JSON's string escapes aside, the text of a field name
# "$date" followed by a colon: a string value is never followed by one).
_BARE_DATE = re.compile(r'"\$date"[ \t\n\r]*:[ \t\n\r]*(-?[0-9][0-9.eE+-]*)')


# A number literal that may be beyond a double's range: an exponent of three digits or more, or
# a run of 309 digits. Only a text holding one is read with the check (its cost, a call per
# number, is saved elsewhere).
_MAY_OVERFLOW = re.compile(r"[0-9][eE]\+?0*[1-9][0-9]{2}|[0-9]{309}")


def _loads(text: str, where: Text, query: bool = False, depth: bool = True) -> Any:
    try:
        bare = _BARE_DATE.search(text) if '"$date"' in text else None
        if bare is not None:
            raise BadInput(Message(N_("$date needs an ISO-8601 string or "
                                              "{{\"$numberLong\": …}}, not {value}"),
                                           value=bare.group(1)[:40]))
        value = json.loads(text, object_hook=_Decoder(query, nul="\\u0000" in text),
                           parse_int=_json_int, parse_constant=_json_constant,
                           parse_float=_json_float if _MAY_OVERFLOW.search(text) else float)
    except RecursionError:
        raise BadInput(Message(N_("{where} is nested too deeply to read (MongoDB "
                                          "allows {depth} levels)"), where=_named(where),
                                       depth=MAX_DEPTH)) from None
    except (ValueError, TypeError) as exc:  # BadInput is a ValueError: keep its message
        if isinstance(exc, BadInput):
            raise BadInput(Message("{where}: {problem}", where=_named(where),
                                           problem=exc.args[0])) from None
        raise BadInput(Message(N_("{where} is not Extended JSON: {error}"),
                                       where=_named(where), error=str(exc))) from None
    strings = ("\\u" in text or not text.isascii()) and bool(_SURROGATE.search(text))
    if strings or (depth and _might_be_deep(text)):
        _check_depth_and_text(value, where, strings)
    return value


def _might_be_deep(text: str) -> bool:
    """False when too few brackets to nest more than MAX_DEPTH levels (the common case)."""
    count = text.count("{") + text.count("[")
    return count > MAX_DEPTH


def parse(text: str, where: Text = N_("the input")) -> list[Document]:
    """Parse Extended JSON: an array of documents, or one document per line."""
    stripped = text.strip().lstrip("\ufeff").strip()
    # Lines are counted from the text's first line, blank lines before the documents included.
    first_line = 1 + text[:text.find(stripped[:1]) if stripped else 0].count("\n")
    del text  # a file's worth of memory, where stripping made a copy
    if not stripped:
        raise BadInput(Message(N_("{where} is empty: no documents"),
                                       where=_named(where)))
    docs: list[Document]
    if stripped.startswith("["):
        fast = _fastread.documents(stripped)
        docs = _loads(stripped, where) if fast is None else fast
        if not isinstance(docs, list):
            raise BadInput(Message(N_("{where}: expected an array of documents"),
                                           where=_named(where)))
    else:
        # The C path is handed the only copy of the array's text, which it frees while decoding.
        fast = _fastread.documents(_one_array(stripped))
        if fast is not None and len(fast) == stripped.count("\n") + 1:  # one per line
            return _only_documents(fast, where, stripped, first_line)
        del fast
        lines = [line for line in stripped.split("\n") if line.strip()]
        try:
            docs = _loads("[" + "\n,".join(lines) + "]", where, depth=False)
            if len(docs) != len(lines):  # a document ran over its line's end (as "[1" and
                # "2]" do), or a line held two: only reading each line says which
                raise BadInput(Message(N_("{where}: a document runs past the end of its "
                                                  "line, or a line holds more than one"),
                                               where=_named(where)))
            for doc, line in zip(docs, lines, strict=True):
                if _might_be_deep(line):
                    _check_depth_and_text(doc, where, strings=False)
        except BadInput:  # read again line by line, to say which line is wrong
            docs = [_loads(line, Message(N_("{where}, line {line:d}"),
                                                 where=_named(where), line=number))
                    for number, line in enumerate(stripped.split("\n"), start=first_line)
                    if line.strip()]
            raise
        return _only_documents(docs, where, stripped, first_line)
    return _only_documents(docs, where)


def _one_array(text: str) -> str:
    """Documents one per line as the text of one JSON array. A line ends at "\\n" only, as in
    JSON Lines: a U+2028 inside a string is part of it. Each "\\n" stays, followed by a comma:
    a string that runs over a line's end then holds a raw line break, which JSON refuses (with
    a comma in its place, ``{"a": "x`` and ``y"}`` were read as ``{"a": "x,y"}``). A blank line
    gives ",\\n," which no JSON reader takes, so the Python reader reads such a file, leaving
    blank lines out."""
    return "[" + text.replace("\n", "\n,") + "]"


def _only_documents(docs: list[Any], where: Text, lines: str | None = None,
                    first_line: int = 1) -> list[Document]:
    """``docs`` where every one is a document; else BadInput, naming the line of the first
    that is not where the documents came one per line (``lines``, from ``first_line``)."""
    if all(map(isinstance, docs, itertools.repeat(dict))):
        return docs
    if lines is not None:
        numbers = [n for n, line in enumerate(lines.split("\n"), start=first_line)
                   if line.strip()]
        at = next(i for i, doc in enumerate(docs) if not isinstance(doc, dict))
        if len(numbers) == len(docs):
            raise BadInput(Message(N_("{where}, line {line:d}: expected a document (an "
                                              "object in braces), not a value of type {type}"),
                                           where=_named(where), line=numbers[at],
                                           type=bson_type(docs[at])))
    raise BadInput(Message(N_("{where}: expected an array of documents, or one document "
                                      "per line"), where=_named(where)))


def parse_value(text: str, where: Text = N_("the filter")) -> Any:
    """Parse one Extended JSON value (a filter, an operand); ``$regex`` stays an operator."""
    if not text.strip():
        raise BadInput(Message(N_("{where} is empty"), where=_named(where)))
    return _loads(text, where, query=True)


def read(path: str | Path) -> list[Document]:
    """Read a fixture file (Extended JSON) into documents with their exact BSON types."""
    return parse(_text(read_bytes(path), path), str(path))  # no copy of the file kept here


def _text(data: bytes, path: str | Path) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadInput(Message(N_("{path} is not UTF-8 text (byte 0x{byte:02x} at "
                                          "offset {offset:,})"), path=str(path),
                                       byte=data[exc.start], offset=exc.start)) from None


def names() -> list[str]:
    """The collections in ``data/``."""
    return sorted(p.stem for p in DATA.glob("*.json"))


def load(name: str) -> list[Document]:
    """The documents of collection ``name`` from ``data/<name>.json``."""
    if name not in names():
        raise BadInput(Message(N_("no fixture {name}; known: {known}"), name=repr(name),
                                       known=", ".join(names())))
    return read(DATA / f"{name}.json")


def insert(database: Database[Any], name: str,
           docs: list[Document] | None = None) -> Collection[Any]:
    """Insert a fixture (or the given documents) as collection ``name``; return the collection."""
    collection = database[name]
    collection.insert_many(docs if docs is not None else load(name))
    return collection


def dumps(value: Any) -> str:
    """Relaxed Extended JSON, for printing ``_id`` values and documents."""
    from bson import json_util

    return json_util.dumps(_printable(value), json_options=json_util.RELAXED_JSON_OPTIONS)


def _printable(value: Any) -> Any:
    """Values json_util cannot write, as the Extended JSON that reads back to them."""
    from bson import Binary

    if value is UNDEFINED:
        return {"$undefined": True}
    if isinstance(value, uuid.UUID):
        return Binary.from_uuid(value)
    if isinstance(value, dict):
        return {name: _printable(item) for name, item in value.items()}
    if isinstance(value, list):
        return [_printable(item) for item in value]
    return value


def relaxed(value: Any) -> Any:
    """A value as plain JSON data in relaxed Extended JSON."""
    return json.loads(dumps(value))
