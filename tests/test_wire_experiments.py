"""Lessons 01-03's MongoDB claims over the wire: labkit's experiments, unmodified, speak through
real pymongo to a scripted MongoDB (``tests/mongo_wire.py``).

Each test pins what a claim sends (command names, options, and its documents with their BSON
types) and runs labkit's verdict logic on a reply. The replies are scripted by hand: where the
source chapter recorded the claim's result on a real server (D3, S2, B1: the claims registered
with ``recorded=True``), the reply is that recorded result; elsewhere it is the result MongoDB's
manual states for the claim. Either way a verdict here checks only labkit's judging of a reply,
never MongoDB's behaviour: a reply that disagrees must give *does not hold* naming what
differs. The ``mongodb``-marked tests at the end send the same commands to a real server and
check that its replies have the fields and types scripted here.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import bson
import mongo_wire
import pytest
from bson import Binary, Code, Decimal128, Int64, MaxKey, MinKey, ObjectId, Regex, Timestamp
from bson.binary import UuidRepresentation
from bson.codec_options import CodecOptions
from mongo_wire import Sent, WireServer, cursor_reply, unauthorized, update_reply, write_reply

from labkit.claims.claim import FAILS, HOLDS, jsonable
from labkit.experiments import bracketing, catalogue, dates, sort_order
from labkit.run import runner
from labkit.servers import mongo

wire = pytest.mark.wire
UTC = dt.UTC

# What pymongo adds to every command on its own (the session and the database): not labkit's.
DRIVER_FIELDS = frozenset({"$db", "lsid", "$clusterTime", "$readPreference"})
_STANDARD = CodecOptions(uuid_representation=UuidRepresentation.STANDARD)


def same(a: Any, b: Any) -> bool:
    """Whether two values are one BSON value: the same bytes, so the same types (int32, int64,
    double and decimal differ), the same key order and the same milliseconds."""
    return bson.encode({"v": a}, codec_options=_STANDARD) == \
        bson.encode({"v": b}, codec_options=_STANDARD)


def fields_of(sent: Sent) -> dict[str, Any]:
    """A command as labkit asked for it: its fields less the ones the driver adds."""
    return {key: value for key, value in sent.doc.items() if key not in DRIVER_FIELDS}


def assert_fields(sent: Sent, expected: dict[str, Any]) -> None:
    """The command has exactly ``expected``'s fields, each the same BSON value."""
    got = fields_of(sent)
    assert set(got) == set(expected), (sent.name, sorted(got), sorted(expected))
    for key, value in expected.items():
        assert same(got[key], value), (sent.name, key, got[key], value)


# The server a claim meets ------------------------------------------------------------------

# The user docs/hosted.md asks for: readWriteAnyDatabase with dbAdminAnyDatabase, as
# connectionStatus lists it with showPrivileges (the manual's "connectionStatus" page;
# src/mongo/db/commands/connection_status.cpp builds authInfo). The actions are those
# src/mongo/db/auth/builtin_roles.yml (mongodb/mongo at 00c97452) gives the two roles on
# {db: "", collection: ""} and the cluster; neither gives serverStatus, refused below. The
# reply is the same in 6.0, 7.0 and 8.0.
_ANY_DATABASE = ["changeStream", "collStats", "dbHash", "dbStats", "find", "killCursors",
                 "listCollections", "listIndexes", "planCacheRead", "convertToCapped",
                 "createCollection", "createIndex", "dropCollection", "dropIndex", "insert",
                 "remove", "renameCollectionSameDB", "update", "bypassDocumentValidation",
                 "collMod", "compact", "dropDatabase", "enableProfiler", "reIndex", "validate"]
CONNECTION_STATUS = {
    "authInfo": {
        "authenticatedUsers": [{"user": "labkit", "db": "admin"}],
        "authenticatedUserRoles": [{"role": "readWriteAnyDatabase", "db": "admin"},
                                   {"role": "dbAdminAnyDatabase", "db": "admin"}],
        "authenticatedUserPrivileges": [
            {"resource": {"db": "", "collection": ""}, "actions": _ANY_DATABASE},
            {"resource": {"cluster": True}, "actions": ["listDatabases", "applyOps"]}]},
    "ok": 1.0}

