"""Real database servers for the experiments: found or started, and always cleaned up.

MongoDB comes from, in order: ``LABKIT_MONGODB_URI``, a local ``mongod``
(``LABKIT_MONGOD`` or ``PATH``), Docker through testcontainers. PostgreSQL the
same way: ``LABKIT_POSTGRES_DSN``, local binaries, Docker. On a server the user
owns, labkit only touches databases whose names start with ``labkit_``.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BadInput, ServerStartError, ServerUnavailable

DB_PREFIX = "labkit_"
DEFAULT_MONGO_VERSION = "8.0"
DEFAULT_POSTGRES_VERSION = "18"
MONGO_MODES = ("auto", "uri", "local", "docker")
POSTGRES_MODES = ("auto", "dsn", "local", "docker")
START_TIMEOUT = 60.0

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


def _check_mode(mode: str, modes: tuple[str, ...]) -> None:
    if mode not in modes:
        raise BadInput(f"unknown server mode {mode!r}; choose one of {', '.join(modes)}")


def _version_matches(actual: str, wanted: str | None) -> bool:
    return wanted is None or actual == wanted or actual.startswith(wanted + ".")


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


def _spawn_reaper(pids: list[int], paths: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "labkit._reaper", str(os.getpid()),
         ",".join(map(str, pids)), *paths],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


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


@dataclass
class MongoServer:
    """A running MongoDB server: where it is, how labkit got it, and its exact version."""

    uri: str
    how: str
    version: str
    workdir: Path | None = None
    _stopper: _Stopper | None = None
    _client: object | None = None
    _created: list[str] = field(default_factory=list)

    engine = "MongoDB"

    def client(self):
        """Return this server's shared client (standard UUIDs, timezone-aware dates)."""
        if self._client is None:
            self._client = mongo_client(self.uri)
        return self._client

    def fresh_database(self, label: str):
        """Create (lazily) and return a new database named ``labkit_<label>_<random>``."""
        safe = re.sub(r"[^A-Za-z0-9_]", "_", label)[:30]
        name = f"{DB_PREFIX}{safe}_{uuid.uuid4().hex[:8]}"
        self._created.append(name)
        return self.client()[name]

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
        """One line: engine, version and where it came from."""
        return f"MongoDB {self.version} ({self.how}: {redact(self.uri)})"


