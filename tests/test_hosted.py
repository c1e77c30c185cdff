"""Hosted and least-privilege MongoDB servers (issue 19, "Hosted and least-privilege servers").

What the connected user may do is read from ``connectionStatus`` with ``showPrivileges: true``.
The replies are the wire tests' (``wire_replies.status``): the reply's documented shape
(the manual's ``connectionStatus`` page, the server's connection_status.cpp) with each role's
actions from MongoDB's ``src/mongo/db/auth/builtin_roles.yml``. They are not a fake server:
what a server really answers is checked by the tests marked ``mongodb``, which skip where
there is none.
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from helpers import BareServer
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_replies import ANY, CLUSTER, HOSTED_PAGE, UNAUTHENTICATED, hosted_role, status

from labkit import servers
from labkit._redact import redact
from labkit.errors import CleanupIncomplete
from labkit.run import doctor
from labkit.servers import base
from labkit.servers.privileges import NEED_BY_ACTION, NEEDS, parse_connection_status


def missing(reply: dict, **kwargs) -> set[str]:
    return {need.action for need in parse_connection_status(reply, **kwargs).missing()}


@pytest.mark.parametrize(("roles", "lacks"), [
    (("readWriteAnyDatabase",), {"dropDatabase", "fsync", "serverStatus"}),
    (("readWriteAnyDatabase", "dbAdminAnyDatabase"), {"fsync", "serverStatus"}),
    (("readWriteAnyDatabase", "dbAdminAnyDatabase", "clusterMonitor", "hostManager"), set()),
    (("readWriteAnyDatabase", "clusterAdmin"), set()),
    (("root",), set()),
])
def test_what_each_role_set_lacks(roles, lacks):
    """readWrite roles lack dropDatabase (builtin_roles.yml: it is dbAdmin's and clusterAdmin's);
    fsync is hostManager's and serverStatus clusterMonitor's; the experiments can run with all."""
    privileges = parse_connection_status(status(*roles))
    assert missing(status(*roles)) == lacks
    assert privileges.usable
    assert privileges.roles == tuple(f"{role} (admin)" for role in roles)


def test_read_only_users_cannot_run_the_experiments():
    """readAnyDatabase lacks insert, update, remove and createCollection: the experiments
    cannot run."""
    privileges = parse_connection_status(status("readAnyDatabase"))
    assert not privileges.usable
    assert {n.action for n in privileges.missing(required=True)} == {
        "insert", "update", "remove", "createCollection"}


def test_a_role_on_one_database_does_not_cover_labkit_s_databases():
    """readWrite and dbAdmin on one named database grant nothing on ``labkit_<label>_<random>``
    databases: MongoDB has no prefix resources, so only ``db: ""`` covers them."""
    reply = status(db_roles={"readWrite": "shop", "dbAdmin": "labkit"})
    privileges = parse_connection_status(reply)
    assert not privileges.usable
    assert missing(reply) == {need.action for need in NEEDS}


def test_an_unauthenticated_connection_is_not_usable_and_says_so():
    """No credentials on a server with access control: nothing is allowed, and the report says
    no user is authenticated (``ping`` and ``buildInfo`` would have passed)."""
    privileges = parse_connection_status(UNAUTHENTICATED)
    assert not privileges.usable
    assert str(privileges.report()).startswith("no user is authenticated")


def test_a_server_without_access_control_allows_everything():
    """Where the server runs without access control (an unauthenticated ``listDatabases``
    succeeded), every action is allowed, as the server does."""
    privileges = parse_connection_status(UNAUTHENTICATED, access_control=False)
    assert privileges.usable
    assert privileges.missing() == []
    assert str(privileges.report()) == ("the server runs without access control: every "
                                        "privilege labkit uses")


def test_a_named_user_means_access_control_whatever_the_caller_said():
    """An authenticated user's privileges are the ones listed, even if the caller thought the
    server had no access control."""
    assert not parse_connection_status(status("readAnyDatabase"), access_control=False).usable


def test_any_resource_covers_both_scopes():
    """``{anyResource: true}`` (the manual's Resource Document) covers databases and cluster."""
    reply = {"authInfo": {"authenticatedUsers": [{"user": "u", "db": "admin"}],
                          "authenticatedUserPrivileges": [
                              {"resource": {"anyResource": True},
                               "actions": [need.action for need in NEEDS]}]}}
    assert missing(reply) == set()


def test_a_cluster_action_on_a_database_resource_does_not_count():
    """fsync listed on ``{db: "", collection: ""}`` is not fsync on the cluster (the server
    checks cluster actions against the cluster resource)."""
    reply = status("readWriteAnyDatabase")
    reply["authInfo"]["authenticatedUserPrivileges"].append(
        {"resource": ANY, "actions": ["fsync", "serverStatus"]})
    assert {"fsync", "serverStatus"} <= missing(reply)


def test_the_report_names_what_is_missing_and_the_roles_that_give_it():
    """The report says plainly which action is missing, what labkit does without it, and which
    built-in roles grant it."""
    text = str(parse_connection_status(status("readWriteAnyDatabase")).report())
    assert text.startswith("user labkit (admin) with readWriteAnyDatabase (admin); missing:")
    assert "dropDatabase (optional, on every database: drop each run's database in one step " \
           "(without it labkit drops its collections); given by dbAdminAnyDatabase, " \
           "clusterAdmin, root)" in text
    assert "fsync (optional, on the cluster:" in text
    assert "hostManager" in text


@pytest.mark.parametrize("need", NEEDS, ids=lambda need: need.action)
def test_every_role_named_for_a_need_grants_it(need):
    """Each role a need names grants that action where labkit needs it (builtin_roles.yml)."""
    for role in need.roles:
        assert need.action not in missing(status(role)), role


# The action the server checks for each pymongo call (src/mongo/db/auth/authorization_checks.cpp
# at 02fe612f: checkAuthForFind, ...Insert, ...Update with insert for an upsert, ...Delete
# (remove), ...Create; the manual's "Privilege Actions" page for the others). A method that
# reads a collection through aggregate (count_documents) needs find; $collStats needs collStats;
# estimated_document_count sends the count command, which checks find as a query does
# (src/mongo/db/commands/count_cmd.cpp, checkAuthForOperation); so does the count command itself.
CALL_ACTIONS = {
    "find": {"find"}, "find_one": {"find"}, "count_documents": {"find"}, "distinct": {"find"},
    "estimated_document_count": {"find"},
    "aggregate": {"find", "collStats"}, "insert_one": {"insert"}, "insert_many": {"insert"},
    "update_one": {"update", "insert"}, "update_many": {"update", "insert"},
    "replace_one": {"update", "insert"}, "delete_one": {"remove"}, "delete_many": {"remove"},
    # bulk_write sends insert, update and delete commands, each checked as above; the
    # findAndModify of find_one_and_* checks find, then update (insert too for an upsert) or
    # remove (src/mongo/db/commands/find_and_modify_common.cpp at 09d4e0d9,
    # addPrivilegesRequiredForFindAndModify).
    "bulk_write": {"insert", "update", "remove"},
    "find_one_and_update": {"find", "update", "insert"},
    "find_one_and_replace": {"find", "update", "insert"}, "find_one_and_delete": {"find", "remove"},
    "create_collection": {"createCollection"}, "drop": {"dropCollection"},
    "drop_collection": {"dropCollection"}, "drop_database": {"dropDatabase"},
    "list_collection_names": {"listCollections"},
    # listDatabases lists what the user has privileges on without an action of its own; the
    # rest reach no collection (close, a cursor's next, buildInfo).
    "list_database_names": set(), "close": set(), "next": set(), "server_info": set(),
}
COMMAND_ACTIONS = {"ping": set(), "hello": set(), "buildInfo": set(), "connectionStatus": set(),
                   "listDatabases": set(), "listCollections": {"listCollections"},
                   "fsync": {"fsync"}, "serverStatus": {"serverStatus"}, "count": {"find"}}


def _pymongo_calls() -> dict[str, set[str]]:
    """Each pymongo method (``command`` by the command it names) called in labkit's MongoDB
    code (experiments, engines, servers), with the files that call it."""
    import ast
    from pathlib import Path

    from pymongo import MongoClient
    from pymongo.collection import Collection
    from pymongo.database import Database

    methods = {name for kind in (Collection, Database, MongoClient) for name in dir(kind)
               if not name.startswith("_") and callable(getattr(kind, name, None))}
    package = Path(servers.__file__).resolve().parent.parent
    calls: dict[str, set[str]] = {}
    for room in ("experiments", "engines", "servers"):
        for path in (package / room).rglob("*.py"):
            if path == package / "servers" / "room.py":
                # The room's own mongod, before access control is on: its createRole and
                # createUser make the role this table describes and need none of its actions
                # (tests/test_wire_room.py checks what they send).
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr in methods):
                    continue
                name = node.func.attr
                if name == "command" and node.args and isinstance(node.args[0], ast.Constant):
                    name = f"command {node.args[0].value}"
                calls.setdefault(name, set()).add(path.name)
    return calls


