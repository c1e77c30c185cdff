"""Dates, BSON sort order and type bracketing on a real server, beside the model's prediction
(claims D1, D3, S1, S2, B1, B2, X1-X5)."""

from __future__ import annotations

import datetime as dt

from .. import bson_order, fixtures
from ..claims import Observation, claim, subset_of_observed


def server_census(collection, path: str) -> dict[str, int]:
    """``$group`` by ``{$type: "$path"}`` on the server: type alias -> documents."""
    rows = collection.aggregate([{"$group": {"_id": {"$type": f"${path}"}, "n": {"$sum": 1}}}])
    return dict(sorted((row["_id"], row["n"]) for row in rows))


def _server_answer(collection, kind: str, spec):
    if kind == "find":
        return sorted(d["_id"] for d in collection.find(spec, {"_id": 1}))
    if kind == "sort":
        pairs = bson_order.parse_sort(spec)
        return [d["_id"] for d in collection.find({}, {"_id": 1}).sort(pairs)]
    if kind == "census":
        return server_census(collection, spec)
    raise ValueError(kind)


def _model_answer(docs: list[dict], kind: str, spec):
    if kind == "find":
        return sorted(bson_order.ids(bson_order.find(docs, spec)))
    if kind == "sort":
        return bson_order.ids(bson_order.sort(docs, spec))
    return bson_order.census(docs, spec)


def compare_with_model(ctx, name: str, questions: dict[str, tuple[str, object]],
                       docs: list[dict] | None = None, label: str | None = None) -> Observation:
    """Ask the server and the model the same questions about a fixture; observe the server.

    ``questions`` maps a label to ``("find", filter)``, ``("sort", spec)`` or
    ``("census", path)``. The evidence has one row per question, server beside model.
    """
    docs = docs if docs is not None else fixtures.load(name)
    database = ctx.mongodb_database(label or name)
    collection = fixtures.insert(database, name, docs)
    observed, rows, disagreements = {}, [], []
    for key, (kind, spec) in questions.items():
        server = _server_answer(collection, kind, spec)
        model = _model_answer(docs, kind, spec)
        observed[key] = server
        rows.append({"question": key, "asked": fixtures.dumps(spec), "server": server,
                     "model": model})
        if fixtures.relaxed(server) != fixtures.relaxed(model):
            disagreements.append(key)
    note = ("the model agrees with the server on every question" if not disagreements else
            f"the model disagrees with the server on: {', '.join(disagreements)}")
    return Observation(observed, "MongoDB", ctx.mongodb().version, rows, note=note)


@claim("D1", title="A Date is a signed 64-bit count of milliseconds since 1970 UTC; no time zone",
       source="002", topic="dates", needs=("mongodb",), judge=subset_of_observed,
       expected={"types": ["date"], "millis": [-86_400_000, 1, 1_790_812_800_000],
                 "read_back": "2026-10-01T00:00:00Z"})
def date_is_utc_millis(ctx) -> Observation:
    """Store a date before 1970, one with microseconds, one at +07:00; read them as numbers."""
    from ..objectid import iso_z

    plus7 = dt.timezone(dt.timedelta(hours=7))
    docs = [{"_id": 1, "d": dt.datetime(1969, 12, 31, tzinfo=dt.UTC)},
            {"_id": 2, "d": dt.datetime(1970, 1, 1, 0, 0, 0, 1234, tzinfo=dt.UTC)},
            {"_id": 3, "d": dt.datetime(2026, 10, 1, 7, 0, tzinfo=plus7)}]
    collection = ctx.mongodb_database("d1").dates
    collection.insert_many(docs)
    rows = list(collection.aggregate([
        {"$sort": {"_id": 1}},
        {"$project": {"d": 1, "millis": {"$toLong": "$d"}, "type": {"$type": "$d"}}}]))
    return Observation({"types": sorted({r["type"] for r in rows}),
                        "millis": [r["millis"] for r in rows],
                        "read_back": iso_z(rows[2]["d"])},
                       "MongoDB", ctx.mongodb().version,
                       [{"stored": str(d["d"]), "millis": r["millis"], "read_back": iso_z(r["d"])}
                        for d, r in zip(docs, rows, strict=True)],
                       note="microseconds are cut to milliseconds; +07:00 comes back as UTC")


