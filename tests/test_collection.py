"""labkit.collection: the learner's own collection, shaped like pymongo's, answered by labkit's
model where no server runs (these tests), by a scripted server over the wire (what labkit sends
and how it shows the reply), and by a real MongoDB where one runs (skipped here).

The model's answers asserted here are MongoDB's documented results: the orders fixture's
``{userId: {$gt: 0}}`` is claim B1's recorded result ([1, 3, 4, 5]); type bracketing is the
manual's "Comparison/Sort Order" page (reference/bson-type-comparison-order).
"""

from __future__ import annotations

import pytest
from bson import Decimal128, Int64
from mongo_wire import cursor_of
from wire_replies import ORDERS_FROM_PYTHON, connected, found, in_database

from labkit.errors import BadInput
from labkit.lessons.collection import Collection, Query, Where, collection, mongosh


@pytest.fixture
def orders(kernel):
    """The learner's copy of the orders fixture in an offline kernel: on the model."""
    return collection("orders")


def test_find_on_the_model_says_who_answered(orders):
    """With no server, find is answered by the model and says so: a prediction, no server
    asked (claim B1's recorded result: {userId: {$gt: 0}} returns 1, 3, 4 and 5)."""
    answer = orders.find({"userId": {"$gt": 0}}).answer()
    assert answer.ids() == [1, 3, 4, 5]
    assert "labkit's model of MongoDB 8.0: a prediction, no server asked" in str(answer)
    assert not answer.where.on_server
    assert not answer.differs()


def test_sort_skip_and_limit_refine_the_cursor(orders):
    """.sort(field, direction), .skip and .limit change the read as pymongo's cursor does; the
    string "42" sorts above every number (the manual's BSON comparison order)."""
    cursor = orders.find({}).sort("userId", -1).skip(1).limit(2)
    assert cursor.query.arguments == {"filter": {}, "sort": {"userId": -1}, "skip": 1,
                                      "limit": 2}
    assert cursor.ids()[0] != 2
    assert len(cursor.ids()) == 2
    assert orders.find().sort("userId", -1).ids()[0] == 2


def test_the_query_is_shown_in_mongosh_and_pymongo_form(orders):
    """A read is written as mongosh takes it (bare keys, a dotted path quoted) and as pymongo
    takes it (a sort as a list of pairs)."""
    query = orders.find({"a.b": None, "userId": {"$gt": 0}}).sort("userId", 1).limit(2).query
    assert query.mongosh() == 'db.orders.find({"a.b": null, userId: {$gt: 0}})' \
                              '.sort({userId: 1}).limit(2)'
    assert query.pymongo() == "orders.find({'a.b': None, 'userId': {'$gt': 0}})" \
                              ".sort([('userId', 1)]).limit(2)"
    assert mongosh({"n": Int64(5), "d": Decimal128("1.5")}) == \
        '{n: NumberLong("5"), d: NumberDecimal("1.5")}'


def test_count_distinct_and_aggregate_on_the_model(orders):
    """count_documents, distinct and aggregate answer on the model: four numeric 42s of four
    types equal 42 (one bracket for all numbers), distinct gives 42 once and "42" once."""
    assert orders.count_documents({"userId": 42}) == 4
    assert orders.distinct("userId").value == [42, "42"]
    assert orders.aggregate([{"$match": {"userId": {"$type": "string"}}}]).ids() == [2]


def test_why_names_the_rule_for_every_document(orders):
    """The why table has a row per document of the collection, the string's rule being type
    bracketing under a number's filter."""
    why = orders.find({"userId": {"$gt": 0}}).answer().why()
    assert why is not None
    assert len(why) == 5
    rules = dict(zip(why["_id"], why["rule"], strict=True))
    assert rules[2] == "type-bracketing"


def test_html_is_kept_from_mathjax_and_holds_the_query(orders):
    """The HTML answer carries JupyterLab's class that keeps MathJax off (a "$gt" pair would
    read as TeX) and shows the query as written."""
    page = orders.find({"userId": {"$gt": 0}})._repr_html_()
    assert "mathjax_ignore" in page
    assert "tex2jax_ignore" in page
    assert "db.orders.find({userId: {$gt: 0}})" in page


