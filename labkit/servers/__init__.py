"""Real database servers for the experiments: found or started, and always cleaned up.

MongoDB comes from, in order: ``LABKIT_MONGODB_URI``, a local ``mongod``
(``LABKIT_MONGOD`` or ``PATH``), Docker through testcontainers. PostgreSQL the
same way: ``LABKIT_POSTGRES_DSN``, local binaries, Docker. On a server the user
owns, labkit only touches databases whose names start with ``labkit_``. Every
``mongod`` labkit starts gets a small WiredTiger cache, so that B-tree work shows
cache churn; on a server labkit did not start, the cache is that server's own.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import datetime as dt
import glob
import math
import os
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labkit import _redact
from labkit.errors import BadInput, ServerStartError, ServerUnavailable
from labkit.names import engine_name
from labkit.servers.reaper import STOP_GRACE, Watcher, detached, remove

DB_PREFIX = "labkit_"
DEFAULT_MONGO_VERSION = "8.0"
DEFAULT_POSTGRES_VERSION = "18"
MONGO_MODES = ("auto", "uri", "local", "docker")
POSTGRES_MODES = ("auto", "dsn", "local", "docker")
START_TIMEOUT = 60.0
DEFAULT_CACHE_GB = 0.25
MIN_CACHE_GB = 0.25  # mongod refuses a smaller --wiredTigerCacheSizeGB (SERVER-47774)
MAX_CACHE_GB = 10000.0  # and a larger one (its option validator: gte 0.25, lte 10000)
_GB = 1024**3  # mongod reads --wiredTigerCacheSizeGB in units of 2**30 bytes

_VERSION_RE = re.compile(r"^\d+(\.\d+){0,2}$")

MONGO_HINT = (
    "Hint: point labkit at a server with LABKIT_MONGODB_URI=mongodb://host:27017; "
    "or put a mongod on PATH (conda env create -f environment.yml ships one) "
    "or name it in LABKIT_MONGOD; or start Docker so labkit can run the mongo image."
)
POSTGRES_HINT = (
    "Hint: set LABKIT_POSTGRES_DSN=postgresql://user:password@host:5432/db; "
    "or install PostgreSQL (apt-get install postgresql, or the conda environment); "
    "or start Docker so labkit can run the postgres image."
)


def mongo_client(uri: str, **options):
    """Return a ``MongoClient`` configured the way every labkit experiment needs it."""
    from pymongo import MongoClient

    options.setdefault("serverSelectionTimeoutMS", 5000)
    return MongoClient(uri, uuidRepresentation="standard", tz_aware=True, **options)


def check_version(version: str | None) -> str | None:
    """Refuse unpinned or malformed versions (``latest``); return the version unchanged."""
    if version is None:
        return None
    if version == "latest" or not _VERSION_RE.match(version):
        raise BadInput(
            f"server version {version!r} is not a pinned version such as 8.0 or 7.0.14"
        )
    return version


def check_cache_gb(cache_gb: float | None) -> float:
    """Return the WiredTiger cache (GB) for a ``mongod`` labkit starts; refuse what mongod would.

    None means labkit's default, the smallest cache ``mongod`` accepts.
    """
    if cache_gb is None:
        return DEFAULT_CACHE_GB
    valid = f"it must be a number from {MIN_CACHE_GB:g} to {MAX_CACHE_GB:g} GB"
    if isinstance(cache_gb, bool) or not isinstance(cache_gb, int | float):
        raise BadInput(f"WiredTiger cache size {cache_gb!r} is not a number; {valid}")
    if not math.isfinite(cache_gb) or not MIN_CACHE_GB <= cache_gb <= MAX_CACHE_GB:
        raise BadInput(f"WiredTiger cache size {cache_gb!r} GB is out of range: {valid} "
                       f"({MIN_CACHE_GB:g} is the smallest mongod accepts)")
    return float(cache_gb)


def _check_mode(mode: str, modes: tuple[str, ...]) -> None:
    if mode not in modes:
        raise BadInput(f"unknown server mode {mode!r}; choose one of {', '.join(modes)}")


def _version_matches(actual: str, wanted: str | None) -> bool:
    return wanted is None or actual == wanted or actual.startswith(wanted + ".")


def redact(uri: str) -> str:
    """Hide the password in a connection string, whatever its form (URI, query, key-value)."""
    return _redact.redact(uri)


# One fallback chain for every engine ---------------------------------------------------

# An attempt returns a server, or the reason it has none; it may raise ServerStartError.
Attempt = tuple[str, Callable[[], Any]]


def _first_server(engine: str, attempts: Sequence[Attempt], explicit: bool, hint: str):
    """Try each way in order; the first server wins, otherwise say what each way gave.

    When the user named one way (``explicit``), its start failure is the error itself;
    in ``auto`` mode it is one line of what was tried, and the next way gets its turn.
    """
    tried: list[str] = []
    for name, attempt in attempts:
        try:
            outcome = attempt()
        except ServerStartError as exc:
            if explicit:
                raise
            outcome = f"failed to start:\n{exc}"
        if not isinstance(outcome, str):
            return outcome
        tried.append(f"{name}: {outcome}")
    raise ServerUnavailable(f"No {engine} server is available.", tried=tried, hint=hint)


# One owner for every server process labkit starts ----------------------------------------


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log was written)"
    return "\n".join(text.splitlines()[-lines:]) or "(the log is empty)"


@dataclass
class _Stopper:
    """Runs a server's clean-up once, whether called directly or at interpreter exit."""

    action: Callable[[], None] | None

    def __post_init__(self) -> None:
        atexit.register(self)

    def __call__(self) -> None:
        action, self.action = self.action, None
        if action is not None:
            atexit.unregister(self)
            action()


