"""What a MongoDB user may do on labkit's databases, read from the server's ``connectionStatus``.

``ping`` and ``buildInfo`` need no authentication, so they prove nothing about privileges;
``connectionStatus`` with ``showPrivileges: true`` lists what the connected user may do, as
``authInfo.authenticatedUserPrivileges``: documents ``{resource, actions}`` whose resource is
``{db, collection}`` (an empty string means any), ``{cluster: true}`` or ``{anyResource:
true}`` (the manual's "Resource Document" page). labkit names its databases ``labkit_<label>_
<random>``, and MongoDB has no prefix resources, so only a privilege on every database
(``db: ""``, what the ``…AnyDatabase`` roles grant) covers them.

The roles that give each action are MongoDB's own (``src/mongo/db/auth/builtin_roles.yml``):
``readWrite``/``readWriteAnyDatabase`` give reading, writing and dropping collections but not
``dropDatabase``, which comes with ``dbAdmin``/``dbAdminAnyDatabase``, ``dbOwner`` and
``clusterAdmin``; ``fsync`` with ``hostManager``; ``serverStatus`` with ``clusterMonitor``;
``root`` gives them all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pymongo import MongoClient

Scope = Literal["database", "cluster"]
SCOPES: tuple[Scope, ...] = ("database", "cluster")
UNAUTHORIZED = 13  # the server's error code for an action the user may not do

_READ = ("readWriteAnyDatabase", "readAnyDatabase", "root")
_WRITE = ("readWriteAnyDatabase", "root")
_DDL = ("readWriteAnyDatabase", "dbAdminAnyDatabase", "root")


@dataclass(frozen=True)
class Need:
    """One action labkit asks of a server: where (any ``labkit_`` database, or the cluster),
    what for, the built-in roles that grant it there, and whether no experiment can run
    without it (``required``) or one part of labkit works with less."""

    action: str
    scope: Scope
    why: str
    roles: tuple[str, ...]
    required: bool


NEEDS: tuple[Need, ...] = (
    Need("find", "database", "read the fixtures back", _READ, True),
    Need("insert", "database", "load the fixtures and each run's lease", _WRITE, True),
    Need("update", "database", "renew each run's lease", _WRITE, True),
    Need("createCollection", "database", "create the collections the experiments load",
         _DDL, True),
    Need("dropDatabase", "database",
         "drop each run's database in one step (without it labkit drops its collections)",
         ("dbAdminAnyDatabase", "clusterAdmin", "root"), False),
    Need("dropCollection", "database",
         "drop a run's collections where its database may not be dropped", _DDL, False),
    Need("listCollections", "database",
         "find a run's collections to drop where its database may not be dropped",
         ("readWriteAnyDatabase", "readAnyDatabase", "dbAdminAnyDatabase", "root"), False),
    Need("collStats", "database", "the B-tree experiment's $collStats",
         ("readWriteAnyDatabase", "readAnyDatabase", "dbAdminAnyDatabase", "clusterMonitor",
          "root"), False),
    Need("fsync", "cluster",
         "the B-tree experiment's checkpoint before it reads the index size",
         ("hostManager", "clusterAdmin", "root"), False),
    Need("serverStatus", "cluster", "report the server's WiredTiger cache",
         ("clusterMonitor", "clusterAdmin", "root"), False),
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
    """

    users: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    access_control: bool = True
    granted: frozenset[tuple[str, Scope]] = field(default_factory=frozenset)

    def allows(self, action: str) -> bool:
        """Whether the user may do ``action`` where labkit needs it (``NEEDS``)."""
        if not self.access_control:
            return True
        need = NEED_BY_ACTION.get(action)
        scope: Scope = need.scope if need is not None else "database"
        return (action, scope) in self.granted

    def missing(self, required: bool | None = None) -> list[Need]:
        """The needs the user lacks (only the required ones, or only the others, if asked)."""
        return [need for need in NEEDS if not self.allows(need.action)
                and (required is None or need.required == required)]

    @property
    def usable(self) -> bool:
        """Whether every required action is allowed: the experiments can run at all."""
        return not self.missing(required=True)

    def who(self) -> str:
        """The authenticated users and their roles, in words."""
        if not self.access_control:
            return "the server runs without access control"
        if not self.users:
            return "no user is authenticated (the URI has no credentials)"
        roles = ", ".join(self.roles) or "no roles"
        return f"user {', '.join(self.users)} with {roles}"

    def report(self) -> str:
        """One paragraph: who is connected, what is missing, what labkit does without it and
        which built-in roles give it."""
        lacking = self.missing()
        if not lacking:
            return f"{self.who()}: every privilege labkit uses"
        parts = [f"{self.who()}; missing:"]
        for need in lacking:
            where = "on the cluster" if need.scope == "cluster" else "on every database"
            must = "required" if need.required else "optional"
            parts.append(f"{need.action} ({must}, {where}: {need.why}; given by "
                         f"{', '.join(need.roles)})")
        return " ".join(parts[:1]) + " " + "; ".join(parts[1:])


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
    ``showPrivileges``); where no user is authenticated, ``listDatabases`` (which needs
    authentication wherever access control is on) tells whether the server enforces it."""
    from pymongo.errors import OperationFailure

    reply = client.admin.command("connectionStatus", showPrivileges=True)
    privileges = parse_connection_status(reply)
    if privileges.users:
        return privileges
    try:
        client.admin.command("listDatabases", nameOnly=True)
    except OperationFailure:
        return privileges
    return parse_connection_status(reply, access_control=False)