OCT1 = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
D3_QUESTIONS = {
    "string_range": ("find", {"at": {"$gte": "2026-10-01"}}),
    "date_range": ("find", {"atDate": {"$gte": OCT1}}),
    "sort_by_string_desc": ("sort", "at:-1"),
    "date_field_string_operand": ("find", {"atDate": {"$gte": "2026-10-01"}}),
}


def model_answers(name: str, questions: dict[str, tuple[str, object]],
                  docs: list[dict] | None = None) -> dict:
    """What the model predicts for each question on a fixture, before any server is asked."""
    docs = docs if docs is not None else fixtures.load(name)
    return {key: _model_answer(docs, kind, spec) for key, (kind, spec) in questions.items()}


@claim("D3", title="Dates stored as strings compare bytewise: wrong ranges, wrong sorts, "
       "and a silent empty answer for a Date field queried with a string", source="002",
       topic="dates", needs=("mongodb",), judge=subset_of_observed,
       expected={"string_range": ["a", "b", "c"], "date_range": ["b", "c"],
                 "sort_by_string_desc": ["a", "c", "b"], "date_field_string_operand": []})
def dates_as_strings(ctx) -> Observation:
    """The chapter's events fixture: the same three days as strings and as Dates."""
    return compare_with_model(ctx, "events", D3_QUESTIONS)


S1_VALUES = ["minKey", "null", "number", "string", "object", "array", "binData", "objectId",
             "bool", "date", "timestamp", "regex", "javascript", "javascriptWithScope", "maxKey"]


def _one_of_each_type() -> list[dict]:
    from bson import Binary, Code, MaxKey, MinKey, ObjectId, Regex, Timestamp

    values = [MaxKey(), Code("function () { return 2; }", {"x": 1}),
              Code("function () { return 1; }"), Regex("^a", "i"), Timestamp(1, 1),
              dt.datetime(2020, 1, 1, tzinfo=dt.UTC), False, ObjectId("0" * 24),
              Binary(b"\x00", 0), [[1]], {"a": 1}, "a", 1, None, MinKey()]
    return [{"_id": i, "v": v} for i, v in enumerate(values)]


@claim("S1", title="Ascending BSON order: MinKey < Null < Numbers < String < Object < Array < "
       "BinData < ObjectId < Boolean < Date < Timestamp < Regex < JavaScript < "
       "JavaScript with scope < MaxKey", source="002", topic="sort-order",
       needs=("mongodb",), expected={"ascending": S1_VALUES})
def type_order(ctx) -> Observation:
    """Store one value of each type (inserted in reverse) and sort ascending."""
    docs = _one_of_each_type()
    observation = compare_with_model(ctx, "types", {"ascending": ("sort", "v:1")}, docs=docs)
    kind_of = {d["_id"]: bson_order.bson_type(d["v"]) for d in docs}
    ladder = ["number" if kind_of[i] == "int" else kind_of[i]
              for i in observation.observed["ascending"]]
    observation.observed = {"ascending": ladder}
    observation.note += ("; Symbol is left out: pymongo cannot write that deprecated type; "
                         "the array is [[1]] because a sort represents an array by its "
                         "smallest element, here the array [1]")
    return observation


@claim("S2", title="The mixed fixture sorts emptyArr missing null dec2 array dbl9.5 int10 "
       "long100 str10 str9 object binData oid bool date", source="002", topic="sort-order",
       needs=("mongodb",), expected={"v_then_id": [
           "emptyArr", "missing", "null", "dec2", "array", "dbl9.5", "int10", "long100",
           "str10", "str9", "object", "binData", "oid", "bool", "date"]})
