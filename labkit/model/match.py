"""Query filters and aggregation expressions for the model, compiled once and then applied
to each document; a filter MongoDB would reject is rejected while compiling."""

from __future__ import annotations

import datetime as dt
import decimal
import math
import re
from collections.abc import Callable
from typing import Any

from bson import Decimal128, Int64, Regex

from labkit.errors import BadInput
from labkit.model.bson_order import (
    MISSING,
    NUMBER_TYPES,
    UNDEFINED,
    bson_type,
    compare,
    key,
    millis,
    regex_flags,
)

MAX_DEPTH = 100  # MongoDB's limit on the nesting of a filter (and of a BSON document)

Test = Callable[[dict], bool]
Values = list[Any]

TYPE_CODES = {
    1: "double", 2: "string", 3: "object", 4: "array", 5: "binData", 6: "undefined",
    7: "objectId", 8: "bool", 9: "date", 10: "null", 11: "regex", 12: "dbPointer",
    13: "javascript", 14: "symbol", 15: "javascriptWithScope", 16: "int", 17: "timestamp",
    18: "long", 19: "decimal", -1: "minKey", 127: "maxKey",
}
TYPE_NAMES = set(TYPE_CODES.values()) | {"number"}
_LOGICAL = {"$and", "$or", "$nor"}
_OBJECT_LEVEL = _LOGICAL | {"$expr", "$where", "$text", "$comment", "$jsonSchema"}


class _Whole:
    """An array reached by a positional path (``a.0``): one value, not expanded."""

    __slots__ = ("array",)

    def __init__(self, array: list) -> None:
        self.array = array


# Query paths --------------------------------------------------------------------------------


def _walk(value: Any, parts: tuple[str, ...], i: int, v9: bool, out: Values) -> None:
    """Append what ``parts[i:]`` reaches from ``value``; MISSING where MongoDB sees null."""
    n = len(parts)
    while i < n:
        if isinstance(value, dict):
            head = parts[i]
            if head not in value:
                out.append(MISSING)
                return
            value = value[head]
            i += 1
        elif type(value) is list:
            head = parts[i]
            if head.isdigit():
                _positional(value, parts, i, v9, out)
                return
            if not value and v9:
                out.append(MISSING)
            for element in value:
                if isinstance(element, dict):
                    _walk(element, parts, i, v9, out)
                elif v9:  # 9.0: a scalar or array element has a null subfield
                    out.append(MISSING)
            return
        else:
            out.append(MISSING)
            return
    out.append(value)


def _positional(array: list, parts: tuple[str, ...], i: int, v9: bool, out: Values) -> None:
    head, found = parts[i], False
    index = int(head)
    if index < len(array):
        found = True
        if i + 1 == len(parts):
            element = array[index]
            out.append(_Whole(element) if type(element) is list else element)
        else:
            _walk(array[index], parts, i + 1, v9, out)
    for element in array:  # documents in the array may hold a field of that name
        if isinstance(element, dict) and head in element:
            found = True
            _walk(element[head], parts, i + 1, v9, out)
    if not found:
        out.append(MISSING)


def _path_reader(path: str, v9: bool) -> Callable[[dict], Values]:
    parts = tuple(path.split("."))
    if len(parts) == 1:
        def read_one(doc: dict) -> Values:
            return [doc.get(path, MISSING)]
        return read_one

    def read(doc: dict) -> Values:
        out: Values = []
        _walk(doc, parts, 0, v9, out)
        return out
    return read


def _expand(values: Values) -> Values:
    """Leaf arrays stand for themselves and for each of their elements."""
    out: Values = []
    for value in values:
        if type(value) is list:
            out.append(value)
            out.extend(value)
        elif type(value) is _Whole:
            out.append(value.array)
        else:
            out.append(value)
    return out


def _arrays(values: Values) -> list[list]:
    out = []
    for value in values:
        if type(value) is list:
            out.append(value)
        elif type(value) is _Whole:
            out.append(value.array)
    return out


# Comparisons with type bracketing ------------------------------------------------------------

_OPS = {
    "$eq": lambda s: s == 0, "$gt": lambda s: s > 0, "$gte": lambda s: s >= 0,
    "$lt": lambda s: s < 0, "$lte": lambda s: s <= 0,
}


