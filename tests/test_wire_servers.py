"""labkit's MongoDB server layer through real pymongo against the scripted server: discovery by
URI, versions, the cache a server reports, the fresh database with its mark and lease, the
drop and its fallbacks, and the clean-up of what killed runs left.

Each reply has the shape of the server's own: its source file in mongodb/mongo is named beside
it, here or in ``wire_replies`` (serverStatus, listDatabases, listCollections, drop,
dropDatabase, the lease's update, connectionStatus, and the clean-up's script), with the commit
the search index holds (not a release tag: where a shape could differ between 6.0, 7.0 and 8.0
the note says so, and none of these does in the fields labkit reads);
``test_wire_server_live.py`` asks a real server the same commands and compares the fields and
their BSON types (``mongo_wire.same_shape``), so the first run on a real server says whether a
script was wrong. What these tests pin is what labkit sends and what it does with each
documented reply; no verdict about MongoDB's behaviour comes from them.
"""

from __future__ import annotations

import datetime as dt
import os
import socket
import time

import pytest
from bson import Int64
from mongo_wire import (
    SERIES,
    WireServer,
    atlas_refusal,
    cursor_reply,
    error_reply,
    unauthenticated,
    unauthorized,
    update_reply,
)
from wire_replies import (
    AHEAD,
    DATABASE_DROPPED,
    LEASE_RENEWED,
    LEASE_UPSERTED,
    clock,
    collection_dropped,
    collections,
    databases,
    leases,
    script_from_uri,
    script_leftovers,
    server_status,
    started,
    status,
)

from labkit import servers
from labkit.errors import BadInput, ServerUnavailable
from labkit.servers import mongo

pytestmark = pytest.mark.wire

GB = 1024**3
# A lease renewed every 20 ms and lasting 2 s: the renewer's writes come within a test's time.
SHORT = servers.LeaseTerms(every=dt.timedelta(milliseconds=20), lasts=dt.timedelta(seconds=2))


# Discovery --------------------------------------------------------------------------------


@pytest.mark.parametrize("wire_server", SERIES, indirect=True)
def test_from_uri_reads_the_version_from_build_info(wire_server):
    """``from_uri`` pings, reads the version from ``buildInfo`` (the manual's "buildInfo"
    page; 6.0.19, 7.0.16 and 8.0.4 as each line reports it), the cache from serverStatus and
    the privileges from connectionStatus, in that order, and keeps that client."""
    script_from_uri(wire_server)
    server = mongo.from_uri(wire_server.uri)
    try:
        assert server.version == wire_server.release
        assert (server.how, server.uri) == ("uri", wire_server.uri)
        assert wire_server.commands() == ["ping", "buildinfo", "serverStatus",
                                          "connectionStatus"]
        assert wire_server.named("connectionStatus")[0]["showPrivileges"] is True
        assert server.privileges is not None
        assert server.privileges.usable
    finally:
        server.stop()


def test_a_single_uri_in_the_environment_is_the_server(wire_server, monkeypatch):
    """``LABKIT_MONGODB_URI`` holding one URI gives that server in ``uri`` mode."""
    monkeypatch.setenv("LABKIT_MONGODB_URI", wire_server.uri)
    script_from_uri(wire_server)
    with servers.get_mongodb("uri", "7.0") as server:
        assert (server.how, server.version) == ("uri", "7.0.16")
        assert server.describe().startswith("MongoDB 7.0.16 (uri: mongodb://127.0.0.1:")


@pytest.fixture
def second_wire():
    """A second scripted server, of version 8.0, for a LABKIT_MONGODB_URI listing several."""
    server = WireServer(version="8.0").start().standalone()
    yield server
    server.stop()
    assert not server.unscripted, [s.name for s in server.unscripted]


@pytest.mark.parametrize(("wanted", "found"), [("8.0", "8.0.4"), ("7.0", "7.0.16"),
                                               (None, "7.0.16")])
def test_several_uris_give_the_first_of_the_version_asked(wire_server, second_wire, monkeypatch,
                                                          wanted, found):
    """A LABKIT_MONGODB_URI of several URIs (one per version a matrix needs, white space
    between them) gives the first server whose buildInfo version is the one asked for; the
    one passed over gets no database command."""
    monkeypatch.setenv("LABKIT_MONGODB_URI", f"{wire_server.uri}  {second_wire.uri}")
    script_from_uri(wire_server)
    script_from_uri(second_wire)
    with servers.get_mongodb("uri", wanted) as server:
        assert server.version == found
    assert set(wire_server.commands()) <= {"ping", "buildinfo", "serverStatus", "connectionStatus"}


