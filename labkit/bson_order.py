"""An executable model of MongoDB's comparison rules: the BSON type order, sort keys, and
query matching with type bracketing.

Written from the manual's rules (Comparison/Sort Order, query operators, and
``$expr``); it predicts what a server returns, and the lessons put that
prediction beside the server's actual answer. Values are those ``pymongo``'s
``bson`` decodes: ``int`` (int32, or int64 when it does not fit), ``Int64``,
``float``, ``Decimal128``, ``str``, ``dict``, ``list``, ``Binary``/``uuid.UUID``,
``ObjectId``, ``bool``, ``datetime``, ``Timestamp``, ``Regex``/``re.Pattern``,
``Code``, ``MinKey``, ``MaxKey``, ``None``; ``MISSING`` stands for an absent field.
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import re
import uuid
from collections.abc import Iterable
from typing import Any

from .errors import BadInput


class _Missing:
    """An absent field (sorts and matches like null in queries; below null in ``$expr``)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


class _EmptyArray:
    """The sort key of an empty array: below null, above MinKey."""

    def __repr__(self) -> str:
        return "EMPTY_ARRAY"


EMPTY_ARRAY = _EmptyArray()

# Canonical ranks, lowest first, as the manual orders the types.
RANKS = {
    "minKey": 0, "undefined": 1, "null": 2, "number": 3, "string": 4, "object": 5,
    "array": 6, "binData": 7, "objectId": 8, "bool": 9, "date": 10, "timestamp": 11,
    "regex": 12, "javascript": 13, "javascriptWithScope": 14, "maxKey": 15,
}
LADDER = ["MinKey", "Null", "Numbers (int, long, double, decimal)", "Symbol, String", "Object",
          "Array", "BinData", "ObjectId", "Boolean", "Date", "Timestamp", "Regular Expression",
          "JavaScript", "JavaScript with scope", "MaxKey"]

_D = decimal.Context(prec=6200, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def bson_type(value: Any) -> str:
    """The ``$type`` alias of a value: double, string, object, array, binData, ... int, long."""
    from bson import Binary, Code, Decimal128, Int64, MaxKey, MinKey, ObjectId, Regex, Timestamp

    if value is MISSING:
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Int64):
        return "long"
    if isinstance(value, int):
        return "int" if -(2**31) <= value < 2**31 else "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, Decimal128):
        return "decimal"
    if isinstance(value, Code):  # before str: Code is a str
        return "javascriptWithScope" if value.scope is not None else "javascript"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, Binary | uuid.UUID | bytes):
        return "binData"
    if isinstance(value, ObjectId):
        return "objectId"
    if isinstance(value, dt.datetime):
        return "date"
    if isinstance(value, Timestamp):
        return "timestamp"
    if isinstance(value, Regex | re.Pattern):
        return "regex"
    if isinstance(value, MinKey):
        return "minKey"
    if isinstance(value, MaxKey):
        return "maxKey"
    raise BadInput(f"no BSON type for {value!r}")


_NUMBER_TYPES = {"int", "long", "double", "decimal"}


def rank(value: Any) -> int:
    """The canonical rank of a value's type (all numbers share one, as do symbol and string)."""
    if value is EMPTY_ARRAY or value is MISSING:
        return RANKS["undefined"]
    kind = bson_type(value)
    return RANKS["number" if kind in _NUMBER_TYPES else kind]


def _number(value: Any) -> decimal.Decimal:
    from bson import Decimal128

    if isinstance(value, Decimal128):
        return value.to_decimal()
    return decimal.Decimal(value)  # exact for int and float


def is_nan(value: Any) -> bool:
    """True for a double or decimal NaN."""
    return rank(value) == RANKS["number"] and _number(value).is_nan()


def _sign(x) -> int:
    return (x > 0) - (x < 0)


def _cmp_numbers(a: Any, b: Any) -> int:
    x, y = _number(a), _number(b)
    if x.is_nan() or y.is_nan():  # NaN is below every other number and equal to itself
        return 0 if x.is_nan() and y.is_nan() else (-1 if x.is_nan() else 1)
    return _sign(_D.compare(x, y))


def _binary_parts(value: Any) -> tuple[int, int, bytes]:
    if isinstance(value, uuid.UUID):
        return 16, 4, value.bytes
    if isinstance(value, bytes) and not hasattr(value, "subtype"):
        return len(value), 0, value
    return len(value), value.subtype, bytes(value)


