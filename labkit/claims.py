"""The claims registry and runner: each claim's experiment runs live and gets a verdict.

A claim is registered once, with the experiment function that observes it; the
command line, the notebooks and the tests all call that same function.
"""

from __future__ import annotations

import atexit
import datetime as dt
import html
import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import ClaimFailed, LabkitError, ServerUnavailable, UnknownClaim

HOLDS, FAILS, NOT_RUN, ERROR = "holds", "fails", "not-run", "error"
VERDICT_TEXT = {HOLDS: "holds", FAILS: "does not hold", NOT_RUN: "not run", ERROR: "error"}
TOPICS = ("dates", "sort-order", "bracketing", "objectid", "btree")
SOURCES = {
    "000": "000_bdc55fbfedc17ec7.txt (ObjectId generator page)",
    "002": "002_b087e3843ef37896.txt (BSON & ObjectId, part 2/3)",
    "003": "003_d044462534279811.txt (UUIDv7 vs UUIDv4 as a B-tree key)",
    "manual": "MongoDB manual and server test suite",
}


@dataclass
class Observation:
    """What an experiment saw, and which engine (with its exact version) showed it."""

    observed: Any
    engine: str
    engine_version: str
    evidence: list[dict] = field(default_factory=list)
    note: str = ""
    figure: Callable[[], Any] | None = None
    not_run: str = ""


def not_run(engine: str, reason: str) -> Observation:
    """An engine this claim is judged on could not be had: reported as not run, with why."""
    return Observation(None, engine, "", not_run=reason)


@dataclass(frozen=True)
class Claim:
    """A documented claim: where it comes from, what it expects, and how to observe it."""

    id: str
    title: str
    source: str
    topic: str
    expected: Any
    experiment: Callable[[Context], Observation | list[Observation]]
    needs: tuple[str, ...] = ()
    judge: Callable[[Any, Any], bool | tuple[bool, str]] | None = None

    def verdict_for(self, observation: Observation) -> tuple[str, str]:
        """Judge one observation: ``(verdict, note)``."""
        outcome = (self.judge or _equal)(self.expected, observation.observed)
        agreed, note = outcome if isinstance(outcome, tuple) else (outcome, "")
        return (HOLDS if agreed else FAILS), note


def _equal(expected: Any, observed: Any) -> bool:
    return expected == observed


def retry_until(attempt: Callable[[], Any], done: Callable[[Any], bool], limit: int = 12):
    """Call ``attempt`` until ``done(result)``, at most ``limit`` times: ``(result, tries)``.

    For experiments that need a coincidence (two processes in one second).
    """
    tries = 0
    while True:
        tries += 1
        result = attempt()
        if done(result) or tries >= limit:
            return result, tries


def subset_of_observed(expected: dict, observed: dict) -> tuple[bool, str]:
    """Judge: every expected key is observed with the same value (extra observations are fine)."""
    wrong = [key for key in expected if jsonable(observed.get(key)) != jsonable(expected[key])]
    return not wrong, (f"differs in: {', '.join(wrong)}" if wrong else "")


REGISTRY: dict[str, Claim] = {}


def claim(id: str, *, title: str, source: str, topic: str, expected: Any,
          needs: Iterable[str] = (), judge=None):
    """Register the decorated function as the experiment of claim ``id``."""
    if topic not in TOPICS:
        raise ValueError(f"unknown topic {topic!r}")
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}")

    def register(experiment):
        if id in REGISTRY:
            raise ValueError(f"claim {id} is registered twice")
        REGISTRY[id] = Claim(id=id, title=title, source=source, topic=topic, expected=expected,
                             experiment=experiment, needs=tuple(needs), judge=judge)
        return experiment

    return register


def _order(claim_id: str) -> tuple[int, int]:
    return ("DSBOUX".index(claim_id[0]), int(claim_id[1:]))


def registered() -> list[Claim]:
    """Every registered claim, in the order of CLAIMS.md."""
    from . import experiments  # noqa: F401  (importing registers the claims)

    return [REGISTRY[key] for key in sorted(REGISTRY, key=_order)]


def get(claim_id: str) -> Claim:
    """Return one registered claim, or raise ``UnknownClaim`` naming the known IDs."""
    claims = {c.id: c for c in registered()}
    key = claim_id.strip().upper()
    if key not in claims:
        raise UnknownClaim(f"no claim {claim_id!r}; known: {', '.join(claims)}")
    return claims[key]


