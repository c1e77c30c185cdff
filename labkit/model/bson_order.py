"""An executable model of MongoDB's comparison rules: the BSON type order, sort keys,
collations and ``sort``, for MongoDB 6.0 to 9.0 (filters are :mod:`labkit.model.match`,
what a read returns :mod:`labkit.model.reads`).

Written from the manual's rules and the expectations in MongoDB's own test suite
(``jstests/core``); it predicts what a server returns, and the lessons put that
prediction beside the server's actual answer. Values are those the kit's
Extended JSON reader (:mod:`labkit.model.fixtures`) or ``pymongo``'s ``bson`` gives:
``int`` (int32, or int64 when it does not fit), ``Int64``, ``float``,
``Decimal128``, ``str``, ``dict``, ``list``, ``Binary``/``uuid.UUID``,
``ObjectId``, ``bool``, ``datetime``/``DatetimeMS``, ``Timestamp``,
``Regex``/``re.Pattern``, ``Code``, ``DBRef``, ``MinKey``, ``MaxKey``, ``None``;
``UNDEFINED`` is the deprecated undefined type and ``MISSING`` an absent field.
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import json
import re
import struct
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from bson import (
    Binary,
    Code,
    DatetimeMS,
    DBRef,
    Decimal128,
    Int64,
    MaxKey,
    MinKey,
    ObjectId,
    Regex,
    Timestamp,
)

from labkit.errors import BadInput, ParallelArrays
from labkit.i18n import N_, Message, _
from labkit.model.collation import Strings, collation_strings
from labkit.model.versions import check_rules_version

Document = dict[str, Any]  # a BSON document as the model reads it
SortKey = tuple[Any, ...]  # a value's place in MongoDB's order, as Python orders tuples
SortSpec = str | Mapping[str, Any] | Sequence[tuple[str, Any]]


class _One:
    """A value known by identity: a copy, a deep copy or a pickle of it is itself, so a
    fixture copied before an engine loads it (``insert_many`` adds ``_id``) keeps it."""

    def __copy__(self) -> _One:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _One:
        return self

    def __reduce__(self) -> str:
        return repr(self)  # the module-level name: pickle finds the one instance by it


class _Missing(_One):
    """An absent field (matches null in queries; below null, equal to undefined, in ``$expr``)."""

    def __repr__(self) -> str:
        return "MISSING"


class _Undefined(_One):
    """BSON's deprecated undefined type: its own type, below null; not equal to null."""

    def __repr__(self) -> str:
        return "UNDEFINED"


class _EmptyArray:
    """The sort key of an empty array: undefined, so below null and above MinKey."""

    def __repr__(self) -> str:
        return "EMPTY_ARRAY"


MISSING = _Missing()
UNDEFINED = _Undefined()
EMPTY_ARRAY = _EmptyArray()

# Canonical ranks, lowest first, as the manual orders the types.
RANKS = {
    "minKey": 0, "undefined": 1, "null": 2, "number": 3, "string": 4, "object": 5,
    "array": 6, "binData": 7, "objectId": 8, "bool": 9, "date": 10, "timestamp": 11,
    "regex": 12, "javascript": 13, "javascriptWithScope": 14, "maxKey": 15,
}
# The manual's ladder of types, as the lessons print it: a type's BSON name stays as it is in
# every language; the words around it are labkit's (``ladder()`` gives them in the learner's).
LADDER = ["MinKey", "Null", N_("Numbers (int, long, double, decimal)"), N_("Symbol, String"),
          N_("Object"), N_("Array"), "BinData", "ObjectId", N_("Boolean"), N_("Date"),
          "Timestamp", N_("Regular Expression"), "JavaScript", "JavaScript with scope",
          "MaxKey"]
NUMBER_TYPES = frozenset({"int", "long", "double", "decimal"})


def ladder() -> list[str]:
    """The ladder of types, lowest first, in the learner's language (``LADDER``)."""
    return [_(rung) for rung in LADDER]


_INT32 = range(-(2**31), 2**31)

