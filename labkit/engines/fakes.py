"""In-process fakes of MongoDB (mongomock, montydb) as engines of ``labkit check``.

They are not MongoDB and never stand in for it: each is named as an in-process fake with its
package's version, and appears only where a user asks ``labkit check`` to judge it (and in the
lesson about fakes). Where a fake raises an error as MongoDB or pymongo would (its
``OperationFailure``, pymongo's errors), that is its answer: an application tested on it would
see the same exception. Any other exception it raises (a ``TypeError`` from its own code, a
``NotImplementedError``) is the fake's error, that row's verdict, never a server's error.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import itertools
import re
from collections.abc import Iterator
from typing import Any

from bson import Regex

from labkit.claims.spec import NEUTRAL_ARGUMENTS, Answer, ClaimSpec, Step
from labkit.engines.query import Engine, called, load_and_read
from labkit.engines.undefined import holds_undefined
from labkit.errors import BadInput, NotSupported, ServerUnavailable
from labkit.i18n import N_, Message
from labkit.model import regex

FAKE = Message(N_("in-process fake"))  # what each is, beside its name
_numbers = itertools.count(1)
_monty = None  # montydb's in-memory client, one per process (it refuses a second setup)


# How to add the fakes where labkit runs: pip installs them, wherever labkit came from (a
# checkout, a wheel); in a notebook, %pip installs into the kernel's own environment.
HOW_TO_INSTALL = N_("Install the fakes where labkit runs: pip install mongomock montydb (in a "
                    "notebook cell: %pip install mongomock montydb, then restart the kernel).")


def version(package: str) -> str:
    """The installed version of the fake ``package``; ``ServerUnavailable`` (with how to
    install it) when it is not installed."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError as exc:
        raise ServerUnavailable(Message(N_("{package} is not installed."), package=package),
                                hint=Message(HOW_TO_INSTALL)) from exc


def _without_neutral(step: Step) -> dict[str, Any]:
    """Arguments that do not change a result are sent to MongoDB only (see claimfiles)."""
    return {k: v for k, v in step.arguments.items() if k not in NEUTRAL_ARGUMENTS}


class _FakeEngine(Engine):
    detail = FAKE
    _shared: Any = None  # one client per engine: montydb allows one storage setup per process

    def _client(self) -> Any:
        """The fake's client (pymongo-like; the fakes publish no types)."""
        raise NotImplementedError

    @property
    def client(self) -> Any:
        """The engine's in-process client, made on first use."""
        if self._shared is None:
            self._shared = self._client()
        return self._shared

    def _server_errors(self) -> tuple[type, ...]:
        from pymongo.errors import OperationFailure

        return (OperationFailure,)

    def _answers(self) -> tuple[type, ...]:
        """The exceptions that are the fake's answer: those it raises as MongoDB or pymongo
        would (its server errors, pymongo's and bson's errors). Any other exception (a
        ``TypeError`` from its own code, a ``NotImplementedError``) is the fake's error."""
        import bson.errors
        import pymongo.errors

        return (*self._server_errors(), pymongo.errors.PyMongoError, bson.errors.BSONError)

    def answer(self, spec: ClaimSpec, steps: list[Step]) -> list[Answer]:
        """Load the fixture into a fresh in-memory database, run the reads, drop it. A
        fixture holding BSON's ``undefined`` is not run: the fake keeps Python values, among
        which ``undefined`` has none, so it would answer about a null instead."""
        if any(holds_undefined(doc) for docs in spec.fixture.values() for doc in docs):
            raise NotSupported(Message(N_(
                "{engine} keeps documents as Python values, and BSON's undefined has no Python "
                "value: it would store a null in its place"), engine=self.key))
        _refuse_unbounded_patterns(self.key, spec, steps)
        name = f"labkit_check_{next(_numbers)}"
        database = self.client[name]
        answers = self._answers()
        try:
            return load_and_read(database, spec, steps, server_errors=self._server_errors(),
                                 arguments=_without_neutral,
                                 is_answer=lambda exc: isinstance(exc, answers))
        finally:
            self.client.drop_database(name)


