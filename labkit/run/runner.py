"""Runs claims live: the run's context (servers, B-tree loads), one guard per engine, verdicts."""

from __future__ import annotations

import contextlib
import datetime as dt
import html
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from labkit.claims.claim import (
    COUNT_TEXT,
    ERROR,
    FAILS,
    FINDING,
    HOLDS,
    NOT_RUN,
    SOURCES,
    VERDICTS,
    Claim,
    Observation,
    Unobservable,
    claim_verdict,
    count_text,
    errored,
    jsonable,
    needs,
    one_line,
    short_json,
    verdict_text,
)
from labkit.errors import BadInput, ServerUnavailable
from labkit.i18n import _

COLOURS = {HOLDS: "#1a7f37", FAILS: "#cf222e", FINDING: "#8250df", NOT_RUN: "#6e7781",
           ERROR: "#bc4c00"}


def btree_n_from_env() -> int:
    """Keys per kind for the B-tree claims: ``LABKIT_BTREE_N``, else ``btree.DEFAULT_N``."""
    from labkit.engines.btree import DEFAULT_N, check_n

    text = os.environ.get("LABKIT_BTREE_N", "").strip()
    if not text:
        return DEFAULT_N
    try:
        n = int(text)
    except ValueError as exc:
        raise BadInput(f"LABKIT_BTREE_N must be a whole number of keys, not {text!r}") from exc
    check_n(n, "LABKIT_BTREE_N")
    return n


