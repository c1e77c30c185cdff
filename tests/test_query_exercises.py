"""Query exercises: the learner's query is judged by what it returns on the lesson's fixture and
on a variant it has not seen, so a list of _ids copied from the fixture fails and two different
right queries both pass. Judged here by labkit's model (no server), as the feedback says.

Each exercise's reference results are MongoDB's documented rules on the fixtures: type
bracketing and the BSON comparison order (the manual's reference/bson-type-comparison-order
page: numbers of every type, Decimal128 included, compare by value; Dates by their
milliseconds; ObjectIds by their bytes; BinData by length, then subtype, then byte by byte), an
array's sort key (jstests/core/query/sort/sort_array.js:59-79 at 6fdbf4c4), $type "number" and
"null" (the manual's operator/query/type page), null against a missing field (the manual's
tutorial/query-for-null-fields page: {a: null} matches both, {a: {$type: "null"}} only a stored
null), an ObjectId's leading 4-byte timestamp and ObjectId.from_datetime's zeros after it (the
manual's reference/bson-types page, ObjectId; pymongo's bson.objectid.ObjectId.from_datetime),
and a UUIDv7's leading 48-bit Unix time in milliseconds (RFC 9562, section 5.7).
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from bson import Binary, Decimal128, ObjectId

import labkit
from labkit.lessons.query_questions import QUERY_EXERCISES

_OCT_1 = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
_NOV_1 = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
_SECOND = 1_791_417_600  # 2026-10-08T00:00:00Z, the tickets' second
# The tickets made from that second on, those of the second first (data/tickets.json).
_SECOND_ON = ["6ac6dd005c17e2a9b001a2f1", "6ac6dd000b5e17a2c99a1f00", "6ac6dd00e4d07f3b1600f1a1",
              "6ac6dd000b5e17a2c99a1f01", "6ac6dd005c17e2a9b001a2f2", "6ac6dd015c17e2a9b001a2f3",
              "6ac6dd010b5e17a2c99a1f02"]
_PAGE_END = ObjectId("6ae843007c41e90a332b1c00")  # the jobs' first page of 3 ends here
_PAGE_2 = ["6ae843007c41e90a332b1c01", "6ae843007c41e90a332b1c02", "6ae84300c35a0d77e20a4e20"]
# The three newest sessions' UUIDv7 keys (data/sessions.json).
_NEWEST = [Binary.from_uuid(uuid.UUID(u))
           for u in ("01a11abd-aaa8-7b48-8ce3-eae6c3bf67b0", "01a11abd-aa9f-7a49-ac6e-11d4ab268129",
                     "01a11abd-aa96-7b8a-91fc-e0fa1f5dff7b")]


def _from(seconds: int) -> ObjectId:
    return ObjectId.from_datetime(dt.datetime.fromtimestamp(seconds, dt.UTC))


def _all_of(name: str):
    """A cursor of the learner's own collection whose filter names the fixture's _ids."""
    return labkit.collection(name).find(
        {"_id": {"$in": [d["_id"] for d in labkit.collection(name).documents()]}})


# Per exercise: two different right queries, and the fixture's right _ids written out (which
# the variant, with other _ids, must refuse). Sorts and pipelines list _ids in their order.
CASES = {
    "00.first_query": ({"userId": "42"}, {"userId": {"$eq": "42"}},
                       {"_id": {"$in": [2]}}),
    "01.october": ({"atDate": {"$gte": _OCT_1, "$lt": _NOV_1}},
                   {"$and": [{"atDate": {"$gt": _OCT_1 - dt.timedelta(milliseconds=1)}},
                             {"atDate": {"$lte": _NOV_1 - dt.timedelta(milliseconds=1)}}]},
                   {"_id": {"$in": ["b", "c"]}}),
    "01.in_time": ({"atDate": 1}, [("atDate", 1), ("_id", -1)],
                   lambda: _all_of("events").sort("atDate", 1)),
    # A sort alone names no _id: the hard-coded answer is a cursor of the learner's own
    # collection, its filter naming the fixture's _ids.
    "02.descending": ({"v": -1}, [("v", -1), ("_id", 1)],
                      lambda: labkit.collection("mixed").find(
                          {"_id": {"$in": [d["_id"] for d in labkit.collection("mixed")
                                           .documents()]}}).sort("v", -1)),
    "02.numbers_up": ([{"$match": {"v": {"$type": "number"}}}, {"$sort": {"v": 1}}],
                      [{"$sort": {"v": 1}}, {"$match": {"v": {"$type": "number"}}}],
                      [{"$match": {"_id": {"$in": ["dec2", "array", "dbl9.5", "int10",
                                                   "long100"]}}}, {"$sort": {"v": 1}}]),
    "03.over_zero": ({"userId": {"$gt": 0}}, {"userId": {"$type": "number", "$gt": 0}},
                     {"_id": {"$in": [1, 3, 4, 5]}}),
    "03.every_42": ({"userId": {"$in": [42, "42"]}},
                    {"$or": [{"userId": 42}, {"userId": "42"}]},
                    {"_id": {"$in": [1, 2, 3, 4, 5]}}),
    # The largest ID of the second before is another lower bound, excluded.
    "04.since": ({"_id": {"$gte": _from(_SECOND)}},
                 {"_id": {"$gt": ObjectId("6ac6dcffffffffffffffffff")}},
                 {"_id": {"$in": [ObjectId(h) for h in _SECOND_ON]}}),
    "04.in_second": ({"_id": {"$gte": _from(_SECOND), "$lt": _from(_SECOND + 1)}},
                     {"$and": [{"_id": {"$gt": ObjectId("6ac6dcffffffffffffffffff")}},
                               {"_id": {"$lte": ObjectId("6ac6dd00ffffffffffffffff")}}]},
                     {"_id": {"$in": [ObjectId(h) for h in _SECOND_ON[:5]]}}),
    "05.made_order": ({"createdAt": 1}, [("createdAt", 1), ("by", 1)],
                      lambda: _all_of("jobs").sort("createdAt", 1)),
    # The learner's own cursor is the other right answer, find().sort().limit().
    "05.next_page": ([{"$match": {"_id": {"$gt": _PAGE_END}}}, {"$sort": {"_id": 1}},
                      {"$limit": 3}],
                     lambda: labkit.collection("jobs").find(
                         {"_id": {"$gt": _PAGE_END}}).sort("_id", 1).limit(3),
                     [{"$match": {"_id": {"$in": [ObjectId(h) for h in _PAGE_2]}}},
                      {"$sort": {"_id": 1}}]),
    "06.right_edge": ([{"$sort": {"_id": -1}}, {"$limit": 3}],
                      lambda: labkit.collection("sessions").find().sort("_id", -1).limit(3),
                      [{"$match": {"_id": {"$in": _NEWEST}}}, {"$sort": {"_id": -1}}]),
    # A Decimal128 operand compares by value as well as an int does.
    "07.over_41": ({"userId": {"$gt": 41}}, {"userId": {"$gt": Decimal128("41.0")}},
                   {"_id": {"$in": [1, 3, 4, 5]}}),
    "07.null_present": ({"a": {"$type": "null"}}, {"a": {"$eq": None, "$exists": True}},
                        {"_id": {"$in": [1]}}),
}


def test_every_query_exercise_has_cases():
    """Each registered query exercise is pinned by this file's table."""
    assert set(CASES) == set(QUERY_EXERCISES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_two_different_right_queries_pass(kernel, name):
    """Two different right queries are each right, on the fixture and on the variant."""
    first, second, _ids = CASES[name]
    for query in (first, second):
        feedback = labkit.exercise(name).check(query() if callable(query) else query)
        assert feedback.correct is True, (name, query, str(feedback))
        assert "labkit's model" in str(feedback)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hard_coded_id_list_fails(kernel, name):
    """A query naming the fixture's right _ids is refused: the variant has other _ids."""
    _first, _second, hard_coded = CASES[name]
    feedback = labkit.exercise(name).check(hard_coded() if callable(hard_coded) else hard_coded)
    assert feedback.correct is False, (name, str(feedback))


def test_a_wrong_filter_is_told_each_document_and_its_rule(kernel):
    """A filter that lets the string in and keeps the numbers out is told so, naming _id 2
    with the rule that let it in (BSON order within the string bracket) and the numbers'
    rule (type bracketing)."""
    feedback = str(labkit.exercise("03.over_zero").check({"userId": {"$gte": "0"}}))
    assert "let in _id 2 (bson-order:" in feedback
    assert "kept out _id 1 (type-bracketing)" in feedback
    assert len(feedback) <= 400


def test_right_here_but_wrong_on_the_variant_says_so(kernel):
    """A filter right on the fixture but wrong on the unseen variant ($type "number" lets in
    the variant's 0 and -5) is told that it names values rather than the rule."""
    feedback = str(labkit.exercise("03.over_zero").check({"userId": {"$type": "number"}}))
    assert "others of the same shape" in feedback
    assert "let in _id" in feedback


def test_an_unreadable_query_is_no_attempt(kernel):
    """A query the model cannot run is not counted as a try, and says why."""
    exercise = labkit.exercise("03.over_zero")
    feedback = exercise.check({"userId": {"$foo": 1}})
    assert feedback.correct is None
    assert "$foo" in str(feedback)
    assert exercise.attempts == 0


def test_a_cursor_from_the_learners_collection_is_an_answer(kernel):
    """The learner may answer with the cursor they wrote, orders.find(...)."""
    cursor = labkit.collection("orders").find({"userId": {"$in": [42, "42"]}})
    assert labkit.exercise("03.every_42").check(cursor).correct is True


def test_a_sort_in_another_order_names_the_first_place(kernel):
    """A sort in the wrong direction is told the first place it differs."""
    feedback = str(labkit.exercise("02.descending").check({"v": 1}))
    assert "at place 1" in feedback


def test_reveal_shows_the_reference_in_mongosh(kernel):
    """reveal shows a right query as mongosh writes it, and says the model judged it."""
    feedback = str(labkit.exercise("03.every_42").reveal())
    assert 'db.orders.find({userId: {$in: [42, "42"]}})' in feedback
    assert "labkit's model" in feedback


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_reference_as_mongosh_writes_it_is_right(kernel, name):
    """Each exercise's right query, typed as mongosh writes it (the text ``reveal`` and the
    answer sheet show, ``db.orders.find({userId: {$gt: 0}})``), is read and judged right; so
    is its bare argument (``{userId: {$gt: 0}}``), as a learner copies it from the manual."""
    from labkit.lessons.query_tasks import as_query

    task = labkit.exercise(name).accept.task
    shell = as_query(task, task.reference).mongosh()
    assert labkit.exercise(name).check(shell).correct is True, (name, shell)
    bare = shell[shell.index("(") + 1:shell.rindex(")")]
    if shell.count("(") == 1:  # one call: its argument alone is the filter, sort or pipeline
        assert labkit.exercise(name).check(bare).correct is True, (name, bare)


# The manual's notation, as its pages write queries (reference/operator/query/gt, .../in,
# .../type; reference/method/db.collection.find; reference/method/cursor.sort): unquoted
# field names and operators, single quotes, a trailing comma, a constructor.
SHELL_FORMS = [
    ("03.over_zero", "{userId: {$gt: 0}}"),
    ("03.over_zero", "db.orders.find( { userId: { $gt: 0 } } );"),
    ("03.every_42", "{userId: {$in: [42, '42'],}}"),
    ("03.every_42", '{$or: [{userId: 42}, {userId: "42"}]}'),
    ("03.every_42", '{userId: {$in: [NumberDecimal("42"), "42"]}}'),
    ("02.descending", "{v: -1, _id: 1}"),
    ("02.descending", "db.mixed.find().sort({v: -1, _id: 1})"),
]


@pytest.mark.parametrize(("name", "typed"), SHELL_FORMS)
def test_a_query_in_the_manuals_notation_is_read(kernel, name, typed):
    """A right query typed in mongosh's notation, as the manual writes it, is judged right."""
    feedback = labkit.exercise(name).check(typed)
    assert feedback.correct is True, (typed, str(feedback))


@pytest.mark.parametrize(("typed", "says"), [
    ("{userId: }", "look near"),
    ("db.orders.find({userId: 42}", "never closed"),
    ("db.orders.find({userId: 42}).toArray()", ".toArray()"),
    ("db.orders.deleteMany({})", "db.orders.deleteMany(…)"),
    ("{userId: Foo(42)}", "Foo(42)"),
    ("{userId: {$gt: ObjectId()}}", "makes a new ObjectId each time it runs"),
    ("db.orders.find({userId: 42}).limit(1, 2)", "their one argument each"),
])
def test_text_mongosh_cannot_read_is_no_attempt(kernel, typed, says):
    """Text that is no query mongosh reads is not a try: one line says what was not read."""
    exercise = labkit.exercise("03.over_zero")
    feedback = exercise.check(typed)
    assert feedback.correct is None, str(feedback)
    assert says in str(feedback)
    assert exercise.attempts == 0


@pytest.mark.parametrize(("name", "typed", "field"), [
    ("03.over_zero", {"userid": {"$gt": 0}}, "userid"),
    ("06.right_edge", [{"$sort": {"createdAt": -1}}, {"$limit": 3}], "createdAt"),
])
def test_a_field_no_document_has_is_named(kernel, name, typed, field):
    """A wrong query on a field that no document of the fixture has (a typo, a field of
    another lesson's fixture) is told so by name, before any document's rule."""
    feedback = labkit.exercise(name).check(typed)
    assert feedback.correct is False
    assert f"No document has a field {field}" in str(feedback)


def test_mongoshs_bare_constructors_and_a_projection_are_read():
    """mongosh takes MinKey and MaxKey bare ({v: {$gt: MinKey}}), and find's second argument
    is its projection: both are read as mongosh reads them, a field named MinKey stays a
    field (the mongosh manual's reference/method/MinKey and db.collection.find pages)."""
    from bson.min_key import MinKey

    from labkit.lessons import shell_query

    assert shell_query.read("{v: {$gt: MinKey}}").value == {"v": {"$gt": MinKey()}}
    assert shell_query.read("{MinKey: 1}").value == {"MinKey": 1}
    typed = shell_query.read("db.orders.find({userId: 42}, {_id: 1})")
    assert typed.arguments == [{"userId": 42}, {"_id": 1}]


def test_a_field_a_pipeline_makes_is_not_called_absent(kernel):
    """A field that an earlier stage makes (a computed $project) is the pipeline's own: a
    wrong pipeline sorting on it is told its documents, not that no document has the field."""
    feedback = labkit.exercise("06.right_edge").check(
        [{"$project": {"t": {"$literal": 1}}}, {"$sort": {"t": -1}}, {"$limit": 3}])
    assert feedback.correct is False
    assert "No document has a field" not in str(feedback)
