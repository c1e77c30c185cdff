"""A scripted MongoDB for the wire tests: MockupDB, pymongo's own wire-protocol test server,
answers labkit's unmodified MongoDB code speaking through real pymongo.

A script is a list of rules, each a command name and the reply (or error) the server's
documented reply shape gives; every command labkit's code sends is recorded, in order, with
its document as pymongo encoded it (an int32 decodes as ``int``, an int64 as ``Int64``, a
double as ``float``), so a test asserts what labkit sends and how it handles each reply. A
command no rule answers is recorded as unscripted and refused with code 59
(``CommandNotFound``), and the ``wire_server`` fixture fails the test on it: a script never
lets a command pass unseen.

What the scripted server is not: an engine. It knows nothing of MongoDB's comparison rules,
storage or privileges; each reply is written by the test from a cited source, and no verdict
about MongoDB's behaviour comes from it. ``test_wire_live.py`` holds the same reply shapes
against a real server wherever one runs.

The shapes every test shares are here, each with where it comes from; a test file keeps the
shapes only it uses beside its tests.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bson import Int64
from mockupdb import MockupDB

# The server versions the live workflow runs, each with its maxWireVersion: the wire version
# table in src/mongo/db/wire_version.h (mongodb/mongo, r8.0.4): 17 = 6.0 (WIRE_VERSION_60),
# 21 = 7.0 (WIRE_VERSION_70), 25 = 8.0 (WIRE_VERSION_80).
VERSIONS: dict[str, tuple[str, int]] = {"6.0": ("6.0.19", 17), "7.0": ("7.0.16", 21),
                                        "8.0": ("8.0.4", 25)}

# Error codes, from src/mongo/base/error_codes.yml (mongodb/mongo, r8.0.4).
UNAUTHORIZED = 13  # "Unauthorized"
COMMAND_NOT_FOUND = 59  # "CommandNotFound"
HOST_UNREACHABLE = 6  # "HostUnreachable"
NETWORK_TIMEOUT = 89  # "NetworkTimeout"
# Atlas's shared tiers (M0/Flex) answer a refused action with 8000, codeName "AtlasError",
# "user is not allowed to do action [X] on [Y]" (the Atlas manual's "Unsupported commands in
# M0/Flex clusters" page; not in error_codes.yml: the proxy in front of the server sends it).
ATLAS_ERROR = 8000


def hello_reply(version: str = "7.0") -> dict[str, Any]:
    """A standalone mongod's ``hello`` reply: the fields of src/mongo/db/repl/hello.idl
    (HelloCommandReply) a standalone sets, as the manual's "hello" page lists them."""
    _full, wire = VERSIONS[version]
    return {"isWritablePrimary": True, "ismaster": True, "helloOk": True,
            "topologyVersion": {"processId": _oid(0), "counter": Int64(0)},
            "maxBsonObjectSize": 16 * 1024 * 1024, "maxMessageSizeBytes": 48_000_000,
            "maxWriteBatchSize": 100_000, "logicalSessionTimeoutMinutes": 30,
            "connectionId": 1, "minWireVersion": 0, "maxWireVersion": wire,
            "readOnly": False, "ok": 1.0}


def build_info_reply(version: str = "7.0") -> dict[str, Any]:
    """``buildInfo``: ``version``, ``versionArray`` and the rest of the manual's "buildInfo"
    page (src/mongo/db/commands/buildinfo_common.cpp fills them); labkit reads ``version``."""
    full, _wire = VERSIONS.get(version, (version, 21))
    parts = [int(p) for p in full.split(".")]
    return {"version": full, "gitVersion": "0" * 40, "versionArray": [*parts, 0],
            "bits": 64, "debug": False, "maxBsonObjectSize": 16 * 1024 * 1024,
            "storageEngines": ["devnull", "wiredTiger"], "ok": 1.0}


def cursor_reply(namespace: str, documents: list[Mapping[str, Any]],
                 batch: str = "firstBatch") -> dict[str, Any]:
    """A ``find``/``aggregate``/``listCollections`` reply: one batch, cursor exhausted
    (``id: 0``), as the manual's "find" page and src/mongo/db/query/cursor_response.cpp
    (CursorResponse::toBSON) shape it."""
    return {"cursor": {"id": Int64(0), "ns": namespace, batch: list(documents)}, "ok": 1.0}


def write_reply(n: int = 1, **extra: Any) -> dict[str, Any]:
    """An ``insert``/``delete`` reply: ``{n, ok}`` (the manual's "insert" and "delete" pages)."""
    return {"n": n, **extra, "ok": 1.0}