class Context:
    """The servers one run shares; each is started on first need and stopped at the end."""

    def __init__(self, mongodb_mode: str = "auto", mongodb_version: str | None = None,
                 mongodb_provider: Callable[[], Any] | None = None) -> None:
        self._mongodb_args = (mongodb_mode, mongodb_version)
        self._mongodb_provider = mongodb_provider
        self._owned: list[Any] = []
        self._servers: dict[str, Any] = {}
        self._failures: dict[str, ServerUnavailable] = {}
        self._databases: list[tuple[Any, Any]] = []
        self._memo: dict[Any, Any] = {}
        self.btree_n = int(os.environ.get("LABKIT_BTREE_N", "200000"))

    def memo(self, key: Any, compute: Callable[[], Any]) -> Any:
        """Compute once per run and reuse: several claims judge the same measurements."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

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
        from . import servers

        if self._mongodb_provider is not None:
            return self._server("mongodb", self._mongodb_provider, owned=False)
        return self._server("mongodb", lambda: servers.get_mongodb(*self._mongodb_args),
                            owned=True)

    def postgres(self):
        """The run's PostgreSQL server (``servers.PostgresServer``)."""
        from . import servers

        return self._server("postgres", servers.get_postgres, owned=True)

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

    def engines(self) -> list[str]:
        """One line per server this run used."""
        return [server.describe() for server in self._servers.values()]


@dataclass
class Result:
    """One verdict: a claim, the observation behind it, and how it compares to the expectation."""

    claim: Claim
    verdict: str
    observation: Observation | None = None
    reason: str = ""
    seconds: float = 0.0

    @property
    def engine(self) -> str | None:
        """The engine that produced the observation."""
        return self.observation.engine if self.observation else None

    @property
    def engine_version(self) -> str | None:
        """The exact version of that engine."""
        return self.observation.engine_version if self.observation else None

    def to_dict(self) -> dict:
        """The result as ``results.json`` stores it."""
        obs = self.observation
        return {
            "id": self.claim.id,
            "title": self.claim.title,
            "topic": self.claim.topic,
            "source": SOURCES[self.claim.source],
            "verdict": self.verdict,
            "expected": jsonable(self.claim.expected),
            "observed": jsonable(obs.observed) if obs else None,
            "engine": self.engine,
            "engine_version": self.engine_version,
            "reason": self.reason,
            "evidence": jsonable(obs.evidence) if obs else [],
            "seconds": round(self.seconds, 3),
        }

    def __str__(self) -> str:
        where = f" on {self.engine} {self.engine_version}".rstrip() if self.observation else ""
        line = f"{self.claim.id} {VERDICT_TEXT[self.verdict]}{where}: {self.claim.title}"
        if self.observation and not self.observation.not_run:
            line += (f"\n  expected: {short_json(self.claim.expected)}"
                     f"\n  observed: {short_json(self.observation.observed)}")
        if self.reason:
            line += f"\n  {self.reason}"
        return line

    def _repr_html_(self) -> str:
        colour = {HOLDS: "#1a7f37", FAILS: "#cf222e", NOT_RUN: "#6e7781", ERROR: "#bc4c00"}
        rows = [f"<b style='color:{colour[self.verdict]}'>{self.claim.id} "
                f"{VERDICT_TEXT[self.verdict]}</b> &mdash; {html.escape(self.claim.title)}"]
        if self.observation and not self.observation.not_run:
            rows.append(f"engine: {html.escape(self.engine)} {html.escape(self.engine_version)}")
            rows.append(f"expected: <code>{html.escape(short_json(self.claim.expected))}</code>")
            rows.append(f"observed: <code>"
                        f"{html.escape(short_json(self.observation.observed))}</code>")
        if self.reason:
            rows.append(html.escape(self.reason))
        return "<div>" + "<br>".join(rows) + "</div>"


def jsonable(value: Any) -> Any:
    """Convert a value into plain JSON types (BSON values become relaxed Extended JSON)."""
    return json.loads(json.dumps(value, default=_json_default))


