"""The wire tests' scripted MongoDB itself (tests/mongo_wire.py): what it answers, what it
records, and how pymongo sees its refusals, so that a wire test's verdict rests on the harness
doing what its docstring says."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from pathlib import Path

import mongo_wire as w
import pymongo
import pytest
from bson import Binary, Decimal128, Int64
from pymongo.errors import AutoReconnect, ConnectionFailure, NetworkTimeout, OperationFailure

pytestmark = pytest.mark.wire
pytest_plugins = ("pytester",)

CONFTEST = Path(__file__).with_name("conftest.py")


@pytest.fixture
def client(wire_server):
    """A pymongo client on the scripted server, closed after the test."""
    connection = pymongo.MongoClient(wire_server.uri, serverSelectionTimeoutMS=2000,
                                     uuidRepresentation="standard")
    yield connection
    connection.close()


def test_an_unscripted_command_fails_the_test(pytester):
    """A command no rule answers reaches labkit as code 59 and fails the test at teardown,
    even when the code under test swallowed the refusal."""
    pytester.makeconftest(f"""
import importlib.util, sys
sys.path.insert(0, {str(CONFTEST.parent)!r})
spec = importlib.util.spec_from_file_location("suite_conftest", {str(CONFTEST)!r})
suite = importlib.util.module_from_spec(spec)
spec.loader.exec_module(suite)
wire_server = suite.wire_server
""")
    pytester.makepyfile("""
import pymongo
from pymongo.errors import OperationFailure

def test_swallows(wire_server):
    client = pymongo.MongoClient(wire_server.uri, serverSelectionTimeoutMS=2000)
    try:
        client.admin.command("labkitNeverScripted")
    except OperationFailure as exc:
        assert exc.code == 59
    finally:
        client.close()
""")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*labkit sent commands no rule answered*labkitNeverScripted*"])


def test_rules_are_tried_newest_first(wire_server, client):
    """A rule added later answers before an older one for the same command."""
    wire_server.on("labkitProbe", {"which": "older", "ok": 1.0})
    wire_server.on("labkitProbe", {"which": "newer", "ok": 1.0})
    assert client.admin.command("labkitProbe")["which"] == "newer"


def test_times_hands_over_to_the_older_rule(wire_server, client):
    """A rule with ``times=1`` answers once, then the older rule answers."""
    wire_server.on("labkitProbe", {"which": "default", "ok": 1.0})
    wire_server.on("labkitProbe", {"which": "once", "ok": 1.0}, times=1)
    answers = [client.admin.command("labkitProbe")["which"] for _ in range(3)]
    assert answers == ["once", "default", "default"]


def test_match_narrows_a_rule_to_what_was_sent(wire_server, client):
    """A rule with ``match`` answers only the commands it accepts; the others fall through."""
    wire_server.on("labkitProbe", {"which": "any", "ok": 1.0})
    wire_server.on("labkitProbe", {"which": "x", "ok": 1.0}, match=lambda s: s.get("x") == 1)
    assert client.admin.command("labkitProbe", x=1)["which"] == "x"
    assert client.admin.command("labkitProbe", x=2)["which"] == "any"


def test_hangup_reaches_pymongo_as_a_connection_failure(wire_server, client):
    """``hangup=True`` closes the connection mid-command: pymongo raises AutoReconnect (a
    ConnectionFailure), as it does when a real server's connection resets."""
    wire_server.on("labkitProbe", hangup=True)
    with pytest.raises(ConnectionFailure) as caught:
        client.admin.command("labkitProbe")
    assert isinstance(caught.value, AutoReconnect)
    assert wire_server.commands() == ["labkitProbe"]


def test_an_error_reply_keeps_its_code_and_details(wire_server, client):
    """An error reply reaches labkit as OperationFailure with ``.code`` and the whole reply in
    ``.details`` (mockupdb's own go() would have lost the code)."""
    refusal = w.unauthorized("serverStatus")
    wire_server.on("serverStatus", refusal)
    with pytest.raises(OperationFailure) as caught:
        client.admin.command("serverStatus")
    assert caught.value.code == w.UNAUTHORIZED
    assert caught.value.details == refusal
    assert caught.value.details["codeName"] == "Unauthorized"


def test_atlas_refusal_keeps_code_8000(wire_server, client):
    """Atlas's shared-tier refusal reaches labkit with code 8000 and codeName AtlasError."""
    wire_server.on("dropDatabase", w.atlas_refusal("dropDatabase", "labkit_x"))
    with pytest.raises(OperationFailure) as caught:
        client.labkit_x.command("dropDatabase")
    assert (caught.value.code, caught.value.details["codeName"]) == (8000, "AtlasError")


