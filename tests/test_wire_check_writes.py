"""``labkit check``'s MongoDB engine performing a Unified Test Format file's CRUD writes, over
the wire: labkit's engine, unmodified, speaks through real pymongo to a scripted MongoDB
(``tests/mongo_wire.py``).

Each test pins the commands a write sends (insert, update, delete, findAndModify), in the
file's order with the reads, in labkit's own fresh database, and how each documented reply is
read into the CRUD specification's result object (mongodb/specifications source/crud/crud.md
at 92b3c0b9). The replies are scripted from the server's reply types in
src/mongo/db/query/write_ops/write_ops.idl (mongodb/mongo commit 0b22cf9c: InsertCommandReply
and DeleteCommandReply ``{n}``, UpdateCommandReply ``{n, nModified, upserted: [{index, _id}]}``,
FindAndModifyCommandReply ``{lastErrorObject: {n, updatedExisting, upserted}, value}``,
``value`` always serialized, null when no document) and the manual's insert, update, delete
and findAndModify command pages. No verdict about MongoDB comes from them: the verdicts on
writes are given on a real server only, by the ``mongodb``-marked tests at the end, which run
the spec's own files whole.
"""

from __future__ import annotations

import collections
import dataclasses
from pathlib import Path

import pytest
from mongo_wire import Sent, cursor_of, same_bson, update_reply, write_reply
from wire_replies import Lab, connected

from labkit.claims import files
from labkit.engines.query import MongoDBEngine
from labkit.errors import NotSupported

wire = pytest.mark.wire
CORPUS = Path(__file__).resolve().parent / "data" / "crud-unified"

# One test of each write, with a read and an outcome after them, in the spec's own words.
WRITES = """\
description: writes
schemaVersion: "1.0"
createEntities:
  - client: {id: client0}
  - database: {id: database0, client: client0, databaseName: crud-tests}
  - collection: {id: collection0, database: database0, collectionName: coll}
initialData:
  - {collectionName: coll, databaseName: crud-tests, documents: [{_id: 1, x: 11}]}
tests:
  - description: insertOne then count
    operations:
      - name: insertOne
        object: collection0
        arguments: {document: {_id: 2, x: 22}}
        expectResult: {$$unsetOrMatches: {insertedId: {$$unsetOrMatches: 2}}}
      - name: countDocuments
        object: collection0
        arguments: {filter: {}}
        expectResult: 2
    outcome:
      - {collectionName: coll, databaseName: crud-tests, documents: [{_id: 1, x: 11},
                                                                   {_id: 2, x: 22}]}
  - description: updateOne with upsert
    operations:
      - name: updateOne
        object: collection0
        arguments: {filter: {_id: 3}, update: {$inc: {x: 1}}, upsert: true}
        expectResult: {matchedCount: 0, modifiedCount: 0, upsertedCount: 1, upsertedId: 3}
  - description: deleteMany
    operations:
      - name: deleteMany
        object: collection0
        arguments: {filter: {x: {$gt: 10}}}
        expectResult: {deletedCount: 1}
  - description: findOneAndUpdate after
    operations:
      - name: findOneAndUpdate
        object: collection0
        arguments: {filter: {_id: 1}, update: {$inc: {x: 1}}, returnDocument: After}
        expectResult: {_id: 1, x: 12}
  - description: insertOne of a duplicate
    operations:
      - name: insertOne
        object: collection0
        arguments: {document: {_id: 1}}
        expectError: {isClientError: false, errorCode: 11000}
  - description: insertMany of a duplicate
    operations:
      - name: insertMany
        object: collection0
        arguments: {documents: [{_id: 5}, {_id: 1}]}
        expectError: {isClientError: false, errorCode: 11000, errorContains: duplicate key}
  - description: bulkWrite
    operations:
      - name: bulkWrite
        object: collection0
        arguments:
          requests:
            - insertOne: {document: {_id: 2}}
            - updateOne: {filter: {_id: 1}, update: {$set: {x: 1}}}
            - deleteOne: {filter: {_id: 2}}
          ordered: true
        expectResult: {deletedCount: 1, insertedCount: 1, matchedCount: 1, modifiedCount: 1,
                       upsertedCount: 0, upsertedIds: {}}
  - description: an option labkit does not send
    operations:
      - name: insertOne
        object: collection0
        arguments: {document: {_id: 2}, rawData: true}
        expectResult: {insertedId: 2}
"""