def test_every_pymongo_call_labkit_makes_needs_only_actions_the_table_names():
    """Each pymongo call in labkit's MongoDB code needs actions that ``NEEDS`` (and so
    notebooks/hosted.md's table) names, so a role built from the table runs every experiment (O9's
    ``delete_many`` needs ``remove``); a call this test does not know fails it until its action
    is written down here."""
    names = {need.action for need in NEEDS}
    calls = _pymongo_calls()
    assert "delete_many" in calls
    for call, files in calls.items():
        command = call.removeprefix("command ")
        table = COMMAND_ACTIONS if call.startswith("command ") else CALL_ACTIONS
        assert command in table, f"{call} (in {', '.join(sorted(files))}): which action?"
        assert table[command] <= names, (call, table[command] - names)


def test_every_collection_labkit_creates_skips_pymongos_list_collections_check():
    """pymongo's ``create_collection`` asks ``listCollections`` first unless told
    ``check_exists=False`` (its documented default, True): that action is optional in the
    table (only the drop fallback needs it), so a role without it would pass ``labkit doctor``
    and then fail every B-tree row and lesson 03's validator. Each ``create_collection`` in
    labkit's MongoDB code is on a fresh database and passes ``check_exists=False``."""
    import ast
    from pathlib import Path

    package = Path(servers.__file__).resolve().parent.parent
    found = []
    for room in ("experiments", "engines", "servers"):
        for path in (package / room).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr == "create_collection":
                    given = {k.arg: k.value for k in node.keywords}
                    check = given.get("check_exists")
                    found.append((path.name, isinstance(check, ast.Constant)
                                  and check.value is False))
    assert found, "no create_collection found: the scan is broken"
    assert all(skips for _, skips in found), found
    assert not NEED_BY_ACTION["listCollections"].required


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.sampled_from(
                        ["authInfo", "authenticatedUsers", "authenticatedUserPrivileges",
                         "resource", "actions", "db", "collection", "cluster", "user",
                         "anyResource"]), inner, max_size=4), max_leaves=30))