def test_several_uris_none_of_the_version_asked(wire_server, second_wire, monkeypatch):
    """Where none of the listed servers is the version asked for, the error names the versions
    found."""
    monkeypatch.setenv("LABKIT_MONGODB_URI", f"{wire_server.uri} {second_wire.uri}")
    script_from_uri(wire_server)
    script_from_uri(second_wire)
    with pytest.raises(ServerUnavailable) as caught:
        servers.get_mongodb("uri", "6.0")
    assert "None of the 2 servers in LABKIT_MONGODB_URI is version 6.0 (found 7.0.16, " \
           "8.0.4)" in str(caught.value)


def test_a_version_mismatch_is_refused_with_what_to_do(wire_server):
    """A server by URI whose version is not the one pinned is refused, naming both versions and
    how to go on, before any privilege or database is asked about."""
    with pytest.raises(ServerUnavailable) as caught:
        mongo.from_uri(wire_server.uri, "8.0")
    assert "is version 7.0.16, not 8.0." in str(caught.value.message)
    assert "unset LABKIT_MONGODB_URI" in str(caught.value.hint)
    assert wire_server.commands() == ["ping", "buildinfo"]


@pytest.mark.parametrize("preference", ["secondaryPreferred", "nearest", "secondary"])
def test_every_read_goes_to_the_primary_whatever_the_uri_prefers(wire_server, preference):
    """An experiment reads right after its own writes; a URI's readPreference=secondary… or
    nearest (analytics connection strings carry them) would send that read to a secondary that
    may not have the writes yet. labkit's clients read from the primary; against one server
    the reads are answered as before."""
    from pymongo import ReadPreference

    with mongo.mongo_client(f"{wire_server.uri}&readPreference={preference}") as client:
        assert client.read_preference == ReadPreference.PRIMARY
        assert client.admin.command("ping")["ok"] == 1.0


def test_a_uri_pymongo_refuses_is_bad_input_without_its_text():
    """A URI pymongo's parser refuses is a BadInput that does not repeat the URI (it may hold a
    password)."""
    with pytest.raises(BadInput) as caught:
        mongo.from_uri("mongodb://user:s3cret@127.0.0.1:notaport/")
    assert "s3cret" not in str(caught.value)


@pytest.fixture
def closed(monkeypatch):
    """One ``True`` for each client labkit's ``mongo_client`` made and then closed."""
    closes: list[bool] = []
    real = mongo.mongo_client

    def watched(uri, **options):
        client = real(uri, **options)
        closing = client.close
        client.close = lambda: (closes.append(True), closing())[1]
        return client

    monkeypatch.setattr(mongo, "mongo_client", watched)
    return closes


def test_a_server_81_on_that_tells_its_version_only_to_a_user_is_said_so(wire_server, closed):
    """From 8.1 ``buildInfo`` needs an authenticated user (buildInfoAuthMode, default
    kRequiresAuth, in src/mongo/db/commands/buildinfo_common.cpp, commit 1c287af4;
    SERVER-90284): a URI without credentials gets ping's ok and then ``unauthenticated``'s
    code 13. That is said as such, with what to put in the URI, not as a server that "did not
    answer"; and the client is closed (its monitor threads end)."""
    wire_server.on("buildInfo", unauthenticated("buildInfo"))
    with pytest.raises(ServerUnavailable) as caught:
        mongo.from_uri(wire_server.uri)
    assert str(caught.value.message).startswith(
        f"The MongoDB server at {wire_server.uri} answers, but tells its version only to an "
        "authenticated user, and the URI names none: Command buildInfo requires authentication "
        "(code 13)")
    assert str(caught.value.hint).startswith("Hint: put a user's name and password in "
                                             "LABKIT_MONGODB_URI")
    assert closed == [True]


def test_a_server_that_does_not_answer_leaves_no_client_open(wire_server, closed):
    """A server whose ping is refused (here by a hang-up) is a ServerUnavailable, and the
    client made for it is closed, so that a lesson or a list of URIs trying again does not
    leave pymongo's monitor threads behind."""
    wire_server.on("ping", hangup=True)
    with pytest.raises(ServerUnavailable, match="did not answer"):
        mongo.from_uri(wire_server.uri + "&serverSelectionTimeoutMS=300&socketTimeoutMS=300")
    assert closed == [True]


