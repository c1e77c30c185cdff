"""What a MongoDB user may do on labkit's databases, read from the server's ``connectionStatus``.

``ping`` and ``buildInfo`` need no authentication, so they prove nothing about privileges;
``connectionStatus`` with ``showPrivileges: true`` lists what the connected user may do, as
``authInfo.authenticatedUserPrivileges``: documents ``{resource, actions}``, one per resource
(the server merges every role's actions on it), whose resource is ``{db, collection}`` (an
empty string means any), ``{cluster: true}`` or ``{anyResource: true}`` (the manual's
"Resource Document" page). labkit names its databases ``labkit_<label>_<random>``, and MongoDB
has no prefix resources, so only a privilege on every database (``db: ""``, what the
``…AnyDatabase`` roles grant) covers them.

The action each command labkit sends needs is the server's (the manual's "Privilege Actions"
page; ``src/mongo/db/auth/authorization_checks.cpp``): ``find`` for a find, a count, a
distinct and an aggregation that reads a collection; ``insert``; ``update`` (an upsert needs
``insert`` too); ``remove`` for a delete; ``createCollection`` for ``create``; ``collStats``
for ``$collStats``; ``listCollections``; ``dropCollection`` for ``drop``; ``dropDatabase``;
``fsync`` and ``serverStatus`` on the cluster. ``listDatabases`` needs no action of its own:
without it the server lists only the databases the user has some privilege on, which for a
privilege on every database is all of them but ``local`` and ``config``.

The roles that give each action are MongoDB's own (``src/mongo/db/auth/builtin_roles.yml``):
``readWrite``/``readWriteAnyDatabase`` give reading, writing, deleting and dropping
collections but not ``dropDatabase``, which comes with ``dbAdmin``/``dbAdminAnyDatabase``,
``dbOwner`` and ``clusterAdmin``; ``fsync`` with ``hostManager``; ``serverStatus`` with
``clusterMonitor`` and ``backup``; ``root`` gives them all.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from labkit.i18n import N_, Message, joined

if TYPE_CHECKING:
    from pymongo import MongoClient

Scope = Literal["database", "cluster"]
SCOPES: tuple[Scope, ...] = ("database", "cluster")
UNAUTHORIZED = 13  # the server's error code for an action the user may not do
# A privilege whose actions include every action is listed with this one name alone
# (src/mongo/db/auth/action_set.cpp: addAction(anyAction) sets them all, and
# getActionsAsStrings then returns just "anyAction").
ANY_ACTION = "anyAction"
# Where an unauthenticated client asks whether the server enforces access control. The name
# has no random part, so it is never one of labkit's databases; listing a database's
# collections never creates it, so the question changes nothing.
PROBE_DATABASE = "labkit_access_probe"

_READ = ("readWriteAnyDatabase", "readAnyDatabase", "root")
_WRITE = ("readWriteAnyDatabase", "root")
_DDL = ("readWriteAnyDatabase", "dbAdminAnyDatabase", "root")


@dataclass(frozen=True)
class Need:
    """One action labkit asks of a server: where (any ``labkit_`` database, or the cluster),
    what for, the built-in roles that grant it there, and whether a claim fails without it
    (``required``) or labkit works around its absence and says what it could not report."""

    action: str
    scope: Scope
    why: str
    roles: tuple[str, ...]
    required: bool

    def where(self) -> Message:
        """Where labkit needs the action, in words: on the cluster, or on every database."""
        return Message(N_("on the cluster")) if self.scope == "cluster" else \
            Message(N_("on every database"))


NEEDS: tuple[Need, ...] = (
    Need("find", "database", N_("read the fixtures back"), _READ, True),
    Need("insert", "database", N_("load the fixtures and each run's lease"), _WRITE, True),
    Need("update", "database",
         N_("renew each run's lease, and the experiments' updates and upserts"), _WRITE, True),
    Need("remove", "database",
         N_("empty a collection between tries (O9's delete_many)"), _WRITE, True),
    # The server would take insert for a plain collection's create as well
    # (checkAuthForCreate); labkit asks for the action that names what it does.
    Need("createCollection", "database", N_("create the collections the experiments load"),
         _DDL, True),
    Need("dropDatabase", "database",
         N_("drop each run's database in one step (without it labkit drops its collections)"),
         ("dbAdminAnyDatabase", "clusterAdmin", "root"), False),
    Need("dropCollection", "database",
         N_("drop a run's collections where its database may not be dropped"), _DDL, False),
    Need("listCollections", "database",
         N_("find a run's collections to drop where its database may not be dropped"),
         ("readWriteAnyDatabase", "readAnyDatabase", "dbAdminAnyDatabase", "root"), False),
    Need("collStats", "database", N_("the B-tree experiment's $collStats"),
         ("readWriteAnyDatabase", "readAnyDatabase", "dbAdminAnyDatabase", "clusterMonitor",
          "root"), False),
    Need("fsync", "cluster",
         N_("the B-tree experiment's checkpoint before it reads the index size (without it "
            "its index sizes are not run)"),
         ("hostManager", "clusterAdmin", "root"), False),
    # serverStatus().wiredTiger holds the B-tree's MongoDB figures (engines/btree_mongodb.py) and
    # the configured cache that a server found by URI reports (servers/mongo.py).
    Need("serverStatus", "cluster",
         N_("the B-tree experiment's MongoDB write volume and cache reads, and the WiredTiger "
            "cache labkit reports (without it those figures are not run)"),
         ("clusterMonitor", "backup", "clusterAdmin", "root"), False),
)
NEED_BY_ACTION = {need.action: need for need in NEEDS}


def _covers(resource: object, scope: Scope) -> bool:
    """Whether ``resource`` (a privilege's resource document) covers every ``labkit_``
    database's ordinary collections (``database``) or the cluster (``cluster``)."""
    if not isinstance(resource, Mapping):
        return False
    if resource.get("anyResource") is True:
        return True
    if scope == "cluster":
        return resource.get("cluster") is True
    # {db: "", collection: ""} is every database's non-system collections; a named database
    # or collection covers only that one, never all the databases labkit names at random.
    return resource.get("db") == "" and resource.get("collection") == ""


def _names(entries: object, key: str) -> tuple[str, ...]:
    """``name (db)`` for each ``{key: name, db: db}`` in a list from ``authInfo`` (not
    ``name@db``, which a reader, and labkit's redaction, would take for a URI's user part)."""
    if not isinstance(entries, Sequence) or isinstance(entries, str):
        return ()
    return tuple(f"{entry.get(key)} ({entry.get('db')})" for entry in entries
                 if isinstance(entry, Mapping))


@dataclass(frozen=True)
class Privileges:
    """What the connected user may do on labkit's databases and the cluster.

    ``access_control`` is False where the server runs without it (no user is authenticated
    and a command that needs authentication succeeded): then every action is allowed.
    ``no_user_yet`` is True where access control is on but no user exists yet and the
    connection comes from the server's own machine (MongoDB's localhost exception): such a
    connection may create the first user and do nothing else.
    """

    users: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    access_control: bool = True
    granted: frozenset[tuple[str, Scope]] = field(default_factory=frozenset)
    no_user_yet: bool = False
    reported: bool = True

    def allows(self, action: str) -> bool:
        """Whether the user may do ``action`` where labkit needs it (``NEEDS``); where the
        server does not report privileges, every action is taken as allowed: the server
        itself refuses what the user may not do, and labkit says so where it does."""
        if not self.access_control or not self.reported:
            return True
        need = NEED_BY_ACTION.get(action)
        scope: Scope = need.scope if need is not None else "database"
        return (action, scope) in self.granted or (ANY_ACTION, scope) in self.granted

    def missing(self, required: bool | None = None) -> list[Need]:
        """The needs the user lacks (only the required ones, or only the others, if asked)."""
        return [need for need in NEEDS if not self.allows(need.action)
                and (required is None or need.required == required)]

    @property
    def usable(self) -> bool:
        """Whether every required action is allowed: the experiments can run at all."""
        return not self.missing(required=True)

    def who(self) -> Message:
        """The authenticated users and their roles, in words."""
        if not self.access_control:
            return Message(N_("the server runs without access control"))
        if self.no_user_yet:
            return Message(N_("access control is on and no user exists yet (MongoDB's "
                              "localhost exception)"))
        if not self.users:
            return Message(N_("no user is authenticated (the URI has no credentials)"))
        roles = ", ".join(self.roles) or Message(N_("no roles"))
        return Message(N_("user {users} with {roles}"), users=", ".join(self.users),
                       roles=roles)

    def report(self) -> Message:
        """One paragraph: who is connected, what is missing, what labkit does without it and
        which built-in roles give it (or, before any user exists, what to do first)."""
        if self.no_user_yet:
            return Message(N_(
                "{who}: from this machine the server lets a connection without a user create "
                "the first user and nothing else; create a user administrator in the admin "
                "database, then labkit's user (notebooks/hosted.md, \"The user labkit needs\"), "
                "and put that user's name and password in LABKIT_MONGODB_URI"), who=self.who())
        if not self.reported:
            return Message(N_("{who}: this server reports no privileges (its connectionStatus "
                              "lists none), so labkit learns what the user may do as the "
                              "server answers"), who=self.who())
        lacking = self.missing()
        if not lacking:
            return Message(N_("{who}: every privilege labkit uses"), who=self.who())
        return Message(N_("{who}; missing: {needs}"), who=self.who(),
                       needs=joined("; ", [_lacking(need) for need in lacking]))


def _lacking(need: Need) -> Message:
    """One missing need as the report names it: the action, whether labkit can do without it,
    where, what for, and the built-in roles that give it."""
    must = Message(N_("required")) if need.required else Message(N_("optional"))
    return Message(N_("{action} ({must}, {where}: {why}; given by {roles})"),
                   action=need.action, must=must, where=need.where(), why=Message(need.why),
                   roles=", ".join(need.roles))


def parse_connection_status(reply: Mapping[str, object], *,
                            access_control: bool = True) -> Privileges:
    """The privileges a ``connectionStatus`` reply (asked with ``showPrivileges: true``) lists.

    ``access_control`` says whether the server enforces it (the caller learns this from a
    command that needs authentication); the reply alone cannot tell a server without
    access control from an unauthenticated connection to one with it: both list no users.
    """
    info = reply.get("authInfo")
    if not isinstance(info, Mapping):
        info = {}
    granted: set[tuple[str, Scope]] = set()
    privileges = info.get("authenticatedUserPrivileges")
    if isinstance(privileges, Sequence) and not isinstance(privileges, str):
        for privilege in privileges:
            if not isinstance(privilege, Mapping):
                continue
            actions = privilege.get("actions")
            if not isinstance(actions, Sequence) or isinstance(actions, str):
                continue
            resource = privilege.get("resource")
            for scope in SCOPES:
                if _covers(resource, scope):
                    granted.update((str(action), scope) for action in actions)
    users = _names(info.get("authenticatedUsers"), "user")
    return Privileges(users=users, roles=_names(info.get("authenticatedUserRoles"), "role"),
                      access_control=access_control or bool(users),
                      granted=frozenset(granted))


def read_privileges(client: MongoClient[dict[str, Any]]) -> Privileges:
    """Ask the server what the connected user may do (``connectionStatus`` with
    ``showPrivileges``); not ``reported`` where the server names the user but lists no
    privileges (FerretDB and mongo-java-server leave ``authenticatedUserPrivileges`` out),
    which is not "may do nothing". Where no user is authenticated, whether the server
    enforces access control is asked of ``listCollections`` on ``PROBE_DATABASE``, which needs
    the ``listCollections`` action there wherever access control is on, even from the server's
    own machine; where it does and the probe was refused, ``listDatabases``, which any
    connection without a user is refused unless the localhost exception is open, tells
    whether a user exists yet."""
    from pymongo.errors import OperationFailure

    reply = client.admin.command("connectionStatus", showPrivileges=True)
    privileges = parse_connection_status(reply)
    if privileges.users:
        info = reply.get("authInfo")
        if isinstance(info, Mapping) and "authenticatedUserPrivileges" not in info:
            return dataclasses.replace(privileges, reported=False)
        return privileges
    try:
        client[PROBE_DATABASE].list_collection_names()
    except OperationFailure:
        return dataclasses.replace(privileges, no_user_yet=_localhost_exception(client))
    return parse_connection_status(reply, access_control=False)


def _localhost_exception(client: MongoClient[dict[str, Any]]) -> bool:
    """Whether the server, enforcing access control, takes a command that needs
    authentication from this connection without a user: only the localhost exception lets
    it (a connection from the server's machine while no user exists yet)."""
    from pymongo.errors import OperationFailure

    try:
        client.admin.command("listDatabases", nameOnly=True)
    except OperationFailure:
        return False
    return True