def test_any_reply_shape_parses_without_error(reply):
    """Whatever shape a reply takes, parsing never raises, and an action is granted only if
    the reply lists it somewhere (fixed seed)."""
    privileges = parse_connection_status({"authInfo": reply})
    listed = repr(reply)
    for need in NEEDS:
        if need.action not in listed:
            assert not privileges.allows(need.action)


# Working with less: a stand-in client raising the server's own refusal ----------------------
# These stand-ins raise pymongo's OperationFailure with code 13 (Unauthorized, the server's
# error_codes.yml), as a server does for an action the user lacks; they pin labkit's choices
# on that refusal, not what a server answers (the live test below does).


class Refusing:
    """A pymongo-shaped stand-in: databases and collections in a dict, refusing what
    ``denied`` names with OperationFailure code 13."""

    def __init__(self, databases: dict[str, dict[str, list]], denied: set[str]) -> None:
        self.databases, self.denied = databases, denied
        self.admin = self
        self.dropped: list[str] = []  # collections dropped, in order

    def _deny(self, action: str) -> None:
        from pymongo.errors import OperationFailure

        if action in self.denied:
            raise OperationFailure(f"not authorized to {action}", code=13)

    def command(self, name: str, **_):
        return {"localTime": dt.datetime.now(dt.UTC)}

    def close(self) -> None:
        """Nothing to close."""

    def list_database_names(self):
        return [name for name, colls in self.databases.items() if colls]

    def drop_database(self, name: str) -> None:
        self._deny("dropDatabase")
        self.databases.pop(name, None)

    def __getitem__(self, name: str):
        return _Database(self, name)


