"""PostgreSQL: the server at ``LABKIT_POSTGRES_DSN``, a cluster of labkit's own from local
binaries, or Docker's postgres image.

What labkit creates is owned by the role it connects as and carries, in its comment, labkit's
mark (``mark.mark_for``: an HMAC of its name with this installation's secret) and its run's
lease: the moment, by the server's clock, until which the run holds it, pushed ahead while the
run lives (``base``: one lease design for both vendors; each renewal is a connection of its
own, so a session the server ends for being idle, or an administrator's
``pg_terminate_backend``, costs a renewal at most). A database of this role whose mark
verifies and whose lease has run out is provably labkit's and provably a killed run's. Only
the owner (or a superuser) may change a database's comment; only the mark and the owner prove.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import glob
import os
import re
import secrets
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from labkit import _defaults, _redact
from labkit.errors import BadInput, ServerStartError, ServerUnavailable
from labkit.i18n import N_, Message, Text, joined
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
    sort_out,
    version_matches,
)
from labkit.servers.mark import MARK, mark_for, mark_verifies
from labkit.servers.process import OwnedServer, Stopper
from labkit.servers.reaper import detached

if TYPE_CHECKING:
    from psycopg import Connection

    Row = tuple[Any, ...]  # psycopg's default row: a tuple of the columns' Python values

DEFAULT_POSTGRES_VERSION = "18"
POSTGRES_MODES = ("auto", "dsn", "local", "docker")
POSTGRES_HINT = N_(
    "Hint: set LABKIT_POSTGRES_DSN=postgresql://user:password@host:5432/db; "
    "or install PostgreSQL (apt-get install postgresql, or the conda environment); "
    "or start Docker so labkit can run the postgres image."
)
OWN_SHARED_BUFFERS_MB = _defaults.OWN_SHARED_BUFFERS_MB

# The comment of a database labkit made: its mark first (``mark_verifies`` reads the first
# word), then when it was made and the end of its run's lease, both by the server's clock.
_COMMENT = "{mark} created by a labkit run on {created}; leased until {until}; removed when it ends"
_UNTIL = re.compile(r"; leased until (\S+);")
# Why a database of labkit's whose comment holds no lease end is left alone.
UNDATED = Message(N_("its comment holds no lease end (an older labkit's, whose runs held an "
                     "advisory lock instead): drop it by hand once no run uses it"))


def lease_end(comment: object) -> dt.datetime | None:
    """The end of the lease a database's comment holds, with its time zone; None where it
    holds none that is a date."""
    found = _UNTIL.search(comment) if isinstance(comment, str) else None
    if found is None:
        return None
    try:
        until = dt.datetime.fromisoformat(found.group(1))
    except ValueError:
        return None
    return until if until.tzinfo is not None else None


@dataclass(kw_only=True, repr=False)  # the repr is Server's: it hides the password
class PostgresServer(Server[str]):
    """A running PostgreSQL server: DSN, how labkit got it, its exact version and what the DSN's
    role may do (a superuser may create the B-tree lesson's extensions).

    ``fresh_database`` returns the new database's DSN; its first call also removes the stale
    databases killed runs left behind, on any server.
    """

    dsn: str
    superuser: bool = True
    createdb: bool = True
    role: str = ""
    # The mark and creation time of each database this object made, which each renewal of its
    # comment writes again around the lease's new end.
    _comments: dict[str, tuple[str, str]] = field(default_factory=dict, repr=False)

    key = "postgres"
    engine = engine_name(key)
    modes = POSTGRES_MODES
    hint = POSTGRES_HINT
    user_mode = "dsn"
    user_variable = "LABKIT_POSTGRES_DSN"

    @property
    def address(self) -> str:
        """The server's DSN."""
        return self.dsn

    def connect(self, dsn: str | None = None) -> Connection[Row]:
        """Open an autocommit connection (to the server's database, or to ``dsn``)."""
        import psycopg

        return psycopg.connect(dsn or self.dsn, autocommit=True, connect_timeout=10)

    def require(self, what: Text, superuser: bool = False) -> None:
        """Raise ``ServerUnavailable`` saying plainly which privilege ``what`` needs and lacks."""
        if superuser and not self.superuser:
            raise ServerUnavailable(
                Message(N_("{what} needs a PostgreSQL superuser (CREATE DATABASE and the "
                           "pgstattuple and pageinspect extensions); role {role} at {dsn} is "
                           "not one."), what=what, role=self.role or "?", dsn=redact(self.dsn)),
                hint=Message(N_("set LABKIT_POSTGRES_DSN to a superuser's connection string, "
                                "or unset it to let labkit start a PostgreSQL of its own.")))
        if not (self.createdb or self.superuser):
            raise ServerUnavailable(
                Message(N_("{what} needs CREATE DATABASE; role {role} at {dsn} has neither "
                           "CREATEDB nor superuser."),
                        what=what, role=self.role or "?", dsn=redact(self.dsn)),
                hint=Message(N_("ALTER ROLE … CREATEDB, or set LABKIT_POSTGRES_DSN to another "
                                "role.")))

    def _before_create(self) -> None:
        self.require(Message(N_("creating a database for an experiment")))

    def _safe_label(self, label: str) -> str:
        return re.sub(r"[^a-z0-9_]", "_", label.lower())[:30]

    def _create(self, name: str) -> str:
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        mark = mark_for(name)  # before anything exists: a secret that cannot be had stops here
        with self.connect() as conn:
            # Until its comment is written the new database is unmarked, which no clean-up
            # ever touches: it never exists marked without a lease.
            conn.execute(f'CREATE DATABASE "{name}"')
            self._created.append(name)
            stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            self._comments[name] = (mark, stamp)
            self._lease_sent(name)
            self._write_lease(conn, name, self.lease.lasts)
        params = conninfo_to_dict(self.dsn)
        params["dbname"] = name
        return make_conninfo("", **params)

    def _write_lease(self, conn: Connection[Row], name: str, lasts: dt.timedelta) -> None:
        """Write database ``name``'s comment: its mark, and a lease ending ``lasts`` past the
        server's clock."""
        from psycopg import sql

        row = conn.execute("SELECT now() + %s", (lasts,)).fetchone()
        mark, created = self._comments[name]
        comment = _COMMENT.format(mark=mark, created=created,
                                  until=row[0].isoformat() if row else "?")
        conn.execute(sql.SQL("COMMENT ON DATABASE {} IS {}").format(
            sql.Identifier(name), sql.Literal(comment)))

    def _renew(self, name: str, lasts: dt.timedelta) -> bool:
        """Write the lease's new end into the comment, over a connection of its own; False
        where the database is gone or its comment no longer holds labkit's mark for it."""
        import psycopg

        with self.connect() as conn:
            row = conn.execute("SELECT shobj_description(oid, 'pg_database') FROM pg_database "
                               "WHERE datname = %s", (name,)).fetchone()
            if row is None or not mark_verifies(name, row[0]):
                return False
            try:
                self._write_lease(conn, name, lasts)
            except psycopg.errors.InvalidCatalogName:  # dropped since the line above
                return False
        return True

    def _driver_failure(self, failure: BaseException) -> str | None:
        """psycopg's ``OperationalError``: the connection lost, or the server ending it
        (``AdminShutdown`` for ``pg_terminate_backend``, ``IdleSessionTimeout``), or refusing
        for want of resources (SQLSTATE classes 08, 53, 57 and 58 in psycopg.errors)."""
        import psycopg

        if not isinstance(failure, psycopg.OperationalError):
            return None
        return (str(failure).strip().splitlines() or [type(failure).__name__])[0]

    def _drop(self, name: str) -> None:
        with self.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self._comments.pop(name, None)

    def clean_stale(self) -> Stale:
        """Drop the databases labkit provably made whose run has ended (its lease ran out by
        the server's clock): killed runs'. Provably made: this role owns it and its comment
        holds this installation's mark for its name. Any other database, even named
        ``labkit_…``, is never touched; one with a ``labkit:`` comment that does not prove it
        is left and said, and so is one of labkit's whose comment holds no lease end."""
        found = Stale()
        with self.connect() as conn:
            marked = conn.execute(
                "SELECT datname, shobj_description(oid, 'pg_database'), "
                "pg_get_userbyid(datdba), pg_get_userbyid(datdba) = current_user, now() "
                "FROM pg_database WHERE datname LIKE %s "
                "AND shobj_description(oid, 'pg_database') LIKE %s ORDER BY datname",
                (DB_PREFIX.replace("_", "\\_") + "%", MARK + "%")).fetchall()
            for name, comment, owner, own, now in marked:
                over = lease_over(now, lease_end(comment))
                stale = None if over is None else over and name not in self._created
                if sort_out(found, name, comment, stale=stale, owner=None if own else owner,
                            undated=UNDATED):
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                    found.removed.append(name)
        return found

    @classmethod
    def ways(cls, request: ServerRequest) -> dict[str, Attempt[PostgresServer]]:
        """LABKIT_POSTGRES_DSN, then local binaries, then Docker."""
        version = request.version

        def by_dsn() -> PostgresServer | Text:
            dsn = os.environ.get("LABKIT_POSTGRES_DSN")
            if not dsn:
                return Message(N_("not set"))
            # Its password is hidden from now on wherever a piece of it shows, libpq's own
            # messages among them ("failed to resolve host 'half@…'").
            _redact.remember(dsn)
            return from_dsn(dsn, version)

        def local() -> PostgresServer | Text:
            bindir = find_postgres_bin()
            if bindir is None:
                return Message(N_("no initdb/pg_ctl on PATH or in /usr/lib/postgresql"))
            actual = postgres_bin_version(bindir)
            if not version_matches(actual, version):
                return Message(N_("{bindir} holds version {actual}, not {version}"),
                               bindir=bindir, actual=actual, version=version)
            return _start_local_postgres(bindir, request.cache_gb)

        def docker() -> PostgresServer | Text:
            ok, detail = base.docker_status()
            if not ok:
                return detail
            return _start_docker_postgres(version or DEFAULT_POSTGRES_VERSION, request.cache_gb)

        return {"dsn": ("LABKIT_POSTGRES_DSN", by_dsn), "local": (N_("local PostgreSQL"), local),
                "docker": ("Docker", docker)}


def _postgres_version(conn: Connection[Row]) -> str:
    row = conn.execute("SHOW server_version").fetchone()
    return str(row[0]).split()[0] if row else "unknown"


def from_dsn(dsn: str, version: str | None = None) -> PostgresServer:
    """The PostgreSQL server at ``dsn`` and what its role may do."""
    import psycopg

    try:
        with psycopg.connect(dsn, connect_timeout=5) as conn:
            actual = _postgres_version(conn)
            role, superuser, createdb = conn.execute(
                "SELECT rolname, rolsuper, rolcreatedb FROM pg_roles "
                "WHERE rolname = current_user").fetchone() or ("", False, False)
    except psycopg.ProgrammingError as exc:
        raise BadInput(Message(N_("LABKIT_POSTGRES_DSN is not a valid connection string "
                                  "(libpq's parser refused it; its text is not shown: it may "
                                  "hold a password)"))) from exc
    except psycopg.Error as exc:
        raise ServerUnavailable(
            Message(N_("The PostgreSQL server at {dsn} did not answer: {error}"),
                    dsn=redact(dsn), error=str(exc).strip().splitlines()[0]),
            hint=Message(N_("check that it is running and the DSN's user and password, or "
                            "unset LABKIT_POSTGRES_DSN to let labkit start one.")),
        ) from exc
    if not version_matches(actual, version):
        raise ServerUnavailable(
            Message(N_("The PostgreSQL server at {dsn} is {actual}, not {version}."),
                    dsn=redact(dsn), actual=actual, version=version),
            hint=Message(N_("unset LABKIT_POSTGRES_DSN to let labkit start that version.")))
    return PostgresServer(dsn=dsn, how="dsn", version=actual, superuser=bool(superuser),
                          createdb=bool(createdb), role=str(role))


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


class _User(NamedTuple):
    """The account a server runs as when labkit is root: its ids, for chown."""

    pw_uid: int
    pw_gid: int


def run_as() -> tuple[list[str], _User | None]:
    """PostgreSQL refuses to run as root: then run it as the ``postgres`` user.

    Returns the command prefix and that user's ids (None when labkit is not root;
    ``os.geteuid`` and ``pwd`` exist only on POSIX).
    """
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return [], None
    import pwd

    try:
        entry = pwd.getpwnam("postgres")
    except KeyError as exc:
        raise ServerStartError(
            Message(N_("PostgreSQL will not run as root and there is no 'postgres' user to run "
                       "it as.")),
            hint=Message(POSTGRES_HINT),
        ) from exc
    runuser = shutil.which("runuser") or shutil.which("runuser", path=os.pathsep.join(
        _SYSTEM_BIN))
    if runuser is None:
        raise ServerStartError(
            Message(N_("PostgreSQL will not run as root, and runuser, which runs it as the "
                       "'postgres' user, is neither on PATH nor in {folders}."),
                    folders=", ".join(_SYSTEM_BIN)),
            hint=Message(N_("Hint: put the folder that holds runuser (util-linux) on PATH, or "
                            "set LABKIT_POSTGRES_DSN to a server of your own.")),
        )
    return [runuser, "-u", "postgres", "--"], _User(entry.pw_uid, entry.pw_gid)


# Where util-linux puts runuser, which a root shell's PATH may lack (``env -i``, some images).
_SYSTEM_BIN = ("/usr/sbin", "/sbin")


_PORT_TAKEN = ("could not bind", "address already in use", "could not create any tcp/ip sockets")


def own_settings(shared_buffers_mb: float = OWN_SHARED_BUFFERS_MB) -> dict[str, str]:
    """The settings of a PostgreSQL of labkit's own, local or in Docker: its checkpoints come
    when labkit asks for them (a day's timeout and 8 GB of WAL are never reached by a lesson's
    load), so every key kind meets them at the same interval; its shared buffers are the cache
    the B-tree lesson measures."""
    return {"shared_buffers": f"{max(round(shared_buffers_mb * 1024), 128)}kB",
            "checkpoint_timeout": "1d", "max_wal_size": "8GB", "full_page_writes": "on",
            "fsync": "off", "synchronous_commit": "off"}


def _settings(port: int, shared_buffers_mb: float = OWN_SHARED_BUFFERS_MB) -> str:
    """What labkit's own local cluster adds to its postgresql.conf: 127.0.0.1 only, no Unix
    socket at all (its path would depend on TMPDIR: spaces, and a 107-byte limit), and
    ``own_settings``."""
    lines = [f"{name} = '{value}'" for name, value in own_settings(shared_buffers_mb).items()]
    return ("\n# labkit: its own server, for its own runs\n"
            "listen_addresses = '127.0.0.1'\n"
            f"port = {port}\n"
            "unix_socket_directories = ''\n" + "\n".join(lines) + "\n")


def _start_local_postgres(bindir: str, cache_gb: float | None = None) -> PostgresServer:
    """initdb and start a cluster of labkit's own: a generated password (SCRAM) for its one
    role, on 127.0.0.1 only, with ``cache_gb`` of shared buffers (None:
    ``OWN_SHARED_BUFFERS_MB``); a port taken meanwhile means another port, with the cause
    kept."""
    buffers_mb = OWN_SHARED_BUFFERS_MB if cache_gb is None else cache_gb * 1024
    as_user, user = run_as()
    owned = OwnedServer("postgres", "postgres.log")
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
            output, _errors = helper.communicate(timeout=120)
        except BaseException:
            helper.kill()
            helper.wait()
            raise
        if helper.returncode != 0:
            raise RuntimeError(output.strip()[-800:])

    owned.shutdown = lambda: run(pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop")
    taken: list[Text] = []
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

        def start() -> None:
            with (data / "postgresql.conf").open("a", encoding="utf-8") as conf:
                conf.write(_settings(owned.port, buffers_mb))  # a later line wins
            run(pg_ctl, "-D", str(data), "-l", str(owned.log), "-w", "-t", "60", "start")

        def port_taken() -> bool:
            written = owned.written_since_start()
            if not any(sign in written.lower() for sign in _PORT_TAKEN):
                return False
            taken.append(Message(N_("port {port} was taken ({said})"), port=str(owned.port),
                                 said=written.splitlines()[-1].strip()))
            return True

        owned.on_a_free_port(start, port_taken)
        pid, _folder = _postmaster(data)
        owned.watcher.watch_pid(pid, "INT")
        dsn = f"postgresql://labkit:{password}@127.0.0.1:{owned.port}/postgres"
        server = from_dsn(dsn, None)
    except Exception as exc:
        before = Message(N_(" (after {ports})"), ports=joined("; ", taken)) if taken else ""
        raise owned.failed(Message(N_("Could not start PostgreSQL from {bindir} on port "
                                      "{port}{before}: {error}"), bindir=str(bindir),
                                   port=str(owned.port), before=before, error=str(exc)),
                           hint=Message(POSTGRES_HINT)) from exc
    server.how, server.workdir, server._stopper = "local", owned.workdir, owned.stopper
    return server


def _postmaster(data: Path) -> tuple[int, str]:
    """The pid and data folder a running postmaster wrote into its pid file."""
    lines = (data / "postmaster.pid").read_text().splitlines()
    return int(lines[0]), lines[1]


def _start_docker_postgres(version: str, cache_gb: float | None = None) -> PostgresServer:
    """Start the official image with labkit's own settings (``own_settings``, given to the
    image's ``postgres`` as ``-c name=value``), ``cache_gb`` of shared buffers (None:
    ``OWN_SHARED_BUFFERS_MB``)."""
    from testcontainers.community.postgres import PostgresContainer

    image = f"postgres:{version}"
    buffers_mb = OWN_SHARED_BUFFERS_MB if cache_gb is None else cache_gb * 1024
    # A password of its own, not testcontainers' "test" (see _start_docker_mongo).
    container = PostgresContainer(image, username="labkit", password=secrets.token_urlsafe(24),
                                  driver=None).with_command(
        ["postgres", *(arg for name, value in own_settings(buffers_mb).items()
                       for arg in ("-c", f"{name}={value}"))])
    try:
        container.start()
        dsn = container.get_connection_url(driver=None)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                server = from_dsn(dsn, None)
                break
            except ServerUnavailable:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
    except Exception as exc:
        logs = base.container_logs(container)
        with contextlib.suppress(Exception):
            container.stop()
        raise ServerStartError(
            Message(N_("Docker could not start {image}: {error}"), image=image, error=str(exc)),
            log_tail=logs,
            hint=Message(N_("choose another --postgres-version, or set LABKIT_POSTGRES_DSN.")),
        ) from exc
    return PostgresServer(dsn=dsn, how="docker", version=server.version,
                          _stopper=Stopper(container.stop))
