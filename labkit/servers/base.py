"""What every server shares: how it is found or started, and the databases labkit makes on it.

``Server`` is the one interface both vendors implement, as testcontainers' ``DbContainer``
serves every database module: a fallback chain over the ways to get a server, a fresh
database named ``labkit_…`` and marked as labkit's, the lease its run holds on it, dropping
what this run created, cleaning what killed runs left, stopping, describing, and use as a
context manager. ``MongoServer`` and ``PostgresServer`` supply only what differs.

The lease is one design for both. Each database this run makes says, by the server's clock,
until when its run holds it (``LeaseTerms.lasts`` ahead); a thread of the run pushes that end
ahead every ``LeaseTerms.every`` while it lives, each time over whatever connection it can get,
so that no one connection holds the lease: a connection the server or a proxy ends (an idle
timeout, ``pg_terminate_backend``) costs a renewal at most. A clean-up drops a database only
once the server's clock is past its lease's end: a killed run's. A run whose renewals all fail
until its lease runs out, or that finds its database or lease gone, has lost it, and says so
(``check_lease``, ``working``) rather than go on with a database a clean-up may drop.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, Self, TypeVar

from labkit._redact import redact as redact  # the servers' name for it
from labkit._signals import raise_if_stopping
from labkit.errors import BadInput, ServerStartError, ServerUnavailable, one_line
from labkit.i18n import N_, Message, Text
from labkit.names import EngineInfo
from labkit.servers.mark import MARK, mark_verifies, secret_path

if TYPE_CHECKING:
    from types import TracebackType

DB_PREFIX = "labkit_"
# What labkit creates carries its mark (``mark.mark_for``: in a lease document on MongoDB, a
# comment on PostgreSQL): only a database whose mark verifies is provably labkit's.
START_TIMEOUT = 60.0

_VERSION_RE = re.compile(r"^\d+(\.\d+){0,2}$")


def check_pinned_version(version: str | None) -> str | None:
    """Refuse an unpinned or malformed server version (``latest``); return it unchanged."""
    if version is None:
        return None
    if version == "latest" or not _VERSION_RE.match(version):
        raise BadInput(Message(
            N_("server version {version} is not a pinned version such as 8.0 or 7.0.14"),
            version=repr(version)))
    return version


def check_mode(mode: str, modes: Sequence[str]) -> None:
    """Refuse a way to a server that is not one of ``modes``."""
    if mode not in modes:
        raise BadInput(Message(N_("unknown server mode {mode}; choose one of {modes}"),
                               mode=repr(mode), modes=", ".join(modes)))


def version_matches(actual: str, wanted: str | None) -> bool:
    """True when ``actual`` (``7.0.14``) is the pinned ``wanted`` (``7.0``), or none is pinned."""
    return wanted is None or actual == wanted or actual.startswith(wanted + ".")


def _shown_value(value: object) -> str:
    """A field's value in a repr: a string redacted, then quoted (so that its closing quote is
    not read as part of a DSN's last value); anything else's repr, redacted."""
    return repr(redact(value)) if isinstance(value, str) else redact(repr(value))


@dataclass(frozen=True)
class ServerRequest:
    """What a caller asks for: the way (``mode``), a pinned ``version`` (None: any), and the
    WiredTiger cache of a ``mongod`` labkit starts (None: ``DEFAULT_CACHE_GB``)."""

    mode: str = "auto"
    version: str | None = None
    cache_gb: float | None = None


# One fallback chain for every engine ---------------------------------------------------

S = TypeVar("S", bound="Server[object]")

# A way to a server: its name, and an attempt that returns a server or the reason it has none
# (an attempt may raise ServerStartError).
Attempt = tuple[str, Callable[[], S | Text]]


def first_server(engine: str, attempts: Sequence[Attempt[S]], explicit: bool, hint: str) -> S:
    """Try each way in order; the first server wins, otherwise say what each way gave.

    When the user named one way (``explicit``), its start failure is the error itself;
    in ``auto`` mode it is one line of what was tried, and the next way gets its turn.
    """
    tried: list[Text] = []
    for name, attempt in attempts:
        try:
            outcome = attempt()
        except ServerStartError as exc:
            if explicit:
                raise
            # Its start failure (message, log and hint) is kept whole, shown in the learner's
            # language: its first line, which says what went wrong, follows "failed to start:"
            # on the line the one-line summary keeps.
            outcome = Message("{failed} {error}", failed=Message(N_("failed to start:")),
                              error=exc.text())
        if not isinstance(outcome, str | Message):
            return outcome
        tried.append(Message("{way}: {outcome}", way=Message(name), outcome=outcome))
    raise ServerUnavailable(Message(N_("No {engine} server is available."), engine=engine),
                            tried=tried, hint=Message(hint))


# Docker, the last way to either vendor -------------------------------------------------


def docker_status() -> tuple[bool, Text]:
    """Say whether a Docker daemon answers, and its version or why not."""
    try:
        import docker

        client = docker.from_env(timeout=3)
        client.ping()
        return True, f"Docker {client.version().get('Version', '?')}"
    except Exception as exc:  # docker raises many kinds; all mean "not usable"
        cause = Message(N_("no Docker socket")) if "FileNotFoundError" in str(exc) \
            else type(exc).__name__
        return False, Message(N_("no Docker daemon answered ({cause})"), cause=cause)


class _HasLogs(Protocol):
    def get_logs(self) -> tuple[bytes, bytes]: ...


def container_logs(container: _HasLogs) -> str:
    """The last lines a container wrote, or a note that there are none."""
    try:
        out, err = container.get_logs()
        lines = (out + err).decode(errors="replace").splitlines()
        return "\n".join(lines[-15:])
    except Exception:  # the container may be gone already
        return "(no logs)"


# A run's lease on the databases it makes -------------------------------------------------

# A live run renews each lease this often; a lease not renewed for STALE_AFTER has run out (its
# run was killed): many renewals fit in it, so a slow one or a few failed ones cost nothing.
RENEW_EVERY = dt.timedelta(minutes=1)
STALE_AFTER = dt.timedelta(minutes=30)


@dataclass(frozen=True)
class LeaseTerms:
    """How often a run renews its leases (``every``) and how far past the server's clock each
    renewal puts a lease's end (``lasts``): the time a clean-up waits before it takes a
    database whose run no longer renews it for a killed run's."""

    every: dt.timedelta = RENEW_EVERY
    lasts: dt.timedelta = STALE_AFTER