class _Database:
    def __init__(self, client: Refusing, name: str) -> None:
        self.client, self.name = client, name

    def list_collection_names(self):
        return list(self.client.databases.get(self.name, {}))

    def drop_collection(self, name: str) -> None:
        self.client._deny(f"dropCollection {name}")
        self.client.databases.get(self.name, {}).pop(name, None)
        self.client.dropped.append(name)

    def __getitem__(self, name: str):
        return _Collection(self.client, self.name, name)


class _Collection:
    def __init__(self, client: Refusing, db: str, name: str) -> None:
        self.client, self.db, self.name = client, db, name

    def find_one(self, query):
        self.client._deny(f"find {self.db}")
        documents = self.client.databases.get(self.db, {}).get(self.name, [])
        return documents[0] if documents else None


def _server(client: Refusing, reply: dict) -> servers.MongoServer:
    return servers.MongoServer(uri="mongodb+srv://cluster0.example.net/", how="uri",
                               version="6.0.16", privileges=parse_connection_status(reply),
                               _client=client)  # type: ignore[arg-type]


def _labkit_db(label: str) -> str:
    return f"labkit_{label}_{uuid.uuid4().hex[:8]}"


def test_without_drop_database_the_collections_are_dropped_lease_last():
    """A readWriteAnyDatabase user: labkit does not ask dropDatabase, drops each collection
    instead (the lease last, so a half-dropped database stays provably labkit's), and the
    database is gone."""
    name = _labkit_db("x")
    client = Refusing({name: {"t": [{}], "labkit_lease": [{}], "a": [{}]}}, {"dropDatabase"})
    server = _server(client, status("readWriteAnyDatabase"))
    server._created.append(name)
    server.drop(name)
    dropped = client.dropped
    assert dropped[-1] == "labkit_lease"
    assert sorted(dropped) == ["a", "labkit_lease", "t"]
    assert name not in client.list_database_names()
    assert server.left == {}


def test_a_refused_drop_database_falls_back_even_when_privileges_said_yes():
    """A server that refuses dropDatabase (code 13) although the listed privileges allowed it
    gets the same fallback: the collections are dropped."""
    name = _labkit_db("y")
    client = Refusing({name: {"t": [{}], "labkit_lease": [{}]}}, {"dropDatabase"})
    server = _server(client, status("root"))
    server._created.append(name)
    server.drop(name)
    assert name not in client.list_database_names()
    assert server.left == {}


def test_what_cannot_be_dropped_is_said_and_never_raised():
    """Where collections cannot be dropped either, ``drop`` raises nothing (a verdict stays
    as judged) and ``left`` names the database, what stayed and the server's refusal."""
    name = _labkit_db("z")
    client = Refusing({name: {"t": [{}], "labkit_lease": [{}]}},
                      {"dropDatabase", "dropCollection t"})
    server = _server(client, status("readWriteAnyDatabase"))
    server._created.append(name)
    server.drop(name)
    assert set(server.left) == {name}
    assert server.left[name].startswith(f"{name}: left t (dropDatabase is not allowed and "
                                        "not authorized to dropCollection t")
    assert name not in server._created


def test_cleanup_incomplete_keeps_its_data():
    """The error carries the database, what was left and why, as attributes."""
    exc = CleanupIncomplete("labkit_a_1", ["t"], "not authorized")
    assert (exc.database, exc.left, exc.why) == ("labkit_a_1", ["t"], "not authorized")