# listDatabases with nameOnly: {databases: [{name}], ok} (the manual's "listDatabases" page);
# a server with only its own databases, so the first fresh database finds nothing stale.
LIST_DATABASES = {"databases": [{"name": "admin"}, {"name": "config"}, {"name": "local"}],
                  "ok": 1.0}


def lease_upsert(sent: Sent) -> dict[str, Any]:
    """The lease's upsert, answered as an update that inserted it: ``{n: 1, nModified: 0,
    upserted: [{index: 0, _id}]}`` (the manual's "update" page, Output)."""
    return update_reply(1, 0, [{"index": 0, "_id": "lease"}])


def inserted(sent: Sent) -> dict[str, Any]:
    """An insert of every document it carried: ``{n, ok}`` (the manual's "insert" page)."""
    return write_reply(len(sent.get("documents", [])))


def dropped(sent: Sent | None = None) -> dict[str, Any]:
    """``dropDatabase``: ``{ok: 1}`` alone (src/mongo/db/drop_database.idl at 0c95addd:
    ``reply_type: OkReply``; the ``dropped`` field mongosh prints is the shell's own, and a 4.x
    server's)."""
    return {"ok": 1.0}


def script_server(wire_server: WireServer) -> None:
    """What connecting and making a fresh database ask, whatever the claim: labkit's
    ``from_uri`` (serverStatus is refused with 13 for this user, src/mongo/db/
    service_entry_point_common.cpp), the clean-up's listDatabases, the lease, the loads and the
    drop. A claim's own reads are scripted by each test."""
    wire_server.on("serverStatus", unauthorized("serverStatus"))
    wire_server.on("connectionStatus", CONNECTION_STATUS)
    wire_server.on("listDatabases", LIST_DATABASES)
    wire_server.on("update", lease_upsert, match=lambda s: s["update"] == "labkit_lease")
    wire_server.on("insert", inserted)
    wire_server.on("dropDatabase", dropped)


@dataclass
class Lab:
    """A scripted server and labkit's ``MongoServer`` connected to it by ``from_uri``."""

    wire: WireServer
    server: mongo.MongoServer

    def run(self, claim_id: str):
        """Run one registered claim as ``labkit run`` does, on this server."""
        with runner.Context(mongodb_provider=lambda: self.server) as ctx:
            return runner.run_claim(catalogue.get(claim_id), ctx)

    def on_database(self, label: str) -> list[Sent]:
        """What labkit sent to its fresh database ``labkit_<label>_<8 hex>``."""
        return [s for s in self.wire.sent if in_database(s, label)]


def in_database(sent: Sent, label: str) -> bool:
    """Whether ``sent`` went to one of labkit's fresh databases made for ``label``."""
    return re.fullmatch(f"labkit_{label}_[0-9a-f]{{8}}", sent.db) is not None


@contextlib.contextmanager
def connected(wire_server: WireServer) -> Iterator[Lab]:
    """labkit connected by ``from_uri`` to a scripted server answering what every claim
    needs; its ``MongoServer`` stopped (its databases dropped) at the end."""
    script_server(wire_server)
    server = mongo.from_uri(wire_server.uri)
    try:
        yield Lab(wire_server, server)
    finally:
        server.stop()


@pytest.fixture
def lab(wire_server):
    """A scripted server answering what every claim needs, and labkit connected to it."""
    with connected(wire_server) as connection:
        yield connection


# The fixtures as the server must store them, with their BSON types ------------------------

# data/events.json: the same three days as strings and as Dates (claim D3).
EVENTS = [{"_id": "a", "at": "2026-9-30", "atDate": dt.datetime(2026, 9, 30, tzinfo=UTC)},
          {"_id": "b", "at": "2026-10-01", "atDate": dt.datetime(2026, 10, 1, tzinfo=UTC)},
          {"_id": "c", "at": "2026-10-15", "atDate": dt.datetime(2026, 10, 15, tzinfo=UTC)}]
