"""The B-tree load on MongoDB (``engines.btree_mongodb``, through ``MongoTree.load`` and
``btree.measurement("mongodb", ...)``) spoken to over the wire: labkit's unmodified code,
through real pymongo, against MockupDB answering as a mongod would (``mongo_wire``).

What a test here pins is what labkit sends (the command sequence, each document's BSON types)
and what it makes of each documented reply shape. Every number in the scripted replies is made
up by the script below (bytes per key, split counts, operation counts): a verdict computed here
exercises labkit's verdict logic on those made-up numbers and says nothing about MongoDB's
behaviour; the verdicts themselves stay live-only (``tests/test_btree_keys.py``, marked
``mongodb``). The live tests at the end ask a real server the same commands and compare the
fields and types of its replies with the scripted ones.

Where the reply shapes come from (mongodb/mongo and wiredtiger/wiredtiger as stored by the
search index; not checked tag by tag, so the live tests are the check per release):

- ``$collStats`` with ``storageStats``: the manual's "$collStats (aggregation)" page (one
  document ``{ns, host, localTime, storageStats}``); ``src/mongo/db/stats/storage_stats.cpp``
  (``appendCollectionStorageStats``: ``size``, ``count``, ``storageSize``, the record store's
  ``wiredTiger`` section, ``nindexes``, ``indexDetails``, ``indexBuilds``, ``totalIndexSize``,
  ``indexSizes``, ``scaleFactor``); each ``indexDetails`` entry is
  ``src/mongo/db/storage/wiredtiger/wiredtiger_index.cpp``'s ``appendCustomStats``
  (``metadata``, ``creationString``, ``type``, then ``WiredTigerUtil::exportTableToBSON``: the
  statistics cursor's ``"group: name"`` descriptions as ``{group: {name: value}}``). The
  statistic names are WiredTiger's ``dist/stat_data.py`` (``BlockStat('block_size', 'file size
  in bytes')``, ``CacheStat('cache_inmem_split', 'in-memory page splits')``...).
- ``serverStatus``: the manual's "serverStatus" page (``opcounters``, ``connections``,
  ``wiredTiger``); ``wiredTiger`` is ``wiredtiger_server_status.cpp``'s section over the
  connection's statistics cursor in "fast" mode, same names (``LogStat('log_bytes_written',
  'log bytes written')``, ``BlockStat('block_byte_write', 'bytes written')``,
  ``CacheStat('cache_read', 'pages read into cache')``, ``CacheStat('cache_bytes_max',
  'maximum bytes configured')``).
- Numbers: a statistic is appended with ``BSONObjBuilder::appendNumber(long long)``, an int32
  where it fits and an int64 beyond (src/mongo/bson/bsonobjbuilder.h, 4.4 and later;
  ``mongo_wire.appended_number``): WiredTiger's (wiredtiger_util.cpp, exportTableToBSON) and
  ``indexSizes`` (collection_impl.cpp, getIndexSize); ``opcounters`` are int64 on every
  version here, whatever their size (SERVER-14364, 4.2; src/mongo/db/stats/counters.cpp at
  02502cf9, OpCounters::getObj appends each as a long long), so the live tests compare a
  statistic's width through appended_number and the counters' strictly.

Where 6.0, 7.0 and 8.0 differ for this load: not in the names read here. What moved between
releases is where an aggregation is counted in ``opcounters`` (a command, then a query,
SERVER-66495; an ``aggregate`` counter of its own, SERVER-123987): labkit sends none between its
two readings, and ``test_where_an_aggregation_is_counted_does_not_mark_the_load`` runs each way.
Every version before 8.3 reads index statistics in "fast" mode, so the tree-walk counters
(``btree: row-store leaf pages``...) are 0 (SERVER-111573): the scripts give those zeros, and
labkit reports no leaf pages and no fill for mongod.
"""

from __future__ import annotations

import datetime as dt
import math
import uuid

import mongo_wire
import pytest
from bson import Binary, Int64, ObjectId, Timestamp
from helpers import serverless_loads_once
from mongo_wire import (
    ATLAS_ERROR,
    SERIES,
    UNAUTHORIZED,
    appended_number,
    cursor_reply,
    inserted,
    same_shape,
)
from wire_replies import (
    DATABASE_DROPPED,
    LEASE_UPSERTED,
    OWN_DATABASES,
    collection_dropped,
    collections,
    server_status,
    status,
)

from labkit.engines import btree, btree_engine, btree_mongodb, btree_wiredtiger
from labkit.errors import ServerUnavailable
from labkit.experiments import catalogue as claims
from labkit.outputs import btree_table
from labkit.run import runner
from labkit.servers import mongo

pytestmark = pytest.mark.wire

N = 300
SMALLEST_CACHE = 268_435_456  # 0.25 GB: "maximum bytes configured" of a mongod at the minimum

# The script's made-up figures, per key kind (none of them is MongoDB's): index bytes per key,
# block-manager bytes written per key, in-memory and eviction splits per key.
INDEX_PER_KEY = {"uuid4": 48, "uuid7": 36, "objectid": 28, "int": 20}
BLOCK_PER_KEY = {"uuid4": 300, "uuid7": 110, "objectid": 100, "int": 90}
LOG_PER_KEY = 120
IN_MEMORY_EVERY = {"uuid4": 300, "uuid7": 30, "objectid": 30, "int": 30}
EVICTION_EVERY = {"uuid4": 20, "uuid7": 10**9, "objectid": 10**9, "int": 10**9}
RESERVED = 8192  # "file bytes available for reuse" in every scripted index file


def load(kind: str, n: int, server: mongo.MongoServer, **settings: object
         ) -> btree_mongodb.MongoLoad:
    """One load into ``server`` (``MongoTree.load``), made with ``Settings(**settings)``."""
    return btree.ENGINES["mongodb"].load(kind, n, btree_engine.Settings(**settings), server)


