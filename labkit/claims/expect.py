"""How a claim's answer is judged against what its file expects: ``judge_step`` for one read,
``match`` for the Unified Test Format's matching rules (unified-test-format.md, Evaluating
Matches), and the ``expectError`` assertions a claim check does not judge."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

from labkit.claims.claim import short_json
from labkit.claims.spec import Answer, Expectation, Ties
from labkit.errors import BadInput, NotSupported
from labkit.i18n import N_, Message, Text, english
from labkit.model import bson_order


class Judgement(NamedTuple):
    """One read judged: whether it ``holds``, what to show as ``observed``, and the ``note``
    that says why not (or what was not checked); ``undecided`` says why the answer cannot
    decide the claim (labkit's model, where the order among ties decides it)."""

    holds: bool
    observed: Any
    note: Text
    undecided: Text = ""


_ERROR_CHECKS = {"isError", "isClientError", "errorContains", "errorCode", "errorCodeName"}


def judge_step(expect: Expectation, answer: Answer) -> Judgement:
    """One read against its expectation: whether it holds, what to show as observed, and why
    not."""
    if answer.raised:
        if expect.kind != "error":
            return Judgement(False, {"raised": answer.raised}, "")
        note = _error_note(expect.value or {}, answer)
        return Judgement(not note, {"error": answer.raised}, note)
    result = answer.result
    if expect.kind == "error":
        return Judgement(False, _shown(result), Message(N_("no error was raised")))
    if expect.kind in ("ids", "not_ids") and (
            not isinstance(result, list) or not all(isinstance(d, dict) for d in result)):
        return Judgement(False, result, Message(N_("the read did not return documents")))
    if expect.kind == "not_ids":
        return _judge_not_ids(expect.value, [doc.get("_id") for doc in result], answer.ties)
    if expect.kind == "ids":
        ids = [doc.get("_id") for doc in result]
        undecided = _tie_doubt(expect, ids, answer.ties)
        return Judgement(_same_ids(expect.value, ids, expect.ordered), ids, "", undecided)
    if answer.ties and (answer.ties.cut or (expect.ordered and answer.ties.runs)) \
            and expect.kind in ("documents", "values"):
        return Judgement(False, _shown(result), "", _undecided(result, answer.ties))
    if expect.kind == "count":
        return _judge_count(expect.value, result)
    problem = _MATCHERS.get(expect.kind, _as_written)(expect, result)
    return Judgement(problem is None, result, problem or "")


# How each kind of expectation matches a result (``Expectation``'s kinds); ``value`` is matched
# as written.
_MATCHERS: dict[str, Any] = {
    "documents": lambda e, r: _match_list(e.value, r, e.ordered, root=True),
    "values": lambda e, r: _match_list(e.value, r, e.ordered, root=False),
    "document": lambda e, r: match(e.value, r, root=True),  # findOne's, a write's result
    "exactly": lambda e, r: _exactly(e.value, r)}  # a test's outcome


def _as_written(expect: Expectation, result: Any) -> Message | None:
    return match(expect.value, result)


def _judge_count(expected: int, result: Any) -> Judgement:
    """``{count: N}``: the number a ``count`` read gives, or how many documents (``find``,
    ``aggregate``) or values (``distinct``) the read returns, is N."""
    if isinstance(result, list):
        counted = len(result)
    elif isinstance(result, int) and not isinstance(result, bool):  # Int64 is an int
        counted = int(result)
    else:
        return Judgement(False, _shown(result),
                         Message(N_("the read gave neither a list nor a count")))
    note = "" if counted == expected else Message(N_("{counted:d}, not {expected:d}"),
                                                  counted=counted, expected=expected)
    return Judgement(counted == expected, {"count": counted}, note)


def _shown(result: Any) -> Any:
    if isinstance(result, list) and all(isinstance(d, dict) and "_id" in d for d in result):
        return {"ids": [d["_id"] for d in result]}
    return result


def _error_note(checks: dict[str, Any], answer: Answer) -> Text:
    """Why the raised error does not meet the ``expectError`` checks, or ``""`` if it does."""
    if "isClientError" in checks and bool(checks["isClientError"]) == answer.server_error:
        return Message(N_("the error came from the server") if answer.server_error else
                       N_("the error came from the client"))
    if "errorCode" in checks and answer.code != checks["errorCode"]:
        return Message(N_("error code {code}, not {expected}"), code=str(answer.code),
                       expected=str(checks["errorCode"]))
    if "errorCodeName" in checks and answer.code_name.lower() != str(
            checks["errorCodeName"]).lower():
        if not answer.code_name and answer.code is not None:  # a write error names no code
            return Message(N_("no error code name, not {expected}: the error gives code {code} "
                              "and no name, as a write error does"),
                           code=str(answer.code), expected=str(checks["errorCodeName"]))
        return Message(N_("error code name {name}, not {expected}"),
                       name=answer.code_name or Message(N_("none")),
                       expected=str(checks["errorCodeName"]))
    if "errorContains" in checks and str(checks["errorContains"]).lower() not in \
            english(answer.raised).lower():
        return Message(N_("the message does not contain {text}"),
                       text=repr(checks["errorContains"]))
    return ""


def _cmp(a: Any, b: Any) -> int:
    return bson_order.compare(a, b)


def _judge_not_ids(never: list[Any], ids: list[Any], ties: Ties | None) -> Judgement:
    """``{not_ids: […]}``: none of these ``_id``s is returned, whatever else is. Where the
    model's ties run past a skip or limit, which documents come back is not its to say."""
    returned = [i for i in never if any(_cmp(i, got) == 0 for got in ids)]
    undecided = _undecided(ids, ties) if ties is not None and ties.cut else ""
    note = Message(N_("returned {ids}, which it should never return"),
                   ids=short_json(returned)) if returned else ""
    return Judgement(not returned, ids, note, undecided)


def _groups(expected: list[Any]) -> list[list[Any]]:
    """An ``ids`` expectation as its groups in order: a list inside it is a group of documents
    that tie, any other id a group of one."""
    return [item if isinstance(item, list) else [item] for item in expected]


def _same_ids(expected: list[Any], observed: list[Any], ordered: bool) -> bool:
    """Whether the ids returned are the ones expected: in any order, or in the order given,
    each group of ties in any order among itself."""
    groups = _groups(expected)
    if sum(map(len, groups)) != len(observed):
        return False
    if not ordered:
        key = functools.cmp_to_key(_cmp)
        flat = sorted((i for group in groups for i in group), key=key)
        return all(_cmp(a, b) == 0 for a, b in zip(flat, sorted(observed, key=key),
                                                    strict=True))
    start = 0
    for group in groups:
        if not _same_ids(group, observed[start:start + len(group)], ordered=False):
            return False
        start += len(group)
    return True


def _tie_doubt(expect: Expectation, ids: list[Any], ties: Ties | None) -> Text:
    """Why the model's ``ids`` cannot decide an ``ids`` expectation, or ``""``: where its
    documents tie and the order among them (or, past a skip or limit, which of them come back)
    would decide whether the claim holds. Where every order among the ties gives the same
    verdict, the answer decides."""
    if ties is None or not (ties.cut or (expect.ordered and ties.runs)):
        return ""
    if ties.cut:
        return _undecided(ids, ties)
    groups = _groups(expect.value)
    if sum(map(len, groups)) != len(ids):
        return ""  # another number of documents: no order among ties makes it hold
    bounds, start = [], 0
    for group in groups:
        bounds.append((start, start + len(group)))
        start += len(group)
    runs = _runs_of_one(ties.runs, len(ids))
    if not _some_order_fits(groups, bounds, runs, ids):
        return ""  # no order among the ties holds: the answer decides (it does not hold)
    if all(any(a <= s and e <= b for a, b in bounds) for s, e in runs):
        return ""  # every order among the ties holds: each tie is inside one group
    return _undecided(ids, ties)


def _runs_of_one(runs: tuple[tuple[int, int], ...], n: int) -> list[tuple[int, int]]:
    """The runs of ties, and each other position as a run of one: every position in one."""
    tied = {p for s, e in runs for p in range(s, e)}
    return sorted([*runs, *((p, p + 1) for p in range(n) if p not in tied)])


def _some_order_fits(groups: list[list[Any]], bounds: list[tuple[int, int]],
                     runs: list[tuple[int, int]], ids: list[Any]) -> bool:
    """Whether some order within the runs of ties puts each expected group in its place:
    each run must give each group as many of its ids as the two share positions."""
    for s, e in runs:
        for group, (a, b) in zip(groups, bounds, strict=True):
            shared = max(0, min(e, b) - max(s, a))
            given = sum(any(_cmp(i, g) == 0 for g in group) for i in ids[s:e])
            if given != shared:
                return False
    return True


def _undecided(shown: list[Any], ties: Ties) -> Message:
    """The model's answer cannot decide: which documents tie, and why that matters."""
    tied = "; ".join(short_json([d.get("_id") if isinstance(d, dict) else d
                                 for d in shown[s:e]]) for s, e in ties.runs)
    if ties.unsorted and ties.cut:
        return Message(N_("the read has no sort, and a skip or limit: which documents come "
                          "back depends on an order MongoDB does not guarantee without a sort "
                          "(db.collection.find), so labkit's model cannot tell; add a sort"))
    if ties.unsorted:
        return Message(N_("the read has no sort, and MongoDB guarantees no order without one "
                          "(db.collection.find): labkit's model cannot tell whether the "
                          "documents {tied} come back in this order; add a sort, or expect "
                          "them in any order"), tied=tied)
    if ties.cut:
        return Message(N_("documents tie on every sort path across the skip or limit: which "
                          "of them come back depends on an order MongoDB does not fix (it "
                          "returns tied documents in any order: cursor.sort), so labkit's "
                          "model cannot tell"))
    return Message(N_("the documents {tied} tie on every sort path, and MongoDB returns tied "
                      "documents in any order (cursor.sort): labkit's model cannot tell "
                      "whether this order holds; a list inside ids makes a group of ties"),
                   tied=tied)


# The Unified Test Format's matching rules ------------------------------------------------


def _special(value: Any) -> str | None:
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        if isinstance(key, str) and key.startswith("$$"):
            return key
    return None


def _operator(op: str, argument: Any, actual: Any, root: bool) -> Message | None:
    if op == "$$unsetOrMatches":  # a root document stays one: extra fields are still allowed
        return match(argument, actual, root=root)
    if op == "$$matchAsRoot":
        return match(argument, actual, root=True)
    if op == "$$type":
        names = argument if isinstance(argument, list) else [argument]
        kind = bson_order.bson_type(actual)
        numeric = kind in ("int", "long", "double", "decimal")
        if kind in names or (numeric and "number" in names):
            return None
        return Message(N_("type {type}, not {types}"), type=kind, types=_either(names))
    if op == "$$lte":
        if not (_is_number(actual) and _is_number(argument)) or _cmp(actual, argument) > 0:
            return Message(N_("{actual} is not <= {bound}"), actual=short_json(actual),
                           bound=short_json(argument))
        return None
    raise NotSupported(Message(N_("the claim check does not evaluate {op}"), op=op))


def _either(names: list[Any]) -> Text:
    """``int``, ``int or long``, ``int or long or double``: the names as alternatives."""
    text: Text = str(names[0]) if names else ""
    for name in names[1:]:
        text = Message(N_("{first} or {second}"), first=text, second=str(name))
    return text


def _is_number(value: Any) -> bool:
    from bson import Decimal128, Int64

    return isinstance(value, int | float | Int64 | Decimal128) and not isinstance(value, bool)


def match(expected: Any, actual: Any, root: bool = False) -> Message | None:
    """Match as the Unified Test Format does: None, or where and how ``actual`` differs (a
    message).

    Root documents may carry extra fields; nested ones may not; key order is free; arrays
    match element by element; 32-bit, 64-bit and double numbers match by value (not Decimal128).
    """
    op = _special(expected)
    if op:
        return _operator(op, expected[op], actual, root)
    if isinstance(expected, dict):
        return _match_document(expected, actual, root)
    if isinstance(expected, list):
        return _match_array(expected, actual)
    return _scalar(expected, actual)


def _match_document(expected: dict[str, Any], actual: Any, root: bool) -> Message | None:
    if not isinstance(actual, dict):
        return Message(N_("expected a document, got {actual}"), actual=short_json(actual, 60))
    for key, value in expected.items():
        problem = _match_field(key, value, actual)
        if problem:
            return problem
    extra = [k for k in actual if k not in expected]
    if extra and not root:
        return Message(N_("unexpected field {field}"), field=extra[0])
    return None


def _match_field(key: str, value: Any, actual: dict[str, Any]) -> Message | None:
    """One expected field against the document: ``$$exists`` and ``$$unsetOrMatches`` are the
    operators that may accept a missing field."""
    inner = _special(value)
    if inner == "$$exists":
        if bool(value[inner]) != (key in actual):
            return Message(N_("{key}: missing") if key not in actual else N_("{key}: present"),
                           key=key)
        return None
    if inner == "$$unsetOrMatches" and key not in actual:
        return None
    if key not in actual:
        return Message(N_("{key}: missing"), key=key)
    problem = match(value, actual[key])
    return Message("{key}: {problem}", key=key, problem=problem) if problem else None


def _match_array(expected: list[Any], actual: Any,
                 element: Callable[[Any, Any], Message | None] | None = None) -> Message | None:
    """An array element by element, each compared by ``element`` (``match``'s rules unless
    given: ``_exactly`` for an outcome)."""
    compare = element or match
    if not isinstance(actual, list):
        return Message(N_("expected an array, got {actual}"), actual=short_json(actual, 60))
    if len(actual) != len(expected):
        return Message(N_("{got:,} elements, not {wanted:,}"), got=len(actual),
                       wanted=len(expected))
    for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
        problem = compare(want, got)
        if problem:
            return Message("[{index:d}]: {problem}", index=index, problem=problem)
    return None


def _scalar(expected: Any, actual: Any) -> Message | None:
    from bson import Decimal128

    if _is_number(expected) and _is_number(actual):
        decimal = isinstance(expected, Decimal128), isinstance(actual, Decimal128)
        if decimal[0] != decimal[1] or _cmp(expected, actual) != 0:
            return _differs(actual, expected)
        return None
    try:
        same = (bson_order.bson_type(expected) == bson_order.bson_type(actual)
                and _cmp(expected, actual) == 0)
    except BadInput:
        same = expected == actual
    return None if same else _differs(actual, expected)


def _differs(actual: Any, expected: Any) -> Message:
    return Message(N_("{actual}, not {expected}"), actual=short_json(actual, 60),
                   expected=short_json(expected, 60))


def _exactly(expected: Any, actual: Any) -> Message | None:
    """A test's ``outcome``: "the rules in Evaluating Matches do not apply and the documents
    MUST match exactly", key order free (unified-test-format.md, "Executing a Test",
    mongodb/specifications at 92b3c0b9): the same fields, the same BSON types and values, arrays
    element by element. None, or where and how ``actual`` differs."""
    if isinstance(expected, dict):
        return _exact_document(expected, actual)
    if isinstance(expected, list):
        return _match_array(expected, actual, _exactly)
    try:
        same = (bson_order.bson_type(expected) == bson_order.bson_type(actual)
                and _cmp(expected, actual) == 0)
    except BadInput:
        same = expected == actual
    return None if same else _differs(actual, expected)


def _exact_document(expected: dict[str, Any], actual: Any) -> Message | None:
    if not isinstance(actual, dict):
        return Message(N_("expected a document, got {actual}"), actual=short_json(actual, 60))
    for key in [*expected, *(k for k in actual if k not in expected)]:
        if key not in actual:
            return Message(N_("{key}: missing"), key=key)
        if key not in expected:
            return Message(N_("unexpected field {field}"), field=key)
        problem = _exactly(expected[key], actual[key])
        if problem:
            return Message("{key}: {problem}", key=key, problem=problem)
    return None



def _match_list(expected: list[Any], actual: Any, ordered: bool,
                root: bool) -> Message | None:
    if not isinstance(actual, list):
        return Message(N_("expected a list, got {actual}"), actual=short_json(actual, 60))
    if len(actual) != len(expected):
        return Message(N_("{got:,} results, not {wanted:,}"), got=len(actual),
                       wanted=len(expected))
    if ordered:
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            problem = match(want, got, root=root)
            if problem:
                return Message("[{index:d}]: {problem}", index=index, problem=problem)
        return None
    left = list(actual)
    for index, want in enumerate(expected):
        found = next((i for i, got in enumerate(left) if match(want, got, root=root) is None),
                     None)
        if found is None:
            return Message(N_("nothing matches expected [{index:d}] {wanted}"), index=index,
                           wanted=short_json(want, 80))
        left.pop(found)
    return None


def unjudged_checks(expect: Expectation) -> list[str]:
    """The ``expectError`` assertions a claim check does not judge (labels, write errors…)."""
    if expect.kind != "error" or not isinstance(expect.value, dict):
        return []
    return sorted(set(expect.value) - _ERROR_CHECKS)
