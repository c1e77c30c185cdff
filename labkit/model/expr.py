"""Aggregation expressions as ``$expr`` evaluates them, compiled once and then applied to each
document; an expression MongoDB would reject is rejected while compiling."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from labkit.errors import BadInput, ConversionFailure, ModelLimit
from labkit.i18n import N_, Message
from labkit.model.bson_order import MISSING, NUMBER_TYPES, UNDEFINED, bson_type, key
from labkit.model.collation import Strings
from labkit.model.convert import (
    CONVERSION_OPERATORS,
    as_number,
    conversion_target,
    convert,
    whole,
)
from labkit.model.regex import Search, compile_regex, regex_source

MAX_DEPTH = 100  # MongoDB's limit on the nesting of a filter (and of a BSON document)

Expression = Callable[[dict[str, Any]], Any]

# What each comparison operator asks of the sign of a comparison (-1, 0 or 1).
SIGN_TESTS: dict[str, Callable[[int], bool]] = {
    "$eq": lambda s: s == 0, "$gt": lambda s: s > 0, "$gte": lambda s: s >= 0,
    "$lt": lambda s: s < 0, "$lte": lambda s: s <= 0,
}

# The collation a query's comparisons compile under. The server's ExpressionContext carries one
# collator for a whole query; here the compilers of every operator share one signature, so the
# collation in force is set once around a compilation (``collating``) and each comparison
# captures it while it compiles, never while it runs.
_STRINGS: ContextVar[Strings] = ContextVar("labkit_model_collation", default=None)


@contextmanager
def collating(strings: Strings) -> Iterator[None]:
    """Compile filters and expressions under a collation (``collation_strings``' result): the
    comparisons compiled inside order strings by it."""
    token = _STRINGS.set(strings)
    try:
        yield
    finally:
        _STRINGS.reset(token)


def strings_in_force() -> Strings:
    """How the comparisons compiled now order strings: None for bytewise."""
    return _STRINGS.get()


def _collated_compare(strings: Strings) -> Callable[[Any, Any], int]:
    """-1, 0 or 1 between two values, strings (inside documents and arrays too) by ``strings``."""
    def compare(a: Any, b: Any) -> int:
        x, y = key(a, strings), key(b, strings)
        return (x > y) - (x < y)
    return compare


def deeper(depth: int) -> int:
    """One level deeper into a filter or an expression; BadInput past MongoDB's limit."""
    if depth > MAX_DEPTH:
        raise BadInput(Message(N_("the filter is nested more than {depth} levels deep "
                                          "(MongoDB's limit)"), depth=MAX_DEPTH))
    return depth + 1


def field_path(doc: Any, path: str) -> Any:
    """What ``"$path"`` evaluates to: through arrays, the array of what each element holds."""
    return _aggregate_get(doc, tuple(path.split(".")), 0)


def _aggregate_get(value: Any, parts: tuple[str, ...], i: int) -> Any:
    """The rest of a field path from ``value``. Through an array it keeps what each element
    that is a document holds and drops every other element, nested arrays included:
    ``"$x.a"`` on ``[[], [""], {}]`` is ``[]`` (ExpressionFieldPath::evaluatePath)."""
    while i < len(parts):
        if isinstance(value, dict):
            if parts[i] not in value:
                return MISSING
            value = value[parts[i]]
            i += 1
        elif type(value) is list:
            out = []
            for element in value:
                if isinstance(element, dict):
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
    number = as_number(value)
    return number is None or number != 0


def _null_if_missing(value: Any) -> Any:
    """An element of an array expression: a field that is missing is null there (the
    $project page's array example: ``["$x", "$y", "$someField"]`` gives ``[1, 1, null]``)."""
    return None if value is MISSING else value


def compile_expression(expression: Any, depth: int = 0) -> Expression:
    """A function evaluating an aggregation expression on one document."""
    depth = deeper(depth)
    if isinstance(expression, str) and expression.startswith("$"):
        return _field_expression(expression)
    if isinstance(expression, list):  # an array expression: a missing value in it is null
        items = [compile_expression(item, depth) for item in expression]
        return lambda doc: [_null_if_missing(item(doc)) for item in items]
    if isinstance(expression, dict) and expression:
        names = list(expression)
        if any(isinstance(name, str) and name.startswith("$") for name in names):
            if len(names) != 1:
                raise BadInput(Message(N_("an expression object with an operator holds "
                                                  "exactly one field, not {fields}"),
                                               fields=", ".join(map(str, names))))
            return _expression_operator(names[0], expression[names[0]], depth)
        fields = {name: compile_expression(value, depth) for name, value in expression.items()}

        def build(doc: dict[str, Any]) -> dict[str, Any]:
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
            raise ModelLimit(Message(N_("the model does not know the variable "
                                              "$${variable}"), variable=variable))
        if not rest:
            return lambda doc: doc
        text = "$" + rest
    parts = tuple(text[1:].split("."))
    if any(not part or part.startswith("$") for part in parts):
        raise BadInput(Message(N_("{path} is not a valid field path"), path=repr(text)))
    return lambda doc: _aggregate_get(doc, parts, 0)


def _arguments(op: str, args: Any, depth: int, count: int | None = None,
               at_least: int | None = None) -> list[Expression]:
    items = args if isinstance(args, list) else [args]
    if count is not None and len(items) != count:
        raise BadInput(Message(
            N_("expression {op} takes exactly {count:,} argument; {given:,} were given")
            if count == 1 else
            N_("expression {op} takes exactly {count:,} arguments; {given:,} were given"),
            op=op, count=count, given=len(items)))
    if at_least is not None and len(items) < at_least:
        raise BadInput(Message(N_("expression {op} needs at least {count:,} arguments"),
                                       op=op, count=at_least))
    return [compile_expression(item, depth) for item in items]


def _comparison(op: str, args: Any, depth: int) -> Expression:
    left, right = _arguments(op, args, depth, count=2)
    compare = _collated_compare(strings_in_force())  # $expr comparisons use the collation
    if op == "$cmp":
        return lambda doc: compare(left(doc), right(doc))
    if op == "$ne":
        return lambda doc: compare(left(doc), right(doc)) != 0
    test = SIGN_TESTS[op]
    return lambda doc: test(compare(left(doc), right(doc)))


def _expression_operator(op: str, args: Any, depth: int) -> Expression:
    compile_operator = _OPERATORS.get(op)
    if compile_operator is None:
        raise ModelLimit(Message(N_("the model does not know the expression operator "
                                          "{op}"), op=op))
    return compile_operator(op, args, depth)


def _literal(op: str, args: Any, depth: int) -> Expression:
    return lambda doc: args


def _and(op: str, args: Any, depth: int) -> Expression:
    items = _arguments(op, args, depth)
    return lambda doc: all(truthy(item(doc)) for item in items)


def _or(op: str, args: Any, depth: int) -> Expression:
    items = _arguments(op, args, depth)
    return lambda doc: any(truthy(item(doc)) for item in items)


def _not(op: str, args: Any, depth: int) -> Expression:
    (item,) = _arguments(op, args, depth, count=1)
    return lambda doc: not truthy(item(doc))


def _in(op: str, args: Any, depth: int) -> Expression:
    needle, haystack = _arguments(op, args, depth, count=2)
    strings = strings_in_force()
    return lambda doc: _expression_in(needle(doc), haystack(doc), strings)


def _type(op: str, args: Any, depth: int) -> Expression:
    (item,) = _arguments(op, args, depth, count=1)
    return lambda doc: bson_type(item(doc))


def _is_number(op: str, args: Any, depth: int) -> Expression:
    (item,) = _arguments(op, args, depth, count=1)
    return lambda doc: bson_type(item(doc)) in NUMBER_TYPES


def _first_not_null(op: str, args: Any, depth: int) -> Expression:
    items = _arguments(op, args, depth, at_least=2)
    return lambda doc: _if_null(items, doc)


def _conversion(op: str, args: Any, depth: int) -> Expression:
    (item,) = _arguments(op, args, depth, count=1)
    target = CONVERSION_OPERATORS[op]
    return lambda doc: convert(item(doc), target)


def _expression_in(needle: Any, haystack: Any, strings: Strings) -> bool:
    if type(haystack) is not list:
        raise BadInput(Message(N_("$in needs an array as its second argument, found "
                                          "{type} (MongoDB fails the whole query)"),
                                       type=bson_type(haystack)))
    wanted = key(needle, strings)
    return any(key(item, strings) == wanted for item in haystack)


def _if_null(items: list[Expression], doc: dict[str, Any]) -> Any:
    for item in items[:-1]:
        value = item(doc)
        if value is not None and value is not MISSING and value is not UNDEFINED:
            return value
    return items[-1](doc)


def _convert_expression(op: str, args: Any, depth: int) -> Expression:
    if not isinstance(args, dict) or "input" not in args or "to" not in args:
        raise BadInput(Message(N_("$convert needs a document with 'input' and 'to'")))
    unknown = sorted(set(args) - {"input", "to", "onError", "onNull"})
    if unknown:
        raise BadInput(Message(N_("$convert: unknown field {name}"),
                                       name=repr(unknown[0])))
    source = compile_expression(args["input"], depth)
    to = compile_expression(args["to"], depth)
    on_error = compile_expression(args["onError"], depth) if "onError" in args else None
    on_null = compile_expression(args["onNull"], depth) if "onNull" in args else None

    def run(doc: dict[str, Any]) -> Any:
        target = conversion_target(to(doc))
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


def _nullish(value: Any) -> bool:
    return value is None or value is MISSING or value is UNDEFINED


def _cond(op: str, args: Any, depth: int) -> Expression:
    """``{$cond: [if, then, else]}`` or ``{$cond: {if, then, else}}``: only the branch taken
    is evaluated."""
    if isinstance(args, dict):
        unknown = sorted(set(args) - {"if", "then", "else"})
        if unknown:
            raise BadInput(Message(N_("$cond: unrecognized parameter {name}"),
                                           name=repr(unknown[0])))
        missing = [name for name in ("if", "then", "else") if name not in args]
        if missing:
            raise BadInput(Message(N_("$cond: missing {name} parameter"),
                                           name=repr(missing[0])))
        args = [args["if"], args["then"], args["else"]]
    test, then, otherwise = _arguments(op, args, depth, count=3)
    return lambda doc: then(doc) if truthy(test(doc)) else otherwise(doc)


def _switch(op: str, args: Any, depth: int) -> Expression:
    """``{$switch: {branches: [{case, then}, …], default}}``: the first branch whose case is
    true; without a default, no true case fails the query."""
    if not isinstance(args, dict):
        raise BadInput(Message(N_("$switch requires an object as an argument")))
    unknown = sorted(set(args) - {"branches", "default"})
    if unknown:
        raise BadInput(Message(N_("$switch found an unknown argument: {name}"),
                                       name=unknown[0]))
    branches = args.get("branches")
    if not isinstance(branches, list) or not branches:
        raise BadInput(Message(N_("$switch requires at least one branch, in an array "
                                          "'branches'")))
    cases = [_switch_branch(branch, depth) for branch in branches]
    default = compile_expression(args["default"], depth) if "default" in args else None

    def run(doc: dict[str, Any]) -> Any:
        for case, then in cases:
            if truthy(case(doc)):
                return then(doc)
        if default is None:
            raise BadInput(Message(N_("$switch could not find a matching branch for an "
                                              "input, and no default was specified (MongoDB "
                                              "fails the whole query)")))
        return default(doc)
    return run


def _switch_branch(branch: Any, depth: int) -> tuple[Expression, Expression]:
    if not isinstance(branch, dict):
        raise BadInput(Message(N_("$switch expected each branch to be an object")))
    unknown = sorted(set(branch) - {"case", "then"})
    if unknown:
        raise BadInput(Message(N_("$switch found an unknown argument to a branch: "
                                          "{name}"), name=unknown[0]))
    for name in ("case", "then"):
        if name not in branch:
            raise BadInput(Message(N_("$switch requires each branch have a {name} "
                                              "expression"), name=repr(name)))
    return compile_expression(branch["case"], depth), compile_expression(branch["then"], depth)


def _get_field(op: str, args: Any, depth: int) -> Expression:
    """``{$getField: {field, input}}`` (``input`` defaults to ``$$CURRENT``) or
    ``{$getField: field}``: a field by its whole name, dots and dollars included."""
    named = isinstance(args, dict) and not any(str(name).startswith("$") for name in args)
    spec = args if named else {"field": args}
    unknown = sorted(set(spec) - {"field", "input"})
    if unknown:
        raise BadInput(Message(N_("$getField found an unknown argument: {name}"),
                                       name=unknown[0]))
    if "field" not in spec:
        raise BadInput(Message(N_("$getField requires 'field' to be specified")))
    field = _constant_string(spec["field"])
    source = compile_expression(spec.get("input", "$$CURRENT"), depth)

    def run(doc: dict[str, Any]) -> Any:
        value = source(doc)
        if _nullish(value):
            return None
        if not isinstance(value, dict):
            raise BadInput(Message(N_("$getField requires 'input' to evaluate to type "
                                              "Object, found {type} (MongoDB fails the whole "
                                              "query)"), type=bson_type(value)))
        return value.get(field, MISSING)
    return run


def _constant_string(field: Any) -> str:
    """``$getField``'s field: a string that is not a field path, or one in ``$literal``."""
    if isinstance(field, dict) and list(field) == ["$literal"]:
        field = field["$literal"]
    elif isinstance(field, str) and field.startswith("$"):
        raise BadInput(Message(N_("$getField requires 'field' to evaluate to a "
                                          "constant; a name that starts with '$' goes in "
                                          "{$literal: …}")))
    if not isinstance(field, str):
        raise BadInput(Message(N_("$getField requires 'field' to evaluate to type "
                                          "String")))
    return field


def _size(op: str, args: Any, depth: int) -> Expression:
    (item,) = _arguments(op, args, depth, count=1)

    def run(doc: dict[str, Any]) -> int:
        value = item(doc)
        if type(value) is not list:
            raise BadInput(Message(N_("The argument to $size must be an array. Type of "
                                              "argument: {type} (MongoDB fails the whole "
                                              "query)"), type=bson_type(value)))
        return len(value)
    return run


def _array_elem_at(op: str, args: Any, depth: int) -> Expression:
    array, index = _arguments(op, args, depth, count=2)
    return lambda doc: _element_at(array(doc), index(doc))


def _element_at(array: Any, index: Any) -> Any:
    """``$arrayElemAt``: null for a null array or index, nothing past either end."""
    if _nullish(array) or _nullish(index):
        return None
    if type(array) is not list:
        raise BadInput(Message(N_("$arrayElemAt's first argument must be an array, but "
                                          "is {type} (MongoDB fails the whole query)"),
                                       type=bson_type(array)))
    number = as_number(index)
    position = whole(number) if number is not None else None
    if position is None or not -(2**31) <= position < 2**31:
        raise BadInput(Message(N_("$arrayElemAt's second argument must be a number "
                                          "representable as a 32-bit integer, not {index} "
                                          "(MongoDB fails the whole query)"), index=repr(index)))
    if position < 0:
        position += len(array)
    return array[position] if 0 <= position < len(array) else MISSING


def _regex_match(op: str, args: Any, depth: int) -> Expression:
    """``{$regexMatch: {input, regex, options}}`` by PCRE2, as ``$regex`` in a filter: false
    where the input or the regex is null."""
    if not isinstance(args, dict):
        raise BadInput(Message(N_("$regexMatch expects an object of named arguments")))
    unknown = sorted(set(args) - {"input", "regex", "options"})
    if unknown:
        raise BadInput(Message(N_("$regexMatch found an unknown argument: {name}"),
                                       name=unknown[0]))
    for name in ("input", "regex"):
        if name not in args:
            raise BadInput(Message(N_("$regexMatch requires {name} parameter"),
                                           name=repr(name)))
    source = compile_expression(args["input"], depth)
    pattern = compile_expression(args["regex"], depth)
    options = compile_expression(args["options"], depth) if "options" in args else None

    def run(doc: dict[str, Any]) -> bool:
        text = source(doc)
        search = _regex_search(pattern(doc), options(doc) if options is not None else None)
        if _nullish(text) or search is None:
            return False
        if not isinstance(text, str):
            raise BadInput(Message(N_("$regexMatch needs 'input' to be of type string, "
                                              "found {type} (MongoDB fails the whole query)"),
                                           type=bson_type(text)))
        return search(text)
    return run


def _regex_search(pattern: Any, options: Any) -> Search | None:
    """The compiled test of ``$regexMatch``'s regex and options; None for a null regex."""
    if _nullish(options):
        options = None
    if _nullish(pattern):
        if options is not None and not isinstance(options, str):
            raise BadInput(Message(N_("$regexMatch needs 'options' to be of type "
                                              "string")))
        return None
    source, flags = regex_source(pattern, options, "$regexMatch")
    return compile_regex(source, flags, "$regexMatch")


def _rand(op: str, args: Any, depth: int) -> Expression:
    """``$rand: {}``: a double drawn uniformly from [0, 1) at each evaluation (the manual's
    "$rand (aggregation)" page); it takes no argument."""
    import random

    if args != {}:
        raise BadInput(Message(N_("$rand takes an empty document, not {args}"),
                               args=repr(args)))
    return lambda doc: random.random()


def let_values(let: Any) -> dict[str, Any]:
    """A read's ``let`` variables, each evaluated once, as the server evaluates them before the
    read (the manual's "find" command page, ``let``: "constant or closed expressions that do
    not reference document fields"): ``{id: 1, y: {$literal: "$bar"}}`` gives ``{id: 1, y:
    "$bar"}``. A name must be a variable name (a lowercase letter first); a value may not read
    a document."""
    if not isinstance(let, dict):
        raise BadInput(Message(N_("let must be a document of variables")))
    values = {}
    for name, value in let.items():
        if not isinstance(name, str) or not name[:1].islower() or not name.isidentifier():
            raise ModelLimit(Message(N_("the model does not know the variable $${variable}"),
                                   variable=str(name)))
        values[name] = compile_expression(value)({})
        if values[name] is MISSING:
            raise ModelLimit(Message(N_("the model does not know the variable $${variable}"),
                                   variable=name))
    return values


def bind(expression: Any, variables: dict[str, Any]) -> Any:
    """``expression`` with each ``"$$name"`` of ``variables`` (a whole string, or
    ``"$$name.path"`` under a document's field) replaced by its value as a ``$literal``: how
    an expression reads a read's ``let`` variables."""
    if isinstance(expression, str) and expression.startswith("$$"):
        name, _, rest = expression[2:].partition(".")
        if name in variables:
            value = variables[name]
            for part in rest.split(".") if rest else ():
                value = value.get(part, MISSING) if isinstance(value, dict) else MISSING
            return {"$literal": value} if value is not MISSING else "$$REMOVE"
        return expression
    if isinstance(expression, list):
        return [bind(item, variables) for item in expression]
    if isinstance(expression, dict):
        if list(expression) == ["$literal"]:
            return expression
        return {k: bind(v, variables) for k, v in expression.items()}
    return expression


# What compiles each expression operator the model knows. Every compiler takes the same three
# arguments so that one table names them all; the operator's name serves those that report it
# in an error or pick by it (the comparisons, the conversions).
_OPERATORS: dict[str, Callable[[str, Any, int], Expression]] = {
    "$literal": _literal,
    **dict.fromkeys(("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$cmp"), _comparison),
    "$and": _and,
    "$or": _or,
    "$not": _not,
    "$in": _in,
    "$type": _type,
    "$isNumber": _is_number,
    "$ifNull": _first_not_null,
    **dict.fromkeys(CONVERSION_OPERATORS, _conversion),
    "$convert": _convert_expression,
    "$cond": _cond,
    "$switch": _switch,
    "$getField": _get_field,
    "$size": _size,
    "$arrayElemAt": _array_elem_at,
    "$regexMatch": _regex_match,
    "$rand": _rand,
}