def redact(uri: str) -> str:
    """Hide the password in a connection string."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", uri)


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
    raise TimeoutError(str(last) if last else "the server stopped before it answered")


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
            f"The MongoDB server at {redact(uri)} did not answer: {str(exc).splitlines()[0]}\n"
            "Hint: check that it is running and reachable, or unset LABKIT_MONGODB_URI "
            "to let labkit start one."
        ) from exc
    if not _version_matches(actual, version):
        client.close()
        raise ServerUnavailable(
            f"The MongoDB server at {redact(uri)} is version {actual}, not {version}."
        )
    return MongoServer(uri=uri, how="uri", version=actual, _client=client)


def find_mongod() -> str | None:
    """Return the local ``mongod`` labkit would start (``LABKIT_MONGOD``, then PATH)."""
    named = os.environ.get("LABKIT_MONGOD")
    if named:
        return named if os.access(named, os.X_OK) else None
    return shutil.which("mongod")


def mongod_version(binary: str) -> str:
    """Return the version a ``mongod`` binary reports, such as ``7.0.14``."""
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    match = re.search(r"db version v(\S+)", out.stdout + out.stderr)
    if not match:
        raise ServerStartError(f"{binary} --version did not print a version:\n{out.stderr[-500:]}")
    return match.group(1)


def _start_local_mongod(binary: str, cache_gb: float | None) -> MongoServer:
    workdir = Path(tempfile.mkdtemp(prefix="labkit-mongod-"))
    dbpath, log = workdir / "db", workdir / "mongod.log"
    dbpath.mkdir()
    port = free_port()
    cmd = [binary, "--dbpath", str(dbpath), "--port", str(port), "--bind_ip", "127.0.0.1",
           "--logpath", str(log), "--nounixsocket",
           "--setParameter", "diagnosticDataCollectionEnabled=false"]
    if cache_gb is not None:
        cmd += ["--wiredTigerCacheSizeGB", str(cache_gb)]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT, start_new_session=True)
    reaper = _spawn_reaper([proc.pid], [str(workdir)])

    def stop() -> None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reaper.terminate()
        shutil.rmtree(workdir, ignore_errors=True)

    stopper = _Stopper(stop)
    uri = f"mongodb://127.0.0.1:{port}/?directConnection=true"
    client = mongo_client(uri, serverSelectionTimeoutMS=1000)
    try:
        _ping_until(client, time.monotonic() + START_TIMEOUT, lambda: proc.poll() is None)
        version = client.server_info()["version"]
    except Exception as exc:
        tail = _tail(log)
        client.close()
        stopper()
        raise ServerStartError(
            f"Started {' '.join(cmd[:1])} on port {port}, but it did not answer ({exc}).\n"
            f"Last lines of its log:\n{tail}\n"
            "Hint: run the same mongod by hand to see why, or point LABKIT_MONGOD at "
            "another binary."
        ) from exc
    return MongoServer(uri=uri, how="local", version=version, workdir=workdir,
                       _stopper=stopper, _client=client)


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


def _start_docker_mongo(version: str, cache_gb: float | None) -> MongoServer:
    from testcontainers.community.mongodb import MongoDbContainer

    image = f"mongo:{version}"
    container = MongoDbContainer(image)
    if cache_gb is not None:
        container.with_command(f"--wiredTigerCacheSizeGB {cache_gb}")
    try:
        container.start()
        uri = container.get_connection_url()
        client = mongo_client(uri, serverSelectionTimeoutMS=1000)
        # The image restarts mongod after its init scripts; ready logs can come early.
        _ping_until(client, time.monotonic() + START_TIMEOUT)
        actual = client.server_info()["version"]
    except Exception as exc:
        logs = _container_logs(container)
        with contextlib.suppress(Exception):
            container.stop()
        raise ServerStartError(
            f"Docker could not start {image} ({str(exc).splitlines()[0] if str(exc) else exc!r}).\n"
            f"Last lines of its log:\n{logs}\n"
            "Hint: check `docker run --rm " + image + " --version`, or choose another "
            "--mongodb-version."
        ) from exc
    return MongoServer(uri=uri, how="docker", version=actual,
                       _stopper=_Stopper(container.stop), _client=client)


def get_mongodb(mode: str = "auto", version: str | None = None,
                cache_gb: float | None = None) -> MongoServer:
    """Find or start a MongoDB server: the URI, then a local mongod, then Docker.

    ``mode`` picks one way explicitly; ``version`` pins the server version
    (Docker tags such as ``7.0``; a URI or local server must match it).
    """
    _check_mode(mode, MONGO_MODES)
    version = check_version(version)
    tried: list[str] = []

    if mode in ("auto", "uri"):
        uri = os.environ.get("LABKIT_MONGODB_URI")
        if uri:
            return _mongo_from_uri(uri, version)
        tried.append("LABKIT_MONGODB_URI: not set")

    if mode in ("auto", "local"):
        binary = find_mongod()
        if binary is None:
            where = "LABKIT_MONGOD is not executable" if os.environ.get("LABKIT_MONGOD") \
                else "no mongod on PATH and LABKIT_MONGOD not set"
            tried.append(f"local mongod: {where}")
        else:
            actual = mongod_version(binary)
            if _version_matches(actual, version):
                try:
                    return _start_local_mongod(binary, cache_gb)
                except ServerStartError as exc:
                    if mode == "local":
                        raise
                    tried.append(f"local mongod ({binary}): failed to start:\n{exc}")
            else:
                tried.append(f"local mongod ({binary}): version {actual}, not {version}")

    if mode in ("auto", "docker"):
        ok, detail = docker_status()
        if ok:
            return _start_docker_mongo(version or DEFAULT_MONGO_VERSION, cache_gb)
        tried.append(f"Docker: {detail}")

    raise ServerUnavailable(
        "No MongoDB server is available. Tried:\n"
        + "\n".join(f"  - {line}" for line in tried) + "\n" + MONGO_HINT
    )


def mongodb_missing() -> str | None:
    """Why no MongoDB server can be had here, checked without starting one; None if one can."""
    if os.environ.get("LABKIT_MONGODB_URI") or find_mongod():
        return None
    ok, detail = docker_status()
    if ok:
        return None
    return ("no MongoDB server: LABKIT_MONGODB_URI is not set, no local mongod was found, "
            f"and Docker is not usable ({detail})")


_session_mongodb: MongoServer | None = None


def mongodb(mode: str = "auto", version: str | None = None) -> MongoServer:
    """Return this process's MongoDB server, finding or starting it on first call.

    A notebook calls this once per kernel: it reuses ``LABKIT_MONGODB_URI`` when
    set, otherwise it starts a server that stops when the kernel exits.
    """
    global _session_mongodb
    if _session_mongodb is None:
        _session_mongodb = get_mongodb(mode, version)
        atexit.register(_session_mongodb.stop)
    return _session_mongodb


# PostgreSQL --------------------------------------------------------------------------


@dataclass
class PostgresServer:
    """A running PostgreSQL server: DSN, how labkit got it, and its exact version."""

    dsn: str
    how: str
    version: str
    workdir: Path | None = None
    _stopper: _Stopper | None = None
    _created: list[str] = field(default_factory=list)

    engine = "PostgreSQL"

    def connect(self, dsn: str | None = None):
        """Open an autocommit connection (to the server's database, or to ``dsn``)."""
        import psycopg

        return psycopg.connect(dsn or self.dsn, autocommit=True, connect_timeout=10)

    def fresh_database(self, label: str) -> str:
        """Create a database named ``labkit_<label>_<random>`` and return its DSN."""
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        safe = re.sub(r"[^a-z0-9_]", "_", label.lower())[:30]
        name = f"{DB_PREFIX}{safe}_{uuid.uuid4().hex[:8]}"
        with self.connect() as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        self._created.append(name)
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

    def stop(self) -> None:
        """Drop labkit's databases; stop the server if labkit started it."""
        with contextlib.suppress(Exception):
            self.drop_created()
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
    except psycopg.ProgrammingError as exc:
        raise BadInput(f"LABKIT_POSTGRES_DSN is not a valid connection string: {exc}") from exc
    except psycopg.Error as exc:
        raise ServerUnavailable(
            f"The PostgreSQL server at {redact(dsn)} did not answer: "
            f"{str(exc).strip().splitlines()[0]}\n"
            "Hint: check that it is running and the DSN's user and password, or unset "
            "LABKIT_POSTGRES_DSN to let labkit start one."
        ) from exc
    if not _version_matches(actual, version):
        raise ServerUnavailable(
            f"The PostgreSQL server at {redact(dsn)} is {actual}, not {version}.")
    return PostgresServer(dsn=dsn, how="dsn", version=actual)


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
    out = subprocess.run([os.path.join(bindir, "pg_ctl"), "--version"],
                         capture_output=True, text=True, timeout=30).stdout
    match = re.search(r"\(PostgreSQL\) (\S+)", out)
    return match.group(1) if match else "unknown"


def _run_as() -> list[str]:
    """PostgreSQL refuses to run as root: run it as the ``postgres`` user then."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError as exc:
        raise ServerStartError(
            "PostgreSQL will not run as root and there is no 'postgres' user to run it as.\n"
            + POSTGRES_HINT
        ) from exc
    return ["runuser", "-u", "postgres", "--"]


def _start_local_postgres(bindir: str) -> PostgresServer:
    as_user = _run_as()
    workdir = Path(tempfile.mkdtemp(prefix="labkit-postgres-"))
    data, log = workdir / "data", workdir / "postgres.log"
    if as_user:
        entry = pwd.getpwnam("postgres")
        os.chown(workdir, entry.pw_uid, entry.pw_gid)
    port = free_port()

    def run(*args: str) -> None:
        result = subprocess.run([*as_user, *args], capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError((result.stdout + result.stderr).strip()[-800:])

    pids: list[int] = []

    def stop() -> None:
        with contextlib.suppress(Exception):
            run(os.path.join(bindir, "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(workdir, ignore_errors=True)

    stopper = _Stopper(stop)
    try:
        run(os.path.join(bindir, "initdb"), "-D", str(data), "-A", "trust", "-U", "labkit",
            "-E", "UTF8")
        run(os.path.join(bindir, "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60",
            "-o", f"-p {port} -k {workdir} -c listen_addresses=127.0.0.1", "start")
        pids.append(int((data / "postmaster.pid").read_text().split()[0]))
        dsn = f"postgresql://labkit@127.0.0.1:{port}/postgres"
        server = _postgres_from_dsn(dsn, None)
    except Exception as exc:
        tail = _tail(log)
        stopper()
        raise ServerStartError(
            f"Could not start PostgreSQL from {bindir} on port {port}: {exc}\n"
            f"Last lines of its log:\n{tail}\n{POSTGRES_HINT}"
        ) from exc
    _spawn_reaper(pids, [str(workdir)])
    return PostgresServer(dsn=server.dsn, how="local", version=server.version, workdir=workdir,
                          _stopper=stopper)


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
            f"Docker could not start {image}: {exc}\nLast lines of its log:\n{logs}\n"
            "Hint: choose another --postgres-version, or set LABKIT_POSTGRES_DSN."
        ) from exc
    return PostgresServer(dsn=dsn, how="docker", version=server.version,
                          _stopper=_Stopper(container.stop))


def get_postgres(mode: str = "auto", version: str | None = None) -> PostgresServer:
    """Find or start a PostgreSQL server: the DSN, then local binaries, then Docker."""
    _check_mode(mode, POSTGRES_MODES)
    version = check_version(version)
    tried: list[str] = []

    if mode in ("auto", "dsn"):
        dsn = os.environ.get("LABKIT_POSTGRES_DSN")
        if dsn:
            return _postgres_from_dsn(dsn, version)
        tried.append("LABKIT_POSTGRES_DSN: not set")

    if mode in ("auto", "local"):
        bindir = find_postgres_bin()
        if bindir is None:
            tried.append("local PostgreSQL: no initdb/pg_ctl on PATH or in /usr/lib/postgresql")
        elif not _version_matches(local_version := postgres_bin_version(bindir), version):
            tried.append(f"local PostgreSQL ({bindir}): version {local_version}, not {version}")
        else:
            try:
                return _start_local_postgres(bindir)
            except ServerStartError as exc:
                if mode == "local":
                    raise
                tried.append(f"local PostgreSQL ({bindir}): failed to start:\n{exc}")

    if mode in ("auto", "docker"):
        ok, detail = docker_status()
        if ok:
            return _start_docker_postgres(version or DEFAULT_POSTGRES_VERSION)
        tried.append(f"Docker: {detail}")

    raise ServerUnavailable(
        "No PostgreSQL server is available. Tried:\n"
        + "\n".join(f"  - {line}" for line in tried) + "\n" + POSTGRES_HINT
    )
