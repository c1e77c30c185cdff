"""What every server shares: how it is found or started, and the databases labkit makes on it.

``Server`` is the one interface both vendors implement, as testcontainers' ``DbContainer``
serves every database module: a fallback chain over the ways to get a server, a fresh
database named ``labkit_…`` and marked as labkit's, dropping what this run created,
cleaning what killed runs left, stopping, describing, and use as a context manager.
``MongoServer`` and ``PostgresServer`` supply only what differs.
"""

from __future__ import annotations

import contextlib
import re
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Generic, Protocol, Self, TypeVar

from labkit import _redact
from labkit.errors import BadInput, ServerStartError, ServerUnavailable, Shown, one_line
from labkit.i18n import N_, Message
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
        raise BadInput(
            f"server version {version!r} is not a pinned version such as 8.0 or 7.0.14"
        )
    return version


def check_mode(mode: str, modes: Sequence[str]) -> None:
    """Refuse a way to a server that is not one of ``modes``."""
    if mode not in modes:
        raise BadInput(f"unknown server mode {mode!r}; choose one of {', '.join(modes)}")


def version_matches(actual: str, wanted: str | None) -> bool:
    """True when ``actual`` (``7.0.14``) is the pinned ``wanted`` (``7.0``), or none is pinned."""
    return wanted is None or actual == wanted or actual.startswith(wanted + ".")


def redact(uri: str) -> str:
    """Hide the password in a connection string, whatever its form (URI, query, key-value)."""
    return _redact.redact(uri)


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
Attempt = tuple[str, Callable[[], S | str]]


def first_server(engine: str, attempts: Sequence[Attempt[S]], explicit: bool, hint: str) -> S:
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
            # Its start failure (message, log and hint) is kept whole, shown in the learner's
            # language: the first line alone goes into the one-line summary.
            outcome = Message("{failed}\n{error}", failed=Message(N_("failed to start:")),
                              error=_StartFailure(exc))
        if not isinstance(outcome, str):
            return outcome
        tried.append(Message("{way}: {outcome}", way=Message(name), outcome=outcome))
    raise ServerUnavailable(Message(N_("No {engine} server is available."), engine=engine),
                            tried=tried, hint=Message(hint))


class _StartFailure(Shown):
    """A start failure's whole text: English as ``str``, its ``str()`` (the learner's) shown."""

    error: ServerStartError

    def __new__(cls, error: ServerStartError) -> _StartFailure:
        text = super().__new__(cls, error.english())
        text.error = error
        return text

    def shown(self) -> str:
        """The failure as the learner reads it."""
        return str(self.error)

    def __reduce__(self) -> tuple[object, ...]:
        return _StartFailure, (self.error,)


# Docker, the last way to either vendor -------------------------------------------------


def docker_status() -> tuple[bool, str]:
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
    unproven: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def why_unproven(name: str, mark: object, owner: str | None = None) -> str | None:
    """None when ``mark`` proves labkit made database ``name`` (and, where the engine has
    owners, ``owner`` is None: the database is the current role's); otherwise why not.

    ``mark`` is what the database carries where labkit puts its mark (a comment, a lease
    field); a database that carries none (not ``labkit:…``) is not asked about.
    """
    if owner is not None:
        return f"owned by role {owner}, not by this one: another role's database is never dropped"
    if mark_verifies(name, mark):
        return None
    path = secret_path()
    if not path.exists():
        return (f"there is no secret at {path} (deleted?), so no mark can be proven; "
                "databases marked before it was made are left alone")
    return (f"its mark was not made for this name with this installation's secret ({path}): "
            "a copy, another installation's, or made before this secret")


def sort_out(found: Stale, name: str, mark: object, *, stale: bool,
             owner: str | None = None) -> bool:
    """Record where database ``name`` goes in ``found``; True when it is labkit's beyond doubt
    and ``stale``: then the caller drops it (and records it removed).

    Unmarked databases are not recorded at all; marked ones that are not provably labkit's
    (``why_unproven``) are left and said; provably labkit's ones held by a live run are kept.
    """
    if not (isinstance(mark, str) and mark.startswith(MARK)):
        return False
    why = why_unproven(name, mark, owner)
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

    The bookkeeping lives here once: a vendor says how to create, drop and clean one
    database, and how it lets go of its connections.
    """

    how: str
    version: str
    workdir: Path | None = None
    _stopper: Callable[[], None] | None = None
    _created: list[str] = field(default_factory=list)
    _cleaned: Stale | None = None
    # Databases this object created and could not remove wholly, with what was left and why.
    left: dict[str, str] = field(default_factory=dict)

    key: ClassVar[str]  # the engine's key (``names.ENGINE_NAMES``): ``mongodb``, ``postgres``
    engine: ClassVar[str]  # its display name
    modes: ClassVar[tuple[str, ...]]
    hint: ClassVar[str]
    # The mode and environment variable of a user's server: the only kind of server killed
    # runs can leave databases on (a server labkit starts is removed whole).
    user_mode: ClassVar[str]
    user_variable: ClassVar[str]

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
        """Create database ``name`` with labkit's mark and this run's lease, and record it in
        ``_created`` as soon as it exists; return what the caller uses (a handle or a DSN)."""

    @abstractmethod
    def _drop(self, name: str) -> None:
        """Drop database ``name`` (created by this object) and let go of its lease."""

    def _cleans_on_first_use(self) -> bool:
        """Whether the first ``fresh_database`` also runs ``clean_stale``."""
        return True

    def _safe_label(self, label: str) -> str:
        return re.sub(r"[^A-Za-z0-9_]", "_", label)[:30]

    def _before_create(self) -> None:
        """Refuse, before anything is cleaned or created, when a database cannot be made."""

    def _let_go(self) -> None:
        """Stop renewing leases: the databases are dropped next, or left to go stale."""

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
        by this run, and return it (see ``clean_stale``)."""
        self._before_create()
        if self._cleaned is None and self._cleans_on_first_use():
            self._cleaned = self.clean_stale()
        name = f"{DB_PREFIX}{self._safe_label(label)}_{uuid.uuid4().hex[:8]}"
        try:
            return self._create(name)
        except BaseException:
            # Recorded before its mark or lease was written (``_create``), the database may
            # exist: drop it now, not when the server stops (hours later, in a lesson). Where
            # that fails too, it stays recorded, and stopping tries again.
            if name in self._created:
                with contextlib.suppress(Exception):
                    self._drop(name)
                    self._created.remove(name)
            raise

    def drop(self, name: str) -> None:
        """Drop one database, only if this object created it. A clean-up that fails is
        recorded in ``left`` and never raised: a verdict already judged stays as judged."""
        if name in self._created and name.startswith(DB_PREFIX):
            self._created.remove(name)
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
        return EngineInfo(self.key, self.version, how=self.how, address=redact(self.address),
                          settings=self._settings(), name=self.engine)

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
