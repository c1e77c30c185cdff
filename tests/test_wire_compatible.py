"""Servers that speak MongoDB's protocol and are not MongoDB, over the wire: labkit's code,
unmodified, through real pymongo, to MockupDB answering as FerretDB 1.x answers (issue 44, 3).

Where each scripted reply comes from: FerretDB/FerretDB at tag v1.24.2 (commit cda72d44, the
last 1.x), read in its repository:

- ``buildInfo``: internal/handler/msg_buildinfo.go:32-59: ``version`` "7.0.42" (build/version/
  mongodb.txt) and ``versionArray`` [7, 0, 42, 0] int32s, ``gitVersion``, ``modules``,
  ``sysInfo: "deprecated"``, ``bits``, ``debug``, ``maxBsonObjectSize``, ``buildEnvironment``,
  its own ``ferretdbVersion`` and ``ferretdbFeatures``; ``ok`` a double.
- ``hello``: internal/handler/msg_hello.go:53-127: no ``topologyVersion``; ``localTime`` a date;
  ``connectionId`` always 42; ``maxWireVersion`` 21.
- ``connectionStatus``: internal/handler/msg_connectionstatus.go:30-49: ``authInfo`` with
  ``authenticatedUsers`` and an always empty ``authenticatedUserRoles``; the request is not
  parsed, so ``showPrivileges`` is ignored and ``authenticatedUserPrivileges`` never sent.
- ``update`` whose ``u`` is a list of stages (a pipeline update, the only way to write
  ``$$NOW``): internal/handler/common/update_params.go:59 declares ``u`` a document, and
  handlerparams/extract_params.go:360-381 refuses an array: 14, TypeMismatch, "BSON field
  'update.updates.u' is the wrong type 'array', expected type 'object'" (the text worked out
  from the template at line 377; no test of FerretDB's asserts it).
- ``fsync``: in no command table (internal/handler/commands.go:45-281): internal/clientconn/
  conn.go:581-590 answers 59, CommandNotFound, "no such command: 'fsync'"
  (``mongo_wire.command_not_found``).
- ``serverStatus``: internal/handler/msg_serverstatus.go:35-107: host, version, process, pid,
  uptime…, localTime, freeMonitoring, metrics, ferretdbVersion, ok, catalogStats; no
  ``wiredTiger``, ``opcounters``, ``repl`` or ``storageEngine``.

A scripted reply is no engine: these tests check what labkit sends and how it reads each
reply; what FerretDB does with a query is FerretDB's to say, on a real FerretDB.
"""

from __future__ import annotations

import datetime as dt

import pytest
from bson import Int64
from mongo_wire import (
    command_not_found,
    error_reply,
    hello_reply,
    update_reply,
)
from wire_replies import (
    CASES,
    DATABASE_DROPPED,
    LEASE_UPSERTED,
    OWN_DATABASES,
    run_claim,
    script_case,
)

from labkit.claims.claim import HOLDS
from labkit.errors import BadInput, ServerUnavailable
from labkit.run import doctor
from labkit.servers import mongo

pytestmark = pytest.mark.wire

REPORTED = "7.0.42"
OWN = "1.24.2"
TYPE_MISMATCH = 14


def build_info() -> dict:
    """FerretDB 1.24.2's ``buildInfo`` (msg_buildinfo.go's fields, in its order)."""
    return {"version": REPORTED, "gitVersion": "0" * 40, "modules": [],
            "sysInfo": "deprecated", "versionArray": [7, 0, 42, 0], "bits": 64,
            "debug": False, "maxBsonObjectSize": 16 * 1024 * 1024,
            "buildEnvironment": {"go.version": "go1.22"}, "ferretdbVersion": OWN,
            "ferretdbFeatures": {"aggregationStages": ["$match", "$sort"]}, "ok": 1.0}


CONNECTION_STATUS = {"authInfo": {"authenticatedUsers": [{"user": "labkit", "db": "admin"}],
                                  "authenticatedUserRoles": []},
                     "ok": 1.0}
PIPELINE_REFUSED = error_reply(TYPE_MISMATCH, "BSON field 'update.updates.u' is the wrong type "
                               "'array', expected type 'object'", "TypeMismatch")
SERVER_STATUS = {"host": "ferretdb", "version": REPORTED, "process": "ferretdb",
                 "pid": Int64(1), "uptime": 1.0, "uptimeMillis": Int64(1000),
                 "uptimeEstimate": Int64(1), "localTime": dt.datetime.now(dt.UTC),
                 "freeMonitoring": {"state": "disabled"}, "metrics": {"commands": {}},
                 "ferretdbVersion": OWN, "ok": 1.0,
                 "catalogStats": {"collections": Int64(0), "capped": 0}}


@pytest.fixture
def ferretdb(wire_server):
    """The scripted server answering as FerretDB: what connecting asks, and each fresh
    database's lease (refused as a pipeline update, taken as a plain one), insert and drop."""
    wire_server.on("buildInfo", build_info())
    wire_server.on("serverStatus", SERVER_STATUS)
    wire_server.on("connectionStatus", CONNECTION_STATUS)
    wire_server.on("listDatabases", OWN_DATABASES)
    wire_server.on("update", LEASE_UPSERTED,
                   match=lambda sent: not isinstance(sent["updates"][0]["u"], list))
    wire_server.on("update", PIPELINE_REFUSED,
                   match=lambda sent: isinstance(sent["updates"][0]["u"], list))
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    wire_server.on("insert", lambda sent: update_reply(len(sent["documents"])) | {"ok": 1.0})
    wire_server.on("hello", lambda _sent: {**{k: v for k, v in hello_reply("7.0").items()
                                              if k != "topologyVersion"}, "connectionId": 42})
    return wire_server