def mixed_sort(ctx) -> Observation:
    """``find({}, {_id: 1}).sort({v: 1, _id: 1})`` on the chapter's 15 documents."""
    from ..plots import type_ladder

    observation = compare_with_model(ctx, "mixed", {"v_then_id": ("sort", "v:1,_id:1")})
    order = observation.observed["v_then_id"]
    observation.figure = lambda: type_ladder(fixtures.load("mixed"), "v",
                                             "The server's order on the type ladder", order)
    return observation


def python_orders() -> list[dict]:
    """The orders fixture as Python writes it: ``42.0`` is a double, not the shell's int32."""
    from bson import Decimal128, Int64

    return [{"_id": 1, "userId": 42}, {"_id": 2, "userId": "42"},
            {"_id": 3, "userId": Int64(42)}, {"_id": 4, "userId": 42.0},
            {"_id": 5, "userId": Decimal128("42.00")}]


@claim("B1", title="Query comparisons match only the operand's type bracket; all numbers "
       "share one", source="002", topic="bracketing", needs=("mongodb",),
       judge=subset_of_observed,
       expected={"eq_42": [1, 3, 4, 5], "eq_string_42": [2], "gt_0": [1, 3, 4, 5],
                 "gt_empty_string": [2],
                 "census": {"decimal": 1, "int": 2, "long": 1, "string": 1}})
def type_bracketing(ctx) -> Observation:
    """The orders fixture as the shell stored it; then the census of the same values from Python."""
    questions = {"eq_42": ("find", {"userId": 42}), "eq_string_42": ("find", {"userId": "42"}),
                 "gt_0": ("find", {"userId": {"$gt": 0}}),
                 "gt_empty_string": ("find", {"userId": {"$gt": ""}}),
                 "census": ("census", "userId")}
    observation = compare_with_model(ctx, "orders", questions)
    from_python = compare_with_model(ctx, "orders", {"census": ("census", "userId")},
                                     docs=python_orders(), label="orders_python")
    census = from_python.observed["census"]
    observation.observed["census_from_python"] = census
    observation.evidence.append(dict(from_python.evidence[0], question="census (from Python)"))
    observation.note += ("; written from Python, 42.0 is a double: census "
                         + ", ".join(f"{k} {v}" for k, v in census.items()))
    return observation


@claim("B2", title="Mixing numeric types barely changes results; mixing numbers with strings, "
       "or Dates with strings, silently hides documents", source="002", topic="bracketing",
       needs=("mongodb",), judge=subset_of_observed,
       expected={"every_numeric_type_matches": True, "string_hidden_from_number": True,
                 "date_hidden_from_string": True})
def silent_misses(ctx) -> Observation:
    """Query the orders by number and the events' Date field by string; note what is missing."""
    numbers = compare_with_model(ctx, "orders", {"eq_42": ("find", {"userId": 42})},
                                 docs=python_orders())
    dates = compare_with_model(ctx, "events", {
        "string_operand": ("find", {"atDate": {"$gte": "2026-10-01"}})})
    found = numbers.observed["eq_42"]
    return Observation(
        {"every_numeric_type_matches": found == [1, 3, 4, 5],
         "string_hidden_from_number": 2 not in found,
         "date_hidden_from_string": dates.observed["string_operand"] == []},
        "MongoDB", ctx.mongodb().version, numbers.evidence + dates.evidence,
        note="int, long, double and decimal 42 all match 42; no query raised an error")


@claim("X1", title="$expr compares across types (\"42\" > 0); $ne and $nin do not bracket",
       source="manual", topic="bracketing", needs=("mongodb",), judge=subset_of_observed,
       expected={"expr_gt_0": [1, 2, 3, 4, 5], "gt_0": [1, 3, 4, 5], "ne_42": [2],
                 "nin_42": [2]})
