"""Every lesson's query exercises, by name (``"03.over_zero"``): the learner writes the query.

Each names its fixture, a reference query, and the extra documents of the variant the learner
does not see (``query_tasks``). They live here, not in the notebooks, so that no cell shows a
hint or the reference before the learner has answered.
"""

from __future__ import annotations

import datetime as dt
import functools
import uuid
from typing import TYPE_CHECKING, Any

from bson import Binary, Decimal128, Int64, ObjectId

from labkit.i18n import N_
from labkit.lessons.exercises import Made
from labkit.lessons.query_tasks import FILTER, PIPELINE, SORT, Task, query_exercise
from labkit.model import fixtures
from labkit.model.objectid import Generator

if TYPE_CHECKING:
    from labkit.model.bson_order import Document


# More orders for the variant: numbers on both sides of 0, strings that are not "42".
_MORE_ORDERS: list[Document] = [{"_id": 201, "userId": 7}, {"_id": 202, "userId": "7"},
                                {"_id": 203, "userId": 0}, {"_id": 204, "userId": -5},
                                {"_id": 205, "userId": Int64(42)}, {"_id": 206, "userId": "042"}]
# More of the mixed ladder: another number and another string.
_MORE_MIXED: list[Document] = [{"_id": "v_int3", "v": 3}, {"_id": "v_strA", "v": "A"}]


def _utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0,
         microsecond: int = 0) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, second, microsecond, tzinfo=dt.UTC)


# More events for the variant: local times written with their offset (the string says October,
# the Date says otherwise), the last evening of October, November 1 unpadded, January unpadded.
_MORE_EVENTS: list[Document] = [
    {"_id": "d", "at": "2026-10-01T06:00:00+07:00", "atDate": _utc(2026, 9, 30, 23)},
    {"_id": "e", "at": "2026-10-31T20:00:00-05:00", "atDate": _utc(2026, 11, 1, 1)},
    {"_id": "f", "at": "2026-10-31T18:30:00Z", "atDate": _utc(2026, 10, 31, 18, 30)},
    {"_id": "g", "at": "2026-11-1", "atDate": _utc(2026, 11, 1)},
    {"_id": "h", "at": "2026-1-5", "atDate": _utc(2026, 1, 5)},
]
_OCTOBER = {"atDate": {"$gte": _utc(2026, 10, 1), "$lt": _utc(2026, 11, 1)}}

# The tickets fixture (data/tickets.json) holds IDs made around 2026-10-08T00:00:00Z by three
# processes, made as labkit.model.objectid builds them: P2's random value is the smallest, P3's the
# largest.
_SECOND = 1_791_417_600  # 2026-10-08T00:00:00Z
_P4 = Generator(random=0x00A1B2C3D4, counter=0x10)  # a fourth process, the smallest random value
_MORE_TICKETS: list[Document] = [
    {"_id": ObjectId(_P4.next(at=_SECOND)), "by": "P4"},
    {"_id": ObjectId(_P4.next(at=_SECOND + 1)), "by": "P4"},
    {"_id": ObjectId(Generator(random=0xFFEE000000, counter=1).next(at=_SECOND - 1)), "by": "P5"},
    {"_id": ObjectId(_P4.next(at=_SECOND + 2)), "by": "P4"},
]


def _from(seconds: int) -> ObjectId:
    return ObjectId.from_datetime(dt.datetime.fromtimestamp(seconds, dt.UTC))


