"""mongosh's notation in a claim file (``NumberDecimal("42.00")``, ``ISODate("…")``), which YAML
reads as a plain string: found, and refused with the Extended JSON that makes the value mongosh
makes.

A claim file's values are Extended JSON. A value copied from mongosh, ``userId:
NumberDecimal("42.00")``, is to YAML an unquoted (plain) string, so the claim would silently
store and query the text ``NumberDecimal("42.00")``. Every plain scalar in a claim file's data
that reads as one of mongosh's constructors is refused; a quoted scalar (``'ObjectId("x")'``)
stays the string it spells, as its author asked for quotes. The constructors and what each
makes are mongosh's (mongodb-js/mongosh, packages/shell-bson/src/shell-bson.ts at commit
1d526cc8ddf30b55c8ed928f3909c753eb3aaf21); ``new Date(…)`` and ``Date(…)`` are JavaScript's
(ECMA-262, Date Time String Format: a date alone is UTC, a date and time without an offset is
local time; ``Date()`` called without ``new`` returns the current time as a string).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from labkit.i18n import N_, Message
from labkit.model import regex

if TYPE_CHECKING:
    import yaml

# mongosh's shell-bson helpers and the BSON classes it exposes by name, then JavaScript's Date.
_NAMES = ("ObjectId", "ISODate", "Date", "NumberLong", "NumberInt", "NumberDecimal", "UUID",
          "Timestamp", "MinKey", "MaxKey", "BinData", "HexData", "MD5", "Code", "DBRef",
          "Decimal128", "Int32", "Long", "Double", "Binary", "BSONRegExp", "BSONSymbol")
_NAME = "|".join(_NAMES)
_CALL = re.compile(rf"(?P<new>new\s+)?(?P<name>{_NAME})\s*\((?P<args>.*)\)\s*;?", re.S)
# A call a comma cut in two: in a flow mapping, {ts: Timestamp(1, 2)} is {ts: "Timestamp(1",
# "2)": null} to YAML.
_CUT = re.compile(rf"(?P<new>new\s+)?(?P<name>{_NAME})\s*\((?P<args>[^)]*)", re.S)
_BARE = re.compile(r"(?:new\s+)?(?P<name>MinKey|MaxKey)", re.S)  # mongosh accepts them bare
# A JavaScript regular expression literal, as every page of the manual writes a pattern:
# /pattern/flags (ECMA-262, RegularExpressionLiteral; no unescaped / or line break inside).
_REGEX = re.compile(r"/(?P<pattern>(?:\\.|[^/\\\n])+)/(?P<flags>[a-z]*)")

# What to write instead, where the text does not say the value (ObjectId() is a new one).
_TEMPLATES = {
    "ObjectId": '{"$oid": "<24 hex digits>"}',
    "ISODate": '{"$date": "<YYYY-MM-DDTHH:MM:SSZ>"}',
    "Date": '{"$date": "<YYYY-MM-DDTHH:MM:SSZ>"}',
    "NumberLong": '{"$numberLong": "<digits>"}', "Long": '{"$numberLong": "<digits>"}',
    "NumberInt": '{"$numberInt": "<digits>"}', "Int32": '{"$numberInt": "<digits>"}',
    "NumberDecimal": '{"$numberDecimal": "<digits>"}',
    "Decimal128": '{"$numberDecimal": "<digits>"}',
    "Double": '{"$numberDouble": "<number>"}',
    "UUID": '{"$uuid": "<8-4-4-4-12 hex digits>"}',
    "Timestamp": '{"$timestamp": {"t": <seconds>, "i": <increment>}}',
    "MinKey": '{"$minKey": 1}', "MaxKey": '{"$maxKey": 1}',
    "BinData": '{"$binary": {"base64": "<base64>", "subType": "<hex>"}}',
    "HexData": '{"$binary": {"base64": "<base64>", "subType": "<hex>"}}',
    "Binary": '{"$binary": {"base64": "<base64>", "subType": "<hex>"}}',
    "MD5": '{"$binary": {"base64": "<base64>", "subType": "05"}}',
    "Code": '{"$code": "<source>"}',
    "DBRef": '{"$ref": "<collection>", "$id": <id>}',
    "BSONRegExp": '{"$regularExpression": {"pattern": "<pattern>", "options": "<flags>"}}',
    "BSONSymbol": '{"$symbol": "<text>"}',
}
# mongosh's ISODate: the forms it accepts (shell-bson.ts, isoDateRegex), then read as UTC
# where no offset is given.
_ISODATE = re.compile(
    r"(?P<Y>\d{4})-?(?P<M>\d{2})-?(?P<D>\d{2})([T ](?P<h>\d{2})(:?(?P<m>\d{2})(:?((?P<s>\d{2})"
    r"(\.(?P<ms>\d+))?))?)?(?P<tz>Z|([+-])(\d{2}):?(\d{2})?)?)?")
# ECMA-262's Date Time String Format, the one format new Date(text) must read.
_ES_DATE = re.compile(r"(?P<date>[+-]\d{6}|\d{4})(-\d{2}(-\d{2})?)?"
                      r"(?P<time>T\d{2}:\d{2}(:\d{2}(\.\d{3})?)?)?(?P<tz>Z|[+-]\d{2}:\d{2})?")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_INT64 = 2**63
_EXACT_DOUBLE = 2**53


@dataclass(frozen=True)
class Notation:
    """A plain scalar in mongosh's notation: where it is, its text, and what to write."""

    line: int
    text: str
    problem: Message


