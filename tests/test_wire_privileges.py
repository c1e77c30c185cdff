"""What labkit makes of a MongoDB user's privileges, over the wire: ``read_privileges`` and
``from_uri`` run unmodified through real pymongo against the scripted server
(``mongo_wire.WireServer``), for the built-in role sets a hosted or shared server gives, the
custom role docs/hosted.md creates, a server without access control, and one with access
control but no user yet (MongoDB's localhost exception).

The replies' shapes, from the server's source (mongodb/mongo, each file at the commit read):

- ``connectionStatus`` (src/mongo/db/commands/connection_status.cpp at 02fe612f, its reply in
  connection_status.idl at 0c95addd; the manual's "connectionStatus" page): ``{authInfo:
  {authenticatedUsers: [{user, db}], authenticatedUserRoles: [{role, db}],
  authenticatedUserPrivileges: [{resource, actions}]}, ok: 1.0}``; the privileges are only
  the authenticated user's, merged into one entry per resource (``expandPrivileges``), so a
  connection without a user lists none, whatever the localhost exception lets it do. The
  same in 6.0, 7.0 and 8.0 (the IDL reply dates from 2021).
- a resource (src/mongo/db/auth/privilege.cpp, ``Privilege::toParsedPrivilege``): ``{db: "",
  collection: ""}`` for every normal collection, ``{db: "", collection: "system.js"}`` for a
  collection name in any database, ``{db: "x", collection: ""}`` for one database,
  ``{cluster: true}``, ``{anyResource: true}``, ``{system_buckets: ""}``.
- each built-in role's actions: src/mongo/db/auth/builtin_roles.yml at 00c97452 (an 8.0-era
  version: it has ``moveCollection``); 6.0 kept the same roles in builtin_roles.cpp, and 6.0
  and 7.0 lack a few newer actions (search indexes, query settings), none of them one labkit
  asks for. Entries on the ``config`` and ``local`` databases and on system collections of
  one database are left out: they cover no ``labkit_`` database.
- what a connection without a user may run (src/mongo/db/commands.cpp,
  ``checkAuthorizationImplPreParse`` and ``CommandInvocation::checkAuthorization``, in the
  versions read at 1213026963's commit and before): without access control, everything;
  with it, a command that requires authentication is refused with 13, "command X requires
  authentication" ("Command X…" in the newest versions; labkit reads only the code), except
  where the localhost exception is open (src/mongo/db/auth/authorization_session_impl.cpp at
  c53c0cf2, ``isUsingLocalhostBypass``: access control on, a connection from the server's
  machine, no user yet). Then the command's own check runs: ``listDatabases`` has none
  (list_databases.cpp at 002ed3c0) and lists only the databases the connection has a
  privilege on (list_databases_common.h at 1060a6d6, ``authorizedDatabases``): none, so
  ``{databases: [], ok: 1.0}``; ``listCollections`` needs the ``listCollections`` action on
  its database, which the exception's privileges (``_getDefaultPrivileges``: createUser and
  grantRole on admin, a few cluster actions) do not hold, so it is refused with 13, "not
  authorized on <db> to execute command { … }".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
from mongo_wire import (
    appended_number,
    create_live_user,
    cursor_reply,
    error_reply,
    single_host_uri,
    unauthorized,
)

from labkit.servers import mongo
from labkit.servers.privileges import (
    NEED_BY_ACTION,
    NEEDS,
    PROBE_DATABASE,
    UNAUTHORIZED,
    parse_connection_status,
    read_privileges,
)

wire = pytest.mark.wire
VERSIONS = ["6.0", "7.0", "8.0"]

# builtin_roles.yml's action lists (its YAML anchors), in its order ---------------------------
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


def _key(resource: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(resource.items()))


def _expand(role: str, into: dict[tuple[tuple[str, Any], ...], set[str]]) -> None:
    """Add ``role``'s privileges, and those of every role it includes, to ``into``."""
    included, own = ROLES[role]
    for other in included:
        _expand(other, into)
    for resource, actions in own:
        into.setdefault(_key(resource), set()).update(actions)


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
        merged.setdefault(_key({"db": database, "collection": ""}), set()).update(
            DB_ROLES[role])
    for resource, actions in custom:
        merged.setdefault(_key(resource), set()).update(actions)
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