_TYPE_OF: dict[type, str] = {
    type(None): "null", bool: "bool", Int64: "long", float: "double", Decimal128: "decimal",
    str: "string", list: "array", tuple: "array", dict: "object", DBRef: "object",
    Binary: "binData", uuid.UUID: "binData", bytes: "binData", ObjectId: "objectId",
    dt.datetime: "date", DatetimeMS: "date", Timestamp: "timestamp", Regex: "regex",
    re.Pattern: "regex", MinKey: "minKey", MaxKey: "maxKey", _Undefined: "undefined",
}


def bson_type(value: Any) -> str:
    """The ``$type`` alias of a value: double, string, object, array, binData, ... int, long."""
    kind = _TYPE_OF.get(type(value))
    if kind is not None:
        return kind
    if value is MISSING:
        return "missing"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Int64):
        return "long"
    if isinstance(value, int):
        return "int" if value in _INT32 else "long"
    if isinstance(value, Code):  # before str: Code is a str
        return "javascriptWithScope" if value.scope is not None else "javascript"
    for cls, name in _TYPE_OF.items():
        if isinstance(value, cls):
            return name
    raise BadInput(Message(N_("no BSON type for {value}"), value=repr(value)))


def rank(value: Any) -> int:
    """The canonical rank of a value's type (all numbers share one, as do symbol and string)."""
    rank: int = key(value)[0]
    return rank


# Sort keys: a Python tuple per value that orders exactly as MongoDB orders the values ----------


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_NAIVE_EPOCH = dt.datetime(1970, 1, 1)
_MS = dt.timedelta(milliseconds=1)


def _millis(value: dt.datetime) -> int:
    return (value - (_NAIVE_EPOCH if value.tzinfo is None else _EPOCH)) // _MS


def millis(value: Any) -> int:
    """Milliseconds since the epoch of a BSON Date (``datetime`` or ``DatetimeMS``)."""
    return int(value) if isinstance(value, DatetimeMS) else _millis(value)


def regex_flags(value: Any) -> str:
    """A regex's options as MongoDB's letters (``imsx``), from a Regex or a Python pattern."""
    flags = value.flags
    if isinstance(flags, str):
        return "".join(sorted(flags))
    letters = {re.IGNORECASE: "i", re.MULTILINE: "m", re.DOTALL: "s", re.VERBOSE: "x"}
    return "".join(sorted(letter for bit, letter in letters.items() if flags & bit))


def _regex_parts(value: Any) -> tuple[str, str]:
    return value.pattern, regex_flags(value)


def _number_key(value: Any) -> SortKey:
    # The nearest double orders numbers (rounding never reverses an order) and the exact value
    # breaks its ties: Python compares int, float and Decimal exactly, but Decimals slowly.
    # NaN sorts below every number and equal to itself, so it gets a slot of its own.
    if value != value:
        return (3, 0)
    return (3, 1, value, value)


def _int_key(value: int) -> SortKey:
    return (3, 1, float(value), value)


def decimal_value(value: Decimal128) -> decimal.Decimal:
    """The exact value of a Decimal128, read from its IEEE 754 BID bits (faster than bson's)."""
    low, high = _TWO_WORDS.unpack(value.bid)
    sign = "-" if high >> 63 else ""
    if (high >> 58) & 0x1F == 0x1F:
        return _NAN
    if (high >> 58) & 0x1F == 0x1E:
        return decimal.Decimal(sign + "Infinity")
    if (high >> 61) & 3 == 3:  # the large form always holds a non-canonical coefficient: 0
        exponent, coefficient = ((high >> 47) & 0x3FFF) - 6176, 0
    else:
        exponent = ((high >> 49) & 0x3FFF) - 6176
        coefficient = ((high & 0x1FFFFFFFFFFFF) << 64) | low
        if coefficient > _MAX_COEFFICIENT:
            coefficient = 0
    return decimal.Decimal(f"{sign}{coefficient}E{exponent}")


_TWO_WORDS = struct.Struct("<QQ")
_MAX_COEFFICIENT = 10**34 - 1
_NAN = decimal.Decimal("NaN")


def _decimal_key(value: Decimal128) -> SortKey:
    number = decimal_value(value)
    return (3, 0) if number.is_nan() else (3, 1, float(number), number)