@pytest.fixture
def lab(wire_server):
    """A scripted server answering what every claim needs (its inserts among them), and labkit
    connected to it."""
    with connected(wire_server) as connection:
        yield connection


@pytest.fixture
def tests(tmp_path):
    """The tests of ``WRITES`` by description."""
    path = tmp_path / "writes.yml"
    path.write_text(WRITES, encoding="utf-8")
    return {spec.title: spec for spec in files.read(path)}


def _sent(lab: Lab) -> list[Sent]:
    """What the engine sent to its fresh databases (``labkit_check_…``)."""
    return [s for s in lab.wire.sent if s.db.startswith("labkit_check_")]


def _written(lab: Lab) -> list[Sent]:
    """What the engine sent to its fresh database for the test's steps: less the lease, the
    fixture's insert (which goes first) and the drop."""
    sent = [s for s in _sent(lab) if s.name != "dropDatabase"
            and not (s.name == "update" and s.get("update") == "labkit_lease")]
    return sent[1:]


def _fields(sent: Sent) -> dict:
    return sent.as_written()


def _same(got: dict, expected: dict) -> bool:
    """The same fields, each the same BSON value, in any order."""
    return set(got) == set(expected) and all(same_bson(got[k], v) for k, v in expected.items())


def _answer(lab: Lab, spec):
    """The engine's answers to every step of ``spec`` (writes, reads, the outcome's find)."""
    return MongoDBEngine(lab.server).answer(spec, list(spec.steps))


@wire
def test_an_insert_goes_out_in_the_files_order_with_the_read_and_the_outcome(lab, tests):
    """insertOne sends ``insert`` with the document as written, then the read and the
    outcome's find (empty filter, sorted by ``_id``), in labkit's fresh database; the reply
    ``{n: 1, ok: 1}`` reads as crud.md's InsertOneResult ``{insertedId}`` (the _id labkit
    sent, as pymongo reports it)."""
    lab.wire.on("aggregate", cursor_of([{"_id": 1, "n": 2}]))
    lab.wire.on("find", cursor_of([{"_id": 1, "x": 11}, {"_id": 2, "x": 22}]))
    spec = tests["insertOne then count"]
    insert, count, outcome = _answer(lab, spec)
    assert insert.result == {"insertedId": 2}
    assert (count.result, outcome.result) == (2, [{"_id": 1, "x": 11}, {"_id": 2, "x": 22}])
    sent = _written(lab)
    assert [s.name for s in sent] == ["insert", "aggregate", "find"]
    assert same_bson(_fields(sent[0])["documents"], [{"_id": 2, "x": 22}])
    assert _fields(sent[0])["insert"] == "coll"
    assert _same(_fields(sent[2]), {"find": "coll", "filter": {}, "sort": {"_id": 1}})


@wire
def test_an_upsert_reads_its_upserted_id_from_the_reply(lab, tests):
    """updateOne with ``upsert`` sends one ``update`` statement ``{q, u, upsert: true,
    multi: false}``; the reply ``{n: 1, nModified: 0, upserted: [{index: 0, _id: 3}]}`` reads
    as UpdateResult ``{matchedCount: 0, modifiedCount: 0, upsertedCount: 1, upsertedId: 3}``:
    the upserted document counts in ``n``, not in matchedCount."""
    lab.wire.on("update", update_reply(1, 0, [{"index": 0, "_id": 3}]),
                match=lambda s: s["update"] == "coll")
    (result,) = _answer(lab, tests["updateOne with upsert"])
    assert result.result == {"matchedCount": 0, "modifiedCount": 0, "upsertedCount": 1,
                             "upsertedId": 3}
    (update,) = [s for s in _written(lab)
                 if s.name == "update"]
    (statement,) = _fields(update)["updates"]
    assert _same(statement, {"q": {"_id": 3}, "u": {"$inc": {"x": 1}}, "upsert": True,
                             "multi": False})


