"""A query as a learner types it in mongosh's notation, read into the values pymongo takes:
``{userId: {$gt: 0}}``, ``[{$match: {v: {$type: "number"}}}]``, or a whole call,
``db.orders.find({userId: 42}).sort({_id: -1}).limit(2)``.

An object literal is read as JSON5 (unquoted keys, single quotes, trailing commas, comments,
``Infinity`` and ``NaN``), which is what JavaScript writes and the ``json5`` package reads;
mongosh's constructors in it (``NumberDecimal("42.00")``, ``ISODate("2026-10-01")``,
``ObjectId("…")``, a bare ``MinKey``) become the value mongosh makes (``claims._shell``'s
reading, as its Extended JSON, which the fixtures' reader turns into BSON values).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import json5

from labkit.claims._shell import mongosh_reading
from labkit.errors import Unreadable
from labkit.i18n import N_, Message
from labkit.model import fixtures

# The calls a learner's query may make, and the cursor methods that may follow find's.
OPERATIONS = ("find", "aggregate")
CURSOR_METHODS = ("sort", "skip", "limit")

_CALL_HEAD = re.compile(r"db\s*\.\s*(?P<collection>[A-Za-z_$][\w$]*)\s*\.\s*(?P<operation>\w+)"
                        r"\s*\(")
_METHOD_HEAD = re.compile(r"\s*\.\s*(?P<method>\w+)\s*\(")
_NAME = re.compile(r"(?:new\s+)?[A-Za-z_$][\w$]*")
_OPEN, _CLOSE = "([{", ")]}"
# A constructor's value stands in the JSON5 text as a string no learner types.
_STAND_IN = "\x00labkit-value-"


@dataclass
class Typed:
    """What the learner typed: a bare ``value`` (a filter, a sort, a pipeline), or a call on a
    collection (``operation``), its ``arguments`` and the cursor methods chained after it."""

    value: Any = None
    operation: str | None = None
    arguments: list[Any] = field(default_factory=list)
    chained: list[tuple[str, list[Any]]] = field(default_factory=list)


def read(text: str) -> Typed:
    """``text`` read as mongosh reads it; ``Unreadable`` says what could not be read."""
    stripped = text.strip().removesuffix(";").strip()
    head = _CALL_HEAD.match(stripped)
    if head is None:
        return Typed(value=_value(stripped))
    if head["operation"] not in OPERATIONS:
        raise Unreadable(Message(N_("{call} is not asked here: write a find or an aggregate"),
                                 call=f"db.{head['collection']}.{head['operation']}(…)"))
    end = _closing(stripped, head.end() - 1)
    typed = Typed(operation=head["operation"],
                  arguments=_value(f"[{stripped[head.end():end]}]"))
    rest = stripped[end + 1:]
    while rest.strip():
        method = _METHOD_HEAD.match(rest)
        if method is None or method["method"] not in CURSOR_METHODS \
                or typed.operation != "find":
            raise Unreadable(Message(N_("only .sort(), .skip() and .limit() may follow find(): "
                                        "{rest}"), rest=rest.strip()))
        end = _closing(rest, method.end() - 1)
        typed.chained.append((method["method"], _value(f"[{rest[method.end():end]}]")))
        rest = rest[end + 1:]
    return typed


def _in_string(char: str, quote: str, escaped: bool) -> tuple[str, bool]:
    """The quote still open, and whether the next character is escaped, after ``char``."""
    if escaped:
        return quote, False
    if char == "\\":
        return quote, True
    return ("" if char == quote else quote), False


def _closing(text: str, at: int) -> int:
    """Where the bracket opened at ``at`` closes, strings and nested brackets skipped."""
    depth, quote, escaped = 0, "", False
    for index in range(at, len(text)):
        char = text[index]
        if quote:
            quote, escaped = _in_string(char, quote, escaped)
            continue
        if char in "'\"":
            quote = char
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
            if depth == 0:
                return index
    raise Unreadable(Message(N_("a bracket opened here is never closed: {text}"),
                             text=text[at:at + 40]))


def _value(text: str) -> Any:
    """An object literal, array or scalar in mongosh's notation as a Python value."""
    values: list[Any] = []
    plain = _constructors(text, values)
    try:
        parsed = json5.loads(plain)
    except ValueError as exc:  # json5 says where: "<string>:1 Unexpected "}" at column 10"
        column = re.search(r"column (\d+)", str(exc))
        at = int(column[1]) - 1 if column else 0
        raise Unreadable(Message(N_("labkit could not read this as mongosh's notation: look "
                                    "near {near}"),
                                 near=repr(plain[max(at - 12, 0):at + 12]))) from exc
    return _restored(parsed, values)


def _constructors(text: str, values: list[Any]) -> str:
    """``text`` with each of mongosh's constructors outside a string (a call, ``NumberLong(5)``,
    or ``MinKey`` and ``MaxKey``, which mongosh takes bare) replaced by a stand-in string, its
    value kept in ``values``."""
    out: list[str] = []
    index, quote, escaped = 0, "", False
    while index < len(text):
        char = text[index]
        if quote:
            quote, escaped = _in_string(char, quote, escaped)
            out.append(char)
            index += 1
            continue
        name = _NAME.match(text, index) if char.isalpha() or char in "_$" else None
        if name is None:
            quote = char if char in "'\"" else ""
            out.append(char)
            index += 1
            continue
        end = _constructor_end(text, name)
        if end is None:  # a field name, true, Infinity: JSON5's to read
            out.append(name.group())
            index = name.end()
            continue
        values.append(_constructed(text[index:end]))
        out.append(f'"{_STAND_IN}{len(values) - 1}"')
        index = end
    return "".join(out)


def _constructor_end(text: str, name: re.Match[str]) -> int | None:
    """Where the constructor that begins with ``name`` ends: after its call's closing bracket,
    or after the name itself for a bare ``MinKey``; None where the name is no constructor."""
    after = name.end()
    while after < len(text) and text[after].isspace():
        after += 1
    if after < len(text) and text[after] == "(":
        return _closing(text, after) + 1
    if name.group().removeprefix("new").strip() in ("MinKey", "MaxKey") \
            and text[after:after + 1] != ":":
        return name.end()
    return None


def _constructed(call: str) -> Any:
    """The value mongosh makes of one constructor, read as the fixtures read Extended JSON."""
    ejson, note = mongosh_reading(call)
    if ejson is None:
        raise Unreadable(note or Message(N_("labkit cannot read {call}: give the constructor "
                                            "its value, as in {example}"),
                                         call=call, example='NumberDecimal("42.00")'))
    return fixtures.parse_value(ejson)


def _restored(value: Any, values: list[Any]) -> Any:
    """``value`` with each stand-in string put back as the constructor's value."""
    if isinstance(value, dict):
        return {key: _restored(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [_restored(item, values) for item in value]
    if isinstance(value, str) and value.startswith(_STAND_IN):
        return values[int(value.removeprefix(_STAND_IN))]
    return value