# data/orders.json, as the shell stored it: its 42.0 is an int32 (mongosh writes a whole
# JavaScript number as int32), so _id 4 is a plain int here, and B1's census counts int 2.
ORDERS_AS_SHELL = [{"_id": 1, "userId": 42}, {"_id": 2, "userId": "42"},
                   {"_id": 3, "userId": Int64(42)}, {"_id": 4, "userId": 42},
                   {"_id": 5, "userId": Decimal128("42.00")}]
# The same orders written from Python: 42.0 is a double.
ORDERS_FROM_PYTHON = [{"_id": 1, "userId": 42}, {"_id": 2, "userId": "42"},
                      {"_id": 3, "userId": Int64(42)}, {"_id": 4, "userId": 42.0},
                      {"_id": 5, "userId": Decimal128("42.00")}]
NULLS = [{"_id": 1, "a": None}, {"_id": 2}, {"_id": 3, "a": 1}, {"_id": 4, "a": "x"}]
NANS = [{"_id": 1, "a": math.nan}, {"_id": 2, "a": 1}, {"_id": 3, "a": -math.inf},
        {"_id": 4, "a": math.inf}]
ARRAYS = [{"_id": 1, "a": [1, 10]}, {"_id": 2, "a": 5}, {"_id": 3, "a": [3, 7]},
          {"_id": 4, "a": [-2, -1]}]
# S1.ascending's one value of each type, inserted in reverse order (MaxKey first).
ONE_OF_EACH = [{"_id": 0, "v": MaxKey()}, {"_id": 1, "v": Code("function () { return 2; }",
                                                                {"x": 1})},
               {"_id": 2, "v": Code("function () { return 1; }")},
               {"_id": 3, "v": Regex("^a", "i")}, {"_id": 4, "v": Timestamp(1, 1)},
               {"_id": 5, "v": dt.datetime(2020, 1, 1, tzinfo=UTC)}, {"_id": 6, "v": False},
               {"_id": 7, "v": ObjectId("0" * 24)}, {"_id": 8, "v": Binary(b"\x00", 0)},
               {"_id": 9, "v": [[1]]}, {"_id": 10, "v": {"a": 1}}, {"_id": 11, "v": "a"},
               {"_id": 12, "v": 1}, {"_id": 13, "v": None}, {"_id": 14, "v": MinKey()}]
# data/mixed.json, the chapter's 15 documents (claim S2); binData is a UUID, subtype 4.
MIXED_UUID = uuid.UUID("d99adc14-2462-455e-8e8f-b765165bc9f9")
MIXED = [{"_id": "date", "v": dt.datetime(2020, 1, 1, tzinfo=UTC)}, {"_id": "bool", "v": True},
         {"_id": "oid", "v": ObjectId("0" * 24)}, {"_id": "str10", "v": "10"},
         {"_id": "str9", "v": "9"}, {"_id": "int10", "v": 10}, {"_id": "dbl9.5", "v": 9.5},
         {"_id": "dec2", "v": Decimal128("2")}, {"_id": "long100", "v": Int64(100)},
         {"_id": "null", "v": None}, {"_id": "missing"}, {"_id": "object", "v": {"a": 1}},
         {"_id": "array", "v": [5, "x"]}, {"_id": "emptyArr", "v": []},
         {"_id": "binData", "v": Binary(MIXED_UUID.bytes, 4)}]
MIXED_ORDER = ["emptyArr", "missing", "null", "dec2", "array", "dbl9.5", "int10", "long100",
               "str10", "str9", "object", "binData", "oid", "bool", "date"]
# D1's three dates as the wire carries them: whole milliseconds (the 1,234 microseconds are
# cut to 1 ms) in UTC (07:00 at +07:00 is 00:00Z).
D1_STORED = [{"_id": 1, "d": dt.datetime(1969, 12, 31, tzinfo=UTC)},
             {"_id": 2, "d": dt.datetime(1970, 1, 1, 0, 0, 0, 1000, tzinfo=UTC)},
             {"_id": 3, "d": dt.datetime(2026, 10, 1, tzinfo=UTC)}]
D1_PIPELINE = [{"$sort": {"_id": 1}},
               {"$project": {"d": 1, "millis": {"$toLong": "$d"}, "type": {"$type": "$d"}}}]
CENSUS = [{"$group": {"_id": {"$type": "$userId"}, "n": {"$sum": 1}}}]