def _json_default(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        from .objectid import iso_z

        return iso_z(value)
    if isinstance(value, set | frozenset | tuple):
        return sorted(value, key=str)
    if isinstance(value, bytes):
        return value.hex()
    try:
        from bson import json_util

        return json.loads(json_util.dumps(value, json_options=json_util.RELAXED_JSON_OPTIONS))
    except Exception:
        return str(value)


def short_json(value: Any, limit: int = 160) -> str:
    """Compact JSON for a table cell, shortened with an ellipsis."""
    text = json.dumps(jsonable(value), ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def run_claim(claim: Claim, ctx: Context) -> list[Result]:
    """Run one claim's experiment live and judge every observation it returns."""
    started = time.perf_counter()
    for kind in claim.needs:
        missing = ctx.unavailable(kind)
        if missing is not None:
            return [Result(claim, NOT_RUN, reason=f"needs {kind}: {missing.summary()}")]
    try:
        outcome = claim.experiment(ctx)
    except LabkitError as exc:
        return [Result(claim, ERROR, reason=_one_line(exc),
                       seconds=time.perf_counter() - started)]
    except Exception as exc:  # an experiment's crash is reported, not raised, so the run goes on
        return [Result(claim, ERROR, reason=f"{type(exc).__name__}: {_one_line(exc)}",
                       seconds=time.perf_counter() - started)]
    finally:
        ctx.release_databases()
    elapsed = time.perf_counter() - started
    observations = outcome if isinstance(outcome, list) else [outcome]
    results = []
    for observation in observations:
        if observation.not_run:
            results.append(Result(claim, NOT_RUN, observation, observation.not_run, elapsed))
            continue
        verdict, note = claim.verdict_for(observation)
        reason = "; ".join(part for part in (observation.note, note) if part)
        results.append(Result(claim, verdict, observation, reason, elapsed))
    return results


@dataclass
class Run:
    """The results of one ``labkit run``, with when and where it ran."""

    results: list[Result]
    started: dt.datetime
    finished: dt.datetime
    engines: list[str]

    def counts(self) -> dict[str, int]:
        """How many results got each verdict."""
        counts = {HOLDS: 0, FAILS: 0, NOT_RUN: 0, ERROR: 0}
        for result in self.results:
            counts[result.verdict] += 1
        return counts

    def exit_status(self, strict: bool = False) -> int:
        """0 when every claim that ran agreed; 1 otherwise (and for not-run under ``strict``)."""
        counts = self.counts()
        bad = counts[FAILS] + counts[ERROR] + (counts[NOT_RUN] if strict else 0)
        return 1 if bad else 0

    def to_dict(self) -> dict:
        """The whole run as ``results.json`` stores it."""
        import platform

        from . import __version__

        return {
            "labkit_version": __version__,
            "python": platform.python_version(),
            "started": self.started.isoformat(timespec="seconds"),
            "finished": self.finished.isoformat(timespec="seconds"),
            "engines": self.engines,
            "counts": self.counts(),
            "claims": [result.to_dict() for result in self.results],
        }


def select(ids: Iterable[str] | None = None, topics: Iterable[str] | None = None) -> list[Claim]:
    """The claims to run: all, or those with the given IDs or topics."""
    claims = registered()
    if topics:
        topics = [t.strip() for t in topics]
        unknown = [t for t in topics if t not in TOPICS]
        if unknown:
            raise UnknownClaim(f"unknown topic {unknown[0]!r}; known: {', '.join(TOPICS)}")
        claims = [c for c in claims if c.topic in topics]
    if ids:
        wanted = [get(i).id for i in ids]
        claims = [c for c in claims if c.id in wanted]
    return claims


def run(claims: list[Claim], ctx: Context,
        progress: Callable[[int, int, Claim], None] | None = None) -> Run:
    """Run the given claims in order against the context's servers."""
    started = dt.datetime.now(dt.UTC)
    results: list[Result] = []
    for index, item in enumerate(claims):
        if progress:
            progress(index, len(claims), item)
        results.extend(run_claim(item, ctx))
    if progress:
        progress(len(claims), len(claims), None)
    return Run(results, started, dt.datetime.now(dt.UTC), ctx.engines())


class Checked(list):
    """The results of ``check``: shown as a small verdict card in a notebook."""

    def _repr_html_(self) -> str:
        return "".join(result._repr_html_() for result in self)

    def __str__(self) -> str:
        return "\n".join(str(result) for result in self)

    __repr__ = __str__


_session: Context | None = None


def session() -> Context:
    """The kernel's shared context: one MongoDB (``labkit.mongodb()``) and one memo for all checks.

    Set ``session().btree_n`` to size the B-tree loads the claims make.
    """
    global _session
    if _session is None:
        from . import servers

        _session = Context(mongodb_provider=servers.mongodb)
        atexit.register(_session.close)
    return _session


def check(claim_id: str, ctx: Context | None = None,
          raise_on: tuple[str, ...] = (FAILS, ERROR)) -> Checked:
    """Run one claim live (in a notebook: on the kernel's servers) and return its verdicts.

    Raises ``ClaimFailed`` when a verdict is in ``raise_on`` (by default: does not
    hold, or error) and ``ServerUnavailable`` when the claim needs a server that
    cannot be had, so a notebook stops at the first surprise. Claims judged per
    engine, where "does not hold" is the finding, pass ``raise_on=("error",)``.
    """
    item = get(claim_id)
    ctx = ctx or session()
    for kind in item.needs:
        missing = ctx.unavailable(kind)
        if missing is not None:
            raise missing
    results = Checked(run_claim(item, ctx))
    bad = [r for r in results if r.verdict in raise_on]
    if bad:
        raise ClaimFailed("\n".join(str(r) for r in bad))
    return results