def _document_key(value: dict[str, Any] | DBRef, strings: Strings) -> SortKey:
    items = value.as_doc().items() if isinstance(value, DBRef) else value.items()
    out = []
    for name, item in items:
        item_key = key(item, strings)
        out.append((item_key[0], name, item_key))
    return (5, tuple(out))


def _binary_key(value: Any) -> SortKey:
    if isinstance(value, uuid.UUID):
        return (7, 16, 4, value.bytes)
    subtype = getattr(value, "subtype", 0)
    return (7, len(value), subtype, bytes(value))


_KEYS: dict[type, Callable[[Any], SortKey]] = {
    type(None): lambda v: (2,),
    bool: lambda v: (9, v),
    int: _int_key,
    Int64: lambda v: _int_key(int(v)),
    float: _number_key,
    Decimal128: _decimal_key,
    Binary: _binary_key,
    uuid.UUID: _binary_key,
    bytes: _binary_key,
    ObjectId: lambda v: (8, v.binary),
    dt.datetime: lambda v: (10, _millis(v)),
    DatetimeMS: lambda v: (10, int(v)),
    Timestamp: lambda v: (11, v.time, v.inc),
    Regex: lambda v: (12, *_regex_parts(v)),
    re.Pattern: lambda v: (12, *_regex_parts(v)),
    MinKey: lambda v: (0,),
    MaxKey: lambda v: (15,),
    _Undefined: lambda v: (1,),
    _Missing: lambda v: (1,),
    _EmptyArray: lambda v: (1,),
}


# The rank (a key's first item) of each type whose rank does not depend on the value.
TYPE_RANKS: dict[type, int] = {
    type(None): 2, bool: 9, int: 3, Int64: 3, float: 3, Decimal128: 3, str: 4, dict: 5,
    list: 6, Binary: 7, uuid.UUID: 7, bytes: 7, ObjectId: 8, dt.datetime: 10, DatetimeMS: 10,
    Timestamp: 11, Regex: 12, re.Pattern: 12, MinKey: 0, MaxKey: 15, _Undefined: 1,
    _Missing: 1,
}


def key(value: Any, strings: Strings = None) -> SortKey:
    """A tuple that Python orders exactly as MongoDB orders BSON values (no collation).

    ``strings`` replaces each string's payload, for a collation.
    """
    make = _KEYS.get(type(value))
    if make is not None:
        return make(value)
    kind = type(value)
    if kind is str:
        return (4, value if strings is None else strings(value))
    if kind is dict:
        return _document_key(value, strings)
    if kind is list:
        return (6, tuple([key(item, strings) for item in value]))
    return _slow_key(value, strings)


def _slow_key(value: Any, strings: Strings) -> SortKey:
    if isinstance(value, Code):
        code = str(value)
        if value.scope is None:
            return (13, code)
        return (14, code, key(dict(value.scope), strings))
    if isinstance(value, bool):
        return (9, bool(value))
    if isinstance(value, int):
        return _int_key(int(value))
    if isinstance(value, str):
        return key(str(value), strings)
    if isinstance(value, dict | DBRef):
        return _document_key(value, strings)
    if isinstance(value, list | tuple):
        return (6, tuple(key(item, strings) for item in value))
    for cls, make in _KEYS.items():
        if isinstance(value, cls):
            return make(value)
    raise BadInput(Message(N_("no BSON type for {value}"), value=repr(value)))


def compare(a: Any, b: Any, collation: dict[str, Any] | None = None) -> int:
    """Compare two BSON values in MongoDB's total order: -1, 0 or 1; strings (also inside
    documents and arrays, never field names) by the collation where one is given."""
    strings = collation_strings(collation)
    x, y = key(a, strings), key(b, strings)
    return (x > y) - (x < y)


def is_nan(value: Any) -> bool:
    """True for a double or decimal NaN."""
    return key(value) == (3, 0)


sort_cmp = functools.cmp_to_key(compare)


# Sorting: each document's sort key is built the way a (compound) index key is built ---------