def found(stored: list[dict], *ids: Any) -> list[dict]:
    """The stored documents with these ``_id``s, in this order: a find's reply."""
    by_id = {doc["_id"]: doc for doc in stored}
    return [by_id[i] for i in ids]


def census(**counts: int) -> list[dict]:
    """A ``$group`` by ``{$type: "$userId"}``'s documents, ``{_id: alias, n}`` (the manual's
    "$type (aggregation)" page names each type by its alias)."""
    return [{"_id": alias, "n": n} for alias, n in counts.items()]


def d1_rows(millis_of_third: int = 1_790_812_800_000,
            third: dt.datetime = dt.datetime(2026, 10, 1, tzinfo=UTC)) -> list[dict]:
    """D1's aggregate reply: each date, its ``$toLong`` (an int64: the manual's "$toLong" page,
    a Date converts to its milliseconds since the epoch) and its ``$type`` alias."""
    return [{"_id": 1, "d": D1_STORED[0]["d"], "millis": Int64(-86_400_000), "type": "date"},
            {"_id": 2, "d": D1_STORED[1]["d"], "millis": Int64(1), "type": "date"},
            {"_id": 3, "d": third, "millis": Int64(millis_of_third), "type": "date"}]


# One claim's traffic, as a table ------------------------------------------------------------


@dataclass
class Question:
    """One read a claim sends: the command, its fields (besides the collection), and the
    documents of the reply scripted for it."""

    command: str
    fields: dict[str, Any]
    reply: list[dict]


@dataclass
class Load:
    """One fresh database a claim makes (``labkit_<label>_…``): the collection it fills, the
    documents it must insert, and the reads it then sends, in order."""

    label: str
    collection: str
    stored: list[dict]
    questions: list[Question]


@dataclass
class Case:
    """A claim's whole traffic, what its verdict then observes, and a disagreeing reply: the
    question (load, index) answered with other documents, and the key the verdict names."""

    claim: str
    loads: list[Load]
    observed: dict[str, Any]
    wrong: tuple[int, int, list[dict], str]
    note: str = "the model agrees with the server on every question"


def _find(filter_: dict, **options: Any) -> dict[str, Any]:
    return {"filter": filter_, **options}


def _aggregate(pipeline: list[dict]) -> dict[str, Any]:
    return {"pipeline": pipeline, "cursor": {}}


