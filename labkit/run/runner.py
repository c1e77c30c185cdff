"""Runs claims live: the run's context (servers, B-tree loads) and the loop over claims. What a
run writes to disk is recorded in ``run.made``."""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import os
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from labkit import servers
from labkit._defaults import CHECKPOINT_EVERY
from labkit.claims.claim import BTreeContext, Claim, Observation, needs
from labkit.engines import btree
from labkit.engines.btree_engine import (
    DEFAULT_N,
    LoadResult,
    Measurement,
    NotMeasured,
    Settings,
    add_ratios,
    check_n,
    ticks,
)
from labkit.engines.btree_model import MODEL_TRACE_POINTS
from labkit.errors import BadInput, ServerUnavailable
from labkit.i18n import N_, Message, Text, joined
from labkit.names import EngineInfo
from labkit.run.guard import guarded, judge
from labkit.run.results import ClaimResult, Run

if TYPE_CHECKING:
    from pymongo.database import Database

    from labkit.model.bson_order import Document
    from labkit.servers import MongoServer, PostgresServer, Server

T = TypeVar("T")
S = TypeVar("S", bound="Server[Any]")
# Called as (engine, key kind, n) before each new B-tree load: the long steps of a run.
OnLoad = Callable[[str, str, int], None]


def btree_n_from_env() -> int:
    """Keys per kind for the B-tree claims: ``LABKIT_BTREE_N``, else ``DEFAULT_N``."""
    text = os.environ.get("LABKIT_BTREE_N", "").strip()
    if not text:
        return DEFAULT_N
    try:
        n = int(text)
    except ValueError as exc:
        raise BadInput(Message(N_("LABKIT_BTREE_N must be a whole number of keys, not {text}"),
                               text=repr(text))) from exc
    check_n(n, "LABKIT_BTREE_N")
    return n