def parse_sort(spec: SortSpec) -> list[tuple[str, int]]:
    """``"v:1,_id:-1"``, ``{"v": 1}`` (also as the text ``'{"v": 1}'``, as the manual writes a
    sort) or ``[("v", 1)]`` into ``[(path, 1 or -1)]``."""
    pairs: list[tuple[Any, Any]]
    if isinstance(spec, str) and spec.lstrip().startswith("{"):
        try:
            spec = json.loads(spec)
        except ValueError:
            raise BadInput(Message(N_("sort {spec}: a sort document is JSON, such as "
                                      "{example}"), spec=repr(spec),
                                   example='{"v": 1, "_id": -1}')) from None
        if not isinstance(spec, dict):
            raise BadInput(Message(N_("sort {spec}: each part is path:1 or path:-1"),
                                   spec=repr(spec)))
    if isinstance(spec, str):
        pairs = []
        for part in spec.split(","):
            path, _, direction = part.strip().rpartition(":")
            pairs.append((path, direction))
    else:
        pairs = list(spec.items()) if isinstance(spec, Mapping) else list(spec)
    out: list[tuple[str, int]] = []
    for path, direction in pairs:
        try:
            value = int(direction)
        except (TypeError, ValueError):
            value = 0
        # A path is text: a claim file's YAML can give a number, which no field is named.
        if not isinstance(path, str) or not path or value not in (1, -1) \
                or "" in path.split("."):
            raise BadInput(Message(N_("sort {spec}: each part is path:1 or path:-1"),
                                           spec=repr(spec)))
        out.append((path, value))
    if len({path for path, _ in out}) != len(out):
        raise BadInput(Message(N_("sort {spec} names a path twice"), spec=repr(spec)))
    return out


_DONE, _AT_ARRAY = 0, 1


def _advance(value: Any, parts: tuple[str, ...]) -> tuple[int, Any, tuple[str, ...]]:
    """Follow ``parts`` until the end (a value) or an array that a key must expand."""
    while parts:
        if type(value) is dict or isinstance(value, dict):
            head = parts[0]
            if head not in value:
                return _DONE, None, ()
            value, parts = value[head], parts[1:]
        elif type(value) is list:
            head = parts[0]
            if not head.isdigit():
                return _AT_ARRAY, value, parts
            index = int(head)
            if index >= len(value):
                return _DONE, None, ()
            value, parts = value[index], parts[1:]
            if not parts:  # a positional leaf is the element itself, even an array
                return _DONE, value, ()
        else:
            return _DONE, None, ()
    if type(value) is list:
        return _AT_ARRAY, value, ()
    return _DONE, value, ()


class _Final:
    """A path whose key value is settled (it may be an array nested in an expanded one)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


_State = tuple[Any, tuple[str, ...]] | _Final  # a path still to follow from a value, or settled


_Waiting = list[tuple[int, tuple[str, ...]]]  # the paths that go on into one array: (i, rest)


def _index_keys(states: Sequence[_State], doc_id: Any) -> list[SortKey]:
    """Every key tuple a compound index on the paths would hold for one document.

    ``states`` holds, per path, ``(value, remaining parts)`` or a ``_Final``. Paths that
    reach the same array pair up element by element; two different arrays are refused.
    """
    finals, arrays, waiting = _follow_paths(states)
    if not arrays:
        return [tuple(finals)]
    if len(arrays) > 1:
        raise ParallelArrays(Message(N_(
            "cannot sort on parallel arrays: document _id {id} has arrays on two of the sort "
            "paths (MongoDB refuses the sort too)"), id=repr(doc_id)))
    (array_id, array), = arrays.items()
    paths = waiting[array_id]
    if not array:  # an empty array: undefined where it is the value, null where a path goes on
        for i, rest in paths:
            finals[i] = EMPTY_ARRAY if not rest else None
        return [tuple(finals)]
    keys: list[SortKey] = []
    for element in array:
        keys.extend(_index_keys(_element_states(element, finals, paths), doc_id))
    return keys


def _follow_paths(
    states: Sequence[_State],
) -> tuple[list[Any], dict[int, list[Any]], dict[int, _Waiting]]:
    """Each path followed to its settled value or to the array it reaches: the settled values
    by path, the arrays reached by id, and by array id the paths that go on into it."""
    finals: list[Any] = [None] * len(states)
    arrays: dict[int, list[Any]] = {}
    waiting: dict[int, _Waiting] = {}
    for i, state in enumerate(states):
        if isinstance(state, _Final):
            finals[i] = state.value
            continue
        status, found, rest = _advance(*state)
        if status == _DONE:
            finals[i] = found
        else:
            arrays[id(found)] = found
            waiting.setdefault(id(found), []).append((i, rest))
    return finals, arrays, waiting


def _element_states(element: Any, finals: list[Any], paths: _Waiting) -> list[_State]:
    """The paths' states for one element of the array they reach; the others stay settled."""
    here: list[_State] = [_Final(value) for value in finals]
    for i, rest in paths:
        if not rest:
            here[i] = _Final(element)  # an array nested in the array stays whole
        elif isinstance(element, dict):
            here[i] = (element, rest)
        else:
            here[i] = _Final(None)
    return here


