"""Query filters as ``find`` applies them, with type bracketing, compiled once and then applied
to each document; a filter MongoDB would reject is rejected while compiling."""

from __future__ import annotations

import difflib
import operator
import re
from collections.abc import Callable
from typing import Any

from bson import Decimal128, Int64, Regex

from labkit.errors import BadInput, ModelLimit
from labkit.i18n import N_, Message
from labkit.model.bson_order import (
    MISSING,
    NUMBER_TYPES,
    TYPE_RANKS,
    UNDEFINED,
    Document,
    SortKey,
    bson_type,
    key,
)
from labkit.model.collation import Strings, collation_strings
from labkit.model.convert import Number, as_number, truncated
from labkit.model.expr import (
    SIGN_TESTS,
    Expression,
    collating,
    compile_expression,
    deeper,
    strings_in_force,
    truthy,
)
from labkit.model.regex import compile_regex, regex_source
from labkit.model.versions import null_matches_undefined

Test = Callable[[Document], bool]  # whether a document matches
Values = list[Any]  # the values a path reaches in one document
ValuesTest = Callable[[Values], bool]

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

    def __init__(self, array: list[Any]) -> None:
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


def _positional(array: list[Any], parts: tuple[str, ...], i: int, v9: bool, out: Values) -> None:
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


def _path_reader(path: str, v9: bool) -> Callable[[Document], Values]:
    parts = tuple(path.split("."))
    if len(parts) == 1:
        def read_one(doc: Document) -> Values:
            return [doc.get(path, MISSING)]
        return read_one

    def read(doc: Document) -> Values:
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


def _any_expanded(test: Callable[[Any], bool]) -> ValuesTest:
    """A test that passes when any value a path reaches passes ``test``, arrays expanded."""
    return lambda values: any(test(c) for c in _expand(values))


def _arrays(values: Values) -> list[list[Any]]:
    out = []
    for value in values:
        if type(value) is list:
            out.append(value)
        elif type(value) is _Whole:
            out.append(value.array)
    return out


def path_values(doc: Document, path: str, version: str) -> Values:
    """What ``path`` reaches in one document, as a filter reads it (``MISSING`` where it
    reaches nothing; an array a positional path reaches as one value); ``candidates`` gives
    the values a comparison then meets."""
    return _path_reader(path, version == "9.0")(doc)


def candidates(values: Values) -> Values:
    """The values a comparison meets among those a path reached: each leaf array as a whole
    and each of its elements."""
    return _expand(values)


def passes_alone(op: str, operand: Any, version: str) -> Callable[[Any], bool]:
    """Whether one value, alone, passes ``{op: operand}`` (``$eq``, ``$gt``, ``$gte``, ``$lt``,
    ``$lte``): the comparison a filter compiles, under the collation in force, given that one
    value as all its path reached."""
    comparison = _comparison(op, operand, version)
    return lambda value: comparison([value])


# Comparisons with type bracketing ------------------------------------------------------------

def _comparison(op: str, operand: Any, version: str) -> ValuesTest:
    """``{$eq|$gt|…: operand}`` on the candidates: only values in the operand's bracket;
    strings, inside documents and arrays too, by the collation in force."""
    if operand is UNDEFINED:
        raise BadInput(Message(N_("{op}: cannot compare to undefined"), op=op))
    if operand is None:
        return _null_comparison(op, version)
    strings = strings_in_force()
    wanted = key(operand, strings)
    test = SIGN_TESTS[op]
    if wanted[0] in (0, 15):  # MinKey and MaxKey compare with every type
        return _across_brackets(test, wanted, strings)
    one = _one_in_bracket(op, wanted, strings)
    return lambda candidates: any(map(one, candidates))


def _one_in_bracket(op: str, wanted: SortKey, strings: Strings) -> Callable[[Any], bool]:
    """Whether one value passes a comparison that only the operand's bracket (its key's rank)
    can pass; NaN only meets NaN, and only where the comparison admits equality."""
    rank = wanted[0]
    holds = _ORDER_TESTS[op]
    nan_ok = op in ("$eq", "$gte", "$lte")
    nan = (3, 0)
    if wanted == nan:
        return lambda c: nan_ok and c is not MISSING and key(c, strings) == nan

    ranks = TYPE_RANKS
    # A number operand other than a decimal: Python compares int and float exactly, as keys do.
    number = wanted[3] if rank == 3 and type(wanted[3]) in (int, float) else None

    def one(c: Any) -> bool:
        kind = type(c)
        if ranks.get(kind, rank) != rank or c is MISSING:  # another bracket, or no value
            return False
        if number is not None and (kind is int or kind is float or kind is Int64):
            return c == c and holds(c, number)  # a NaN (c != c) meets no number
        k = key(c, strings)
        return k[0] == rank and k != nan and holds(k, wanted)
    return one


