"""Conversions as ``$convert`` and ``$toString``, ``$toDouble``, ``$toDecimal``, ``$toInt``,
``$toLong`` and ``$toBool`` make them; a conversion MongoDB fails raises ConversionFailure."""

from __future__ import annotations

import datetime as dt
import decimal
import math
import re
from collections.abc import Callable
from typing import Any, cast

from bson import Decimal128, Int64

from labkit.errors import ConversionFailure, UnsupportedConversion
from labkit.i18n import N_, Message
from labkit.model.bson_order import MISSING, UNDEFINED, bson_type, millis

CONVERSION_OPERATORS = {"$toString": "string", "$toDouble": "double", "$toDecimal": "decimal",
                        "$toInt": "int", "$toLong": "long", "$toBool": "bool"}
_TARGETS = {"string", "double", "decimal", "int", "long", "bool"}
_TARGET_CODES = {1: "double", 2: "string", 8: "bool", 16: "int", 18: "long", 19: "decimal"}
# Possessive, so that a long run of digits is read once (see _fastread._NUMBER).
_NUMERIC_TEXT = re.compile(r"[+-]?(?:\d++(?:\.\d*+)?|\.\d++)(?:[eE][+-]?\d++)?")
_INTEGER_TEXT = re.compile(r"[+-]?\d+")

Number = int | float | decimal.Decimal


def as_number(value: Any) -> Number | None:
    """A number as a Python int, float or Decimal; None if it is not a number."""
    kind = type(value)
    if kind is int or kind is float:
        return cast(Number, value)
    if kind is Int64:
        return int(value)
    if kind is Decimal128:
        return cast(decimal.Decimal, value.to_decimal())
    return None


def truncated(number: Number) -> int | None:
    """A finite number truncated toward zero; None for NaN and the infinities."""
    if isinstance(number, decimal.Decimal):
        return int(number) if number.is_finite() else None
    if isinstance(number, float) and not math.isfinite(number):
        return None
    return int(number)


def whole(number: Number) -> int | None:
    """A number that is a whole number, as an int; None for a fraction, NaN, the infinities."""
    integer = truncated(number)
    return integer if integer is not None and integer == number else None


def conversion_target(to: Any) -> str:
    """The target type that ``$convert``'s ``to`` names (an alias or a type number)."""
    if isinstance(to, str) and to in _TARGETS:
        return to
    if isinstance(to, int) and not isinstance(to, bool) and to in _TARGET_CODES:
        return _TARGET_CODES[to]
    raise UnsupportedConversion(Message(N_("$convert: the model converts to {targets}; not "
                                           "{to}"),
                                        targets=", ".join(sorted(_TARGETS)), to=repr(to)))


def _fail(value: Any, target: str) -> ConversionFailure:
    return ConversionFailure(Message(N_(
        "cannot convert {type} {value} to {target} (MongoDB fails the whole query; $convert "
        "with onError avoids it)"), type=bson_type(value), value=repr(value), target=target))


def convert(value: Any, target: str) -> Any:
    """``value`` converted as ``$convert`` does to ``target``; null stays null."""
    if value is None or value is MISSING or value is UNDEFINED:
        return None
    kind = bson_type(value)
    return _CONVERTERS[target](value, kind)


def _to_double(value: Any, kind: str) -> float:
    if kind == "double":
        return float(value)
    if kind == "bool":
        return 1.0 if value else 0.0
    if kind in ("int", "long"):
        return float(int(value))
    if kind == "decimal":
        number = value.to_decimal()
        result = float(number)
        if math.isinf(result) and number.is_finite():
            raise _fail(value, "double")
        return result
    if kind == "date":
        return float(millis(value))
    if kind == "string":
        return float(_numeric_string(value, "double"))
    raise _fail(value, "double")


def _numeric_string(text: str, target: str) -> decimal.Decimal:
    if _NUMERIC_TEXT.fullmatch(text):
        return decimal.Decimal(text)
    if text.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
        raise UnsupportedConversion(Message(N_("the model does not say how MongoDB "
                                                       "converts {text} to {target}"),
                                                    text=repr(text), target=target))
    raise _fail(text, target)


def _to_decimal(value: Any, kind: str) -> Decimal128:
    if kind == "decimal":
        return cast(Decimal128, value)
    if kind == "bool":
        return Decimal128(str(int(value)))
    if kind in ("int", "long", "date"):
        return Decimal128(str(int(value) if kind != "date" else millis(value)))
    if kind == "double":
        if not math.isfinite(value):
            return Decimal128(str(value).replace("inf", "Infinity").replace("nan", "NaN"))
        return Decimal128(f"{value:.14e}")  # MongoDB keeps 15 significant digits
    if kind == "string":
        number = _numeric_string(value, "decimal")
        try:
            return Decimal128(number)
        except (ValueError, decimal.DecimalException):
            raise _fail(value, "decimal") from None
    raise _fail(value, "decimal")


def _to_string(value: Any, kind: str) -> str:
    if kind == "string":
        return str(value)
    if kind == "bool":
        return "true" if value else "false"
    if kind in ("int", "long"):
        return str(int(value))
    if kind == "decimal":
        return str(value)
    if kind == "objectId":
        return str(value)
    if kind == "double" and math.isfinite(value) and value == int(value) \
            and abs(value) < 2**53 and not (value == 0 and math.copysign(1, value) < 0):
        return str(int(value))
    if kind == "date":
        moment = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
        try:
            moment += dt.timedelta(milliseconds=millis(value))
        except OverflowError:
            raise UnsupportedConversion(Message(N_("the model does not format the "
                                                           "date {value}"), value=repr(value))) \
                from None
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    if kind in ("object", "array", "minKey", "maxKey", "javascriptWithScope"):
        raise _fail(value, "string")
    raise UnsupportedConversion(Message(N_("the model does not say how MongoDB writes "
                                                   "the {type} {value} as a string"), type=kind,
                                                value=repr(value)))


def _to_integer(bits: int, target: str) -> Callable[[Any, str], int | Int64]:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1)

    def run(value: Any, kind: str) -> int | Int64:
        if kind in ("bool", "int", "long"):
            number = int(value)
        elif kind in ("double", "decimal"):
            exact = value.to_decimal() if kind == "decimal" else value
            if exact != exact or exact in (math.inf, -math.inf) or (
                    isinstance(exact, decimal.Decimal) and not exact.is_finite()):
                raise _fail(value, target)
            number = int(exact)  # truncated toward zero
        elif kind == "string" and _INTEGER_TEXT.fullmatch(value):
            number = int(value)
        elif kind == "date" and target == "long":
            number = millis(value)
        else:
            raise _fail(value, target)
        if not low <= number < high:
            raise _fail(value, target)
        return number if target == "int" else Int64(number)
    return run


def _to_bool(value: Any, kind: str) -> bool:
    if kind == "bool":
        return bool(value)
    number = as_number(value)
    if number is not None:
        return number != 0
    return True


_CONVERTERS: dict[str, Callable[[Any, str], Any]] = {
    "double": _to_double, "decimal": _to_decimal, "string": _to_string,
    "int": _to_integer(32, "int"), "long": _to_integer(64, "long"), "bool": _to_bool,
}