def test_ferretdb_is_named_for_what_it_is(ferretdb, monkeypatch):
    """"FerretDB 1.24.2, reports MongoDB 7.0.42", never "MongoDB 7.0.42": in the server's
    record (the report's header, results.json) and in doctor's line; its connectionStatus,
    which lists no privileges, is "reports no privileges", not "may do nothing"."""
    server = mongo.from_uri(ferretdb.uri)
    try:
        assert (server.name, server.version, server.reports) == ("FerretDB", OWN, REPORTED)
        assert server.info().line().startswith(f"FerretDB (reports MongoDB {REPORTED}) {OWN}")
        assert server.privileges is not None
        assert not server.privileges.reported
        assert server.privileges.usable
    finally:
        server.stop()
    monkeypatch.setenv("LABKIT_MONGODB_URI", ferretdb.uri)
    check = doctor._mongodb_uri()
    assert check.ok
    line = check.line()
    assert f"FerretDB {OWN} at " in line
    assert f"(reports MongoDB {REPORTED})" in line
    assert "reports no privileges" in line
    assert "MongoDB 7.0.42 at" not in line


def test_mongodb_version_never_takes_ferretdb(ferretdb):
    """``--mongodb-version 7.0`` asks for MongoDB 7.0: FerretDB reporting 7.0.42 is refused,
    named, with what to do."""
    with pytest.raises(ServerUnavailable) as refused:
        mongo.from_uri(ferretdb.uri, "7.0")
    said = str(refused.value)
    assert f"is FerretDB {OWN}, which reports MongoDB {REPORTED}: not MongoDB 7.0" in said


def test_a_lesson_03_claim_on_ferretdb_is_judged_and_named_ferretdb(ferretdb):
    """B1 on FerretDB's replies (scripted as the chapter recorded them on MongoDB): its lease
    is refused as a pipeline update (14) and written plainly with the time ``hello`` gives, so
    the claim is judged, never an error, and its row names FerretDB. The second database's
    lease goes plainly at once."""
    (case,) = [case for case in CASES if case.claim == "B1"]
    script_case(ferretdb, case)
    server = mongo.from_uri(ferretdb.uri)
    try:
        (row,) = run_claim(server, "B1").rows
    finally:
        server.stop()
    assert row.verdict == HOLDS, row.reason
    assert (row.engine, row.engine_version) == ("FerretDB", OWN)
    leases = [sent["updates"][0]["u"] for sent in ferretdb.named("update")]
    assert isinstance(leases[0], list)  # tried as a pipeline once, refused
    assert all(isinstance(u, dict) for u in leases[1:])
    assert len(leases) == 1 + len(case.loads)
    assert all(hasattr(u["$set"]["expires"], "tzinfo") for u in leases[1:])


def test_a_missing_fsync_is_said_not_raised(ferretdb):
    """FerretDB has no ``fsync``: 59, CommandNotFound, is a reason (no index size: the file
    holds its pages only after a checkpoint), never an error, and names no role to grant."""
    from labkit.engines import btree_mongodb

    ferretdb.on("fsync", command_not_found("fsync"))
    server = mongo.from_uri(ferretdb.uri)
    try:
        why = btree_mongodb._checkpoint(server.client())
    finally:
        server.stop()
    assert why is not None
    assert str(why).startswith("this server has no fsync command (no such command: 'fsync'")
    assert "hostManager" not in str(why)


def test_a_server_too_old_for_pymongo_is_said_with_its_versions(wire_server, monkeypatch):
    """mongo-java-server 1.47.0 answers a wire version of 8 (MongoDB 4.2); pymongo 4.20 needs
    9 and refuses at server selection with a ConfigurationError, which labkit read as a URI its
    parser refused. It is said as what it is: pymongo cannot speak with that server."""
    old = {**hello_reply("7.0"), "maxWireVersion": 8}
    monkeypatch.setattr(wire_server, "_hello", lambda name, doc: old)
    with pytest.raises(ServerUnavailable) as refused:
        mongo.from_uri(wire_server.uri)
    said = str(refused.value)
    assert "pymongo cannot speak with it" in said
    assert "wire version" in said
    assert not isinstance(refused.value, BadInput)


def test_one_server_wide_failure_is_said_once(wire_server, monkeypatch, capsys, tmp_path):
    """Before: a server that refuses every lease (here as Cosmos DB vCore refuses ``$$NOW``,
    with a code labkit does not take for "no pipeline updates") printed the same long error
    once per claim. The terminal's reasons say each error once, with the claims it cost."""
    from labkit.cli import main

    said = "Feature $$NOW is not supported yet"
    wire_server.on("serverStatus", {"ok": 1.0})
    wire_server.on("connectionStatus", CONNECTION_STATUS)
    wire_server.on("listDatabases", OWN_DATABASES)
    wire_server.on("update", error_reply(2, said, "BadValue"))
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    monkeypatch.setenv("LABKIT_MONGODB_URI", wire_server.uri)
    main(["run", "--mongodb", "uri", "--topics", "bracketing", "--out", str(tmp_path / "r"),
          "--quiet"])
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if said in line]
    assert len(errors) == 1, out
    assert errors[0].startswith("B1, B2, X1, X2, X3, X4 error: ")  # the claims it cost
    assert "the server answered, and refused the command" in errors[0]  # not "is it running"