class _OwnedServer:
    """A server process labkit starts: its folder, port, log, watcher, and how it stops.

    The watcher is told about the folder before anything runs and about each process
    as soon as it exists, so a killed owner never leaves a server or files behind.
    Stopping removes the folder before releasing the watcher: whatever moment the
    owner dies at, one of the two cleans up.
    """

    def __init__(self, kind: str, log_name: str) -> None:
        self.watcher = Watcher()
        try:
            self.workdir = Path(tempfile.mkdtemp(prefix=f"labkit-{kind}-"))
        except BaseException:
            self.watcher.release()
            raise
        self.watcher.watch_path(self.workdir)
        self.log = self.workdir / log_name
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.shutdown: Callable[[], None] | None = None
        self.stopper = _Stopper(self._stop)

    def popen(self, command: list[str]) -> subprocess.Popen:
        """Start the server process, out of reach of the terminal's Ctrl-C, and watch it."""
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT, **detached())
        self.watcher.watch_pid(self.process.pid)
        return self.process

    def running(self) -> bool:
        """False once the process labkit started has exited."""
        return self.process is None or self.process.poll() is None

    def failed(self, message: str, hint: str) -> ServerStartError:
        """Read the log, then clean up, then return the error to raise: in that order."""
        tail = _tail(self.log)
        self.stopper()
        return ServerStartError(message, log_tail=tail, hint=hint)

    def _stop(self) -> None:
        try:
            if self.shutdown is not None:
                with contextlib.suppress(Exception):
                    self.shutdown()
            if self.process is not None:
                if self.process.poll() is None:
                    self.process.terminate()
                try:
                    self.process.wait(timeout=STOP_GRACE)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            remove(str(self.workdir))
        finally:
            self.watcher.release()


# MongoDB -------------------------------------------------------------------------------


@dataclass
class MongoServer:
    """A running MongoDB server: where it is, how labkit got it, its version and its cache."""

    uri: str
    how: str
    version: str
    workdir: Path | None = None
    cache_gb: float | None = None
    cache: str = ""
    _stopper: _Stopper | None = None
    _client: object | None = None
    _created: list[str] = field(default_factory=list)
    _renewer: _Renewer | None = None
    _cleaned: Stale | None = None

    engine = engine_name("mongodb")

    def client(self):
        """Return this server's shared client (standard UUIDs, timezone-aware dates)."""
        if self._client is None:
            self._client = mongo_client(self.uri)
        return self._client

    @property
    def cleaned(self) -> Stale:
        """What the first ``fresh_database`` on a user's server found left by killed runs."""
        return self._cleaned or Stale()

    def fresh_database(self, label: str):
        """Create and return a new database named ``labkit_<label>_<random>``, marked as
        labkit's by a lease this run keeps renewing (see ``clean_stale``).

        On a server labkit did not start, the first call also removes stale databases.
        """
        if self._cleaned is None and self.how == "uri":
            self._cleaned = self.clean_stale()
        safe = re.sub(r"[^A-Za-z0-9_]", "_", label)[:30]
        name = f"{DB_PREFIX}{safe}_{uuid.uuid4().hex[:8]}"
        database = self.client()[name]
        self._created.append(name)
        database[LEASE_COLLECTION].update_one(
            {"_id": "lease"},
            [{"$set": {"mark": MARK, "host": socket.gethostname(), "pid": os.getpid(),
                       "created": "$$NOW", "renewed": "$$NOW"}}], upsert=True)
        if self._renewer is None:
            self._renewer = _Renewer(self)
        return database

    def clean_stale(self) -> Stale:
        """Drop the databases labkit marked whose lease a run stopped renewing long ago (a
        killed run's). Databases without labkit's lease, even named ``labkit_…``, are never
        touched."""
        client = self.client()
        now = client.admin.command("hello")["localTime"]
        found = Stale()
        for name in sorted(client.list_database_names()):
            if not name.startswith(DB_PREFIX) or name in self._created:
                continue
            lease = client[name][LEASE_COLLECTION].find_one({"_id": "lease"})
            state = lease_state(lease, now)
            if state == "stale":
                client.drop_database(name)
                found.removed.append(name)
            elif state == "in use":
                found.in_use.append(name)
        return found

    def renew(self) -> None:
        """Renew the lease of every database this object created (the renewer calls this)."""
        client = self.client()
        for name in list(self._created):
            client[name][LEASE_COLLECTION].update_one({"_id": "lease"},
                                                      [{"$set": {"renewed": "$$NOW"}}])

    def drop(self, name: str) -> None:
        """Drop one database, only if this object created it."""
        if name in self._created and name.startswith(DB_PREFIX):
            self._created.remove(name)
            self.client().drop_database(name)

    def drop_created(self) -> None:
        """Drop the databases this object created, and nothing else."""
        for name in list(self._created):
            self.drop(name)

    def stop(self) -> None:
        """Drop labkit's databases; stop the server if labkit started it."""
        if self._renewer is not None:
            self._renewer.stop()
            self._renewer = None
        with contextlib.suppress(Exception):
            self.drop_created()
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._stopper is not None:
            self._stopper()

    def __enter__(self) -> MongoServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def describe(self) -> str:
        """One line: engine, version, where it came from, and its WiredTiger cache."""
        cache = f"; {self.cache}" if self.cache else ""
        return f"MongoDB {self.version} ({self.how}: {redact(self.uri)}{cache})"