def sort_key(doc: Document, path: str, descending: bool = False) -> Any:
    """The value a document sorts by on one path: an array by its smallest (largest if
    descending) element; a missing field as null; an empty array below null."""
    keys = _index_keys([(doc, tuple(path.split(".")))], doc.get("_id"))
    pick = max if descending else min
    return pick((k[0] for k in keys), key=key)


Keyer = Callable[[Document], SortKey | None]


def _path_keyer(parts: tuple[str, ...], strings: Strings) -> Keyer:
    """One path's sort key where it reaches no array to expand; None where it does."""
    if len(parts) == 1:
        head = parts[0]

        def top_level(doc: Document) -> SortKey | None:
            value = doc.get(head)
            return None if type(value) is list else key(value, strings)
        return top_level

    def dotted(doc: Document) -> SortKey | None:
        status, found, _ = _advance(doc, parts)
        return key(found, strings) if status == _DONE else None
    return dotted


def _sort_keys(doc: Document, keyers: list[Keyer], paths: list[tuple[str, ...]],
               directions: list[int], strings: Strings) -> tuple[SortKey, ...]:
    """The per-path keys of the document's best index key (first in the sort's order)."""
    fast = [keyer(doc) for keyer in keyers]
    arrays = [i for i, found in enumerate(fast) if found is None]
    if not arrays:
        return cast(tuple[SortKey, ...], tuple(fast))  # no None: no path reached an array
    if len(arrays) == 1:  # one path reaches an array: its smallest (or largest) key decides
        i = arrays[0]
        pick = max if directions[i] < 0 else min
        fast[i] = pick(key(k[0], strings) for k in _index_keys([(doc, paths[i])],
                                                               doc.get("_id")))
        return cast(tuple[SortKey, ...], tuple(fast))  # its one None is replaced
    states = [(doc, parts) for parts in paths]
    candidates = [[key(v, strings) for v in k] for k in _index_keys(states, doc.get("_id"))]
    return tuple(candidates[_first_in_order(candidates, directions)])


def _first_in_order(candidates: list[list[SortKey]], directions: list[int]) -> int:
    """Which of a document's index keys (each a list of per-path sort keys) comes first in
    the sort's order: the one the document sorts by."""
    best = 0
    for i in range(1, len(candidates)):
        for mine, theirs, direction in zip(candidates[i], candidates[best], directions,
                                           strict=True):
            if mine != theirs:
                if (mine < theirs) == (direction > 0):
                    best = i
                break
    return best


def sort_values(doc: Document, spec: SortSpec,
                collation: dict[str, Any] | None = None) -> list[tuple[Any, SortKey]]:
    """Per sort path, the value a document sorts by and its sort key: of every key an index
    on the paths would hold for it, the one first in the sort's order (an array's smallest
    element ascending, its largest descending; a missing field as null; an empty array as
    ``EMPTY_ARRAY``, below null), strings keyed by the collation where one is given."""
    pairs = parse_sort(spec)
    strings = collation_strings(collation)
    directions = [direction for _, direction in pairs]
    states = [(doc, tuple(path.split("."))) for path, _ in pairs]
    values = _index_keys(states, doc.get("_id"))
    candidates = [[key(v, strings) for v in k] for k in values]
    best = _first_in_order(candidates, directions)
    return list(zip(values[best], candidates[best], strict=True))