def _comparison(op: str, operand: Any) -> Callable[[Values], bool]:
    """``{$eq|$gt|…: operand}`` on the candidates: only values in the operand's bracket."""
    if operand is UNDEFINED:
        raise BadInput(f"{op}: cannot compare to undefined")
    if operand is None:
        if op in ("$gt", "$lt"):
            return lambda candidates: False
        return lambda candidates: any(c is None or c is MISSING for c in candidates)
    wanted = key(operand)
    rank = wanted[0]
    test = _OPS[op]
    if rank in (0, 15):  # MinKey and MaxKey compare with every type
        def across(candidates: Values) -> bool:
            for c in candidates:
                if c is not MISSING:
                    k = key(c)
                    if test((k > wanted) - (k < wanted)):
                        return True
            return False
        return across
    nan_ok = op in ("$eq", "$gte", "$lte")

    def bracketed(candidates: Values) -> bool:
        for c in candidates:
            if c is MISSING:
                continue
            k = key(c)
            if k[0] != rank:
                continue
            if k == (3, 0) or wanted == (3, 0):  # NaN only meets NaN
                if k == wanted and nan_ok:
                    return True
                continue
            if test((k > wanted) - (k < wanted)):
                return True
        return False
    return bracketed


_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE, "u": 0}


def _regex(pattern: Any, options: str | None = None) -> Callable[[Any], bool]:
    """A test of one value against a regular expression, as ``$regex`` applies it."""
    if isinstance(pattern, Regex | re.Pattern):
        if options is not None and regex_flags(pattern):
            raise BadInput("$regex: options given both in the regex and in $options")
        source = pattern.pattern
        if not isinstance(source, str):
            raise BadInput("$regex needs a text pattern")
        flags = options if options is not None else regex_flags(pattern)
    elif isinstance(pattern, str):
        source, flags = pattern, options or ""
    else:
        raise BadInput("$regex needs a string or a regular expression")
    if not isinstance(flags, str):
        raise BadInput("$options needs a string")
    bad = sorted(set(flags) - set(_FLAGS))
    if bad:
        raise BadInput(f"$regex: invalid flag {bad[0]!r} in the options")
    if "\x00" in source:
        raise BadInput("$regex: a regular expression cannot contain a NUL character")
    bits = 0
    for flag in flags:
        bits |= _FLAGS[flag]
    try:
        compiled = re.compile(source, bits)
    except (re.error, RecursionError, OverflowError) as exc:
        raise BadInput(f"$regex: invalid regular expression {source!r}: {exc}") from None
    as_value = key(Regex(source, "".join(sorted(flags))))

    def test(value: Any) -> bool:
        if type(value) is str:
            return compiled.search(value) is not None
        if isinstance(value, Regex | re.Pattern):
            return key(value) == as_value
        return False
    return test


def _is_regex(value: Any) -> bool:
    return isinstance(value, Regex | re.Pattern)


def _equality(item: Any) -> Callable[[Values], bool]:
    """What an element of ``$in``/``$all`` or an implicit equality tests."""
    if _is_regex(item):
        test = _regex(item)
        return lambda candidates: any(test(c) for c in candidates)
    return _comparison("$eq", item)


def _type_test(wanted: Any) -> Callable[[Any], bool]:
    names = wanted if isinstance(wanted, list) else [wanted]
    if not names:
        raise BadInput("$type must name at least one type")
    kinds = set()
    for name in names:
        if isinstance(name, bool) or not isinstance(name, int | float | Int64 | Decimal128 | str):
            raise BadInput(f"$type: {name!r} is not a type name or number")
        if not isinstance(name, str):
            number = name.to_decimal() if isinstance(name, Decimal128) else name
            if number != number or number != int(number) or int(number) not in TYPE_CODES:
                raise BadInput(f"$type: {name!r} is not a BSON type number")
            name = TYPE_CODES[int(number)]
        elif name not in TYPE_NAMES:
            raise BadInput(f"$type: unknown type name {name!r}")
        kinds.add(name)
    if "number" in kinds:
        kinds |= NUMBER_TYPES
    return lambda value: value is not MISSING and bson_type(value) in kinds


def _number(value: Any) -> Any:
    """A number as a Python int, float or Decimal; None if it is not a number."""
    kind = type(value)
    if kind is int or kind is float:
        return value
    if kind is Int64:
        return int(value)
    if kind is Decimal128:
        return value.to_decimal()
    return None