def _gb(value: float) -> str:
    return f"{round(value, 2):g}"


def _configured_cache(status: dict | Exception) -> tuple[float | None, str]:
    """The WiredTiger cache a ``serverStatus`` reply reports, in GB, or why it cannot be read.

    ``status`` is the reply, or the error the command raised (a user without the
    ``serverStatus`` privilege, a hosted tier that refuses it).
    """
    if isinstance(status, Exception):
        return None, (str(status).splitlines() or [type(status).__name__])[0]
    cache = (status.get("wiredTiger") or {}).get("cache") or {}
    configured = cache.get("maximum bytes configured")
    if configured is None:
        return None, "serverStatus has no wiredTiger.cache section"
    return int(configured) / _GB, ""


def _cache_report(status: dict | Exception, asked_gb: float | None) -> tuple[float | None, str]:
    """The cache to report, in GB and in words: what the server says, against what labkit asked.

    ``asked_gb`` is None for a server labkit did not start.
    """
    actual, why = _configured_cache(status)
    if asked_gb is None:
        if actual is None:
            return None, (f"WiredTiger cache: the server's own setting (not readable: {why}); "
                          "labkit did not start this server")
        return actual, (f"WiredTiger cache {_gb(actual)} GB (the server's own setting; "
                        "labkit did not start this server)")
    if actual is None or math.isclose(actual, asked_gb, rel_tol=1e-3):
        return asked_gb, f"WiredTiger cache {_gb(asked_gb)} GB (set by labkit)"
    return actual, f"WiredTiger cache {_gb(actual)} GB (labkit asked for {_gb(asked_gb)} GB)"


def _cache_of(client, asked_gb: float | None) -> tuple[float | None, str]:
    from pymongo.errors import PyMongoError

    try:
        status: dict | Exception = client.admin.command("serverStatus")
    except PyMongoError as exc:
        status = exc
    return _cache_report(status, asked_gb)


def _ping_until(client, deadline: float, alive: Callable[[], bool] = lambda: True) -> None:
    from pymongo.errors import PyMongoError

    last: Exception | None = None
    while time.monotonic() < deadline and alive():
        try:
            client.admin.command("ping")
            return
        except PyMongoError as exc:
            last = exc
            time.sleep(0.3)
    if not alive():
        raise TimeoutError("the server exited before it answered")
    raise TimeoutError(str(last) if last else "no answer before the deadline")


def from_uri(uri: str, version: str | None = None) -> MongoServer:
    """The MongoDB server at ``uri`` (not labkit's: only its ``labkit_`` databases are touched)."""
    return _mongo_from_uri(uri, version)


def _mongo_from_uri(uri: str, version: str | None) -> MongoServer:
    from pymongo.errors import ConfigurationError, PyMongoError

    try:
        client = mongo_client(uri)
        client.admin.command("ping")
        actual = client.server_info()["version"]
    except ConfigurationError as exc:
        raise BadInput(f"LABKIT_MONGODB_URI is not a valid MongoDB URI: {exc}") from exc
    except PyMongoError as exc:
        raise ServerUnavailable(
            f"The MongoDB server at {redact(uri)} did not answer: {str(exc).splitlines()[0]}",
            hint="check that it is running and reachable, or unset LABKIT_MONGODB_URI "
                 "to let labkit start one.",
        ) from exc
    if not _version_matches(actual, version):
        client.close()
        raise ServerUnavailable(
            f"The MongoDB server at {redact(uri)} is version {actual}, not {version}.",
            hint="unset LABKIT_MONGODB_URI to let labkit start that version, or drop "
                 "--mongodb-version.",
        )
    cache_gb, cache = _cache_of(client, None)
    return MongoServer(uri=uri, how="uri", version=actual, cache_gb=cache_gb, cache=cache,
                       _client=client)