def find_notation(node: yaml.Node | None) -> Notation | None:
    """The first plain scalar in mongosh's notation under ``node``, or None. Each node is
    looked at once, however many aliases repeat it."""
    import yaml

    seen: set[int] = set()
    stack = [node] if node is not None else []
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, yaml.ScalarNode):
            if item.style in (None, "") and item.tag == "tag:yaml.org,2002:str":
                problem = notation_problem(str(item.value))
                if problem is not None:
                    return Notation(int(item.start_mark.line) + 1, str(item.value), problem)
        elif isinstance(item, yaml.SequenceNode):
            stack += reversed(item.value)
        elif isinstance(item, yaml.MappingNode):
            stack += reversed([value for _key, value in item.value])
    return None


def notation_problem(text: str) -> Message | None:
    """Why the plain text ``text`` cannot stand in a claim file, or None where it is no shell
    notation: what it is, and the Extended JSON to write instead."""
    stripped = text.strip()
    bare = _BARE.fullmatch(stripped)
    call = _CALL.fullmatch(stripped)
    literal = _REGEX.fullmatch(stripped)
    if literal:
        return _regex_refusal(stripped, literal["pattern"], literal["flags"])
    if stripped == "undefined":  # mongosh keeps it BSON's undefined (deprecated, type 6)
        return _refusal(stripped, "undefined", _ejson({"$undefined": True}), None)
    if bare:
        return _refusal(stripped, bare["name"], _exact(bare["name"], []), None)
    if call:
        suggestion, note = _suggest(call["name"], bool(call["new"]), _arguments(call["args"]))
        return _refusal(stripped, call["name"], suggestion, note)
    cut = _CUT.fullmatch(stripped)
    if cut:
        return Message(N_("{text} starts mongosh's notation {name}(…), which YAML cut at a "
                          "comma into two values; a claim file holds Extended JSON: write "
                          "{ejson} instead"), text=stripped, name=cut["name"],
                       ejson=_TEMPLATES[cut["name"]])
    return None


# A constructor call anywhere in a line: what a flow mapping YAML cannot parse may hold, as in
# {b: BinData(0, "MC==")}, whose quoted argument after a plain "BinData(0" ends the parse.
_CALL_IN_LINE = re.compile(rf"(?:new\s+)?(?:{_NAME})\s*\([^()\n]*\)")