def _items(value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return list(value.items())
    return [(str(i), v) for i, v in enumerate(value)]


def _cmp_elements(a: list[tuple[str, Any]], b: list[tuple[str, Any]], names: bool) -> int:
    """Element by element: type rank, then field name (objects), then value; shorter first."""
    for (name_a, value_a), (name_b, value_b) in zip(a, b, strict=False):
        step = _sign(rank(value_a) - rank(value_b))
        if not step and names:
            step = _sign((name_a.encode() > name_b.encode()) - (name_a.encode() < name_b.encode()))
        if not step:
            step = compare(value_a, value_b)
        if step:
            return step
    return _sign(len(a) - len(b))


def _bytes_cmp(a: bytes, b: bytes) -> int:
    return (a > b) - (a < b)


def compare(a: Any, b: Any) -> int:
    """Compare two BSON values in MongoDB's total order: -1, 0 or 1 (no collation)."""
    by_rank = _sign(rank(a) - rank(b))
    if by_rank:
        return by_rank
    kind = rank(a)
    if kind in (RANKS["minKey"], RANKS["maxKey"], RANKS["null"], RANKS["undefined"]):
        return 0
    if kind == RANKS["number"]:
        return _cmp_numbers(a, b)
    if kind == RANKS["string"]:
        return _bytes_cmp(a.encode(), b.encode())
    if kind == RANKS["object"]:
        return _cmp_elements(_items(a), _items(b), names=True)
    if kind == RANKS["array"]:
        return _cmp_elements(_items(a), _items(b), names=False)
    if kind == RANKS["binData"]:
        return _tuple_cmp(_binary_parts(a), _binary_parts(b))  # length, subtype, bytes
    if kind == RANKS["objectId"]:
        return _bytes_cmp(a.binary, b.binary)
    if kind == RANKS["bool"]:
        return _sign(int(a) - int(b))
    if kind == RANKS["date"]:
        return _sign(_millis(a) - _millis(b))
    if kind == RANKS["timestamp"]:
        return _tuple_cmp((a.time, a.inc), (b.time, b.inc))
    if kind == RANKS["regex"]:
        return _tuple_cmp(_regex_parts(a), _regex_parts(b))
    if kind == RANKS["javascript"]:
        return _bytes_cmp(str(a).encode(), str(b).encode())
    # JavaScript with scope: code first, then the scope document.
    return _bytes_cmp(str(a).encode(), str(b).encode()) or compare(dict(a.scope), dict(b.scope))


def _tuple_cmp(a: tuple, b: tuple) -> int:
    return (a > b) - (a < b)


def _millis(value: dt.datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    delta = value - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _regex_parts(value: Any) -> tuple[bytes, bytes]:
    from bson import Regex

    if isinstance(value, re.Pattern):
        value = Regex.from_native(value)
    flags = value.flags if isinstance(value.flags, str) else ""
    return value.pattern.encode(), "".join(sorted(flags)).encode()


sort_cmp = functools.cmp_to_key(compare)


# Paths --------------------------------------------------------------------------------


def values_at(doc: dict, path: str) -> list[Any]:
    """The values a dotted path reaches, descending into arrays of documents; [] if none."""
    found: list[Any] = []

    def walk(value: Any, parts: list[str]) -> None:
        if not parts:
            found.append(value)
            return
        head, rest = parts[0], parts[1:]
        if isinstance(value, dict):
            if head in value:
                walk(value[head], rest)
        elif isinstance(value, list):
            if head.isdigit() and int(head) < len(value):
                walk(value[int(head)], rest)
            for item in value:
                if isinstance(item, dict) and head in item:
                    walk(item[head], rest)

    walk(doc, path.split("."))
    return found


# Sorting ------------------------------------------------------------------------------


def sort_key(doc: dict, path: str, descending: bool = False) -> Any:
    """The value a document sorts by: arrays by their smallest (largest if descending) element.

    A missing field sorts as null; an empty array below null.
    """
    candidates: list[Any] = []
    for value in values_at(doc, path):
        if isinstance(value, list):
            candidates.extend(value if value else [EMPTY_ARRAY])
        else:
            candidates.append(value)
    if not candidates:
        return None
    pick = max if descending else min
    return pick(candidates, key=sort_cmp)


def parse_sort(spec: str | dict | list) -> list[tuple[str, int]]:
    """``"v:1,_id:-1"``, ``{"v": 1}`` or ``[("v", 1)]`` into ``[(path, 1 or -1)]``."""
    if isinstance(spec, str):
        pairs = []
        for part in spec.split(","):
            path, _, direction = part.strip().rpartition(":")
            pairs.append((path, direction))
    else:
        pairs = list(spec.items()) if isinstance(spec, dict) else list(spec)
    out = []
    for path, direction in pairs:
        try:
            value = int(direction)
        except (TypeError, ValueError):
            value = 0
        if not path or value not in (1, -1):
            raise BadInput(f"sort {spec!r}: each part is path:1 or path:-1")
        out.append((path, value))
    return out


def sort(docs: Iterable[dict], spec) -> list[dict]:
    """The documents in the order ``find().sort(spec)`` returns them (stable for ties)."""
    keys = parse_sort(spec)

    def order(a: dict, b: dict) -> int:
        for path, direction in keys:
            step = compare(sort_key(a, path, direction < 0), sort_key(b, path, direction < 0))
            if step:
                return step * direction
        return 0

    return sorted(docs, key=functools.cmp_to_key(order))


# Query matching -----------------------------------------------------------------------

_COMPARISONS = {"$eq", "$gt", "$gte", "$lt", "$lte"}
_TYPE_CODES = {
    1: "double", 2: "string", 3: "object", 4: "array", 5: "binData", 6: "undefined",
    7: "objectId", 8: "bool", 9: "date", 10: "null", 11: "regex", 13: "javascript",
    14: "symbol", 15: "javascriptWithScope", 16: "int", 17: "timestamp", 18: "long",
    19: "decimal", -1: "minKey", 127: "maxKey",
}


def _is_regex(value: Any) -> bool:
    from bson import Regex

    return isinstance(value, Regex | re.Pattern)


def _regex_search(pattern: Any, value: Any) -> bool:
    if not isinstance(value, str):
        return False
    from bson import Regex

    native = pattern if isinstance(pattern, re.Pattern) else Regex(
        pattern.pattern, pattern.flags).try_compile()
    return native.search(value) is not None


def _candidates(doc: dict, path: str) -> list[Any]:
    """What a query operator looks at: each value, each element of an array value, the array."""
    values = values_at(doc, path)
    if not values:
        return [MISSING]
    out: list[Any] = []
    for value in values:
        if isinstance(value, list):
            out.extend(value)
        out.append(value)
    return out


def _bracketed(op: str, candidate: Any, operand: Any) -> bool:
    """One comparison with type bracketing: different brackets never match."""
    if operand is None:  # null matches null and missing, for $eq, $gte and $lte only
        return op in ("$eq", "$gte", "$lte") and (candidate is None or candidate is MISSING)
    if candidate is MISSING:
        return False
    if rank(operand) in (RANKS["minKey"], RANKS["maxKey"]):
        step = compare(candidate, operand)  # MinKey and MaxKey compare with every type
    elif rank(candidate) != rank(operand):
        return False
    else:
        if is_nan(operand) or is_nan(candidate):
            both = is_nan(operand) and is_nan(candidate)
            return both and op in ("$eq", "$gte", "$lte")
        step = compare(candidate, operand)
    return {"$eq": step == 0, "$gt": step > 0, "$gte": step >= 0, "$lt": step < 0,
            "$lte": step <= 0}[op]


def _eq(candidates: list[Any], operand: Any) -> bool:
    if _is_regex(operand):
        return any(_regex_search(operand, c) for c in candidates) or any(
            _is_regex(c) and compare(c, operand) == 0 for c in candidates)
    return any(_bracketed("$eq", c, operand) for c in candidates)


def _type_matches(value: Any, wanted: Any) -> bool:
    names = wanted if isinstance(wanted, list) else [wanted]
    kind = "missing" if value is MISSING else bson_type(value)
    for name in names:
        name = _TYPE_CODES.get(name, name) if isinstance(name, int) else name
        if name == kind or (name == "number" and kind in _NUMBER_TYPES):
            return True
    return False


def _operator(op: str, operand: Any, doc: dict, path: str) -> bool:
    candidates = _candidates(doc, path)
    if op == "$eq":
        return _eq(candidates, operand)
    if op in _COMPARISONS:
        return any(_bracketed(op, c, operand) for c in candidates)
    if op == "$ne":
        return not _eq(candidates, operand)
    if op == "$in":
        return any(_eq(candidates, item) for item in _array_operand(op, operand))
    if op == "$nin":
        return not any(_eq(candidates, item) for item in _array_operand(op, operand))
    if op == "$exists":
        return (candidates != [MISSING]) == bool(operand)
    if op == "$type":
        values = values_at(doc, path)
        return any(_type_matches(v, operand) or (isinstance(v, list) and any(
            _type_matches(item, operand) for item in v)) for v in values)
    if op == "$not":
        return not _field_matches(doc, path, operand)
    raise BadInput(f"the model does not know the query operator {op}")


def _array_operand(op: str, operand: Any) -> list:
    if not isinstance(operand, list):
        raise BadInput(f"{op} needs an array")
    return operand


def _field_matches(doc: dict, path: str, condition: Any) -> bool:
    if isinstance(condition, dict) and condition and all(k.startswith("$") for k in condition):
        return all(_operator(op, operand, doc, path) for op, operand in condition.items())
    return _operator("$eq", condition, doc, path)


def matches(doc: dict, query: dict) -> bool:
    """Whether ``find(query)`` returns ``doc``, by the documented rules."""
    if not isinstance(query, dict):
        raise BadInput("a filter is a document")
    for key, condition in query.items():
        if key == "$and":
            ok = all(matches(doc, q) for q in condition)
        elif key == "$or":
            ok = any(matches(doc, q) for q in condition)
        elif key == "$nor":
            ok = not any(matches(doc, q) for q in condition)
        elif key == "$expr":
            ok = _truthy(evaluate(condition, doc))
        elif key.startswith("$"):
            raise BadInput(f"the model does not know the top-level operator {key}")
        else:
            ok = _field_matches(doc, key, condition)
        if not ok:
            return False
    return True


def find(docs: Iterable[dict], query: dict) -> list[dict]:
    """The documents ``find(query)`` returns, in their stored order."""
    return [doc for doc in docs if matches(doc, query)]


# Aggregation expressions ($expr) ------------------------------------------------------


def _field(doc: dict, path: str) -> Any:
    values = values_at(doc, path)
    if not values:
        return MISSING
    return values[0] if len(values) == 1 else values


def evaluate(expression: Any, doc: dict) -> Any:
    """Evaluate a comparison expression: ``$eq $ne $gt $gte $lt $lte $cmp $and $or $not``.

    Comparisons use the full BSON order (no type bracketing); a missing field
    compares below null.
    """
    if isinstance(expression, str) and expression.startswith("$"):
        return _field(doc, expression[1:])
    if isinstance(expression, list):
        return [evaluate(item, doc) for item in expression]
    if not isinstance(expression, dict) or len(expression) != 1:
        return expression
    (op, args), = expression.items()
    if not op.startswith("$"):
        return {k: evaluate(v, doc) for k, v in expression.items()}
    if op == "$literal":
        return args
    values = [evaluate(a, doc) for a in (args if isinstance(args, list) else [args])]
    if op in ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$cmp"):
        left, right = values
        step = compare(left, right)
        return {"$eq": step == 0, "$ne": step != 0, "$gt": step > 0, "$gte": step >= 0,
                "$lt": step < 0, "$lte": step <= 0, "$cmp": step}[op]
    if op == "$and":
        return all(_truthy(v) for v in values)
    if op == "$or":
        return any(_truthy(v) for v in values)
    if op == "$not":
        return not _truthy(values[0])
    raise BadInput(f"the model does not know the expression operator {op}")


def _truthy(value: Any) -> bool:
    if value is None or value is MISSING or value is False:
        return False
    if rank(value) == RANKS["number"]:
        return _number(value) != 0
    return True


def census(docs: Iterable[dict], path: str) -> dict[str, int]:
    """What ``$group`` by ``{$type: "$path"}`` counts: type alias -> documents."""
    counts: dict[str, int] = {}
    for doc in docs:
        value = _field(doc, path)
        kind = "missing" if value is MISSING else bson_type(value)
        counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


def ids(docs: Iterable[dict]) -> list[Any]:
    """The ``_id`` of each document, in order."""
    return [doc.get("_id") for doc in docs]