def test_a_srv_name_the_dns_does_not_know_is_said_so_not_called_invalid(monkeypatch):
    """pymongo raises every failed DNS look-up of a mongodb+srv:// name as a ConfigurationError
    of the resolver's text (pymongo/synchronous/srv_resolver.py, ``_resolve_uri``), dnspython's
    error its cause: labkit says the name could not be found, with the resolver's words and no
    password, where it said the URI was not valid. The look-up is dnspython's own, given its
    NXDOMAIN (this machine reaches no DNS server)."""
    import dns.resolver

    def no_such_name(*args, **kwargs):
        raise dns.resolver.NXDOMAIN(qnames=[dns.name.from_text(
            "_mongodb._tcp.cluster0.abcde.mongodb.net")])

    monkeypatch.setattr(dns.resolver, "resolve", no_such_name)
    with pytest.raises(ServerUnavailable) as caught:
        mongo.from_uri("mongodb+srv://alice:Zq9w@cluster0.abcde.mongodb.net/")
    message = str(caught.value)
    assert "could not be found: the DNS look-up of its mongodb+srv:// name failed: The DNS " \
           "query name does not exist: _mongodb._tcp.cluster0.abcde.mongodb.net." in message
    assert "Zq9w" not in message
    assert "Hint: check the host name" in message
    with pytest.raises(BadInput):  # a refusal of the parser's own stays what it was
        mongo.from_uri("mongodb+srv://alice:Zq9w@cluster0.abcde.mongodb.net:27017/")


@pytest.mark.parametrize(("uri_options", "kept"), [("", 5.0),
                                                   ("&serverSelectionTimeoutMS=2500", 2.5)])
def test_the_client_kept_for_a_uri_has_its_own_or_the_normal_timeout(wire_server, uri_options,
                                                                      kept):
    """The client labkit keeps for a server by URI selects with the URI's own
    serverSelectionTimeoutMS, or 5 s where it sets none (never discovery's one second)."""
    script_from_uri(wire_server)
    with mongo.from_uri(wire_server.uri + uri_options) as server:
        assert server.client().options.server_selection_timeout == kept


@pytest.mark.parametrize(("uri_options", "kept"), [("", 300.0), ("&socketTimeoutMS=300", 0.3)])
def test_the_client_waits_for_a_reply_at_most_its_socket_timeout(wire_server, uri_options, kept):
    """pymongo waits for a reply forever unless told otherwise; labkit's client gives up after
    five minutes (far above its slowest command), or after the URI's own socketTimeoutMS."""
    script_from_uri(wire_server)
    with mongo.from_uri(wire_server.uri + uri_options) as server:
        assert server.client().options.pool_options.socket_timeout == kept


def test_a_server_that_stops_answering_is_one_error_within_the_socket_timeout(wire_server):
    """A server that takes a command and never replies (a rule answering after 5 s, past the
    URI's socketTimeoutMS of 300 ms) costs the call one labkit error naming the server, never a
    wait without end nor pymongo's traceback."""
    script_from_uri(wire_server)
    with mongo.from_uri(wire_server.uri + "&socketTimeoutMS=300") as server:
        wire_server.on("listDatabases", databases(), delay=5.0)
        began = time.monotonic()
        with pytest.raises(ServerUnavailable) as caught:
            server.clean_stale()
        assert time.monotonic() - began < 4.0
    assert "failed while labkit looked for what killed runs left" in str(caught.value)
    assert "timed out" in str(caught.value)


# The cache a server reports ----------------------------------------------------------------


OWN = "the server's own setting"
UNREADABLE = "WiredTiger cache: the server's own setting (not readable: {why}); labkit did not " \
             "start this server"


@pytest.mark.parametrize(("reply", "gb", "words"), [
    (server_status(256 * 1024**2), 0.25,
     f"WiredTiger cache 0.25 GB ({OWN}; labkit did not start this server)"),
    (server_status(Int64(8 * GB)), 8.0,
     f"WiredTiger cache 8 GB ({OWN}; labkit did not start this server)"),
    (unauthorized("serverStatus"), None, None),
    (atlas_refusal("serverStatus", "cluster"), None, None),
    (server_status(None), None,
     UNREADABLE.format(why="serverStatus has no wiredTiger.cache section")),
])
def test_the_cache_report_from_server_status(wire_server, reply, gb, words):
    """The cache a server by URI reports is read from serverStatus's
    ``wiredTiger.cache["maximum bytes configured"]`` (int32 or int64 as its size needs); a
    refusal (13, or Atlas's 8000) is said with the server's own message and code, and a
    missing section is said, never an error."""
    wire_server.on("serverStatus", reply)
    wire_server.on("connectionStatus", status("root"))
    if words is None:
        words = UNREADABLE.format(why=f"{reply['errmsg']} (code {reply['code']})")
    with mongo.from_uri(wire_server.uri) as server:
        assert server.cache_gb == gb
        assert str(server.cache) == words
        assert server.describe().endswith(f"; {words})")


