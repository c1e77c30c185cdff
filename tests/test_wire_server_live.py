"""First contact for the server layer's scripted replies (``wire_replies``, used by
test_wire_servers.py and test_wire_clean.py): the same
commands asked of a real server, whose replies must have the scripted fields with the same
BSON types (``mongo_wire.same_shape``), so the first run on a real MongoDB says at once whether
a script was wrong. Runs where a server exists (the workflow: 6.0, 7.0 and 8.0); skipped here.

hello, buildInfo, the cursor replies (find, listCollections) and update's are checked by
test_wire_live.py with the harness's shapes; these are the ones only the server layer scripts.
"""

from __future__ import annotations

import datetime as dt

import pytest
from mongo_wire import ATLAS_ERROR, UNAUTHORIZED, atlas_refusal, same_shape, unauthorized
from pymongo.errors import OperationFailure
from wire_replies import (
    DATABASE_DROPPED,
    collection_dropped,
    collections,
    databases,
    server_status,
)

from labkit import servers

pytestmark = pytest.mark.mongodb


def test_server_status_has_the_scripted_shape(mongodb_server):
    """A real serverStatus has the scripted top fields (pid an int64, uptime a double,
    localTime a date) and ``wiredTiger.cache["maximum bytes configured"]`` as an int32 or
    int64 by its size."""
    try:
        real = mongodb_server.client().admin.command("serverStatus")
    except OperationFailure as exc:
        if servers.refused(exc):
            pytest.skip("this server's user may not run serverStatus")
        raise
    configured = real.get("wiredTiger", {}).get("cache", {}).get("maximum bytes configured")
    if configured is None:
        pytest.skip("this server has no WiredTiger section (another storage engine)")
    assert same_shape(server_status(), real,
                      sized={"wiredTiger.cache.maximum bytes configured"}) == []


def test_list_databases_has_the_scripted_shape(fresh_db, mongodb_server):
    """A real listDatabases with nameOnly lists ``{name}`` documents, as scripted."""
    fresh_db.t.insert_one({"_id": 1})
    real = mongodb_server.client().admin.command("listDatabases", nameOnly=True)
    assert same_shape(databases(fresh_db.name), real) == []
    assert {"name": fresh_db.name} in real["databases"]


def test_list_collections_name_only_has_the_scripted_shape(fresh_db):
    """A real listCollections with nameOnly gives ``{name, type}`` in its first batch."""
    fresh_db.t.insert_one({"_id": 1})
    real = fresh_db.command("listCollections", nameOnly=True)
    assert same_shape(collections(fresh_db.name, "t"), real) == []


def test_drop_and_drop_database_have_the_scripted_shape(mongodb_server):
    """Real drop and dropDatabase replies have the scripted fields (drop: nIndexesWas an int32,
    ns a string; both ok 1.0); dropDatabase only where this server's user may run it."""
    database = mongodb_server.fresh_database("shape")
    try:
        database.t.insert_one({"_id": 1})
        assert same_shape(collection_dropped(), database.command("drop", "t")) == []
        privileges = mongodb_server.privileges
        if privileges is None or privileges.allows("dropDatabase"):
            assert same_shape(DATABASE_DROPPED, database.command("dropDatabase")) == []
    finally:
        mongodb_server.drop(database.name)


def test_the_lease_labkit_writes_holds_the_servers_times(fresh_db, mongodb_server):
    """The lease a fresh database gets holds the mark and host as strings, the pid as an int32
    and the server's ``$$NOW`` as dates, and its end (``$add`` of ``$$NOW`` and milliseconds)
    a date ``lease.lasts`` after its renewal, as the scripted lease documents do."""
    lease = fresh_db[servers.LEASE_COLLECTION].find_one({"_id": "lease"})
    assert lease is not None
    assert same_shape({"mark": "", "host": "", "pid": 1, "created": dt.datetime.now(dt.UTC),
                       "renewed": dt.datetime.now(dt.UTC),
                       "expires": dt.datetime.now(dt.UTC)}, lease) == []
    assert lease["mark"] == servers.mark_for(fresh_db.name)
    assert lease["expires"] - lease["renewed"] == mongodb_server.lease.lasts
    now = mongodb_server.client().admin.command("hello")["localTime"]
    assert now - lease["renewed"] < servers.STALE_AFTER
    assert servers.lease_state(lease, now, fresh_db.name) == "in use"


def test_a_refused_drop_database_has_the_scripted_shape(mongodb_server):
    """Where this server's user may not drop a database, the refusal has the scripted shape:
    13 as unauthorized() scripts it, or Atlas's 8000 as atlas_refusal() does."""
    privileges = mongodb_server.privileges
    if privileges is None or privileges.allows("dropDatabase"):
        pytest.skip("this server's user may drop databases (a readWrite-only user shows this)")
    database = mongodb_server.fresh_database("refusal")
    try:
        with pytest.raises(OperationFailure) as caught:
            database.command("dropDatabase")
        scripted = {UNAUTHORIZED: unauthorized("dropDatabase", database.name),
                    ATLAS_ERROR: atlas_refusal("dropDatabase", database.name)}.get(
                        caught.value.code)
        assert scripted is not None, f"refused with code {caught.value.code}, not 13 or 8000"
        assert same_shape(scripted, caught.value.details) == []
    finally:
        mongodb_server.drop(database.name)