def update_reply(n: int = 1, modified: int = 1,
                 upserted: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """An ``update`` reply: ``{n, nModified, upserted?, ok}`` (the manual's "update" page:
    ``upserted`` lists ``{index, _id}`` for each document an upsert inserted)."""
    reply: dict[str, Any] = {"n": n, "nModified": modified, "ok": 1.0}
    if upserted:
        reply["upserted"] = upserted
    return reply


def error_reply(code: int, errmsg: str, code_name: str) -> dict[str, Any]:
    """A command's refusal: ``{ok: 0, errmsg, code, codeName}`` (src/mongo/rpc/reply_builder
    _interface.cpp, ReplyBuilderInterface::setCommandReply for a non-OK Status)."""
    return {"ok": 0.0, "errmsg": errmsg, "code": code, "codeName": code_name}


def unauthorized(command: str, db: str = "admin") -> dict[str, Any]:
    """What a user without the privilege gets: code 13, "not authorized on <db> to execute
    command { <command>: … }" (src/mongo/db/service_entry_point_common.cpp, the check that
    fails with ErrorCodes::Unauthorized before a command runs)."""
    return error_reply(UNAUTHORIZED, f"not authorized on {db} to execute command "
                                     f"{{ {command}: 1, $db: \"{db}\" }}", "Unauthorized")


def atlas_refusal(action: str, resource: str) -> dict[str, Any]:
    """Atlas's shared tiers' refusal: code 8000, ``AtlasError``."""
    return error_reply(ATLAS_ERROR, f"user is not allowed to do action [{action}] on "
                                    f"[{resource}]", "AtlasError")


def _oid(n: int) -> Any:
    from bson import ObjectId

    return ObjectId(n.to_bytes(12, "big"))


Reply = Mapping[str, Any] | Callable[["Sent"], Mapping[str, Any] | None]


@dataclass
class Sent:
    """One command labkit's code sent: its name, the database, and its document (decoded as
    MockupDB decodes it, so each value keeps its BSON type)."""

    name: str
    db: str
    doc: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.doc[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.doc.get(key, default)


@dataclass
class Rule:
    """Answer command ``name`` (when ``match`` says so) with ``reply``, at most ``times``."""

    name: str
    reply: Reply | None
    match: Callable[[Sent], bool] | None = None
    times: int | None = None
    hangup: bool = False
    used: int = 0

    def applies(self, sent: Sent) -> bool:
        if sent.name.lower() != self.name.lower():
            return False
        if self.times is not None and self.used >= self.times:
            return False
        return self.match is None or self.match(sent)


# Commands a driver sends on its own, answered without a script: the handshake and monitors
# (hello, isMaster), and what a closing client sends (endSessions: the manual's "endSessions"
# page, reply {ok: 1}).
_DRIVER_OWN = {"hello", "ismaster", "endsessions"}


@dataclass
class WireServer:
    """A MockupDB answering by script; ``sent`` is every command labkit's code sent."""

    version: str = "7.0"
    sent: list[Sent] = field(default_factory=list)
    unscripted: list[Sent] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _mockup: MockupDB | None = None

    def start(self) -> WireServer:
        self._mockup = MockupDB(request_timeout=30)
        self._mockup.autoresponds(self._answer)
        self._mockup.run()
        return self

    def stop(self) -> None:
        if self._mockup is not None:
            self._mockup.stop()
            self._mockup = None

    @property
    def port(self) -> int:
        assert self._mockup is not None
        return int(self._mockup.port)

    @property
    def uri(self) -> str:
        """A URI for this server; pymongo connects directly and gives up after 2 s."""
        return f"mongodb://127.0.0.1:{self.port}/?directConnection=true"

    def on(self, name: str, reply: Reply | None = None, *,
           match: Callable[[Sent], bool] | None = None, times: int | None = None,
           hangup: bool = False) -> Rule:
        """Answer ``name`` with ``reply`` (a document, or a function of what was sent).
        Rules are tried newest first, so a test narrows the defaults it starts from."""
        rule = Rule(name, reply, match, times, hangup)
        with self._lock:
            self.rules.insert(0, rule)
        return rule

    def commands(self, *, db: str | None = None) -> list[str]:
        """The names of the commands sent, in order (those on ``db`` only, if given)."""
        return [s.name for s in self.sent if db is None or s.db == db]

    def named(self, name: str) -> list[Sent]:
        """Every ``name`` command sent, in order."""
        return [s for s in self.sent if s.name.lower() == name.lower()]

    def _answer(self, request: Any) -> bool:
        doc = dict(request.doc)
        name = str(next(iter(doc), ""))
        if name.lower() in _DRIVER_OWN:
            if name.lower() == "endsessions":
                return request.replies({"ok": 1.0})
            return request.replies(hello_reply(self.version))
        sent = Sent(name=name, db=str(doc.get("$db", "")), doc=doc)
        with self._lock:
            self.sent.append(sent)
            rule = next((r for r in self.rules if r.applies(sent)), None)
            if rule is not None:
                rule.used += 1
        if rule is None:
            with self._lock:
                self.unscripted.append(sent)
            return request.replies(error_reply(COMMAND_NOT_FOUND,
                                               f"no such command: '{name}' (unscripted)",
                                               "CommandNotFound"))
        if rule.hangup:
            return request.hangup()
        reply = rule.reply(sent) if callable(rule.reply) else rule.reply
        return request.replies(dict(reply or {"ok": 1.0}))

    def standalone(self) -> WireServer:
        """The replies every MongoDB answers the same way, whoever asks: ``ping`` ({ok: 1},
        the manual's "ping" page) and ``buildInfo`` (no authentication needed for either,
        src/mongo/db/commands/generic.cpp and buildinfo_common.cpp: requiresAuth false)."""
        self.on("ping", {"ok": 1.0})
        self.on("buildInfo", build_info_reply(self.version))
        return self
