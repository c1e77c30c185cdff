"""Lessons 01-03's MongoDB claims over the wire: labkit's experiments, unmodified, speak through
real pymongo to a scripted MongoDB (``tests/mongo_wire.py``).

Each test pins what a claim sends (command names, options, and its documents with their BSON
types) and runs labkit's verdict logic on a reply. The replies are scripted by hand, in
``wire_replies`` (the claims' table ``CASES``, which test_wire_run.py shares): where the source
chapter recorded the claim's result on a real server (D3, S2, B1: the claims registered with
``recorded=True``), the reply is that recorded result; elsewhere it is the result MongoDB's
manual states for the claim. Either way a verdict here checks only labkit's judging of a reply,
never MongoDB's behaviour: a reply that disagrees must give *does not hold* naming what
differs. The ``mongodb``-marked tests at the end send the same commands to a real server and
check that its replies have the fields and types scripted here.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from typing import Any

import bson
import pytest
from bson import Binary, Decimal128, Int64, ObjectId
from mongo_wire import (
    SERIES,
    STANDARD_UUIDS,
    Sent,
    counted,
    cursor_of,
    cursor_reply,
    error_reply,
    same_bson,
    same_shape,
    update_reply,
    write_reply,
)
from wire_replies import (
    CASE_IDS,
    CASES,
    CENSUS,
    D1_PIPELINE,
    D1_STORED,
    DATABASE_DROPPED,
    EVENTS,
    LEASE_UPSERTED,
    ORDERS_AS_SHELL,
    Lab,
    census,
    connected,
    d1_rows,
    found,
    script_case,
)

from labkit.claims.claim import FAILS, HOLDS, jsonable
from labkit.experiments import bracketing, dates, sort_order

wire = pytest.mark.wire


def assert_fields(sent: Sent, expected: dict[str, Any]) -> None:
    """The command has exactly ``expected``'s fields, each the same BSON value."""
    got = sent.as_written()
    assert set(got) == set(expected), (sent.name, sorted(got), sorted(expected))
    for key, value in expected.items():
        assert same_bson(got[key], value), (sent.name, key, got[key], value)


# The server a claim meets ------------------------------------------------------------------


@pytest.fixture
def lab(wire_server):
    """A scripted server answering what every claim needs, and labkit connected to it."""
    with connected(wire_server) as connection:
        yield connection


# One claim's traffic (``wire_replies.CASES``) -------------------------------------------------


@wire
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_claim_sends_its_fixture_and_questions_exactly(lab, case):
    """Each claim of lessons 01-03 makes one fresh database per fixture, takes its lease,
    inserts the fixture with its BSON types (the shell's 42.0 an int32, Int64, Decimal128,
    Dates), sends the claim file's reads with exactly their filters, sorts and pipelines, then
    drops the database (claims/lesson0[1-3]_*.yaml; docs/claims.md: D1, D3, S1, B1, B2, X1-X5)."""
    script_case(lab.wire, case)
    lab.run(case.claim)
    for load in case.loads:
        sent = lab.on_database(load.label)
        assert [s.name for s in sent] == ["update", "insert",
                                          *(q.command for q in load.questions), "dropDatabase"]
        lease, insert, *reads, drop = sent
        assert lease["update"] == "labkit_lease"
        assert lease["updates"][0]["q"] == {"_id": "lease"}
        assert lease["updates"][0]["upsert"] is True
        assert_fields(insert, {"insert": load.collection, "ordered": True,
                               "documents": load.stored})
        for read, question in zip(reads, load.questions, strict=True):
            assert_fields(read, {read.name: load.collection, **question.fields})
        assert drop["dropDatabase"] == 1
        assert drop.db == insert.db


@wire
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_claim_holds_on_the_recorded_reply(lab, case):
    """On the reply the source recorded (or the manual states), scripted, labkit's judging
    says *holds* and observes exactly the claim's findings, with the server's engine and
    version: a check of labkit's verdict logic, never of MongoDB."""
    script_case(lab.wire, case)
    (row,) = lab.run(case.claim).rows
    assert row.verdict == HOLDS, row.reason
    assert jsonable(row.observation.observed) == case.observed
    assert (row.engine, row.engine_version) == ("MongoDB", "7.0.16")
    assert str(row.reason).startswith(case.note), row.reason


