"""What labkit makes of a MongoDB user's privileges, over the wire: ``read_privileges`` and
``from_uri`` run unmodified through real pymongo against the scripted server
(``mongo_wire.WireServer``), for the built-in role sets a hosted or shared server gives, the
custom role notebooks/hosted.md creates, a server without access control, and one with access
control but no user yet (MongoDB's localhost exception).

The replies' shapes are ``wire_replies``' (``status`` builds ``connectionStatus`` from
src/mongo/db/commands/connection_status.cpp and each built-in role's actions from
src/mongo/db/auth/builtin_roles.yml; ``UNAUTHENTICATED`` is a connection without a user), and
what a connection without a user meets is, from the server's source (mongodb/mongo, each file
at the commit read):

- what a connection without a user may run (src/mongo/db/commands.cpp,
  ``checkAuthorizationImplPreParse`` and ``CommandInvocation::checkAuthorization``, in the
  versions read at 1213026963's commit and before): without access control, everything;
  with it, a command that requires authentication is refused with 13
  (``mongo_wire.unauthenticated``; labkit reads only the code), except
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

import pytest
from mongo_wire import (
    SERIES,
    create_live_user,
    same_shape,
    single_host_uri,
    unauthenticated,
    unauthorized,
)
from wire_replies import (
    ANY,
    CLUSTER,
    READ_WRITE,
    ROLE_SETS,
    UNAUTHENTICATED,
    collections,
    databases,
    privileges_of,
    resource_key,
    script_from_uri,
    server_status,
    status,
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


PRIVILEGE_COMMANDS = ("connectionStatus", "listCollections", "listDatabases")


def asked(server) -> list[str]:
    """The commands ``read_privileges`` sent, in order (``from_uri``'s others left out)."""
    return [name for name in server.commands() if name in PRIVILEGE_COMMANDS]


def _client(server):
    return mongo.mongo_client(server.uri)


# What each role set may do ------------------------------------------------------------------


@wire
@pytest.mark.parametrize("case", ROLE_SETS)
def test_from_uri_reads_each_role_set_from_connection_status(wire_server, case):
    """A user with credentials: ``from_uri`` asks ``connectionStatus`` once, with
    ``showPrivileges: true`` on admin, sends no probe (an authenticated user proves access
    control), and its privileges lack exactly what builtin_roles.yml leaves out of the roles."""
    reply, lacking = ROLE_SETS[case]
    script_from_uri(wire_server, reply)
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
@pytest.mark.parametrize("wire_server", SERIES, indirect=True)
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
    assert str(privileges.report()) == ("user labkit (admin) with root (admin): every privilege "
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
    text = str(privileges.report())
    assert text.startswith("user labkit (admin) with readWrite (shop); missing: find (required")
    assert "remove (required, on every database: empty a collection between tries (O9's " \
           "delete_many); given by readWriteAnyDatabase, root)" in text


# Without a user: access control, or not? ---------------------------------------------------


@wire
@pytest.mark.parametrize("wire_server", SERIES, indirect=True)
def test_a_server_without_access_control_answers_the_probe(wire_server):
    """No user and no access control: ``connectionStatus`` lists nobody, then the probe,
    ``listCollections`` (nameOnly) on ``labkit_access_probe``, is answered, so every action is
    allowed; nothing else is sent (nothing is created)."""
    wire_server.on("connectionStatus", UNAUTHENTICATED)
    wire_server.on("listCollections", collections(PROBE_DATABASE))
    with _client(wire_server) as client:
        privileges = read_privileges(client)
    assert wire_server.commands() == ["connectionStatus", "listCollections"]
    probe = wire_server.named("listCollections")[0]
    assert (probe.db, probe["listCollections"], probe["nameOnly"]) == (PROBE_DATABASE, 1, True)
    assert "filter" not in probe.doc
    assert not privileges.access_control
    assert privileges.usable
    assert str(privileges.report()) == ("the server runs without access control: every privilege "
                                        "labkit uses")


@wire
@pytest.mark.parametrize("wire_server", SERIES, indirect=True)
def test_no_credentials_on_a_server_with_access_control(wire_server):
    """No user, access control on, not the localhost exception: the probe and then
    ``listDatabases`` (nameOnly) are refused with 13 "requires authentication", and the report
    says no user is authenticated, with every required action missing."""
    wire_server.on("connectionStatus", UNAUTHENTICATED)
    wire_server.on("listCollections", unauthenticated("listCollections"))
    wire_server.on("listDatabases", unauthenticated("listDatabases"))
    with _client(wire_server) as client:
        privileges = read_privileges(client)
    assert wire_server.commands() == ["connectionStatus", "listCollections", "listDatabases"]
    (listing,) = wire_server.named("listDatabases")
    assert (listing.db, listing["nameOnly"]) == ("admin", True)
    assert privileges.access_control
    assert not privileges.no_user_yet
    assert not privileges.usable
    assert str(privileges.report()).startswith("no user is authenticated (the URI has no "
                                          "credentials); missing: find (required")


@wire
@pytest.mark.parametrize("wire_server", SERIES, indirect=True)
def test_the_localhost_exception_is_not_taken_for_a_server_without_access_control(wire_server):
    """Access control on, no user yet, a connection from the server's machine: the server
    answers ``listDatabases`` (listing nothing) but refuses the probe's ``listCollections``, so
    labkit says access control is on and no user exists yet, and what to do; it is not usable
    (before, the answered ``listDatabases`` made labkit think there was no access control, and
    every write then failed)."""
    wire_server.on("connectionStatus", UNAUTHENTICATED)
    wire_server.on("listCollections", unauthorized("listCollections", db=PROBE_DATABASE))
    wire_server.on("listDatabases", databases())
    with _client(wire_server) as client:
        privileges = read_privileges(client)
    assert wire_server.commands() == ["connectionStatus", "listCollections", "listDatabases"]
    assert privileges.access_control
    assert privileges.no_user_yet
    assert not privileges.usable
    assert not privileges.allows("insert")
    assert str(privileges.report()) == (
        "access control is on and no user exists yet (MongoDB's localhost exception): from this "
        "machine the server lets a connection without a user create the first user and nothing "
        "else; create a user administrator in the admin database, then labkit's user "
        "(notebooks/hosted.md, \"The user labkit needs\"), and put that user's name and password "
        "in LABKIT_MONGODB_URI")


@wire
def test_from_uri_refuses_to_create_anything_before_a_user_exists(wire_server):
    """Through ``from_uri``, the localhost exception's server is found but refuses a fresh
    database before anything is sent to create it, saying no user exists yet and that the
    first user is to be created (not which roles to grant a user who does not exist)."""
    from labkit.errors import ServerUnavailable

    script_from_uri(wire_server, UNAUTHENTICATED,
           probe=unauthorized("listCollections", db=PROBE_DATABASE), databases=databases())
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


# The role notebooks/hosted.md's table described before it listed remove: every action it named.
TABLE_WITHOUT_REMOVE = [(ANY, ["find", "insert", "update", "createCollection", "dropDatabase",
                               "dropCollection", "listCollections", "collStats"]),
                        (CLUSTER, ["fsync", "serverStatus"])]


@wire
def test_a_role_without_remove_cannot_run_the_experiments(wire_server):
    """A custom role with every action of the old table but ``remove``: O9 deletes
    (``delete_many``, which the server checks as ``remove``: authorization_checks.cpp,
    checkAuthForDelete), so the user is told up front that ``remove`` is required instead of
    passing the check and failing O9 with Unauthorized."""
    script_from_uri(wire_server, status(custom=TABLE_WITHOUT_REMOVE))
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
    script_from_uri(wire_server, status("readWriteAnyDatabase"))
    server = mongo.from_uri(wire_server.uri)
    server.stop()
    assert "serverStatus" in wire_server.commands()
    assert str(server.cache).startswith("WiredTiger cache: the server's own setting (not readable: "
                                   "not authorized on admin")
    assert server.privileges is not None
    assert "serverStatus (optional, on the cluster: the B-tree experiment's MongoDB write volume " \
           "and cache reads, and the WiredTiger cache labkit reports (without it those figures " \
           "are not run); given by clusterMonitor, backup, clusterAdmin, root)" \
           in str(server.privileges.report())


# Live: the real replies have the scripted shapes ----------------------------------------------


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
    assert same_shape(scripted, live) == []
    assert all(set(entry) == {"resource", "actions"} and isinstance(entry["resource"], dict)
               and all(isinstance(a, str) for a in entry["actions"]) for entry in entries)
    live_resources = {resource_key(entry["resource"]) for entry in entries}
    assert {resource_key(entry["resource"]) for entry in scripted_entries} <= live_resources
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
        assert same_shape(UNAUTHENTICATED, connection) == []
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
            assert same_shape(collections(PROBE_DATABASE), listed) == []
            assert listed["cursor"]["firstBatch"] == []
            assert same_shape(databases("admin"),
                              client.admin.command("listDatabases", nameOnly=True)) == []
            assert not read_privileges(client).access_control
    assert PROBE_DATABASE not in mongodb_server.client().list_database_names()


# serverStatus's one field labkit reads for the cache, an int32 or int64 by its size.
CACHE_FIELD = "wiredTiger.cache.maximum bytes configured"


@pytest.mark.mongodb
def test_live_server_status_has_the_scripted_cache_field(mongodb_server):
    """``serverStatus`` on a real server has the one field labkit reads from the scripted
    reply, ``wiredTiger.cache["maximum bytes configured"]``, an integer of the width its size
    gives it (appendNumber: an int32 for the scripted 0.25 GB, an int64 for 8 GB)."""
    from pymongo.errors import OperationFailure

    try:
        live = mongodb_server.client().admin.command("serverStatus")
    except OperationFailure as exc:  # a user without serverStatus: nothing to compare
        pytest.skip(f"this server's user may not run serverStatus ({exc.code})")
    scripted = {"wiredTiger": server_status()["wiredTiger"]}
    assert same_shape(scripted, live, sized={CACHE_FIELD}) == []


def test_the_scripted_roles_grant_what_builtin_roles_yml_says():
    """The fixture's expansion (included roles, then merged per resource) gives root every
    action labkit asks for, and readWriteAnyDatabase exactly its own and readAnyDatabase's
    actions on every database, with listDatabases on the cluster."""
    root = parse_connection_status(status("root"))
    assert root.missing() == []
    entries = {resource_key(p["resource"]): set(p["actions"])
               for p in privileges_of(["readWriteAnyDatabase"])}
    assert entries[resource_key(ANY)] == set(READ_WRITE)
    assert entries[resource_key(CLUSTER)] == {"listDatabases"}
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
