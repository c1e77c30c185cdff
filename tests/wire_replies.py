"""The replies of the particular MongoDB commands labkit asks, as the wire tests script them, and
the scripts that set a scripted server up for labkit's server layer and lessons: one home for
each shape or script that more than one test file uses, each with where it comes from.

``mongo_wire.py`` is the scripted server itself and the shapes any command's reply takes (a
cursor, a write, a refusal, hello, buildInfo); this file builds on it with what labkit's own
code meets: serverStatus, listDatabases, listCollections, drop and dropDatabase, the lease's
update, connectionStatus with each built-in role's privileges, what ``from_uri``, a fresh
database and the clean-up ask, and the traffic of lessons 01-03's claims. They are kept apart
because they answer different questions (how the scripted server works; what a given command
answers), and because the role table and the claims' traffic are long data that would bury the
server's workings. A test file imports these two and no other test file.

Sources are named as in ``mongo_wire.py``: a file in mongodb/mongo at the commit the search index
holds (not a release tag: where a shape could differ between 6.0, 7.0 and 8.0 the note says
so), or a manual page; the live tests (``mongodb``-marked, beside the tests that use each shape)
ask a real server the same commands and compare fields and types with ``same_shape``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bson import Binary, Code, Decimal128, Int64, MaxKey, MinKey, ObjectId, Regex, Timestamp
from mongo_wire import (
    VERSIONS,
    Sent,
    WireServer,
    appended_number,
    cursor_of,
    cursor_reply,
    hello_reply,
    inserted,
    same_bson,
    unauthorized,
    update_reply,
    upserted,
)

from labkit import servers
from labkit.experiments import sort_order
from labkit.servers import mongo
from labkit.servers.privileges import NEEDS, parse_connection_status

if TYPE_CHECKING:
    from labkit.run import runner

UTC = dt.UTC

# The server layer's commands ------------------------------------------------------------------


def server_status(cache_bytes: int | None = 256 * 1024**2, version: str = "7.0") -> dict:
    """``serverStatus``: the fields every server sets first (src/mongo/db/commands/
    server_status.cpp, CmdServerStatus::run: host, version, process, ``pid`` as a long,
    ``uptime`` as a double, ``localTime`` as a date; the same lines in every version the index
    holds, from c263ce1f, a 3.x one, to the newest, which adds ``service``) and the WiredTiger
    section (the manual's "serverStatus" page, wiredTiger), whose ``cache`` group holds
    WiredTiger's "cache: maximum bytes configured" statistic, the one field labkit reads for
    the cache (src/mongo/db/storage/wiredtiger/wiredtiger_util.cpp at 00a9e47d,
    exportTableToBSON: a statistic's description split at its colon, the value written by
    appendNumber, so 0.25 GB is an int32 and 8 GB an int64: ``appended_number``).
    ``cache_bytes`` None: no WiredTiger section (a server on another storage engine, a mongos,
    a trimmed hosted reply)."""
    reply: dict[str, Any] = {"host": "wire-test:27017", "version": VERSIONS[version][0],
                             "process": "mongod", "pid": Int64(4242), "uptime": 12.0,
                             "localTime": dt.datetime.now(UTC), "ok": 1.0}
    if cache_bytes is not None:
        reply["wiredTiger"] = {"cache": {
            "maximum bytes configured": appended_number(cache_bytes)}}
    return reply


def databases(*names: str) -> dict:
    """``listDatabases`` with ``nameOnly: true`` (what pymongo's list_database_names sends):
    one ``{name}`` per database (src/mongo/db/commands/list_databases.idl at 011c843a: nameOnly
    "Return just the database name without metadata"; the manual's "listDatabases" page: it
    leaves out sizeOnDisk, empty and totalSize). No names: a listing of none."""
    return {"databases": [{"name": name} for name in names], "ok": 1.0}


# A fresh server's own databases, none of them labkit's: the first fresh database on it finds
# nothing stale to clean up.
OWN_DATABASES = databases("admin", "config", "local")


def collections(db: str, *names: str) -> dict:
    """``listCollections`` with ``nameOnly: true``: a cursor on ``<db>.$cmd.listCollections``
    of ``{name, type}`` (src/mongo/db/list_collections.idl at 160e9ba2,
    ListCollectionsReplyItem: name and type are its required fields). No names: a database
    without collections, or one that does not exist."""
    return cursor_reply(f"{db}.$cmd.listCollections",
                        [{"name": name, "type": "collection"} for name in names])


# dropDatabase: {ok: 1} alone, whether or not the database existed (src/mongo/db/
# drop_database.idl at 0c95addd, reply_type OkReply; since 4.9, SERVER-55145). The "dropped"
# field mongosh prints is the shell's own, and a 4.x server's; labkit reads nothing but ok.
DATABASE_DROPPED = {"ok": 1.0}


def collection_dropped(namespace: str = "") -> dict:
    """``drop``: src/mongo/db/drop.idl at 160e9ba2, DropReply {nIndexesWas: int32, ns, ok}."""
    return {"nIndexesWas": 1, "ns": namespace, "ok": 1.0}


# The lease's first write, an upsert of {_id: "lease"} that inserted it, and a renewal of it.
LEASE_UPSERTED = upserted("lease")
LEASE_RENEWED = update_reply(1, 1)


# Privileges: connectionStatus and MongoDB's built-in roles -----------------------------------
#
# ``connectionStatus`` (src/mongo/db/commands/connection_status.cpp at 02fe612f, its reply in
# connection_status.idl at 0c95addd; the manual's "connectionStatus" page): {authInfo:
# {authenticatedUsers: [{user, db}], authenticatedUserRoles: [{role, db}],
# authenticatedUserPrivileges: [{resource, actions}]}, ok: 1.0}; the privileges are only the
# authenticated user's, merged into one entry per resource (``expandPrivileges``), so a
# connection without a user lists none, whatever the localhost exception lets it do. The same
# in 6.0, 7.0 and 8.0 (the IDL reply dates from 2021).
#
# A resource (src/mongo/db/auth/privilege.cpp, ``Privilege::toParsedPrivilege``): {db: "",
# collection: ""} for every normal collection, {db: "", collection: "system.js"} for a
# collection name in any database, {db: "x", collection: ""} for one database, {cluster: true},
# {anyResource: true}, {system_buckets: ""}.
#
# Each built-in role's actions: src/mongo/db/auth/builtin_roles.yml at 00c97452 (an 8.0-era
# version: it has moveCollection); 6.0 kept the same roles in builtin_roles.cpp, and 6.0 and 7.0
# lack a few newer actions (search indexes, query settings), none of them one labkit asks for.
# Entries on the config and local databases and on system collections of one database are left
# out: they cover no labkit_ database.

# builtin_roles.yml's action lists (its YAML anchors), in its order.
READ = ["changeStream", "collStats", "dbHash", "dbStats", "find", "killCursors",
        "listCollections", "listIndexes", "listSearchIndexes", "planCacheRead"]
READ_WRITE = [*READ, "cleanupStructuredEncryptionData", "compactStructuredEncryptionData",
              "convertToCapped", "createCollection", "createIndex", "createSearchIndexes",
              "dropCollection", "dropIndex", "dropSearchIndex", "insert", "remove",
              "renameCollectionSameDB", "update", "updateSearchIndex"]
USER_ADMIN = ["changeCustomData", "changePassword", "createUser", "createRole", "dropUser",
              "dropRole", "grantRole", "revokeRole", "setAuthenticationRestriction", "viewUser",
              "viewRole"]
DB_ADMIN = ["analyze", "bypassDocumentValidation", "collMod", "collStats", "compact",
            "convertToCapped", "createCollection", "dbStats", "dropCollection", "dropDatabase",
            "dropIndex", "dropSearchIndex", "createIndex", "createSearchIndexes",
            "enableProfiler", "listCollections", "listIndexes", "listSearchIndexes",
            "updateSearchIndex", "planCacheIndexFilter", "planCacheRead", "planCacheWrite",
            "reIndex", "renameCollectionSameDB", "storageDetails", "validate"]
CLUSTER_MONITOR = ["connPoolStats", "getCmdLineOpts", "getDefaultRWConcern", "getLog",
                   "getParameter", "getShardMap", "hostInfo", "listDatabases",
                   "listSampledQueries", "listSessions", "listShards", "netstat",
                   "operationMetrics", "replSetGetConfig", "replSetGetStatus", "serverStatus",
                   "top", "useUUID", "inprog", "shardingState", "allCollectionStats",
                   "shardedDataDistribution"]
HOST_MANAGER = ["applicationMessage", "auditConfigure", "connPoolSync", "dropConnections",
                "logRotate", "oidReset", "setParameter", "shutdown", "touch", "unlock",
                "flushRouterConfig", "fsync", "invalidateUserCache", "killAnyCursor",
                "killAnySession", "killop", "replSetResizeOplog", "resync", "trafficRecord",
                "rotateCertificates", "oidcListKeys", "oidcRefreshKeys"]
CLUSTER_MANAGER = ["appendOplogNote", "applicationMessage", "replSetConfigure",
                   "replSetGetConfig", "replSetGetStatus", "replSetStateChange", "resync",
                   "addShard", "removeShard", "listSessions", "listShards", "flushRouterConfig",
                   "cleanupOrphaned", "getDefaultRWConcern", "runTenantMigration",
                   "setDefaultRWConcern", "setFeatureCompatibilityVersion",
                   "setClusterParameter", "getClusterParameter", "setChangeStreamState",
                   "getChangeStreamState", "querySettings", "queryStatsRead",
                   "queryStatsReadTransformed", "checkMetadataConsistency",
                   "transitionFromDedicatedConfigServer", "transitionToDedicatedConfigServer"]
RESTORE_WRITE = ["bypassDocumentValidation", "collMod", "convertToCapped", "createCollection",
                 "createIndex", "createSearchIndexes", "dropCollection", "insert",
                 "updateSearchIndex"]

ANY = {"db": "", "collection": ""}  # builtin_roles.yml's any_normal
CLUSTER = {"cluster": True}
ANY_RESOURCE = {"anyResource": True}  # its matchType any
BUCKETS = {"system_buckets": ""}  # its any_system_buckets


def named(collection: str) -> dict[str, str]:
    """A collection of that name in any database (builtin_roles.yml's matchType collection)."""
    return {"db": "", "collection": collection}


# Each admin-only role: the roles it includes, then its own privileges (resource, actions).
ROLES: dict[str, tuple[list[str], list[tuple[dict[str, Any], list[str]]]]] = {
    "readAnyDatabase": ([], [(ANY, READ), (CLUSTER, ["listDatabases"]),
                             (named("system.js"), READ), (BUCKETS, READ)]),
    "readWriteAnyDatabase": (["readAnyDatabase"], [(ANY, READ_WRITE),
                                                   (named("system.js"), READ_WRITE),
                                                   (BUCKETS, READ_WRITE)]),
    "userAdminAnyDatabase": ([], [(ANY, [*USER_ADMIN, "listCachedAndActiveUsers"]),
                                  (CLUSTER, ["listDatabases", "authSchemaUpgrade",
                                             "invalidateUserCache", "viewUser"]),
                                  (named("system.users"), READ)]),
    "dbAdminAnyDatabase": ([], [(CLUSTER, ["listDatabases", "applyOps"]), (ANY, DB_ADMIN),
                                (ANY, ["configureQueryAnalyzer"]),
                                (named("system.profile"), [*READ, "convertToCapped",
                                                           "createCollection",
                                                           "dropCollection"]),
                                (BUCKETS, DB_ADMIN)]),
    "clusterMonitor": ([], [(CLUSTER, CLUSTER_MONITOR),
                            (ANY, ["collStats", "dbStats", "getDatabaseVersion",
                                   "getShardVersion", "indexStats"]),
                            (named("system.profile"), ["find"])]),
    "hostManager": ([], [(CLUSTER, HOST_MANAGER), (ANY, ["killCursors"])]),
    "clusterManager": ([], [(CLUSTER, CLUSTER_MANAGER),
                            (ANY, ["analyzeShardKey", "configureQueryAnalyzer",
                                   "clearJumboFlag", "splitChunk", "moveChunk",
                                   "moveCollection", "enableSharding", "splitVector",
                                   "refineCollectionShardKey", "reshardCollection"]),
                            (ANY_RESOURCE, ["dbCheck"])]),
    "clusterAdmin": (["clusterMonitor", "hostManager", "clusterManager"],
                     [(ANY, ["dropDatabase"]),
                      (ANY_RESOURCE, ["importCollection", "exportCollection"])]),
    "__queryableBackup": ([], [(ANY_RESOURCE, ["collStats", "listCollections", "listIndexes",
                                               "listSearchIndexes"]),
                               (ANY, ["find"]), (BUCKETS, ["find"]),
                               (CLUSTER, ["getParameter", "listDatabases", "useUUID"])]),
    "backup": (["__queryableBackup"], [(CLUSTER, ["appendOplogNote", "serverStatus",
                                                  "setUserWriteBlockMode"])]),
    "restore": ([], [(CLUSTER, ["getParameter", "forceUUID", "useUUID",
                                "bypassWriteBlockingMode", "setUserWriteBlockMode",
                                "applyOps"]),
                     (ANY_RESOURCE, ["listCollections"]), (ANY, [*RESTORE_WRITE, *USER_ADMIN]),
                     (BUCKETS, RESTORE_WRITE)]),
    "directShardOperations": ([], [(CLUSTER, ["issueDirectShardOperations"])]),
    "root": (["clusterAdmin", "userAdminAnyDatabase", "dbAdminAnyDatabase",
              "readWriteAnyDatabase", "backup", "restore", "directShardOperations"],
             [(ANY_RESOURCE, ["validate"]), (CLUSTER, ["useTenant"])]),
}
# A role granted on one database grants its actions there: {db: <that one>, collection: ""}.
DB_ROLES = {"read": READ, "readWrite": READ_WRITE, "dbAdmin": DB_ADMIN}
# The user notebooks/hosted.md asks for: readWriteAnyDatabase with dbAdminAnyDatabase (every action
# labkit uses on its databases, dropDatabase included); neither role gives serverStatus.
HOSTED_USER = ("readWriteAnyDatabase", "dbAdminAnyDatabase")


def resource_key(resource: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """A resource document as a key, whatever the order of its fields."""
    return tuple(sorted(resource.items()))


def _expand(role: str, into: dict[tuple[tuple[str, Any], ...], set[str]]) -> None:
    """Add ``role``'s privileges, and those of every role it includes, to ``into``."""
    included, own = ROLES[role]
    for other in included:
        _expand(other, into)
    for resource, actions in own:
        into.setdefault(resource_key(resource), set()).update(actions)


def privileges_of(roles: Iterable[str] = (), db_roles: Mapping[str, str] | None = None,
                  custom: Iterable[tuple[Mapping[str, Any], Iterable[str]]] = ()
                  ) -> list[dict[str, Any]]:
    """``authenticatedUserPrivileges`` for a user holding ``roles`` (admin-only built-in
    roles), ``db_roles`` (role: database) and ``custom`` privileges: one entry per resource,
    each role's actions merged into it, as the server's ``expandPrivileges`` lists them (the
    actions in name order, as the fixture writes them; labkit reads them as a set)."""
    merged: dict[tuple[tuple[str, Any], ...], set[str]] = {}
    for role in roles:
        _expand(role, merged)
    for role, database in (db_roles or {}).items():
        merged.setdefault(resource_key({"db": database, "collection": ""}), set()).update(
            DB_ROLES[role])
    for resource, actions in custom:
        merged.setdefault(resource_key(resource), set()).update(actions)
    return [{"resource": dict(key), "actions": sorted(actions)}
            for key, actions in merged.items()]


def status(*roles: str, user: str = "labkit", db_roles: dict[str, str] | None = None,
           custom: Iterable[tuple[Mapping[str, Any], Iterable[str]]] = (),
           custom_role: str = "labkitRole") -> dict[str, Any]:
    """A ``connectionStatus`` reply (``showPrivileges: true``) for a user of admin holding
    ``roles`` on admin, ``db_roles`` (role: database) on single databases, and, where
    ``custom`` privileges are given, the custom role ``custom_role`` that grants them."""
    custom = list(custom)
    names = [*({"role": r, "db": "admin"} for r in roles),
             *({"role": r, "db": d} for r, d in (db_roles or {}).items()),
             *([{"role": custom_role, "db": "admin"}] if custom else [])]
    return {"authInfo": {"authenticatedUsers": [{"user": user, "db": "admin"}],
                         "authenticatedUserRoles": names,
                         "authenticatedUserPrivileges": privileges_of(roles, db_roles, custom)},
            "ok": 1.0}


# A connection without a user: no users, no roles, and the privileges field present but empty
# (connection_status.cpp sets it whenever showPrivileges is true).
UNAUTHENTICATED = {"authInfo": {"authenticatedUsers": [], "authenticatedUserRoles": [],
                                "authenticatedUserPrivileges": []}, "ok": 1.0}

HOSTED_PAGE = Path(__file__).resolve().parent.parent / "notebooks" / "hosted.md"


def hosted_role() -> list[tuple[dict[str, Any], list[str]]]:
    """The privileges of the custom role notebooks/hosted.md tells users to create, read from the
    page's ``db.createRole`` block (one list of actions on every database, one on the
    cluster), so the page and these tests cannot drift."""
    text = HOSTED_PAGE.read_text(encoding="utf-8")
    start = text.index("db.createRole({")
    block = text[start:text.index("db.createUser(", start)]
    database, cluster = re.findall(r"actions: \[([^\]]*)\]", block)
    return [(ANY, re.findall(r'"(\w+)"', database)), (CLUSTER, re.findall(r'"(\w+)"', cluster))]


# The role sets a hosted or shared server gives, each with the connectionStatus reply of its
# user and the actions labkit asks for that builtin_roles.yml leaves out of its roles.
ROLE_SETS: dict[str, tuple[dict[str, Any], set[str]]] = {
    "root": (status("root"), set()),
    "readWriteAnyDatabase": (status("readWriteAnyDatabase"),
                             {"dropDatabase", "fsync", "serverStatus"}),
    "readWrite on one database": (status(db_roles={"readWrite": "shop"}),
                                  {need.action for need in NEEDS}),
    "notebooks/hosted.md's custom role": (status(custom=hosted_role()), {"fsync"}),
    "dbAdminAnyDatabase and readWriteAnyDatabase": (
        status("dbAdminAnyDatabase", "readWriteAnyDatabase"), {"fsync", "serverStatus"}),
    "clusterMonitor added": (status("dbAdminAnyDatabase", "readWriteAnyDatabase",
                                    "clusterMonitor"), {"fsync"}),
    "backup added": (status("readWriteAnyDatabase", "backup"), {"dropDatabase", "fsync"}),
}


# A server by URI, and what labkit's server layer asks of it ---------------------------------


def script_from_uri(server: WireServer, reply: Mapping[str, Any] | None = None, *,
                    probe: Mapping[str, Any] | None = None,
                    databases: Mapping[str, Any] | None = None,
                    status_reply: Mapping[str, Any] | None = None) -> None:
    """Answer what ``mongo.from_uri`` asks after ``ping`` and ``buildInfo``: ``serverStatus``
    with ``status_reply``, else as the user's privileges decide (the server checks the action
    on the cluster: this version's status, or 13), ``connectionStatus`` with ``reply`` (a user
    holding root where None), and, where given, the privilege probe's ``listCollections`` and
    ``listDatabases``."""
    reply = status("root") if reply is None else reply
    if status_reply is None:
        allowed = parse_connection_status(reply).allows("serverStatus")
        status_reply = server_status(version=server.version) if allowed \
            else unauthorized("serverStatus")
    server.on("serverStatus", status_reply)
    server.on("connectionStatus", reply)
    if probe is not None:
        server.on("listCollections", probe)
    if databases is not None:
        server.on("listDatabases", databases)


def script_fresh_databases(server: WireServer) -> None:
    """Answer what labkit's fresh databases ask of a server by URI whatever they are for: the
    first one's clean-up (``listDatabases``: the server's own databases only), each one's lease
    (its upsert into ``labkit_lease``) and each one's drop."""
    server.on("listDatabases", OWN_DATABASES)
    server.on("update", LEASE_UPSERTED,
              match=lambda sent: sent["update"] == mongo.LEASE_COLLECTION)
    server.on("dropDatabase", DATABASE_DROPPED)


def started(wire_server: WireServer,
            privileges: Mapping[str, Any] | None = None) -> servers.MongoServer:
    """A MongoServer on the scripted server as labkit keeps one it started (no privileges read),
    or with the ``privileges`` a connectionStatus reply gives."""
    return servers.MongoServer(
        uri=wire_server.uri, how="local", version=wire_server.release,
        privileges=parse_connection_status(privileges) if privileges else None)


def clock(wire_server: WireServer, now: dt.datetime) -> None:
    """Answer the ``hello`` labkit's own code sends with the server's clock at ``now``
    (``localTime``, a date: src/mongo/db/repl/hello.idl at 099ec26f, HelloCommandReply)."""
    wire_server.on("hello", lambda _sent: {**hello_reply(wire_server.version), "localTime": now})


# The scripted server's clock in the clean-up's tests: two hours ahead of this machine's, so
# that a lease renewed a moment ago by this machine's clock is stale by the server's (labkit
# judges by the server's).
AHEAD = dt.timedelta(hours=2)


def leases(now: dt.datetime) -> dict[str, dict | None]:
    """The lease each of ``script_leftovers``' databases holds (None: none), renewed by this
    machine's clock at ``now``."""
    forged = "labkit:v1:" + "0" * 64
    return {"labkit_stale_0001": {"_id": "lease", "mark": servers.mark_for("labkit_stale_0001"),
                                  "renewed": now},
            "labkit_inuse_0002": {"_id": "lease", "mark": servers.mark_for("labkit_inuse_0002"),
                                  "renewed": now + AHEAD - dt.timedelta(minutes=1)},
            "labkit_unmarked_0003": None,
            "labkit_forged_0004": {"_id": "lease", "mark": forged, "renewed": now - AHEAD},
            "labkit_undated_0005": {"_id": "lease",
                                    "mark": servers.mark_for("labkit_undated_0005"),
                                    "renewed": "yesterday"}}


def script_leftovers(wire_server: WireServer) -> None:
    """A server whose clock is AHEAD of this machine's, holding the databases of ``leases``, one
    labkit_ database this user may not read, and one that is not labkit's at all."""
    now = dt.datetime.now(UTC).replace(microsecond=0)
    clock(wire_server, now + AHEAD)
    held = leases(now)
    wire_server.on("listDatabases", databases("admin", "shop", *held, "labkit_unreadable_0006"))

    def lease(sent: Sent) -> dict:
        if sent.db == "labkit_unreadable_0006":
            return unauthorized("find", sent.db)
        document = held[sent.db]
        return cursor_reply(f"{sent.db}.{mongo.LEASE_COLLECTION}", [document] if document else [])

    wire_server.on("find", lease)
    wire_server.on("dropDatabase", DATABASE_DROPPED)


# Lessons 01-03's claims: a server answering what every claim needs ---------------------------


def script_claims_server(wire_server: WireServer) -> None:
    """What connecting and making a fresh database ask, whatever the claim: labkit's
    ``from_uri`` as notebooks/hosted.md's user (serverStatus is refused with 13: neither role grants
    it, and the server checks before the command runs, src/mongo/db/
    service_entry_point_common.cpp), the clean-up, the lease, the loads and the drop. A claim's
    own reads are scripted by each test."""
    script_from_uri(wire_server, status(*HOSTED_USER))
    script_fresh_databases(wire_server)
    wire_server.on("insert", inserted)


def run_claim(server: mongo.MongoServer, claim_id: str) -> runner.ClaimResult:
    """Run one registered claim as ``labkit run`` does, on ``server``."""
    # Imported here: the stand-in mongod of test_wire_server_start.py reads this file's shapes
    # at each start, and the run's machinery would add a tenth of a second to each.
    from labkit.experiments import catalogue
    from labkit.run import runner

    with runner.Context(mongodb_provider=lambda: server) as ctx:
        return runner.run_claim(catalogue.get(claim_id), ctx)


def in_database(sent: Sent, label: str) -> bool:
    """Whether ``sent`` went to one of labkit's fresh databases made for ``label``
    (``labkit_<label>_<8 hex>``)."""
    return re.fullmatch(f"labkit_{label}_[0-9a-f]{{8}}", sent.db) is not None


@dataclass
class Lab:
    """A scripted server and labkit's ``MongoServer`` connected to it by ``from_uri``."""

    wire: WireServer
    server: mongo.MongoServer

    def run(self, claim_id: str) -> runner.ClaimResult:
        """Run one registered claim as ``labkit run`` does, on this server."""
        return run_claim(self.server, claim_id)

    def on_database(self, label: str) -> list[Sent]:
        """What labkit sent to its fresh database ``labkit_<label>_<8 hex>``."""
        return [s for s in self.wire.sent if in_database(s, label)]


@contextlib.contextmanager
def connected(wire_server: WireServer) -> Iterator[Lab]:
    """labkit connected by ``from_uri`` to a scripted server answering what every claim
    needs (``script_claims_server``); its ``MongoServer`` stopped (its databases dropped) at
    the end."""
    script_claims_server(wire_server)
    server = mongo.from_uri(wire_server.uri)
    try:
        yield Lab(wire_server, server)
    finally:
        server.stop()


# The fixtures as the server must store them, with their BSON types.

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


# One claim's traffic, as a table.


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


# Where the source chapter recorded the claim's result on a real server (D3, S2, B1: the claims
# registered with recorded=True), the reply is that recorded result; elsewhere it is the result
# MongoDB's manual states for the claim.
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
            wire_server.on(question.command, cursor_of(documents),
                           match=_asks(load, question))


def _asks(load: Load, question: Question) -> Callable[[Sent], bool]:
    """Whether a command is this question: on its load's database and collection, with
    exactly its fields (so a read labkit changed finds no reply and fails the test)."""
    def match(sent: Sent) -> bool:
        got = sent.as_written()
        return (in_database(sent, load.label) and got.get(question.command) == load.collection
                and set(got) == {question.command, *question.fields}
                and all(same_bson(got[k], v) for k, v in question.fields.items()))
    return match