@wire
def test_an_upserted_id_of_null_is_still_an_upsert(lab, tests):
    """An upsert whose ``_id`` is null (create-null-ids.yml's updateOne) is an upsert all the
    same: upsertedCount 1, upsertedId null, matchedCount 0, read from the reply's
    ``upserted`` array, where pymongo's matched_count would count it as a match."""
    lab.wire.on("update", update_reply(1, 0, [{"index": 0, "_id": None}]),
                match=lambda s: s["update"] == "coll")
    (result,) = _answer(lab, tests["updateOne with upsert"])
    assert result.result == {"matchedCount": 0, "modifiedCount": 0, "upsertedCount": 1,
                             "upsertedId": None}


@wire
def test_a_delete_many_sends_limit_zero_and_reads_n(lab, tests):
    """deleteMany sends ``delete`` with one statement ``{q, limit: 0}`` (limit 0: every
    match, DeleteOpEntry's ``limit`` in write_ops.idl); ``{n: 1}`` reads as DeleteResult
    ``{deletedCount: 1}``."""
    lab.wire.on("delete", write_reply(1))
    (result,) = _answer(lab, tests["deleteMany"])
    assert result.result == {"deletedCount": 1}
    (delete,) = [s for s in _written(lab) if s.name == "delete"]
    (statement,) = _fields(delete)["deletes"]
    assert _same(statement, {"q": {"x": {"$gt": 10}}, "limit": 0})


@wire
def test_find_one_and_update_asks_for_the_new_document_and_returns_value(lab, tests):
    """findOneAndUpdate with returnDocument After sends ``findAndModify`` with ``new: true``;
    the answer is the reply's ``value``, the document itself, and a ``value`` of null is
    None."""
    lab.wire.on("findAndModify", {"lastErrorObject": {"n": 1, "updatedExisting": True},
                                  "value": {"_id": 1, "x": 12}, "ok": 1.0})
    spec = tests["findOneAndUpdate after"]
    (result,) = _answer(lab, spec)
    assert result.result == {"_id": 1, "x": 12}
    (command,) = [s for s in _sent(lab)
                  if s.name == "findAndModify"]
    assert _same({k: _fields(command)[k] for k in ("findAndModify", "query", "update", "new")},
                 {"findAndModify": "coll", "query": {"_id": 1}, "update": {"$inc": {"x": 1}},
                  "new": True})
    lab.wire.on("findAndModify", {"lastErrorObject": {"n": 0, "updatedExisting": False},
                                  "value": None, "ok": 1.0})
    (result,) = _answer(lab, spec)
    assert result.result is None
    assert not result.raised


@wire
def test_a_write_error_is_that_writes_answer_with_its_code(lab, tests):
    """An insert refused with a write error (``{n: 0, writeErrors: [{index: 0, code: 11000,
    errmsg}], ok: 1}``: WriteCommandReplyBase's writeErrors) is the step's answer: raised,
    marked as the server's, code 11000, as ``expectError: {errorCode: 11000}`` reads it."""
    lab.wire.on("insert", write_reply(0, writeErrors=[
        {"index": 0, "code": 11000, "errmsg": "E11000 duplicate key error collection: "
         "x.coll index: _id_ dup key: { _id: 1 }"}]), match=lambda s: s["documents"] == [
        {"_id": 1}])
    (result,) = _answer(lab, tests["insertOne of a duplicate"])
    assert (result.server_error, result.code) == (True, 11000)
    assert result.raised.startswith("DuplicateKeyError: E11000")