def test_sent_keeps_bson_types(wire_server, client):
    """What labkit sent is recorded with its BSON types: int32 as int, int64 as Int64, double
    as float, Decimal128, a UUID as Binary subtype 4, a date as a naive UTC datetime."""
    wire_server.on("insert", w.write_reply(1))
    when = dt.datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=dt.UTC)
    key = uuid.UUID("0190f0e2-7c4a-7abc-8def-0123456789ab")
    client.db.orders.insert_one({"_id": 1, "i32": 42, "i64": Int64(42), "dbl": 42.0,
                                 "dec": Decimal128("42.0"), "uid": key, "at": when})
    (document,) = wire_server.named("insert")[0]["documents"]
    assert [type(document[k]) for k in ("i32", "i64", "dbl", "dec", "uid", "at")] == [
        int, Int64, float, Decimal128, Binary, dt.datetime]
    assert (document["uid"].subtype, document["uid"].as_uuid()) == (4, key)
    assert document["at"] == when.replace(tzinfo=None)
    assert wire_server.named("insert")[0].db == "db"


def test_delay_fires_the_socket_timeout_without_stalling_other_connections(wire_server):
    """A rule with ``delay`` answers late enough for pymongo's socket timeout (NetworkTimeout)
    while another client is answered at once: the wait holds no lock of MockupDB's."""
    wire_server.on("labkitProbe", delay=2.0)
    slow = pymongo.MongoClient(wire_server.uri, serverSelectionTimeoutMS=2000,
                               socketTimeoutMS=300)
    other = pymongo.MongoClient(wire_server.uri, serverSelectionTimeoutMS=2000)
    try:
        other.admin.command("ping")
        with pytest.raises(NetworkTimeout):
            slow.admin.command("labkitProbe")
        started = time.monotonic()
        other.admin.command("ping")
        assert time.monotonic() - started < 0.5
    finally:
        slow.close()
        other.close()


def test_the_monitor_is_not_answered_in_a_loop(wire_server, client):
    """pymongo's awaitable hello waits for its maxAwaitTimeMS as on a real server, instead of
    being answered at once (thousands of hellos a second on a shared machine)."""
    client.admin.command("ping")
    hellos = []

    def count(request):
        if str(next(iter(request.doc), "")).lower() in {"hello", "ismaster"}:
            hellos.append(request)

    assert wire_server._mockup is not None
    wire_server._mockup.subscribe(count)
    time.sleep(0.3)  # answered at once, the monitor asks hundreds of times in this while
    assert len(hellos) < 5


@pytest.mark.parametrize("wire_server", w.SERIES, indirect=True)
def test_an_application_hello_is_recorded_and_shaped_per_version(wire_server, client):
    """labkit's own ``hello`` is recorded and answered as a standalone of that version answers
    it: isWritablePrimary (not ismaster), a localTime date, its maxWireVersion; ``isMaster``
    gets ismaster instead (replication_info.cpp: one or the other, never both)."""
    hello = client.admin.command("hello")
    legacy = client.admin.command("isMaster")
    assert wire_server.commands() == ["hello", "isMaster"]
    assert (hello["isWritablePrimary"], "ismaster" in hello, "helloOk" in hello) == (
        True, False, False)
    assert (legacy["ismaster"], "isWritablePrimary" in legacy) == (True, False)
    assert isinstance(hello["localTime"], dt.datetime)
    assert hello["maxWireVersion"] == w.VERSIONS[wire_server.version][1]
    assert client.server_info()["version"] == wire_server.release


def test_a_scripted_hello_overrides_the_default(wire_server, client):
    """A test may script labkit's ``hello`` (a fixed localTime, say); the driver's own
    handshake keeps the default."""
    fixed = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    wire_server.on("hello", {**w.hello_reply(wire_server.version), "localTime": fixed})
    assert client.admin.command("hello")["localTime"] == fixed.replace(tzinfo=None)


def test_same_shape_accepts_a_reply_with_more_fields():
    """A real reply with every scripted field, of the same types, and more, has the same shape."""
    scripted = w.cursor_reply("db.c", [{"_id": 1}])
    real = {"cursor": {"firstBatch": [{"_id": 7, "x": "y"}], "id": Int64(0), "ns": "db.c"},
            "ok": 1.0, "extra": True}
    assert w.same_shape(scripted, real) == []