class Context:
    """What one run shares: servers, started on first need and stopped at the end, and the
    B-tree loads, each made once and quoted by every table and verdict that needs it."""

    def __init__(self, mongodb_mode: str = "auto", mongodb_version: str | None = None,
                 mongodb_provider: Callable[[], Any] | None = None,
                 postgres_provider: Callable[[], Any] | None = None,
                 btree_n: int | None = None) -> None:
        self._mongodb_args = (mongodb_mode, mongodb_version)
        self._mongodb_provider = mongodb_provider
        self._postgres_provider = postgres_provider
        self._owned: list[Any] = []
        self._servers: dict[str, Any] = {}
        self._failures: dict[str, ServerUnavailable] = {}
        self._databases: list[tuple[Any, Any]] = []
        self._loads: dict[tuple, dict | BaseException] = {}
        self._claims: dict[str, ClaimResult] = {}
        # Called as (engine, key kind, n) before each new B-tree load: the long steps of a run.
        self.on_load: Callable[[str, str, int], None] | None = None
        self.btree_n = btree_n if btree_n is not None else btree_n_from_env()

    # Servers ------------------------------------------------------------------------------

    def _server(self, kind: str, start: Callable[[], Any], owned: bool):
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
        return self._servers[kind]

    def mongodb(self):
        """The run's MongoDB server (``servers.MongoServer``)."""
        from labkit import servers

        if self._mongodb_provider is not None:
            return self._server("mongodb", self._mongodb_provider, owned=False)
        return self._server("mongodb", lambda: servers.provide("mongodb", *self._mongodb_args),
                            owned=True)

    def postgres(self):
        """The run's PostgreSQL server (``servers.PostgresServer``)."""
        from labkit import servers

        if self._postgres_provider is not None:
            return self._server("postgres", self._postgres_provider, owned=False)
        return self._server("postgres", lambda: servers.provide("postgres"), owned=True)

    def mongodb_database(self, label: str):
        """A fresh database on the run's MongoDB server, dropped when the claim is done."""
        server = self.mongodb()
        database = server.fresh_database(label)
        self._databases.append((server, database.name))
        return database

    def unavailable(self, kind: str) -> ServerUnavailable | None:
        """Why ``kind`` cannot be had (the error), or None when it is running."""
        getter = {"mongodb": self.mongodb, "postgres": self.postgres}.get(kind)
        if getter is None:
            return None
        try:
            getter()
        except ServerUnavailable as exc:
            return exc
        return None

    def running(self, kind: str) -> tuple[str, str]:
        """``(engine, version)`` of a server this run already has, else ``(kind, "")``."""
        server = self._servers.get(kind)
        return (server.engine, server.version) if server is not None else (kind, "")

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

    def __exit__(self, *exc) -> None:
        self.close()

    def servers(self) -> list[Any]:
        """The servers this run has used so far."""
        return list(self._servers.values())

    def engines(self) -> list[str]:
        """One line per server this run used."""
        return [server.describe() for server in self._servers.values()]

    # Claims ------------------------------------------------------------------------------

    def claim_result(self, claim: Claim) -> ClaimResult:
        """``run_claim`` once per context: a lesson's exercises and its verdict card quote the
        same run of a claim (processes in one second give other IDs every run)."""
        kept = self._claims.get(claim.id)
        if kept is None or kept.claim is not claim:
            kept = self._claims[claim.id] = run_claim(claim, self)
        return kept

    # B-tree loads -------------------------------------------------------------------------

    def btree(self, engine: str, kinds: list[str], n: int | None = None, *,
              policy: str = "half", capacity: int = 64, cache_mb: int | None = None,
              progress=None) -> dict:
        """``btree.measure`` through the run's cache: each (engine, key kind, N, cache size,
        model settings) is loaded once per run, and every later caller gets the same numbers.
        The model always records its split count ``btree.MODEL_TRACE_POINTS`` times.

        Raises ``ServerUnavailable`` when the engine cannot be had, and re-raises a load's
        failure to every caller without loading again.
        """
        from labkit.engines import btree

        n = self.btree_n if n is None else n
        btree.check_request(engine, n, cache_mb)
        server = None
        if engine in ("postgres", "mongodb"):
            server = getattr(self, engine)()
        elif engine == "wiredtiger":
            btree.wiredtiger_module()  # a missing binding: not run, before a "loading" line
        trace_every = max(n // btree.MODEL_TRACE_POINTS, 1) if engine == "model" else 0
        settings = {"model": (policy, capacity),
                    "wiredtiger": (cache_mb or btree.WT_CACHE_MB,),
                    "mongodb": (getattr(server, "cache_gb", None),)}.get(engine, ())
        results = []
        for kind in kinds:
            key = (engine, kind, n, *settings)
            if key not in self._loads:
                if self.on_load:
                    self.on_load(engine, kind, n)
                try:
                    self._loads[key] = btree.measure(
                        engine, [kind], n, cache_mb=cache_mb, capacity=capacity, policy=policy,
                        trace_every=trace_every, server=server, progress=progress)
                except Exception as exc:
                    self._loads[key] = exc
            loaded = self._loads[key]
            if isinstance(loaded, BaseException):
                raise loaded
            results.append(loaded)
        first = results[0] if results else btree.measure(engine, [], n, server=server)
        return {**{k: v for k, v in first.items() if k != "results"},
                "results": [r["results"][0] for r in results]}

    def btree_compare(self, engines: list[str], kinds: list[str], n: int | None = None,
                      **options) -> dict[str, dict]:
        """Several engines from the run's cache: ``{engine: measurement}``. An engine that
        cannot be had is ``{"engine", "not_run": why}``; one that failed, ``{"engine", "error"}``.
        """
        out = {}
        for engine in engines:
            try:
                out[engine] = self.btree(engine, kinds, n, **options)
            except ServerUnavailable as exc:
                out[engine] = {"engine": engine, "not_run": exc.summary()}
            except BadInput:
                raise
            except Exception as exc:  # one engine's failure is that engine's alone
                out[engine] = {"engine": engine, "error": one_line(exc)}
        return out


@dataclass
class Result:
    """One engine's verdict on a claim: the observation behind it and why, where it matters."""

    claim: Claim
    verdict: str
    observation: Observation | None = None
    reason: str = ""
    seconds: float = 0.0

    @property
    def engine(self) -> str | None:
        """The engine that produced the observation (None when no engine was reached)."""
        return (self.observation.engine or None) if self.observation else None

    @property
    def engine_version(self) -> str | None:
        """The exact version of that engine."""
        return self.observation.engine_version if self.observation else None

    @property
    def shows_observation(self) -> bool:
        """True when there is an observation to compare with the expectation."""
        return self.verdict in (HOLDS, FAILS, FINDING)

    def to_dict(self) -> dict:
        """The row as ``results.json`` stores it, under its claim."""
        obs = self.observation
        return {
            "verdict": self.verdict,
            "engine": self.engine,
            "engine_version": self.engine_version,
            "observed": jsonable(obs.observed) if obs and self.shows_observation else None,
            "reason": self.reason,
            "missing": obs.missing if obs else "",
            "missing_detail": obs.missing_detail if obs else "",
            "hint": obs.hint if obs else "",
            "evidence": jsonable(obs.evidence) if obs else [],
            "seconds": round(self.seconds, 3),
        }

    def __str__(self) -> str:
        where = " " + _("on {engine}").format(
            engine=f"{self.engine} {self.engine_version or ''}".strip()) if self.engine else ""
        line = f"{self.claim.id} {verdict_text(self.verdict)}{where}: {self.claim.title}"
        if self.shows_observation:
            line += (f"\n  {_('expected:')} {short_json(self.claim.expected)}"
                     f"\n  {_('observed:')} {short_json(self.observation.observed)}")
        if self.reason:
            line += f"\n  {self.reason}"
        return line

    def _repr_html_(self) -> str:
        rows = [f"<b style='color:{COLOURS[self.verdict]}'>{self.claim.id} "
                f"{verdict_text(self.verdict)}</b> &mdash; {html.escape(self.claim.title)}"]
        if self.engine:
            rows.append(f"{_('engine:')} {html.escape(self.engine)} "
                        f"{html.escape(self.engine_version or '')}")
        if self.shows_observation:
            rows.append(f"{_('expected:')} "
                        f"<code>{html.escape(short_json(self.claim.expected))}</code>")
            rows.append(f"{_('observed:')} <code>"
                        f"{html.escape(short_json(self.observation.observed))}</code>")
        if self.reason:
            rows.append(html.escape(self.reason))
        return "<div>" + "<br>".join(rows) + "</div>"


@dataclass
class ClaimResult:
    """A claim's verdict, summed up from its rows (one per engine it was judged on)."""

    claim: Claim
    rows: list[Result] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """error, does not hold, finding, holds, or not run: the worst row decides."""
        return claim_verdict(self.claim.kind, [row.verdict for row in self.rows])

    def to_dict(self) -> dict:
        """The claim and its rows as ``results.json`` stores them."""
        from labkit.experiments.catalogue import lesson_of

        return {
            "id": self.claim.id,
            "title": self.claim.title,
            "topic": self.claim.topic,
            "kind": self.claim.kind,
            "source": SOURCES.get(self.claim.source, self.claim.source),
            "experiment": self.claim.experiment_name,
            "lesson": lesson_of(self.claim),
            "verdict": self.verdict,
            "expected": jsonable(self.claim.expected),
            "results": [row.to_dict() for row in self.rows],
        }


def _row(claim: Claim, observation: Observation, seconds: float) -> Result:
    """Judge one observation inside the guard: the judge's failure is this engine's alone."""
    if observation.error:
        return Result(claim, ERROR, observation, observation.error, seconds)
    if observation.not_run:
        return Result(claim, NOT_RUN, observation, observation.not_run, seconds)
    try:
        verdict, note = claim.verdict_for(observation)
    except Unobservable as exc:
        return Result(claim, NOT_RUN, observation, str(exc), seconds)
    except Exception as exc:  # a judge that crashes costs this engine's verdict, nothing more
        return Result(claim, ERROR, observation, f"judging failed: {one_line(exc)}", seconds)
    reason = "; ".join(part for part in (observation.note, note) if part)
    return Result(claim, verdict, observation, reason, seconds)


def run_claim(claim: Claim, ctx: Context) -> ClaimResult:
    """Run one claim's experiment live and judge every observation it returns."""
    started = time.perf_counter()
    for kind in claim.needs:
        missing = ctx.unavailable(kind)
        if missing is not None:
            cause = needs(kind, missing)
            return ClaimResult(claim, [Result(claim, NOT_RUN, cause, cause.not_run)])
    try:
        try:
            outcome = claim.experiment(ctx)
        finally:
            ctx.release_databases()
    except Exception as exc:  # an experiment's crash is reported, and the run goes on
        engine, version = ctx.running(claim.needs[0]) if claim.needs else ("", "")
        return ClaimResult(claim, [Result(claim, ERROR, errored(engine, exc, version),
                                          one_line(exc), time.perf_counter() - started)])
    elapsed = time.perf_counter() - started
    observations = outcome if isinstance(outcome, list) else [outcome]
    return ClaimResult(claim, [_row(claim, obs, elapsed) for obs in observations])


@dataclass
class Run:
    """The results of one ``labkit run``, with when and where it ran."""

    claims: list[ClaimResult]
    started: dt.datetime
    finished: dt.datetime
    engines: list[str]

    @property
    def rows(self) -> list[Result]:
        """Every engine's verdict, claim after claim."""
        return [row for result in self.claims for row in result.rows]

    def counts(self) -> dict[str, int]:
        """How many claims got each verdict (claims, not rows)."""
        counts = dict.fromkeys(VERDICTS, 0)
        for result in self.claims:
            counts[result.verdict] += 1
        return counts

    def summary(self, english: bool = False) -> str:
        """``31 claims: 14 hold, 0 do not hold, 3 findings, 13 not run, 0 error``, in the
        learner's words (``english``: as ``results.json`` keeps it)."""
        counts = self.counts()
        if english:
            parts = ", ".join(f"{counts[v]} {COUNT_TEXT[v]}" for v in VERDICTS)
            return f"{len(self.claims)} claims: {parts}"
        parts = ", ".join(f"{counts[v]} {count_text(v)}" for v in VERDICTS)
        return _("{n} claims: {counts}").format(n=len(self.claims), counts=parts)

    def exit_status(self, strict: bool = False) -> int:
        """0 when every behaviour claim that ran holds and nothing erred; findings never count.

        ``strict`` also fails when a claim did not run.
        """
        counts = self.counts()
        bad = counts[FAILS] + counts[ERROR] + (counts[NOT_RUN] if strict else 0)
        return 1 if bad else 0

    def to_dict(self) -> dict:
        """The whole run as ``results.json`` stores it."""
        import platform

        from labkit._version import __version__

        return {
            "labkit_version": __version__,
            "python": platform.python_version(),
            "started": self.started.isoformat(timespec="seconds"),
            "finished": self.finished.isoformat(timespec="seconds"),
            "engines": self.engines,
            "summary": self.summary(english=True),
            "counts": {COUNT_TEXT[v]: n for v, n in self.counts().items()},
            "claims": [result.to_dict() for result in self.claims],
        }


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
