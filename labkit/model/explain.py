"""Why the model places each document where it does: for ``find``, whether the document matches,
the rule that decided and the values it met; for ``sort``, the value the document sorts by and
the rule that gives that value its place.

The verdicts are the deciding functions' own: a row's ``matched`` is the compiled filter
``reads.find`` applies, a sort's rows come in the order ``bson_order.sort`` gives and each row's
key is ``bson_order.sort_values``. The explanation re-asks the same compiled comparisons
(``match.passes_alone``) clause by clause and value by value, and names the rule by what decided
there: the values' brackets, an array's elements, a missing field, NaN, the collation. Each rule
has a stable identifier and the source the model's tests cite for it (``RULES``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from labkit.i18n import N_, Message, Text
from labkit.model import regex
from labkit.model.bson_order import (
    EMPTY_ARRAY,
    MISSING,
    TYPE_RANKS,
    UNDEFINED,
    Document,
    SortKey,
    SortSpec,
    bson_type,
    key,
    parse_sort,
    sort,
    sort_values,
)
from labkit.model.bson_order import compare as bson_order_compare
from labkit.model.collation import collation_strings
from labkit.model.expr import collating, compile_expression, strings_in_force, truthy
from labkit.model.fixtures import relaxed
from labkit.model.match import (
    candidates,
    compile_filter,
    is_operator_object,
    is_regex,
    passes_alone,
    path_values,
)
from labkit.model.versions import check_rules_version

_MANUAL = "https://www.mongodb.com/docs/manual/reference/"
_ORDER_PAGE = _MANUAL + "bson-type-comparison-order/"


@dataclass(frozen=True)
class Rule:
    """One of MongoDB's rules as the explanations name it: a stable identifier, what it says,
    and where it comes from (the jstests lines at a commit, or the manual's page)."""

    id: str
    says: str
    source: str


RULES: dict[str, Rule] = {rule.id: rule for rule in (
    Rule("type-bracketing", N_("a comparison ($eq, $gt, $gte, $lt, $lte, $in) meets only values "
                               "of its operand's type bracket; a value of another type never "
                               "matches"), _ORDER_PAGE),
    Rule("bson-order", N_("within a bracket, values compare in BSON order: numbers by value "
                          "across int, long, double and decimal, strings by their bytes"),
         _ORDER_PAGE),
    Rule("array-element-matching", N_("a condition on an array matches when the array as a "
                                      "whole or any one of its elements matches"),
         "https://www.mongodb.com/docs/manual/tutorial/query-arrays/"),
    Rule("null-matches-missing", N_("an equality with null matches null and a missing field; "
                                    "nothing is above or below null"),
         "jstests/core/query/null_query_semantics.js:46-77 at 1704949c"),
    Rule("null-matches-undefined", N_("before 8.0, an equality with null also matches the "
                                      "deprecated undefined"),
         "jstests/core/null_query_semantics.js:39-43 at 1a18c8f8"),
    Rule("null-through-arrays", N_("before 9.0, a dotted path through an array reaches only "
                                   "the elements that are documents: a scalar or an empty "
                                   "array on the way gives no value, not null; since 9.0 it "
                                   "gives null"),
         "https://www.mongodb.com/docs/manual/release-notes/9.0-compatibility/"),
    Rule("missing-field", N_("a missing field holds no value to compare: only null (and "
                             "$exists: false) match it"),
         "https://www.mongodb.com/docs/manual/tutorial/query-for-null-fields/"),
    Rule("min-max-key", N_("MinKey is below every value and MaxKey above it, a missing field "
                           "included: $gt MinKey and $lt MaxKey match every document that "
                           "holds neither, with or without the field"),
         "jstests/core/index/index_bounds_minkey.js:24-33 at 1e98a0f2"),
    Rule("nan", N_("NaN equals only NaN and is no other number's neighbour in a query; in a "
                   "sort it comes below every other number"),
         "jstests/core/query/nan.js:30-55 at 4be00f9a"),
    Rule("collation", N_("under a collation, strings compare by ICU's order for its locale "
                         "and strength, not by their bytes (never in $regex)"),
         "jstests/core/query/collation/collation.js:406-753 at 6fdbf4c4"),
    Rule("negation", N_("$ne, $nin, $not and $nor keep what their condition does not match, "
                        "of every type"), _MANUAL + "operator/query/ne/"),
    Rule("expr-no-bracketing", N_("$expr compares values of any types in BSON order, without "
                                  "type bracketing"), _MANUAL + "operator/query/expr/"),
    Rule("query-operator", N_("an operator ($exists, $type, $regex, $elemMatch, $size, $all, "
                              "$mod) decides by its own test"), _MANUAL + "operator/query/"),
    Rule("empty-filter", N_("the empty filter matches every document"),
         _MANUAL + "method/db.collection.find/"),
    Rule("object-order", N_("two objects compare pair by pair in their order: first each "
                            "value's type rung, then the field names, then the values; an "
                            "object that runs out of pairs first sorts first"),
         _ORDER_PAGE),
    Rule("type-order", N_("a sort places values by their type's rung (MinKey, null, numbers, "
                          "strings, objects, arrays, binary data, ObjectId, booleans, dates, "
                          "timestamps, regular expressions, MaxKey), then by value"),
         _ORDER_PAGE),
    Rule("array-sort-key", N_("an array sorts by its smallest element ascending and by its "
                              "largest descending"),
         "jstests/core/query/sort/sort_array.js:59-66, 72-79 at 6fdbf4c4"),
    Rule("missing-sorts-as-null", N_("a missing field sorts as null"),
         "jstests/core/query/sort/sort_dotted_paths.js:29-34 at b6fcc56b"),
    Rule("empty-array-below-null", N_("an empty array sorts below null"),
         "jstests/core/query/sort/sort_dotted_paths.js:29-34 at b6fcc56b"),
    Rule("ties-any-order", N_("ties: any order (cursor.sort). Documents equal on every sort "
                              "path may come back in any order, one run unlike the next; "
                              "labkit lists them in the order they were read in"),
         _MANUAL + "method/cursor.sort/#sort-consistency"),
)}

# Each rung of the type ladder, by the rank a sort key starts with.
RUNGS = {
    0: N_("the MinKey rung"), 1: N_("the rung below null"), 2: N_("the null rung"),
    3: N_("the numbers' rung"), 4: N_("the strings' rung"), 5: N_("the objects' rung"),
    6: N_("the arrays' rung"), 7: N_("the binary data rung"), 8: N_("the ObjectIds' rung"),
    9: N_("the booleans' rung"), 10: N_("the dates' rung"), 11: N_("the timestamps' rung"),
    12: N_("the regular expressions' rung"), 13: N_("the JavaScript rung"),
    14: N_("the JavaScript with scope rung"), 15: N_("the MaxKey rung"),
}
_NAN: SortKey = (3, 0)
_LONGEST_VALUE = 60  # characters of a value a sentence quotes before it is cut


@dataclass(frozen=True)
class Why:
    """What decided one condition for one document: whether it holds, the sentence naming the
    values that decided, and the rule's identifier."""

    holds: bool
    because: Message
    rule: str


@dataclass(frozen=True)
class FindRow:
    """One document under ``find``: its ``_id``, whether the filter matches it (the filter's
    own answer), why, and the rule and its source. ``explained`` is the verdict the
    explanation's clauses add up to, which is ``matched`` (the property tests hold them)."""

    id: Any
    matched: bool
    because: Message
    rule: str
    explained: bool

    @property
    def source(self) -> str:
        return RULES[self.rule].source

    def to_dict(self) -> dict[str, Any]:
        """The row as ``--json`` prints it."""
        return _as_json(self, "matched", self.matched)


@dataclass(frozen=True)
class SortRow:
    """One document under ``sort``, in the sort's order: its ``_id``, the value it sorts by on
    each path, why, and the rule and its source."""

    id: Any
    key: dict[str, Any]
    because: Message
    rule: str

    @property
    def source(self) -> str:
        return RULES[self.rule].source

    def to_dict(self) -> dict[str, Any]:
        """The row as ``--json`` prints it."""
        return _as_json(self, "key", self.key)


def _as_json(row: FindRow | SortRow, decided: str, decision: Any) -> dict[str, Any]:
    """A row as ``--json`` prints it: ``_id``, its decision (``matched`` or ``key``), then
    ``because`` in English (as files keep it), ``rule`` and ``source``."""
    return {"_id": row.id, decided: decision, "because": row.because.english(),
            "rule": row.rule, "source": row.source}


def shown_value(value: Any) -> str:
    """A value as a sentence quotes it: relaxed Extended JSON, cut short past 60 characters."""
    text = "[]" if value is EMPTY_ARRAY else json.dumps(relaxed(value), ensure_ascii=False)
    return text if len(text) <= _LONGEST_VALUE else text[:_LONGEST_VALUE - 1] + "…"


# find ----------------------------------------------------------------------------------------

Explainer = Callable[[Document], Why]


def find(docs: Iterable[Document], query: Document, collation: dict[str, Any] | None = None,
         mongodb_version: str | None = None) -> list[FindRow]:
    """Each document, in file order, with whether ``find(query)`` returns it and why."""
    version = check_rules_version(mongodb_version)
    test = compile_filter(query, version, collation=collation)  # reads.find's own filter
    with collating(collation_strings(collation)):
        explain = _filter(query, version)
    rows = []
    with regex.one_read():  # bounded: see regex.MAX_LIMIT_HITS
        for doc in docs:
            why = explain(doc)
            rows.append(FindRow(doc.get("_id"), test(doc), why.because, why.rule, why.holds))
    return rows


def _filter(query: Document, version: str) -> Explainer:
    """The explainer of a whole filter document: its clauses all hold, the first that fails
    decides."""
    clauses: list[Explainer] = []
    for name, condition in query.items():
        if name in ("$and", "$or", "$nor"):
            clauses.append(_logical(name, [_filter(c, version) for c in condition]))
        elif name == "$expr":
            clauses.append(_expr(condition))
        elif name != "$comment":
            clauses.append(_field(name, condition, version))
    if not clauses:
        return lambda doc: Why(True, Message(N_("the empty filter matches every document")),
                               "empty-filter")
    return _all_of(clauses)


def _all_of(clauses: list[Explainer]) -> Explainer:
    if len(clauses) == 1:
        return clauses[0]

    def every(doc: Document) -> Why:
        whys = [clause(doc) for clause in clauses]
        return next((why for why in whys if not why.holds), whys[0])
    return every


def _logical(name: str, clauses: list[Explainer]) -> Explainer:
    if name == "$and":
        return _all_of(clauses)

    def either(doc: Document) -> Why:
        whys = [clause(doc) for clause in clauses]
        first = next((why for why in whys if why.holds), None)
        if name == "$or":
            if first is not None:
                return first
            return Why(False, Message(N_("no clause of $or matches; the first: {why}"),
                                      why=whys[0].because), whys[0].rule)
        if first is not None:
            return Why(False, Message(N_("$nor leaves it out, as one of its clauses matches: "
                                        "{why}"), why=first.because), "negation")
        return Why(True, Message(N_("no clause of $nor matches, so $nor keeps it; the first: "
                                    "{why}"), why=whys[0].because), "negation")
    return either


def _expr(condition: Any) -> Explainer:
    expression = compile_expression(condition)

    def expr(doc: Document) -> Why:
        value = expression(doc)
        words = (N_("$expr {expr} is {value} for this document, so it matches ($expr "
                    "compares across types, without type bracketing)") if truthy(value) else
                 N_("$expr {expr} is {value} for this document, so it does not match ($expr "
                    "compares across types, without type bracketing)"))
        shown = "null" if value is MISSING else shown_value(value)
        return Why(truthy(value), Message(words, expr=shown_value(condition), value=shown),
                   "expr-no-bracketing")
    return expr


def _field(path: str, condition: Any, version: str) -> Explainer:
    """The explainer of ``{path: condition}``: an equality, a regex or operators (each
    operator one clause of an ``$and``, as the filter applies them)."""
    if is_regex(condition):
        return _operator(path, {"$regex": condition}, version)
    if not is_operator_object(condition):
        return _comparison(path, "$eq", condition, version)
    clauses = []
    for op, operand in condition.items():
        if op == "$options":
            continue
        if op == "$regex":
            clauses.append(_operator(path, {op: operand, **(
                {"$options": condition["$options"]} if "$options" in condition else {})},
                version))
        else:
            clauses.append(_one_operator(path, op, operand, version))
    return _all_of(clauses)


_COMPARISONS = ("$eq", "$gt", "$gte", "$lt", "$lte")


def _one_operator(path: str, op: str, operand: Any, version: str) -> Explainer:
    if op in _COMPARISONS and not is_regex(operand):
        return _comparison(path, op, operand, version)
    if op == "$ne" and not is_regex(operand):
        return _negated(_comparison(path, "$eq", operand, version), op, operand)
    if op in ("$in", "$nin") and isinstance(operand, list) and operand and not any(
            is_operator_object(item) for item in operand):
        # each value its own test, a regular expression matched as $in matches it: the
        # value that decides is named, not the whole list cut short
        inside = _any_of([_regex_item(path, item, version) if is_regex(item)
                          else _comparison(path, "$eq", item, version) for item in operand],
                         shown_value({"$in": operand}))
        return inside if op == "$in" else _negated(inside, op, operand)
    if op == "$not" and isinstance(operand, dict) and is_operator_object(operand):
        return _negated(_field(path, operand, version), op, operand)
    return _operator(path, {op: operand}, version)


def _regex_item(path: str, item: Any, version: str) -> Explainer:
    """One regular expression of an ``$in``: matched as ``$regex`` matches it (strings, and a
    stored expression of the same pattern and flags), written short, as its pattern and
    options, not its Extended JSON cut in the middle."""
    source, flags = regex.regex_source(item, None, "$in")
    return _operator(path, {"$regex": source, "$options": "".join(sorted(flags))}, version)


def _any_of(clauses: list[Explainer], condition: str) -> Explainer:
    """``$in``: one of its values' equalities holds; the first that holds decides."""
    def any_of(doc: Document) -> Why:
        whys = [clause(doc) for clause in clauses]
        hit = next((why for why in whys if why.holds), None)
        if hit is not None:
            return hit
        return Why(False, Message(N_("no value of {condition} matches; the first: {why}"),
                                  condition=condition, why=whys[0].because), whys[0].rule)
    return any_of


def _negated(inner: Explainer, op: str, operand: Any) -> Explainer:
    condition = shown_value({op: operand})

    def negated(doc: Document) -> Why:
        why = inner(doc)
        words = (N_("{condition} leaves it out, as the condition it negates matches: {why}")
                 if why.holds else
                 N_("{condition} keeps it, as the condition it negates does not match, of any "
                    "type: {why}"))
        return Why(not why.holds, Message(words, condition=condition, why=why.because),
                   "negation")
    return negated


def _operator(path: str, condition: dict[str, Any], version: str) -> Explainer:
    """Any other operator: the filter's own test of ``{path: condition}``, and what the path
    holds."""
    test = compile_filter({path: condition}, version)
    shown = shown_value(condition)

    def operator(doc: Document) -> Why:
        holds = test(doc)
        present = [v for v in _reached(doc, path, version) if v is not MISSING]
        if not present:
            words = (N_("no `{path}`: {condition} matches the missing field") if holds else
                     N_("no `{path}`: {condition} does not match a missing field"))
            return Why(holds, Message(words, path=path, condition=shown), "query-operator")
        words = (N_("`{path}` holds the {type} {value}: {condition} matches it") if holds else
                 N_("`{path}` holds the {type} {value}: {condition} does not match it"))
        held = present[0] if len(present) == 1 else present
        return Why(holds, Message(words, path=path, value=shown_value(held),
                                  type=_type_of(held), condition=shown), "query-operator")
    return operator


# One comparison: the values a path reaches, each met alone --------------------------------------


@dataclass(frozen=True)
class _Met:
    """One value a comparison met: the value, the array it is an element of (None when it is
    what the path reached), and whether the comparison holds for it alone."""

    value: Any
    array: list[Any] | None
    holds: bool


class _Comparison:
    """``{path: {op: operand}}`` explained: the comparison the filter compiles (under the
    collation in force), asked of each value the path reaches."""

    def __init__(self, path: str, op: str, operand: Any, version: str) -> None:
        self.path, self.op, self.operand, self.version = path, op, operand, version
        self.strings = strings_in_force()
        self.passes = passes_alone(op, operand, version)
        self.wanted = None if operand is None else key(operand, self.strings)
        self.condition = shown_value({op: operand})

    def met(self, doc: Document) -> list[_Met]:
        out = []
        for reached in path_values(doc, self.path, self.version):
            expanded = candidates([reached])
            whole = expanded[0]
            out.append(_Met(whole, None, self.passes(whole)))
            out.extend(_Met(element, whole, self.passes(element)) for element in expanded[1:])
        return out

    def __call__(self, doc: Document) -> Why:
        met = self.met(doc)
        hit = next((m for m in met if m.holds), None)
        if hit is not None:
            return self._holds(hit, doc)
        return self._fails(met)

    def _says(self, words: str, rule: str, holds: bool, value: Any = None,
              array: Any = None) -> Why:
        return Why(holds, Message(words, path=self.path, condition=self.condition,
                                  value=shown_value(value), type=_type_of(value),
                                  array=shown_value(array)), rule)

    def _holds(self, hit: _Met, doc: Document) -> Why:
        value = hit.value
        if self.operand is None:
            return self._null_holds(value, doc)
        if value is MISSING:  # only MinKey and MaxKey take a missing field (_across_brackets)
            return self._says(N_("no `{path}`: a missing field stands above MinKey and below "
                                 "MaxKey, as every value does, so {condition} matches"),
                              "min-max-key", True)
        if self.wanted == _NAN:
            return self._says(N_("`{path}` is NaN, and NaN equals only NaN: {condition} "
                                 "matches it"), "nan", True, value)
        if hit.array is not None:
            return self._says(N_("`{path}` is the array {array}: its element {value} passes "
                                 "{condition}, so the document matches"),
                              "array-element-matching", True, value, hit.array)
        if self._collated(value):
            return self._says(N_("`{path}` holds the string {value}, which passes {condition} "
                                 "under the collation (ICU's order for its locale and "
                                 "strength)"), "collation", True, value)
        if self.op == "$eq":
            return self._says(N_("`{path}` holds the {type} {value}, equal to {condition}'s "
                                 "value"), "bson-order", True, value)
        return self._says(N_("`{path}` holds the {type} {value}, which passes {condition} "
                             "in BSON order"), "bson-order", True, value)

    def _null_holds(self, value: Any, doc: Document | None = None) -> Why:
        if value is MISSING and doc is not None and self._only_since_9(doc):
            return self._says(N_("`{path}` passes through an array with an element that is no "
                                 "document holding the rest of the path: since MongoDB 9.0 "
                                 "that gives null (before, no value), so {condition} matches"),
                              "null-through-arrays", True)
        if value is MISSING:
            return self._says(N_("no `{path}`: a missing field equals null, so {condition} "
                                 "matches"), "null-matches-missing", True)
        if value is UNDEFINED:
            return self._says(N_("`{path}` is undefined, which before 8.0 equals null: "
                                 "{condition} matches"), "null-matches-undefined", True)
        return self._says(N_("`{path}` is null: {condition} matches"), "null-matches-missing",
                          True)

    def _only_since_9(self, doc: Document) -> bool:
        """Whether the path reaches a missing value only by 9.0's rule: before it, a scalar or
        an empty array inside an array on the way gave no value at all."""
        if self.version != "9.0":  # the one rule set with 9.0's null through arrays
            return False
        before = [m for reached in path_values(doc, self.path, "8.0")
                  for m in candidates([reached])]
        return not any(m is MISSING or m is None for m in before)

    def _collated(self, value: Any) -> bool:
        """Whether the collation compared this value: a string, with a collation in force."""
        return self.strings is not None and type(value) is str

    def _fails(self, met: list[_Met]) -> Why:
        if not met:  # through an array none of whose elements is a document holding the rest
            return self._says(N_("`{path}` reaches no value: the array on its way holds no "
                                 "document with the rest of the path, so {condition} does not "
                                 "match"), "null-through-arrays" if self.operand is None
                              else "missing-field", False)
        present = [m for m in met if m.value is not MISSING]
        if self.operand is None:
            return self._null_fails(present)
        if not present and self.wanted is not None and self.wanted[0] in (0, 15):
            return self._says(N_("no `{path}`: a missing field stands above MinKey and below "
                                 "MaxKey, as every value does, so {condition} does not match"),
                              "min-max-key", False)
        if not present:
            return self._says(N_("no `{path}`: a missing field holds no value for "
                                 "{condition} to compare, so it does not match"),
                              "missing-field", False)
        arrays = [m.value for m in present if type(m.value) is list]
        if arrays:
            return self._says(N_("`{path}` is the array {array}: neither the array nor any "
                                 "element passes {condition}"), "array-element-matching",
                              False, array=arrays[0])
        return self._one_fails(present[0].value)

    def _one_fails(self, value: Any) -> Why:
        rank = self.wanted[0] if self.wanted is not None else 2
        if rank not in (0, 15) and TYPE_RANKS.get(type(value), key(value)[0]) != rank:
            return self._says(N_("`{path}` holds the {type} {value}; {condition} compares "
                                 "only within its operand's bracket, so a value of another "
                                 "type never matches"), "type-bracketing", False, value)
        if self.wanted == _NAN or key(value) == _NAN:
            return self._says(N_("`{path}` holds {value}; NaN equals only NaN and is no "
                                 "other number's neighbour, so {condition} does not match"),
                              "nan", False, value)
        if self._collated(value):
            return self._says(N_("`{path}` holds the string {value}, which fails {condition} "
                                 "under the collation (ICU's order for its locale and "
                                 "strength)"), "collation", False, value)
        if self.op == "$eq":
            return self._says(N_("`{path}` holds the {type} {value}, not equal to "
                                 "{condition}'s value"), "bson-order", False, value)
        return self._says(N_("`{path}` holds the {type} {value}, which fails {condition} "
                             "in BSON order"), "bson-order", False, value)

    def _null_fails(self, present: list[_Met]) -> Why:
        if self.op in ("$gt", "$lt"):
            return self._says(N_("nothing is above or below null: {condition} matches no "
                                 "document"), "null-matches-missing", False)
        value = present[0].value
        if value is UNDEFINED:
            return self._says(N_("`{path}` is undefined, which since 8.0 is not null: "
                                 "{condition} does not match"), "null-matches-undefined",
                              False)
        return self._says(N_("`{path}` holds the {type} {value}: only null and a missing "
                             "field equal null, so {condition} does not match"),
                          "null-matches-missing", False, value)


def _reached(doc: Document, path: str, version: str) -> list[Any]:
    """The values a path reaches, each as it stands (an array a positional path reached
    whole, as that array)."""
    return [candidates([value])[0] for value in path_values(doc, path, version)]


def _comparison(path: str, op: str, operand: Any, version: str) -> Explainer:
    return _Comparison(path, op, operand, version)


def _type_of(value: Any) -> Text:
    """A value's ``$type`` alias for a sentence ("int", "string"), "value" for null (its
    alias, "null", would say it twice: "holds the value null"); empty for no value."""
    if value is None or value is MISSING:
        return Message(N_("value")) if value is None else ""
    return "array" if value is EMPTY_ARRAY else bson_type(value)


# sort ----------------------------------------------------------------------------------------


def sorted_rows(docs: Iterable[Document], spec: SortSpec,
                collation: dict[str, Any] | None = None,
                mongodb_version: str | None = None) -> list[SortRow]:
    """Each document in the order ``find().sort(spec)`` returns it, with the value it sorts
    by on each path and why it stands there."""
    version = check_rules_version(mongodb_version)
    pairs = parse_sort(spec)
    order = sort(docs, spec, collation=collation, mongodb_version=version)  # predict's order
    keyed = [sort_values(doc, spec, collation) for doc in order]
    rows = []
    for i, doc in enumerate(order):
        decided = _deciding_path(keyed, i)
        why = _sort_why(doc, pairs, keyed[i], decided, version, collation)
        if i and decided == 0:  # placed by its first path: where two objects, say which step
            why = _after_object(why, keyed[i - 1][0][0], keyed[i][0][0], pairs[0][1] < 0,
                                collation)
        rows.append(SortRow(doc.get("_id"), {path: _plain(value) for (path, _), (value, _)
                                             in zip(pairs, keyed[i], strict=True)},
                            why.because, why.rule))
    return rows


def _after_object(why: Why, before: Any, value: Any, descending: bool,
                  collation: Mapping[str, Any] | None = None) -> Why:
    """``why``, with the step that puts the object ``value`` after the object ``before`` (the
    row above it), where both are objects that differ."""
    if type(before) is not dict or type(value) is not dict:
        return why
    low, high = (value, before) if descending else (before, value)
    step = _object_step(low, high, dict(collation) if collation else None)
    if step is None:
        return why
    words = (N_("{why}; after {before}, as a descending sort puts the higher first: {step}")
             if descending else N_("{why}; after {before}: {step}"))
    return Why(True, Message(words, why=why.because, before=shown_value(before), step=step),
               "object-order")


def _object_step(low: dict[str, Any], high: dict[str, Any],
                 collation: dict[str, Any] | None = None) -> Message | None:
    """The first step at which ``low`` sorts before ``high``, as BSON compares two objects:
    pair by pair, the value's type rung, then the field name, then the value; the object that
    runs out of pairs first is lower. None where they compare equal."""
    for n, ((name_a, a), (name_b, b)) in enumerate(zip(low.items(), high.items(),
                                                      strict=False)):
        same = Message(N_("the first {n:d} field(s) are the same, then"), n=n) if n else \
            Message(N_("from the first field,"))
        rank_a, rank_b = key(a)[0], key(b)[0]
        if rank_a != rank_b:
            return Message(N_("{same} {low} ({low_rung}) is lower than {high} ({high_rung})"),
                           same=same, low=shown_value({name_a: a}), high=shown_value({name_b: b}),
                           low_rung=Message(RUNGS[rank_a]), high_rung=Message(RUNGS[rank_b]))
        if name_a != name_b:
            return Message(N_("{same} the field name `{low}` is lower than `{high}`"),
                           same=same, low=name_a, high=name_b)
        if bson_order_compare(a, b, collation) != 0:  # strings by the collation in force
            return Message(N_("{same} `{name}`: {low} is lower than {high}"), same=same,
                           name=name_a, low=shown_value(a), high=shown_value(b))
    if len(low) < len(high):
        return Message(N_("{low} is lower: it has the same first {n:d} field(s) and no more"),
                       low=shown_value(low), n=len(low))
    return None


def _plain(value: Any) -> Any:
    return [] if value is EMPTY_ARRAY else value


def _deciding_path(keyed: list[list[tuple[Any, SortKey]]], i: int) -> int:
    """The first path on which the document differs from both its neighbours in the order
    (their shared leading keys tie); the number of paths where it ties with one on all."""
    mine = [k for _, k in keyed[i]]
    shared = 0
    for j in (i - 1, i + 1):
        if 0 <= j < len(keyed):
            theirs = [k for _, k in keyed[j]]
            same = next((p for p, (a, b) in enumerate(zip(mine, theirs, strict=True))
                         if a != b), len(mine))
            shared = max(shared, same)
    return shared


def _sort_why(doc: Document, pairs: list[tuple[str, int]], keyed: list[tuple[Any, SortKey]],
              decided: int, version: str, collation: Mapping[str, Any] | None) -> Why:
    first = _place(doc, pairs[0], keyed[0], version, collation)
    if decided == 0:
        return first
    if decided >= len(pairs):
        return Why(True, Message(N_("{why}; it ties with a neighbour on every sort path, so "
                                    "MongoDB may return the ties in any order (cursor.sort); "
                                    "listed here in the order they were read in"),
                           why=first.because),
                   "ties-any-order")
    breaker = _place(doc, pairs[decided], keyed[decided], version, collation)
    rule = breaker.rule if first.rule == "type-order" else first.rule
    return Why(True, Message(N_("{why}; ties on `{tied}` are broken by `{path}`, which is "
                                "{value}"), why=first.because, tied=pairs[decided - 1][0],
                             path=pairs[decided][0],
                             value=shown_value(keyed[decided][0])), rule)


def _place(doc: Document, pair: tuple[str, int], chosen: tuple[Any, SortKey], version: str,
           collation: Mapping[str, Any] | None) -> Why:
    """Why one path's value gives the document its place: the rung and the rule that made the
    value what the document sorts by."""
    (path, direction), (value, sort_key) = pair, chosen
    reached = _reached(doc, path, version)
    rung = Message(RUNGS[sort_key[0]])
    values = dict(path=path, value=shown_value(value), type=_type_of(value), rung=rung)
    if value is EMPTY_ARRAY:
        return Why(True, Message(N_("`{path}` is the empty array: it sorts below null, on "
                                    "{rung}"), **values), "empty-array-below-null")
    if value is None and not any(v is None for v in candidates(reached)):
        return Why(True, Message(N_("no `{path}`: a missing field sorts as null, on {rung}"),
                                 **values), "missing-sorts-as-null")
    if len(reached) != 1 or reached[0] is not value:  # the path went through an array
        # what the path reached, a missing field as the null it sorts as
        whole = reached[0] if len(reached) == 1 else [
            None if v is MISSING else v for v in reached]
        words = (N_("`{path}` is the array {array}: an ascending sort uses its smallest "
                    "element, {value}, on {rung}") if direction > 0 else
                 N_("`{path}` is the array {array}: a descending sort uses its largest "
                    "element, {value}, on {rung}"))
        return Why(True, Message(words, array=shown_value(whole), **values), "array-sort-key")
    return _scalar_place(value, sort_key, values, collation)


def _scalar_place(value: Any, sort_key: SortKey, values: dict[str, Any],
                  collation: Mapping[str, Any] | None) -> Why:
    if sort_key == _NAN:
        return Why(True, Message(N_("`{path}` is NaN: it sorts below every other number, on "
                                    "{rung}"), **values), "nan")
    if type(value) is str and collation_strings(collation) is not None:
        return Why(True, Message(N_("`{path}` is the string {value}: under the collation "
                                    "{collation}, strings sort in ICU's order, not by their "
                                    "bytes"), collation=shown_value(dict(collation or {})),
                                 **values), "collation")
    if value is None:
        return Why(True, Message(N_("`{path}` is null, on {rung}"), **values), "type-order")
    return Why(True, Message(N_("`{path}` is the {type} {value}, on {rung} of the type "
                                "order"), **values), "type-order")



# The documents an answer and its expectation disagree about ---------------------------------

# How a document's place in an answer differs from the expectation, in the report's words.
DIFFERENCES = {"missing": N_("expected, not returned"), "extra": N_("returned, not expected"),
               "moved": N_("out of order")}


@dataclass(frozen=True)
class InQuestion:
    """One document a read's answer and its expectation disagree about (``how``:
    ``DIFFERENCES``' keys), with the model's explanation of it: its row under the read's
    filter (expected and not returned, or the reverse), or under its sort (out of order)."""

    how: str
    row: FindRow | SortRow


@dataclass(frozen=True)
class Explained:
    """A read whose answer differs from its expectation (its operation, the line it is written
    at, its filter, sort and collation), and the documents in question, explained: in the
    documents' order for the filter's rows, in sorted order for the sort's."""

    operation: str
    line: int
    asked: dict[str, Any]
    documents: tuple[InQuestion, ...]


def in_question(docs: list[Document], arguments: Mapping[str, Any], expected: list[Any],
                returned: list[Any], ordered: bool,
                mongodb_version: str | None = None) -> list[InQuestion]:
    """The documents of ``docs`` a find's answer (the ``_id`` of each document ``returned``)
    and its expectation (``expected``, in order where ``ordered``) disagree about, each with
    the model's row: under the filter, each expected and not returned or returned and not
    expected; under the sort, each of the documents in both that stands elsewhere than
    expected. ``_id`` values are the same when they compare equal (``1`` and ``1.0``)."""
    wanted, given = [key(v) for v in expected], [key(v) for v in returned]
    how: dict[SortKey, str] = {k: "missing" for k in wanted if k not in given}
    how.update({k: "extra" for k in given if k not in wanted})
    moved: set[SortKey] = set()
    if ordered:
        both = [k for k in wanted if k in given], [k for k in given if k in wanted]
        moved = {a for a, b in zip(*both, strict=True) if a != b}
    collation = arguments.get("collation")
    rows = find(docs, arguments.get("filter") or {}, collation, mongodb_version)
    found: list[InQuestion] = [InQuestion(how[k], row) for row in rows
                               if (k := key(row.id)) in how]
    if moved and arguments.get("sort"):
        matched = [doc for doc, row in zip(docs, rows, strict=True) if row.matched]
        found += [InQuestion("moved", row) for row in sorted_rows(
            matched, arguments["sort"], collation, mongodb_version) if key(row.id) in moved]
    return found