class Context(BTreeContext[Measurement]):
    """What one run shares: servers, started on first need and stopped at the end, and the
    B-tree loads, each made once and quoted by every table and verdict that needs it. It is
    the context every experiment observes in (``claims.claim.Context``, ``BTreeContext``).

    ``mongodb_provider`` and ``postgres_provider`` give a server instead of
    ``servers.provide`` (one labkit does not stop); ``btree_n`` is the keys per kind of the
    B-tree loads (``LABKIT_BTREE_N`` unless given); ``on_load`` is called as ``(engine, key
    kind, n)`` before each new B-tree load, the long steps of a run.
    """

    btree_n: int  # keys per kind in the run's B-tree loads

    def __init__(self, mongodb_mode: str = "auto", mongodb_version: str | None = None,
                 mongodb_provider: Callable[[], MongoServer] | None = None,
                 postgres_provider: Callable[[], PostgresServer] | None = None,
                 btree_n: int | None = None, on_load: OnLoad | None = None) -> None:
        self._mongodb_args = (mongodb_mode, mongodb_version)
        self._mongodb_provider = mongodb_provider
        self._postgres_provider = postgres_provider
        self._owned: list[Server[Any]] = []
        self._servers: dict[str, Server[Any]] = {}
        self._failures: dict[str, ServerUnavailable] = {}
        self._databases: list[tuple[Server[Any], str]] = []
        self._loads: dict[tuple[object, ...], LoadResult | BaseException] = {}
        self._claims: dict[str, ClaimResult] = {}
        self.on_load = on_load
        self.btree_n = btree_n if btree_n is not None else btree_n_from_env()

    # Servers ------------------------------------------------------------------------------

    def _server(self, kind: str, start: Callable[[], S], owned: bool) -> S:
        if kind in self._failures:
            raise self._failures[kind]
        if kind not in self._servers:
            try:
                self._servers[kind] = start()
            except ServerUnavailable as exc:
                self._failures[kind] = exc
                raise
            if owned:
                self._owned.append(self._servers[kind])
        # What ``start`` made for this kind, the first time it was asked for.
        return cast("S", self._servers[kind])

    def mongodb(self) -> MongoServer:
        """The run's MongoDB server (``servers.MongoServer``)."""
        if self._mongodb_provider is not None:
            return self._server("mongodb", self._mongodb_provider, owned=False)
        return self._server("mongodb", lambda: servers.provide("mongodb", *self._mongodb_args),
                            owned=True)

    def postgres(self) -> PostgresServer:
        """The run's PostgreSQL server (``servers.PostgresServer``)."""
        if self._postgres_provider is not None:
            return self._server("postgres", self._postgres_provider, owned=False)
        return self._server("postgres", lambda: servers.provide("postgres"), owned=True)

    def mongodb_database(self, label: str) -> Database[Document]:
        """A fresh database on the run's MongoDB server, dropped when the claim is done."""
        server = self.mongodb()
        database = server.fresh_database(label)
        self._databases.append((server, database.name))
        return database

    def unavailable(self, kind: str) -> ServerUnavailable | None:
        """Why ``kind`` cannot be had (the error), or None when it is running."""
        getters: dict[str, Callable[[], object]] = {"mongodb": self.mongodb,
                                                    "postgres": self.postgres}
        getter = getters.get(kind)
        if getter is None:
            return None
        try:
            getter()
        except ServerUnavailable as exc:
            return exc
        return None

    def still_there(self, kind: str, failure: BaseException) -> None:
        """After ``failure`` cost a claim, ask the run's ``kind`` server whether it is gone
        (``Server.gone``); where it is, every later claim that needs it is not run, with why,
        at once, instead of each waiting out the driver's server selection."""
        server = self._servers.get(kind)
        gone = server.gone(failure) if server is not None else None
        if gone is not None:
            self._failures[kind] = gone

    def running(self, kind: str) -> tuple[str, str]:
        """``(engine, version)`` of a server this run already has, else ``(kind, "")``."""
        server = self._servers.get(kind)
        return (server.name, server.version) if server is not None else (kind, "")

    def release_databases(self) -> None:
        """Drop the databases the claims made on servers labkit does not own."""
        while self._databases:
            server, name = self._databases.pop()
            server.drop(name)

    def close(self) -> None:
        """Drop every database this run created and stop the servers it started."""
        try:
            self.release_databases()
        finally:
            while self._owned:
                self._owned.pop().stop()

    def __enter__(self) -> Context:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def servers(self) -> list[Server[Any]]:
        """The servers this run has used so far."""
        return list(self._servers.values())

    def engines(self) -> list[EngineInfo]:
        """Each server this run used, as it records itself (``Server.info``)."""
        return [server.info() for server in self._servers.values()]

    # Claims ------------------------------------------------------------------------------

    def guard(self, engine: Text, attempt: Callable[[], T], *, version: str = "",
              kind: str = "", key: str = "") -> T | Observation:
        """``guard.guarded`` for an experiment that observes several engines: one engine's
        failure is that engine's row (an error, or not run where ``kind`` cannot be had), which
        keeps the engine's ``key``."""
        return guarded(engine, attempt, version=version, kind=kind, key=key)

    def claim_result(self, claim: Claim) -> ClaimResult:
        """``run_claim`` once per context: a lesson's exercises and its verdict card quote the
        same run of a claim (processes in one second give other IDs every run)."""
        kept = self._claims.get(claim.id)
        if kept is None or kept.claim is not claim:
            kept = self._claims[claim.id] = run_claim(claim, self)
        return kept

    # B-tree loads -------------------------------------------------------------------------

    def _server_for(self, kind: str) -> Server[Any]:
        """The run's server of ``kind`` (``postgres`` or ``mongodb``)."""
        return self.mongodb() if kind == "mongodb" else self.postgres()

    def btree_load(self, engine: str, kinds: Sequence[str], n: int | None = None, *,
                   policy: str = "half", capacity: int = 64, cache_mb: int | None = None,
                   progress: Callable[[str, int], None] | None = None,
                   checkpoint_every: int | None = CHECKPOINT_EVERY) -> Measurement:
        """Every key kind loaded into ``engine`` through the run's cache: each (engine, key
        kind, N and what else sets two loads apart: ``BTreeEngine.load_key``) is loaded once
        per run, and every later caller gets the same loads. The model always records its
        split count ``MODEL_TRACE_POINTS`` times.

        Real engines meet a checkpoint every ``checkpoint_every`` keys (None: only before and
        after the load).

        Raises ``ServerUnavailable`` when the engine cannot be had, and re-raises a load's
        failure to every caller without loading again.
        """
        n = self.btree_n if n is None else n
        chosen = btree.engine(engine)
        settings = Settings(cache_mb=cache_mb, checkpoint_every=checkpoint_every,
                            capacity=capacity, policy=policy,
                            trace_every=max(n // MODEL_TRACE_POINTS, 1))
        chosen.validate(n, settings)
        server = self._server_for(chosen.server) if chosen.server else None
        chosen.ready()  # a missing binding: not run, before a "loading" line
        loads: list[LoadResult] = []
        for kind in kinds:
            key = (chosen.key, kind, n, *chosen.load_key(settings, server))
            if key not in self._loads:
                if self.on_load:
                    self.on_load(chosen.key, kind, n)
                try:
                    made = chosen.load(kind, n, settings, server, ticks(progress, kind))
                except Exception as exc:
                    self._loads[key] = exc
                else:
                    # Rated alone as it is made, then beside the kinds each caller asks for:
                    # the ratios to the sequential kinds keep the order they were found in.
                    add_ratios([made])
                    self._loads[key] = made
            loaded = self._loads[key]
            if isinstance(loaded, BaseException):
                raise loaded
            loads.append(loaded)
        return chosen.measured(n, settings, server, loads)

    def btree_comparison(self, engines: Sequence[str], kinds: Sequence[str],
                         n: int | None = None, **options: Any
                         ) -> dict[str, Measurement | NotMeasured]:
        """Several engines from the run's cache: ``{engine: measurement}``. An engine that
        cannot be had is ``NotMeasured`` with why it was not run; one that failed, with its
        error."""
        out: dict[str, Measurement | NotMeasured] = {}
        for engine in engines:
            measured = guarded(engine, functools.partial(self.btree_load, engine, kinds, n,
                                                         **options),
                               kind=engine, key=engine, passes=(BadInput,))
            if not isinstance(measured, Observation):
                out[engine] = measured
            elif measured.error:
                out[engine] = NotMeasured(engine, error=measured.error)
            else:  # what failed and the hint, as the server's error says them
                out[engine] = NotMeasured(engine, not_run=joined(
                    " ", (measured.missing_detail, measured.hint)))
        return out


def first_missing(ctx: Context, kinds: Sequence[str]) -> tuple[str, ServerUnavailable] | None:
    """The first of ``kinds`` (a claim's ``needs``) that ``ctx`` cannot have, and why; None
    when every one is running. The one place that walks a claim's needs."""
    for kind in kinds:
        why = ctx.unavailable(kind)
        if why is not None:
            return kind, why
    return None


def run_claim(claim: Claim, ctx: Context) -> ClaimResult:
    """Run one claim's experiment live and judge every observation it returns."""
    missing = first_missing(ctx, claim.needs)
    if missing is not None:
        return ClaimResult(claim, [judge(claim, needs(*missing))])
    key = claim.needs[0] if claim.needs else ""  # the engine a failure of the whole claim is on
    engine, version = ctx.running(key) if key else ("", "")

    def experiment() -> Observation | list[Observation]:
        try:
            return claim.experiment(ctx)
        except Exception as exc:
            for kind in claim.needs:
                ctx.still_there(kind, exc)
            raise
        finally:
            ctx.release_databases()

    started = time.perf_counter()
    outcome = guarded(engine, experiment, version=version, key=key)
    elapsed = time.perf_counter() - started
    observations = outcome if isinstance(outcome, list) else [outcome]
    return ClaimResult(claim, [judge(claim, obs, elapsed) for obs in observations])


def run(claims: list[Claim], ctx: Context,
        progress: Callable[[int, int, Claim | None], None] | None = None) -> Run:
    """Run the given claims in order against the context's servers."""
    started = dt.datetime.now(dt.UTC)
    results: list[ClaimResult] = []
    for index, item in enumerate(claims):
        if progress:
            progress(index, len(claims), item)
        results.append(run_claim(item, ctx))
    if progress:
        progress(len(claims), len(claims), None)
    with contextlib.suppress(Exception):
        ctx.release_databases()
    return Run(results, started, dt.datetime.now(dt.UTC), ctx.engines())