@wire
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_disagreeing_reply_does_not_hold_and_names_what_differs(lab, case):
    """A reply other than the recorded one gives *does not hold*, and the reason names the
    finding that differs (the judge's "differs in: …")."""
    script_case(lab.wire, case, wrong=True)
    (row,) = lab.run(case.claim).rows
    assert row.verdict == FAILS, row.reason
    assert f"differs in: {case.wrong[3]}" in str(row.reason)


@wire
@pytest.mark.parametrize("claim_id", ["S1", "B1"])
def test_a_notes_parts_are_shown_in_the_learners_language(lab, monkeypatch, claim_id):
    """S1 and B1 add a remark of their own to the model's agreement; in Vietnamese the
    agreement reads as labkit's catalogue translates it, while the reason results.json keeps
    stays English."""
    from labkit import i18n

    script_case(lab.wire, CASES[CASE_IDS.index(claim_id)])
    (row,) = lab.run(claim_id).rows
    english = "the model agrees with the server on every question"
    monkeypatch.setattr(i18n, "_chosen", None)
    i18n.language("vi")
    assert i18n._(english) != english
    assert row.shown_reason.startswith(i18n._(english))
    assert str(row.reason).startswith(english)


# The claims whose evidence is the model beside the server, one row per question (the key the
# disagreeing reply changes is its question's label).
MODEL_BESIDE_SERVER = ["D3", "S1", "X5", "B1", "X1", "X2", "X3", "X4"]


@wire
@pytest.mark.parametrize("case", [c for c in CASES if c.claim in MODEL_BESIDE_SERVER],
                         ids=MODEL_BESIDE_SERVER)
def test_the_evidence_shows_the_server_beside_the_model(lab, case):
    """Evidence has one row per question, what was asked, the server's answer and the model's;
    on a disagreeing reply the note names that question and only its row differs."""
    script_case(lab.wire, case, wrong=True)
    (row,) = lab.run(case.claim).rows
    differing = [r["question"] for r in row.evidence if r["server"] != r["model"]]
    assert differing == [case.wrong[3]]
    assert f"the model disagrees with the server on: {case.wrong[3]}" in str(row.reason)


@wire
@pytest.mark.parametrize("wire_server", SERIES, indirect=True)
def test_the_verdict_names_the_version_the_server_reports(lab, wire_server):
    """D3's row carries the exact version buildInfo gave (src/mongo/db/commands/
    buildinfo_common.cpp): 6.0.19, 7.0.16 or 8.0.4, as the workflow's servers are."""
    case = CASES[0]
    script_case(lab.wire, case)
    (row,) = lab.run("D3").rows
    assert row.verdict == HOLDS
    assert row.engine_version == wire_server.release


# Batches, D1's dates, and what a short reply does ------------------------------------------


# data/mixed.json, the chapter's 15 documents (claim S2); binData is a UUID, subtype 4.
MIXED_UUID = uuid.UUID("d99adc14-2462-455e-8e8f-b765165bc9f9")
MIXED = [{"_id": "date", "v": dt.datetime(2020, 1, 1, tzinfo=dt.UTC)}, {"_id": "bool", "v": True},
         {"_id": "oid", "v": ObjectId("0" * 24)}, {"_id": "str10", "v": "10"},
         {"_id": "str9", "v": "9"}, {"_id": "int10", "v": 10}, {"_id": "dbl9.5", "v": 9.5},
         {"_id": "dec2", "v": Decimal128("2")}, {"_id": "long100", "v": Int64(100)},
         {"_id": "null", "v": None}, {"_id": "missing"}, {"_id": "object", "v": {"a": 1}},
         {"_id": "array", "v": [5, "x"]}, {"_id": "emptyArr", "v": []},
         {"_id": "binData", "v": Binary(MIXED_UUID.bytes, 4)}]