# Keys are tuples in MongoDB's total order: a comparison of keys is the comparison of values.
_ORDER_TESTS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": operator.eq, "$gt": operator.gt, "$gte": operator.ge, "$lt": operator.lt,
    "$lte": operator.le,
}


def _null_comparison(op: str, version: str) -> ValuesTest:
    """A comparison with null: null and a missing field are equal to it, and before 8.0 so is
    undefined (expression_leaf.cpp: null's and undefined's canonical types add up to 5); nothing
    is above or below it."""
    if op in ("$gt", "$lt"):
        return lambda candidates: False
    if null_matches_undefined(version):
        return lambda candidates: any(c is None or c is MISSING or c is UNDEFINED
                                      for c in candidates)
    return lambda candidates: any(c is None or c is MISSING for c in candidates)


def _across_brackets(test: Callable[[int], bool], wanted: SortKey,
                     strings: Strings) -> ValuesTest:
    """A comparison with MinKey or MaxKey: every value, of any type, is compared, and so is a
    missing field, which stands above MinKey and below MaxKey. The matcher is given a missing
    path as an empty element, whose type is neither MinKey's nor MaxKey's, so ``$gt``/``$gte``
    MinKey and ``$lt``/``$lte`` MaxKey take it and ``$eq`` does not (expression_leaf.cpp);
    jstests/core/index/index_bounds_minkey.js:24-33 at 1e98a0f2 (and its MaxKey twin,
    jstests/core/index/index_bounds_maxkey.js:24-33 at 1e98a0f2) count a document without the
    field among those above MinKey (below MaxKey)."""
    below_max = wanted[0] == 15  # MaxKey's rung; else MinKey's

    def across(candidates: Values) -> bool:
        for c in candidates:
            if c is MISSING:
                order = -1 if below_max else 1
            else:
                k = key(c, strings)
                order = (k > wanted) - (k < wanted)
            if test(order):
                return True
        return False
    return across


def _regex(pattern: Any, options: str | None = None) -> Callable[[Any], bool]:
    """A test of one value against a regular expression, as ``$regex`` applies it: PCRE2 on a
    string, and on a stored regex the same pattern and flags."""
    source, flags = regex_source(pattern, options)
    search = compile_regex(source, flags)
    as_value = key(Regex(source, "".join(sorted(flags))))

    def test(value: Any) -> bool:
        if type(value) is str:
            return search(value)
        if isinstance(value, Regex | re.Pattern):
            return key(value) == as_value
        return False
    return test


def is_regex(value: Any) -> bool:
    """Whether a value is a regular expression (a BSON Regex or a compiled Python pattern)."""
    return isinstance(value, Regex | re.Pattern)


def _equality(item: Any, version: str) -> ValuesTest:
    """What an element of ``$in``/``$all`` or an implicit equality tests."""
    if is_regex(item):
        test = _regex(item)
        return lambda candidates: any(test(c) for c in candidates)
    return _comparison("$eq", item, version)


def _type_test(wanted: Any) -> Callable[[Any], bool]:
    names = wanted if isinstance(wanted, list) else [wanted]
    if not names:
        raise BadInput(Message(N_("$type must name at least one type")))
    kinds = set()
    for name in names:
        if isinstance(name, bool) or not isinstance(name, int | float | Int64 | Decimal128 | str):
            raise BadInput(Message(N_("$type: {name} is not a type name or number"),
                                           name=repr(name)))
        if not isinstance(name, str):
            number = name.to_decimal() if isinstance(name, Decimal128) else name
            finite = number == number and abs(number) != float("inf")  # int() refuses NaN, inf
            if not finite or number != int(number) or int(number) not in TYPE_CODES:
                raise BadInput(Message(N_("$type: {name} is not a BSON type number"),
                                               name=repr(name)))
            name = TYPE_CODES[int(number)]
        elif name not in TYPE_NAMES:
            raise BadInput(Message(N_("$type: unknown type name {name}"),
                                           name=repr(name)))
        kinds.add(name)
    if "number" in kinds:
        kinds |= NUMBER_TYPES
    return lambda value: value is not MISSING and bson_type(value) in kinds