@wire
def test_a_bulk_writes_error_is_its_first_write_errors_code_not_pymongos_65(lab, tests):
    """insertMany whose second document is refused (``{n: 1, writeErrors: [{index: 1, code:
    11000, errmsg}], ok: 1}``) raises pymongo's BulkWriteError, whose own code is 65 ("batch op
    errors occurred", pymongo/errors.py) over the server's write errors: the answer's code is
    the server's 11000, the write error names no code name (WriteError::serialize in
    src/mongo/db/ops/write_ops.cpp, mongodb/mongo at 02fe612f, writes index, code, errmsg and
    errInfo), and the server's errmsg is in the answer's text, so that ``errorCode: 11000``
    and ``errorContains: duplicate key`` judge what the server said."""
    from labkit.claims.expect import judge_step

    lab.wire.on("insert", write_reply(1, writeErrors=[
        {"index": 1, "code": 11000, "errmsg": "E11000 duplicate key error collection: "
         "x.coll index: _id_ dup key: { _id: 1 }"}]), match=lambda s: s["documents"] == [
        {"_id": 5}, {"_id": 1}])
    spec = tests["insertMany of a duplicate"]
    (answer,) = _answer(lab, spec)
    assert (answer.server_error, answer.code, answer.code_name) == (True, 11000, "")
    assert answer.raised.startswith("BulkWriteError: E11000 duplicate key error")
    assert "(code 11000)" in answer.raised
    (step,) = spec.steps
    assert judge_step(step.expect, answer) == (True, {"error": answer.raised}, "", "")
    by_name = dataclasses.replace(step.expect, value={"errorCodeName": "DuplicateKey"})
    holds, _, note, _undecided = judge_step(by_name, answer)
    assert not holds
    assert str(note) == ("no error code name, not DuplicateKey: the error gives code 11000 and "
                         "no name, as a write error does")


def test_a_bulk_writes_many_refusals_are_said_by_the_first_three_and_a_count():
    """An unordered insertMany may be refused thousands of times in one reply: its text gives
    the server's first three write errors and how many more, not one line of all of them."""
    from pymongo.errors import BulkWriteError

    from labkit.engines.query import error_code
    from labkit.errors import server_said

    refused = BulkWriteError({"writeErrors": [
        {"index": i, "code": 11000, "errmsg": f"E11000 duplicate key error dup key: {{ _id: {i} }}"}
        for i in range(5)], "writeConcernErrors": [], "nInserted": 0})
    said = server_said(refused)
    assert said.count("E11000") == 3
    assert said.endswith("dup key: { _id: 2 } (code 11000); and 2 more")
    assert error_code(refused) == (11000, "")


@wire
def test_a_bulk_write_sends_each_request_in_order_and_sums_the_replies(lab, tests):
    """bulkWrite, ordered, sends insert, update and delete in the requests' order; the replies
    sum into BulkWriteResult's counts (upsertedIds empty, insertedIds left out as crud.md
    allows)."""
    lab.wire.on("update", update_reply(1, 1), match=lambda s: s["update"] == "coll")
    lab.wire.on("delete", write_reply(1))
    (result,) = _answer(lab, tests["bulkWrite"])
    assert result.result == {"deletedCount": 1, "insertedCount": 1, "matchedCount": 1,
                             "modifiedCount": 1, "upsertedCount": 0, "upsertedIds": {}}
    sent = _written(lab)
    assert [s.name for s in sent] == ["insert", "update", "delete"]
    assert all(_fields(s)["ordered"] is True for s in sent)


@wire
def test_an_option_labkit_does_not_send_sends_nothing(lab, tests):
    """A write with an argument labkit does not send (``rawData``) is refused before anything
    is sent: the step is not run, never judged on what the server does without it."""
    with pytest.raises(NotSupported, match="labkit does not send the insertOne option rawData"):
        _answer(lab, tests["an option labkit does not send"])
    assert [s.name for s in _written(lab)] \
        == []