def _refuse_unbounded_patterns(engine: str, spec: ClaimSpec, steps: list[Step]) -> None:
    """NotSupported where a pattern of the reads backtracks past PCRE2's match limit on a
    string of the fixture: the fakes match with Python's ``re``, which has no such limit, and
    would not finish (``(a+)+$`` on thirty ``a``s and a ``b``: hours)."""
    texts = {text for docs in spec.fixture.values() for doc in docs for text in _strings(doc)}
    texts |= {text for step in steps if step.writes for text in _strings(step.arguments)}
    for step in steps:
        for source, flags in _patterns(step.arguments):
            if any(regex.backtracks(source, flags, text) for text in texts):
                raise NotSupported(Message(N_(
                    "{engine} matches regular expressions with Python's re, which has no bound "
                    "on backtracking, and {pattern} backtracks past PCRE2's match limit on a "
                    "string of the fixture: {engine} would not finish"), engine=engine,
                    pattern=repr(source)))


def _patterns(value: Any) -> Iterator[tuple[str, str]]:
    """Every regular expression in a read's arguments, as (pattern, flags): ``$regex`` with its
    ``$options``, ``$regexMatch``'s ``regex``, and regex values (``/…/`` in a filter)."""
    if isinstance(value, dict):
        for key, options in (("$regex", "$options"), ("regex", "options")):
            if key in value:
                with contextlib.suppress(BadInput):  # a pattern no engine takes: they say so
                    yield regex.regex_source(value[key], value.get(options))
        for item in value.values():
            yield from _patterns(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _patterns(item)
    elif isinstance(value, Regex | re.Pattern):
        with contextlib.suppress(BadInput):
            yield regex.regex_source(value, None)


def _strings(value: Any) -> Iterator[str]:
    """Every string in a value, as a plain ``str``: bson's ``Code`` is a ``str`` that cannot be
    hashed, and made the set of them raise before any fake was asked (lesson 07's S1 showed
    "TypeError: unhashable type: 'Code'" as both fakes' crash)."""
    if isinstance(value, str):
        yield str.__str__(value)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


class MongomockEngine(_FakeEngine):
    """mongomock: pymongo's API over Python data structures, in this process."""

    key = "mongomock"
    name = called(key, FAKE)

    def __init__(self) -> None:
        self.version = version("mongomock")
        import mongomock

        # The server version mongomock reports; its runOnRequirements are judged by it.
        self.speaks_for = str(getattr(mongomock, "SERVER_VERSION", "") or "") or None

    def _client(self) -> Any:
        import mongomock

        return mongomock.MongoClient(tz_aware=True)

    def _server_errors(self) -> tuple[type, ...]:
        import mongomock
        from pymongo.errors import OperationFailure

        return (OperationFailure, mongomock.OperationFailure)


class MontydbEngine(_FakeEngine):
    """montydb: a MongoDB-like engine written in Python, here with its in-memory storage."""

    key = "montydb"
    name = called(key, FAKE)

    def __init__(self) -> None:
        self.version = version("montydb")
        self.speaks_for = str(self.client.server_info().get("mongoVersion") or "") or None

    def _client(self) -> Any:
        from montydb import MontyClient  # no types published (pyproject: ignored)

        global _monty
        if _monty is None:
            _monty = MontyClient(":memory:")
        return _monty

    def _server_errors(self) -> tuple[type, ...]:
        from montydb.errors import OperationFailure

        return (OperationFailure,)

    def _answers(self) -> tuple[type, ...]:
        """Besides pymongo's and bson's errors, montydb's own (its ``MontyError`` family
        stands for pymongo's)."""
        from montydb.errors import MontyError

        return (*super()._answers(), MontyError)


def engine(name: str) -> Engine:
    """The fake called ``name``; ``ServerUnavailable`` (not run) when it is not installed."""
    return {"mongomock": MongomockEngine, "montydb": MontydbEngine}[name]()