def find_mongod() -> str | None:
    """Return the local ``mongod`` labkit would start (``LABKIT_MONGOD``, then PATH)."""
    named = os.environ.get("LABKIT_MONGOD")
    if named:
        return named if os.path.isfile(named) and os.access(named, os.X_OK) else None
    return shutil.which("mongod")


def mongod_missing_reason() -> str | None:
    """Why there is no local ``mongod`` to start, telling an unset LABKIT_MONGOD from a bad one."""
    if find_mongod() is not None:
        return None
    named = os.environ.get("LABKIT_MONGOD")
    if not named:
        return "LABKIT_MONGOD is not set and there is no mongod on PATH"
    if not os.path.exists(named):
        return f"LABKIT_MONGOD is set to {named}, which does not exist"
    return f"LABKIT_MONGOD is set to {named}, which is not an executable file"


def mongod_version(binary: str) -> str:
    """Return the version a ``mongod`` binary reports, such as ``7.0.14``."""
    hint = ("LABKIT_MONGOD (or the mongod on PATH) must be a MongoDB server binary; "
            "`mongod --version` prints `db version v…`.")
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise ServerStartError(f"{binary} --version did not finish within 30 s.",
                               hint=hint) from exc
    except OSError as exc:
        raise ServerStartError(f"{binary} cannot be run: {exc.strerror or exc}.",
                               hint=hint) from exc
    match = re.search(r"db version v(\S+)", out.stdout + out.stderr)
    if not match:
        raise ServerStartError(f"{binary} --version did not print a version.",
                               log_tail=out.stderr[-500:].strip(), hint=hint)
    return match.group(1)


def _start_local_mongod(binary: str, cache_gb: float) -> MongoServer:
    owned = _OwnedServer("mongod", "mongod.log")
    dbpath = owned.workdir / "db"
    dbpath.mkdir()
    command = [binary, "--dbpath", str(dbpath), "--port", str(owned.port),
               "--bind_ip", "127.0.0.1", "--logpath", str(owned.log),
               "--setParameter", "diagnosticDataCollectionEnabled=false",
               "--wiredTigerCacheSizeGB", str(cache_gb)]
    if os.name != "nt":  # Windows builds have no Unix socket option
        command.append("--nounixsocket")
    uri = f"mongodb://127.0.0.1:{owned.port}/?directConnection=true"
    client = None
    try:
        owned.popen(command)
        client = mongo_client(uri, serverSelectionTimeoutMS=1000)
        _ping_until(client, time.monotonic() + START_TIMEOUT, owned.running)
        version = client.server_info()["version"]
        actual_gb, cache = _cache_of(client, cache_gb)
    except Exception as exc:
        if client is not None:
            client.close()
        raise owned.failed(
            f"Started {binary} on port {owned.port}, but it did not answer ({exc}).",
            hint="run the same mongod by hand to see why, or point LABKIT_MONGOD at "
                 "another binary.",
        ) from exc
    return MongoServer(uri=uri, how="local", version=version, workdir=owned.workdir,
                       cache_gb=actual_gb, cache=cache, _stopper=owned.stopper,
                       _client=client)


def docker_status() -> tuple[bool, str]:
    """Say whether a Docker daemon answers, and its version or why not."""
    try:
        import docker

        client = docker.from_env(timeout=3)
        client.ping()
        return True, f"Docker {client.version().get('Version', '?')}"
    except Exception as exc:  # docker raises many kinds; all mean "not usable"
        cause = "no Docker socket" if "FileNotFoundError" in str(exc) else type(exc).__name__
        return False, f"no Docker daemon answered ({cause})"


def _container_logs(container) -> str:
    try:
        out, err = container.get_logs()
        lines = (out + err).decode(errors="replace").splitlines()
        return "\n".join(lines[-15:])
    except Exception:  # the container may be gone already
        return "(no logs)"


def _start_docker_mongo(version: str, cache_gb: float) -> MongoServer:
    from testcontainers.community.mongodb import MongoDbContainer

    image = f"mongo:{version}"
    container = MongoDbContainer(image)
    # The image's entrypoint runs `mongod ARGS…` when the first argument is an option.
    container.with_command(["--wiredTigerCacheSizeGB", str(cache_gb)])
    try:
        container.start()
        uri = container.get_connection_url()
        client = mongo_client(uri, serverSelectionTimeoutMS=1000)
        # The image restarts mongod after its init scripts; ready logs can come early.
        _ping_until(client, time.monotonic() + START_TIMEOUT)
        actual = client.server_info()["version"]
        actual_gb, cache = _cache_of(client, cache_gb)
    except Exception as exc:
        logs = _container_logs(container)
        with contextlib.suppress(Exception):
            container.stop()
        cause = str(exc).splitlines()[0] if str(exc) else repr(exc)
        raise ServerStartError(
            f"Docker could not start {image} ({cause}).", log_tail=logs,
            hint=f"check `docker run --rm {image} --version`, or choose another "
                 "--mongodb-version.",
        ) from exc
    return MongoServer(uri=uri, how="docker", version=actual, cache_gb=actual_gb, cache=cache,
                       _stopper=_Stopper(container.stop), _client=client)