MIXED_ORDER = ["emptyArr", "missing", "null", "dec2", "array", "dbl9.5", "int10", "long100",
               "str10", "str9", "object", "binData", "oid", "bool", "date"]


def type_codes(documents: list[dict], key: str) -> list[int | None]:
    """The BSON element type byte of each document's ``key`` as it goes on the wire (the BSON
    spec, bsonspec.org: 0x01 double, 0x10 int32, 0x12 int64, 0x13 decimal128...), None where
    the field is absent."""
    return [bson.encode({key: doc[key]}, codec_options=STANDARD_UUIDS)[4] if key in doc else None
            for doc in documents]


@wire
def test_the_mixed_fixture_goes_out_with_its_15_types_and_comes_back_in_two_batches(lab):
    """S2 inserts the chapter's 15 documents with their types (an int32, an int64, a double, a
    Decimal128, a UUID as BinData subtype 4, a missing field...), asks ``find({}, {_id: 1})
    .sort({v: 1, _id: 1})`` with the sort's keys in that order, follows the cursor with
    ``getMore`` until its id is 0, and holds on the recorded order (docs/claims.md, S2)."""
    cursor_id = 7_340_032
    first, rest = MIXED_ORDER[:10], MIXED_ORDER[10:]
    lab.wire.on("find", lambda s: cursor_reply(f"{s.db}.mixed", [{"_id": i} for i in first],
                                               cursor_id=cursor_id),
                match=lambda s: s["find"] == "mixed")
    lab.wire.on("getMore", lambda s: cursor_reply(f"{s.db}.mixed", [{"_id": i} for i in rest],
                                                  "nextBatch"))
    (row,) = lab.run("S2").rows
    sent = lab.on_database("mixed")
    assert [s.name for s in sent] == ["update", "insert", "find", "getMore", "dropDatabase"]
    _lease, insert, find, more, _drop = sent
    assert_fields(insert, {"insert": "mixed", "ordered": True, "documents": MIXED})
    assert type_codes(insert["documents"], "v") == [
        0x09, 0x08, 0x07, 0x02, 0x02, 0x10, 0x01, 0x13, 0x12, 0x0A, None, 0x03, 0x04, 0x04,
        0x05]
    assert insert["documents"][14]["v"].subtype == 4
    assert_fields(find, {"find": "mixed", "filter": {}, "projection": {"_id": 1},
                         "sort": {"v": 1, "_id": 1}})
    assert list(find["sort"]) == ["v", "_id"]
    assert_fields(more, {"getMore": Int64(cursor_id), "collection": "mixed"})
    assert row.verdict == HOLDS, row.reason
    assert row.observation.observed == {"v_then_id": MIXED_ORDER}


@wire
def test_the_mixed_fixture_in_another_order_does_not_hold_and_names_it(lab):
    """A reply with "9" before "10" (strings compared as numbers, which a sort without a
    collation never does) gives *does not hold* naming ``v_then_id``, with the server's order
    beside the model's in the evidence."""
    order = [*MIXED_ORDER[:8], "str9", "str10", *MIXED_ORDER[10:]]
    lab.wire.on("find", cursor_of([{"_id": i} for i in order]),
                match=lambda s: s["find"] == "mixed")
    (row,) = lab.run("S2").rows
    assert row.verdict == FAILS, row.reason
    assert "differs in: v_then_id" in str(row.reason)
    (evidence,) = row.evidence
    assert (evidence["server"], evidence["model"]) == (order, MIXED_ORDER)


@wire
def test_one_value_of_each_type_goes_out_with_its_bson_type(lab):
    """S1's fixture reaches the server as 15 BSON types, MaxKey first (inserted in reverse):
    MaxKey, JavaScript with scope, JavaScript, regex, Timestamp, Date, bool, ObjectId,
    BinData, array, object, string, int32, null, MinKey (claims/lesson02_sort_order.yaml)."""
    script_case(lab.wire, CASES[CASE_IDS.index("S1")])
    lab.run("S1")
    (insert,) = [s for s in lab.on_database("types") if s.name == "insert"]
    assert type_codes(insert["documents"], "v") == [
        0x7F, 0x0F, 0x0D, 0x0B, 0x11, 0x09, 0x08, 0x07, 0x05, 0x04, 0x03, 0x02, 0x10, 0x0A,
        0xFF]


