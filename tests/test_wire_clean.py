"""``labkit clean`` on MongoDB end to end, and the server layer when the connection fails: a
reset (the scripted server hangs up) or a timeout (it answers later than pymongo's
socketTimeoutMS) while labkit discovers a server, cleans up or writes a lease gives one clear
error (``ServerUnavailable``: the command line's one ``Error:`` line and its hint), never
pymongo's traceback, and leaves nothing behind.

The replies are ``wire_replies``', each with its source there; what a reset or a timeout
raises in pymongo (``AutoReconnect``, ``NetworkTimeout``) is the driver's own doing, so these
tests need no reply of their own for it.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from wire_replies import (
    AHEAD,
    DATABASE_DROPPED,
    LEASE_UPSERTED,
    clock,
    databases,
    script_from_uri,
    script_leftovers,
    started,
)

from labkit import servers
from labkit.cli import main
from labkit.errors import ServerUnavailable

pytestmark = pytest.mark.wire


@pytest.fixture
def user_uri(wire_server, monkeypatch):
    """LABKIT_MONGODB_URI naming the scripted server (and no PostgreSQL DSN), as a user who
    runs ``labkit clean`` against their own server sets it."""
    monkeypatch.delenv("LABKIT_POSTGRES_DSN", raising=False)
    monkeypatch.setenv("LABKIT_MONGODB_URI", wire_server.uri)
    script_from_uri(wire_server)
    return wire_server.uri


# labkit clean ---------------------------------------------------------------------------------


def test_labkit_clean_says_what_it_removed_kept_and_left(wire_server, user_uri, capsys):
    """``labkit clean`` finds the server by LABKIT_MONGODB_URI, removes the stale database whose
    mark proves, and says, one line each, what it kept in use, left unproven and skipped."""
    script_leftovers(wire_server)
    assert main(["clean"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"MongoDB 7.0.16 (uri: {user_uri}; WiredTiger cache 0.25 GB")
    assert out[0].endswith("): removed 1 stale labkit database(s): labkit_stale_0001")
    assert "Kept 1 in use by a running labkit: labkit_inuse_0002" in out
    assert "  labkit_undated_0005: its lease's renewal time is not a date" in out
    assert any(line.startswith("  labkit_forged_0004: its mark was not made for this name")
               for line in out)
    assert any(line.startswith("  labkit_unreadable_0006: could not drop it: OperationFailure: "
                               "not authorized on labkit_unreadable_0006") for line in out)
    assert [s.db for s in wire_server.named("dropDatabase")] == ["labkit_stale_0001"]


def test_labkit_clean_json_lists_the_same(wire_server, user_uri, capsys):
    """``labkit clean --json`` prints one entry for the MongoDB server with the same lists."""
    script_leftovers(wire_server)
    assert main(["clean", "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)
    assert entry["engine"] == "MongoDB"
    # (The ";" after the URI is lost here: the JSON's redaction re-renders the URI and drops
    # it, where the text line keeps it.)
    assert entry["server"].startswith(f"MongoDB 7.0.16 (uri: {user_uri}")
    assert "WiredTiger cache 0.25 GB (the server's own setting" in entry["server"]
    assert entry["removed"] == ["labkit_stale_0001"]
    assert entry["in_use"] == ["labkit_inuse_0002"]
    assert set(entry["unproven"]) == {"labkit_forged_0004", "labkit_undated_0005"}
    assert set(entry["skipped"]) == {"labkit_unreadable_0006"}


def test_labkit_clean_with_nothing_left(wire_server, user_uri, capsys):
    """On a server holding no labkit database, ``labkit clean`` removes nothing and says so."""
    clock(wire_server, dt.datetime.now(dt.UTC))
    wire_server.on("listDatabases", databases("admin", "config", "local", "shop"))
    assert main(["clean"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert line.endswith("): removed 0 stale labkit database(s).")
    assert wire_server.named("find") == []


# A reset or a timeout: one clear error ------------------------------------------------------


def _one_error(capsys, status: int) -> str:
    """The command's stderr, checked to be one ``Error:`` line (and its hint), no traceback."""
    err = capsys.readouterr().err
    assert status == 1
    assert err.startswith("Error: ")
    assert err.count("Error:") == 1
    assert "Traceback" not in err
    assert err.splitlines()[-1].startswith("Hint: ")
    return err