def test_stale_cleanup_skips_what_it_may_not_drop_and_says_so():
    """A killed run's database that this user may not drop is skipped and said (with what was
    left), never raised: ``fresh_database`` goes on, and a database it may not read is said
    too; one it may drop is removed."""
    old = dt.datetime.now(dt.UTC) - servers.STALE_AFTER - dt.timedelta(minutes=5)
    kept, removable, unreadable = _labkit_db("kept"), _labkit_db("gone"), _labkit_db("secret")

    def lease(name):
        return [{"_id": "lease", "mark": servers.mark_for(name), "renewed": old}]

    client = Refusing({kept: {"t": [{}], "labkit_lease": lease(kept)},
                       removable: {"labkit_lease": lease(removable)},
                       unreadable: {"labkit_lease": lease(unreadable)}},
                      {"dropDatabase", "dropCollection t", f"find {unreadable}"})
    found = _server(client, status("readWriteAnyDatabase")).clean_stale()
    assert found.removed == [removable]
    assert set(found.skipped) == {kept, unreadable}
    assert str(found.skipped[kept]).startswith("left t: dropDatabase is not allowed and not "
                                          "authorized to dropCollection t")
    assert str(found.skipped[unreadable]) == ("could not drop it: OperationFailure: not authorized "
                                         f"to find {unreadable}")


def test_a_user_who_cannot_write_is_told_before_anything_is_created():
    """With a read-only user, ``fresh_database`` refuses up front, saying what is missing and
    which roles give it, before any clean-up or creation."""
    client = Refusing({}, set())
    server = _server(client, status("readAnyDatabase"))
    with pytest.raises(servers.ServerUnavailable) as caught:
        server.fresh_database("x")
    text = str(caught.value)
    assert "does not let this user run the experiments" in text
    assert "insert (required, on every database: load the fixtures and each run's lease; " \
           "given by readWriteAnyDatabase, root)" in text
    assert "notebooks/hosted.md" in str(caught.value.hint)
    assert server._created == []


class _Failing(BareServer):
    """A server whose drop always fails: the base's bookkeeping alone is under test."""

    def _drop(self, name: str) -> None:
        raise RuntimeError("the server went away")


def test_a_failed_drop_is_recorded_for_every_vendor():
    """``Server.drop`` (both vendors' one home) records a failed clean-up in ``left`` instead
    of raising, so a claim's verdict is never turned into ``error`` by its clean-up."""
    server = _Failing(how="x", version="1")
    name = server.fresh_database("a")
    server.drop(name)
    assert server.left == {name: "RuntimeError: the server went away"}


# The doctor ------------------------------------------------------------------------------


@pytest.mark.parametrize(("reply", "ok", "words"), [
    (status("readWriteAnyDatabase", "dbAdminAnyDatabase", "clusterMonitor", "hostManager"),
     True, "every privilege labkit uses"),
    (status("readWriteAnyDatabase"), True, "missing: dropDatabase (optional"),
    (UNAUTHENTICATED, False, "no user is authenticated (the URI has no credentials); missing: "
                             "find (required"),
])
def test_doctor_reports_what_the_uri_s_user_may_do(monkeypatch, reply, ok, words):
    """``doctor``'s URI line says what the user may do; a user who cannot run the experiments
    fails the line (``ping`` and ``buildInfo`` alone said OK)."""
    server = _server(Refusing({}, set()), reply)
    monkeypatch.setenv("LABKIT_MONGODB_URI", server.uri)
    monkeypatch.setattr(servers, "provide", lambda kind, mode: server)
    check = doctor._mongodb_uri()
    assert check.ok is ok
    assert f"privileges: {parse_connection_status(reply).report()}" in check.detail
    assert words in check.detail
    assert redact(check.detail) == check.detail  # --json's redaction keeps every word of it


def test_doctor_says_when_privileges_are_not_readable():
    """A server that did not answer ``connectionStatus``: said, not guessed."""
    assert doctor.privileges_line(None) == ("privileges: not readable (the server did not "
                                            "answer connectionStatus)")


# mongodb+srv:// and TLS: the driver's defaults -----------------------------------------------