# The fresh database: its mark and lease ------------------------------------------------------


def test_the_fresh_database_gets_its_mark_and_lease_in_one_upsert(wire_server):
    """A new database's first write is one ``update`` of ``labkit_lease``: ``_id: "lease"``,
    upsert, and a pipeline ``$set`` of the mark, host, pid (an int32), the server's ``$$NOW``
    for both times and the lease's end, ``$$NOW`` and 30 minutes in milliseconds (``$add`` of
    a date and a number is a date: the manual's "$add (aggregation)" page), so the lease's
    clock is the server's."""
    wire_server.on("update", LEASE_UPSERTED)
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    server = started(wire_server)
    database = server.fresh_database("wire")
    try:
        assert database.name.startswith("labkit_wire_")
        [update] = wire_server.named("update")
        assert (update.db, update["update"], update["ordered"]) == (
            database.name, "labkit_lease", True)
        [statement] = update["updates"]
        assert statement["q"] == {"_id": "lease"}
        assert (statement["upsert"], statement["multi"]) == (True, False)
        assert statement["u"] == [{"$set": {
            "mark": servers.mark_for(database.name), "host": socket.gethostname(),
            "pid": os.getpid(), "created": "$$NOW", "renewed": "$$NOW",
            "expires": {"$add": ["$$NOW", 30 * 60 * 1000]}}}]
        assert type(statement["u"][0]["$set"]["pid"]) is int  # int32, not int64
    finally:
        server.stop()
    assert wire_server.commands() == ["update", "dropDatabase"]
    assert wire_server.named("dropDatabase")[0].db == database.name


def test_the_renewer_renews_the_lease_with_the_servers_clock(wire_server):
    """The renewer's write is an ``update`` of the lease only (no upsert: a dropped database is
    not made again) setting ``renewed`` to ``$$NOW`` and the end ``lasts`` past it; it stops
    with the server."""
    wire_server.on("update", LEASE_UPSERTED, times=1)
    wire_server.on("update", LEASE_RENEWED, match=lambda sent: not sent["updates"][0]["upsert"])
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    server = started(wire_server)
    server.lease = SHORT
    database = server.fresh_database("wire")
    deadline = time.monotonic() + 2
    while len(wire_server.named("update")) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.stop()
    renewal = wire_server.named("update")[1]
    assert renewal.db == database.name
    assert renewal["updates"] == [{"q": {"_id": "lease"}, "u": [{"$set": {
        "renewed": "$$NOW", "expires": {"$add": ["$$NOW", 2000]}}}],
        "multi": False, "upsert": False}]
    after = len(wire_server.named("update"))
    time.sleep(0.1)
    assert len(wire_server.named("update")) == after  # stopped


def _renewals(wire_server: WireServer, count: int, timeout: float = 3.0) -> None:
    """Wait until the renewer has sent ``count`` renewals (updates without upsert)."""
    deadline = time.monotonic() + timeout
    while sum(not s["updates"][0]["upsert"] for s in wire_server.named("update")) < count:
        assert time.monotonic() < deadline, f"fewer than {count} renewals in {timeout} s"
        time.sleep(0.01)


