"""MongoDB: the server at ``LABKIT_MONGODB_URI``, a local ``mongod``, or Docker's mongo image.

Every ``mongod`` labkit starts gets the WiredTiger cache asked for, by default the smallest
``mongod`` accepts (0.25 GB): that still holds the whole ``_id`` index of the B-tree lesson's
default load (a few MB), so at the defaults the index never outgrows the cache. On a server
labkit did not start, the cache is that server's own. What labkit creates holds a lease
document that the run renews while it lives (``base``: one lease design for both vendors): its
mark, and when it was renewed and until when it holds, both by the server's clock (``$$NOW``).
MongoDB has no owners and any client may write that document: only its ``mark`` proves, an
HMAC of the database's name with this installation's secret (``mark.mark_for``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import os
import re
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from labkit import _conninfo, _redact

# Spelled in _defaults, which the command line's help reads without importing servers.
from labkit._defaults import DEFAULT_CACHE_GB as DEFAULT_CACHE_GB
from labkit._defaults import MONGO_MODES as MONGO_MODES
from labkit.errors import (
    BadInput,
    CleanupIncomplete,
    LabkitError,
    ServerStartError,
    ServerUnavailable,
    one_line,
    server_said,
)
from labkit.i18n import N_, Message, Text, english
from labkit.model.versions import CURRENT_MAJOR
from labkit.names import engine_name
from labkit.servers import base
from labkit.servers.base import (
    DB_PREFIX,
    START_TIMEOUT,
    Attempt,
    Server,
    ServerRequest,
    Stale,
    lease_over,
    redact,
    version_matches,
    why_unproven,
)
from labkit.servers.compatible import Identity, identify
from labkit.servers.mark import MARK, mark_for
from labkit.servers.privileges import UNAUTHORIZED, Privileges, read_privileges
from labkit.servers.process import OwnedServer, Stopper

if TYPE_CHECKING:
    from pymongo import MongoClient
    from pymongo.database import Database
    from pymongo.results import UpdateResult

    Document = dict[str, Any]  # what pymongo hands back: a BSON document as a dict
    Client = MongoClient[Document]

DEFAULT_MONGO_VERSION = CURRENT_MAJOR  # the model's current rules and the image labkit starts
MIN_CACHE_GB = 0.25  # mongod refuses a smaller --wiredTigerCacheSizeGB (SERVER-47774)
MAX_CACHE_GB = 10000.0  # and a larger one (its option validator: gte 0.25, lte 10000)
_GB = 1024**3  # mongod reads --wiredTigerCacheSizeGB in units of 2**30 bytes

# The longest labkit waits for one reply: its slowest command is the B-tree's fsync after a
# load of a few million keys, seconds on a laptop; a URI's own socketTimeoutMS wins.
SOCKET_TIMEOUT_MS = 300_000

MONGO_HINT = N_(
    "Hint: point labkit at a server with LABKIT_MONGODB_URI=mongodb://host:27017 (a free "
    "hosted cluster, Atlas's free tier, will do: lesson 00 says how); "
    "or put a mongod on PATH (conda env create -f environment.yml ships one, MongoDB 6.0) "
    "or name it in LABKIT_MONGOD; or start Docker so labkit can run the mongo image."
)

# A database whose lease ran out (``base.lease_over``) is a killed run's, provably labkit's.
LEASE_COLLECTION = "labkit_lease"

# The codes of an action refused to this user, whatever refuses it: the server's Unauthorized
# (src/mongo/base/error_codes.yml), or 8000, "AtlasError", which Atlas's shared tiers answer
# instead (their proxy's own code, so not in that file).
ATLAS_ERROR = 8000
REFUSED = (UNAUTHORIZED, ATLAS_ERROR)


def refused(exc: BaseException) -> bool:
    """Whether ``exc`` is the server refusing this user an action (``REFUSED``)."""
    from pymongo.errors import OperationFailure

    return isinstance(exc, OperationFailure) and exc.code in REFUSED


# What mongod answers a command name it does not know (src/mongo/base/error_codes.yml), and what
# a server that speaks its protocol answers for one of mongod's it lacks (FerretDB: fsync).
COMMAND_NOT_FOUND = 59


def missing_command(exc: BaseException) -> bool:
    """Whether ``exc`` is the server saying it has no such command (59, CommandNotFound)."""
    from pymongo.errors import OperationFailure

    return isinstance(exc, OperationFailure) and exc.code == COMMAND_NOT_FOUND


def in_replica_set(hello: Mapping[str, Any]) -> bool:
    """Whether a ``hello`` reply comes from a replica set's member: it names its set
    (``setName``), or, started as one and not yet initiated, says ``isreplicaset`` (the
    manual's "hello" page)."""
    return bool(hello.get("setName") or hello.get("isreplicaset"))


@contextlib.contextmanager
def _speaking(uri: str, failed: str) -> Iterator[None]:
    """The driver's failure on the server at ``uri`` (a connection reset, a timeout, a refusal)
    as one ``ServerUnavailable``: ``failed`` says what labkit was doing (a whole sentence, so
    that a translation orders it as its language needs), with ``{uri}`` and ``{error}``."""
    from pymongo.errors import OperationFailure, PyMongoError

    try:
        yield
    except PyMongoError as exc:
        # A server that answered with an error is running: it refused what labkit sent.
        hint = (N_("the server answered, and refused the command: a server that speaks "
                   "MongoDB's protocol may lack what labkit uses (docs/compatible.md)")
                if isinstance(exc, OperationFailure) else
                N_("check that it is running and reachable, then run labkit again "
                   "(`labkit clean` removes what a run left there)."))
        raise ServerUnavailable(Message(failed, uri=redact(uri), error=server_said(exc)),
                                hint=Message(hint)) from exc


def mongo_client(uri: str, **options: Any) -> Client:
    """Return a ``MongoClient`` configured the way every labkit experiment needs it."""
    from pymongo import MongoClient

    if not _uri_sets(uri, "serverSelectionTimeoutMS"):  # keyword options beat the URI's
        options.setdefault("serverSelectionTimeoutMS", 5000)
    if not _uri_sets(uri, "socketTimeoutMS"):
        # pymongo waits for a reply forever by default: a server that stops answering without
        # closing the connection would hold a run (or a lesson's cell) for good.
        options.setdefault("socketTimeoutMS", SOCKET_TIMEOUT_MS)
    # Every read goes to the primary, whatever the URI's readPreference: an experiment reads
    # right after its own writes, and a secondary that has not replicated them yet would answer
    # with fewer documents, a wrong verdict. (A direct connection to one member still reads from
    # it: the server selection spec selects a Single topology's server for any preference.)
    options["readPreference"] = "primary"
    client: Client = MongoClient(uri, uuidRepresentation="standard", tz_aware=True, **options)
    return client


def _uri_sets(uri: str, option: str) -> bool:
    """Whether the URI's own options (read by pymongo's option parser) set ``option``."""
    from pymongo.uri_parser import split_options

    query = uri.partition("?")[2]
    try:
        return bool(query) and option in split_options(query, validate=False)
    except ValueError:  # pymongo's parser refuses it: MongoClient will say why
        return False


def check_cache_gb(cache_gb: object) -> float:
    """Return the WiredTiger cache (GB) for a ``mongod`` labkit starts; refuse what mongod would.

    None means labkit's default, the smallest cache ``mongod`` accepts.
    """
    if cache_gb is None:
        return DEFAULT_CACHE_GB
    # The lower bound a number in the learner's digits ("0,25"); the upper one as mongod's
    # option validator writes it ("10000", ungrouped in every language).
    valid = Message(N_("it must be a number from {low} to {high} GB"),
                    low=_gb(MIN_CACHE_GB), high=str(_gb(MAX_CACHE_GB)))
    if isinstance(cache_gb, bool) or not isinstance(cache_gb, int | float):
        raise BadInput(Message(N_("WiredTiger cache size {size} is not a number; {valid}"),
                               size=repr(cache_gb), valid=valid))
    if not math.isfinite(cache_gb) or not MIN_CACHE_GB <= cache_gb <= MAX_CACHE_GB:
        raise BadInput(Message(N_("WiredTiger cache size {size} GB is out of range: {valid} "
                                  "({low} is the smallest mongod accepts)"),
                               size=repr(cache_gb), valid=valid, low=_gb(MIN_CACHE_GB)))
    return float(cache_gb)


def _lease_mark(lease: object) -> object:
    return lease.get("mark") if isinstance(lease, dict) else None


def _is_stale(lease: object, now: dt.datetime) -> bool | None:
    """Whether the lease ran out by the server's ``now`` (``base.lease_over``: past its
    ``expires``, or an older labkit's lease without one STALE_AFTER after ``renewed``); None
    when what it holds is not a date (then it cannot be judged: left alone)."""
    if not isinstance(lease, dict):
        return None
    return lease_over(now, lease.get("expires"), lease.get("renewed"))


def lease_state(lease: object, now: dt.datetime, name: str) -> str:
    """The lease of database ``name``: ``"unmarked"`` (no ``labkit:`` mark: never touched),
    ``"unproven"`` (a mark that is not this installation's for this name, or an end or renewal
    time that is not a date: left alone), ``"in use"`` (not run out by the server's ``now``)
    or ``"stale"``."""
    mark = _lease_mark(lease)
    if not (isinstance(mark, str) and mark.startswith(MARK)):
        return "unmarked"
    stale = _is_stale(lease, now)
    if stale is None or why_unproven(name, mark) is not None:
        return "unproven"
    return "stale" if stale else "in use"


# The codes of a server that takes no pipeline update (an update's ``u`` given as a list of
# stages), and so no ``$$NOW`` in one: FerretDB 1.x answers 14, TypeMismatch.
LEASE_PLAIN = (14,)


def _until(lasts: dt.timedelta) -> dict[str, list[object]]:
    """The server's ``$$NOW`` and ``lasts`` more: a lease's end, by the server's clock (``$add``
    of a date and a number of milliseconds is a date)."""
    return {"$add": ["$$NOW", int(lasts.total_seconds() * 1000)]}


@dataclass(kw_only=True, repr=False)  # the repr is Server's: it hides the password
class MongoServer(Server["Database[Document]"]):
    """A running MongoDB server: where it is, how labkit got it, its version and its cache."""

    uri: str
    cache_gb: float | None = None
    # The cache in words (``cache_report``): English in results, the learner's on screen.
    cache: Text = ""
    # What the URI's user may do (None: a server labkit started, or not reported).
    privileges: Privileges | None = None
    # A product that speaks MongoDB's protocol in its place (``FerretDB``; empty for MongoDB),
    # ``version`` then being its own, and the MongoDB version it reports.
    product: str = ""
    reports: str = ""
    _client: Client | None = None
    # True once the server refused a lease written as a pipeline update (``LEASE_PLAIN``).
    _plain_leases: bool = field(default=False, repr=False)

    key = "mongodb"
    engine = engine_name(key)
    modes = MONGO_MODES
    hint = MONGO_HINT
    user_mode = "uri"
    user_variable = "LABKIT_MONGODB_URI"

    @property
    def address(self) -> str:
        """The server's URI."""
        return self.uri

    @property
    def name(self) -> str:
        """``MongoDB``, or the product that answered in its place (``FerretDB``)."""
        return self.product or self.engine

    def _detail(self) -> Text:
        return (Message(N_("reports MongoDB {version}"), version=self.reports)
                if self.product else "")

    def client(self) -> Client:
        """Return this server's shared client (standard UUIDs, timezone-aware dates)."""
        if self._client is None:
            self._client = mongo_client(self.uri)
        return self._client

    def _cleans_on_first_use(self) -> bool:
        # Only a user's server can hold what killed runs left; one labkit started is new.
        return self.how == "uri"

    def _create(self, name: str) -> Database[Document]:
        mark = mark_for(name)  # before anything exists: a secret that cannot be had stops here
        database = self.client()[name]
        self._created.append(name)  # before the write: whatever it did, stop() drops it
        self._lease_sent(name)
        with _speaking(self.uri, N_("The MongoDB server at {uri} failed while labkit wrote a "
                                    "new database's lease: {error}")):
            self._write_lease(database, {"mark": mark, "host": socket.gethostname(),
                                         "pid": os.getpid()}, self.lease.lasts, created=True)
        return database

    def _write_lease(self, database: Database[Document], fields: dict[str, Any],
                     lasts: dt.timedelta, *, created: bool = False) -> UpdateResult:
        """Write the lease's ``fields``, its renewal and its end, by the server's clock: as a
        pipeline update with ``$$NOW`` where the server takes one, else (``LEASE_PLAIN``) as
        a plain update of the time ``hello`` gives (``localTime``, the server's clock too); a
        new lease (``created``) is upserted with its creation time."""
        from pymongo.errors import OperationFailure

        leases = database[LEASE_COLLECTION]
        if not self._plain_leases:
            times = {"renewed": "$$NOW", "expires": _until(lasts)}
            try:
                return leases.update_one(
                    {"_id": "lease"},
                    [{"$set": {**fields, **times, **({"created": "$$NOW"} if created else {})}}],
                    upsert=created)
            except OperationFailure as exc:
                if exc.code not in LEASE_PLAIN:
                    raise
                self._plain_leases = True
        now = self.client().admin.command("hello")["localTime"]
        plain = {**fields, "renewed": now, "expires": now + lasts}
        return leases.update_one({"_id": "lease"},
                                 {"$set": {**plain, **({"created": now} if created else {})}},
                                 upsert=created)

    def _before_create(self) -> None:
        privileges = self.privileges
        if privileges is not None and not privileges.usable:  # no user yet: nothing granted
            hint = (N_("create the first user (notebooks/hosted.md, \"The user labkit needs\") and "
                       "put its name and password in LABKIT_MONGODB_URI.")
                    if privileges.no_user_yet else
                    N_("grant the user readWriteAnyDatabase (and dbAdminAnyDatabase, so labkit "
                       "can drop its databases), or use the role notebooks/hosted.md creates."))
            raise ServerUnavailable(
                # The report starts a line of its own: a URI's redaction runs to its line's end.
                Message(N_("The MongoDB server at {uri} does not let this user run the "
                           "experiments:\n{report}."), uri=redact(self.uri),
                        report=privileges.report()),
                hint=Message(hint))

    def _drop(self, name: str) -> None:
        self._remove(name)

    def _remove(self, name: str) -> None:
        """Drop database ``name``; where the user may not (``readWrite`` and
        ``readWriteAnyDatabase`` lack ``dropDatabase``), drop its collections, the lease last,
        and raise ``CleanupIncomplete`` naming any that stay."""
        from pymongo.errors import OperationFailure

        client = self.client()
        if self.privileges is None or self.privileges.allows("dropDatabase"):
            try:
                client.drop_database(name)
                return
            except OperationFailure as exc:
                if not refused(exc):
                    raise
        database = client[name]
        # The lease goes last: a database left half-dropped stays provably labkit's.
        names = sorted(database.list_collection_names(), key=lambda n: n == LEASE_COLLECTION)
        left, why = [], ""
        for collection in names:
            try:
                database.drop_collection(collection)
            except OperationFailure as exc:
                left.append(collection)
                why = server_said(exc)
        if left:
            raise CleanupIncomplete(name, left, Message(N_("dropDatabase is not allowed and "
                                                           "{why}"), why=why))

    def clean_stale(self) -> Stale:
        """Drop the databases labkit provably made (their lease's mark verifies for their
        name) whose lease a run stopped renewing long ago (a killed run's). Databases without
        labkit's lease, even named ``labkit_…``, are never touched; a lease whose mark does
        not prove is left and said."""
        with _speaking(self.uri, N_("The MongoDB server at {uri} failed while labkit looked "
                                    "for what killed runs left: {error}")):
            return self._clean_stale()

    def _clean_stale(self) -> Stale:
        from pymongo.errors import OperationFailure

        client = self.client()
        now = client.admin.command("hello")["localTime"]
        found = Stale()
        for name in sorted(client.list_database_names()):
            if not name.startswith(DB_PREFIX) or name in self._created:
                continue
            try:
                lease = client[name][LEASE_COLLECTION].find_one({"_id": "lease"})
            except OperationFailure as exc:  # a database this user may not read
                found.skipped[name] = _why_kept(exc)
                continue
            state = lease_state(lease, now, name)
            if state == "stale":
                try:
                    self._remove(name)
                except Exception as exc:  # a user who may not drop it: said, never raised
                    found.skipped[name] = _why_kept(exc)
                    continue
                found.removed.append(name)
            elif state == "in use":
                found.in_use.append(name)
            elif state == "unproven":
                found.unproven[name] = (why_unproven(name, _lease_mark(lease))
                                        or Message(N_("its lease's renewal time is not a "
                                                      "date")))
        return found

    def _renew(self, name: str, lasts: dt.timedelta) -> bool:
        """An update of the lease only (no upsert: a dropped database is not made again);
        False where it matched no lease (the database or its lease was dropped)."""
        result = self._write_lease(self.client()[name], {}, lasts)
        # An unacknowledged write (a URI's w=0) tells nothing: the lease counts as renewed.
        return not result.acknowledged or result.matched_count == 1

    def _driver_failure(self, failure: BaseException) -> str | None:
        """pymongo's ``ConnectionFailure``: a reset, a timeout, no server to select."""
        from pymongo.errors import ConnectionFailure

        return server_said(failure) if isinstance(failure, ConnectionFailure) else None

    def _close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def _settings(self) -> str:
        return english(self.cache)  # the run's record of the engine keeps English

    def gone(self, failure: BaseException) -> ServerUnavailable | None:
        """After the driver lost its connection (``failure`` or what caused it is pymongo's
        ``ConnectionFailure``: a reset, a timeout, no server to select), one ``ping``: where
        it fails too, the server is gone; a reset it outlives costs only the claim it hit."""
        from pymongo.errors import ConnectionFailure

        seen: BaseException | None = failure
        while seen is not None and not isinstance(seen, ConnectionFailure):
            seen = seen.__cause__
        if seen is None:
            return None
        try:
            with _speaking(self.uri, N_("The MongoDB server at {uri} stopped answering during "
                                        "the run: {error}")):
                self.client().admin.command("ping")
        except ServerUnavailable as exc:
            return exc
        return None

    @classmethod
    def ways(cls, request: ServerRequest) -> dict[str, Attempt[MongoServer]]:
        """LABKIT_MONGODB_URI, then a local mongod, then Docker; the cache is checked first."""
        version = request.version
        cache_gb = check_cache_gb(request.cache_gb)

        def by_uri() -> MongoServer | Text:
            several = user_uris()
            if not several:
                return Message(N_("not set"))
            return _among(several, version) if len(several) > 1 else from_uri(
                os.environ["LABKIT_MONGODB_URI"], version)

        def local() -> MongoServer | Text:
            binary = find_mongod()
            if binary is None:
                return mongod_missing_reason() or Message(N_("no mongod"))
            actual = mongod_version(binary)
            if not version_matches(actual, version):
                return Message(N_("{binary} is version {actual}, not {version}"),
                               binary=binary, actual=actual, version=version)
            return _start_local_mongod(binary, cache_gb)

        def docker() -> MongoServer | Text:
            ok, detail = base.docker_status()
            if not ok:
                return detail
            return _start_docker_mongo(version or DEFAULT_MONGO_VERSION, cache_gb)

        return {"uri": ("LABKIT_MONGODB_URI", by_uri), "local": (N_("local mongod"), local),
                "docker": ("Docker", docker)}


def _why_kept(exc: Exception) -> Message:
    """Why a stale database of labkit's stays: what was left, or the server's refusal."""
    if isinstance(exc, CleanupIncomplete):
        return Message(N_("left {collections}: {why}"), collections=", ".join(exc.left),
                       why=exc.why)
    return Message(N_("could not drop it: {why}"), why=one_line(exc))


# The cache a server reports ------------------------------------------------------------


def _gb(value: float) -> float | int:
    """A size in GB to two decimals, a whole one as an int: a message's ``{size}`` writes it
    as ``:g`` did in English ("0.25", "1") and in the learner's own digits ("0,25")."""
    rounded = round(value, 2)
    return int(rounded) if rounded.is_integer() else rounded


def _configured_cache(status: Mapping[str, Any] | Exception) -> tuple[float | None, Text]:
    """The WiredTiger cache a ``serverStatus`` reply reports, in GB, or why it cannot be read.

    ``status`` is the reply, or the error the command raised (a user without the
    ``serverStatus`` privilege, a hosted tier that refuses it).
    """
    if isinstance(status, Exception):
        return None, server_said(status)
    cache = (status.get("wiredTiger") or {}).get("cache") or {}
    configured = cache.get("maximum bytes configured")
    if configured is None:
        return None, Message(N_("serverStatus has no wiredTiger.cache section"))
    return int(configured) / _GB, ""


def cache_report(status: Mapping[str, Any] | Exception,
                 asked_gb: float | None) -> tuple[float | None, Message]:
    """The cache to report, in GB and in words (a message: English where results keep it, the
    learner's language on screen): what the server says, against what labkit asked.

    ``asked_gb`` is None for a server labkit did not start.
    """
    actual, why = _configured_cache(status)
    if asked_gb is None:
        if actual is None:
            return None, Message(N_("WiredTiger cache: the server's own setting (not readable: "
                                    "{why}); labkit did not start this server"), why=why)
        return actual, Message(N_("WiredTiger cache {size} GB (the server's own setting; "
                                  "labkit did not start this server)"), size=_gb(actual))
    if actual is None or math.isclose(actual, asked_gb, rel_tol=1e-3):
        return asked_gb, Message(N_("WiredTiger cache {size} GB (set by labkit)"),
                                 size=_gb(asked_gb))
    return actual, Message(N_("WiredTiger cache {size} GB (labkit asked for {asked} GB)"),
                           size=_gb(actual), asked=_gb(asked_gb))


def _cache_of(client: Client, asked_gb: float | None) -> tuple[float | None, Message]:
    from pymongo.errors import PyMongoError

    status: Mapping[str, Any] | Exception
    try:
        status = client.admin.command("serverStatus")
    except PyMongoError as exc:
        status = exc
    return cache_report(status, asked_gb)


# The ways to a server --------------------------------------------------------------------


def _ping_until(uri: str, alive: Callable[[], bool] = lambda: True) -> None:
    """Ping the server at ``uri`` until it answers (within START_TIMEOUT), through a client of
    its own whose half-second server selection lets each try fail fast (its monitor goes on
    looking between tries, so a slow first answer is still found), and a process that died is
    noticed within a try; the client labkit keeps afterwards has the normal timeout, which a
    loaded machine needs."""
    from pymongo.errors import PyMongoError

    last: Exception | None = None
    probe = mongo_client(uri, serverSelectionTimeoutMS=500)
    deadline = time.monotonic() + START_TIMEOUT
    try:
        while time.monotonic() < deadline and alive():
            try:
                probe.admin.command("ping")
                return
            except PyMongoError as exc:
                last = exc
                time.sleep(0.1)
    finally:
        probe.close()
    if not alive():
        raise TimeoutError("the server exited before it answered")
    raise TimeoutError(str(last) if last else "no answer before the deadline")


# The server's code for credentials it refuses (src/mongo/base/error_codes.yml); Atlas's proxy
# answers 8000 "bad auth : Authentication failed." instead.
AUTHENTICATION_FAILED = 18


def _credentials_refused(exc: BaseException) -> bool:
    """Whether the driver's error is the server refusing the URI's user name or password."""
    from pymongo.errors import OperationFailure

    if not isinstance(exc, OperationFailure):
        return False
    if exc.code == AUTHENTICATION_FAILED:
        return True
    return exc.code == ATLAS_ERROR and "auth" in server_said(exc).lower()


def from_uri(uri: str, version: str | None = None) -> MongoServer:
    """The MongoDB server at ``uri`` (not labkit's: only its ``labkit_`` databases are touched)."""
    from pymongo.errors import ConfigurationError, OperationFailure, PyMongoError

    client: Client | None = None
    try:
        client = mongo_client(uri)
        client.admin.command("ping")
        identity = identify(client.server_info())
    except (ConfigurationError, ValueError) as exc:  # pymongo's parser raises both
        if client is not None:
            client.close()
        raise _not_spoken_to(exc, uri, parsed=client is not None) from exc
    except PyMongoError as exc:
        if client is not None:
            client.close()
        if isinstance(exc, OperationFailure) and exc.code == UNAUTHORIZED \
                and not _conninfo.parse(uri).user:
            # From 8.1 buildInfo needs an authenticated user (buildInfoAuthMode, in
            # src/mongo/db/commands/buildinfo_common.cpp): the server answered ping, but
            # tells its version to no connection without one.
            raise ServerUnavailable(
                Message(N_("The MongoDB server at {uri} answers, but tells its version only "
                           "to an authenticated user, and the URI names none: {error}"),
                        uri=redact(uri), error=server_said(exc)),
                hint=Message(N_("put a user's name and password in LABKIT_MONGODB_URI "
                                "(mongodb://user:password@host:27017/; notebooks/hosted.md, \"The "
                                "user labkit needs\").")),
            ) from exc
        if _credentials_refused(exc):
            raise ServerUnavailable(
                Message(N_("The MongoDB server at {uri} refused the URI's credentials: {error}"),
                        uri=redact(uri), error=server_said(exc)),
                hint=Message(N_("check the user name, the password and authSource (the "
                                "database that holds the user: admin unless the URI names "
                                "another).")),
            ) from exc
        raise ServerUnavailable(
            Message(N_("The MongoDB server at {uri} did not answer: {error}"),
                    uri=redact(uri), error=server_said(exc)),
            hint=Message(N_("check that it is running and reachable, or unset "
                            "LABKIT_MONGODB_URI to let labkit start one.")),
        ) from exc
    actual = identity.version
    refused = _not_the_version(uri, identity, version)
    if refused is not None:
        client.close()
        raise refused
    cache_gb, cache = _cache_of(client, None)
    try:
        privileges: Privileges | None = read_privileges(client)
    except PyMongoError:  # a proxy that does not answer connectionStatus: not known
        privileges = None
    return MongoServer(uri=uri, how="uri", version=actual, cache_gb=cache_gb, cache=cache,
                       privileges=privileges, product=identity.product,
                       reports=identity.reports, _client=client)


def _not_spoken_to(exc: Exception, uri: str, *, parsed: bool) -> LabkitError:
    """Why pymongo would not speak with the server: its URI refused by the parser (a name a
    DNS look-up did not find, or text that is no URI), or, once parsed, the server's wire
    versions outside the driver's, which pymongo says at server selection (4.20 needs 9,
    MongoDB 4.4, or later: mongo-java-server answers 8, Cosmos DB's older accounts less)."""
    from pymongo.errors import ConfigurationError

    if parsed and isinstance(exc, ConfigurationError):
        return ServerUnavailable(
            Message(N_("The server at {uri} answers, but pymongo cannot speak with it: "
                       "{error}"), uri=redact(uri), error=server_said(exc)),
            hint=Message(N_("labkit needs MongoDB 4.4 or later, or a server that reports a "
                            "wire version of 4.4's or later (docs/compatible.md).")))
    if (looked_up := _dns_failure(exc)) is not None:
        return ServerUnavailable(
            Message(N_("The MongoDB server at {uri} could not be found: the DNS look-up "
                       "of its mongodb+srv:// name failed: {error}"),
                    uri=redact(uri), error=looked_up),
            hint=Message(N_("check the host name (a hosted cluster's Connect dialog gives "
                            "it) and that this machine reaches the Internet.")))
    return BadInput(Message(N_("LABKIT_MONGODB_URI is not a valid MongoDB URI (pymongo's "
                               "parser refused it; its text is not shown: it may hold a "
                               "password)")))


def _not_the_version(uri: str, identity: Identity, version: str | None
                     ) -> ServerUnavailable | None:
    """Why the server is not the one ``--mongodb-version`` asks for, or None where it is: a
    product that answers in MongoDB's place is never MongoDB, whatever version it reports."""
    if version is not None and not identity.is_mongodb:
        return ServerUnavailable(
            Message(N_("The server at {uri} is {product} {actual}, which reports MongoDB "
                       "{reports}: not MongoDB {version}."), uri=redact(uri),
                    product=identity.product, actual=identity.version,
                    reports=identity.reports, version=version),
            hint=Message(N_("--mongodb-version asks for MongoDB itself; drop it to run on "
                            "this server, named for what it is (docs/compatible.md).")))
    if not version_matches(identity.version, version):
        return ServerUnavailable(
            Message(N_("The MongoDB server at {uri} is version {actual}, not {version}."),
                    uri=redact(uri), actual=identity.version, version=version),
            hint=Message(N_("unset LABKIT_MONGODB_URI to let labkit start that version, or "
                            "drop --mongodb-version.")))
    return None


def _dns_failure(exc: BaseException) -> str | None:
    """What the DNS look-up said, where pymongo's refusal of a ``mongodb+srv://`` URI is its
    resolver's failure (pymongo/synchronous/srv_resolver.py raises every dnspython error as a
    ConfigurationError of the same text, the dnspython error as its cause): no such name, no
    DNS server, a timeout. None for any other refusal."""
    cause = exc.__cause__
    while cause is not None:
        if type(cause).__module__.split(".")[0] == "dns":
            return redact(str(cause)) or type(cause).__name__
        cause = cause.__cause__
    return None


def user_uris() -> list[str]:
    """The servers LABKIT_MONGODB_URI names: one URI, or several separated by spaces (one per
    version a matrix needs); none where it is not set. Its passwords are hidden from now on
    wherever a piece of one shows (remembered whole first: a password with a space would be
    split with the list)."""
    value = os.environ.get("LABKIT_MONGODB_URI", "")
    if value:
        _redact.remember(value)
    return value.split()


def _among(uris: list[str], version: str | None) -> MongoServer:
    """The first of several servers (LABKIT_MONGODB_URI lists them, one per version a matrix
    needs) whose version is ``version``, any if None."""
    found = []
    for uri in uris:
        server = from_uri(uri, None)
        if version_matches(server.version, version):
            return server
        found.append(server.version)
        server.stop()
    raise ServerUnavailable(Message(N_("None of the {n} servers in LABKIT_MONGODB_URI is "
                                       "version {version} (found {found})."),
                                    n=len(uris), version=version, found=", ".join(found)))


def find_mongod() -> str | None:
    """Return the local ``mongod`` labkit would start (``LABKIT_MONGOD``, then PATH)."""
    named = os.environ.get("LABKIT_MONGOD")
    if named:
        return named if os.path.isfile(named) and os.access(named, os.X_OK) else None
    return shutil.which("mongod")


def mongod_missing_reason() -> Message | None:
    """Why there is no local ``mongod`` to start, telling an unset LABKIT_MONGOD from a bad one."""
    if find_mongod() is not None:
        return None
    named = os.environ.get("LABKIT_MONGOD")
    if not named:
        return Message(N_("LABKIT_MONGOD is not set and there is no mongod on PATH"))
    if not os.path.exists(named):
        return Message(N_("LABKIT_MONGOD is set to {path}, which does not exist"), path=named)
    return Message(N_("LABKIT_MONGOD is set to {path}, which is not an executable file"),
                   path=named)


def mongod_version(binary: str) -> str:
    """Return the version a ``mongod`` binary reports, such as ``7.0.14``."""
    hint = Message(N_("LABKIT_MONGOD (or the mongod on PATH) must be a MongoDB server binary; "
                      "`mongod --version` prints `db version v…`."))
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise ServerStartError(Message(N_("{binary} --version did not finish within 30 s."),
                                       binary=binary), hint=hint) from exc
    except OSError as exc:
        raise ServerStartError(Message(N_("{binary} cannot be run: {error}."), binary=binary,
                                       error=exc.strerror or str(exc)), hint=hint) from exc
    match = re.search(r"db version v(\S+)", out.stdout + out.stderr)
    if not match:
        raise ServerStartError(Message(N_("{binary} --version did not print a version."),
                                       binary=binary),
                               log_tail=out.stderr[-500:].strip(), hint=hint)
    return match.group(1)


# mongod exits with ExitCode::netError (48, src/mongo/util/exit_code.h) when it cannot set up its
# listener (src/mongo/db/mongod_main.cpp, "Error setting up listener"): that happens before it
# initializes its storage engine, so the same dbpath serves the next port. The reason it logs
# is the system's own words, "Address already in use" on Linux and macOS.
_NET_ERROR = 48
_PORT_TAKEN = "Address already in use"


def _start_local_mongod(binary: str, cache_gb: float) -> MongoServer:
    """Start ``binary`` on a port of its own (another where that one was taken meanwhile)."""
    owned = OwnedServer("mongod", "mongod.log")
    dbpath = owned.workdir / "db"
    dbpath.mkdir()

    def start() -> str:
        command = [binary, "--dbpath", str(dbpath), "--port", str(owned.port),
                   "--bind_ip", "127.0.0.1", "--logpath", str(owned.log),
                   "--setParameter", "diagnosticDataCollectionEnabled=false",
                   "--wiredTigerCacheSizeGB", str(cache_gb)]
        if os.name != "nt":  # Windows builds have no Unix socket option
            command.append("--nounixsocket")
        owned.popen(command)
        uri = f"mongodb://127.0.0.1:{owned.port}/?directConnection=true"
        _ping_until(uri, owned.running)
        return uri

    client = None
    try:
        uri = owned.on_a_free_port(
            start, lambda: owned.exited_over_its_port(_NET_ERROR, _PORT_TAKEN))
        client = mongo_client(uri)
        version = str(client.server_info()["version"])
        actual_gb, cache = _cache_of(client, cache_gb)
    except Exception as exc:
        if client is not None:
            client.close()
        taken = Message(N_(" (after port(s) {ports}, taken before it bound them)"),
                        ports=", ".join(map(str, owned.taken))) if owned.taken else ""
        raise owned.failed(
            Message(N_("Started {binary} on port {port}{taken}, but it did not answer "
                       "({error})."), binary=binary, port=str(owned.port), taken=taken,
                    error=str(exc)),
            hint=Message(N_("run the same mongod by hand to see why, or point LABKIT_MONGOD "
                            "at another binary.")),
        ) from exc
    return MongoServer(uri=uri, how="local", version=version, workdir=owned.workdir,
                       cache_gb=actual_gb, cache=cache, _stopper=owned.stopper,
                       _client=client)


def _start_docker_mongo(version: str, cache_gb: float) -> MongoServer:
    from testcontainers.community.mongodb import MongoDbContainer

    image = f"mongo:{version}"
    # A password of its own: testcontainers' default is "test", and labkit hides a password
    # wherever it shows, so every "test" in a lesson or report would print as ***.
    container = MongoDbContainer(image, username="labkit", password=secrets.token_urlsafe(24))
    # The image's entrypoint runs `mongod ARGS…` when the first argument is an option.
    container.with_command(["--wiredTigerCacheSizeGB", str(cache_gb)])
    client = None
    try:
        container.start()
        uri = container.get_connection_url()
        # The image restarts mongod after its init scripts; ready logs can come early.
        _ping_until(uri)
        client = mongo_client(uri)
        actual = str(client.server_info()["version"])
        actual_gb, cache = _cache_of(client, cache_gb)
    except Exception as exc:
        if client is not None:
            client.close()
        logs = base.container_logs(container)
        with contextlib.suppress(Exception):
            container.stop()
        cause = str(exc).splitlines()[0] if str(exc) else repr(exc)
        raise ServerStartError(
            Message(N_("Docker could not start {image} ({cause})."), image=image, cause=cause),
            log_tail=logs,
            hint=Message(N_("check `docker run --rm {image} --version`, or choose another "
                            "--mongodb-version."), image=image),
        ) from exc
    return MongoServer(uri=uri, how="docker", version=actual, cache_gb=actual_gb, cache=cache,
                       _stopper=Stopper(container.stop), _client=client)


def mongodb_missing() -> Message | None:
    """Why no MongoDB server can be had here, checked without starting one (a message: a test's
    skip reason keeps its English, a lesson shows the learner's); None if one can."""
    if os.environ.get("LABKIT_MONGODB_URI") or find_mongod():
        return None
    ok, detail = base.docker_status()
    if ok:
        return None
    return Message(N_("no MongoDB server: LABKIT_MONGODB_URI is not set, no local mongod was "
                      "found, and Docker is not usable ({detail})"), detail=detail)
