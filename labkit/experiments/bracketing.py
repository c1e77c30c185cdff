"""Lesson 03, type bracketing: the chapter's orders fixture, silent misses, and what
``$expr``, null, NaN and arrays do (claims B1, B2, X1-X4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, SupportsInt

from labkit.claims.claim import Context, Observation, subset_of_observed
from labkit.claims.registry import claim
from labkit.experiments._common import (
    compare_with_model,
    fixture_of,
    kit_questions,
    model_answers,
    server_census,
)
from labkit.i18n import N_, Message, _, joined
from labkit.model import fixtures, reads

if TYPE_CHECKING:
    from pymongo.collection import Collection
    from pymongo.database import Database

    from labkit.model.bson_order import Document

# The questions are the kit's claim files' (claims/lesson03_bracketing.yaml), by ID.
B1_QUESTIONS = kit_questions("B1", "eq_42", "eq_string_42", "gt_0", "gt_empty_string", "census")
B1_FROM_PYTHON = {"census": "B1.census_from_python"}
B2_NUMBERS = {"eq_42": "B2.numbers_from_python"}
B2_DATES = {"string_operand": "B2.date_hidden_from_string"}
X1_QUESTIONS = kit_questions("X1", "expr_gt_0", "gt_0", "ne_42", "nin_42")
X2_QUESTIONS = kit_questions("X2", "eq", "gte", "lte", "gt", "lt")
X3_QUESTIONS = kit_questions("X3", "eq", "gte", "lte", "gt", "lt")
X4_QUESTIONS = kit_questions("X4", "gt_0", "eq_whole_array", "eq_element")


def predict_bracketing() -> dict[str, Any]:
    """The model's answers to B1's questions, and its census of the orders written from Python."""
    answers = model_answers(B1_QUESTIONS)
    return {**answers, "census_from_python": model_answers(B1_FROM_PYTHON)["census"]}


def predict_silent_misses() -> dict[str, Any]:
    """B2's three findings, from the model's answers on the orders and events fixtures."""
    found = model_answers(B2_NUMBERS)["eq_42"]
    dates = model_answers(B2_DATES)["string_operand"]
    return {"every_numeric_type_matches": found == [1, 3, 4, 5],
            "string_hidden_from_number": 2 not in found, "date_hidden_from_string": dates == []}


def python_orders() -> list[dict[str, Any]]:
    """The orders fixture as Python writes it: ``42.0`` is a double, not the shell's int32
    (the fixture of ``B1.census_from_python`` and ``B2.numbers_from_python``)."""
    return fixture_of("B1.census_from_python")


@claim("B1", title="Query comparisons match only the operand's type bracket; all numbers "
       "share one", source="002", topic="bracketing", needs=("mongodb",),
       judge=subset_of_observed, recorded=True, predict=predict_bracketing,
       expected={"eq_42": [1, 3, 4, 5], "eq_string_42": [2], "gt_0": [1, 3, 4, 5],
                 "gt_empty_string": [2],
                 "census": {"decimal": 1, "int": 2, "long": 1, "string": 1}})
def type_bracketing(ctx: Context) -> Observation:
    """The orders fixture as the shell stored it; then the census of the same values from Python."""
    observation = compare_with_model(ctx, "orders", B1_QUESTIONS)
    from_python = compare_with_model(ctx, "orders", B1_FROM_PYTHON, label="orders_python")
    census = from_python.observed["census"]
    observation.observed["census_from_python"] = census
    observation.evidence.append(dict(from_python.evidence[0], question="census (from Python)"))
    # Joined as messages, so that each part is shown in the learner's language.
    observation.note = joined("; ", (observation.note, Message(
        N_("written from Python, 42.0 is a double: census {census}"),
        census=", ".join(f"{k} {v}" for k, v in census.items()))))
    return observation


@claim("B2", title="Mixing numeric types barely changes results; mixing numbers with strings, "
       "or Dates with strings, silently hides documents", source="002", topic="bracketing",
       needs=("mongodb",), judge=subset_of_observed, predict=predict_silent_misses,
       expected={"every_numeric_type_matches": True, "string_hidden_from_number": True,
                 "date_hidden_from_string": True})
def silent_misses(ctx: Context) -> Observation:
    """Query the orders by number and the events' Date field by string; note what is missing."""
    numbers = compare_with_model(ctx, "orders", B2_NUMBERS)
    dates = compare_with_model(ctx, "events", B2_DATES)
    found = numbers.observed["eq_42"]
    return Observation(
        {"every_numeric_type_matches": found == [1, 3, 4, 5],
         "string_hidden_from_number": 2 not in found,
         "date_hidden_from_string": dates.observed["string_operand"] == []},
        ctx.mongodb().name, ctx.mongodb().version, numbers.evidence + dates.evidence,
        note=Message(N_("int, long, double and decimal 42 all match 42; no query raised an "
                        "error")),
        engine_key="mongodb")


@claim("X1", title="$expr compares across types (\"42\" > 0); $ne and $nin do not bracket",
       source="manual", topic="bracketing", needs=("mongodb",), judge=subset_of_observed,
       expected={"expr_gt_0": [1, 2, 3, 4, 5], "gt_0": [1, 3, 4, 5], "ne_42": [2],
                 "nin_42": [2]}, predict=lambda: model_answers(X1_QUESTIONS))
def expressions_do_not_bracket(ctx: Context) -> Observation:
    """``$expr`` and ``$ne``/``$nin`` on the orders fixture, beside plain ``$gt``."""
    return compare_with_model(ctx, "orders", X1_QUESTIONS)