def test_a_reset_while_cleaning_is_one_error_line(wire_server, user_uri, capsys):
    """The server hanging up on ``listDatabases`` (pymongo retries a read once; both hang up)
    makes ``labkit clean`` print one Error line naming the server and what labkit was doing;
    before, pymongo's AutoReconnect reached the user as a traceback."""
    clock(wire_server, dt.datetime.now(dt.UTC))
    wire_server.on("listDatabases", hangup=True)
    err = _one_error(capsys, main(["clean"]))
    assert err.startswith(f"Error: The MongoDB server at {user_uri} failed while labkit looked "
                          "for what killed runs left: ")
    assert wire_server.named("dropDatabase") == []


def test_a_timeout_while_cleaning_is_one_error_line(wire_server, monkeypatch, capsys):
    """A server answering ``find`` later than the URI's socketTimeoutMS (pymongo's
    NetworkTimeout) makes ``labkit clean`` print one Error line; nothing is dropped."""
    monkeypatch.delenv("LABKIT_POSTGRES_DSN", raising=False)
    uri = wire_server.uri + "&socketTimeoutMS=200"
    monkeypatch.setenv("LABKIT_MONGODB_URI", uri)
    script_from_uri(wire_server)
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    clock(wire_server, now + AHEAD)
    wire_server.on("listDatabases", databases("labkit_stale_0001"))
    wire_server.on("find", {"ok": 1.0}, delay=1.0)
    err = _one_error(capsys, main(["clean"]))
    assert "failed while labkit looked for what killed runs left: " in err
    assert "timed out" in err
    assert wire_server.named("dropDatabase") == []


def test_a_reset_during_discovery_is_one_error_line(wire_server, user_uri, capsys):
    """The server hanging up on ``buildInfo`` while labkit finds it by URI gives one Error line
    saying it did not answer, and what to do."""
    wire_server.on("buildInfo", hangup=True)
    err = _one_error(capsys, main(["clean"]))
    assert err.startswith(f"Error: The MongoDB server at {user_uri} did not answer: ")
    assert "Hint: check that it is running and reachable" in err


def test_a_reset_on_the_lease_write_is_one_error_and_leaves_nothing(wire_server):
    """A connection reset on a new database's lease write raises ServerUnavailable (a run shows
    that engine as not run), and the database the write may have made is dropped before the
    error reaches the caller, not only when the server stops; before, pymongo's AutoReconnect
    escaped."""
    wire_server.on("update", hangup=True, times=1)
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    server = started(wire_server)
    with pytest.raises(ServerUnavailable) as caught:
        server.fresh_database("wire")
    assert "failed while labkit wrote a new database's lease: " in str(caught.value.message)
    [update] = wire_server.named("update")
    assert [s.db for s in wire_server.named("dropDatabase")] == [update.db]
    server.stop()
    assert [s.db for s in wire_server.named("dropDatabase")] == [update.db]
    assert server.left == {}


def test_a_half_made_database_whose_drop_fails_too_is_dropped_when_the_server_stops(
        wire_server):
    """Where the lease write and the drop right after it both fail, the database stays
    recorded and stopping the server tries the drop again."""
    wire_server.on("update", hangup=True, times=1)
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    # Newest first: the first drop is cut off (a command pymongo does not retry).
    wire_server.on("dropDatabase", hangup=True, times=1)
    server = started(wire_server)
    with pytest.raises(ServerUnavailable):
        server.fresh_database("wire")
    [update] = wire_server.named("update")
    assert [s.db for s in wire_server.named("dropDatabase")] == [update.db]
    server.stop()
    assert [s.db for s in wire_server.named("dropDatabase")] == [update.db, update.db]
    assert server.left == {}


def test_a_timeout_on_a_drop_is_recorded_never_raised(wire_server):
    """A dropDatabase answered later than the socket timeout leaves the database recorded in
    ``left`` with the driver's reason; nothing is raised, so a verdict already judged stands."""
    wire_server.on("update", LEASE_UPSERTED)
    wire_server.on("dropDatabase", DATABASE_DROPPED, delay=1.0)
    server = servers.MongoServer(uri=wire_server.uri + "&socketTimeoutMS=200", how="local",
                                 version="7.0.16")
    name = server.fresh_database("wire").name
    server.drop(name)
    assert "timed out" in server.left[name]
    server.stop()