@wire
def test_d1_sends_whole_milliseconds_in_utc(lab):
    """D1's three dates leave as BSON Dates: 1969-12-31 before the epoch, 1,234 microseconds
    cut to 1 ms by the encoder, and 07:00 at +07:00 as 00:00 UTC (docs/claims.md, D1: a Date is
    milliseconds since 1970 UTC, with no time zone)."""
    script_case(lab.wire, CASES[CASE_IDS.index("D1")])
    lab.run("D1")
    (insert,) = [s for s in lab.on_database("d1") if s.name == "insert"]
    sent = [doc["d"] for doc in insert["documents"]]
    assert type_codes(insert["documents"], "d") == [0x09, 0x09, 0x09]
    # MockupDB decodes Dates as naive UTC datetimes.
    assert sent == [dt.datetime(1969, 12, 31), dt.datetime(1970, 1, 1, 0, 0, 0, 1000),
                    dt.datetime(2026, 10, 1)]


@wire
def test_d1_on_a_reply_missing_a_row_does_not_hold_and_says_which(lab):
    """A server that returns two of D1's three rows gives *does not hold*, naming the millis
    and the read-back it could not see, with that row's evidence empty: not an ``error`` from
    indexing a row that is not there."""
    lab.wire.on("aggregate", cursor_of(d1_rows()[:2]), match=lambda s: s["aggregate"] == "dates")
    (row,) = lab.run("D1").rows
    assert row.verdict == FAILS, row.reason
    assert "differs in: millis, read_back" in str(row.reason)
    assert row.observation.observed["millis"] == [-86_400_000, 1, None]
    assert [(r["millis"], r["read_back"]) for r in row.evidence] == [
        (-86_400_000, "1969-12-31T00:00:00Z"), (1, "1970-01-01T00:00:00.001Z"), (None, None)]


# The lessons' live cells: what they send and how they read the reply -----------------------


@pytest.fixture
def lesson_db(lab):
    """A fresh database as a lesson's live cell gets one (``labkit.on_server``)."""
    database = lab.server.fresh_database("lesson")
    yield database
    lab.server.drop(database.name)


def _lesson(lab: Lab) -> list[Sent]:
    """What the lesson's cell sent, after its database's lease."""
    return [s for s in lab.on_database("lesson")
            if not (s.name == "update" and s["update"] == "labkit_lease")]


@wire
def test_dates_in_a_time_zone_ask_the_server_and_match_the_stand_in(lab, lesson_db):
    """Lesson 01's time-zone cell inserts the events and asks ``$dateToString`` without a
    format and with ``timezone: "Asia/Ho_Chi_Minh"``; on the manual's documented output (the
    default format ``%Y-%m-%dT%H:%M:%S.%LZ``; +07:00 all year) its table is the one the
    no-server stand-in shows, column for column."""
    text = {"a": ("2026-09-30T00:00:00.000Z", "2026-09-30 07:00"),
            "b": ("2026-10-01T00:00:00.000Z", "2026-10-01 07:00"),
            "c": ("2026-10-15T00:00:00.000Z", "2026-10-15 07:00")}
    lab.wire.on("aggregate", cursor_of([{"_id": key, "stored": stored, "shown": shown}
                                         for key, (stored, shown) in text.items()]))
    table = dates.local_times(lesson_db)
    insert, aggregate = _lesson(lab)
    assert_fields(insert, {"insert": "events", "ordered": True, "documents": EVENTS})
    assert_fields(aggregate, {"aggregate": "events", "cursor": {}, "pipeline": [
        {"$sort": {"_id": 1}},
        {"$project": {"stored": {"$dateToString": {"date": "$atDate"}},
                      "shown": {"$dateToString": {"date": "$atDate",
                                                  "format": "%Y-%m-%d %H:%M",
                                                  "timezone": "Asia/Ho_Chi_Minh"}}}}]})
    assert table == dates.local_times_by_python()


