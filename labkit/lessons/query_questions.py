"""Every lesson's query exercises, by name (``"03.over_zero"``): the learner writes the query.

Each names its fixture, a reference query, and the extra documents of the variant the learner
does not see (``query_tasks``). They live here, not in the notebooks, so that no cell shows a
hint or the reference before the learner has answered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bson import Int64

from labkit.i18n import N_
from labkit.lessons.query_tasks import FILTER, PIPELINE, SORT, Task, query_exercise

if TYPE_CHECKING:
    from labkit.lessons.exercises import Exercise
    from labkit.model.bson_order import Document


def _fixture(name: str) -> Callable[[], list[Document]]:
    def load() -> list[Document]:
        from labkit.model import fixtures

        return fixtures.load(name)

    return load


# More orders for the variant: numbers on both sides of 0, strings that are not "42".
_MORE_ORDERS: list[Document] = [{"_id": 201, "userId": 7}, {"_id": 202, "userId": "7"},
                                {"_id": 203, "userId": 0}, {"_id": 204, "userId": -5},
                                {"_id": 205, "userId": Int64(42)}, {"_id": 206, "userId": "042"}]
# More of the mixed ladder: another number and another string.
_MORE_MIXED: list[Document] = [{"_id": "v_int3", "v": 3}, {"_id": "v_strA", "v": "A"}]


def _00_first_query(lesson: str) -> Exercise:
    return query_exercise(
        Task(FILTER, "orders", _fixture("orders"), {"userId": "42"}, _MORE_ORDERS),
        N_("Write a filter for the orders whose userId is the string \"42\"."),
        [N_("A filter is a document: a field's name, then the value it must equal."),
         N_("Quotes make a string: {\"userId\": \"42\"} and {\"userId\": 42} ask different "
            "things.")],
        explanation=N_("An equality filter on a string matches that string only: the numbers "
                       "42 are in another type bracket (lesson 03)."),
        lesson=lesson)


def _02_descending(lesson: str) -> Exercise:
    return query_exercise(
        Task(SORT, "mixed", _fixture("mixed"), {"v": -1}, _MORE_MIXED),
        N_("Write a sort that lists the mixed documents by v from the top rung of the type "
           "ladder down."),
        [N_("A sort is a document of fields and directions: 1 up, -1 down."),
         N_("Descending, an array sorts by its largest element.")],
        explanation=N_("{v: -1} walks the ladder from its top (dates, booleans, ObjectIds) "
                       "down to null and the missing field; values of one type compare by "
                       "value, and an array by its largest element."),
        lesson=lesson)


def _02_numbers_up(lesson: str) -> Exercise:
    return query_exercise(
        Task(PIPELINE, "mixed", _fixture("mixed"),
             [{"$match": {"v": {"$type": "number"}}}, {"$sort": {"v": 1}}], _MORE_MIXED),
        N_("Write a pipeline that keeps the documents whose v is (or holds) a number, smallest "
           "first."),
        [N_("Two stages: one keeps ($match), one orders ($sort)."),
         N_("{$type: \"number\"} stands for int, long, double and decimal alike.")],
        explanation=N_("$match with {$type: \"number\"} keeps every numeric type, and the array "
                       "[5, \"x\"] for its element 5; $sort then orders them by value across "
                       "types, the array by its smallest element."),
        lesson=lesson)


def _03_over_zero(lesson: str) -> Exercise:
    return query_exercise(
        Task(FILTER, "orders", _fixture("orders"), {"userId": {"$gt": 0}}, _MORE_ORDERS),
        N_("Write a filter for every order whose userId is a number greater than 0."),
        [N_("Which operator means \"greater than\"?"),
         N_("A comparison with a number only ever meets numbers: is that what you want here?")],
        explanation=N_("{userId: {$gt: 0}} meets numbers only (type bracketing): every numeric "
                       "type above 0 matches, and no string does, whatever it holds."),
        lesson=lesson)


def _03_every_42(lesson: str) -> Exercise:
    return query_exercise(
        Task(FILTER, "orders", _fixture("orders"), {"userId": {"$in": [42, "42"]}},
             _MORE_ORDERS),
        N_("Write a filter for every order whose userId means 42, stored as a number or as the "
           "string \"42\"."),
        [N_("One value can only meet one type bracket: you need two."),
         N_("$in takes a list of values, and $or a list of filters.")],
        explanation=N_("A value meets its own bracket only, so a query for both forms names "
                       "both: {userId: {$in: [42, \"42\"]}}, or an $or of the two equalities. "
                       "Better still, store one type (normalise at the boundary)."),
        lesson=lesson)


QUERY_EXERCISES: dict[str, Callable[[str], Exercise]] = {
    "00.first_query": _00_first_query,
    "02.descending": _02_descending,
    "02.numbers_up": _02_numbers_up,
    "03.over_zero": _03_over_zero,
    "03.every_42": _03_every_42,
}