def notation_in_line(line: str) -> Message | None:
    """The refusal of the first mongosh constructor call in ``line`` (a line YAML could not
    parse), or None where the line holds none."""
    found = _CALL_IN_LINE.search(line)
    return notation_problem(found.group(0)) if found else None


def call_in_line(line: str) -> str | None:
    """The first mongosh constructor call in ``line`` (``ObjectId("…")``), or None."""
    found = _CALL_IN_LINE.search(line)
    return found.group(0) if found else None


def mongosh_ejson(text: str) -> str | None:
    """The Extended JSON of the value mongosh makes of ``text`` (a constructor call such as
    ``NumberLong(5)``), or None where it is no call or its text does not settle the value."""
    return mongosh_reading(text)[0]


def mongosh_reading(text: str) -> tuple[str | None, Message | None]:
    """``mongosh_ejson``, with the note that says why where the text does not settle the
    value (``ObjectId()`` makes a new one each time)."""
    stripped = text.strip()
    bare = _BARE.fullmatch(stripped)
    if bare:
        return _exact(bare["name"], []), None
    call = _CALL.fullmatch(stripped)
    if call:
        return _suggest(call["name"], bool(call["new"]), _arguments(call["args"]))
    return None, None


def _regex_refusal(text: str, pattern: str, flags: str) -> Message:
    """A ``/…/flags`` literal: YAML reads it as a string, which would match only that text.
    The refusal gives the regular expression it is, in Extended JSON (its options sorted, as
    the format writes them), and says which flags MongoDB has no use for."""
    kept = "".join(sorted(set(flags) & set(regex.FLAGS)))  # the flags MongoDB's $regex takes
    ejson = _ejson({"$regularExpression": {"pattern": pattern.replace("\\/", "/"),
                                           "options": kept}})
    dropped = "".join(sorted(set(flags) - set(regex.FLAGS)))
    note = (Message(N_("MongoDB's $regex has no flag {flags}: left out"), flags=dropped)
            if dropped else None)
    quoted = "'" + text.replace("'", "''") + "'"
    problem = Message(N_("{text} is a regular expression as mongosh writes one, not Extended "
                         "JSON: unquoted, YAML reads it as that text, which matches only "
                         "itself. Write {ejson}, or quote it, {quoted}, to mean the text"),
                      text=text, ejson=ejson, quoted=quoted)
    return problem if note is None else Message("{problem} ({note})", problem=problem,
                                                note=note)


def _refusal(text: str, name: str, ejson: str | None, note: Message | None) -> Message:
    """The refusal: what mongosh makes of ``text`` (``ejson``), else the form to fill in."""
    quoted = "'" + text.replace("'", "''") + "'"
    if ejson is not None:
        problem = Message(N_("{text} is mongosh's notation, not Extended JSON: unquoted, YAML "
                             "reads it as that text. Write {ejson}, the value mongosh makes, "
                             "or quote it, {quoted}, to mean the text"), text=text, ejson=ejson,
                          quoted=quoted)
    else:
        problem = Message(N_("{text} is mongosh's notation, not Extended JSON: unquoted, YAML "
                             "reads it as that text. Write the value in Extended JSON, "
                             "{ejson}, or quote it, {quoted}, to mean the text"), text=text,
                          ejson=_TEMPLATES[name], quoted=quoted)
    if note is None:
        return problem
    return Message("{problem} ({note})", problem=problem, note=note)


# The arguments, as JavaScript literals -------------------------------------------------

_STRING = re.compile(r"\"([^\"\\]*)\"|'([^'\\]*)'")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


@dataclass(frozen=True)
class _Literal:
    """One argument: a string's text, or a number as written (``text``) and its value."""

    kind: str  # "string", "number", or "other" (an expression the text cannot settle)
    text: str