_INT64_LOW, _INT64_HIGH = -(2**63), 2**63


def _as_int64(number: Number) -> int | None:
    """A number truncated toward zero, if the result is a 64-bit integer; None if it is not
    (NaN, an infinity, or past int64): ``representAs<long long>`` in expression_leaf.cpp."""
    integer = truncated(number)
    return integer if integer is not None and _INT64_LOW <= integer < _INT64_HIGH else None


def _mod_test(operand: Any) -> Callable[[Any], bool]:
    """``$mod`` on one value: since 5.1 a dividend that is not a number, or whose truncation
    is not a 64-bit integer, never matches."""
    divisor, remainder = _mod_operand(operand)

    def test(value: Any) -> bool:
        number = as_number(value) if type(value) is not bool else None
        whole = _as_int64(number) if number is not None else None
        if whole is None:
            return False
        left = abs(whole) % abs(divisor)  # C's remainder: the sign follows the dividend
        return (-left if whole < 0 else left) == remainder
    return test


def _mod_operand(operand: Any) -> tuple[int, int]:
    """``$mod``'s divisor and remainder, both truncated toward zero; BadInput unless both are
    numbers whose truncation is a 64-bit integer and the divisor is not 0 (since 5.1)."""
    if not isinstance(operand, list) or len(operand) != 2:
        raise BadInput(Message(N_("$mod needs an array of two numbers: [divisor, "
                                          "remainder]")))
    wholes: list[int] = []
    for item in operand:
        number = as_number(item)
        if number is None:
            raise BadInput(Message(N_("$mod needs an array of two numbers: [divisor, "
                                              "remainder]")))
        whole = _as_int64(number)
        if whole is None:
            raise BadInput(Message(N_("$mod: the divisor and remainder must be finite "
                                              "numbers that fit in a 64-bit integer")))
        wholes.append(whole)
    divisor, remainder = wholes
    if divisor == 0:
        raise BadInput(Message(N_("$mod: the divisor cannot be 0")))
    return divisor, remainder


def _size_test(operand: Any) -> Callable[[list[Any]], bool]:
    number = as_number(operand) if not isinstance(operand, bool) else None
    if number is None:
        raise BadInput(Message(N_("$size needs a number")))
    if number != number or number != int(number):
        raise BadInput(Message(N_("$size needs a whole number")))
    if number < 0:
        raise BadInput(Message(N_("$size may not be negative")))
    size = int(number)
    return lambda array: len(array) == size


# Compiling a filter ---------------------------------------------------------------------------


def field_paths(query: Any) -> list[str]:
    """The field paths a filter names (``userId``, ``a.b``), its logical operators' clauses
    read for theirs; no operator's own name."""
    if not isinstance(query, dict):
        return []
    paths: list[str] = []
    for name, value in query.items():
        if name in _LOGICAL and isinstance(value, list):
            paths += [path for clause in value for path in field_paths(clause)]
        elif not name.startswith("$"):
            paths.append(name)
    return paths



def compile_filter(query: Any, version: str, depth: int = 0, *,
                   collation: dict[str, Any] | None = None) -> Test:
    """A function telling whether a document matches ``query``; BadInput if MongoDB would
    refuse the filter. Under ``collation`` (a collation document) its comparisons order
    strings by ICU; without one, by the collation in force (none: bytewise)."""
    if collation is not None:
        with collating(collation_strings(collation)):
            return compile_filter(query, version, depth)
    depth = deeper(depth)
    if not isinstance(query, dict):
        raise BadInput(Message(N_("a filter is a document")))
    tests: list[Test] = []
    for name, condition in query.items():
        if not isinstance(name, str):
            raise BadInput(Message(N_("a filter's field names are strings")))
        if name in _LOGICAL:
            tests.append(_logical(name, condition, version, depth))
        elif name == "$expr":
            expression = compile_expression(condition, depth)
            tests.append(_truthy_test(expression))
        elif name == "$comment":
            continue
        elif name.startswith("$"):
            raise ModelLimit(Message(N_("the model does not know the top-level operator "
                                          "{op}"), op=name))
        else:
            tests.append(_field_test(name, condition, version, depth))
    if len(tests) == 1:
        return tests[0]
    return lambda doc: all(test(doc) for test in tests)