CASES = [
    # D3: recorded by the chapter on a real server through mongosh.
    Case("D3", [Load("events", "events", EVENTS, [
        Question("find", _find({"at": {"$gte": "2026-10-01"}}), found(EVENTS, "a", "b", "c")),
        Question("find", _find({"atDate": {"$gte": dt.datetime(2026, 10, 1, tzinfo=UTC)}}),
                 found(EVENTS, "b", "c")),
        Question("find", _find({}, sort={"at": -1}), found(EVENTS, "a", "c", "b")),
        Question("find", _find({"atDate": {"$gte": "2026-10-01"}}), [])])],
        {"string_range": ["a", "b", "c"], "date_range": ["b", "c"],
         "sort_by_string_desc": ["a", "c", "b"], "date_field_string_operand": []},
        wrong=(0, 0, found(EVENTS, "b", "c"), "string_range")),
    # D1: the chapter states the rule; the reply is what $toLong and $type document.
    Case("D1", [Load("d1", "dates", D1_STORED,
                     [Question("aggregate", _aggregate(D1_PIPELINE), d1_rows())])],
         {"types": ["date"], "millis": [-86_400_000, 1, 1_790_812_800_000],
          "read_back": "2026-10-01T00:00:00Z"},
         # A server that kept the wall-clock time of +07:00 as if it were UTC.
         wrong=(0, 0, d1_rows(1_790_838_000_000, dt.datetime(2026, 10, 1, 7, tzinfo=UTC)),
                "millis, read_back"),
         note="microseconds are cut to milliseconds; +07:00 comes back as UTC"),
    # S1: the manual's Comparison/Sort Order page; the ascending order of one of each type.
    Case("S1", [Load("types", "types", ONE_OF_EACH, [
        Question("find", _find({}, sort={"v": 1}), found(ONE_OF_EACH, *range(14, -1, -1)))])],
        {"ascending": sort_order.S1_VALUES},
        # Timestamp before Date: ids 4 and 5 swapped.
        wrong=(0, 0, found(ONE_OF_EACH, 14, 13, 12, 11, 10, 9, 8, 7, 6, 4, 5, 3, 2, 1, 0),
               "ascending")),
    # X5: the manual's sort order of arrays.
    Case("X5", [Load("arrays", "arrays", ARRAYS, [
        Question("find", _find({}, sort={"a": 1}), found(ARRAYS, 4, 1, 3, 2)),
        Question("find", _find({}, sort={"a": -1}), found(ARRAYS, 1, 3, 2, 4))])],
        {"ascending": [4, 1, 3, 2], "descending": [1, 3, 2, 4]},
        wrong=(0, 1, found(ARRAYS, 4, 1, 3, 2), "descending")),
    # B1: recorded by the chapter; its census counts int 2 (the shell's 42.0), and the same
    # orders written from Python count a double.
    Case("B1", [
        Load("orders", "orders", ORDERS_AS_SHELL, [
            Question("find", _find({"userId": 42}), found(ORDERS_AS_SHELL, 1, 3, 4, 5)),
            Question("find", _find({"userId": "42"}), found(ORDERS_AS_SHELL, 2)),
            Question("find", _find({"userId": {"$gt": 0}}), found(ORDERS_AS_SHELL, 1, 3, 4, 5)),
            Question("find", _find({"userId": {"$gt": ""}}), found(ORDERS_AS_SHELL, 2)),
            Question("aggregate", _aggregate(CENSUS),
                     census(int=2, string=1, long=1, decimal=1))]),
        Load("orders_python", "orders", ORDERS_FROM_PYTHON, [
            Question("aggregate", _aggregate(CENSUS),
                     census(int=1, string=1, long=1, double=1, decimal=1))])],
        {"eq_42": [1, 3, 4, 5], "eq_string_42": [2], "gt_0": [1, 3, 4, 5],
         "gt_empty_string": [2], "census": {"decimal": 1, "int": 2, "long": 1, "string": 1},
         "census_from_python": {"decimal": 1, "double": 1, "int": 1, "long": 1, "string": 1}},
        # The shell's orders counted as if 42.0 had been written as a double.
        wrong=(0, 4, census(int=1, double=1, string=1, long=1, decimal=1), "census"),
        note="the model agrees with the server on every question; written from Python, 42.0 "
             "is a double: census decimal 1, double 1, int 1, long 1, string 1"),
    # B2: the chapter's statement, asked on Python's orders and the events.
    Case("B2", [
        Load("orders", "orders", ORDERS_FROM_PYTHON, [
            Question("find", _find({"userId": 42}), found(ORDERS_FROM_PYTHON, 1, 3, 4, 5))]),
        Load("events", "events", EVENTS, [
            Question("find", _find({"atDate": {"$gte": "2026-10-01"}}), [])])],
        {"every_numeric_type_matches": True, "string_hidden_from_number": True,
         "date_hidden_from_string": True},
        wrong=(1, 0, found(EVENTS, "b", "c"), "date_hidden_from_string"),
        note="int, long, double and decimal 42 all match 42; no query raised an error"),
    # X1-X4: the manual's $expr, $ne/$nin, null, NaN and array rules.
    Case("X1", [Load("orders", "orders", ORDERS_AS_SHELL, [
        Question("find", _find({"$expr": {"$gt": ["$userId", 0]}}),
                 found(ORDERS_AS_SHELL, 1, 2, 3, 4, 5)),
        Question("find", _find({"userId": {"$gt": 0}}), found(ORDERS_AS_SHELL, 1, 3, 4, 5)),
        Question("find", _find({"userId": {"$ne": 42}}), found(ORDERS_AS_SHELL, 2)),
        Question("find", _find({"userId": {"$nin": [42]}}), found(ORDERS_AS_SHELL, 2))])],
        {"expr_gt_0": [1, 2, 3, 4, 5], "gt_0": [1, 3, 4, 5], "ne_42": [2], "nin_42": [2]},
        wrong=(0, 0, found(ORDERS_AS_SHELL, 1, 3, 4, 5), "expr_gt_0")),
    Case("X2", [Load("nulls", "nulls", NULLS, [
        Question("find", _find({"a": {"$eq": None}}), found(NULLS, 1, 2)),
        Question("find", _find({"a": {"$gte": None}}), found(NULLS, 1, 2)),
        Question("find", _find({"a": {"$lte": None}}), found(NULLS, 1, 2)),
        Question("find", _find({"a": {"$gt": None}}), []),
        Question("find", _find({"a": {"$lt": None}}), [])])],
        {"eq": [1, 2], "gte": [1, 2], "lte": [1, 2], "gt": [], "lt": []},
        wrong=(0, 0, found(NULLS, 1), "eq")),
    Case("X3", [Load("nans", "nans", NANS, [
        Question("find", _find({"a": {"$eq": math.nan}}), found(NANS, 1)),
        Question("find", _find({"a": {"$gte": math.nan}}), found(NANS, 1)),
        Question("find", _find({"a": {"$lte": math.nan}}), found(NANS, 1)),
        Question("find", _find({"a": {"$gt": math.nan}}), []),
        Question("find", _find({"a": {"$lt": math.nan}}), [])])],
        {"eq": [1], "gte": [1], "lte": [1], "gt": [], "lt": []},
        wrong=(0, 1, found(NANS, 1, 4), "gte")),
    Case("X4", [Load("arrays", "arrays", ARRAYS, [
        Question("find", _find({"a": {"$gt": 0}}), found(ARRAYS, 1, 2, 3)),
        Question("find", _find({"a": [1, 10]}), found(ARRAYS, 1)),
        Question("find", _find({"a": 10}), found(ARRAYS, 1))])],
        {"gt_0": [1, 2, 3], "eq_whole_array": [1], "eq_element": [1]},
        wrong=(0, 2, [], "eq_element")),
]
CASE_IDS = [case.claim for case in CASES]