@wire
def test_collation_cell_sorts_bytewise_then_with_numeric_ordering(lab, lesson_db):
    """Lesson 02's collation cell inserts the strings, sorts ``{s: 1}`` without a collation and
    then with ``{locale: "en", numericOrdering: true}`` (the manual's "Collation" page), and
    reads each order as the server returned it."""
    strings = ["10", "9", "100", "2"]
    bytewise, numeric = ["10", "100", "2", "9"], ["2", "9", "10", "100"]

    def reply(order: list[str]) -> Callable[[Sent], dict]:
        return cursor_of([{"_id": strings.index(s), "s": s} for s in order])

    lab.wire.on("find", reply(bytewise), match=lambda s: "collation" not in s.doc)
    lab.wire.on("find", reply(numeric), match=lambda s: "collation" in s.doc)
    assert sort_order.collation_sort(lesson_db, strings) == {"bytewise": bytewise,
                                                             "numericOrdering": numeric}
    insert, plain, collated = _lesson(lab)
    assert_fields(insert, {"insert": "strings", "ordered": True,
                           "documents": [{"_id": i, "s": s} for i, s in enumerate(strings)]})
    assert_fields(plain, {"find": "strings", "filter": {}, "sort": {"s": 1}})
    assert_fields(collated, {"find": "strings", "filter": {}, "sort": {"s": 1},
                             "collation": {"locale": "en", "numericOrdering": True}})


@wire
def test_repair_censuses_converts_strings_on_the_server_and_finds_all_five(lab, lesson_db):
    """Lesson 03's repair inserts the shell's orders, takes the ``$type`` census, converts the
    string with a pipeline update (``$toInt``, every match: ``multi``), takes the census again
    and finds ``{userId: 42}``; it reports the server's two censuses and the five _ids."""
    after = census(int=3, long=1, decimal=1)
    lab.wire.on("aggregate", cursor_of(after))
    lab.wire.on("aggregate", cursor_of(census(int=2, string=1, long=1, decimal=1)), times=1)
    lab.wire.on("update", update_reply(1, 1), match=lambda s: s["update"] == "orders")
    lab.wire.on("find", cursor_of(found(ORDERS_AS_SHELL, 1, 2, 3, 4, 5)))
    result = bracketing.repair(lesson_db)
    insert, before_census, update, after_census, find = _lesson(lab)
    assert_fields(insert, {"insert": "orders", "ordered": True, "documents": ORDERS_AS_SHELL})
    for sent in (before_census, after_census):
        assert_fields(sent, {"aggregate": "orders", "pipeline": CENSUS, "cursor": {}})
    (change,) = update["updates"]
    assert same_bson(change["q"], {"userId": {"$type": "string"}})
    assert same_bson(change["u"], [{"$set": {"userId": {"$toInt": "$userId"}}}])
    assert change["multi"] is True
    assert_fields(find, {"find": "orders", "filter": {"userId": 42}})
    assert result == {"before": {"decimal": 1, "int": 2, "long": 1, "string": 1},
                      "after": {"decimal": 1, "int": 3, "long": 1},
                      "find userId 42": [1, 2, 3, 4, 5]}


def validation_failure(sent: Sent) -> dict:
    """An insert the validator refused: ``{n: 0, writeErrors: [{index, code: 121, errmsg,
    errInfo}], ok: 1}``. A write error has no ``codeName`` (WriteError::serialize in
    src/mongo/db/ops/write_ops.cpp, mongodb/mongo at 02fe612f, appends index, code, errmsg and
    the error's extra info); ``errInfo`` explains the failure from 5.0 on (the manual's
    "Schema Validation" page), so 6.0, 7.0 and 8.0 send it."""
    return {"n": 0, "writeErrors": [{
        "index": 0, "code": 121, "errmsg": "Document failed validation",
        "errInfo": {"failingDocumentId": sent["documents"][0].get("_id"),
                    "details": {"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
                        {"operatorName": "properties", "propertiesNotSatisfied": [
                            {"propertyName": "userId", "details": [
                                {"operatorName": "bsonType", "specifiedAs": {
                                    "bsonType": ["int", "long"]},
                                 "reason": "type did not match", "consideredValue": "42",
                                 "consideredType": "string"}]}]}]}}}],
        "ok": 1.0}