def _mod_test(operand: Any) -> Callable[[Any], bool]:
    if not isinstance(operand, list) or len(operand) != 2:
        raise BadInput("$mod needs an array of two numbers: [divisor, remainder]")
    numbers = [_number(x) for x in operand]
    if any(x is None or isinstance(x, bool) for x in numbers):
        raise BadInput("$mod needs an array of two numbers: [divisor, remainder]")
    if any(not math.isfinite(x) if not isinstance(x, decimal.Decimal) else not x.is_finite()
           for x in numbers):
        raise BadInput("$mod: the divisor and remainder must be finite numbers")
    divisor, remainder = (int(x) for x in numbers)  # both truncated toward zero
    if divisor == 0:
        raise BadInput("$mod: the divisor cannot be 0")

    def test(value: Any) -> bool:
        number = _number(value) if type(value) is not bool else None
        if number is None:
            return False
        if isinstance(number, decimal.Decimal):
            if not number.is_finite():
                return False
        elif isinstance(number, float) and not math.isfinite(number):
            return False
        whole = int(number)
        left = abs(whole) % abs(divisor)  # C's remainder: the sign follows the dividend
        return (-left if whole < 0 else left) == remainder
    return test


def _size_test(operand: Any) -> Callable[[list], bool]:
    number = _number(operand) if not isinstance(operand, bool) else None
    if number is None:
        raise BadInput("$size needs a number")
    if number != number or number != int(number):
        raise BadInput("$size needs a whole number")
    if number < 0:
        raise BadInput("$size may not be negative")
    size = int(number)
    return lambda array: len(array) == size


# Compiling a filter ---------------------------------------------------------------------------


def _depth(depth: int) -> int:
    if depth > MAX_DEPTH:
        raise BadInput(f"the filter is nested more than {MAX_DEPTH} levels deep "
                       "(MongoDB's limit)")
    return depth + 1


def compile_filter(query: Any, version: str, depth: int = 0) -> Test:
    """A function telling whether a document matches ``query``; BadInput if MongoDB would
    refuse the filter."""
    depth = _depth(depth)
    if not isinstance(query, dict):
        raise BadInput("a filter is a document")
    tests: list[Test] = []
    for name, condition in query.items():
        if not isinstance(name, str):
            raise BadInput("a filter's field names are strings")
        if name in _LOGICAL:
            tests.append(_logical(name, condition, version, depth))
        elif name == "$expr":
            expression = compile_expression(condition, depth)
            tests.append(lambda doc, e=expression: truthy(e(doc)))
        elif name == "$comment":
            continue
        elif name.startswith("$"):
            raise BadInput(f"the model does not know the top-level operator {name}")
        else:
            tests.append(_field_test(name, condition, version, depth))
    if len(tests) == 1:
        return tests[0]
    return lambda doc: all(test(doc) for test in tests)


def _logical(name: str, clauses: Any, version: str, depth: int) -> Test:
    if not isinstance(clauses, list) or not clauses:
        raise BadInput(f"{name} needs a non-empty array of filter documents")
    if not all(isinstance(clause, dict) for clause in clauses):
        raise BadInput(f"{name} needs a non-empty array of filter documents")
    tests = [compile_filter(clause, version, depth) for clause in clauses]
    if name == "$and":
        return lambda doc: all(test(doc) for test in tests)
    if name == "$or":
        return lambda doc: any(test(doc) for test in tests)
    return lambda doc: not any(test(doc) for test in tests)


def _is_operator_object(condition: Any) -> bool:
    if not isinstance(condition, dict) or not condition:
        return False
    first = next(iter(condition))
    return isinstance(first, str) and first.startswith("$") and first not in (
        "$ref", "$id", "$db")


def _field_test(path: str, condition: Any, version: str, depth: int) -> Test:
    read = _path_reader(path, version == "9.0")
    check = _condition(condition, version, depth)
    return lambda doc: check(read(doc))


def _condition(condition: Any, version: str, depth: int) -> Callable[[Values], bool]:
    """A test on the values a path reaches: an operator object, a regex or an equality."""
    if _is_regex(condition):
        test = _regex(condition)
        return lambda values: any(test(c) for c in _expand(values))
    if not _is_operator_object(condition):
        eq = _comparison("$eq", condition)
        return lambda values: eq(_expand(values))
    tests = _operators(condition, version, depth)
    if len(tests) == 1:
        return tests[0]
    return lambda values: all(test(values) for test in tests)


def _operators(condition: dict, version: str, depth: int) -> list[Callable[[Values], bool]]:
    tests: list[Callable[[Values], bool]] = []
    if "$options" in condition and "$regex" not in condition:
        raise BadInput("$options needs a $regex beside it")
    for op, operand in condition.items():
        if not isinstance(op, str) or not op.startswith("$"):
            raise BadInput(f"unknown operator {op!r}: a condition mixes operators and fields")
        if op == "$options":
            continue
        if op == "$regex":
            test = _regex(operand, condition.get("$options"))
            tests.append(lambda values, t=test: any(t(c) for c in _expand(values)))
        else:
            tests.append(_operator(op, operand, version, depth))
    return tests