# Column types whose Python order is MongoDB's order among them (ints exactly; strings by code
# point, which is UTF-8's byte order; ObjectIds by their bytes): such a column sorts as it is.
_NATURAL_ORDERS = ({int}, {Int64}, {int, Int64}, {str}, {ObjectId})


def _leaf_key(pick: Callable[..., SortKey]) -> Callable[[Any], SortKey]:
    """A top-level value's sort key: a leaf array's is its smallest (largest) element's."""
    keys = _KEYS

    def leaf(value: Any) -> SortKey:
        make = keys.get(type(value))
        if make is not None:
            return make(value)
        if type(value) is list:
            return pick(map(key, value)) if value else (1,)
        return key(value)
    return leaf


def _top_level_columns(docs: list[Document], paths: list[tuple[str, ...]],
                       keyers: list[Keyer], directions: list[int]) -> list[list[Any]]:
    """The common case, kept tight: every sort path is a top-level field. One column of sort
    keys per path (a column of plain ints, strings or ObjectIds is its own key)."""
    columns: list[list[Any]] = []
    arrays: dict[int, int] = {}  # document index -> how many paths reach a leaf array there
    for (head,), direction in zip(paths, directions, strict=True):
        values = [doc.get(head) for doc in docs]
        kinds = set(map(type, values))
        if kinds in _NATURAL_ORDERS:
            columns.append(values)
            continue
        if list in kinds and len(paths) > 1:
            for i in [i for i, value in enumerate(values) if type(value) is list]:
                arrays[i] = arrays.get(i, 0) + 1
        columns.append(list(map(_leaf_key(max if direction < 0 else min), values)))
    for i, count in sorted(arrays.items()):  # the first such document is the one named
        if count > 1:  # paths on two arrays: the general rules (parallel arrays are refused)
            row = _sort_keys(docs[i], keyers, paths, directions, None)
            for position, (head,) in enumerate(paths):
                if type(docs[i].get(head)) is list:
                    columns[position][i] = row[position]
    return columns


def sort(docs: Iterable[Document], spec: SortSpec, collation: dict[str, Any] | None = None,
         mongodb_version: str | None = None) -> list[Document]:
    """The documents in the order ``find().sort(spec)`` returns them (stable for ties).

    Ties keep the input order, as a collection scan of the file would; a server may return
    them in any order (cursor.sort), so give ``_id`` as a last sort path to make an order
    exact. ``sort_with_ties`` also says where the ties are.
    """
    return sort_with_ties(docs, spec, collation, mongodb_version)[0]


def sort_with_ties(docs: Iterable[Document], spec: SortSpec,
                   collation: dict[str, Any] | None = None, mongodb_version: str | None = None
                   ) -> tuple[list[Document], list[tuple[int, int]]]:
    """``sort``'s order, and each run of two or more documents that tie on every sort path,
    as ``(start, end)`` positions in it: the order within a run is the input's, not MongoDB's
    (which returns tied documents in any order: cursor.sort, "Sort Consistency")."""
    check_rules_version(mongodb_version)  # sorts: the same rules in every version
    pairs = parse_sort(spec)
    strings = collation_strings(collation)
    docs = list(docs)
    paths = [tuple(path.split(".")) for path, _ in pairs]
    directions = [direction for _, direction in pairs]
    keyers = [_path_keyer(parts, strings) for parts in paths]
    columns: list[list[Any]]
    if strings is None and all(len(parts) == 1 for parts in paths):
        columns = _top_level_columns(docs, paths, keyers, directions)
    else:
        rows = [_sort_keys(doc, keyers, paths, directions, strings) for doc in docs]
        columns = [[row[position] for row in rows] for position in range(len(paths))]
    order = list(range(len(docs)))
    # Stable sorts, least significant path first (a reversed sort keeps ties in order too).
    for column, direction in zip(reversed(columns), reversed(directions), strict=True):
        order.sort(key=column.__getitem__, reverse=direction < 0)
    runs, start = [], 0
    for end in range(1, len(order) + 1):
        if end == len(order) or any(column[order[end]] != column[order[start]]
                                    for column in columns):
            if end - start > 1:
                runs.append((start, end))
            start = end
    return [docs[i] for i in order], runs