def script_case(wire_server: WireServer, case: Case, wrong: bool = False) -> None:
    """Answer each of the case's reads, on its own database, with its scripted reply (the
    disagreeing one for the question ``case.wrong`` names, if asked)."""
    for at, load in enumerate(case.loads):
        for index, question in enumerate(load.questions):
            documents = question.reply
            if wrong and (at, index) == case.wrong[:2]:
                documents = case.wrong[2]
            wire_server.on(question.command, _cursor_of(documents),
                           match=_asks(load, question))


def _cursor_of(documents: list[dict]) -> Callable[[Sent], dict]:
    return lambda sent: cursor_reply(f"{sent.db}.{sent[sent.name]}", documents)


def _asks(load: Load, question: Question) -> Callable[[Sent], bool]:
    """Whether a command is this question: on its load's database and collection, with
    exactly its fields (so a read labkit changed finds no reply and fails the test)."""
    def match(sent: Sent) -> bool:
        got = fields_of(sent)
        return (in_database(sent, load.label) and got.get(question.command) == load.collection
                and set(got) == {question.command, *question.fields}
                and all(same(got[k], v) for k, v in question.fields.items()))
    return match


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
    assert row.reason.startswith(case.note), row.reason


@wire
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_disagreeing_reply_does_not_hold_and_names_what_differs(lab, case):
    """A reply other than the recorded one gives *does not hold*, and the reason names the
    finding that differs (the judge's "differs in: …")."""
    script_case(lab.wire, case, wrong=True)
    (row,) = lab.run(case.claim).rows
    assert row.verdict == FAILS, row.reason
    assert f"differs in: {case.wrong[3]}" in row.reason


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
    assert f"the model disagrees with the server on: {case.wrong[3]}" in row.reason


@wire
@pytest.mark.parametrize("wire_server", ["6.0", "7.0", "8.0"], indirect=True)
def test_the_verdict_names_the_version_the_server_reports(lab, wire_server):
    """D3's row carries the exact version buildInfo gave (src/mongo/db/commands/
    buildinfo_common.cpp): 6.0.19, 7.0.16 or 8.0.4, as the workflow's servers are."""
    case = CASES[0]
    script_case(lab.wire, case)
    (row,) = lab.run("D3").rows
    assert row.verdict == HOLDS
    assert row.engine_version == mongo_wire.VERSIONS[wire_server.version][0]