def _operator(op: str, operand: Any, version: str, depth: int) -> Callable[[Values], bool]:
    if op in _OPS:
        comparison = _comparison(op, operand)
        return lambda values: comparison(_expand(values))
    if op == "$ne":
        comparison = _comparison("$eq", operand)
        return lambda values: not comparison(_expand(values))
    if op in ("$in", "$nin"):
        inside = _in_test(op, operand)
        if op == "$in":
            return lambda values: inside(_expand(values))
        return lambda values: not inside(_expand(values))
    if op == "$exists":
        wanted = truthy(operand)
        return lambda values: any(v is not MISSING for v in values) == wanted
    if op == "$type":
        type_test = _type_test(operand)
        return lambda values: any(type_test(c) for c in _expand(values))
    if op == "$not":
        return _not(operand, version, depth)
    if op == "$elemMatch":
        element_test = _elem_match(operand, version, depth)
        return lambda values: any(any(element_test(e) for e in array)
                                  for array in _arrays(values))
    if op == "$size":
        size_test = _size_test(operand)
        return lambda values: any(size_test(array) for array in _arrays(values))
    if op == "$all":
        return _all(operand, version, depth)
    if op == "$mod":
        mod_test = _mod_test(operand)
        return lambda values: any(mod_test(c) for c in _expand(values))
    raise BadInput(f"the model does not know the query operator {op}")


def _in_test(op: str, operand: Any) -> Callable[[Values], bool]:
    if not isinstance(operand, list):
        raise BadInput(f"{op} needs an array")
    for item in operand:
        if _is_operator_object(item):
            raise BadInput(f"{op}: cannot nest an operator ({next(iter(item))}) inside {op}")
    tests = [_equality(item) for item in operand]
    return lambda candidates: any(test(candidates) for test in tests)


def _not(operand: Any, version: str, depth: int) -> Callable[[Values], bool]:
    if _is_regex(operand):
        test = _regex(operand)
        return lambda values: not any(test(c) for c in _expand(values))
    if not isinstance(operand, dict):
        raise BadInput("$not needs a regex or a document of operators")
    if not operand:
        raise BadInput("$not cannot be empty")
    if not _is_operator_object(operand):
        raise BadInput("$not needs a document of operators, such as {\"$gt\": 5}")
    tests = _operators(operand, version, _depth(depth))
    return lambda values: not all(test(values) for test in tests)


def _elem_match(operand: Any, version: str, depth: int) -> Callable[[Any], bool]:
    """A test of one array element: a filter on a document, or operators on a value."""
    if not isinstance(operand, dict):
        raise BadInput("$elemMatch needs a document")
    first = next(iter(operand), None)
    if first is not None and first.startswith("$") and first not in _OBJECT_LEVEL:
        tests = _operators(operand, version, _depth(depth))
        # Each element is one value: an array element is not expanded again.
        return lambda element: all(test([_Whole(element)] if type(element) is list
                                        else [element]) for test in tests)
    sub = compile_filter(operand, version, depth)

    def on_document(element: Any) -> bool:
        if isinstance(element, dict):
            return sub(element)
        if type(element) is list:  # an array element is a document with fields "0", "1", …
            return sub({str(i): item for i, item in enumerate(element)})
        return False
    return on_document


def _all(operand: Any, version: str, depth: int) -> Callable[[Values], bool]:
    if not isinstance(operand, list):
        raise BadInput("$all needs an array")
    if not operand:
        return lambda values: False
    elem_matches = [isinstance(item, dict) and next(iter(item), None) == "$elemMatch"
                    for item in operand]
    if any(elem_matches) and not all(elem_matches):
        raise BadInput("$all: either every element is an $elemMatch or none is")
    if all(elem_matches):
        tests = [_operator("$elemMatch", item["$elemMatch"], version, depth)
                 for item in operand]
        return lambda values: all(test(values) for test in tests)
    for item in operand:
        if _is_operator_object(item):
            raise BadInput(f"$all: cannot nest an operator ({next(iter(item))}) inside $all")
    equalities = [_equality(item) for item in operand]
    return lambda values: all(test(_expand(values)) for test in equalities)


# Aggregation expressions ($expr) --------------------------------------------------------------