# The jobs fixture (data/jobs.json): processes A, B and C make jobs in the second
# 2026-11-02T08:00:00Z and the next, each job with its createdAt to the millisecond. B's random
# value is the smallest and C's the largest, so _id order is not the order they were made in.
_JOBS_SECOND = 1_793_606_400
_PAGE_END = ObjectId("6ae843007c41e90a332b1c00")  # the last _id of the first page of 3
_MORE_JOBS: list[Document] = [
    {"_id": ObjectId(Generator(random=0x9011223344, counter=0x100).next(at=_JOBS_SECOND)),
     "by": "D", "createdAt": _utc(2026, 11, 2, 8, 0, 0, 700_000)},
    {"_id": ObjectId(Generator(random=0x0512345678, counter=0x7FFF00).next(at=_JOBS_SECOND)),
     "by": "E", "createdAt": _utc(2026, 11, 2, 8, 0, 0, 990_000)},
    {"_id": ObjectId(Generator(random=0xF0A1B2C3D4, counter=0x20).next(at=_JOBS_SECOND - 1)),
     "by": "F", "createdAt": _utc(2026, 11, 2, 7, 59, 59, 999_000)},
]


def _uuid(text: str) -> Binary:
    return Binary.from_uuid(uuid.UUID(text))


# More sessions, UUIDv7-keyed as data/sessions.json is (made 2026-10-08T09:00:00Z plus a few
# milliseconds): two newer than every session of the fixture, one older.
_MORE_SESSIONS: list[Document] = [
    {"_id": _uuid("01a11abd-aab3-7c21-8f0e-5d2a9b7c1e44"), "userName": "Quân"},
    {"_id": _uuid("01a11abd-aa7f-7d10-b2aa-0c9e3f1d2b77"), "userName": "Phương"},
    {"_id": _uuid("01a11abd-aabc-70f3-9a51-7e6d4c2b1a08"), "userName": "Tâm"},
]

# More orders for lesson 07: numbers of every type just above and at 41, a string above it.
_MORE_ORDERS_41: list[Document] = [
    {"_id": 211, "userId": Decimal128("41.5")}, {"_id": 212, "userId": Decimal128("41.00")},
    {"_id": 213, "userId": 41.25}, {"_id": 214, "userId": "50"},
    {"_id": 215, "userId": Int64(41)},
]
# More of the nulls fixture: null present, missing (another field present), and falsy values.
_MORE_NULLS: list[Document] = [
    {"_id": 201, "a": None}, {"_id": 202, "b": None}, {"_id": 203, "a": 0},
    {"_id": 204, "a": False}, {"_id": 205, "a": ""},
]


def _query(kind: str, fixture: str, reference: Any, extra: list[Document], question: str,
           hints: list[str], *, explanation: str) -> Made:
    """A row of the table: the learner writes a query of ``kind`` on ``fixture``, judged by
    what it returns against ``reference`` there and on the fixture with ``extra`` documents."""
    task = Task(kind, fixture, functools.partial(fixtures.load, fixture), reference, extra)
    return lambda lesson: query_exercise(task, question, hints, explanation=explanation,
                                         lesson=lesson)