@pytest.mark.parametrize("uri", [
    "mongodb+srv://labkit:pw@cluster0.example.net/?retryWrites=true&w=majority",
    "mongodb://labkit:pw@db.example.net:27017/?tls=true&authSource=admin",
])
def test_a_hosted_uri_reaches_the_driver_as_written(monkeypatch, uri):
    """labkit hands a user's URI to pymongo unchanged and adds only UUID, date, timeout and
    read-preference options (every read from the primary: an experiment reads its own
    writes): no ``directConnection``, no TLS setting, so SRV discovery and TLS stay pymongo's
    (the Connection String and Initial DNS Seedlist Discovery specifications: ``+srv`` turns
    TLS on)."""
    import pymongo

    seen = {}

    def record(given, **options):
        seen.update(uri=given, **options)

    monkeypatch.setattr(pymongo, "MongoClient", record)
    servers.mongo_client(uri)
    assert seen == {"uri": uri, "uuidRepresentation": "standard", "tz_aware": True,
                    "serverSelectionTimeoutMS": 5000, "socketTimeoutMS": 300_000,
                    "readPreference": "primary"}


# Live: what only a server can confirm ------------------------------------------------------


@pytest.mark.mongodb
def test_a_read_write_any_database_user_runs_and_cleans_up(mongodb_server):
    """On a real server, a user with readWriteAnyDatabase alone: ``connectionStatus`` lists
    dropDatabase as missing, a fresh database is made and removed all the same (through its
    collections where the server enforces access control), and nothing is left."""
    from mongo_wire import create_live_user, single_host_uri

    admin = mongodb_server.client().admin
    user, password = f"labkit_rw_{uuid.uuid4().hex[:6]}", uuid.uuid4().hex
    uri = single_host_uri(mongodb_server.uri, user, password)
    create_live_user(admin, user, password, ["readWriteAnyDatabase"])
    try:
        with servers.from_uri(uri) as limited:
            assert limited.privileges is not None
            assert limited.privileges.users == (f"{user} (admin)",)
            assert {n.action for n in limited.privileges.missing()} >= {"dropDatabase"}
            database = limited.fresh_database("least")
            database["t"].insert_one({"_id": 1})
            limited.drop(database.name)
            assert limited.left == {}
            assert database.name not in mongodb_server.client().list_database_names()
    finally:
        admin.command("dropUser", user)


# notebooks/hosted.md ------------------------------------------------------------------------------


def test_the_hosted_page_names_every_action_and_its_roles():
    """notebooks/hosted.md lists every action labkit asks for, each with the roles ``NEEDS`` names
    (one source: the code's table and the page cannot drift)."""
    rows = {line.split("|")[1].strip(): line
            for line in HOSTED_PAGE.read_text(encoding="utf-8").splitlines()
            if line.startswith("| `")}
    for need in NEEDS:
        (row,) = [line for cell, line in rows.items() if f"`{need.action}`" in cell]
        for role in need.roles:
            assert f"`{role}`" in row, (need.action, role)


def test_the_hosted_page_s_custom_role_grants_what_labkit_needs():
    """The page's ``db.createRole`` grants every database action labkit asks for on
    ``{db: "", collection: ""}``, and ``serverStatus`` on the cluster (``fsync`` is offered
    apart)."""
    (on_databases, database), (on_cluster, cluster) = hosted_role()
    assert (on_databases, on_cluster) == (ANY, CLUSTER)
    assert {n.action for n in NEEDS if n.scope == "database"} <= set(database)
    assert set(cluster) == {"serverStatus"}
    assert 'Add `"fsync"`' in HOSTED_PAGE.read_text(encoding="utf-8")


def test_after_a_run_what_was_kept_and_left_is_said_on_stderr(capsys):
    """After a run, the command says which stale databases this user may not drop and which of
    this run's databases stayed, each with why, on stderr."""
    from labkit import cli

    server = _server(Refusing({}, set()), status("readWriteAnyDatabase"))
    server.left["labkit_a_1"] = "labkit_a_1: left t (not authorized)"
    found = base.Stale(skipped={"labkit_b_2": "left t: not authorized"})
    cli._say_cleaned(found, server)
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"Stale labkit database(s) kept (this user may not drop them) on {server.describe()}:",
        "  labkit_b_2: left t: not authorized",
        f"This run's database(s) not removed wholly on {server.describe()}:",
        "  labkit_a_1: labkit_a_1: left t (not authorized)",
    ]