# On a real server: the spec's own files, whole (marked mongodb: they skip where none runs) --


@pytest.mark.mongodb
@pytest.mark.parametrize("name", ["insertOne.yml", "insertMany.yml", "updateOne.yml",
                                  "updateMany.yml", "replaceOne.yml", "deleteOne.yml",
                                  "deleteMany.yml", "bulkWrite-arrayFilters.yml",
                                  "findOneAndUpdate.yml", "findOneAndReplace.yml",
                                  "findOneAndDelete.yml", "create-null-ids.yml"])
def test_live_a_crud_spec_file_with_writes_holds_whole(mongodb_server, name):
    """On a real server, each test of MongoDB's CRUD spec file (tests/data/crud-unified,
    mongodb/specifications at 92b3c0b9) whose steps labkit performs holds, its writes'
    expectResult and its outcome judged: none does not hold, none errs, and at least one
    test of the file is judged on its writes."""
    from labkit.run import check as claimcheck

    result = claimcheck.check(files.load([CORPUS / name]), ["mongodb"])
    rows = result.columns[0].rows
    bad = [(r.claim.id, r.verdict, r.reason) for r in rows
           if r.verdict in (claimcheck.FAILS, claimcheck.ERROR)]
    assert bad == []
    verdicts = collections.Counter(r.verdict for r in rows)
    assert verdicts[claimcheck.HOLDS] >= 1, [(r.claim.id, r.reason) for r in rows]



@pytest.mark.mongodb
def test_live_a_bulk_writes_error_reads_as_the_scripted_one(mongodb_server, tests):
    """On a real server, the refused insertMany of the scripted test above answers as it was
    scripted: code 11000 from the server's write error (not pymongo's 65), no code name, the
    server's "E11000 duplicate key error" in the text, and ``expectError: {errorCode: 11000,
    errorContains: duplicate key}`` holds."""
    from labkit.claims.expect import judge_step

    spec = tests["insertMany of a duplicate"]
    (answer,) = MongoDBEngine(mongodb_server).answer(spec, list(spec.steps))
    assert (answer.server_error, answer.code, answer.code_name) == (True, 11000, "")
    assert answer.raised.startswith("BulkWriteError: E11000 duplicate key error")
    (step,) = spec.steps
    assert judge_step(step.expect, answer)[0]


@wire
def test_a_default_collation_creates_the_collection_with_it_before_the_fixture(lab, tmp_path):
    """A short-form claim's ``default_collation`` (issue 45): the collection is created with
    it (``create`` with ``collation``, the manual's db.createCollection option) before the
    fixture's ``insert``, and the read goes without a collation of its own, so the server
    applies the collection's. The ``create`` reply is ``{ok: 1}`` (the create command's
    page). Only a real server can confirm the read then compares as the collation says."""
    lab.wire.on("create", {"ok": 1})
    lab.wire.on("find", cursor_of([{"_id": 1, "s": "A"}, {"_id": 2, "s": "a"}]))
    path = tmp_path / "claims.yaml"
    path.write_text("- id: c\n  title: t\n  default_collation: {locale: en, strength: 2}\n"
                    "  fixture: [{_id: 1, s: A}, {_id: 2, s: a}]\n  find: {s: a}\n"
                    "  expect: {ids: [1, 2]}\n", encoding="utf-8")
    (spec,) = files.read(path)
    (answer,) = _answer(lab, spec)
    assert [doc["_id"] for doc in answer.result] == [1, 2]
    sent = [s for s in _sent(lab) if s.name in ("create", "insert", "find")]
    assert [s.name for s in sent] == ["create", "insert", "find"]
    assert _same(_fields(sent[0]), {"create": "claim",
                                    "collation": {"locale": "en", "strength": 2}})
    assert "collation" not in _fields(sent[2])