def get_mongodb(mode: str = "auto", version: str | None = None,
                cache_gb: float | None = None) -> MongoServer:
    """Find or start a MongoDB server: the URI, then a local mongod, then Docker.

    ``mode`` picks one way explicitly; ``version`` pins the server version
    (Docker tags such as ``7.0``; a URI or local server must match it). A ``mongod``
    labkit starts gets a WiredTiger cache of ``cache_gb`` GB (default
    ``DEFAULT_CACHE_GB``, the smallest mongod accepts); a server found by URI keeps its
    own, which ``MongoServer.cache`` reports. Bad values are refused before anything runs.
    """
    _check_mode(mode, MONGO_MODES)
    version = check_version(version)
    cache_gb = check_cache_gb(cache_gb)

    def by_uri():
        uri = os.environ.get("LABKIT_MONGODB_URI")
        return _mongo_from_uri(uri, version) if uri else "not set"

    def local():
        binary = find_mongod()
        if binary is None:
            return mongod_missing_reason()
        actual = mongod_version(binary)
        if not _version_matches(actual, version):
            return f"{binary} is version {actual}, not {version}"
        return _start_local_mongod(binary, cache_gb)

    def docker():
        ok, detail = docker_status()
        return _start_docker_mongo(version or DEFAULT_MONGO_VERSION, cache_gb) if ok else detail

    ways = {"uri": ("LABKIT_MONGODB_URI", by_uri), "local": ("local mongod", local),
            "docker": ("Docker", docker)}
    attempts = [ways[name] for name in ("uri", "local", "docker") if mode in ("auto", name)]
    return _first_server("MongoDB", attempts, mode != "auto", MONGO_HINT)


def mongodb_missing() -> str | None:
    """Why no MongoDB server can be had here, checked without starting one; None if one can."""
    if os.environ.get("LABKIT_MONGODB_URI") or find_mongod():
        return None
    ok, detail = docker_status()
    if ok:
        return None
    return ("no MongoDB server: LABKIT_MONGODB_URI is not set, no local mongod was found, "
            f"and Docker is not usable ({detail})")


# On MongoDB, what labkit creates holds a lease document that the run renews while it lives;
# a database whose lease was not renewed for STALE_AFTER is a killed run's, provably labkit's.
LEASE_COLLECTION = "labkit_lease"
RENEW_EVERY = dt.timedelta(minutes=1)
STALE_AFTER = dt.timedelta(minutes=30)


def lease_state(lease: dict | None, now: dt.datetime) -> str:
    """``"unmarked"`` (not provably labkit's: never touched), ``"in use"`` (renewed within
    STALE_AFTER of the server's ``now``) or ``"stale"``."""
    if not isinstance(lease, dict) or lease.get("mark") != MARK:
        return "unmarked"
    renewed = lease.get("renewed")
    if not isinstance(renewed, dt.datetime):
        return "unmarked"
    if renewed.tzinfo is None:
        renewed = renewed.replace(tzinfo=dt.UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=dt.UTC)
    return "in use" if now - renewed < STALE_AFTER else "stale"


class _Renewer:
    """A daemon thread renewing a MongoServer's leases every RENEW_EVERY until stopped."""

    def __init__(self, server: MongoServer) -> None:
        import threading

        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(server,), daemon=True,
                                        name="labkit-lease")
        self._thread.start()

    def _run(self, server: MongoServer) -> None:
        while not self._stopped.wait(RENEW_EVERY.total_seconds()):
            with contextlib.suppress(Exception):  # a missed renewal is retried next time
                server.renew()

    def stop(self) -> None:
        """Stop renewing (the databases are dropped next, or left to go stale)."""
        self._stopped.set()
        self._thread.join(timeout=5)


_session_mongodb: MongoServer | None = None


def mongodb(mode: str = "auto", version: str | None = None) -> MongoServer:
    """Return this process's MongoDB server, finding or starting it on first call.

    A notebook calls this once per kernel: it reuses ``LABKIT_MONGODB_URI`` when
    set, otherwise it starts a server (with the small default cache) that stops when
    the kernel exits.
    """
    global _session_mongodb
    if _session_mongodb is None:
        _session_mongodb = get_mongodb(mode, version)
        atexit.register(_session_mongodb.stop)
    return _session_mongodb


# PostgreSQL --------------------------------------------------------------------------


