"""The environment self-check: one ``[OK]``, ``[FAIL]`` or ``[--]`` (optional, not there) line
per requirement."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import platform
import sys
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from labkit import servers
from labkit._redact import display
from labkit.engines import fakes
from labkit.errors import LabkitError, ServerUnavailable, one_line
from labkit.i18n import N_, Text, _, shown
from labkit.names import FAKES

if TYPE_CHECKING:
    from labkit.servers.privileges import Privileges

REQUIRED_PACKAGES = ("pymongo", "testcontainers", "psycopg", "uuid-utils", "matplotlib")
OPTIONAL_PACKAGES = (("jupyterlab", N_("the lessons (make lab)")),
                     ("nbval", N_("the notebook tests")),
                     ("wiredtiger", N_("the embedded WiredTiger engine (make wiredtiger)")),
                     # The model's: without them it says what it cannot judge, or reads slower.
                     ("pcre2", N_("the model's regular expressions (MongoDB's PCRE2)")),
                     ("pyicu-wheels", N_("the model's collations (ICU)")),
                     ("python-bsonjs", N_("reading large files fast (labkit predict)")),
                     ("pysimdjson", N_("reading large files fast (labkit predict)")))
# The checks' names, in the language in use where they are made: the MongoDB ways' names all
# begin with "MongoDB" in every language (``Report.mongodb_ways`` counts them by it).
URI_WAY = N_("MongoDB via LABKIT_MONGODB_URI")
LOCAL_WAY = N_("MongoDB via a local mongod")
DOCKER_WAY = N_("MongoDB via Docker")


@dataclass
class Check:
    """One requirement: whether it is met, what was found, and whether labkit needs it (its
    name and detail in the language in use when it was checked). A way to a server is never
    needed unless the environment names that server: then it must work."""

    name: str
    ok: bool
    detail: Text
    required: bool = True
    # A server the environment names (LABKIT_MONGODB_URI, LABKIT_POSTGRES_DSN): asked for, so
    # required, though a server itself is optional.
    named: bool = False

    def line(self) -> str:
        """``[OK]   name: detail``, ``[FAIL] name: detail`` for what is needed and missing, or
        ``[--]   name: detail`` for what is optional and not there (a way to MongoDB the
        learner has not set up is no failure: the lessons run without one)."""
        marks = ["[OK]", _("[FAIL]"), "[--]"]
        mark = marks[0] if self.ok else marks[1] if self.required else marks[2]
        optional = "" if self.required or self.ok or self.name.startswith("MongoDB") \
            else " " + _("(optional)")
        return f"{mark:<{max(map(len, marks))}} {self.name}: {shown(self.detail)}{optional}"


@dataclass
class Report:
    """All checks, and the verdict that follows from them."""

    checks: list[Check]

    @property
    def mongodb_ways(self) -> list[Check]:
        """The checks of the three ways to a MongoDB server."""
        return [c for c in self.checks if c.name.startswith("MongoDB")]

    @property
    def ok(self) -> bool:
        """True when every required check passes. A way to MongoDB is optional, as PostgreSQL
        and WiredTiger are: without one, every lesson runs on labkit's model and the MongoDB
        claims are reported as not run, so a learner without a server is ready too (the
        summary says which of the two)."""
        return all(c.ok for c in self.checks if c.required)

    def summary(self) -> str:
        """The closing line: ready, or what is missing."""
        named = [c.name for c in self.checks if c.required and not c.ok and c.named]
        if named:
            return _("Not ready: {names} cannot be used (the lines above say why); fix the "
                     "variable that names it, or unset it to go on without that server.").format(
                names=", ".join(named))
        missing = [c.name for c in self.checks if c.required and not c.ok]
        if missing:
            return _("Not ready: {missing} missing. Run `make doctor` (or `make lab`) to "
                     "install what the lessons need.").format(missing=", ".join(missing))
        if not any(c.ok for c in self.mongodb_ways):
            return _("Ready without a MongoDB server: every lesson runs, on labkit's model "
                     "where a lesson asks MongoDB, and MongoDB claims are reported as not run. "
                     "For a real server, set LABKIT_MONGODB_URI, put mongod on PATH, or start "
                     "Docker.")
        return _("Ready.")

    def lines(self) -> list[str]:
        """One line per check, then the summary (``labkit doctor`` prints each escaped for the
        terminal: a server's version or a path may hold anything)."""
        return [c.line() for c in self.checks] + [self.summary()]

    def __str__(self) -> str:
        return "\n".join(self.lines())

    __repr__ = __str__

    def to_dict(self) -> dict[str, Any]:
        """The checks as ``labkit doctor --json`` prints them."""
        return {"ok": self.ok, "summary": self.summary(),
                "checks": [asdict(c) for c in self.checks]}


def _package(name: str, required: bool, why: str = "") -> Check:
    try:
        version = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        detail = (_("not installed, needed for {why}").format(why=_(why)) if why
                  else _("not installed"))
        return Check(_("package {name}").format(name=name), False, detail, required)
    return Check(_("package {name}").format(name=name), True, version, required)


def _mongodb_uri() -> Check:
    uri = os.environ.get("LABKIT_MONGODB_URI")
    if not uri:
        return Check(_(URI_WAY), False, _("not set"), required=False)
    try:
        server = servers.provide("mongodb", "uri")
    except (LabkitError, ValueError) as exc:  # pymongo's parser raises ValueError too
        return Check(_(URI_WAY), False, one_line(exc), required=True, named=True)
    with server:
        detail = _("{engine} {version} at {uri}").format(
            engine=server.name, version=server.version, uri=display(uri)) + \
            (f" ({shown(server.info().detail)})" if server.product else "") + \
            f"; {shown(server.cache)}; {privileges_line(server.privileges)}"
        usable = server.privileges is None or server.privileges.usable
    return Check(_(URI_WAY), usable, detail, required=True, named=True)


def privileges_line(privileges: Privileges | None) -> str:
    """What the URI's user may do, as the doctor says it, in the learner's language (``ping``
    and ``buildInfo`` need no authentication, so only ``connectionStatus`` tells)."""
    if privileges is None:
        return _("privileges: not readable (the server did not answer connectionStatus)")
    return _("privileges: {report}").format(report=shown(privileges.report()))


def _mongodb_local() -> Check:
    binary = servers.find_mongod()
    if binary is None:
        return Check(_(LOCAL_WAY), False,
                     servers.mongod_missing_reason() or _("no mongod"), required=False)
    try:
        version = servers.mongod_version(binary)
    except LabkitError as exc:
        return Check(_(LOCAL_WAY), False, one_line(exc), required=False)
    return Check(_(LOCAL_WAY), True,
                 _("{binary} (version {version})").format(binary=binary, version=version), False)


def _mongodb_docker() -> Check:
    ok, detail = servers.docker_status()
    return Check(_(DOCKER_WAY), ok, detail, required=False)


def _postgres() -> Check:
    dsn = os.environ.get("LABKIT_POSTGRES_DSN")
    if dsn:
        try:
            server = servers.provide("postgres", "dsn")
        except Exception as exc:  # any failure to connect is what this line reports
            return Check("PostgreSQL", False, one_line(exc), required=True, named=True)
        with server:
            return Check("PostgreSQL", True, f"{server.version} at {display(dsn)}",
                         required=True, named=True)
    bindir = servers.find_postgres_bin()
    if bindir:
        version = servers.postgres_bin_version(bindir)
        return Check("PostgreSQL", True, _("local binaries {version} in {folder}").format(
            version=version, folder=bindir), False)
    ok, detail = servers.docker_status()
    if ok:
        return Check("PostgreSQL", True, _("through {docker}").format(docker=detail), False)
    return Check("PostgreSQL", False,
                 _("LABKIT_POSTGRES_DSN not set, no local binaries, no Docker"), required=False)


def _fakes() -> Check:
    """The in-process fakes lesson 07 judges: their versions, or which are missing and how to
    add them (optional: the lesson runs without them, their columns empty)."""
    found, absent = [], []
    for name in FAKES:
        try:
            found.append(f"{name} {fakes.version(name)}")
        except ServerUnavailable:
            absent.append(name)
    title = _("in-process fakes (lesson 07)")
    if not absent:
        return Check(title, True, ", ".join(found), required=False)
    return Check(title, False, _("{fakes} not installed. {how}").format(
        fakes=", ".join(absent), how=_(fakes.HOW_TO_INSTALL)), required=False)


def _wiredtiger() -> Check:
    try:
        importlib.import_module("wiredtiger")  # an optional binding, without type hints
    except ImportError:
        return Check(_("WiredTiger binding"), False, _("not installed (make wiredtiger)"), False)
    version = importlib.metadata.version("wiredtiger")
    return Check(_("WiredTiger binding"), True, version, required=False)


def run() -> Report:
    """Check Python, packages, lesson 07's fakes, the three ways to MongoDB, PostgreSQL and
    WiredTiger."""
    checks = [Check("Python", sys.version_info >= (3, 11),
                    f"{platform.python_version()} ({sys.executable})")]
    checks += [_package(name, True) for name in REQUIRED_PACKAGES]
    checks += [_package(name, False, why) for name, why in OPTIONAL_PACKAGES
               if name != "wiredtiger"]
    checks.append(_fakes())
    checks += [_mongodb_uri(), _mongodb_local(), _mongodb_docker(), _postgres(), _wiredtiger()]
    return Report(checks)