# The creation strings of a standalone's tables (the shape of ``metadata:create``; a replica
# set's user tables say ``log=(enabled=false)``: wiredtiger_util.cpp, useTableLogging).
INDEX_CONFIG = ("access_pattern_hint=none,allocation_size=4KB,app_metadata=(formatVersion=8),"
                "block_allocation=best,block_compressor=,checksum=on,format=btree,"
                "internal_page_max=16k,key_format=u,leaf_page_max=16k,log=(enabled={log}),"
                "prefix_compression=true,split_pct=90,type=file,value_format=u")
TABLE_CONFIG = ("access_pattern_hint=none,allocation_size=4KB,app_metadata=(formatVersion=1),"
                "block_allocation=best,block_compressor=snappy,checksum=on,format=btree,"
                "internal_page_max=4KB,key_format=q,leaf_page_max=32KB,log=(enabled={log}),"
                "split_pct=90,type=file,value_format=u")

# A user who may do all the load asks: the database actions, fsync (hostManager's), serverStatus
# (clusterMonitor's) and dropDatabase (dbAdminAnyDatabase's), as builtin_roles.yml grants them.
ROOTISH = ("readWriteAnyDatabase", "dbAdminAnyDatabase", "clusterMonitor", "hostManager")


class Mongod:
    """The rules of a scripted mongod for the B-tree load on ``wire``. Its state is what labkit
    sent so far (the documents inserted in each database, the commands), so each reading of a
    counter follows labkit's own work; ``others`` adds other clients' operations, so many more
    at each ``serverStatus``. ``refuse`` names the commands refused with ``refusal``."""

    def __init__(self, wire, *, privileges: dict | None = None, refuse: tuple[str, ...] = (),
                 refusal: int = UNAUTHORIZED, logged: bool | None = True,
                 aggregate_as: str = "query", others: dict[str, int] | None = None,
                 cache_bytes: int = SMALLEST_CACHE, replica_set: bool = False) -> None:
        self.wire, self.refusal, self.logged = wire, refusal, logged
        self.replica_set = replica_set
        self.aggregate_as, self.others, self.cache_bytes = aggregate_as, others or {}, cache_bytes
        self.collections: dict[str, set[str]] = {}
        wire.on("connectionStatus", status(*ROOTISH) if privileges is None else privileges)
        wire.on("listDatabases", OWN_DATABASES)  # labkit's clean-up reads it
        wire.on("update", self._update)
        wire.on("listCollections", self._list_collections)
        wire.on("create", self._create)
        wire.on("insert", inserted)
        # fsync without lock: {numFiles, ok} (the manual's "fsync"; src/mongo/db/commands/
        # fsync.cpp appends numFiles).
        wire.on("fsync", {"numFiles": 1, "ok": 1.0})
        wire.on("dropDatabase", self._drop_database)
        wire.on("drop", self._drop)
        wire.on("aggregate", self._coll_stats)
        wire.on("serverStatus", self._server_status)
        for name in refuse:
            wire.on(name, self._refused(name))

    # What the script keeps -----------------------------------------------------------------

    def _refused(self, name: str) -> dict:
        if self.refusal == ATLAS_ERROR:
            return mongo_wire.atlas_refusal(name, "admin")
        if self.refusal == mongo_wire.COMMAND_NOT_FOUND:  # a server without the command
            return mongo_wire.command_not_found(name)
        return mongo_wire.unauthorized(name)

    def _update(self, sent):
        self.collections.setdefault(sent.db, set()).add(sent["update"])
        return LEASE_UPSERTED  # the load's one update is its database's lease

    def _list_collections(self, sent):
        wanted = (sent.get("filter") or {}).get("name")
        return collections(sent.db, *sorted(n for n in self.collections.get(sent.db, ())
                                            if wanted in (None, n)))

    def _create(self, sent):
        self.collections.setdefault(sent.db, set()).add(sent["create"])
        return {"ok": 1.0}

    def _drop_database(self, sent):
        self.collections.pop(sent.db, None)
        return DATABASE_DROPPED

    def _drop(self, sent):
        self.collections.get(sent.db, set()).discard(sent["drop"])
        return collection_dropped(f"{sent.db}.{sent['drop']}")

    def inserted(self, db: str | None = None) -> int:
        """Documents labkit inserted so far (into ``db``, if given)."""
        return sum(len(s["documents"]) for s in self.wire.named("insert")
                   if db is None or s.db == db)

    @staticmethod
    def kind(db: str) -> str:
        """The key kind of one of labkit's B-tree databases (``labkit_btree_<kind>_<hex>``)."""
        return db.split("_")[2]

    def _loads(self) -> dict[str, int]:
        return {db: self.inserted(db) for db in {s.db for s in self.wire.named("insert")}}

    # $collStats ------------------------------------------------------------------------------

    def _coll_stats(self, sent):
        docs, kind = self.inserted(sent.db), self.kind(sent.db)
        live = docs * INDEX_PER_KEY[kind]
        log = "true" if self.logged in (True, None) else "false"
        index = {
            "metadata": {"formatVersion": 8},
            "creationString": INDEX_CONFIG.format(log=log), "type": "file",
            "uri": "statistics:table:index-1--42",
            "block-manager": {"file size in bytes": appended_number(live + RESERVED),
                              "file bytes available for reuse": RESERVED,
                              "checkpoint size": appended_number(live),
                              "file allocation unit size": 4096},
            # Tree-walk statistics: 0 in "fast" mode, as every mongod before 8.3 reads them.
            "btree": {"maximum tree depth": 3, "row-store leaf pages": 0,
                      "row-store internal pages": 0, "number of key/value pairs": 0},
            "cache": {"leaf pages split during eviction": docs // EVICTION_EVERY[kind],
                      "internal pages split during eviction": 0,
                      "in-memory page splits": docs // IN_MEMORY_EVERY[kind],
                      "pages read into cache": 0, "pages written from cache": docs // 25},
            "reconciliation": {"leaf page multi-block writes": docs // 50,
                               "page reconciliation calls": docs // 10},
        }
        table = {"metadata": {"formatVersion": 1}, "creationString": TABLE_CONFIG.format(log=log),
                 "type": "file", "uri": "statistics:table:collection-0--42",
                 "block-manager": {"file size in bytes": 4096 + docs * 40}}
        if self.logged is None:  # a server (or proxy) that gives no creation strings
            del index["creationString"], table["creationString"]
        stats = {"size": docs * 22, "count": docs, "avgObjSize": 22 if docs else 0,
                 "storageSize": 4096 + docs * 40, "freeStorageSize": 0, "capped": False,
                 "wiredTiger": table, "nindexes": 1, "indexDetails": {"_id_": index},
                 "indexBuilds": [], "totalIndexSize": appended_number(live + RESERVED),
                 "totalSize": appended_number(live + RESERVED + 4096 + docs * 40),
                 "indexSizes": {"_id_": appended_number(live + RESERVED)}, "scaleFactor": 1}
        return cursor_reply(f"{sent.db}.{sent['aggregate']}", [{
            "ns": f"{sent.db}.{sent['aggregate']}", "host": "mongod:27017",
            "localTime": dt.datetime.now(dt.UTC), "storageStats": stats}])

    # serverStatus ----------------------------------------------------------------------------

    def _server_status(self, sent):
        readings = len(self.wire.named("serverStatus"))
        loads = self._loads()
        ops = {name: 0 for name in ("insert", "query", "update", "delete", "getmore",
                                    "command")}
        if self.aggregate_as == "aggregate":
            ops["aggregate"] = 0
        for s in self.wire.sent:
            if s.name == "insert":
                ops["insert"] += len(s["documents"])
            elif s.name in ("update", "delete"):
                ops[s.name] += len(s[s.name + "s"])
            elif s.name == "aggregate":
                ops[self.aggregate_as] += 1
            else:  # on mongod, every command but the write commands counts here
                ops["command"] += 1
        for name, each in self.others.items():
            ops[name] += each * readings
        foreign = sum(each * readings for each in self.others.values())
        block = 10**6 + sum(BLOCK_PER_KEY[self.kind(db)] * docs for db, docs in loads.items())
        reply = server_status(self.cache_bytes, self.wire.version)
        reply.update({
            "connections": {"current": 3, "available": 838857, "totalCreated": Int64(7),
                            "active": 2},
            "opcounters": {name: Int64(value) for name, value in ops.items()}})
        if self.replica_set:
            # A member's ``repl`` section (the manual's "serverStatus" page, repl: the set's
            # name, its hosts and this member's part; absent on a standalone).
            reply["repl"] = {"topologyVersion": {"processId": ObjectId(), "counter": Int64(6)},
                             "hosts": ["wire-test:27017", "wire-test:27018"], "setName": "rs0",
                             "setVersion": 1, "isWritablePrimary": True, "secondary": False,
                             "primary": "wire-test:27017", "me": "wire-test:27017",
                             "rbid": 1}
        wired = reply["wiredTiger"]
        wired.update({
            "uri": "statistics:",
            "log": {"log bytes written": appended_number(
                        3 * 2**31 + LOG_PER_KEY * sum(loads.values())),
                    "log sync operations": 12},
            "block-manager": {"bytes written": appended_number(block + 4096 * foreign),
                              "bytes read": 40960}})
        wired["cache"].update({"pages read into cache": 17 + foreign,
                               "bytes currently in the cache": 1_000_000})
        return reply


@pytest.fixture
def connect(wire_server):
    """``connect()`` is labkit's MongoServer for the scripted server (``mongo.from_uri``, as for
    ``LABKIT_MONGODB_URI``), stopped after the test."""
    made = []

    def connect():
        made.append(mongo.from_uri(wire_server.uri))
        return made[-1]

    yield connect
    for server in made:
        server.stop()


# The serverless engines' loads of this module's B-tree runs, each made once
# (``helpers.serverless_loads_once``): made again for each run, they took two thirds of this
# module's time (embedded WiredTiger's alone over half).
_serverless: dict = {}


def btree_rows(server, ids=("U4", "U5", "U6", "X7")) -> dict:
    """The rows of B-tree claims judged with ``server`` as the run's MongoDB (the other engines
    run for real, each load made once for the module: ``_serverless``; PostgreSQL is not
    had): ``{(claim, engine): row}``."""
    def no_postgres():
        raise ServerUnavailable("no PostgreSQL in the wire tests")

    with pytest.MonkeyPatch.context() as patch, runner.Context(
            btree_n=N, mongodb_provider=lambda: server, postgres_provider=no_postgres) as ctx:
        serverless_loads_once(patch, _serverless)
        results = runner.run(claims.select(ids=list(ids)), ctx).claims
    return {(row.claim.id, str(row.engine)): row for result in results for row in result.rows}


def load_commands(wire) -> list[tuple[str, str]]:
    """``(command, "admin" or "load")`` from the load's lease on, in order."""
    start = next(i for i, s in enumerate(wire.sent) if s.name == "update")
    return [(s.name, "admin" if s.db == "admin" else "load") for s in wire.sent[start:]]


# The command sequence -------------------------------------------------------------------------


@pytest.mark.parametrize("wire_server", SERIES, indirect=True)
def test_a_load_sends_the_documented_commands_in_order(wire_server, connect):
    """One load: its database and lease, ``create`` (no listCollections first: a fresh database
    holds no collection, and a role without listCollections would be refused it),
    ``$collStats`` with ``storageStats`` and ``serverStatus`` before the inserts, unordered
    insert batches with an ``fsync`` each time the keys pass the interval and one at the end,
    ``serverStatus`` and ``$collStats`` again, and ``dropDatabase`` (the same on 6.0, 7.0 and
    8.0; the B-tree code's sequence, engines/btree_mongodb.py)."""
    Mongod(wire_server)
    result = load("uuid7", 250, connect(), batch=100, checkpoint_every=100).to_dict()
    assert load_commands(wire_server) == [
        ("update", "load"), ("create", "load"),
        ("aggregate", "load"), ("serverStatus", "admin"),
        ("insert", "load"), ("fsync", "admin"), ("insert", "load"), ("fsync", "admin"),
        ("insert", "load"), ("fsync", "admin"),
        ("serverStatus", "admin"), ("aggregate", "load"), ("dropDatabase", "load")]
    create, = wire_server.named("create")
    assert create["create"] == "t"
    for aggregate in wire_server.named("aggregate"):
        assert aggregate["aggregate"] == "t"
        assert aggregate["pipeline"] == [{"$collStats": {"storageStats": {}}}]
        assert aggregate["cursor"] == {}
    inserts = wire_server.named("insert")
    assert [len(s["documents"]) for s in inserts] == [100, 100, 50]
    assert all(s["ordered"] is False and s["insert"] == "t" for s in inserts)
    assert all(s["fsync"] == 1 and type(s["fsync"]) is int for s in wire_server.named("fsync"))
    assert wire_server.named("dropDatabase")[0]["dropDatabase"] == 1
    assert result["checkpoints_refused"] is False
    assert result["leaf_pages"] is None
    assert result["avg_leaf_fill"] is None


@pytest.mark.parametrize(("kind", "bson_type"), [
    ("uuid4", Binary), ("uuid7", Binary), ("objectid", ObjectId), ("int", Int64)])
def test_each_key_kind_is_sent_as_its_bson_type(wire_server, connect, kind, bson_type):
    """UUIDs go as BSON Binary subtype 4 in RFC byte order (uuidRepresentation standard: the
    version nibble sits where RFC 9562 puts it), an ObjectId as an ObjectId, an integer as an
    int64; the sequential kinds arrive in ascending order, UUIDv4 in none."""
    Mongod(wire_server)
    load(kind, 120, connect(), batch=1_000, checkpoint_every=None)
    ids = [d["_id"] for s in wire_server.named("insert") for d in s["documents"]]
    assert [type(i) for i in ids] == [bson_type] * 120
    assert len(set(ids)) == 120
    if bson_type is Binary:
        assert {i.subtype for i in ids} == {4}
        assert {uuid.UUID(bytes=bytes(i)).version for i in ids} == {int(kind[-1])}
        ids = [bytes(i) for i in ids]
    assert (ids == sorted(ids)) is (kind in btree_engine.SEQUENTIAL)


# What labkit makes of the documented replies -----------------------------------------------


@pytest.mark.parametrize("wire_server", SERIES, indirect=True)
def test_measure_reads_size_writes_and_cache_from_the_documented_replies(wire_server, connect):
    """``measure("mongodb", ...)``: the index size is ``indexSizes._id_`` less the bytes free
    for reuse after the last ``fsync``; the bytes written are the differences of "log bytes
    written" and "bytes written" across the load; the cache is "maximum bytes configured"; the
    split counters are differences; no leaf pages or fill (the tree-walk counters read 0)."""
    mongod = Mongod(wire_server)
    server = connect()
    ticks: list[tuple[str, int]] = []
    measured = btree.measurement("mongodb", ["uuid4", "uuid7"], N,
                                 btree_engine.Settings(checkpoint_every=100), server=server,
                                 progress=lambda *tick: ticks.append(tick)).to_dict()
    assert ticks == [("uuid4", N), ("uuid7", N)]
    assert measured["engine_version"] == wire_server.release
    assert measured["cache"] == server.cache
    assert "0.25 GB" in str(server.cache)
    by_kind = {r["keys"]: r for r in measured["results"]}
    for kind, result in by_kind.items():
        assert result["index_bytes"] == N * INDEX_PER_KEY[kind]
        assert result["file_bytes"] == N * INDEX_PER_KEY[kind] + RESERVED
        assert result["block_bytes"] == N * BLOCK_PER_KEY[kind]
        assert result["log_bytes"] == N * LOG_PER_KEY
        assert result["write_bytes"] == result["block_bytes"] + result["log_bytes"]
        assert result["cache_bytes"] == SMALLEST_CACHE
        assert result["cache_reads"] == 0
        assert result["cache: in-memory page splits"] == N // IN_MEMORY_EVERY[kind]
        assert result["cache: leaf pages split during eviction"] == N // EVICTION_EVERY[kind]
        assert result["block-manager: file size in bytes"] == N * INDEX_PER_KEY[kind] + RESERVED
        assert (result["leaf_pages"], result["avg_leaf_fill"]) == (None, None)
        assert result["logged"] is True
        assert result["others_writes"] == 0
        assert result["others_reads"] == 0
        assert "write_disturbed" not in result
        assert "index_bytes_why" not in result
    assert by_kind["uuid4"]["write_vs"] == {"uuid7": round(420 / 230, 3)}
    assert by_kind["uuid4"]["index_to_cache"] == round(N * 48 / SMALLEST_CACHE, 3)
    assert mongod.inserted() == 2 * N


@pytest.mark.parametrize("wire_server", SERIES, indirect=True)
def test_u5_and_x7_verdict_logic_runs_on_the_scripted_replies(wire_server, connect):
    """U5's three parts and X7 get their MongoDB rows from the replies (the numbers are the
    script's own, not MongoDB's: this pins the logic, the live tests the verdicts): size within
    25-40% holds, UUIDv4 writing more holds, cache churn is not run with the N at which the
    index would outgrow mongod's smallest cache, X7 holds on the split counters. U4 and U6 ask
    nothing of mongod: it reports no leaf fill."""
    Mongod(wire_server)
    server = connect()
    rows = btree_rows(server)
    version = wire_server.release
    size, writes = rows[("U5", "MongoDB · size")], rows[("U5", "MongoDB · write amplification")]
    churn, x7 = rows[("U5", "MongoDB · cache churn")], rows[("X7", "MongoDB")]
    assert size.verdict == "holds", str(size)
    assert size.observation.observed["random_larger_by"] == round(48 / 36 - 1, 3)
    assert writes.verdict == "holds", str(writes)
    assert writes.observation.observed["uuid4_writes_vs_uuid7"] == round(420 / 230, 3)
    assert churn.verdict == "not-run"
    needed = math.floor(SMALLEST_CACHE / 48) + 1
    assert f"N = {needed:,} keys" in str(churn.reason)
    assert x7.verdict == "holds", str(x7)
    assert {r.engine_version for r in (size, writes, x7)} == {version}
    assert not [key for key in rows if key[0] in ("U4", "U6") and key[1].startswith("MongoDB")]
    databases = {s.db for s in wire_server.named("insert")}
    assert {Mongod.kind(db) for db in databases} == {"uuid4", "uuid7", "objectid", "int"}


# A user without the privileges ---------------------------------------------------------------


@pytest.mark.parametrize("code", [UNAUTHORIZED, ATLAS_ERROR])
def test_a_refused_server_status_costs_only_the_write_and_cache_figures(wire_server, connect,
                                                                       code):
    """readWriteAnyDatabase with hostManager (fsync, no serverStatus): the refusal (13, or
    8000 on Atlas) no longer makes every MongoDB row an error. The index size and the split
    counters are still measured and judged; the write and cache rows are not run, saying which
    action is missing and which built-in roles grant it (builtin_roles.yml: clusterMonitor,
    clusterAdmin, root), or, for Atlas's 8000, what its proxy said and that no role may help
    (its tiers refuse some commands to every user)."""
    Mongod(wire_server, refuse=("serverStatus",), refusal=code,
           privileges=status("readWriteAnyDatabase", "hostManager"))
    server = connect()
    rows = btree_rows(server, ("U5", "X7"))
    assert rows[("U5", "MongoDB · size")].verdict == "holds"
    assert rows[("X7", "MongoDB")].verdict == "holds"
    for part in ("write amplification", "cache churn"):
        row = rows[("U5", f"MongoDB · {part}")]
        assert row.verdict == "not-run", str(row)
        if code == ATLAS_ERROR:
            assert "the hosted server refused serverStatus (user is not allowed to do action " \
                   "[serverStatus] on [admin] (code 8000))" in str(row.reason)
            assert "whatever the role" in str(row.reason)
            assert "clusterMonitor" not in str(row.reason)
        else:
            for words in ("serverStatus", f"code {code}", "clusterMonitor", "clusterAdmin",
                          "root"):
                assert words in str(row.reason)
    assert not [row for row in rows.values() if row.verdict == "error"]


def test_a_server_status_without_its_wired_tiger_section_is_said_not_taken_for_zero(
        wire_server, connect):
    """Atlas's shared tiers answer serverStatus with a trimmed reply (the Atlas manual's
    "Unsupported Commands" page: only some sections), and a mongos has no storage engine: with
    no ``wiredTiger`` section, the write and cache rows are not run saying so, instead of
    claiming that MongoDB does not report bytes written."""
    mongod = Mongod(wire_server)
    full = mongod._server_status

    def trimmed(sent):
        reply = dict(full(sent))
        reply.pop("wiredTiger")
        return reply

    wire_server.on("serverStatus", trimmed)
    rows = btree_rows(connect(), ("U5",))
    for part in ("write amplification", "cache churn"):
        row = rows[("U5", f"MongoDB · {part}")]
        assert row.verdict == "not-run", str(row)
        assert "serverStatus has no wiredTiger section" in str(row.reason)
    assert rows[("U5", "MongoDB · size")].verdict == "holds"


def test_read_write_any_database_alone_gets_reasons_not_errors(wire_server, connect):
    """readWriteAnyDatabase alone (no fsync, no serverStatus, no dropDatabase): every MongoDB
    row is not run with what is missing and who grants it (fsync: hostManager; serverStatus:
    clusterMonitor), and each database is still removed, collection by collection."""
    mongod = Mongod(wire_server, refuse=("serverStatus", "fsync"),
                    privileges=status("readWriteAnyDatabase"))
    rows = btree_rows(connect(), ("U5", "X7"))
    mongo_rows = {k: r for k, r in rows.items() if k[1].startswith("MongoDB")}
    assert len(mongo_rows) == 4
    assert {r.verdict for r in mongo_rows.values()} == {"not-run"}
    assert "fsync" in str(rows[("U5", "MongoDB · size")].reason)
    assert "hostManager" in str(rows[("X7", "MongoDB")].reason)
    assert "clusterMonitor" in str(rows[("U5", "MongoDB · write amplification")].reason)
    assert not wire_server.named("dropDatabase")
    assert {s["drop"] for s in wire_server.named("drop")} == {"t", "labkit_lease"}
    assert not any(mongod.collections.values())


def test_a_refused_coll_stats_costs_the_index_figures_only(wire_server, connect):
    """``$collStats`` refused: the size and split rows are not run with the collStats action's
    roles, the write figures are still measured and judged (serverStatus is allowed)."""
    Mongod(wire_server, refuse=("aggregate",))
    server = connect()
    result, = btree.measurement("mongodb", ["uuid4"], N, server=server).to_dict()["results"]
    assert result["index_bytes"] is None
    assert result["file_bytes"] is None
    assert "$collStats" in str(result["counters_why"])
    assert "collStats" in str(result["index_bytes_why"])
    assert result["write_bytes"] == N * (BLOCK_PER_KEY["uuid4"] + LOG_PER_KEY)
    assert len(wire_server.named("aggregate")) == 1  # not asked again once refused
    rows = btree_rows(server, ("U5", "X7"))
    for key in (("U5", "MongoDB · size"), ("X7", "MongoDB")):
        assert rows[key].verdict == "not-run", str(rows[key])
        assert "readWriteAnyDatabase" in str(rows[key].reason)
    assert rows[("U5", "MongoDB · write amplification")].verdict == "holds"


@pytest.mark.parametrize("code", [UNAUTHORIZED, ATLAS_ERROR])
def test_a_refused_fsync_leaves_no_index_size_and_says_why(wire_server, connect, code):
    """``fsync`` refused (13, or Atlas's 8000): no index size (the file holds its pages only
    after a checkpoint), ``checkpoints_refused`` says so, the reason names hostManager (for 13)
    or what Atlas's proxy said, without role advice (for 8000: Atlas refuses fsync to every
    user); the counters and the write figures are still read."""
    Mongod(wire_server, refuse=("fsync",), refusal=code)
    result = load("uuid4", N, connect(), checkpoint_every=100).to_dict()
    assert result["checkpoints_refused"] is True
    assert result["index_bytes"] is None
    assert "fsync" in str(result["index_bytes_why"])
    if code == ATLAS_ERROR:
        assert "whatever the role" in str(result["index_bytes_why"])
        assert "hostManager" not in str(result["index_bytes_why"])
    else:
        assert "hostManager" in str(result["index_bytes_why"])
    assert result["file_bytes"] == N * 48 + RESERVED
    assert result["write_bytes"] == N * (300 + LOG_PER_KEY)


@pytest.mark.parametrize("refused", ["fsync", "aggregate"])
def test_the_summary_plot_draws_what_was_measured_and_says_what_was_not(wire_server, connect,
                                                                         refused):
    """Issue 44, 4: with ``fsync`` or ``$collStats`` refused (the room's own role, the hosted
    role, Atlas) there is no index size and no leaf pages; lesson 06's MongoDB cell and
    ``labkit btree --engine mongodb --plot`` drew ``bar(kinds, [None, None])`` and failed with
    a TypeError. The panel now marks each kind "not measured" and says why under it, and the
    insert rates are still drawn."""
    from labkit.outputs import plots

    Mongod(wire_server, refuse=(refused,))
    measurement = btree.measurement("mongodb", ["uuid7", "uuid4"], N, server=connect())
    assert all(r.index_bytes is None and r.leaf_pages is None for r in measurement.results)
    figure = plots.btree_summary(measurement)
    size_axis, rate_axis = figure.axes
    assert [t.get_text() for t in size_axis.texts] == ["not measured"] * 2
    assert [p.get_height() for p in size_axis.patches] == [0, 0]
    why = size_axis.get_xlabel().replace("\n", " ")
    assert ("fsync" if refused == "fsync" else "collStats") in why
    assert len(rate_axis.lines) == 2


def test_a_load_on_ferretdb_is_named_ferretdb_and_says_what_it_lacks(wire_server, connect):
    """Issue 44, 3: on a server whose buildInfo names FerretDB (ferretdbVersion beside the
    MongoDB version it reports; tests/test_wire_compatible.py cites the source) and which has
    no fsync (59), the measurement and every B-tree row name FerretDB with its own version,
    never "MongoDB 1.24.2", and the missing command is a reason naming no role."""
    Mongod(wire_server, refuse=("fsync",), refusal=mongo_wire.COMMAND_NOT_FOUND)
    wire_server.on("buildInfo", {**mongo_wire.build_info_reply("7.0"), "version": "7.0.42",
                                 "versionArray": [7, 0, 42, 0], "ferretdbVersion": "1.24.2"})
    server = connect()
    measured = btree.measurement("mongodb", ["uuid4", "uuid7"], N, server=server)
    assert (measured.name, measured.engine_version) == ("FerretDB", "1.24.2")
    (why,) = {str(r.index_bytes_why) for r in measured.results}
    assert why.startswith("this server has no fsync command")
    assert "hostManager" not in why
    rows = btree_rows(server, ("U5",))
    ferret = [row for (claim, engine), row in rows.items() if engine.startswith("FerretDB")]
    assert ferret
    assert not [engine for (claim, engine) in rows if engine.startswith("MongoDB")]
    assert {row.engine_version for row in ferret} == {"1.24.2"}


# Cache churn on mongod ---------------------------------------------------------------------


@pytest.mark.parametrize(("cache_bytes", "words"), [
    (SMALLEST_CACHE, "a mongod at the defaults shows the index's size, the bytes written and "
                     "the split counters, not cache churn"),
    (4 * SMALLEST_CACHE, "outgrows this cache from N = 22,369,622 keys"),
])
def test_cache_churn_on_mongod_says_which_n_would_show_it(wire_server, connect, cache_bytes,
                                                         words):
    """The UUIDv4 index of a few hundred keys stays inside mongod's smallest cache (0.25 GB),
    so cache churn is not run, and the row says what the server shows instead and from which
    N an index of the measured bytes per key (index bytes / N) outgrows that smallest cache,
    and the server's own where it is larger."""
    Mongod(wire_server, cache_bytes=cache_bytes)
    rows = btree_rows(connect(), ("U5",))
    churn = rows[("U5", "MongoDB · cache churn")]
    assert churn.verdict == "not-run"
    assert "48.0 bytes per key" in str(churn.reason)
    assert "0.25 GB (268,435,456 bytes)" in str(churn.reason)
    assert f"from N = {SMALLEST_CACHE // 48 + 1:,}" in str(churn.reason)
    assert words in str(churn.reason)


# Server-wide counters --------------------------------------------------------------------


def test_the_write_figures_are_said_to_be_server_wide(wire_server, connect):
    """The bytes written come from serverStatus, which counts every client's work: each
    MongoDB result says so in its meaning, and the table prints it."""
    Mongod(wire_server)
    measured = btree.measurement("mongodb", ["uuid4"], N, server=connect())
    result, = measured.to_dict()["results"]
    assert "server-wide" in str(result["write_meaning"])
    assert ("write: log bytes + block-manager bytes written, server-wide"
            in btree_table.table(measured))


@pytest.mark.parametrize(("others", "marked"), [
    ({"update": 400}, "write_disturbed"),
    ({"insert": 50, "delete": 50}, "write_disturbed"),
    ({"query": 300, "getmore": 20}, "cache_reads_disturbed"),
])
def test_a_server_busy_with_other_clients_has_its_figure_marked(wire_server, connect, others,
                                                                 marked):
    """Other clients' inserts, updates and deletes beyond labkit's own inserts and allowance
    mark the write figure (and their queries the cache figure); U5's part on that figure is then
    not run, saying that the counters are server-wide."""
    Mongod(wire_server, others=others)
    server = connect()
    result, = btree.measurement("mongodb", ["uuid4"], N, server=server).to_dict()["results"]
    assert str(result[marked]).startswith("other clients")
    assert "server-wide" in str(result[marked])
    part = "write amplification" if marked == "write_disturbed" else "cache churn"
    row = btree_rows(server, ("U5",))[("U5", f"MongoDB · {part}")]
    assert row.verdict == "not-run"
    assert "other clients" in str(row.reason)


def test_on_a_replica_set_the_oplogs_getmores_do_not_mark_the_load(wire_server, connect):
    """On a replica set each secondary reads the oplog with getMores all the load long, and the
    primary counts each (GetMoreCmd's run() counts it first: src/mongo/db/commands/
    getmore_cmd.cpp, mongodb/mongo at 01018b26): there getMores are not others' reads, so a
    load beside 300 of them per reading is not marked; a query still marks it, and says that
    getMores were left out."""
    Mongod(wire_server, logged=False, replica_set=True, others={"getmore": 300})
    server = connect()
    result, = btree.measurement("mongodb", ["uuid4"], N, server=server).to_dict()["results"]
    assert result["others_reads"] == 0
    assert "cache_reads_disturbed" not in result


def test_on_a_replica_set_other_clients_queries_still_mark_the_load(wire_server, connect):
    """Queries beyond the allowance mark a replica set's load as on a standalone, and the
    reason says that getMores are not counted there, and why."""
    Mongod(wire_server, logged=False, replica_set=True, others={"getmore": 300, "query": 300})
    result, = btree.measurement("mongodb", ["uuid4"], N, server=connect()).to_dict()["results"]
    reason = str(result["cache_reads_disturbed"])
    assert reason.startswith("other clients read from the server during the load")
    assert "getMores are not counted on a replica set, whose members read the oplog" in reason


def test_a_wiredtiger_section_without_its_statistics_is_said_so(wire_server, connect):
    """A serverStatus whose wiredTiger section came without the statistics (the server could
    not take its lock at once, or collect them: src/mongo/db/storage/wiredtiger/
    wiredtiger_server_status.cpp returns the section empty, or with its oplog part only) leaves
    the write and cache figures unmeasured, saying why, instead of None with no reason."""
    mongod = Mongod(wire_server)
    plain = mongod._server_status

    def without_statistics(sent):
        reply = plain(sent)
        reply["wiredTiger"] = {"oplog": {"visibility timestamp": Timestamp(0, 0)}}
        return reply

    wire_server.on("serverStatus", without_statistics)
    result, = btree.measurement("mongodb", ["uuid4"], N, server=connect()).to_dict()["results"]
    assert result["write_bytes"] is None
    assert str(result["write_bytes_why"]).startswith(
        "this server's serverStatus gave its wiredTiger section without the statistics")


def test_labkits_own_housekeeping_does_not_mark_a_quiet_server(wire_server, connect):
    """A few writes beside labkit's inserts (its lease renewal, the server's session cache)
    stay within the allowance: the figure is not marked, and the count is kept."""
    Mongod(wire_server, others={"update": 3})
    result, = btree.measurement("mongodb", ["uuid4"], N, server=connect()).to_dict()["results"]
    assert result["others_writes"] == 3
    assert "write_disturbed" not in result
    assert "cache_reads_disturbed" not in result


@pytest.mark.parametrize("aggregate_as", ["command", "query", "aggregate"])
def test_where_an_aggregation_is_counted_does_not_mark_the_load(wire_server, connect,
                                                                aggregate_as):
    """Releases count an aggregation as a command, a query (SERVER-66495) or an aggregate
    (SERVER-123987); labkit's own ``$collStats`` are outside its two readings, so no count
    of them marks the load however the server counts them."""
    Mongod(wire_server, aggregate_as=aggregate_as)
    result, = btree.measurement("mongodb", ["uuid7"], N, server=connect()).to_dict()["results"]
    assert result["others_reads"] == 0
    assert "cache_reads_disturbed" not in result


def test_counters_that_go_back_mark_both_figures(wire_server, connect):
    """Operation counters lower after the load than before (the server restarted): neither the
    write nor the cache figure can be compared across it, and both say so."""
    mongod = Mongod(wire_server)
    plain = mongod._server_status

    def restarted(sent):
        reply = plain(sent)
        if len(wire_server.named("serverStatus")) == 3:  # the load's second reading
            reply["opcounters"] = {k: Int64(0) for k in reply["opcounters"]}
        return reply

    wire_server.on("serverStatus", restarted)
    result, = btree.measurement("mongodb", ["uuid4"], N, server=connect()).to_dict()["results"]
    assert "went back" in str(result["write_disturbed"])
    assert result["cache_reads_disturbed"] == result["write_disturbed"]


def test_without_operation_counters_the_figure_stays_unmarked(wire_server, connect):
    """A ``serverStatus`` without ``opcounters`` (a proxy that trims it) cannot tell whether
    others worked: the counts are None and nothing is marked; the meaning still says
    server-wide."""
    mongod = Mongod(wire_server)
    plain = mongod._server_status
    wire_server.on("serverStatus", lambda sent: {k: v for k, v in plain(sent).items()
                                                 if k != "opcounters"})
    result, = btree.measurement("mongodb", ["uuid4"], N, server=connect()).to_dict()["results"]
    assert (result["others_writes"], result["others_reads"]) == (None, None)
    assert "write_disturbed" not in result
    assert "server-wide" in str(result["write_meaning"])


def test_a_failure_that_is_no_refusal_is_an_error_and_the_database_is_dropped(wire_server,
                                                                               connect):
    """``serverStatus`` failing otherwise (50, MaxTimeMSExpired: error_codes.yml; a server too
    busy to answer in time) is MongoDB's error row with the cause, not a traceback, and the
    load's database is still dropped."""
    Mongod(wire_server)
    wire_server.on("serverStatus", mongo_wire.error_reply(50, "operation exceeded time limit",
                                                          "MaxTimeMSExpired"),
                   match=lambda sent: bool(wire_server.named("insert")))
    rows = btree_rows(connect(), ("U5",))
    mongo_rows = [row for (_, engine), row in rows.items() if engine.startswith("MongoDB")]
    assert {row.verdict for row in mongo_rows} == {"error"}
    assert all("operation exceeded time limit" in str(row.reason) for row in mongo_rows)
    assert rows[("U5", "SQLite · size")].verdict in ("holds", "finding")
    loads = {s.db for s in wire_server.named("insert")}
    assert loads == {s.db for s in wire_server.named("dropDatabase")}


# Where the log counts ------------------------------------------------------------------------


def test_a_standalone_counts_its_log_and_a_replica_set_does_not(wire_server, connect):
    """A replica set's user tables are not logged (``log=(enabled=false)`` in their creation
    strings: wiredtiger_util.cpp useTableLogging): there the log is left out of the bytes
    written, which are the block manager's alone; a standalone's are logged and counted."""
    mongod = Mongod(wire_server, logged=False)
    server = connect()
    replica, = btree.measurement("mongodb", ["uuid4"], N, server=server).to_dict()["results"]
    assert replica["write_bytes"] == replica["block_bytes"] == N * 300
    assert replica["log_bytes"] is None
    assert replica["logged"] is False
    assert "not logged" in str(replica["write_meaning"])
    mongod.logged = True
    asked = len(wire_server.named("hello"))
    standalone, = btree.measurement("mongodb", ["uuid4"], N, server=server).to_dict()["results"]
    assert standalone["write_bytes"] == N * (300 + LOG_PER_KEY)
    assert len(wire_server.named("hello")) == asked  # the creation strings told: no hello


def test_without_creation_strings_hello_says_replica_set(wire_server, connect):
    """Where ``$collStats`` gives no creation strings, ``hello``'s ``setName`` (a replica set
    member's: the manual's "hello" page, replica set fields) decides: the log is not counted."""
    Mongod(wire_server, logged=None)
    wire_server.on("hello", lambda sent: {
        **mongo_wire.hello_reply(wire_server.version), "setName": "rs0", "secondary": False,
        "hosts": ["127.0.0.1:27017"], "primary": "127.0.0.1:27017", "setVersion": 1})
    result, = btree.measurement("mongodb", ["int"], N, server=connect()).to_dict()["results"]
    assert result["log_bytes"] is None
    assert result["logged"] is False


# What the table says ------------------------------------------------------------------------


def test_the_table_says_once_why_a_figure_is_missing(wire_server, connect):
    """``labkit btree --engine mongodb``'s table prints each reason below its rows, once, with
    the key kinds it concerns where it is not all of them."""
    Mongod(wire_server, refuse=("serverStatus",))
    measured = btree.measurement("mongodb", ["uuid4", "uuid7"], N, server=connect())
    shown = btree_table.table(measured)
    assert shown.count("the server refused serverStatus (code 13)") == 2  # write and cache
    assert "index bytes: file size less the space free for reuse" in shown


# Live: the scripted shapes against a real server --------------------------------------------


def read_paths(reply: str) -> list[str]:
    """The fields of ``$collStats``'s ``storageStats`` or of ``serverStatus`` the load reads."""
    if reply == "storageStats":
        return ["indexSizes._id_", "indexDetails._id_.creationString",
                "wiredTiger.creationString", *statistics(reply)]
    return [*statistics(reply), *(f"opcounters.{name}" for name in btree_mongodb.OPCOUNTERS)]


def statistics(reply: str) -> list[str]:
    """The fields of ``read_paths`` the server writes with appendNumber, an int32 or an int64
    by their size: WiredTiger's statistics and the index's size."""
    if reply == "storageStats":
        return ["indexSizes._id_", *(f"indexDetails._id_.{name.replace(': ', '.')}"
                                     for name in btree_mongodb.MONGO_COUNTER_NAMES)]
    return [f"wiredTiger.{name.replace(': ', '.')}"
            for name in btree_wiredtiger.WT_IO_STATS.values()]


def fields_at(reply: dict, paths: list[str]) -> dict:
    """The scripted ``reply`` cut down to the fields at ``paths`` (dotted), nested as in it:
    the live tests compare only what the load reads."""
    picked: dict = {}
    for path in paths:
        *parents, leaf = path.split(".")
        source, target = reply, picked
        for key in parents:
            source, target = source[key], target.setdefault(key, {})
        target[leaf] = source[leaf]
    return picked


@pytest.mark.mongodb
def test_live_coll_stats_has_the_scripted_fields_and_types(fresh_db, wire_server):
    """A real server's ``$collStats`` ``storageStats`` has every field the B-tree load reads,
    with the type the script gives it (a statistic an int32 or an int64 as its size needs)."""
    scripted = Mongod(wire_server)._coll_stats(
        mongo_wire.Sent("aggregate", "labkit_btree_uuid4_0", {"aggregate": "t"}))
    expected = fields_at(scripted["cursor"]["firstBatch"][0]["storageStats"],
                         read_paths("storageStats"))
    collection = fresh_db.create_collection("t")
    collection.insert_many([{"_id": uuid.uuid4()} for _ in range(50)])
    real = btree_mongodb._storage_stats(collection)
    assert same_shape(expected, real, sized=statistics("storageStats")) == []


@pytest.mark.mongodb
def test_live_server_status_has_the_scripted_fields_and_types(mongodb_server, wire_server):
    """A real server's ``serverStatus`` has the WiredTiger figures and operation counters the
    B-tree load reads, with the script's types (where this user may run it): each statistic an
    int32 or an int64 as its size needs, each counter an int64."""
    scripted = fields_at(Mongod(wire_server)._server_status(None), read_paths("serverStatus"))
    read = btree_mongodb.mongo_status(mongodb_server.client())
    if "refused" in read:
        pytest.skip(f"this user may not run serverStatus: {read['refused']}")
    real = mongodb_server.client().admin.command("serverStatus")
    assert same_shape(scripted, real, sized=statistics("serverStatus")) == []


@pytest.mark.mongodb
def test_live_server_status_names_a_replica_sets_name_as_scripted(mongodb_server, wire_server):
    """A real member's ``serverStatus`` names its set in ``repl.setName`` as the scripted
    replica set's does (and ``hello`` agrees), which labkit reads to leave getMores out of
    others' reads; a standalone's has no set name there."""
    client = mongodb_server.client()
    read = btree_mongodb.mongo_status(client)
    if "refused" in read:
        pytest.skip(f"this user may not run serverStatus: {read['refused']}")
    hello = client.admin.command("hello")
    real = client.admin.command("serverStatus")
    assert read["replica_set"] == bool(hello.get("setName"))
    if hello.get("setName"):
        scripted = Mongod(wire_server, replica_set=True)._server_status(None)
        assert same_shape(fields_at(scripted, ["repl.setName"]), real) == []
        assert real["repl"]["setName"] == hello["setName"]