def field_path(doc: Any, path: str) -> Any:
    """What ``"$path"`` evaluates to: through arrays, the array of what each element holds."""
    return _aggregate_get(doc, tuple(path.split(".")), 0)


def _aggregate_get(value: Any, parts: tuple[str, ...], i: int) -> Any:
    while i < len(parts):
        if isinstance(value, dict):
            if parts[i] not in value:
                return MISSING
            value = value[parts[i]]
            i += 1
        elif type(value) is list:
            out = []
            for element in value:
                if isinstance(element, dict) or type(element) is list:
                    found = _aggregate_get(element, parts, i)
                    if found is not MISSING:
                        out.append(found)
            return out
        else:
            return MISSING
    return value


def truthy(value: Any) -> bool:
    """How ``$expr`` and ``$and``/``$or``/``$not`` read a value as true or false."""
    if value is None or value is MISSING or value is UNDEFINED or value is False:
        return False
    number = _number(value)
    return number is None or number != 0


Expression = Callable[[dict], Any]


def compile_expression(expression: Any, depth: int = 0) -> Expression:
    """A function evaluating an aggregation expression on one document."""
    depth = _depth(depth)
    if isinstance(expression, str) and expression.startswith("$"):
        return _field_expression(expression)
    if isinstance(expression, list):
        items = [compile_expression(item, depth) for item in expression]
        return lambda doc: [item(doc) for item in items]
    if isinstance(expression, dict) and expression:
        names = list(expression)
        if any(isinstance(name, str) and name.startswith("$") for name in names):
            if len(names) != 1:
                raise BadInput("an expression object with an operator holds exactly one field, "
                               f"not {', '.join(map(str, names))}")
            return _expression_operator(names[0], expression[names[0]], depth)
        fields = {name: compile_expression(value, depth) for name, value in expression.items()}

        def build(doc: dict) -> dict:
            out = {}
            for name, field in fields.items():
                value = field(doc)
                if value is not MISSING:
                    out[name] = value
            return out
        return build
    return lambda doc: expression


def _field_expression(text: str) -> Expression:
    if text.startswith("$$"):
        variable, _, rest = text[2:].partition(".")
        if variable not in ("ROOT", "CURRENT"):
            raise BadInput(f"the model does not know the variable $${variable}")
        if not rest:
            return lambda doc: doc
        text = "$" + rest
    parts = tuple(text[1:].split("."))
    if any(not part or part.startswith("$") for part in parts):
        raise BadInput(f"{text!r} is not a valid field path")
    return lambda doc: _aggregate_get(doc, parts, 0)


def _arguments(op: str, args: Any, depth: int, count: int | None = None,
               at_least: int | None = None) -> list[Expression]:
    items = args if isinstance(args, list) else [args]
    if count is not None and len(items) != count:
        raise BadInput(f"expression {op} takes exactly {count} argument"
                       f"{'s' if count != 1 else ''}; {len(items)} were given")
    if at_least is not None and len(items) < at_least:
        raise BadInput(f"expression {op} needs at least {at_least} arguments")
    return [compile_expression(item, depth) for item in items]


def _expression_operator(op: str, args: Any, depth: int) -> Expression:
    if op == "$literal":
        return lambda doc: args
    if op in ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$cmp"):
        left, right = _arguments(op, args, depth, count=2)
        test = _OPS.get(op)

        def comparison(doc: dict) -> Any:
            step = compare(left(doc), right(doc))
            if op == "$cmp":
                return step
            return step != 0 if op == "$ne" else test(step)
        return comparison
    if op in ("$and", "$or"):
        items = _arguments(op, args, depth)
        if op == "$and":
            return lambda doc: all(truthy(item(doc)) for item in items)
        return lambda doc: any(truthy(item(doc)) for item in items)
    if op == "$not":
        (item,) = _arguments(op, args, depth, count=1)
        return lambda doc: not truthy(item(doc))
    if op == "$in":
        needle, haystack = _arguments(op, args, depth, count=2)
        return lambda doc: _expression_in(needle(doc), haystack(doc))
    if op == "$type":
        (item,) = _arguments(op, args, depth, count=1)
        return lambda doc: bson_type(item(doc))
    if op == "$isNumber":
        (item,) = _arguments(op, args, depth, count=1)
        return lambda doc: bson_type(item(doc)) in NUMBER_TYPES
    if op == "$ifNull":
        items = _arguments(op, args, depth, at_least=2)
        return lambda doc: _if_null(items, doc)
    if op in _CONVERSIONS:
        (item,) = _arguments(op, args, depth, count=1)
        target = _CONVERSIONS[op]
        return lambda doc: convert(item(doc), target)
    if op == "$convert":
        return _convert_expression(args, depth)
    raise BadInput(f"the model does not know the expression operator {op}")