def _aware(moment: dt.datetime) -> dt.datetime:
    """A date without a zone as UTC, which both servers' clocks give."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def lease_over(now: dt.datetime, ends: object = None, renewed: object = None) -> bool | None:
    """Whether a lease has run out by the server's ``now``: its end (``ends``) is past, or,
    for a lease written without an end (an older labkit's), its last renewal (``renewed``) is
    STALE_AFTER old. None where what it holds is no date: then it cannot be judged (left
    alone)."""
    if ends is None and isinstance(renewed, dt.datetime):
        ends = _aware(renewed) + STALE_AFTER
    if not isinstance(ends, dt.datetime):
        return None
    return _aware(now) >= _aware(ends)


@dataclass(frozen=True)
class _Instant:
    """A moment by two clocks: the monotonic one, never set back, and the wall clock, which
    goes on while the machine sleeps (Linux's monotonic clock stops then, the server's does
    not); the time since is the longer of the two, so a lease is never thought held longer
    than the server holds it."""

    monotonic: float
    wall: float

    @classmethod
    def now(cls) -> _Instant:
        return cls(time.monotonic(), time.time())

    def elapsed(self) -> float:
        return max(time.monotonic() - self.monotonic, time.time() - self.wall)


class _Renewer:
    """A daemon thread renewing a server's leases every ``LeaseTerms.every`` until stopped."""

    def __init__(self, server: Server[Any]) -> None:
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(server,), daemon=True,
                                        name="labkit-lease")
        self._thread.start()

    def _run(self, server: Server[Any]) -> None:
        while not self._stopped.wait(server.lease.every.total_seconds()):
            server.renew()

    def stop(self) -> None:
        """Stop renewing (the databases are dropped next, or left to run out)."""
        self._stopped.set()
        self._thread.join(timeout=5)