@wire
def test_validator_cell_reads_the_refusal_as_the_manual_states_it(lab, lesson_db):
    """Lesson 03's validator cell creates the collection with its ``$jsonSchema`` (no
    listCollections check first: the database is fresh), inserts a number, the string "42"
    and the parsed string; on the server's refusal of the string (code 121, a write error
    without a codeName) its table reads exactly as the stand-in the lesson shows without a
    server."""
    lab.wire.on("create", {"ok": 1.0})
    lab.wire.on("insert", validation_failure,
                match=lambda s: s["insert"] == "orders_validated"
                and s["documents"][0]["userId"] == "42")
    rows = bracketing.validator(lesson_db)
    create, *inserts = _lesson(lab)
    assert "listCollections" not in lab.wire.commands()
    assert_fields(create, {"create": "orders_validated",
                           "validator": bracketing.USER_ID_SCHEMA})
    assert [type_codes(s["documents"], "userId") for s in inserts] == [[0x10], [0x02], [0x10]]
    assert rows == [dict(zip(rows[0], item, strict=True))
                    for item in bracketing.validator_as_stated().items()]


# labkit check's MongoDB engine: a claim file's fixture and reads on a fresh database ---------


def user_claim(claim_id: str):
    """A claim of tests/data/claims/user.yaml, a user's claim file in the short form."""
    from labkit.claims import files

    (spec,) = [s for s in files.read("tests/data/claims/user.yaml") if s.id == claim_id]
    return spec


@wire
@pytest.mark.parametrize(("said", "topology"), [
    ({"setName": "rs0", "setVersion": 1, "hosts": ["127.0.0.1:27017", "127.0.0.1:27018"],
      "primary": "127.0.0.1:27017", "me": "127.0.0.1:27017", "secondary": False},
     "replicaset"),
    ({"isreplicaset": True, "setVersion": 0}, "replicaset"),  # started as one, not initiated
    ({"msg": "isdbgrid"}, "sharded"),
    ({}, "single"),
])
def test_a_direct_connection_is_the_deployment_its_server_says(lab, said, topology):
    """Through ``directConnection`` the driver calls any server "Single", a replica set's member
    too; the claims' ``runOnRequirements.topologies`` mean the deployment, so the engine asks
    the server's ``hello``: a member names its set (``setName`` and the set's fields, CmdHello
    in src/mongo/db/repl/replication_info.cpp at 02ea85d3, the manual's "hello" page; one not
    yet initiated says ``isreplicaset``, as B-tree loads read it too), a mongos says ``msg:
    "isdbgrid"``, a standalone neither."""
    from mongo_wire import hello_reply

    from labkit.engines.query import MongoDBEngine

    lab.wire.on("hello", {**hello_reply(lab.wire.version), **said})
    assert lab.server.client().topology_description.topology_type_name == "Single"
    assert MongoDBEngine(lab.server).topology == topology


@wire
def test_a_hello_that_fails_leaves_the_engine_standing(lab):
    """Where the deployment's ``hello`` fails (here the connection is closed on it), the engine
    is still made, "single" as the driver sees a direct connection; the claims' own commands
    meet the failure and say it as a column's not run, never a traceback of ``labkit check``."""
    from labkit.engines.query import MongoDBEngine

    lab.wire.on("hello", hangup=True)
    assert MongoDBEngine(lab.server).topology == "single"


