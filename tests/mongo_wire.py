"""A scripted MongoDB for the wire tests: MockupDB, pymongo's own wire-protocol test server,
answers labkit's unmodified MongoDB code speaking through real pymongo.

A script is a list of rules, each a command name and the reply (or error) the server's
documented reply shape gives; every command labkit's code sends is recorded, in order, with
its document as pymongo encoded it (an int32 decodes as ``int``, an int64 as ``Int64``, a
double as ``float``, a UUID as ``Binary`` subtype 4, a date as a naive UTC ``datetime``), so a
test asserts what labkit sends and how it handles each reply. A command no rule answers is
recorded as unscripted and refused with code 59 (``CommandNotFound``), and the ``wire_server``
fixture fails the test on it: a script never lets a command pass unseen.

What the scripted server is not: an engine. It knows nothing of MongoDB's comparison rules,
storage or privileges; each reply is written by the test from a cited source, and no verdict
about MongoDB's behaviour comes from it. ``test_wire_live.py`` asks a real server the same
commands and compares the replies' fields and types with ``same_shape``, wherever one runs.

The shapes of any command's reply are here (a cursor, a write, a refusal, hello and buildInfo),
each with where it comes from; the replies of the particular commands labkit's server layer and
lessons ask, shared by several test files, are in ``wire_replies.py`` beside this file. A test
file keeps the shapes only it uses beside its tests (and their live check beside those, with
``same_shape``), and imports no other test file: what two of them share lives in these two.

Sources are named by file and commit in mongodb/mongo as the search index holds them: where the
commit is not a release tag, the comment says what the file showed and what a live run on 6.0,
7.0 and 8.0 (the workflow's matrix, through ``test_wire_live.py``) confirms.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import socket
import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import bson
from bson import Int64, ObjectId
from bson.binary import UuidRepresentation
from bson.codec_options import CodecOptions
from mockupdb import MockupDB

# The server versions the live workflow runs, each with its maxWireVersion: 17 = 6.0, 21 = 7.0,
# 25 = 8.0, from the table in mongodb/specifications source/wireversion-featurelist/
# wireversion-featurelist.md (commit 175096a3) and mongodb/mongo-java-driver's
# ServerVersionHelper.java (SIX/SEVEN/EIGHT_DOT_ZERO_WIRE_VERSION, commit 0fe5342b). Since 5.1 the
# server derives the number from src/mongo/util/version/releases.yml (SERVER-58346, as the
# specifications page says) rather than spelling each release in src/mongo/db/wire_version.h,
# whose stored copies here predate 5.1; test_wire_live.py checks the numbers against each server.
VERSIONS: dict[str, tuple[str, int]] = {"6.0": ("6.0.19", 17), "7.0": ("7.0.16", 21),
                                        "8.0": ("8.0.4", 25)}
# The release series a test runs on where they differ:
# ``@pytest.mark.parametrize("wire_server", SERIES, indirect=True)``.
SERIES = tuple(VERSIONS)

# Error codes, from src/mongo/base/error_codes.yml (mongodb/mongo, read at commit 007ba934; the
# file never renumbers a code, a retired one stays as OBSOLETE_<name>).
UNAUTHORIZED = 13  # "Unauthorized"
COMMAND_NOT_FOUND = 59  # "CommandNotFound"
HOST_UNREACHABLE = 6  # "HostUnreachable" (categories NetworkError, RetriableError)
NETWORK_TIMEOUT = 89  # "NetworkTimeout" (NetworkError, RetriableError, NetworkTimeoutError)
# Atlas's shared tiers (M0/Flex) refuse some actions with 8000, codeName "AtlasError", and a
# message such as "user is not allowed to do action [find] on [share.users]". No authoritative
# source documents this: error_codes.yml (same commit) has no 8000 and says "Error codes
# 4000-8999 are reserved"; the Atlas manual's "Unsupported Commands in Atlas" page gives only
# the text "<$command> is not allowed or the syntax is incorrect, see the Atlas documentation
# for more information." without a code. The shape here is what users report: {ok: 0, code:
# 8000, codeName: "AtlasError"} in omarciovsena/abibliadigital issue 448, and the "user is not
# allowed to do action [find] on [share.users]" text in adrianhajdin/
# project_next_14_ai_prompt_sharing issue 23. Only an Atlas shared-tier cluster can confirm it.
ATLAS_ERROR = 8000


def hello_reply(version: str = "7.0", *, legacy: bool = False,
                hello_ok: bool = False) -> dict[str, Any]:
    """A standalone mongod's reply to ``hello`` (or, ``legacy``, to ``isMaster``).

    The fields are those src/mongo/db/repl/replication_info.cpp (CmdHello::run; mongodb/mongo
    at commit 02ea85d3) appends for a standalone, with the types src/mongo/db/repl/hello.idl
    (HelloCommandReply, commit 099ec26f) declares: ``isWritablePrimary`` to ``hello`` and
    ``ismaster`` to ``isMaster``, never both; ``helloOk: true`` only when the request carried
    ``helloOk``; ``topologyVersion`` {processId: ObjectId, counter: int64}; ``localTime`` a
    date. The numbers are appended with appendNumber, which writes an int32 when the value fits
    (src/mongo/bson/bsonobjbuilder.h, commit 7648ee6b), so they are Python ints here. Only
    ``maxWireVersion`` differs between 6.0, 7.0 and 8.0."""
    _full, wire = VERSIONS[version]
    reply: dict[str, Any] = {"ismaster" if legacy else "isWritablePrimary": True}
    if hello_ok:
        reply["helloOk"] = True
    reply.update({
        "topologyVersion": {"processId": _oid(0), "counter": Int64(0)},
        "maxBsonObjectSize": 16 * 1024 * 1024, "maxMessageSizeBytes": 48_000_000,
        "maxWriteBatchSize": 100_000, "localTime": dt.datetime.now(dt.UTC),
        "logicalSessionTimeoutMinutes": 30, "connectionId": 1, "minWireVersion": 0,
        "maxWireVersion": wire, "readOnly": False, "ok": 1.0})
    return reply


def build_info_reply(version: str = "7.0") -> dict[str, Any]:
    """``buildInfo``: ``version`` "<major>.<minor>.<patch>", ``versionArray`` four int32s,
    ``bits``, ``debug``, ``maxBsonObjectSize``, ``storageEngines`` (the manual's "buildInfo"
    page, www.mongodb.com/docs/manual/reference/command/buildInfo/, lists these among its
    stable fields; a real reply has more: gitVersion, allocator, openssl, buildEnvironment...).
    Through 8.0 buildInfo needs no authentication (CmdBuildInfo's requiresAuth() returns
    false); from 8.1 it does by default (the buildInfoAuthMode parameter in
    src/mongo/db/commands/buildinfo_common.cpp, commit 1c287af4; SERVER-90284, SERVER-102881).
    The storage engine list depends on the build; labkit reads ``version``."""
    full, _wire = VERSIONS.get(version, (version, 21))
    parts = [int(p) for p in full.split(".")]
    return {"version": full, "gitVersion": "0" * 40, "versionArray": [*parts, 0],
            "bits": 64, "debug": False, "maxBsonObjectSize": 16 * 1024 * 1024,
            "storageEngines": ["devnull", "wiredTiger"], "ok": 1.0}


def cursor_reply(namespace: str, documents: list[Mapping[str, Any]],
                 batch: str = "firstBatch", cursor_id: int = 0) -> dict[str, Any]:
    """A ``find``/``aggregate``/``listCollections`` reply (``batch`` ``nextBatch``: a
    ``getMore``'s), its cursor exhausted unless ``cursor_id`` is not 0 (more follows by
    ``getMore``).

    ``cursor`` {``firstBatch`` or ``nextBatch``: array, ``id``: int64, ``ns``: string}, ``ok``
    1.0, as src/mongo/db/query/cursor_response.cpp (CursorResponse::addToBSON, the
    CursorResponseBuilder find uses and appendGetMoreResponseObject; mongodb/mongo commit
    0136f88d) builds it and CursorResponse::parseFromBSON insists (``id`` must be a long, 0 once
    the cursor is exhausted). The same in 6.0, 7.0, 8.0."""
    return {"cursor": {"id": Int64(cursor_id), "ns": namespace, batch: list(documents)},
            "ok": 1.0}


def cursor_of(documents: list[Mapping[str, Any]]) -> Callable[[Sent], dict[str, Any]]:
    """A rule's reply: ``documents`` in one batch, on the namespace of the collection the
    command named (``<db>.<collection>``)."""
    return lambda sent: cursor_reply(f"{sent.db}.{sent[sent.name]}", documents)


def counted(n: int) -> Callable[[Sent], dict[str, Any]]:
    """A rule's reply to pymongo's ``count_documents``, an ``aggregate`` ending in ``$group``
    ``{_id: 1, n: {$sum: 1}}``: one batch holding that group's one document ``{_id: 1, n}``
    (the manual's "aggregate" page), ``n`` the count."""
    return cursor_of([{"_id": 1, "n": n}])


def write_reply(n: int = 1, **extra: Any) -> dict[str, Any]:
    """An ``insert``/``delete`` reply: ``{n: int32, ok: 1.0}`` (the manual's "insert" and
    "delete" command pages, Output; write errors would add ``writeErrors``)."""
    return {"n": n, **extra, "ok": 1.0}


def inserted(sent: Sent) -> dict[str, Any]:
    """A rule's reply to an ``insert`` that wrote every document it carried (``write_reply``)."""
    return write_reply(len(sent.get("documents", [])))


def update_reply(n: int = 1, modified: int = 1,
                 upserted: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """An ``update`` reply: ``{n, nModified, upserted?, ok}`` (the manual's "update" command
    page, Output: ``upserted`` lists ``{index: int32, _id}`` for each statement whose upsert
    inserted; such a statement counts in ``n`` and not in ``nModified``). The types are
    src/mongo/db/query/write_ops/write_ops.idl's (mongodb/mongo commit 0b22cf9c,
    UpdateCommandReply and Upserted: n and nModified int32, upserted an array of {index: int32,
    _id: any}); the same fields in 6.0, 7.0 and 8.0, where the file was
    src/mongo/db/ops/write_ops.idl."""
    reply: dict[str, Any] = {"n": n, "nModified": modified, "ok": 1.0}
    if upserted:
        reply["upserted"] = upserted
    return reply


def upserted(_id: Any) -> dict[str, Any]:
    """An ``update`` of one statement whose upsert inserted the document ``_id``: ``{n: 1,
    nModified: 0, upserted: [{index: 0, _id}], ok: 1.0}`` (``update_reply``)."""
    return update_reply(1, 0, [{"index": 0, "_id": _id}])


def error_reply(code: int, errmsg: str, code_name: str) -> dict[str, Any]:
    """A command's refusal: ``{ok: 0.0, errmsg, code: int32, codeName}``, as
    augmentReplyWithStatus in src/mongo/rpc/reply_builder_interface.cpp (mongodb/mongo commit
    044d2f73) adds them to a reply for a non-OK Status. A replica set or mongos adds
    ``$clusterTime`` and ``operationTime``; a standalone adds nothing."""
    return {"ok": 0.0, "errmsg": errmsg, "code": code, "codeName": code_name}


def command_not_found(command: str) -> dict[str, Any]:
    """What any server answers to a command it does not know: code 59, "no such command:
    '<name>'" (the check before a command runs in src/mongo/db/service_entry_point_common.cpp,
    read in a stored copy whose commit the index does not record; test_wire_live.py checks the
    exact text on each server)."""
    return error_reply(COMMAND_NOT_FOUND, f"no such command: '{command}'", "CommandNotFound")


def unauthorized(command: str, db: str = "admin") -> dict[str, Any]:
    """What an authenticated user without the privilege gets: code 13, "not authorized on <db>
    to execute command <the command as sent>". The wording is CommandInvocation::
    checkAuthorization's in src/mongo/db/commands.cpp (the same words in _checkAuthorizationImpl
    at mongodb/mongo commit e5e0da93, 2.4 days); the command is printed as the server renders
    BSON, with every field the driver sent (lsid, $db; $clusterTime on a replica set), so labkit
    must read the code, never the text."""
    sent = (f"{{ {command}: 1, lsid: {{ id: UUID(\"00000000-0000-4000-8000-000000000000\") }}, "
            f"$db: \"{db}\" }}")
    return error_reply(UNAUTHORIZED, f"not authorized on {db} to execute command {sent}",
                       "Unauthorized")


def unauthenticated(command: str) -> dict[str, Any]:
    """What a connection that has not authenticated gets, with access control on, for a command
    that needs a user: code 13, "Command <name> requires authentication"
    (checkAuthorizationImplPreParse in src/mongo/db/commands.cpp; older versions begin
    "command <name>", in lower case: labkit reads the code, never the words). From localhost
    before the first user exists (the localhost exception) the server lets such commands
    through."""
    return error_reply(UNAUTHORIZED, f"Command {command} requires authentication",
                       "Unauthorized")


def atlas_refusal(action: str, resource: str) -> dict[str, Any]:
    """Atlas's shared tiers' refusal: code 8000, ``AtlasError`` (see ``ATLAS_ERROR`` for what
    is, and is not, known of it); the replies users quote carry ``ok: 0`` as an int, not the
    double a mongod sends, so it is scripted so."""
    reply = error_reply(ATLAS_ERROR, f"user is not allowed to do action [{action}] on "
                                     f"[{resource}]", "AtlasError")
    reply["ok"] = 0
    return reply


def same_shape(scripted: Any, real: Any, path: str = "", *,
               sized: Collection[str] = ()) -> list[str]:
    """Where a real reply differs in shape from the scripted one: each key of ``scripted`` must
    be in ``real`` with a value of the same Python type (an int32 decodes as ``int``, an int64
    as ``Int64``: they differ), documents compared key by key, lists by their first elements.
    Returns the differences, each with its path; an empty list means the shape holds. A scripted
    non-empty list against an empty real one is a difference: it proves nothing.

    ``sized`` names the paths (``wiredTiger.cache.maximum bytes configured``) whose integer the
    server writes with appendNumber, so that its width follows its size: there a scripted
    integer matches a real one of the width ``appended_number`` gives the real value, and of no
    other (a 4 GB cache is an int64 on the server whatever the script's 0.25 GB was)."""
    where = path or "the reply"
    if isinstance(scripted, Mapping):
        if not isinstance(real, Mapping):
            return [f"{where}: a document in the script, {type(real).__name__} on the server"]
        problems = []
        for key, value in scripted.items():
            inner = f"{path}.{key}" if path else str(key)
            if key not in real:
                problems.append(f"{inner}: missing on the server")
            else:
                problems.extend(same_shape(value, real[key], inner, sized=sized))
        return problems
    if isinstance(scripted, list):
        if not isinstance(real, list):
            return [f"{where}: a list in the script, {type(real).__name__} on the server"]
        if not scripted:
            return []
        if not real:
            return [f"{where}: an empty list on the server, so its elements cannot be compared"]
        return same_shape(scripted[0], real[0], f"{path}[0]", sized=sized)
    return _same_type(scripted, real, where, sized=path in sized)


def _same_type(scripted: Any, real: Any, where: str, *, sized: bool) -> list[str]:
    """``same_shape`` for one value; ``sized``: an integer whose width follows its size."""
    if sized and _integer(scripted) and _integer(real):
        width = type(appended_number(int(real)))
        if type(real) is not width:
            return [f"{where}: {type(real).__name__} on the server for {real}, which "
                    f"appendNumber writes as {width.__name__}"]
        return []
    if type(scripted) is not type(real):
        return [f"{where}: {type(scripted).__name__} in the script, "
                f"{type(real).__name__} on the server"]
    return []


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# How labkit's client encodes (uuidRepresentation standard: a UUID is Binary subtype 4).
STANDARD_UUIDS = CodecOptions(uuid_representation=UuidRepresentation.STANDARD)


def same_bson(a: Any, b: Any) -> bool:
    """Whether two values are one BSON value: the same bytes, so the same types (int32, int64,
    double and decimal differ), the same key order and the same milliseconds."""
    return bson.encode({"v": a}, codec_options=STANDARD_UUIDS) == \
        bson.encode({"v": b}, codec_options=STANDARD_UUIDS)


def _oid(n: int) -> ObjectId:
    return ObjectId(n.to_bytes(12, "big"))


Reply = Mapping[str, Any] | Callable[["Sent"], Mapping[str, Any] | None]

# What pymongo adds to every command on its own (the session, the database, a replica set's
# clock, the read preference): not labkit's.
DRIVER_FIELDS = frozenset({"$db", "lsid", "$clusterTime", "$readPreference"})


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

    def as_written(self) -> dict[str, Any]:
        """The command as labkit's code wrote it: its fields less ``DRIVER_FIELDS``."""
        return {key: value for key, value in self.doc.items() if key not in DRIVER_FIELDS}


@dataclass
class Rule:
    """Answer command ``name`` (when ``match`` says so) with ``reply``, at most ``times``;
    ``hangup`` closes the connection instead, ``delay`` answers (or hangs up) that many
    seconds later."""

    name: str
    reply: Reply | None
    match: Callable[[Sent], bool] | None = None
    times: int | None = None
    hangup: bool = False
    used: int = 0
    delay: float | None = None

    def applies(self, sent: Sent) -> bool:
        if sent.name.lower() != self.name.lower():
            return False
        if self.times is not None and self.used >= self.times:
            return False
        return self.match is None or self.match(sent)


# The handshake's and the monitors' commands, which pymongo sends on its own: hello and isMaster
# without a session. A hello or isMaster carrying ``lsid`` is the application's (pymongo's
# monitors never attach a session): it is recorded and answered by the rules, like any command.
_HANDSHAKE = {"hello", "ismaster"}
# What a closing client sends (endSessions: the manual's "endSessions" page, reply {ok: 1}).
_CLOSING = {"endsessions"}


@dataclass
class WireServer:
    """A MockupDB answering by script; ``sent`` is every command labkit's code sent."""

    version: str = "7.0"
    sent: list[Sent] = field(default_factory=list)
    unscripted: list[Sent] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _mockup: MockupDB | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)
    _later: list[threading.Thread] = field(default_factory=list)

    def start(self) -> WireServer:
        self._mockup = MockupDB(request_timeout=30)
        self._mockup.autoresponds(self._answer)
        self._mockup.run()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._mockup is not None:
            # MockupDB's accept loop waits up to a second in select() before it sees that it
            # should stop; marking it stopped and connecting once wakes it at once (a second
            # saved on every wire test).
            self._mockup._stopped = True
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=1):
                pass
            self._mockup.stop()
            self._mockup = None
        for thread in self._later:
            thread.join(5)

    @property
    def port(self) -> int:
        assert self._mockup is not None
        return int(self._mockup.port)

    @property
    def release(self) -> str:
        """The full version its ``buildInfo`` reports ("7.0.16")."""
        return VERSIONS[self.version][0]

    @property
    def uri(self) -> str:
        """A URI for this server, connecting directly (labkit's client sets its own timeouts)."""
        return f"mongodb://127.0.0.1:{self.port}/?directConnection=true"

    def on(self, name: str, reply: Reply | None = None, *,
           match: Callable[[Sent], bool] | None = None, times: int | None = None,
           hangup: bool = False, delay: float | None = None) -> Rule:
        """Answer ``name`` with ``reply`` (a document, or a function of what was sent; None
        answers ``{ok: 1}``), or close the connection (``hangup``), ``delay`` seconds later if
        given (pymongo's socket timeout then fires as it would on a slow server). Rules are
        tried newest first, so a test narrows the defaults it starts from."""
        rule = Rule(name, reply, match, times, hangup, delay=delay)
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
        if name.lower() in _CLOSING:
            return request.replies({"ok": 1.0})
        if name.lower() in _HANDSHAKE and "lsid" not in doc:
            return self._handshake(request, name, doc)
        sent = Sent(name=name, db=str(doc.get("$db", "")), doc=doc)
        with self._lock:
            self.sent.append(sent)
            rule = next((r for r in self.rules if r.applies(sent)), None)
            if rule is not None:
                rule.used += 1
        if rule is None and name.lower() in _HANDSHAKE:
            return request.replies(self._hello(name, doc))
        if rule is None:
            with self._lock:
                self.unscripted.append(sent)
            refusal = command_not_found(name)
            refusal["errmsg"] += " (no rule of the script answers it)"
            return request.replies(refusal)
        if rule.hangup:
            return self._send(request, rule.delay, request.hangup)
        reply = rule.reply(sent) if callable(rule.reply) else rule.reply
        answer = dict(reply or {"ok": 1.0})
        return self._send(request, rule.delay, lambda: request.replies(answer))

    def _hello(self, name: str, doc: Mapping[str, Any]) -> dict[str, Any]:
        return hello_reply(self.version, legacy=name.lower() == "ismaster",
                           hello_ok="helloOk" in doc)

    def _handshake(self, request: Any, name: str, doc: Mapping[str, Any]) -> bool:
        """Answer the driver's own hello. The monitor's awaitable hello (``topologyVersion``
        and ``maxAwaitTimeMS``) is answered when the wait ends, as a server whose topology did
        not change answers it (the awaitable hello in CmdHello::run, replication_info.cpp):
        answered at once, pymongo would ask again at once, thousands of times a second."""
        reply = self._hello(name, doc)
        wait = doc.get("maxAwaitTimeMS") if "topologyVersion" in doc else None
        seconds = float(wait) / 1000 if wait is not None else None
        return self._send(request, seconds, lambda: request.replies(reply))

    def _send(self, request: Any, seconds: float | None, send: Callable[[], Any]) -> bool:
        """Send now, or ``seconds`` later from a thread of its own: MockupDB holds its lock
        while a responder runs, so a responder that waited would stall every connection."""
        if not seconds:
            send()
            return True

        def later() -> None:
            if self._stopping.wait(seconds):
                return
            with contextlib.suppress(OSError):  # the client closed the connection meanwhile
                send()

        thread = threading.Thread(target=later, name=f"wire-reply-{request.request_id}",
                                  daemon=True)
        with self._lock:
            self._later.append(thread)
        thread.start()
        return True

    def standalone(self) -> WireServer:
        """The replies every MongoDB answers the same way, whoever asks: ``ping`` ({ok: 1},
        the manual's "ping" page) and ``buildInfo`` (neither needs authentication through 8.0:
        their commands' requiresAuth() is false; see build_info_reply for 8.1 on)."""
        self.on("ping", {"ok": 1.0})
        self.on("buildInfo", build_info_reply(self.version))
        return self


