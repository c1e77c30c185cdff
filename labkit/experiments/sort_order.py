"""Lesson 02, the BSON sort order: one value of each type, the chapter's mixed fixture,
arrays as sort keys, and collation for numeric strings (claims S1, S2, X5)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from labkit.claims.claim import Context, Figure, Observation, subset_of_observed
from labkit.claims.registry import claim
from labkit.experiments._common import (
    compare_with_model,
    fixture_of,
    kit_questions,
    model_answers,
)
from labkit.i18n import N_, Message, joined
from labkit.model import bson_order, fixtures

if TYPE_CHECKING:
    from pymongo.database import Database

    from labkit.model.bson_order import Document

S1_VALUES = ["minKey", "null", "number", "string", "object", "array", "binData", "objectId",
             "bool", "date", "timestamp", "regex", "javascript", "javascriptWithScope", "maxKey"]


# The questions are the kit's claim files' (claims/lesson02_sort_order.yaml), by ID.
S1_QUESTIONS = kit_questions("S1", "ascending")
MIXED_QUESTIONS = kit_questions("S2", "v_then_id")
X5_QUESTIONS = kit_questions("X5", "ascending", "descending")


def _one_of_each_type() -> list[dict[str, Any]]:
    """One value of each type, inserted in reverse order (the fixture of ``S1.ascending``)."""
    return fixture_of("S1.ascending")


def _ladder(docs: list[dict[str, Any]], ids: list[Any]) -> list[str]:
    """The types of the documents in the order of ``ids``; every number is one rung."""
    kind_of = {d["_id"]: bson_order.bson_type(d["v"]) for d in docs}
    return ["number" if kind_of[i] == "int" else kind_of[i] for i in ids]


def predict_type_order() -> dict[str, Any]:
    """The model's ascending sort of one value of each type, as rung names."""
    ids = model_answers(S1_QUESTIONS)["ascending"]
    return {"ascending": _ladder(_one_of_each_type(), ids)}


@claim("S1", title="Ascending BSON order: MinKey < Null < Numbers < String < Object < Array < "
       "BinData < ObjectId < Boolean < Date < Timestamp < Regex < JavaScript < "
       "JavaScript with scope < MaxKey", source="002", topic="sort-order",
       needs=("mongodb",), judge=subset_of_observed, expected={"ascending": S1_VALUES},
       predict=predict_type_order)
def type_order(ctx: Context) -> Observation:
    """Store one value of each type (inserted in reverse) and sort ascending."""
    docs = _one_of_each_type()
    observation = compare_with_model(ctx, "types", S1_QUESTIONS)
    observation.observed = {"ascending": _ladder(docs, observation.observed["ascending"])}
    # Joined as messages, so that each part is shown in the learner's language.
    observation.note = joined("; ", (observation.note, Message(N_(
        "Symbol is left out: pymongo cannot write that deprecated type; the array is [[1]] "
        "because a sort represents an array by its smallest element, here the array [1]"))))
    return observation


@claim("S2", title="The mixed fixture sorts emptyArr missing null dec2 array dbl9.5 int10 "
       "long100 str10 str9 object binData oid bool date", source="002", topic="sort-order",
       needs=("mongodb",), judge=subset_of_observed, recorded=True,
       predict=lambda: model_answers(MIXED_QUESTIONS), expected={"v_then_id": [
           "emptyArr", "missing", "null", "dec2", "array", "dbl9.5", "int10", "long100",
           "str10", "str9", "object", "binData", "oid", "bool", "date"]})
def mixed_sort(ctx: Context) -> Observation:
    """``find({}, {_id: 1}).sort({v: 1, _id: 1})`` on the chapter's 15 documents."""
    observation = compare_with_model(ctx, "mixed", MIXED_QUESTIONS)
    order = observation.observed["v_then_id"]
    observation.figure = Figure("type_ladder", (fixtures.load("mixed"), "v",
                                                N_("The server's order on the type ladder"),
                                                order))
    return observation


@claim("X5", title="Ascending sort represents an array by its smallest element, descending by "
       "its largest", source="manual", topic="sort-order", needs=("mongodb",),
       judge=subset_of_observed, expected={"ascending": [4, 1, 3, 2], "descending": [1, 3, 2, 4]},
       predict=lambda: model_answers(X5_QUESTIONS))
def array_sort_keys(ctx: Context) -> Observation:
    """Sort [1, 10], 5, [3, 7] and [-2, -1] both ways."""
    return compare_with_model(ctx, "arrays", X5_QUESTIONS)


def collation_sort(database: Database[Document], strings: list[str]) -> dict[str, list[str]]:
    """Sort strings on the server bytewise and with ``numericOrdering`` collation."""
    collection = database.strings
    collection.insert_many([{"_id": i, "s": s} for i, s in enumerate(strings)])
    bytewise = [d["s"] for d in collection.find().sort("s", 1)]
    numeric = [d["s"] for d in collection.find().sort("s", 1).collation(
        {"locale": "en", "numericOrdering": True})]
    return {"bytewise": bytewise, "numericOrdering": numeric}

