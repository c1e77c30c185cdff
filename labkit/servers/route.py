"""The one route from any caller to a server: ``provide(kind, mode, version, cache_gb)``.

A run's context, ``labkit check``'s servers of each version, every command and a notebook's
kernel all come here, so a mode, a version and a cache size are checked here whatever a caller
checked before, and the cache's default lives in one place (``DEFAULT_CACHE_GB``).
"""

from __future__ import annotations

import atexit
import functools
import os
from collections.abc import Callable
from typing import Literal, TypedDict, overload

from labkit.errors import BadInput
from labkit.i18n import N_, Message, Text
from labkit.servers.base import Server, ServerRequest
from labkit.servers.mongo import MongoServer, from_uri, user_uris
from labkit.servers.postgres import PostgresServer

SERVERS: dict[str, type[MongoServer] | type[PostgresServer]] = {
    "mongodb": MongoServer, "postgres": PostgresServer}


@overload
def provide(kind: Literal["mongodb"], mode: str = ..., version: str | None = ...,
            cache_gb: float | None = ...) -> MongoServer: ...
@overload
def provide(kind: Literal["postgres"], mode: str = ..., version: str | None = ...,
            cache_gb: float | None = ...) -> PostgresServer: ...
@overload
def provide(kind: str, mode: str = ..., version: str | None = ...,
            cache_gb: float | None = ...) -> MongoServer | PostgresServer: ...
def provide(kind: str, mode: str = "auto", version: str | None = None,
            cache_gb: float | None = None) -> MongoServer | PostgresServer:
    """Find or start a server of ``kind`` (``mongodb`` or ``postgres``).

    ``mode`` picks one way (``auto`` tries them in order: the user's server named by an
    environment variable, local binaries, Docker); ``version`` pins the server version
    (Docker tags such as ``7.0``; a user's or local server must match it). A ``mongod``
    labkit starts gets a WiredTiger cache of ``cache_gb`` GB (default ``DEFAULT_CACHE_GB``,
    the smallest mongod accepts); a server found by URI keeps its own, which
    ``MongoServer.cache`` reports; a PostgreSQL labkit starts gets ``cache_gb`` of shared
    buffers, one found by DSN keeps its own. Bad values are refused before anything runs.
    """
    server = SERVERS.get(kind)
    if server is None:
        raise BadInput(Message(N_("unknown server kind {kind}; choose one of {known}"),
                               kind=repr(kind), known=", ".join(SERVERS)))
    return server.find_or_start(ServerRequest(mode, version, cache_gb))


def get_mongodb(mode: str = "auto", version: str | None = None,
                cache_gb: float | None = None) -> MongoServer:
    """Find or start a MongoDB server: the URI, then a local mongod, then Docker (``provide``)."""
    return provide("mongodb", mode, version, cache_gb)


def get_postgres(mode: str = "auto", version: str | None = None) -> PostgresServer:
    """Find or start a PostgreSQL server: the DSN, then local binaries, then Docker."""
    return provide("postgres", mode, version)


_session_mongodb: MongoServer | None = None


def mongodb(mode: str = "auto", version: str | None = None) -> MongoServer:
    """Return this process's MongoDB server, finding or starting it on first call.

    A notebook calls this once per kernel: it reuses ``LABKIT_MONGODB_URI`` when
    set, otherwise it starts a server (with the small default cache) that stops when
    the kernel exits.
    """
    global _session_mongodb
    if _session_mongodb is None:
        _session_mongodb = provide("mongodb", mode, version)
        atexit.register(_session_mongodb.stop)
    return _session_mongodb


class Cleaned(TypedDict):
    """One user's server after a clean-up, as ``labkit clean --json`` prints it."""

    engine: str
    server: str
    removed: list[str]
    in_use: list[str]
    unproven: dict[str, Text]
    skipped: dict[str, Text]


def clean_user_servers() -> list[Cleaned]:
    """Remove what killed labkit runs left on the user's servers (LABKIT_POSTGRES_DSN's, then
    LABKIT_MONGODB_URI's): per server, its engine, its description, the databases removed,
    those a live run holds, those left because labkit cannot prove it made them (with why), and
    labkit's stale ones this user may not drop (``skipped``, with what the server said).
    Servers labkit starts itself leave nothing behind."""
    report: list[Cleaned] = []
    for kind in (PostgresServer, MongoServer):
        if not os.environ.get(kind.user_variable):
            continue
        for start in _user_servers(kind):
            server: Server[object] = start()
            try:
                found, where = server.clean_stale(), server.describe()
            finally:
                server.stop()
            report.append({"engine": server.name, "server": where, "removed": found.removed,
                           "in_use": found.in_use, "unproven": found.unproven,
                           "skipped": found.skipped})
    return report


def _user_servers(kind: type[MongoServer] | type[PostgresServer]) -> list[
        Callable[[], Server[object]]]:
    """How to reach each server the user's variable names: LABKIT_MONGODB_URI may list several
    (one per version a matrix needs), each cleaned in its turn, where finding one of them, as
    a run does, cleaned the first alone."""
    if kind is MongoServer and len(uris := user_uris()) > 1:
        return [functools.partial(from_uri, uri) for uri in uris]
    return [functools.partial(kind.find_or_start, ServerRequest(kind.user_mode))]