@wire
def test_checks_engine_loads_a_claim_file_reads_it_and_drops_its_database(lab):
    """``labkit check``'s MongoDB engine inserts a claim file's fixture with its types (a
    Decimal128, an int32, a double), sends its find with the sort as written, answers with the
    server's documents in the server's order, and drops the database; its column is the
    server's version, its topology the driver's (a direct connection: single)."""
    from labkit.engines.query import MongoDBEngine

    stored = [{"_id": 1, "v": Decimal128("2.5")}, {"_id": 2, "v": 1}, {"_id": 3, "v": 3.0}]
    lab.wire.on("find", cursor_of(found(stored, 2, 1, 3)), match=lambda s: s["find"] == "claim")
    engine = MongoDBEngine(lab.server)
    spec = user_claim("decimal-sort")
    (answer,) = engine.answer(spec, spec.steps)
    assert (engine.label, engine.topology) == ("MongoDB 7.0.16", "single")
    assert [doc["_id"] for doc in answer.result] == [2, 1, 3]
    assert not answer.raised
    lease, insert, read, drop = lab.on_database("check_decimal_sort")
    assert (lease["update"], drop.name) == ("labkit_lease", "dropDatabase")
    assert_fields(insert, {"insert": "claim", "ordered": True, "documents": stored})
    assert_fields(read, {"find": "claim", "filter": {}, "sort": {"v": 1}})


@wire
def test_checks_engine_counts_with_pymongos_aggregate(lab):
    """A claim file's ``count`` is ``count_documents``: pymongo sends an aggregate of
    ``$match`` then ``$group`` ``{_id: 1, n: {$sum: 1}}`` (its count_documents; the manual's
    "db.collection.countDocuments()" page), and the engine answers the group's ``n``."""
    from labkit.engines.query import MongoDBEngine

    lab.wire.on("aggregate", counted(3))
    spec = user_claim("count-strings")
    (answer,) = MongoDBEngine(lab.server).answer(spec, spec.steps)
    assert answer.result == 3
    (count,) = [s for s in lab.on_database("check_count_strings") if s.name == "aggregate"]
    assert_fields(count, {"aggregate": "claim", "cursor": {}, "pipeline": [
        {"$match": {"s": {"$type": "string"}}}, {"$group": {"_id": 1, "n": {"$sum": 1}}}]})


@wire
def test_checks_engine_keeps_a_servers_refusal_as_that_reads_answer(lab):
    """A read the server refuses (``{ok: 0, code: 2, codeName: "BadValue"}``, the shape
    src/mongo/rpc/reply_builder_interface.cpp gives a failed command) is that read's answer:
    the error in one line, marked as the server's, with its code and name; the database is
    still dropped."""
    from labkit.engines.query import MongoDBEngine

    lab.wire.on("find", error_reply(2, "unknown operator: $bad", "BadValue"))
    spec = user_claim("null-matches-missing")
    (answer,) = MongoDBEngine(lab.server).answer(spec, spec.steps)
    assert (answer.server_error, answer.code, answer.code_name) == (True, 2, "BadValue")
    assert answer.raised.startswith("OperationFailure: unknown operator: $bad")
    assert "\n" not in answer.raised
    assert lab.on_database("check_null_matches_missing")[-1].name == "dropDatabase"


@wire
def test_checks_engine_lets_a_lost_connection_through_and_still_drops(lab):
    """A connection reset is not an answer: it leaves the engine (``labkit check`` makes it
    that engine's error) and the engine's database is dropped on the way out."""
    from pymongo.errors import ConnectionFailure

    from labkit.engines.query import MongoDBEngine

    lab.wire.on("find", hangup=True)
    spec = user_claim("null-matches-missing")
    with pytest.raises(ConnectionFailure):
        MongoDBEngine(lab.server).answer(spec, spec.steps)
    assert lab.on_database("check_null_matches_missing")[-1].name == "dropDatabase"


# First contact: a real server's replies have the fields and types scripted above -----------
# (marked mongodb: they skip where no server runs; on the workflow's 6.0, 7.0 and 8.0 a
# difference names the scripted field that was wrong.)