@claim("X2", title="null matches null and missing for $eq, $gte, $lte; $gt and $lt null match "
       "nothing", source="manual", topic="bracketing", needs=("mongodb",),
       judge=subset_of_observed,
       expected={"eq": [1, 2], "gte": [1, 2], "lte": [1, 2], "gt": [], "lt": []},
       predict=lambda: model_answers(X2_QUESTIONS))
def null_and_missing(ctx: Context) -> Observation:
    """The comparison operators against null, on null, missing, a number and a string."""
    return compare_with_model(ctx, "nulls", X2_QUESTIONS)


@claim("X3", title="NaN: $gte and $lte NaN match only NaN; $gt and $lt NaN match nothing",
       source="manual", topic="bracketing", needs=("mongodb",),
       judge=subset_of_observed,
       expected={"eq": [1], "gte": [1], "lte": [1], "gt": [], "lt": []},
       predict=lambda: model_answers(X3_QUESTIONS))
def nan_comparisons(ctx: Context) -> Observation:
    """The comparison operators against NaN, on NaN, 1 and both infinities."""
    return compare_with_model(ctx, "nans", X3_QUESTIONS)


@claim("X4", title="An array matches a scalar comparison when any element does, and an array "
       "operand as a whole", source="manual", topic="bracketing", needs=("mongodb",),
       judge=subset_of_observed,
       expected={"gt_0": [1, 2, 3], "eq_whole_array": [1], "eq_element": [1]},
       predict=lambda: model_answers(X4_QUESTIONS))
def array_matching(ctx: Context) -> Observation:
    """``$gt: 0``, equality with ``[1, 10]`` and with ``10`` on arrays and a scalar."""
    return compare_with_model(ctx, "arrays", X4_QUESTIONS)


def normalise_to_int(collection: Collection[Document], field: str) -> dict[str, dict[str, int]]:
    """Convert every string value of ``field`` to an int on the server; census before and after.

    New writes should be normalised at the application's boundary instead; this is
    the one-off repair of what is already stored.
    """
    before = server_census(collection, field)
    collection.update_many({field: {"$type": "string"}},
                           [{"$set": {field: {"$toInt": f"${field}"}}}])
    return {"before": before, "after": server_census(collection, field)}


def repair(database: Database[Document]) -> dict[str, Any]:
    """The orders fixture repaired on the server: the census before and after, and what
    ``{userId: 42}`` finds then."""
    collection = fixtures.insert(database, "orders")
    census = normalise_to_int(collection, "userId")
    return {**census, "find userId 42": sorted(d["_id"] for d in collection.find({"userId": 42}))}


def parse_user_id(value: str | SupportsInt) -> int:
    """Normalise at the boundary: a user ID from a request (text or number) as an int."""
    if isinstance(value, bool):
        raise ValueError("a user ID is a number, not True or False")
    number = int(str(value).strip()) if isinstance(value, str) else int(value)
    if number != value and not isinstance(value, str):
        raise ValueError(f"{value!r} is not a whole number")
    return number


# A write error carries its code and errmsg but no codeName (WriteError::serialize in
# src/mongo/db/ops/write_ops.cpp, mongodb/mongo at 02fe612f): the name of the one code the
# validator expects, from src/mongo/base/error_codes.yml.
_CODE_NAMES = {121: "DocumentValidationFailure"}

USER_ID_SCHEMA = {"$jsonSchema": {"bsonType": "object", "required": ["userId"],
                                  "properties": {"userId": {"bsonType": ["int", "long"]}}}}


def validator(database: Database[Document]) -> list[dict[str, Any]]:
    """A collection whose ``$jsonSchema`` says ``userId`` is an int or long: insert a number,
    the string "42", and the string normalised at the boundary; say what the server did."""
    from pymongo.errors import WriteError

    collection = database.create_collection("orders_validated", validator=USER_ID_SCHEMA,
                                            check_exists=False)  # a fresh database: no check
    attempts = [(_("number 42"), 42), (_('string "42"'), "42"),
                (_('string "42" through parse_user_id'), parse_user_id("42"))]
    insert, result = _("insert"), _("result")
    rows = []
    for label, value in attempts:
        try:
            collection.insert_one({"userId": value})
            rows.append({insert: label, result: _("accepted")})
        except WriteError as exc:
            name = (exc.details or {}).get("codeName") or _CODE_NAMES.get(exc.code or 0, "")
            rows.append({insert: label, result: _("rejected: code {code}").format(code=exc.code)
                         + (f" ({name})" if name else "")})
    return rows


def validator_as_stated() -> dict[str, str]:
    """What MongoDB's manual says ``validator`` will see, with no server: the number and the
    parsed string are accepted, the string is rejected with code 121 (DocumentValidationFailure,
    manual: "Schema Validation"). A statement, not an observation."""
    return {_("number 42"): _("accepted"),
            _('string "42"'): _("rejected: code {code}").format(code=121)
            + " (DocumentValidationFailure)",
            _('string "42" through parse_user_id'): _("accepted")}


def census_by_writer(shell_docs: list[dict[str, Any]], field: str = "userId"
                     ) -> list[dict[str, Any]]:
    """The model's ``$type`` census of ``field`` in the fixture as the shell wrote it and as
    Python writes it (42.0 a double): one row per writer, a type absent from a census is 0."""
    censuses = {_("the shell (fixture)"): reads.census(shell_docs, field),
                "Python": reads.census(python_orders(), field)}
    types = list(dict.fromkeys(t for census in censuses.values() for t in census))
    return [{_("written by"): writer, **{t: census.get(t, 0) for t in types}}
            for writer, census in censuses.items()]