QUERY_EXERCISES: dict[str, Made] = {
    "00.first_query": _query(
        FILTER, "orders", {"userId": "42"}, _MORE_ORDERS,
        N_("Write a filter for the orders whose userId is the string \"42\"."),
        [N_("A filter is a document: a field's name, then the value it must equal."),
         N_("Quotes make a string: {\"userId\": \"42\"} and {\"userId\": 42} ask different "
            "things.")],
        explanation=N_("An equality filter on a string matches that string only: the numbers "
                       "42 are in another type bracket (lesson 03).")),
    "01.october": _query(
        FILTER, "events", _OCTOBER, _MORE_EVENTS,
        N_("Write a filter for the events of October 2026 (in UTC), by their Date field "
           "atDate."),
        [N_("Compare Dates with Dates: in Python, datetime.datetime(2026, 10, 1, "
            "tzinfo=datetime.UTC) is the first moment of October."),
         N_("Two bounds in one condition: $gte the first moment of October, $lt the first "
            "moment of November, so that nothing of November 1 gets in.")],
        explanation=N_("A range on the Date field compares moments: {atDate: {$gte: "
                       "ISODate(\"2026-10-01\"), $lt: ISODate(\"2026-11-01\")}}. The same "
                       "range on the string at compares characters: an unpadded date or a "
                       "local time with its offset lands on the wrong side.")),
    "01.in_time": _query(
        SORT, "events", {"atDate": 1}, _MORE_EVENTS,
        N_("Write a sort that lists the events in the order they happened, earliest first."),
        [N_("Which field holds the time as a time, and which holds it as text?"),
         N_("Sort on the Date: {\"atDate\": 1}. A sort on the string at puts \"2026-9-30\" "
            "after \"2026-10-15\".")],
        explanation=N_("{atDate: 1} orders by the moment each Date stores; {at: 1} orders the "
                       "strings character by character, so \"2026-9-30\" sorts after every "
                       "\"2026-10-…\", and an offset such as +07:00 is only text.")),
    "02.descending": _query(
        SORT, "mixed", {"v": -1}, _MORE_MIXED,
        N_("Write a sort that lists the mixed documents by v from the top rung of the type "
           "ladder down."),
        [N_("A sort is a document of fields and directions: 1 up, -1 down."),
         N_("Descending, an array sorts by its largest element.")],
        explanation=N_("{v: -1} walks the ladder from its top (dates, booleans, ObjectIds) "
                       "down to null and the missing field; values of one type compare by "
                       "value, and an array by its largest element.")),
    "02.numbers_up": _query(
        PIPELINE, "mixed", [{"$match": {"v": {"$type": "number"}}}, {"$sort": {"v": 1}}],
        _MORE_MIXED,
        N_("Write a pipeline that keeps the documents whose v is (or holds) a number, smallest "
           "first."),
        [N_("Two stages: one keeps ($match), one orders ($sort)."),
         N_("{$type: \"number\"} stands for int, long, double and decimal alike.")],
        explanation=N_("$match with {$type: \"number\"} keeps every numeric type, and the array "
                       "[5, \"x\"] for its element 5; $sort then orders them by value across "
                       "types, the array by its smallest element.")),
    "03.over_zero": _query(
        FILTER, "orders", {"userId": {"$gt": 0}}, _MORE_ORDERS,
        N_("Write a filter for every order whose userId is a number greater than 0."),
        [N_("Which operator means \"greater than\"?"),
         N_("A comparison with a number only ever meets numbers: is that what you want here?")],
        explanation=N_("{userId: {$gt: 0}} meets numbers only (type bracketing): every numeric "
                       "type above 0 matches, and no string does, whatever it holds.")),
    "03.every_42": _query(
        FILTER, "orders", {"userId": {"$in": [42, "42"]}}, _MORE_ORDERS,
        N_("Write a filter for every order whose userId means 42, stored as a number or as the "
           "string \"42\"."),
        [N_("One value can only meet one type bracket: you need two."),
         N_("$in takes a list of values, and $or a list of filters.")],
        explanation=N_("A value meets its own bracket only, so a query for both forms names "
                       "both: {userId: {$in: [42, \"42\"]}}, or an $or of the two equalities. "
                       "Better still, store one type (normalise at the boundary).")),
    "04.since": _query(
        FILTER, "tickets", {"_id": {"$gte": _from(_SECOND)}}, _MORE_TICKETS,
        N_("Write a filter, on _id alone, for the tickets made at or after "
           "2026-10-08T00:00:00Z."),
        [N_("An ObjectId starts with the second it was made: a range on _id is a range of "
            "seconds."),
         N_("The lower bound is the smallest ID of that second, ObjectId.from_datetime(...), "
            "not an ID made in it.")],
        explanation=N_("{_id: {$gte: ObjectId.from_datetime(2026-10-08)}}: the bound is the "
                       "second followed by zeros, below every ID of that second. An ID made in "
                       "it carries a random value, and the IDs of that second with a smaller "
                       "random value would fall below it.")),
    "04.in_second": _query(
        FILTER, "tickets", {"_id": {"$gte": _from(_SECOND), "$lt": _from(_SECOND + 1)}},
        _MORE_TICKETS,
        N_("Write a filter, on _id alone, for the tickets made in the second "
           "2026-10-08T00:00:00Z, and no other."),
        [N_("One second is a range with two bounds: where it starts, and where the next "
            "second starts."),
         N_("$gte the smallest ID of that second, $lt the smallest ID of the next one: both "
            "from ObjectId.from_datetime.")],
        explanation=N_("A second of IDs runs from the smallest ID of that second to the "
                       "smallest of the next, excluded: {$gte: from_datetime(T), $lt: "
                       "from_datetime(T + 1 s)}. An ID made at T + 1 s as the upper bound lets "
                       "in the IDs of T + 1 s with a smaller random value.")),
    "05.made_order": _query(
        SORT, "jobs", {"createdAt": 1}, _MORE_JOBS,
        N_("Write a sort that lists the jobs in the order they were made, first made first."),
        [N_("Within one second, what decides the order of ObjectIds from different "
            "processes?"),
         N_("_id order within a second follows the processes' random values, not the clock: "
            "sort on the createdAt Date, which keeps milliseconds.")],
        explanation=N_("{createdAt: 1} orders by the moment each job was made, to the "
                       "millisecond. {_id: 1} orders by second, then by the process's random "
                       "value: within a second, one process's jobs all come before another's, "
                       "whenever they were made.")),
    "05.next_page": _query(
        PIPELINE, "jobs",
        [{"$match": {"_id": {"$gt": _PAGE_END}}}, {"$sort": {"_id": 1}}, {"$limit": 3}],
        _MORE_JOBS,
        N_("Pages of 3 jobs in _id order: the first page ends with _id "
           "ObjectId(\"6ae843007c41e90a332b1c00\"). Write the query for the next page."),
        [N_("A page starts just after the last _id of the page before, in the same order."),
         N_("Three parts: _id greater than the last one ($gt, not $gte), sorted by _id, "
            "limited to 3.")],
        explanation=N_("find({_id: {$gt: lastId}}).sort({_id: 1}).limit(3): _id order is "
                       "stable and unique, which is all a page needs, even though it is not "
                       "the order the jobs were made in.")),
    "06.right_edge": _query(
        PIPELINE, "sessions", [{"$sort": {"_id": -1}}, {"$limit": 3}], _MORE_SESSIONS,
        N_("The sessions' _ids are UUIDv7s. Write a pipeline that gives the three most recently "
           "made sessions, newest first."),
        [N_("A UUIDv7 starts with its time in milliseconds: what does that make its sort "
            "order?"),
         N_("Sort on _id, largest first ($sort with -1), then keep 3 ($limit).")],
        explanation=N_("A UUID compares byte by byte, and a UUIDv7's first 48 bits are its "
                       "time: sorting on _id is sorting by time, so the newest keys sit at "
                       "the right edge of the index. A UUIDv4 has no such order.")),
    "07.over_41": _query(
        FILTER, "orders", {"userId": {"$gt": 41}}, _MORE_ORDERS_41,
        N_("Write a filter for every order whose userId is a number greater than 41, "
           "Decimal128 included."),
        [N_("Which operator means \"greater than\"? A number operand meets every numeric type."),
         N_("Greater than 41 is not the same as 42 or more: 41.5 is greater than 41 too.")],
        explanation=N_("{userId: {$gt: 41}} compares every numeric type by value: the int, "
                       "long and Decimal128 42.00 match (the shell's 42.0 is stored as an int), "
                       "the string \"42\" does not. mongomock raises on the Decimal128 here, "
                       "where MongoDB answers.")),
    "07.null_present": _query(
        FILTER, "nulls", {"a": {"$type": "null"}}, _MORE_NULLS,
        N_("Write a filter for the documents whose field a is present and null: not the "
           "documents without a."),
        [N_("{a: null} matches null and also a missing field: what else must hold?"),
         N_("Ask for the type: {\"a\": {\"$type\": \"null\"}}, or add \"$exists\": True "
            "beside $eq null.")],
        explanation=N_("{a: null} matches documents where a is null or missing; {a: {$type: "
                       "\"null\"}} matches only a stored null. {a: {$gte: null}} matches the "
                       "missing field too on MongoDB, where mongomock and montydb return the "
                       "stored null alone.")),
}