def expressions_do_not_bracket(ctx) -> Observation:
    """``$expr`` and ``$ne``/``$nin`` on the orders fixture, beside plain ``$gt``."""
    return compare_with_model(ctx, "orders", {
        "expr_gt_0": ("find", {"$expr": {"$gt": ["$userId", 0]}}),
        "gt_0": ("find", {"userId": {"$gt": 0}}),
        "ne_42": ("find", {"userId": {"$ne": 42}}),
        "nin_42": ("find", {"userId": {"$nin": [42]}}),
    })


@claim("X2", title="null matches null and missing for $eq, $gte, $lte; $gt and $lt null match "
       "nothing", source="manual", topic="bracketing", needs=("mongodb",),
       expected={"eq": [1, 2], "gte": [1, 2], "lte": [1, 2], "gt": [], "lt": []})
def null_and_missing(ctx) -> Observation:
    """The comparison operators against null, on null, missing, a number and a string."""
    return compare_with_model(ctx, "nulls", {
        op: ("find", {"a": {f"${op}": None}}) for op in ("eq", "gte", "lte", "gt", "lt")})


@claim("X3", title="NaN: $gte and $lte NaN match only NaN; $gt and $lt NaN match nothing",
       source="manual", topic="bracketing", needs=("mongodb",),
       expected={"eq": [1], "gte": [1], "lte": [1], "gt": [], "lt": []})
def nan_comparisons(ctx) -> Observation:
    """The comparison operators against NaN, on NaN, 1 and both infinities."""
    return compare_with_model(ctx, "nans", {
        op: ("find", {"a": {f"${op}": float("nan")}})
        for op in ("eq", "gte", "lte", "gt", "lt")})


@claim("X4", title="An array matches a scalar comparison when any element does, and an array "
       "operand as a whole", source="manual", topic="bracketing", needs=("mongodb",),
       expected={"gt_0": [1, 2, 3], "eq_whole_array": [1], "eq_element": [1]})
def array_matching(ctx) -> Observation:
    """``$gt: 0``, equality with ``[1, 10]`` and with ``10`` on arrays and a scalar."""
    return compare_with_model(ctx, "arrays", {
        "gt_0": ("find", {"a": {"$gt": 0}}),
        "eq_whole_array": ("find", {"a": [1, 10]}),
        "eq_element": ("find", {"a": 10}),
    })


@claim("X5", title="Ascending sort represents an array by its smallest element, descending by "
       "its largest", source="manual", topic="sort-order", needs=("mongodb",),
       expected={"ascending": [4, 1, 3, 2], "descending": [1, 3, 2, 4]})
def array_sort_keys(ctx) -> Observation:
    """Sort [1, 10], 5, [3, 7] and [-2, -1] both ways."""
    return compare_with_model(ctx, "arrays", {"ascending": ("sort", "a:1"),
                                              "descending": ("sort", "a:-1")})


def collation_sort(database, strings: list[str]) -> dict[str, list[str]]:
    """Sort strings on the server bytewise and with ``numericOrdering`` collation."""
    collection = database.strings
    collection.insert_many([{"_id": i, "s": s} for i, s in enumerate(strings)])
    bytewise = [d["s"] for d in collection.find().sort("s", 1)]
    numeric = [d["s"] for d in collection.find().sort("s", 1).collation(
        {"locale": "en", "numericOrdering": True})]
    return {"bytewise": bytewise, "numericOrdering": numeric}


def normalise_to_int(collection, field: str) -> dict[str, dict[str, int]]:
    """Convert every string value of ``field`` to an int on the server; census before and after.

    New writes should be normalised at the application's boundary instead; this is
    the one-off repair of what is already stored.
    """
    before = server_census(collection, field)
    collection.update_many({field: {"$type": "string"}},
                           [{"$set": {field: {"$toInt": f"${field}"}}}])
    return {"before": before, "after": server_census(collection, field)}