def _expression_in(needle: Any, haystack: Any) -> bool:
    if type(haystack) is not list:
        raise BadInput("$in needs an array as its second argument, found "
                       f"{bson_type(haystack)} (MongoDB fails the whole query)")
    wanted = key(needle)
    return any(key(item) == wanted for item in haystack)


def _if_null(items: list[Expression], doc: dict) -> Any:
    for item in items[:-1]:
        value = item(doc)
        if value is not None and value is not MISSING and value is not UNDEFINED:
            return value
    return items[-1](doc)


# Conversions ($toString, $toDouble, $toDecimal, $convert) -------------------------------------

_CONVERSIONS = {"$toString": "string", "$toDouble": "double", "$toDecimal": "decimal",
                "$toInt": "int", "$toLong": "long", "$toBool": "bool"}
_CONVERT_TARGETS = {"string", "double", "decimal", "int", "long", "bool"}
_TARGET_CODES = {1: "double", 2: "string", 8: "bool", 16: "int", 18: "long", 19: "decimal"}
_NUMERIC_TEXT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_INTEGER_TEXT = re.compile(r"[+-]?\d+")


class ConversionFailure(BadInput):
    """A conversion MongoDB fails (the whole query fails unless ``onError`` is given)."""


class _Unsupported(BadInput):
    """A conversion whose exact result the model cannot say (it would guess, so it refuses)."""


def _target(to: Any) -> str:
    if isinstance(to, str) and to in _CONVERT_TARGETS:
        return to
    if isinstance(to, int) and not isinstance(to, bool) and to in _TARGET_CODES:
        return _TARGET_CODES[to]
    raise BadInput(f"$convert: the model converts to {', '.join(sorted(_CONVERT_TARGETS))}; "
                   f"not {to!r}")


def _convert_expression(args: Any, depth: int) -> Expression:
    if not isinstance(args, dict) or "input" not in args or "to" not in args:
        raise BadInput("$convert needs a document with 'input' and 'to'")
    unknown = sorted(set(args) - {"input", "to", "onError", "onNull"})
    if unknown:
        raise BadInput(f"$convert: unknown field {unknown[0]!r}")
    source = compile_expression(args["input"], depth)
    to = compile_expression(args["to"], depth)
    on_error = compile_expression(args["onError"], depth) if "onError" in args else None
    on_null = compile_expression(args["onNull"], depth) if "onNull" in args else None

    def run(doc: dict) -> Any:
        target = _target(to(doc))
        value = source(doc)
        if value is None or value is MISSING or value is UNDEFINED:
            return on_null(doc) if on_null is not None else None
        try:
            return convert(value, target)
        except ConversionFailure:
            if on_error is None:
                raise
            return on_error(doc)
    return run


def _fail(value: Any, target: str) -> ConversionFailure:
    return ConversionFailure(f"cannot convert {bson_type(value)} {value!r} to {target} "
                             "(MongoDB fails the whole query; $convert with onError avoids it)")


def convert(value: Any, target: str) -> Any:
    """``value`` converted as ``$convert`` does to ``target``; null stays null."""
    if value is None or value is MISSING or value is UNDEFINED:
        return None
    kind = bson_type(value)
    return _CONVERTERS[target](value, kind)


def _to_double(value: Any, kind: str) -> float:
    if kind == "double":
        return value
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
        raise _Unsupported(f"the model does not say how MongoDB converts {text!r} to {target}")
    raise _fail(text, target)


def _to_decimal(value: Any, kind: str) -> Decimal128:
    if kind == "decimal":
        return value
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
        return value
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
            raise _Unsupported(f"the model does not format the date {value!r}") from None
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    if kind in ("object", "array", "minKey", "maxKey", "javascriptWithScope"):
        raise _fail(value, "string")
    raise _Unsupported(f"the model does not say how MongoDB writes the {kind} {value!r} "
                       "as a string")


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
        return value
    number = _number(value)
    if number is not None:
        return number != 0
    return True


_CONVERTERS: dict[str, Callable[[Any, str], Any]] = {
    "double": _to_double, "decimal": _to_decimal, "string": _to_string,
    "int": _to_integer(32, "int"), "long": _to_integer(64, "long"), "bool": _to_bool,
}