def _until_lost(server: servers.Server, timeout: float = 3.0) -> None:
    """Wait until the renewer has read the reply that loses the lease: the scripted server
    records a renewal when it arrives, and the renewer's thread reads the reply a moment later."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            server.check_lease()
        except ServerUnavailable:
            return
        assert time.monotonic() < deadline, f"the lease was not lost in {timeout} s"
        time.sleep(0.01)


def test_a_renewal_that_matches_no_lease_loses_it_and_the_run_says_so(wire_server):
    """A renewal whose update matches nothing (``n: 0``: the database or its lease was dropped,
    as by a clean-up) loses the lease: the run's work ends with one ``ServerUnavailable``
    naming the database, the next database is refused, and no renewal follows."""
    wire_server.on("update", LEASE_UPSERTED, times=1)
    wire_server.on("update", update_reply(0, 0),
                   match=lambda sent: not sent["updates"][0]["upsert"])
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    server = started(wire_server)
    server.lease = SHORT
    name = server.fresh_database("wire").name
    try:
        _renewals(wire_server, 1)
        _until_lost(server)
        with pytest.raises(ServerUnavailable) as caught, server.working():
            pass  # the work went well, but its database was dropped under it
        # (As an error keeps it: where the session's DSN password is "labkit", as CI's is, that
        # word shows as ***.)
        assert str(caught.value.message).startswith(servers.redact(f"This run's database {name} "
                                                                   "on "))
        assert "lost its lease: the database or its lease was dropped" in str(caught.value.message)
        with pytest.raises(ServerUnavailable, match="lost its lease"):
            server.fresh_database("next")
        sent = len(wire_server.named("update"))
        time.sleep(0.1)
        assert len(wire_server.named("update")) == sent  # a lost lease is never renewed again
    finally:
        server.stop()
    assert [s.db for s in wire_server.named("dropDatabase")] == [name]


def test_renewals_that_fail_until_the_lease_runs_out_lose_it(wire_server):
    """Renewals that all fail (the server hangs up on each) cost nothing until the lease has
    run out; then the run says it was not renewed for that long, with the last failure."""
    # A renewal the server hung up on waits for pymongo's monitor to find the server again
    # (half a second at least), so the lease lasts long enough for one to fail before it ends.
    terms = servers.LeaseTerms(every=dt.timedelta(milliseconds=20),
                               lasts=dt.timedelta(milliseconds=1500))
    wire_server.on("update", LEASE_UPSERTED, times=1)
    wire_server.on("update", hangup=True, match=lambda sent: not sent["updates"][0]["upsert"])
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    server = started(wire_server)
    server.lease = terms
    made = time.monotonic()
    name = server.fresh_database("wire").name
    try:
        _renewals(wire_server, 1)
        server.check_lease()  # a failed renewal, the lease not run out: the run goes on
        time.sleep(max(0.0, made + 1.6 - time.monotonic()))
        with pytest.raises(ServerUnavailable) as caught:
            server.check_lease()
        assert str(caught.value.message).startswith(servers.redact(f"This run's database {name} "
                                                                   "on "))
        assert "lost its lease: it was not renewed for 1.5 s (AutoReconnect: " in \
            str(caught.value.message)
        assert str(caught.value.message).endswith(servers.redact("so `labkit clean` may drop it."))
    finally:
        server.stop()


def test_a_connection_lost_during_the_work_is_one_server_unavailable(wire_server):
    """pymongo's ``AutoReconnect`` (the server hung up) inside ``working`` ends as one
    ``ServerUnavailable`` naming the server and what the driver said; a refusal
    (``OperationFailure``) stays the engine's own error."""
    from pymongo.errors import OperationFailure

    wire_server.on("update", LEASE_UPSERTED, times=1)
    wire_server.on("update", LEASE_RENEWED, match=lambda sent: not sent["updates"][0]["upsert"])
    wire_server.on("insert", hangup=True)
    wire_server.on("find", error_reply(50, "operation exceeded time limit", "MaxTimeMSExpired"))
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    server = started(wire_server)
    database = server.fresh_database("wire")
    try:
        with pytest.raises(ServerUnavailable) as caught, server.working():
            database.t.insert_one({"_id": 1})
        assert str(caught.value.message).startswith(f"The MongoDB server at {wire_server.uri} "
                                                    "failed during the run's work on it: ")
        assert "Hint: check that it is running and reachable" in str(caught.value)
        with pytest.raises(OperationFailure), server.working():
            database.t.find_one()
    finally:
        server.stop()


def test_clean_stale_judges_a_lease_by_its_end(wire_server):
    """A lease holding an end (``expires``) is judged by it against the server's clock: renewed
    long ago but ending later is in use, renewed a moment ago but ended is stale (a run with a
    short lease that stopped renewing)."""
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    clock(wire_server, now)
    later, ended = "labkit_later_0008", "labkit_ended_0009"
    documents = {
        later: {"_id": "lease", "mark": servers.mark_for(later), "renewed": now - AHEAD,
                "expires": now + dt.timedelta(minutes=1)},
        ended: {"_id": "lease", "mark": servers.mark_for(ended), "renewed": now,
                "expires": now - dt.timedelta(seconds=1)}}
    wire_server.on("listDatabases", databases(*documents))
    wire_server.on("find", lambda sent: cursor_reply(f"{sent.db}.labkit_lease",
                                                     [documents[sent.db]]))
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    server = started(wire_server)
    found = server.clean_stale()
    server.stop()
    assert (found.removed, found.in_use) == ([ended], [later])