def _truthy_test(expression: Expression) -> Test:
    return lambda doc: truthy(expression(doc))


def _logical(name: str, clauses: Any, version: str, depth: int) -> Test:
    if not isinstance(clauses, list) or not clauses:
        raise BadInput(Message(N_("{op} needs a non-empty array of filter documents"),
                                       op=name))
    if not all(isinstance(clause, dict) for clause in clauses):
        raise BadInput(Message(N_("{op} needs a non-empty array of filter documents"),
                                       op=name))
    tests = [compile_filter(clause, version, depth) for clause in clauses]
    if name == "$and":
        return lambda doc: all(test(doc) for test in tests)
    if name == "$or":
        return lambda doc: any(test(doc) for test in tests)
    return lambda doc: not any(test(doc) for test in tests)


def is_operator_object(condition: Any) -> bool:
    """Whether a field's condition is a document of operators (``{"$gt": 5}``), not a value to
    equal (a document whose first key is not an operator, or a DBRef's ``$ref``)."""
    if not isinstance(condition, dict) or not condition:
        return False
    first = next(iter(condition))
    return isinstance(first, str) and first.startswith("$") and first not in (
        "$ref", "$id", "$db")


def _field_test(path: str, condition: Any, version: str, depth: int) -> Test:
    read = _path_reader(path, version == "9.0")
    check = _condition(condition, version, depth)
    one = _top_level_comparison(path, condition)
    if one is None:
        return lambda doc: check(read(doc))

    def top_level(doc: Document) -> bool:  # the common case, kept tight: one value, no array
        value = doc.get(path, MISSING)
        return check([value]) if type(value) is list else one(value)
    return top_level


def _top_level_comparison(path: str, condition: Any) -> Callable[[Any], bool] | None:
    """For ``{field: value}``, ``{field: {$gt: value}}`` and the like (a top-level field, one
    comparison with a value of one bracket), the test of one value that is not an array."""
    op, operand = "$eq", condition
    if is_operator_object(condition):
        if len(condition) != 1:
            return None
        (op, operand), = condition.items()
    if "." in path or op not in _ORDER_TESTS or operand is None or operand is UNDEFINED \
            or is_regex(operand):
        return None
    strings = strings_in_force()
    wanted = key(operand, strings)
    return None if wanted[0] in (0, 15) else _one_in_bracket(op, wanted, strings)


def _condition(condition: Any, version: str, depth: int) -> ValuesTest:
    """A test on the values a path reaches: an operator object, a regex or an equality."""
    if is_regex(condition):
        return _any_expanded(_regex(condition))
    if not is_operator_object(condition):
        eq = _comparison("$eq", condition, version)
        return lambda values: eq(_expand(values))
    tests = _operators(condition, version, depth)
    if len(tests) == 1:
        return tests[0]
    return lambda values: all(test(values) for test in tests)


def _operators(condition: dict[str, Any], version: str, depth: int) -> list[ValuesTest]:
    tests: list[ValuesTest] = []
    if "$options" in condition and "$regex" not in condition:
        raise BadInput(Message(N_("$options needs a $regex beside it")))
    for op, operand in condition.items():
        if not isinstance(op, str) or not op.startswith("$"):
            raise BadInput(Message(N_("unknown operator {op}: a condition mixes "
                                              "operators and fields"), op=repr(op)))
        if op == "$options":
            continue
        if op == "$regex":
            tests.append(_any_expanded(_regex(operand, condition.get("$options"))))
        else:
            tests.append(_operator(op, operand, version, depth))
    return tests