def test_writes_change_the_models_copy(orders):
    """insert_one, update_many ($set), delete_one change what later reads see."""
    assert "insertedId" in str(orders.insert_one({"_id": 9, "userId": "7"}).said)
    orders.update_many({"userId": "42"}, {"$set": {"userId": 42}})
    assert orders.count_documents({"userId": 42}) == 5
    orders.delete_one({"_id": 9})
    assert orders.count_documents({}) == 5


def test_an_update_the_model_cannot_perform_is_refused_in_words(orders):
    """An update operator the model does not perform is refused with what it does perform,
    shown, never raised."""
    written = orders.update_one({"_id": 1}, {"$push": {"tags": "x"}})
    assert "$set, $unset, $inc" in written.refused
    assert orders.count_documents({"tags": "x"}) == 0


@pytest.mark.parametrize(("operation", "arguments", "said"), [
    # A learner's walk: each was worded as a gap in the model ("a server performs every
    # update") or garbled ("…no server asked refused insertOne: the model predicts results,
    # not server errors"), where pymongo or MongoDB refuses the write.
    ("update_one", ({"_id": 4}, {"userId": 1}), "pymongo refuses a plain document"),
    ("update_one", ({"_id": 4}, {"$inc": {"userId": "1"}}),
     "MongoDB refuses $inc by a value that is not a number"),
    ("update_one", ({"_id": 2}, {"$inc": {"userId": 1}}),
     "MongoDB refuses $inc on a field that holds no number"),
    ("insert_one", ({"_id": 2, "userId": 1},), "MongoDB refuses a second document with _id 2"),
    # 2.0 is the _id 2 to the server's unique index, as to the model's inserts (BSON order)
    ("insert_one", ({"_id": 2.0},), "MongoDB refuses a second document with _id 2.0"),
    ("insert_many", ([{"_id": 7}, {"_id": 7}],), "MongoDB refuses a second document with _id 7"),
])
def test_a_write_mongodb_refuses_is_said_as_its_refusal(orders, operation, arguments, said):
    before = orders.documents()
    written = getattr(orders, operation)(*arguments)
    assert said in written.refused
    assert str(written).startswith(f"{written.operation} not done (labkit's model")
    assert orders.documents() == before


def test_a_pymongo_name_the_collection_lacks_is_one_line(orders):
    """find_one is there; replace_one and a cursor's count are not, and say what is, in one
    line in a notebook (an AttributeError still, so hasattr answers False)."""
    assert orders.find_one({"userId": 42}).ids() == [1]
    with pytest.raises(AttributeError, match="has no replace_one; it takes find, find_one"):
        orders.replace_one({}, {})  # type: ignore[attr-defined]
    with pytest.raises(AttributeError) as missing:
        orders.find({}).count()  # type: ignore[attr-defined]
    assert missing.value._render_traceback_() == [  # type: ignore[attr-defined]
        "AttributeError: this cursor has no count; it takes sort, skip, limit, ids"]
    assert not hasattr(orders, "drop")
    assert not hasattr(orders, "_repr_markdown_")


@pytest.mark.parametrize(("read", "said"), [
    # A learner's walk: a typo read as a gap in the model, as if a server might answer it.
    (lambda o: o.find({"userId": {"$gtt": 0}}), "did you mean $gt? MongoDB refuses an operator"),
    (lambda o: o.aggregate([{"$mtch": {}}]), "did you mean $match? MongoDB refuses a stage"),
])
def test_a_misspelt_operator_or_stage_is_named_with_the_one_meant(orders, read, said):
    answer = read(orders)
    answer = answer.answer() if hasattr(answer, "answer") else answer
    assert said in answer.refused


def test_an_unknown_operator_is_an_answer_not_a_traceback(orders):
    """A filter the model cannot read gives an answer saying why; reading its documents
    raises BadInput with the same words."""
    answer = orders.find({"userId": {"$foo": 1}}).answer()
    assert "$foo" in answer.refused
    assert "gives no answer" in str(answer)
    with pytest.raises(BadInput):
        answer.documents()