# What labkit creates on a PostgreSQL server carries a comment that says so, and, while the run
# that created it lives, an advisory lock (this class, a number from the name) held by that
# run's connection. A killed run's connection closes and its locks go with it: a database with
# labkit's comment and no lock is provably labkit's and provably stale.
MARK = "labkit:"
LEASE_CLASS = 0x6C6B  # "lk": the advisory-lock class of labkit's leases


def _lease_key(name: str) -> int:
    return zlib.crc32(name.encode()) - 2**31  # a signed int4, as pg_advisory_lock takes


@dataclass
class Stale:
    """What a clean-up found: databases removed, and labkit's databases kept because a live
    run holds them."""

    removed: list[str] = field(default_factory=list)
    in_use: list[str] = field(default_factory=list)


@dataclass
class PostgresServer:
    """A running PostgreSQL server: DSN, how labkit got it, its exact version and what the DSN's
    role may do (a superuser may create the B-tree lesson's extensions)."""

    dsn: str
    how: str
    version: str
    workdir: Path | None = None
    superuser: bool = True
    createdb: bool = True
    role: str = ""
    _stopper: _Stopper | None = None
    _created: list[str] = field(default_factory=list)
    _lease: Any = None
    _cleaned: Stale | None = None

    engine = engine_name("postgres")

    def connect(self, dsn: str | None = None):
        """Open an autocommit connection (to the server's database, or to ``dsn``)."""
        import psycopg

        return psycopg.connect(dsn or self.dsn, autocommit=True, connect_timeout=10)

    def require(self, what: str, superuser: bool = False) -> None:
        """Raise ``ServerUnavailable`` saying plainly which privilege ``what`` needs and lacks."""
        if superuser and not self.superuser:
            raise ServerUnavailable(
                f"{what} needs a PostgreSQL superuser (CREATE DATABASE and the pgstattuple and "
                f"pageinspect extensions); role {self.role or '?'} at {redact(self.dsn)} is not "
                "one.", hint="set LABKIT_POSTGRES_DSN to a superuser's connection string, or "
                "unset it to let labkit start a PostgreSQL of its own.")
        if not (self.createdb or self.superuser):
            raise ServerUnavailable(
                f"{what} needs CREATE DATABASE; role {self.role or '?'} at {redact(self.dsn)} "
                "has neither CREATEDB nor superuser.",
                hint="ALTER ROLE … CREATEDB, or set LABKIT_POSTGRES_DSN to another role.")

    @property
    def cleaned(self) -> Stale:
        """What the first ``fresh_database`` of this object found left by killed runs."""
        return self._cleaned or Stale()

    def fresh_database(self, label: str) -> str:
        """Create a database named ``labkit_<label>_<random>`` and return its DSN.

        The first call also removes the stale databases killed runs left behind.
        """
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        self.require("creating a database for an experiment")
        if self._cleaned is None:
            self._cleaned = self.clean_stale()
        safe = re.sub(r"[^a-z0-9_]", "_", label.lower())[:30]
        name = f"{DB_PREFIX}{safe}_{uuid.uuid4().hex[:8]}"
        if self._lease is None:
            self._lease = self.connect()
        # The lock comes first: there is no moment at which the marked database has no lease.
        self._lease.execute("SELECT pg_advisory_lock(%s, %s)", (LEASE_CLASS, _lease_key(name)))
        with self.connect() as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
            self._created.append(name)
            stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            conn.execute(f'COMMENT ON DATABASE "{name}" IS '
                         f"'{MARK} created by a labkit run on {stamp}; removed when it ends'")
        params = conninfo_to_dict(self.dsn)
        params["dbname"] = name
        return make_conninfo(**params)

    def drop_created(self) -> None:
        """Drop the databases this object created, and nothing else."""
        with self.connect() as conn:
            while self._created:
                name = self._created.pop()
                if name.startswith(DB_PREFIX):
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                self._unlease(name)

    def _unlease(self, name: str) -> None:
        if self._lease is not None:
            with contextlib.suppress(Exception):
                self._lease.execute("SELECT pg_advisory_unlock(%s, %s)",
                                    (LEASE_CLASS, _lease_key(name)))

    def clean_stale(self) -> Stale:
        """Drop the databases labkit marked whose run has ended (no lease held): killed runs'.

        Unmarked databases, even named ``labkit_…``, are never touched.
        """
        found = Stale()
        with self.connect() as conn:
            marked = [row[0] for row in conn.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE %s "
                "AND shobj_description(oid, 'pg_database') LIKE %s ORDER BY datname",
                (DB_PREFIX.replace("_", "\\_") + "%", MARK + "%"))]
            held = {row[0] for row in conn.execute(
                "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = %s "
                "AND objsubid = 2 AND granted", (LEASE_CLASS,))}
            for name in marked:
                key = _lease_key(name) % 2**32  # pg_locks shows the key as an unsigned oid
                if key in held or name in self._created:
                    found.in_use.append(name)
                    continue
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                found.removed.append(name)
        return found

    def stop(self) -> None:
        """Drop labkit's databases; stop the server if labkit started it."""
        with contextlib.suppress(Exception):
            self.drop_created()
        if self._lease is not None:
            with contextlib.suppress(Exception):
                self._lease.close()
            self._lease = None
        if self._stopper is not None:
            self._stopper()

    def __enter__(self) -> PostgresServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def describe(self) -> str:
        """One line: engine, version and where it came from."""
        return f"PostgreSQL {self.version} ({self.how}: {redact(self.dsn)})"