# Batches, D1's dates, and what a short reply does ------------------------------------------


def next_batch_reply(namespace: str, documents: list[dict], cursor_id: int = 0) -> dict:
    """A ``getMore`` reply: ``{cursor: {id, ns, nextBatch}, ok: 1}`` (src/mongo/db/query/
    cursor_response.cpp, appendGetMoreResponseObject and CursorResponse::addToBSON: ``id`` an
    int64, 0 once the cursor is exhausted; 6.0, 7.0 and 8.0 alike)."""
    return {"cursor": {"id": Int64(cursor_id), "ns": namespace, "nextBatch": documents},
            "ok": 1.0}


def first_batch_reply(namespace: str, documents: list[dict], cursor_id: int) -> dict:
    """A ``find`` reply whose cursor stays open (``id`` not 0): more follows by ``getMore``."""
    reply = cursor_reply(namespace, documents)
    reply["cursor"]["id"] = Int64(cursor_id)
    return reply


def type_codes(documents: list[dict], key: str) -> list[int | None]:
    """The BSON element type byte of each document's ``key`` as it goes on the wire (the BSON
    spec, bsonspec.org: 0x01 double, 0x10 int32, 0x12 int64, 0x13 decimal128...), None where
    the field is absent."""
    return [bson.encode({key: doc[key]}, codec_options=_STANDARD)[4] if key in doc else None
            for doc in documents]