def test_labkit_clean_cleans_every_server_labkit_mongodb_uri_lists(wire_server, second_wire,
                                                                   monkeypatch):
    """LABKIT_MONGODB_URI may list a server per version: ``labkit clean`` cleans each, one
    report row per server, where it found the first, as a run without a version does, and left
    the others' stale databases (each server's lease ended a second ago, by its own clock)."""
    monkeypatch.delenv("LABKIT_POSTGRES_DSN", raising=False)
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    for server, name in ((wire_server, "labkit_old_0001"), (second_wire, "labkit_old_0002")):
        script_from_uri(server)
        clock(server, now)
        lease = {"_id": "lease", "mark": servers.mark_for(name), "renewed": now - AHEAD,
                 "expires": now - dt.timedelta(seconds=1)}
        server.on("listDatabases", databases(name))
        server.on("find", lambda sent, lease=lease: cursor_reply(f"{sent.db}.labkit_lease",
                                                                 [lease]))
        server.on("dropDatabase", DATABASE_DROPPED)
    monkeypatch.setenv("LABKIT_MONGODB_URI", f"{wire_server.uri} {second_wire.uri}")
    report = servers.clean_user_servers()
    assert [row["removed"] for row in report] == [["labkit_old_0001"], ["labkit_old_0002"]]
    assert [str(row["engine"]) for row in report] == ["MongoDB", "MongoDB"]
    assert len({row["server"] for row in report}) == 2
    assert wire_server.named("dropDatabase")[0].db == "labkit_old_0001"
    assert second_wire.named("dropDatabase")[0].db == "labkit_old_0002"


# Drop and its fallbacks ------------------------------------------------------------------------


def test_drop_is_one_drop_database(wire_server):
    """Dropping a database this run made is one ``dropDatabase`` on it, nothing else."""
    wire_server.on("update", LEASE_UPSERTED)
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    server = started(wire_server)
    name = server.fresh_database("wire").name
    server.drop(name)
    assert wire_server.commands()[1:] == ["dropDatabase"]
    assert wire_server.named("dropDatabase")[0].db == name
    assert server.left == {}
    server.stop()


REFUSALS = {13: lambda db: unauthorized("dropDatabase", db),
            8000: lambda db: atlas_refusal("dropDatabase", f"{db}.")}


@pytest.mark.parametrize("code", [13, 8000])
def test_a_refused_drop_database_falls_back_to_its_collections(wire_server, code):
    """Where dropDatabase is refused, with 13 (Unauthorized) or Atlas's 8000 (AtlasError), the
    database's collections are listed and dropped one by one, the lease last, and nothing is
    left (before, 8000 left the whole database behind)."""
    wire_server.on("update", LEASE_UPSERTED)
    wire_server.on("dropDatabase", lambda sent: REFUSALS[code](sent.db))
    wire_server.on("listCollections", lambda sent: collections(sent.db, "labkit_lease", "t", "a"))
    wire_server.on("drop", collection_dropped())
    server = started(wire_server)
    name = server.fresh_database("wire").name
    server.drop(name)
    assert wire_server.commands()[1:] == ["dropDatabase", "listCollections", "drop", "drop", "drop"]
    assert [s["drop"] for s in wire_server.named("drop")] == ["t", "a", "labkit_lease"]
    assert {s.db for s in wire_server.sent[1:]} == {name}
    assert server.left == {}
    server.stop()


def test_a_drop_database_failing_otherwise_is_no_refusal(wire_server):
    """A dropDatabase failing with a code that is not a refusal (11600, InterruptedAtShutdown,
    src/mongo/base/error_codes.yml) is not taken for one: no collection is dropped one by one,
    and the failure is recorded in ``left``, never raised."""
    wire_server.on("update", LEASE_UPSERTED)
    wire_server.on("dropDatabase", error_reply(11600, "interrupted at shutdown",
                                               "InterruptedAtShutdown"))
    server = started(wire_server)
    name = server.fresh_database("wire").name
    server.drop(name)
    assert wire_server.commands()[1:] == ["dropDatabase"]
    assert "interrupted at shutdown" in server.left[name]
    server.stop()


def test_refused_codes_have_one_home():
    """The codes that mean "this user may not" are 13 and 8000, in one place labkit reads."""
    from pymongo.errors import OperationFailure

    assert servers.REFUSED == (13, 8000)
    assert servers.refused(OperationFailure("x", 8000))
    assert servers.refused(OperationFailure("x", 13))
    assert not servers.refused(OperationFailure("x", 11600))  # InterruptedAtShutdown
    assert not servers.refused(ValueError())