def _seconds(span: dt.timedelta) -> float | int:
    seconds = round(span.total_seconds(), 3)
    return int(seconds) if seconds.is_integer() else seconds


# The server --------------------------------------------------------------------------


@dataclass
class Stale:
    """What a clean-up found: databases removed, labkit's databases kept because a live run
    holds them, and databases that look like labkit's but that it cannot prove it made, each
    with why (left alone); and labkit's stale databases it may not (or could not) drop, with
    what the server said (``skipped``: a least-privilege user's, left for one who may). (A plain
    result, not an error: a clean-up that finds nothing is fine.)"""

    removed: list[str] = field(default_factory=list)
    in_use: list[str] = field(default_factory=list)
    unproven: dict[str, Text] = field(default_factory=dict)
    skipped: dict[str, Text] = field(default_factory=dict)


def why_unproven(name: str, mark: object, owner: str | None = None) -> Message | None:
    """None when ``mark`` proves labkit made database ``name`` (and, where the engine has
    owners, ``owner`` is None: the database is the current role's); otherwise why not.

    ``mark`` is what the database carries where labkit puts its mark (a comment, a lease
    field); a database that carries none (not ``labkit:…``) is not asked about.
    """
    if owner is not None:
        return Message(N_("owned by role {owner}, not by this one: another role's database is "
                          "never dropped"), owner=owner)
    if mark_verifies(name, mark):
        return None
    path = secret_path()
    if not path.exists():
        return Message(N_("there is no secret at {path} (deleted?), so no mark can be proven; "
                          "databases marked before it was made are left alone"), path=str(path))
    return Message(N_("its mark was not made for this name with this installation's secret "
                      "({path}): a copy, another installation's, or made before this secret"),
                   path=str(path))


def sort_out(found: Stale, name: str, mark: object, *, stale: bool | None,
             owner: str | None = None, undated: Text = "") -> bool:
    """Record where database ``name`` goes in ``found``; True when it is labkit's beyond doubt
    and ``stale`` (its lease ran out, ``lease_over``): then the caller drops it (and records
    it removed).

    Unmarked databases are not recorded at all; marked ones that are not provably labkit's
    (``why_unproven``) are left and said, and so are labkit's whose lease cannot be judged
    (``stale`` None, with why: ``undated``); provably labkit's ones held by a live run are kept.
    """
    if not (isinstance(mark, str) and mark.startswith(MARK)):
        return False
    why: Text | None = why_unproven(name, mark, owner)
    if why is None and stale is None:
        why = undated
    if why is not None:
        found.unproven[name] = why
        return False
    if not stale:
        found.in_use.append(name)
        return False
    return True


H = TypeVar("H", covariant=True)  # what ``fresh_database`` hands back: a database handle, or a DSN