def _arguments(text: str) -> list[_Literal]:
    """The call's arguments, split at commas outside quotes; ``[]`` for none."""
    parts, current, quote = [], "", ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ",":
            parts.append(current)
            current = ""
            continue
        current += char
    parts.append(current)
    if len(parts) == 1 and not parts[0].strip():
        return []
    literals = []
    for part in (p.strip() for p in parts):
        string = _STRING.fullmatch(part)
        if string:
            literals.append(_Literal("string", string[1] if string[1] is not None else string[2]))
        elif _NUMBER.fullmatch(part):
            literals.append(_Literal("number", part))
        else:
            literals.append(_Literal("other", part))
    return literals


def _ejson(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _is_integer_text(text: str) -> bool:
    return re.fullmatch(r"[+-]?\d+", text) is not None


def _js_number_text(value: float) -> str:
    """JavaScript's ``String(x)`` of a double (ECMA-262, Number::toString): the shortest digits
    that read back as ``x``, in fixed notation from 1e-7 up to 1e21, else with an exponent."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits_tuple = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(d) for d in digits_tuple.digits)
    exponent = int(digits_tuple.exponent)
    k = len(digits)
    n = exponent + k  # where the decimal point falls after the first digit
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


# What each constructor makes, as Extended JSON ------------------------------------------


def _suggest(name: str, new: bool, args: list[_Literal]) -> tuple[str | None, Message | None]:
    """The Extended JSON of what ``name(args)`` makes in mongosh, and a note; ``(None, note)``
    where the text does not settle the value (the template is written then)."""
    if name == "Date":
        return _date(new, args)
    if name == "ISODate":
        return _isodate(args)
    if name == "NumberLong":
        return _number_long(args)
    if name == "NumberInt":
        return _number_int(args)
    if name == "NumberDecimal":
        return _number_decimal(args)
    if name in ("Long", "Int32", "Decimal128", "Double"):
        made = _bson_class(name, args)
        if made is not None:
            return made
    fresh = {"ObjectId": N_("ObjectId() makes a new ObjectId each time it runs"),
             "UUID": N_("UUID() makes a new random UUID each time it runs")}
    if name in fresh and not args:
        return None, Message(fresh[name])
    return _exact(name, args), None


def _bson_class(name: str, args: list[_Literal]) -> tuple[str | None, Message | None] | None:
    """mongosh 2.x's BSON classes, as the current manual writes them: ``Long(5)``,
    ``Int32(5)``, ``Double(24.0)``, ``Decimal128("26")``. Where the text settles the value as
    the older helper's does (one whole number, a number, a string of digits), that value;
    else None, and the template is written."""
    if len(args) != 1 or args[0].kind == "other":
        return None
    arg = args[0]
    if name == "Long" and _is_integer_text(arg.text) and abs(int(arg.text)) < 2**31:
        return _number_long(args)
    if name == "Int32" and arg.kind == "number" and _is_integer_text(arg.text):
        return _number_int(args)
    if name == "Decimal128" and arg.kind == "string":
        return _number_decimal(args)
    if name == "Double" and arg.kind == "number":
        return _ejson({"$numberDouble": repr(float(arg.text))}), None
    return None


def _exact(name: str, args: list[_Literal]) -> str | None:
    """The Extended JSON of the constructors whose arguments say the value outright."""
    if name in ("MinKey", "MaxKey"):
        return _ejson({f"${name[0].lower()}{name[1:]}": 1}) if not args else None
    make = _EXACT.get(name)
    return make([a.kind for a in args], args) if make else None


def _object_id(kinds: list[str], args: list[_Literal]) -> str | None:
    if kinds == ["string"] and re.fullmatch(r"[0-9a-fA-F]{24}", args[0].text):
        return _ejson({"$oid": args[0].text.lower()})
    return None


def _uuid(kinds: list[str], args: list[_Literal]) -> str | None:
    hexdigits = args[0].text.replace("-", "").lower() if kinds == ["string"] else ""
    if re.fullmatch(r"[0-9a-f]{32}", hexdigits):  # mongosh strips the dashes
        h = hexdigits
        return _ejson({"$uuid": f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"})
    return None


def _timestamp(kinds: list[str], args: list[_Literal]) -> str | None:
    # mongosh takes (t, i), the legacy shell's order, and i defaults to 0 (MONGOSH-930)
    if kinds in (["number"], ["number", "number"]) and all(
            _is_integer_text(a.text) and 0 <= int(a.text) < 2**32 for a in args):
        increment = int(args[1].text) if len(args) == 2 else 0
        return _ejson({"$timestamp": {"t": int(args[0].text), "i": increment}})
    return None


def _subtype_and_data(kinds: list[str], args: list[_Literal], hexadecimal: bool
                      ) -> str | None:
    if kinds == ["number", "string"] and _is_integer_text(args[0].text) and \
            0 <= int(args[0].text) <= 255:
        data = _bytes(args[1].text, hexadecimal)
        return _binary(data, int(args[0].text)) if data is not None else None
    return None


def _md5(kinds: list[str], args: list[_Literal]) -> str | None:
    data = _bytes(args[0].text, hexadecimal=True) if kinds == ["string"] else None
    return _binary(data, 5) if data is not None else None


def _code(kinds: list[str], args: list[_Literal]) -> str | None:
    return _ejson({"$code": args[0].text}) if kinds == ["string"] else None


# The constructors whose literal arguments say the value outright.
_EXACT = {"ObjectId": _object_id, "UUID": _uuid, "Timestamp": _timestamp,
          "BinData": lambda k, a: _subtype_and_data(k, a, hexadecimal=False),
          "HexData": lambda k, a: _subtype_and_data(k, a, hexadecimal=True),
          "MD5": _md5, "Code": _code}


def _bytes(text: str, hexadecimal: bool) -> bytes | None:
    try:
        return bytes.fromhex(text) if hexadecimal else base64.b64decode(text, validate=True)
    except (ValueError, binascii.Error):
        return None


def _binary(data: bytes, subtype: int) -> str:
    return _ejson({"$binary": {"base64": base64.b64encode(data).decode("ascii"),
                               "subType": f"{subtype:02x}"}})


def _date_ejson(moment: dt.datetime) -> str:
    """``{"$date": "…Z"}`` from 1970 to 9999 (relaxed Extended JSON), else the milliseconds."""
    delta = moment - _EPOCH
    millis = (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
    if 1970 <= moment.astimezone(dt.UTC).year <= 9999:
        utc = moment.astimezone(dt.UTC)
        text = utc.strftime("%Y-%m-%dT%H:%M:%S")
        if utc.microsecond:
            text += f".{utc.microsecond // 1000:03d}"
        return _ejson({"$date": text + "Z"})
    return _ejson({"$date": {"$numberLong": str(millis)}})


def _millis_date(text: str) -> str | None:
    if not _is_integer_text(text) or abs(int(text)) > 8.64e15:  # a JavaScript Date's range
        return None
    return _ejson({"$date": {"$numberLong": str(int(text))}})


def _isodate(args: list[_Literal]) -> tuple[str | None, Message | None]:
    if not args:
        return None, Message(N_("ISODate() is the moment it runs"))
    if len(args) != 1:
        return None, None
    if args[0].kind == "number":
        return _millis_date(args[0].text), None
    if args[0].kind != "string":
        return None, None
    form = _ISODATE.fullmatch(args[0].text)
    if form is None:
        return None, Message(N_("mongosh refuses it too: not a valid ISODate"))
    ms, tz = form["ms"], form["tz"] or "Z"
    if (ms is not None and len(ms) != 3) or not re.fullmatch(r"Z|[+-]\d{2}:\d{2}", tz):
        return None, None  # forms whose reading in JavaScript this text does not settle
    try:
        moment = dt.datetime.fromisoformat(
            f"{form['Y']}-{form['M']}-{form['D']}T{form['h'] or '00'}:{form['m'] or '00'}:"
            f"{form['s'] or '00'}.{ms or '000'}{'+00:00' if tz == 'Z' else tz}")
    except ValueError:
        return None, None
    return _date_ejson(moment), None


def _date(new: bool, args: list[_Literal]) -> tuple[str | None, Message | None]:
    if not new:
        return None, Message(N_("Date(…) without new gives the current time as a string"))
    if not args:
        return None, Message(N_("new Date() is the moment it runs"))
    if len(args) != 1:
        return None, Message(N_("new Date with several numbers reads them in the shell's "
                                "local time zone"))
    if args[0].kind == "number":
        return _millis_date(args[0].text), None
    form = _ES_DATE.fullmatch(args[0].text) if args[0].kind == "string" else None
    if form is None:
        return None, None
    if form["time"] and not form["tz"]:
        return None, Message(N_("new Date reads a date and time without an offset in the "
                                "shell's local time zone; add Z for UTC, or the offset you "
                                "mean"))
    text = args[0].text
    if not form["time"]:  # a date alone is UTC midnight; its missing parts are 01
        text = (text + "-01-01")[:10] if len(text) < 10 else text
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None, None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return _date_ejson(moment), None


def _number_long(args: list[_Literal]) -> tuple[str | None, Message | None]:
    if not args:
        return _ejson({"$numberLong": "0"}), None
    if len(args) != 1 or not _is_integer_text(args[0].text) or args[0].kind == "other":
        return None, None
    value = int(args[0].text)
    if not -_INT64 <= value < _INT64:
        return None, Message(N_("beyond a 64-bit integer"))
    written = _ejson({"$numberLong": str(value)})
    if args[0].kind == "number" and abs(value) > _EXACT_DOUBLE:
        # Long.fromNumber of the double the number literal is
        return _ejson({"$numberLong": str(int(float(value)))}), Message(
            N_("a number argument is a double first; for the digits as written, write "
               "{ejson}"), ejson=written)
    return written, None


def _number_int(args: list[_Literal]) -> tuple[str | None, Message | None]:
    if not args:
        return _ejson({"$numberInt": "0"}), None
    if len(args) != 1 or args[0].kind == "other":
        return None, None
    # mongosh: Int32(parseInt(`${v}`, 10)); parseInt keeps the leading whole number
    text = _js_number_text(float(args[0].text)) if args[0].kind == "number" else args[0].text
    whole = re.match(r"\s*([+-]?\d+)", text)
    if whole is None or not -(2**31) <= int(whole[1]) < 2**31:
        return None, None
    value = int(whole[1])
    note = None if text.strip() == whole[1] else Message(
        N_("mongosh keeps the whole number at its start: {value}"), value=str(value))
    return _ejson({"$numberInt": str(value)}), note


def _number_decimal(args: list[_Literal]) -> tuple[str | None, Message | None]:
    from bson import Decimal128

    if not args:
        return _ejson({"$numberDecimal": "0"}), None
    if len(args) != 1 or args[0].kind == "other":
        return None, None
    if args[0].kind == "number":
        # Decimal128.fromString(`${s}`): the double's shortest digits, as JavaScript writes them
        written = args[0].text.lstrip("+")
        stored = _js_number_text(float(written))
        try:
            Decimal128(stored)
        except (ValueError, ArithmeticError):
            return None, None
        note = None if stored == written else Message(
            N_("a number argument is a double first; for the digits as written, write "
               "{ejson}"), ejson=_ejson({"$numberDecimal": written}))
        return _ejson({"$numberDecimal": stored}), note
    try:
        Decimal128(args[0].text)
    except (ValueError, ArithmeticError):
        return None, None
    return _ejson({"$numberDecimal": args[0].text}), None