@pytest.mark.parametrize(("scripted", "real", "problem"), [
    ({"n": 1}, {"n": Int64(1)}, "n: int in the script, Int64 on the server"),
    ({"ok": 1.0}, {"ok": 1}, "ok: float in the script, int on the server"),
    ({"a": {"b": 1}}, {"a": {}}, "a.b: missing on the server"),
    ({"a": [{"b": 1}]}, {"a": [{"b": "x"}]}, "a[0].b: int in the script, str on the server"),
    ({"a": [1]}, {"a": []}, "a: an empty list on the server, so its elements cannot be compared"),
    ({"a": {"b": 1}}, {"a": [1]}, "a: a document in the script, list on the server"),
    ({"a": True}, {"a": 1}, "a: bool in the script, int on the server"),
])
def test_same_shape_names_each_difference(scripted, real, problem):
    """Each difference in shape is named with its path: a type (int32 and int64 differ), a
    missing key, a list element, an empty real list, a document against a list."""
    assert w.same_shape(scripted, real) == [problem]


SIZED = "wiredTiger.cache.maximum bytes configured"


@pytest.mark.parametrize(("real", "problem"), [
    (256 * 1024**2, None),
    (Int64(8 * 1024**3), None),
    (Int64(256 * 1024**2), f"{SIZED}: Int64 on the server for 268435456, which appendNumber "
                           "writes as int"),
    (8 * 1024**3, f"{SIZED}: int on the server for 8589934592, which appendNumber writes as "
                  "Int64"),
    (0.25, f"{SIZED}: int in the script, float on the server"),
], ids=["int32 for 0.25 GB", "int64 for 8 GB", "int64 for 0.25 GB", "int32 for 8 GB",
        "a double"])
def test_same_shape_compares_a_sized_integer_by_the_width_its_value_needs(real, problem):
    """At a path named ``sized``, a scripted integer matches a real one of the width
    appendNumber gives the real value (an int32 for 0.25 GB, an int64 for 8 GB) and no other;
    elsewhere the widths must agree, and a float is never an integer."""
    scripted = {"wiredTiger": {"cache": {"maximum bytes configured": 256 * 1024**2}}}
    real_reply = {"wiredTiger": {"cache": {"maximum bytes configured": real}}}
    assert w.same_shape(scripted, real_reply, sized={SIZED}) == ([problem] if problem else [])
    if type(real) is not int:
        assert w.same_shape(scripted, real_reply) != []


def test_as_written_leaves_out_what_the_driver_adds():
    """``Sent.as_written`` is the command as labkit's code wrote it: the session, database,
    cluster time and read preference pymongo adds are left out, everything else kept."""
    sent = w.Sent("find", "db", {"find": "t", "filter": {}, "lsid": {"id": 1}, "$db": "db",
                                 "$clusterTime": {}, "$readPreference": {"mode": "primary"}})
    assert sent.as_written() == {"find": "t", "filter": {}}


@pytest.mark.parametrize("uri", [
    "mongodb://a.example.net:27017,b.example.net:27017/?replicaSet=rs0",
    "mongodb://db.example.net:27017/?tls=true",
    "mongodb+srv://cluster0.example.net/",
])
def test_a_live_test_that_rebuilds_a_uri_skips_where_only_one_host_without_tls_would_do(uri):
    """The live tests that speak as another user rebuild the session server's URI with
    directConnection, which pymongo refuses for several hosts and which would drop a hosted
    cluster's TLS: on such a server they skip with why, instead of failing."""
    with pytest.raises(pytest.skip.Exception, match="one self-run mongod"):
        w.single_host_uri(uri, "u", "p")


def test_a_single_self_run_mongod_gets_a_uri_for_another_user():
    """For one host without TLS the rebuilt URI names the user (quoted), authSource admin and a
    direct connection, and pymongo's parser reads it back."""
    from pymongo.uri_parser import parse_uri

    uri = w.single_host_uri("mongodb://root:pw@127.0.0.1:27017/?directConnection=true",
                            "lab kit", "p@ss")
    parsed = parse_uri(uri)
    assert (parsed["username"], parsed["password"]) == ("lab kit", "p@ss")
    assert parsed["nodelist"] == [("127.0.0.1", 27017)]
    assert parsed["options"]["authSource"] == "admin"
    assert w.single_host_uri("mongodb://127.0.0.1:27017/") == (
        "mongodb://127.0.0.1:27017/?directConnection=true")