def _postgres_version(conn) -> str:
    return conn.execute("SHOW server_version").fetchone()[0].split()[0]


def _postgres_from_dsn(dsn: str, version: str | None) -> PostgresServer:
    import psycopg

    try:
        with psycopg.connect(dsn, connect_timeout=5) as conn:
            actual = _postgres_version(conn)
            role, superuser, createdb = conn.execute(
                "SELECT rolname, rolsuper, rolcreatedb FROM pg_roles "
                "WHERE rolname = current_user").fetchone()
    except psycopg.ProgrammingError as exc:
        raise BadInput(f"LABKIT_POSTGRES_DSN is not a valid connection string: {exc}") from exc
    except psycopg.Error as exc:
        raise ServerUnavailable(
            f"The PostgreSQL server at {redact(dsn)} did not answer: "
            f"{str(exc).strip().splitlines()[0]}",
            hint="check that it is running and the DSN's user and password, or unset "
                 "LABKIT_POSTGRES_DSN to let labkit start one.",
        ) from exc
    if not _version_matches(actual, version):
        raise ServerUnavailable(
            f"The PostgreSQL server at {redact(dsn)} is {actual}, not {version}.",
            hint="unset LABKIT_POSTGRES_DSN to let labkit start that version.")
    return PostgresServer(dsn=dsn, how="dsn", version=actual, superuser=superuser,
                          createdb=createdb, role=role)


def find_postgres_bin() -> str | None:
    """Return the directory of the local ``initdb`` and ``pg_ctl`` labkit would use."""
    named = os.environ.get("LABKIT_PG_BIN")
    candidates = [named] if named else []
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(os.path.dirname(os.path.realpath(on_path)))

    def major(path: str) -> float:
        found = re.search(r"postgresql/(\d+(?:\.\d+)?)/bin", path)
        return float(found.group(1)) if found else 0.0

    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=major, reverse=True)
    for path in candidates:
        if os.access(os.path.join(path, "initdb"), os.X_OK) and os.access(
            os.path.join(path, "pg_ctl"), os.X_OK
        ):
            return path
    return None