def test_a_user_without_drop_database_drops_the_collections_directly(wire_server):
    """A user whose privileges lack dropDatabase (readWriteAnyDatabase, builtin_roles.yml) is
    not made to be refused first: the collections are dropped, the lease last."""
    wire_server.on("update", LEASE_UPSERTED)
    wire_server.on("listCollections", lambda sent: collections(sent.db, "labkit_lease", "t"))
    wire_server.on("drop", collection_dropped())
    server = started(wire_server, status("readWriteAnyDatabase"))
    name = server.fresh_database("wire").name
    server.drop(name)
    assert wire_server.commands()[1:] == ["listCollections", "drop", "drop"]
    assert [s["drop"] for s in wire_server.named("drop")] == ["t", "labkit_lease"]
    server.stop()


@pytest.mark.parametrize("code", [13, 8000])
def test_a_refused_collection_drop_is_said_not_raised(wire_server, code):
    """A collection whose drop is refused too stays, and the run says which and why
    (``CleanupIncomplete``, kept in ``left``); the lease is still dropped last, never first."""
    wire_server.on("update", LEASE_UPSERTED)
    wire_server.on("dropDatabase", lambda sent: REFUSALS[code](sent.db))
    wire_server.on("listCollections", lambda sent: collections(sent.db, "labkit_lease", "t"))
    wire_server.on("drop", collection_dropped())
    wire_server.on("drop", lambda sent: (unauthorized("drop", sent.db) if code == 13
                                  else atlas_refusal("dropCollection", f"{sent.db}.t")),
            match=lambda sent: sent["drop"] == "t")
    server = started(wire_server)
    name = server.fresh_database("wire").name
    server.drop(name)
    assert [s["drop"] for s in wire_server.named("drop")] == ["t", "labkit_lease"]
    assert server.left[name].startswith(f"{name}: left t (dropDatabase is not allowed and ")
    server.stop()


# What killed runs left ----------------------------------------------------------------------


def test_clean_stale_sorts_what_killed_runs_left_by_the_servers_clock(wire_server):
    """``clean_stale`` reads the server's clock (hello's localTime), lists the databases, reads
    the lease of each ``labkit_`` one only, and drops only the stale one whose mark proves;
    the one in use is kept, the unmarked untouched, the forged and the undated left and said,
    the unreadable skipped with the server's refusal."""
    script_leftovers(wire_server)
    server = started(wire_server)
    found = server.clean_stale()
    assert found.removed == ["labkit_stale_0001"]
    assert found.in_use == ["labkit_inuse_0002"]
    assert set(found.unproven) == {"labkit_forged_0004", "labkit_undated_0005"}
    assert str(found.unproven["labkit_undated_0005"]) == "its lease's renewal time is not a date"
    assert str(found.skipped["labkit_unreadable_0006"]).startswith(
        "could not drop it: OperationFailure: not authorized on labkit_unreadable_0006 to "
        "execute command { find: 1")
    assert wire_server.commands()[:2] == ["hello", "listDatabases"]
    assert {s.db for s in wire_server.named("find")} == {*leases(dt.datetime.now(dt.UTC)),
                                                 "labkit_unreadable_0006"}
    for sent in wire_server.named("find"):
        assert (sent["filter"], sent["limit"]) == ({"_id": "lease"}, 1)
    assert [s.db for s in wire_server.named("dropDatabase")] == ["labkit_stale_0001"]
    server.stop()


def test_a_stale_database_this_user_may_not_drop_is_skipped_with_why(wire_server):
    """A stale database of labkit's whose drop and collection drops are refused is kept and
    listed in ``skipped`` with what stayed and the server's refusal, not raised."""
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    clock(wire_server, now + AHEAD)
    name = "labkit_stale_0007"
    wire_server.on("listDatabases", databases(name))
    wire_server.on("find", cursor_reply(f"{name}.labkit_lease", [
        {"_id": "lease", "mark": servers.mark_for(name), "renewed": now}]))
    wire_server.on("dropDatabase", atlas_refusal("dropDatabase", f"{name}."))
    wire_server.on("listCollections", collections(name, "labkit_lease"))
    wire_server.on("drop", atlas_refusal("dropCollection", f"{name}.labkit_lease"))
    server = started(wire_server)
    found = server.clean_stale()
    server.stop()
    assert found.removed == []
    assert str(found.skipped[name]).startswith("left labkit_lease: dropDatabase is not allowed and "
                                          "user is not allowed to do action [dropCollection]")