def _operator(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    compile_operator = _QUERY_OPERATORS.get(op)
    if compile_operator is None:
        close = difflib.get_close_matches(op, list(_QUERY_OPERATORS), n=1, cutoff=0.8)
        if close:  # a typo, most likely: MongoDB refuses it too
            raise ModelLimit(Message(N_(
                "the model does not know the query operator {op}: did you mean {close}? "
                "MongoDB refuses an operator it does not know (\"unknown operator\")"),
                op=op, close=close[0]))
        raise ModelLimit(Message(N_("the model does not know the query operator {op}"),
                                       op=op))
    return compile_operator(op, operand, version, depth)


def _compare(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    comparison = _comparison(op, operand, version)
    return lambda values: comparison(_expand(values))


def _ne(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    comparison = _comparison("$eq", operand, version)
    return lambda values: not comparison(_expand(values))


def _in(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    inside = _in_test(op, operand, version)
    return lambda values: inside(_expand(values))


def _nin(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    inside = _in_test(op, operand, version)
    return lambda values: not inside(_expand(values))


def _exists(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    wanted = truthy(operand)
    return lambda values: any(v is not MISSING for v in values) == wanted


def _type(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    return _any_expanded(_type_test(operand))


def _elem_match_values(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    element_test = _elem_match(operand, version, depth)
    return lambda values: any(any(element_test(e) for e in array)
                              for array in _arrays(values))


def _size(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    size_test = _size_test(operand)
    return lambda values: any(size_test(array) for array in _arrays(values))


def _mod(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    return _any_expanded(_mod_test(operand))


def _in_test(op: str, operand: Any, version: str) -> ValuesTest:
    if not isinstance(operand, list):
        raise BadInput(Message(N_("{op} needs an array"), op=op))
    for item in operand:
        if is_operator_object(item):
            raise BadInput(Message(N_("{op}: cannot nest an operator ({inner}) inside "
                                              "{op}"), op=op, inner=next(iter(item))))
    tests = [_equality(item, version) for item in operand]
    return lambda candidates: any(test(candidates) for test in tests)


def _not(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    if is_regex(operand):
        test = _regex(operand)
        return lambda values: not any(test(c) for c in _expand(values))
    if not isinstance(operand, dict):
        raise BadInput(Message(N_("$not needs a regex or a document of operators")))
    if not operand:
        raise BadInput(Message(N_("$not cannot be empty")))
    if not is_operator_object(operand):
        raise BadInput(Message(N_("$not needs a document of operators, such as "
                                          "{\"$gt\": 5}")))
    tests = _operators(operand, version, deeper(depth))
    return lambda values: not all(test(values) for test in tests)


def _elem_match(operand: Any, version: str, depth: int) -> Callable[[Any], bool]:
    """A test of one array element: a filter on a document, or operators on a value."""
    if not isinstance(operand, dict):
        raise BadInput(Message(N_("$elemMatch needs a document")))
    first = next(iter(operand), None)
    if first is not None and first.startswith("$") and first not in _OBJECT_LEVEL:
        tests = _operators(operand, version, deeper(depth))
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


def _all(op: str, operand: Any, version: str, depth: int) -> ValuesTest:
    if not isinstance(operand, list):
        raise BadInput(Message(N_("$all needs an array")))
    if not operand:
        return lambda values: False
    elem_matches = [isinstance(item, dict) and next(iter(item), None) == "$elemMatch"
                    for item in operand]
    if any(elem_matches) and not all(elem_matches):
        raise BadInput(Message(N_("$all: either every element is an $elemMatch or none "
                                          "is")))
    if all(elem_matches):
        tests = [_operator("$elemMatch", item["$elemMatch"], version, depth)
                 for item in operand]
        return lambda values: all(test(values) for test in tests)
    for item in operand:
        if is_operator_object(item):
            raise BadInput(Message(N_("{op}: cannot nest an operator ({inner}) inside "
                                              "{op}"), op="$all", inner=next(iter(item))))
    equalities = [_equality(item, version) for item in operand]
    return lambda values: all(test(_expand(values)) for test in equalities)


# What compiles each query operator the model knows. Every compiler takes _operator's four
# arguments so that one table names them all; each uses those it needs.
_QUERY_OPERATORS: dict[str, Callable[[str, Any, str, int], ValuesTest]] = {
    **dict.fromkeys(SIGN_TESTS, _compare),
    "$ne": _ne,
    "$in": _in,
    "$nin": _nin,
    "$exists": _exists,
    "$type": _type,
    "$not": _not,
    "$elemMatch": _elem_match_values,
    "$size": _size,
    "$all": _all,
    "$mod": _mod,
}