# repr=False, here and on each vendor's class: the repr below is the one (a generated one would
# show the URI's or DSN's password in a notebook, which shows a cell's last value by its repr).
@dataclass(kw_only=True, repr=False)
class Server(ABC, Generic[H]):
    """A running server: how labkit got it (``how``), its exact version, the folder of a server
    labkit started, and the databases this object created on it.

    The bookkeeping lives here once: a vendor says how to create, renew, drop and clean one
    database's lease, and how it lets go of its connections.
    """

    how: str
    version: str
    workdir: Path | None = None
    _stopper: Callable[[], None] | None = None
    _created: list[str] = field(default_factory=list)
    _cleaned: Stale | None = None
    # Databases this object created and could not remove wholly, with what was left and why.
    left: dict[str, Text] = field(default_factory=dict)
    # How this run renews its leases (a test gives short terms).
    lease: LeaseTerms = field(default_factory=LeaseTerms)
    # The leases this run holds, each with when its last renewal that got through was sent;
    # the ones it lost, with why; the last failure of each renewal that did not get through.
    _held: dict[str, _Instant] = field(default_factory=dict, repr=False)
    _lost: dict[str, Message] = field(default_factory=dict, repr=False)
    _failures: dict[str, Text] = field(default_factory=dict, repr=False)
    _renewer: _Renewer | None = field(default=None, repr=False)
    _leases_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    key: ClassVar[str]  # the engine's key (``names.ENGINE_NAMES``): ``mongodb``, ``postgres``
    engine: ClassVar[str]  # its display name
    modes: ClassVar[tuple[str, ...]]
    hint: ClassVar[str]
    # The mode and environment variable of a user's server: the only kind of server killed
    # runs can leave databases on (a server labkit starts is removed whole).
    user_mode: ClassVar[str]
    user_variable: ClassVar[str]

    @property
    def name(self) -> str:
        """What the server is, as outputs name it: the engine (``MongoDB``), or the product
        that answered in its place (``FerretDB``)."""
        return self.engine

    # What each vendor supplies -------------------------------------------------------

    @property
    @abstractmethod
    def address(self) -> str:
        """The connection string clients use (a URI or a DSN; it may hold a password)."""

    @classmethod
    @abstractmethod
    def ways(cls, request: ServerRequest) -> dict[str, Attempt[Self]]:
        """The ways to a server, by mode name, in the order ``auto`` tries them."""

    @abstractmethod
    def clean_stale(self) -> Stale:
        """Drop the databases labkit provably made (``sort_out``) whose run is provably over
        (a killed run's). Any other database, even named ``labkit_…``, is never touched."""

    @abstractmethod
    def _create(self, name: str) -> H:
        """Create database ``name`` with labkit's mark and this run's lease (ending
        ``lease.lasts`` past the server's clock; ``_lease_sent`` just before it is written),
        and record it in ``_created`` as soon as it exists; return what the caller uses (a
        handle or a DSN)."""

    @abstractmethod
    def _drop(self, name: str) -> None:
        """Drop database ``name`` (created by this object), its lease with it."""

    def _renew(self, name: str, lasts: dt.timedelta) -> bool:
        """Push the end of database ``name``'s lease to ``lasts`` past the server's clock; False
        where the lease is gone (the database dropped, or its lease, or no longer labkit's).
        It may raise: a renewal that fails is tried again, until the lease runs out. (A
        vendor that keeps no lease has none to renew.)"""
        return True

    def _driver_failure(self, failure: BaseException) -> str | None:
        """What the server's driver said, on one line, where ``failure`` is the driver's word
        that the connection is gone (the server ended it, a reset, a timeout); None for any
        other exception (a refusal, a bug: the engine's error, as before)."""
        return None

    def _cleans_on_first_use(self) -> bool:
        """Whether the first ``fresh_database`` also runs ``clean_stale``."""
        return True

    def _safe_label(self, label: str) -> str:
        return re.sub(r"[^A-Za-z0-9_]", "_", label)[:30]

    def _before_create(self) -> None:
        """Refuse, before anything is cleaned or created, when a database cannot be made."""

    def _let_go(self) -> None:
        """Stop renewing leases: the databases are dropped next, or left to go stale."""
        if self._renewer is not None:
            self._renewer.stop()
            self._renewer = None

    def _close(self) -> None:
        """Close this object's connections (after its databases are dropped)."""

    def _settings(self) -> str:
        """What the server runs with that shapes results (MongoDB's cache), in words."""
        return ""

    def gone(self, failure: BaseException) -> ServerUnavailable | None:
        """After ``failure`` cost a claim, why this server is gone for the rest of the run, or
        None where it may still serve (the failure was not a lost connection, or the server
        answers again). A vendor that can tell says so."""
        return None

    # What both share ------------------------------------------------------------------

    @classmethod
    def find_or_start(cls, request: ServerRequest) -> Self:
        """Find or start a server the way ``request`` asks; bad values are refused first."""
        check_mode(request.mode, cls.modes)
        request = ServerRequest(request.mode, check_pinned_version(request.version),
                                request.cache_gb)
        ways = cls.ways(request)
        attempts = [way for name, way in ways.items() if request.mode in ("auto", name)]
        return first_server(cls.engine, attempts, request.mode != "auto", cls.hint)

    @property
    def cleaned(self) -> Stale:
        """What the first ``fresh_database`` found left by killed runs (empty if it did not
        look)."""
        return self._cleaned or Stale()

    def fresh_database(self, label: str) -> H:
        """Create a database named ``labkit_<label>_<random>``, marked as labkit's and leased
        by this run, and return it (see ``clean_stale``). A run that lost a lease makes no
        more: it says so here (``check_lease``)."""
        self._before_create()
        self.check_lease()
        if self._cleaned is None and self._cleans_on_first_use():
            self._cleaned = self.clean_stale()
        name = f"{DB_PREFIX}{self._safe_label(label)}_{uuid.uuid4().hex[:8]}"
        try:
            made = self._create(name)
        except BaseException:
            with self._leases_lock:
                self._held.pop(name, None)
            # Recorded before its mark or lease was written (``_create``), the database may
            # exist: drop it now, not when the server stops (hours later, in a lesson). Where
            # that fails too, it stays recorded, and stopping tries again.
            if name in self._created:
                with contextlib.suppress(Exception):
                    self._drop(name)
                    self._created.remove(name)
            raise
        if self._renewer is None and self._held:
            self._renewer = _Renewer(self)
        return made

    def _lease_sent(self, name: str) -> None:
        """Note that the first lease of ``name`` is written now (``_create`` calls this just
        before it writes it): the lease ends no earlier than this moment and ``lease.lasts``."""
        with self._leases_lock:
            self._held[name] = _Instant.now()

    # The lease, renewed, lost and said -------------------------------------------------

    def renew(self) -> None:
        """Renew every lease this run holds (the renewer calls this every ``lease.every``).
        Never raises: a renewal that does not get through is tried again next time, and the
        lease is lost only once it has run out (``check_lease`` says so), or at once where the
        database or its lease is found gone."""
        for name in list(self._held):
            if self._ran_out(name):
                continue  # never renewed again: a clean-up may be dropping it right now
            sent = _Instant.now()
            try:
                kept = self._renew(name, self.lease.lasts)
            except Exception as exc:  # whatever failed, the next renewal tries again
                with self._leases_lock:
                    if name in self._held:
                        self._failures[name] = one_line(exc)
                continue
            with self._leases_lock:
                if name not in self._held or name in self._lost:
                    continue  # dropped by this run meanwhile, or lost already
                if kept:
                    self._held[name] = sent
                    self._failures.pop(name, None)
                else:
                    self._lost[name] = Message(N_(
                        "This run's database {name} on {address} lost its lease: the database "
                        "or its lease was dropped while the run used it (by `labkit clean`, or "
                        "by hand)."), name=name, address=redact(self.address))

    def _ran_out(self, name: str) -> bool:
        """Whether the lease of ``name`` is lost (recorded so once its time is up)."""
        with self._leases_lock:
            held = self._held.get(name)
            if name in self._lost or held is None:
                return name in self._lost
            if held.elapsed() < self.lease.lasts.total_seconds():
                return False
            why = self._failures.get(name) or Message(N_("no renewal got through"))
            self._lost[name] = Message(N_(
                "This run's database {name} on {address} lost its lease: it was not renewed "
                "for {seconds:,} s ({why}), so `labkit clean` may drop it."), name=name,
                address=redact(self.address), seconds=_seconds(self.lease.lasts), why=why)
            return True

    def _lease_lost(self) -> ServerUnavailable | None:
        """The loss of a lease this run holds, as the error that ends its work; None if none."""
        for name in list(self._held):
            self._ran_out(name)
        with self._leases_lock:
            why = next(iter(self._lost.values()), None)
        if why is None:
            return None
        return ServerUnavailable(why, hint=Message(N_(
            "the run stops rather than go on with it; check that the server stays reachable "
            "(a network down, a laptop asleep), then run labkit again.")))

    def check_lease(self) -> None:
        """Raise ``ServerUnavailable`` where this run lost the lease of a database it holds
        (found gone, or not renewed until it ran out): what it measured there may stand on a
        database a clean-up dropped."""
        lost = self._lease_lost()
        if lost is not None:
            raise lost

    @contextlib.contextmanager
    def working(self) -> Iterator[None]:
        """Around this run's work on the databases it made: the connection lost (the server
        ended it, a reset) ends as one ``ServerUnavailable``, said as the lost lease where a
        renewal now finds the database gone; any failure after a lease was lost is said as
        that loss, its cause; and a lease lost meanwhile is raised when the work ends, even
        well (``check_lease``)."""
        try:
            yield
        except Exception as exc:
            raise_if_stopping(exc)  # a stop the driver turned into its own error is the stop
            said = self._driver_failure(exc)
            if said is None:
                lost = self._lease_lost()
                if lost is None:
                    raise
                raise lost from exc
            self.renew()  # a database dropped under the run shows now as its lost lease
            raise self._lease_lost() or ServerUnavailable(
                Message(N_("The {engine} server at {address} failed during the run's work on "
                           "it: {error}"), engine=self.name, address=redact(self.address),
                        error=said),
                hint=Message(N_("check that it is running and reachable, then run labkit "
                                "again (`labkit clean` removes what a run left there)."))) \
                from exc
        self.check_lease()

    def drop(self, name: str) -> None:
        """Drop one database, only if this object created it. A clean-up that fails is
        recorded in ``left`` and never raised: a verdict already judged stays as judged."""
        if name in self._created and name.startswith(DB_PREFIX):
            self._created.remove(name)
            with self._leases_lock:
                self._held.pop(name, None)
                self._lost.pop(name, None)
                self._failures.pop(name, None)
            try:
                self._drop(name)
            except Exception as exc:  # whatever the server refused, the run's verdicts stand
                self.left[name] = one_line(exc)

    def drop_created(self) -> None:
        """Drop the databases this object created, and nothing else."""
        for name in list(self._created):
            self.drop(name)

    def stop(self) -> None:
        """Drop labkit's databases; stop the server if labkit started it."""
        self._let_go()
        with contextlib.suppress(Exception):
            self.drop_created()
        self._close()
        if self._stopper is not None:
            self._stopper()

    def info(self) -> EngineInfo:
        """The server as a run records it: its engine, version, how labkit got it and where it
        listens (its password hidden), each a field."""
        return EngineInfo(self.key, self.version, detail=self._detail(), how=self.how,
                          address=redact(self.address), settings=self._settings(),
                          name=self.name)

    def _detail(self) -> Text:
        """What the name and version alone do not say (a vendor's own)."""
        return ""

    def describe(self) -> str:
        """One line: engine, version and where it came from (its password hidden)."""
        return self.info().line()

    def __repr__(self) -> str:
        """The dataclass's fields and values, as its generated repr gives them, every secret
        in them hidden (``uri='mongodb://alice:***@…'``)."""
        shown = ", ".join(f"{item.name}={_shown_value(getattr(self, item.name))}"
                          for item in fields(self) if item.repr)
        return f"{type(self).__name__}({shown})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()