@wire
def test_the_mixed_fixture_goes_out_with_its_15_types_and_comes_back_in_two_batches(lab):
    """S2 inserts the chapter's 15 documents with their types (an int32, an int64, a double, a
    Decimal128, a UUID as BinData subtype 4, a missing field...), asks ``find({}, {_id: 1})
    .sort({v: 1, _id: 1})`` with the sort's keys in that order, follows the cursor with
    ``getMore`` until its id is 0, and holds on the recorded order (docs/claims.md, S2)."""
    cursor_id = 7_340_032
    first, rest = MIXED_ORDER[:10], MIXED_ORDER[10:]
    lab.wire.on("find", lambda s: first_batch_reply(f"{s.db}.mixed",
                                                    [{"_id": i} for i in first], cursor_id),
                match=lambda s: s["find"] == "mixed")
    lab.wire.on("getMore", lambda s: next_batch_reply(f"{s.db}.mixed",
                                                      [{"_id": i} for i in rest]))
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
    lab.wire.on("find", _cursor_of([{"_id": i} for i in order]),
                match=lambda s: s["find"] == "mixed")
    (row,) = lab.run("S2").rows
    assert row.verdict == FAILS, row.reason
    assert "differs in: v_then_id" in row.reason
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
    lab.wire.on("aggregate", _cursor_of(d1_rows()[:2]), match=lambda s: s["aggregate"] == "dates")
    (row,) = lab.run("D1").rows
    assert row.verdict == FAILS, row.reason
    assert "differs in: millis, read_back" in row.reason
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
    lab.wire.on("aggregate", _cursor_of([{"_id": key, "stored": stored, "shown": shown}
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
        return _cursor_of([{"_id": strings.index(s), "s": s} for s in order])

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
    lab.wire.on("aggregate", _cursor_of(after))
    lab.wire.on("aggregate", _cursor_of(census(int=2, string=1, long=1, decimal=1)), times=1)
    lab.wire.on("update", update_reply(1, 1), match=lambda s: s["update"] == "orders")
    lab.wire.on("find", _cursor_of(found(ORDERS_AS_SHELL, 1, 2, 3, 4, 5)))
    result = bracketing.repair(lesson_db)
    insert, before_census, update, after_census, find = _lesson(lab)
    assert_fields(insert, {"insert": "orders", "ordered": True, "documents": ORDERS_AS_SHELL})
    for sent in (before_census, after_census):
        assert_fields(sent, {"aggregate": "orders", "pipeline": CENSUS, "cursor": {}})
    (change,) = update["updates"]
    assert same(change["q"], {"userId": {"$type": "string"}})
    assert same(change["u"], [{"$set": {"userId": {"$toInt": "$userId"}}}])
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
def test_checks_engine_loads_a_claim_file_reads_it_and_drops_its_database(lab):
    """``labkit check``'s MongoDB engine inserts a claim file's fixture with its types (a
    Decimal128, an int32, a double), sends its find with the sort as written, answers with the
    server's documents in the server's order, and drops the database; its column is the
    server's version, its topology the driver's (a direct connection: single)."""
    from labkit.engines.query import MongoDBEngine

    stored = [{"_id": 1, "v": Decimal128("2.5")}, {"_id": 2, "v": 1}, {"_id": 3, "v": 3.0}]
    lab.wire.on("find", _cursor_of(found(stored, 2, 1, 3)), match=lambda s: s["find"] == "claim")
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

    lab.wire.on("aggregate", _cursor_of([{"_id": 1, "n": 3}]))
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
    from mongo_wire import error_reply

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


def _shape_holds(scripted: dict, real: dict) -> None:
    from mongo_wire import same_shape

    assert same_shape(scripted, real) == [], real


@pytest.mark.mongodb
def test_live_insert_and_lease_upsert_replies_are_shaped_as_scripted(fresh_db):
    """insert answers ``{n, ok}`` and the lease's pipeline upsert ``{n, nModified, upserted:
    [{index, _id}], ok}``, as ``inserted`` and ``lease_upsert`` script them."""
    real = fresh_db.command("insert", "orders", documents=ORDERS_AS_SHELL)
    _shape_holds(write_reply(5), real)
    real = fresh_db.command("update", "labkit_lease", updates=[
        {"q": {"_id": "lease"}, "u": [{"$set": {"renewed": "$$NOW"}}], "upsert": True}])
    _shape_holds(lease_upsert(None), real)


@pytest.mark.mongodb
def test_live_find_and_get_more_replies_are_shaped_as_scripted(fresh_db):
    """find with a small batch answers ``{cursor: {id: int64 not 0, ns, firstBatch}, ok}`` and
    getMore ``{cursor: {id: int64, ns, nextBatch}, ok}``, as the batch test scripts them."""
    fresh_db.orders.insert_many([dict(doc) for doc in ORDERS_AS_SHELL])
    namespace = f"{fresh_db.name}.orders"
    real = fresh_db.command("find", "orders", filter={}, batchSize=2)
    _shape_holds(first_batch_reply(namespace, found(ORDERS_AS_SHELL, 1), 1), real)
    cursor_id = real["cursor"]["id"]
    assert cursor_id != 0
    real = fresh_db.command("getMore", cursor_id, collection="orders")
    _shape_holds(next_batch_reply(namespace, found(ORDERS_AS_SHELL, 3), 1), real)


@pytest.mark.mongodb
def test_live_census_and_d1_aggregate_replies_are_shaped_as_scripted(fresh_db):
    """The ``$type`` census answers ``{_id: alias, n: int32}`` and D1's projection ``{_id, d:
    Date, millis: int64, type: alias}``, each in a cursor's first batch."""
    fresh_db.orders.insert_many([dict(doc) for doc in ORDERS_AS_SHELL])
    fresh_db.dates.insert_many([dict(doc) for doc in D1_STORED])
    real = fresh_db.command("aggregate", "orders", pipeline=CENSUS, cursor={})
    _shape_holds(cursor_reply(f"{fresh_db.name}.orders", census(int=2)), real)
    real = fresh_db.command("aggregate", "dates", pipeline=D1_PIPELINE, cursor={})
    _shape_holds(cursor_reply(f"{fresh_db.name}.dates", d1_rows()), real)


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
    _shape_holds(scripted, real)
    assert "codeName" not in real["writeErrors"][0]


@pytest.mark.mongodb
def test_live_drop_database_reply_is_shaped_as_scripted(mongodb_server):
    """dropDatabase of a database that exists answers ``{ok: 1.0}``, as scripted."""
    database = mongodb_server.fresh_database("shape")
    try:
        real = database.command("dropDatabase")
    finally:
        mongodb_server.drop(database.name)
    _shape_holds(dropped(), real)