@pytest.mark.mongodb
def test_live_insert_and_lease_upsert_replies_are_shaped_as_scripted(fresh_db):
    """insert answers ``{n, ok}`` and the lease's pipeline upsert ``{n, nModified, upserted:
    [{index, _id}], ok}``, as ``mongo_wire.inserted`` and ``LEASE_UPSERTED`` script them."""
    real = fresh_db.command("insert", "orders", documents=ORDERS_AS_SHELL)
    assert same_shape(write_reply(5), real) == []
    real = fresh_db.command("update", "labkit_lease", updates=[
        {"q": {"_id": "lease"}, "u": [{"$set": {"renewed": "$$NOW"}}], "upsert": True}])
    assert same_shape(LEASE_UPSERTED, real) == []


@pytest.mark.mongodb
def test_live_find_and_get_more_replies_are_shaped_as_scripted(fresh_db):
    """find with a small batch answers ``{cursor: {id: int64 not 0, ns, firstBatch}, ok}`` and
    getMore ``{cursor: {id: int64, ns, nextBatch}, ok}``, as the batch test scripts them."""
    fresh_db.orders.insert_many([dict(doc) for doc in ORDERS_AS_SHELL])
    namespace = f"{fresh_db.name}.orders"
    real = fresh_db.command("find", "orders", filter={}, batchSize=2)
    assert same_shape(cursor_reply(namespace, found(ORDERS_AS_SHELL, 1), cursor_id=1),
                      real) == []
    cursor_id = real["cursor"]["id"]
    assert cursor_id != 0
    real = fresh_db.command("getMore", cursor_id, collection="orders")
    assert same_shape(cursor_reply(namespace, found(ORDERS_AS_SHELL, 3), "nextBatch", 1),
                      real) == []


@pytest.mark.mongodb
def test_live_census_and_d1_aggregate_replies_are_shaped_as_scripted(fresh_db):
    """The ``$type`` census answers ``{_id: alias, n: int32}`` and D1's projection ``{_id, d:
    Date, millis: int64, type: alias}``, each in a cursor's first batch."""
    fresh_db.orders.insert_many([dict(doc) for doc in ORDERS_AS_SHELL])
    fresh_db.dates.insert_many([dict(doc) for doc in D1_STORED])
    real = fresh_db.command("aggregate", "orders", pipeline=CENSUS, cursor={})
    assert same_shape(cursor_reply(f"{fresh_db.name}.orders", census(int=2)), real) == []
    real = fresh_db.command("aggregate", "dates", pipeline=D1_PIPELINE, cursor={})
    assert same_shape(cursor_reply(f"{fresh_db.name}.dates", d1_rows()), real) == []


@pytest.mark.mongodb
def test_live_date_to_string_reads_as_the_stand_in(fresh_db):
    """A real server's ``$dateToString`` (default format, and Asia/Ho_Chi_Minh) gives the
    table lesson 01's stand-in shows without a server."""
    assert dates.local_times(fresh_db) == dates.local_times_by_python()


@pytest.mark.mongodb
def test_live_validation_failure_is_shaped_as_scripted(fresh_db):
    """A validator's refusal is ``{n: 0, writeErrors: [{index, code: 121, errmsg, errInfo}],
    ok}`` with no codeName in the write error, and lesson 03's table reads as its stand-in."""
    rows = bracketing.validator(fresh_db)
    assert rows == [dict(zip(rows[0], item, strict=True))
                    for item in bracketing.validator_as_stated().items()]
    real = fresh_db.command("insert", "orders_validated", documents=[{"userId": "42"}])
    scripted = {"n": 0, "writeErrors": [{"index": 0, "code": 121, "errmsg": "",
                                         "errInfo": {}}], "ok": 1.0}
    assert same_shape(scripted, real) == []
    assert "codeName" not in real["writeErrors"][0]


@pytest.mark.mongodb
def test_live_drop_database_reply_is_shaped_as_scripted(mongodb_server):
    """dropDatabase of a database that exists answers ``{ok: 1.0}``, as scripted."""
    database = mongodb_server.fresh_database("shape")
    try:
        real = database.command("dropDatabase")
    finally:
        mongodb_server.drop(database.name)
    assert same_shape(DATABASE_DROPPED, real) == []