def test_the_first_fresh_database_on_a_users_server_cleans_first(wire_server):
    """On a server by URI, the first fresh database runs the clean-up before its own lease is
    written, and the database it creates is never taken for a leftover."""
    script_from_uri(wire_server)
    clock(wire_server, dt.datetime.now(dt.UTC))
    wire_server.on("listDatabases", databases())
    wire_server.on("update", LEASE_UPSERTED)
    wire_server.on("dropDatabase", DATABASE_DROPPED)
    with mongo.from_uri(wire_server.uri) as server:
        server.fresh_database("wire")
        server.fresh_database("wire")
    assert wire_server.commands()[4:] == ["hello", "listDatabases", "update", "update",
                                   "dropDatabase", "dropDatabase"]


def test_the_servers_docs_promise_no_cache_churn_at_the_defaults():
    """The server layer's docs say what a mongod labkit starts gets, the smallest cache mongod
    accepts (0.25 GB), and no longer that it "shows cache churn": a 200,000-key UUID _id index
    is a few MB, far inside that cache. (A check of prose, beside the wire tests.)"""
    for doc in (servers.__doc__, mongo.__doc__):
        assert doc is not None
        assert "shows cache churn" not in " ".join(doc.split())
        assert "0.25 GB" in doc
    assert servers.DEFAULT_CACHE_GB == servers.MIN_CACHE_GB == 0.25


def test_a_refusal_reads_as_the_servers_own_words_on_one_line(wire_server):
    """A refusal reaching a verdict row or an error line (``errors.one_line``) is the server's
    errmsg and code, not pymongo's text, which appends the whole reply (``full error: {...}``)
    to it."""
    from pymongo.errors import OperationFailure

    from labkit.errors import one_line

    wire_server.on("find", unauthorized("find", db="labkit_x"))
    with mongo.mongo_client(wire_server.uri) as client, \
            pytest.raises(OperationFailure) as caught:
        client.labkit_x.t.find_one()
    assert "full error" in str(caught.value)
    line = one_line(caught.value)
    assert line.startswith("OperationFailure: not authorized on labkit_x to execute command")
    assert line.endswith("(code 13)")
    assert "full error" not in line
    assert "\n" not in line


@pytest.mark.parametrize(("reply", "said"), [
    # src/mongo/base/error_codes.yml: 18 AuthenticationFailed, the reply to a saslStart whose
    # user or password is wrong (the server says no more, on purpose).
    (error_reply(18, "Authentication failed.", "AuthenticationFailed"),
     "Authentication failed. (code 18)"),
    # Atlas's proxy answers a wrong password with 8000 (no authoritative source; users' reports
    # quote "bad auth : Authentication failed.").
    (error_reply(8000, "bad auth : Authentication failed.", "AtlasError"),
     "bad auth : Authentication failed. (code 8000)"),
])
def test_refused_credentials_are_said_as_such_not_as_a_server_that_did_not_answer(
        wire_server, reply, said):
    """A URI whose user or password the server refuses (pymongo's saslStart answered with 18,
    or Atlas's 8000 naming auth) is one error saying the credentials were refused, with what
    to check, never "did not answer … check that it is running", and no password shown."""
    wire_server.on("saslStart", reply)
    uri = f"mongodb://labkit:s3cret@127.0.0.1:{wire_server.port}/?directConnection=true"
    with pytest.raises(ServerUnavailable) as caught:
        mongo.from_uri(uri)
    text = str(caught.value)
    assert "refused the URI's credentials: " + said in text
    assert "did not answer" not in text
    assert text.splitlines()[-1].startswith("Hint: check the user name, the password and "
                                             "authSource")
    assert "s3cret" not in text
    assert wire_server.commands() == ["saslStart"]
    assert wire_server.named("saslStart")[0]["mechanism"].startswith("SCRAM-SHA-")


def test_a_server_that_cannot_be_reached_is_said_without_the_drivers_topology_dump():
    """Where no server answers, pymongo's error ends with its whole view of the topology
    (", Topology Description: <TopologyDescription …>", pymongo/synchronous/topology.py); the
    one line labkit shows keeps what went wrong and how long it waited, not that dump."""
    with pytest.raises(ServerUnavailable) as caught:
        mongo.from_uri("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200")
    text = str(caught.value)
    assert "did not answer: 127.0.0.1:1: " in text
    assert "Timeout: 0.2s" in text
    assert "Topology Description" not in text
    assert "TopologyDescription" not in text