# Live tests on the session's own server ------------------------------------------------------


def single_host_uri(server_uri: str, user: str | None = None,
                    password: str | None = None) -> str:
    """A URI for the one mongod behind ``server_uri`` (as ``user``, authSource admin, where
    given): the live tests that speak as another user rebuild the URI, which only a single
    host without TLS allows (``directConnection`` refuses several hosts; a hosted cluster needs
    its TLS and SRV settings and refuses ``createUser``). Anywhere else they are skipped."""
    from urllib.parse import quote_plus

    import pytest
    from pymongo.uri_parser import parse_uri

    # An SRV URI names a cluster (several hosts, TLS): its hosts come from DNS, not the text.
    parsed = None if server_uri.startswith("mongodb+srv://") else parse_uri(server_uri)
    options = {key.lower(): value for key, value in parsed["options"].items()} if parsed else {}
    if parsed is None or len(parsed["nodelist"]) != 1 or options.get("tls") \
            or options.get("ssl"):
        pytest.skip("speaks as another user through a rebuilt URI: needs one self-run mongod "
                    "without TLS (this server has several hosts or TLS)")
    host, port = parsed["nodelist"][0]
    who = f"{quote_plus(user)}:{quote_plus(password or '')}@" if user else ""
    auth = "authSource=admin&" if user else ""
    return f"mongodb://{who}{host}:{port}/?{auth}directConnection=true"


def create_live_user(admin: Any, user: str, password: str, roles: list[str]) -> None:
    """Create ``user`` with ``roles`` on admin, or skip where the server refuses (a hosted
    cluster's users are made in its console, not with ``createUser``)."""
    import pytest
    from pymongo.errors import OperationFailure

    try:
        admin.command("createUser", user, pwd=password,
                      roles=[{"role": role, "db": "admin"} for role in roles])
    except OperationFailure as exc:
        pytest.skip(f"this server refuses createUser ({exc.code}): the live tests that speak "
                    "as another user need a self-run mongod")


def appended_number(value: int) -> int | Int64:
    """A 64-bit figure as the server appends it with appendNumber(long long): an int32 where it
    fits, an int64 otherwise (src/mongo/bson/bsonobjbuilder.h, mongodb/mongo at 7648ee6b).
    WiredTiger's statistics reach serverStatus and $collStats this way, so a 0.25 GB cache is
    an int32 on the wire and an 8 GB one an int64."""
    return value if -(2**31) <= value < 2**31 else Int64(value)