@pytest.mark.parametrize(("given", "expected"), [(None, 5), ([], 0), ("nulls", 4)])
def test_collection_takes_a_fixture_documents_or_nothing(kernel, given, expected):
    """collection(name) copies the fixture of that name; given documents (or a fixture's
    name) it holds those."""
    assert len(collection("orders", given).documents()) == expected


def test_a_filter_that_is_no_document_is_bad_input(orders):
    """A filter that is not a document is refused with an example."""
    with pytest.raises(BadInput, match="such as"):
        orders.find("userId > 0")  # type: ignore[arg-type]


wire = pytest.mark.wire


@wire
def test_on_a_server_the_fixture_is_inserted_and_the_find_sent(wire_server):
    """On a server, labkit inserts the documents into a fresh labkit_yourturn database, sends
    the find as written, shows the server's documents and says the model predicts the same.
    (The scripted reply is claim B1's recorded result; it checks labkit's side only.)"""
    with connected(wire_server) as lab:
        lab.wire.on("find", cursor_of(found(ORDERS_FROM_PYTHON, 1, 3, 4, 5)),
                    match=lambda s: s["find"] == "orders")
        where = Where(lab.server, lab.server.fresh_database("yourturn"))
        answer = Collection("orders", ORDERS_FROM_PYTHON, where).find(
            {"userId": {"$gt": 0}}).answer()
        sent = [s for s in lab.wire.sent if in_database(s, "yourturn")]
        insert = next(s for s in sent if s.name == "insert")
        read = next(s for s in sent if s.name == "find")
    assert insert["documents"] == ORDERS_FROM_PYTHON
    assert read["filter"] == {"userId": {"$gt": 0}}
    assert answer.ids() == [1, 3, 4, 5]
    assert not answer.differs()
    assert "MongoDB 7.0.16, the lesson's server" in str(answer)


@wire
def test_a_server_that_answers_otherwise_is_flagged(wire_server):
    """Where the server's documents differ from the model's prediction, the answer says so,
    naming what only each returned: a finding to report, the server's answer shown."""
    with connected(wire_server) as lab:
        lab.wire.on("find", cursor_of(found(ORDERS_FROM_PYTHON, 1, 2)),
                    match=lambda s: s["find"] == "orders")
        where = Where(lab.server, lab.server.fresh_database("yourturn"))
        answer = Collection("orders", ORDERS_FROM_PYTHON, where).find(
            {"userId": {"$gt": 0}}).answer()
    assert answer.differs()
    assert "only the server returned [2]; only the model [3, 4, 5]" in str(answer)


@pytest.mark.mongodb
def test_on_a_real_server_the_model_and_mongodb_agree(mongodb_server):
    """On a real MongoDB, the orders fixture under {userId: {$gt: 0}} returns what the model
    predicts (claim B1): only a real server can confirm it."""
    database = mongodb_server.fresh_database("yourturn")
    try:
        answer = Collection("orders", ORDERS_FROM_PYTHON, Where(mongodb_server, database)).find(
            {"userId": {"$gt": 0}}).answer()
        assert sorted(answer.ids()) == [1, 3, 4, 5]
        assert not answer.differs()
    finally:
        mongodb_server.drop(database.name)


def test_query_equality_is_by_value():
    """Two reads with the same operation and arguments are the same query."""
    assert Query("o", "find", {"filter": {}}) == Query("o", "find", {"filter": {}})


def test_a_filtered_and_sorted_read_explains_its_order_too(orders):
    """A learner's walk: with a filter and a sort, the Why said which documents match, never
    why they come in that order. A second fold gives the order, the value each sorts by; a
    sort alone has the one fold, its order."""
    both = orders.find({"userId": {"$gte": 42}}).sort("userId", -1).limit(2)
    page = both._repr_html_()
    assert page.count("<details>") == 2
    assert "In what order, and why (labkit model)" in page
    order = both.answer().why_order()
    assert order is not None
    assert set(order["_id"]) == {1, 3, 4, 5}  # the string "42" is filtered out first
    alone = orders.find({}).sort("userId", 1)._repr_html_()
    assert alone.count("<details>") == 1