def hosted_role() -> list[tuple[dict[str, Any], list[str]]]:
    """The privileges of the custom role docs/hosted.md tells users to create, read from the
    page's ``db.createRole`` block (one list of actions on every database, one on the
    cluster), so the page and these tests cannot drift."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "hosted.md").read_text(
        encoding="utf-8")
    start = text.index("db.createRole({")
    block = text[start:text.index("db.createUser(", start)]
    database, cluster = re.findall(r"actions: \[([^\]]*)\]", block)
    return [(ANY, re.findall(r'"(\w+)"', database)), (CLUSTER, re.findall(r'"(\w+)"', cluster))]


# The other replies these tests script ----------------------------------------------------------


def requires_authentication(command: str) -> dict[str, Any]:
    """A command that requires authentication, from a connection without a user to a server
    with access control (commands.cpp, checkAuthorizationImplPreParse)."""
    return error_reply(UNAUTHORIZED, f"command {command} requires authentication",
                       "Unauthorized")


def probe_listed() -> dict[str, Any]:
    """``listCollections`` on the probe's database where it is allowed: a cursor on
    ``<db>.$cmd.listCollections`` with nothing in it (the database does not exist)."""
    return cursor_reply(f"{PROBE_DATABASE}.$cmd.listCollections", [])


NO_DATABASES = {"databases": [], "ok": 1.0}  # listDatabases, nameOnly, listing none


def server_status(cache_bytes: int = 256 * 1024**2) -> dict[str, Any]:
    """A ``serverStatus`` reply with what labkit reads: ``wiredTiger.cache["maximum bytes
    configured"]`` (the manual's "serverStatus" page, wiredTiger section), appended as the
    server appends a statistic (``mongo_wire.appended_number``: an int32 for 256 MB)."""
    return {"host": "db.example.net:27017", "process": "mongod", "uptime": 60.0,
            "wiredTiger": {"cache": {"maximum bytes configured": appended_number(cache_bytes)}},
            "ok": 1.0}


def script(server, reply: Mapping[str, Any], *, probe: Mapping[str, Any] | None = None,
           databases: Mapping[str, Any] | None = None,
           status_reply: Mapping[str, Any] | None = None) -> None:
    """Answer what ``from_uri`` asks: ``serverStatus`` with ``status_reply``, else as the
    reply's privileges decide (the server checks the action on the cluster),
    ``connectionStatus`` with ``reply``, and, where given, the probe's ``listCollections`` and
    ``listDatabases``."""
    if status_reply is None:
        allowed = parse_connection_status(reply).allows("serverStatus")
        status_reply = server_status() if allowed else unauthorized("serverStatus")
    server.on("serverStatus", status_reply)
    server.on("connectionStatus", reply)
    if probe is not None:
        server.on("listCollections", probe)
    if databases is not None:
        server.on("listDatabases", databases)


PRIVILEGE_COMMANDS = ("connectionStatus", "listCollections", "listDatabases")


def asked(server) -> list[str]:
    """The commands ``read_privileges`` sent, in order (``from_uri``'s others left out)."""
    return [name for name in server.commands() if name in PRIVILEGE_COMMANDS]


def _client(server):
    return mongo.mongo_client(server.uri)


# What each role set may do ------------------------------------------------------------------

ROLE_SETS = {
    "root": (status("root"), set()),
    "readWriteAnyDatabase": (status("readWriteAnyDatabase"),
                             {"dropDatabase", "fsync", "serverStatus"}),
    "readWrite on one database": (status(db_roles={"readWrite": "shop"}),
                                  {need.action for need in NEEDS}),
    "docs/hosted.md's custom role": (status(custom=hosted_role()), {"fsync"}),
    "dbAdminAnyDatabase and readWriteAnyDatabase": (
        status("dbAdminAnyDatabase", "readWriteAnyDatabase"), {"fsync", "serverStatus"}),
    "clusterMonitor added": (status("dbAdminAnyDatabase", "readWriteAnyDatabase",
                                    "clusterMonitor"), {"fsync"}),
    "backup added": (status("readWriteAnyDatabase", "backup"), {"dropDatabase", "fsync"}),
}


@wire
@pytest.mark.parametrize("case", ROLE_SETS)
def test_from_uri_reads_each_role_set_from_connection_status(wire_server, case):
    """A user with credentials: ``from_uri`` asks ``connectionStatus`` once, with
    ``showPrivileges: true`` on admin, sends no probe (an authenticated user proves access
    control), and its privileges lack exactly what builtin_roles.yml leaves out of the roles."""
    reply, lacking = ROLE_SETS[case]
    script(wire_server, reply)
    server = mongo.from_uri(wire_server.uri)
    try:
        privileges = server.privileges
    finally:
        server.stop()
    assert asked(wire_server) == ["connectionStatus"]
    (sent,) = wire_server.named("connectionStatus")
    assert (sent.db, sent["connectionStatus"], sent["showPrivileges"]) == ("admin", 1, True)
    assert privileges is not None
    assert privileges.access_control
    assert not privileges.no_user_yet
    assert {need.action for need in privileges.missing()} == lacking
    assert privileges.usable == (not lacking & {n.action for n in NEEDS if n.required})
    assert privileges.users == ("labkit (admin)",)


@wire
@pytest.mark.parametrize("wire_server", VERSIONS, indirect=True)
def test_read_privileges_sends_one_command_for_a_root_user(wire_server):
    """``read_privileges`` for a root user: exactly one command, ``{connectionStatus: 1,
    showPrivileges: true}`` on admin (an int32 and a boolean), and every privilege labkit uses
    (the reply is the same in 6.0, 7.0 and 8.0)."""
    wire_server.on("connectionStatus", status("root"))
    with _client(wire_server) as client:
        privileges = read_privileges(client)
    assert wire_server.commands() == ["connectionStatus"]
    (sent,) = wire_server.sent
    assert type(sent["connectionStatus"]) is int
    assert sent["showPrivileges"] is True
    assert privileges.missing() == []
    assert privileges.usable
    assert privileges.roles == ("root (admin)",)
    assert privileges.report() == ("user labkit (admin) with root (admin): every privilege "
                                   "labkit uses")


@wire
def test_a_role_on_one_database_is_refused_with_what_it_lacks(wire_server):
    """readWrite on one named database covers none of labkit's randomly named databases: the
    user cannot run the experiments, and the report says each required action is missing
    (MongoDB has no prefix resources)."""
    wire_server.on("connectionStatus", status(db_roles={"readWrite": "shop"}))
    with _client(wire_server) as client:
        privileges = read_privileges(client)
    assert not privileges.usable
    assert privileges.roles == ("readWrite (shop)",)
    text = privileges.report()
    assert text.startswith("user labkit (admin) with readWrite (shop); missing: find (required")
    assert "remove (required, on every database: empty a collection between tries (O9's " \
           "delete_many); given by readWriteAnyDatabase, root)" in text


# Without a user: access control, or not? ---------------------------------------------------


@wire
@pytest.mark.parametrize("wire_server", VERSIONS, indirect=True)
def test_a_server_without_access_control_answers_the_probe(wire_server):
    """No user and no access control: ``connectionStatus`` lists nobody, then the probe,
    ``listCollections`` (nameOnly) on ``labkit_access_probe``, is answered, so every action is
    allowed; nothing else is sent (nothing is created)."""
    wire_server.on("connectionStatus", UNAUTHENTICATED)
    wire_server.on("listCollections", probe_listed())
    with _client(wire_server) as client:
        privileges = read_privileges(client)
    assert wire_server.commands() == ["connectionStatus", "listCollections"]
    probe = wire_server.named("listCollections")[0]
    assert (probe.db, probe["listCollections"], probe["nameOnly"]) == (PROBE_DATABASE, 1, True)
    assert "filter" not in probe.doc
    assert not privileges.access_control
    assert privileges.usable
    assert privileges.report() == ("the server runs without access control: every privilege "
                                   "labkit uses")


@wire
@pytest.mark.parametrize("wire_server", VERSIONS, indirect=True)
def test_no_credentials_on_a_server_with_access_control(wire_server):
    """No user, access control on, not the localhost exception: the probe and then
    ``listDatabases`` (nameOnly) are refused with 13 "requires authentication", and the report
    says no user is authenticated, with every required action missing."""
    wire_server.on("connectionStatus", UNAUTHENTICATED)
    wire_server.on("listCollections", requires_authentication("listCollections"))
    wire_server.on("listDatabases", requires_authentication("listDatabases"))
    with _client(wire_server) as client:
        privileges = read_privileges(client)
    assert wire_server.commands() == ["connectionStatus", "listCollections", "listDatabases"]
    (listing,) = wire_server.named("listDatabases")
    assert (listing.db, listing["nameOnly"]) == ("admin", True)
    assert privileges.access_control
    assert not privileges.no_user_yet
    assert not privileges.usable
    assert privileges.report().startswith("no user is authenticated (the URI has no "
                                          "credentials); missing: find (required")


@wire
@pytest.mark.parametrize("wire_server", VERSIONS, indirect=True)
def test_the_localhost_exception_is_not_taken_for_a_server_without_access_control(wire_server):
    """Access control on, no user yet, a connection from the server's machine: the server
    answers ``listDatabases`` (listing nothing) but refuses the probe's ``listCollections``, so
    labkit says access control is on and no user exists yet, and what to do; it is not usable
    (before, the answered ``listDatabases`` made labkit think there was no access control, and
    every write then failed)."""
    wire_server.on("connectionStatus", UNAUTHENTICATED)
    wire_server.on("listCollections", unauthorized("listCollections", db=PROBE_DATABASE))
    wire_server.on("listDatabases", NO_DATABASES)
    with _client(wire_server) as client:
        privileges = read_privileges(client)
    assert wire_server.commands() == ["connectionStatus", "listCollections", "listDatabases"]
    assert privileges.access_control
    assert privileges.no_user_yet
    assert not privileges.usable
    assert not privileges.allows("insert")
    assert privileges.report() == (
        "access control is on and no user exists yet (MongoDB's localhost exception): from this "
        "machine the server lets a connection without a user create the first user and nothing "
        "else; create a user administrator in the admin database, then labkit's user "
        "(docs/hosted.md, \"The user labkit needs\"), and put that user's name and password in "
        "LABKIT_MONGODB_URI")


@wire
def test_from_uri_refuses_to_create_anything_before_a_user_exists(wire_server):
    """Through ``from_uri``, the localhost exception's server is found but refuses a fresh
    database before anything is sent to create it, saying no user exists yet and that the
    first user is to be created (not which roles to grant a user who does not exist)."""
    from labkit.errors import ServerUnavailable

    script(wire_server, UNAUTHENTICATED,
           probe=unauthorized("listCollections", db=PROBE_DATABASE), databases=NO_DATABASES)
    server = mongo.from_uri(wire_server.uri)
    try:
        with pytest.raises(ServerUnavailable) as caught:
            server.fresh_database("x")
    finally:
        server.stop()
    assert "access control is on and no user exists yet" in str(caught.value)
    assert str(caught.value).splitlines()[-1].startswith("Hint: create the first user")
    assert asked(wire_server) == ["connectionStatus", "listCollections", "listDatabases"]
    assert not {"insert", "update", "create"} & set(wire_server.commands())


# The privilege table: what labkit's commands need ------------------------------------------


# The role docs/hosted.md's table described before it listed remove: every action it named.
TABLE_WITHOUT_REMOVE = [(ANY, ["find", "insert", "update", "createCollection", "dropDatabase",
                               "dropCollection", "listCollections", "collStats"]),
                        (CLUSTER, ["fsync", "serverStatus"])]


@wire
def test_a_role_without_remove_cannot_run_the_experiments(wire_server):
    """A custom role with every action of the old table but ``remove``: O9 deletes
    (``delete_many``, which the server checks as ``remove``: authorization_checks.cpp,
    checkAuthForDelete), so the user is told up front that ``remove`` is required instead of
    passing the check and failing O9 with Unauthorized."""
    script(wire_server, status(custom=TABLE_WITHOUT_REMOVE))
    server = mongo.from_uri(wire_server.uri)
    server.stop()
    assert server.privileges is not None
    assert [need.action for need in server.privileges.missing()] == ["remove"]
    assert not server.privileges.usable


@wire
def test_without_server_status_the_report_says_what_is_lost(wire_server):
    """readWriteAnyDatabase (Atlas's "read and write to any database") has no
    ``serverStatus``: the server refuses it with 13, the cache is said to be unreadable, and
    the report names what ``serverStatus`` is for (the B-tree's MongoDB write volume and cache
    reads, and the cache) and the four roles that give it."""
    script(wire_server, status("readWriteAnyDatabase"))
    server = mongo.from_uri(wire_server.uri)
    server.stop()
    assert "serverStatus" in wire_server.commands()
    assert server.cache.startswith("WiredTiger cache: the server's own setting (not readable: "
                                   "not authorized on admin")
    assert server.privileges is not None
    assert "serverStatus (optional, on the cluster: the B-tree experiment's MongoDB write volume " \
           "and cache reads, and the WiredTiger cache labkit reports (without it those figures " \
           "are not run); given by clusterMonitor, backup, clusterAdmin, root)" \
           in server.privileges.report()


# Live: the real replies have the scripted shapes ----------------------------------------------


def shape(value: Any) -> Any:
    """A reply's shape: each field's BSON type as pymongo decodes it, lists by their first
    element (an empty list is only ``list``)."""
    if isinstance(value, Mapping):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


def assert_same_shape(live: Any, scripted: Any, where: str = "reply") -> None:
    """Every field of the scripted reply is in the live one with the same type (lists
    compared by their first elements where both have one)."""
    if isinstance(scripted, dict):
        assert isinstance(live, dict), (where, live)
        for key, item in scripted.items():
            assert key in live, f"{where}.{key} is scripted but the server did not send it"
            assert_same_shape(live[key], item, f"{where}.{key}")
    elif isinstance(scripted, list):
        assert isinstance(live, list), (where, live)
        if scripted and live:
            assert_same_shape(live[0], scripted[0], f"{where}[0]")
    else:
        assert live == scripted, f"{where} is a {live} on the server, scripted as {scripted}"


def _live_user(mongodb_server, roles: list[str]):
    """A user holding ``roles`` on admin, and a URI for it on the session's server (skipped
    where the server is not one self-run mongod: ``mongo_wire.single_host_uri``)."""
    import uuid

    user, password = f"labkit_shape_{uuid.uuid4().hex[:6]}", uuid.uuid4().hex
    uri = single_host_uri(mongodb_server.uri, user, password)
    create_live_user(mongodb_server.client().admin, user, password, roles)
    return user, uri


@pytest.mark.mongodb
@pytest.mark.parametrize("roles", [["readWriteAnyDatabase"],
                                   ["readWriteAnyDatabase", "dbAdminAnyDatabase",
                                    "clusterMonitor"]])
def test_live_connection_status_has_the_scripted_shape_and_grants(mongodb_server, roles):
    """A real user's ``connectionStatus`` (showPrivileges) has the scripted reply's fields and
    types, and grants labkit exactly the actions the scripted reply of the same roles grants
    (so a wrong copy of builtin_roles.yml shows on the first live run)."""
    from pymongo import MongoClient

    user, uri = _live_user(mongodb_server, roles)
    scripted = status(*roles, user=user)
    try:
        with MongoClient(uri) as client:
            live = client.admin.command("connectionStatus", showPrivileges=True)
    finally:
        mongodb_server.client().admin.command("dropUser", user)
    # The privileges' resources differ in form (db and collection, cluster, ...): each one
    # scripted must be among the server's, and every entry is {resource, actions: [str]}.
    entries = live["authInfo"].pop("authenticatedUserPrivileges")
    scripted_entries = scripted["authInfo"].pop("authenticatedUserPrivileges")
    assert_same_shape(shape(live), shape(scripted))
    assert all(set(entry) == {"resource", "actions"} and isinstance(entry["resource"], dict)
               and all(isinstance(a, str) for a in entry["actions"]) for entry in entries)
    live_resources = {_key(entry["resource"]) for entry in entries}
    assert {_key(entry["resource"]) for entry in scripted_entries} <= live_resources
    assert {r["role"] for r in live["authInfo"]["authenticatedUserRoles"]} >= set(roles)
    live["authInfo"]["authenticatedUserPrivileges"] = entries
    scripted["authInfo"]["authenticatedUserPrivileges"] = scripted_entries
    parsed_live, parsed_script = parse_connection_status(live), parse_connection_status(scripted)
    assert {n.action for n in parsed_live.missing()} == {n.action for n in parsed_script.missing()}


@pytest.mark.mongodb
def test_live_probe_and_listing_have_the_scripted_shapes(mongodb_server):
    """Without credentials, the session's server answers as one of the scripted cases: a
    server without access control lists the probe's (absent) database as an empty cursor and
    answers ``listDatabases``; one with access control refuses the probe with 13; either
    way ``read_privileges`` says which, and nothing named ``labkit_access_probe`` exists."""
    from pymongo import MongoClient
    from pymongo.errors import OperationFailure

    with MongoClient(single_host_uri(mongodb_server.uri)) as client:
        connection = client.admin.command("connectionStatus", showPrivileges=True)
        assert_same_shape(shape(connection), shape(UNAUTHENTICATED))
        try:
            listed = client[PROBE_DATABASE].command("listCollections", nameOnly=True)
        except OperationFailure as exc:
            refused: int | None = exc.code
        else:
            refused = None
        if refused is not None:
            assert refused == UNAUTHORIZED
            privileges = read_privileges(client)
            assert privileges.access_control
            assert not privileges.no_user_yet  # the session's server has its users
        else:
            assert_same_shape(shape(listed), shape(probe_listed()))
            assert listed["cursor"]["firstBatch"] == []
            assert_same_shape(shape(client.admin.command("listDatabases", nameOnly=True)),
                              shape({"databases": [{"name": "admin"}], "ok": 1.0}))
            assert not read_privileges(client).access_control
    assert PROBE_DATABASE not in mongodb_server.client().list_database_names()


@pytest.mark.mongodb
def test_live_server_status_has_the_scripted_cache_field(mongodb_server):
    """``serverStatus`` on a real server has the one field labkit reads from the scripted
    reply, ``wiredTiger.cache["maximum bytes configured"]``, with its type."""
    from pymongo.errors import OperationFailure

    try:
        live = mongodb_server.client().admin.command("serverStatus")
    except OperationFailure as exc:  # a user without serverStatus: nothing to compare
        pytest.skip(f"this server's user may not run serverStatus ({exc.code})")
    scripted = server_status()
    assert_same_shape(shape({"wiredTiger": {"cache": {
        "maximum bytes configured": live["wiredTiger"]["cache"]["maximum bytes configured"]}}}),
        shape({"wiredTiger": scripted["wiredTiger"]}))


def test_the_scripted_roles_grant_what_builtin_roles_yml_says():
    """The fixture's expansion (included roles, then merged per resource) gives root every
    action labkit asks for, and readWriteAnyDatabase exactly its own and readAnyDatabase's
    actions on every database, with listDatabases on the cluster."""
    root = parse_connection_status(status("root"))
    assert root.missing() == []
    entries = {tuple(sorted(p["resource"].items())): set(p["actions"])
               for p in privileges_of(["readWriteAnyDatabase"])}
    assert entries[_key(ANY)] == set(READ_WRITE)
    assert entries[_key(CLUSTER)] == {"listDatabases"}
    assert all(action in NEED_BY_ACTION for action in ("remove", "serverStatus"))


@wire
def test_a_custom_role_with_any_action_on_any_resource_may_do_everything(wire_server):
    """A custom role granting ``anyAction`` on ``{anyResource: true}`` is listed by
    ``connectionStatus`` as that one action (src/mongo/db/auth/action_set.cpp at 07b11864,
    ``ActionSet::getActionsAsStrings``): labkit reads it as every action, on every database and
    the cluster, instead of refusing the user."""
    wire_server.on("connectionStatus", status(custom=[({"anyResource": True}, ["anyAction"])]))
    with _client(wire_server) as client:
        privileges = read_privileges(client)
    assert privileges.missing() == []
    assert privileges.usable
    assert privileges.allows("serverStatus")
    assert privileges.allows("dropDatabase")