def postgres_bin_version(bindir: str) -> str:
    """Return the version of the PostgreSQL binaries in ``bindir``, such as ``15.18``."""
    try:
        out = subprocess.run([os.path.join(bindir, "pg_ctl"), "--version"], capture_output=True,
                             text=True, timeout=30, stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    match = re.search(r"\(PostgreSQL\) (\S+)", out)
    return match.group(1) if match else "unknown"


def _run_as() -> tuple[list[str], Any]:
    """PostgreSQL refuses to run as root: then run it as the ``postgres`` user.

    Returns the command prefix and that user's password-database entry (None when
    labkit is not root; ``os.geteuid`` and ``pwd`` exist only on POSIX).
    """
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return [], None
    import pwd

    try:
        entry = pwd.getpwnam("postgres")
    except KeyError as exc:
        raise ServerStartError(
            "PostgreSQL will not run as root and there is no 'postgres' user to run it as.",
            hint=POSTGRES_HINT,
        ) from exc
    return ["runuser", "-u", "postgres", "--"], entry


PORT_ATTEMPTS = 5  # a port found free can be taken before the server binds it: pick again
_PORT_TAKEN = ("could not bind", "address already in use", "could not create any tcp/ip sockets")


def _settings(port: int) -> str:
    """What labkit's own cluster listens on: 127.0.0.1 only, and no Unix socket at all (its
    path would depend on TMPDIR: spaces, and a 107-byte limit)."""
    return ("\n# labkit: its own server, for its own runs\n"
            "listen_addresses = '127.0.0.1'\n"
            f"port = {port}\n"
            "unix_socket_directories = ''\n")


def _start_local_postgres(bindir: str) -> PostgresServer:
    """initdb and start a cluster of labkit's own: a generated password (SCRAM) for its one
    role, on 127.0.0.1 only; a port taken meanwhile means another port, with the cause kept."""
    as_user, user = _run_as()
    owned = _OwnedServer("postgres", "postgres.log")
    data = owned.workdir / "data"
    if user is not None:
        os.chown(owned.workdir, user.pw_uid, user.pw_gid)
    # pg_ctl starts the postmaster detached; its pid is known once the pid file is written.
    # SIGINT is PostgreSQL's fast shutdown: connected clients do not hold it up.
    owned.watcher.watch_pidfile(data / "postmaster.pid", "INT")
    pg_ctl = os.path.join(bindir, "pg_ctl")
    password = secrets.token_urlsafe(24)

    def run(*args: str) -> None:
        # In a group of its own that the watcher stops if labkit dies meanwhile: an initdb left
        # running would write on into the folder the watcher removes.
        helper = subprocess.Popen([*as_user, *args], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                                  **detached())
        owned.watcher.watch_group(helper.pid)
        try:
            output, _ = helper.communicate(timeout=120)
        except BaseException:
            helper.kill()
            helper.wait()
            raise
        if helper.returncode != 0:
            raise RuntimeError(output.strip()[-800:])

    owned.shutdown = lambda: run(pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop")
    taken: list[str] = []
    try:
        # The password goes through a file only the server's user can read, never argv.
        pwfile = owned.workdir / "pwfile"
        pwfile.touch(mode=0o600)
        pwfile.write_text(password + "\n")
        if user is not None:
            os.chown(pwfile, user.pw_uid, user.pw_gid)
        try:
            run(os.path.join(bindir, "initdb"), "-D", str(data), "-A", "scram-sha-256",
                f"--pwfile={pwfile}", "-U", "labkit", "-E", "UTF8")
        finally:
            pwfile.unlink(missing_ok=True)
        for _ in range(PORT_ATTEMPTS):
            with (data / "postgresql.conf").open("a", encoding="utf-8") as conf:
                conf.write(_settings(owned.port))  # a later line wins
            try:
                run(pg_ctl, "-D", str(data), "-l", str(owned.log), "-w", "-t", "60", "start")
                break
            except RuntimeError:
                tail = _tail(owned.log, 5)
                if not any(sign in tail.lower() for sign in _PORT_TAKEN):
                    raise
                taken.append(f"port {owned.port} was taken ({tail.splitlines()[-1].strip()})")
                owned.port = free_port()
        else:
            raise RuntimeError("; ".join(taken))
        pid, _ = _postmaster(data)
        owned.watcher.watch_pid(pid, "INT")
        dsn = f"postgresql://labkit:{password}@127.0.0.1:{owned.port}/postgres"
        server = _postgres_from_dsn(dsn, None)
    except Exception as exc:
        before = f" (after {'; '.join(taken)})" if taken else ""
        raise owned.failed(f"Could not start PostgreSQL from {bindir} on port {owned.port}"
                           f"{before}: {exc}", hint=POSTGRES_HINT) from exc
    return dataclasses.replace(server, how="local", workdir=owned.workdir,
                               _stopper=owned.stopper)


def _postmaster(data: Path) -> tuple[int, str]:
    """The pid and data folder a running postmaster wrote into its pid file."""
    lines = (data / "postmaster.pid").read_text().splitlines()
    return int(lines[0]), lines[1]


def _start_docker_postgres(version: str) -> PostgresServer:
    from testcontainers.community.postgres import PostgresContainer

    image = f"postgres:{version}"
    container = PostgresContainer(image, driver=None)
    try:
        container.start()
        dsn = container.get_connection_url(driver=None)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                server = _postgres_from_dsn(dsn, None)
                break
            except ServerUnavailable:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
    except Exception as exc:
        logs = _container_logs(container)
        with contextlib.suppress(Exception):
            container.stop()
        raise ServerStartError(
            f"Docker could not start {image}: {exc}", log_tail=logs,
            hint="choose another --postgres-version, or set LABKIT_POSTGRES_DSN.",
        ) from exc
    return PostgresServer(dsn=dsn, how="docker", version=server.version,
                          _stopper=_Stopper(container.stop))


def get_postgres(mode: str = "auto", version: str | None = None) -> PostgresServer:
    """Find or start a PostgreSQL server: the DSN, then local binaries, then Docker."""
    _check_mode(mode, POSTGRES_MODES)
    version = check_version(version)

    def by_dsn():
        dsn = os.environ.get("LABKIT_POSTGRES_DSN")
        return _postgres_from_dsn(dsn, version) if dsn else "not set"

    def local():
        bindir = find_postgres_bin()
        if bindir is None:
            return "no initdb/pg_ctl on PATH or in /usr/lib/postgresql"
        actual = postgres_bin_version(bindir)
        if not _version_matches(actual, version):
            return f"{bindir} holds version {actual}, not {version}"
        return _start_local_postgres(bindir)

    def docker():
        ok, detail = docker_status()
        return _start_docker_postgres(version or DEFAULT_POSTGRES_VERSION) if ok else detail

    ways = {"dsn": ("LABKIT_POSTGRES_DSN", by_dsn), "local": ("local PostgreSQL", local),
            "docker": ("Docker", docker)}
    attempts = [ways[name] for name in ("dsn", "local", "docker") if mode in ("auto", name)]
    return _first_server("PostgreSQL", attempts, mode != "auto", POSTGRES_HINT)
