"""What every B-tree engine shares: the engine a load runs on (``BTreeEngine``, each engine's
module has one), the settings a load is made with, the checkpoints it meets, and what it
reports as typed records: one key kind's load (``LoadResult``, subclassed by each engine), what
it wrote and read (``LoadIO``), why a figure is missing (``Reasons``), and one engine's loads
together (``Measurement``).

A record's ``to_dict()`` is the dictionary results.json and ``labkit btree --json`` write: the
same keys, in the same order, with the same values as these loads have always written. An
engine's keys and their order are its record's own (``_figures``).
"""

from __future__ import annotations

import dataclasses
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from labkit import _defaults
from labkit.errors import BadInput, Unobservable
from labkit.i18n import N_, Message, Text
from labkit.names import engine_name
from labkit.servers import MAX_CACHE_GB

# Keys per kind for the claims, the lesson and ``labkit run`` (LABKIT_BTREE_N, --btree-n).
DEFAULT_N = _defaults.BTREE_N
MAX_N = 100_000_000  # a bound on a single load; the model holds every key in memory
# The kinds whose keys arrive in order: each load's write volume is rated against them.
SEQUENTIAL = ("uuid7", "objectid", "int")
# Told the number of keys loaded since it was last told.
Progress = Callable[[int], None]


# The per-page and per-batch lists a summary leaves out (tables, JSON, a claim's evidence).
LONG = ("leaf_fills", "splits_trace", "trace_every", "inserts_per_second_by_batch")


@dataclass(frozen=True)
class Reasons:
    """Why a figure is missing (``*_why``) or cannot be told from other clients' work
    (``*_disturbed``): English as files keep it, a ``Message`` where labkit wrote it, so that
    it is shown in the learner's language; None where there is nothing to say."""

    write_bytes_why: Text | None = None
    write_disturbed: Text | None = None
    cache_reads_why: Text | None = None
    cache_reads_disturbed: Text | None = None
    index_bytes_why: Text | None = None
    counters_why: Text | None = None


# Every reason's key, in the order a table says them (outputs/btree_table.py).
REASON_KEYS = tuple(f.name for f in dataclasses.fields(Reasons))


# What a load wrote and read -------------------------------------------------------------


@dataclass(frozen=True)
class LoadIO:
    """What a load wrote (``write_bytes``, in the engine's own counters, and what they are:
    ``write_meaning``) and how many pages it read into a cache of ``cache_bytes``. None where
    the engine does not tell, with why in ``why``."""

    write_bytes: int | None
    write_meaning: Text
    cache_reads: int | None
    cache_bytes: int | None
    why: Reasons = Reasons()

    def to_dict(self) -> dict[str, Any]:
        """The figures as the load's dictionary holds them."""
        return {"write_bytes": self.write_bytes, "write_meaning": self.write_meaning,
                "cache_reads": self.cache_reads, "cache_bytes": self.cache_bytes}

    def disturbed(self) -> dict[str, Text]:
        """Why a figure cannot be told from other clients' work, by its key, only where one
        cannot (the load's dictionary adds them after its figures)."""
        return {key: value for key, value in (("write_disturbed", self.why.write_disturbed),
                                              ("cache_reads_disturbed",
                                               self.why.cache_reads_disturbed)) if value}


# One key kind's load ---------------------------------------------------------------------


@dataclass
class LoadResult:
    """One key kind's load into one engine: ``n`` keys of kind ``keys``, the index's size in
    bytes and in leaf pages and its average leaf fill (0..1; None where the engine cannot
    tell), the seconds the inserts took, what the load wrote and read (``io``; None for the
    model), the checkpoint interval it met (None: only before and after it), and WiredTiger's
    statistics of the index by their descriptions (``counters``: embedded and mongod's;
    empty for the other engines). ``write_vs`` is set by ``add_ratios``, beside the
    loads compared."""

    keys: str
    n: int
    index_bytes: int | None
    leaf_pages: int | None
    avg_leaf_fill: float | None
    insert_seconds: float
    io: LoadIO | None = None
    checkpoint_every: int | None = None
    counters: dict[str, int | None] = field(default_factory=dict)
    # Every leaf's fill, left to right, where the engine reads each leaf (else empty).
    leaf_fills: list[float] = field(default_factory=list)
    # What the index's size in bytes is, where the engine measures a file (else "").
    size_meaning: ClassVar[Text] = ""
    # Bytes written as a ratio to each sequential kind loaded beside it; None until rated.
    write_vs: dict[str, float] | None = field(default=None, compare=False)
    rated: bool = field(default=False, compare=False)

    # Figures read through ``io`` ----------------------------------------------------------

    @property
    def write_bytes(self) -> int | None:
        """Bytes the load wrote, or None where the engine does not tell."""
        return self.io.write_bytes if self.io else None

    @property
    def cache_reads(self) -> int | None:
        """Pages read into the cache during the load, or None where not counted."""
        return self.io.cache_reads if self.io else None

    @property
    def cache_bytes(self) -> int | None:
        """The size of the cache the load went through, or None."""
        return self.io.cache_bytes if self.io else None

    @property
    def why(self) -> Reasons:
        """Why a figure is missing or marked (the load's own reasons and its ``io``'s)."""
        return self.io.why if self.io else Reasons()

    @property
    def write_bytes_per_key(self) -> float | None:
        """Bytes written per key loaded, or None where the engine did not tell."""
        written = self.write_bytes
        return None if written is None else written / self.n

    @property
    def index_to_cache(self) -> float | None:
        """The index's size over the cache's, or None where either is unknown."""
        index, cache = self.index_bytes, self.cache_bytes
        return round(index / cache, 3) if index and cache else None

    # The index's size ---------------------------------------------------------------------

    def size(self) -> int:
        """The index's size: bytes where the engine reports them, else leaf pages (the model);
        ``Unobservable`` where neither was measured, with why where it is known."""
        if self.index_bytes is not None:
            return self.index_bytes
        if self.leaf_pages is None:
            why, kind = self.why.index_bytes_why, self.keys
            raise Unobservable(Message(N_("no index size was measured for {kind} keys: {why}"),
                                       kind=kind, why=why) if why else
                               f"no index size was measured for {kind} keys")
        return self.leaf_pages

    def size_unit(self) -> str:
        """What ``size`` counts: bytes, or leaf pages."""
        return N_("bytes") if self.index_bytes is not None else N_("leaf pages")

    # The dictionary -----------------------------------------------------------------------

    def _head(self) -> Iterator[tuple[str, Any]]:
        """The figures every load's dictionary opens with, in their order."""
        yield from (("keys", self.keys), ("n", self.n), ("index_bytes", self.index_bytes),
                    ("leaf_pages", self.leaf_pages), ("avg_leaf_fill", self.avg_leaf_fill),
                    ("insert_seconds", self.insert_seconds))

    def _figures(self) -> Iterator[tuple[str, Any]]:
        """The load's own keys and values, in its dictionary's order (each engine's)."""
        yield from self._head()
        if self.io:
            yield from self.io.to_dict().items()

    def to_dict(self) -> dict[str, Any]:
        """The load as results.json, ``labkit btree --json`` and the lessons' tables have it:
        its figures, then, once rated beside other loads, bytes per key, the ratios to the
        sequential kinds and the index's size over the cache's."""
        out = dict(self._figures())
        if self.rated:
            out["write_bytes_per_key"] = self.write_bytes_per_key
            if self.write_vs is not None:
                out["write_vs"] = dict(self.write_vs)
            out["index_to_cache"] = self.index_to_cache
        return out

    def summary(self) -> dict[str, Any]:
        """``to_dict`` without its long per-page and per-batch lists (tables, JSON, evidence)."""
        return {k: v for k, v in self.to_dict().items() if k not in LONG}


def outgrows_from(result: LoadResult, cache_bytes: int) -> int | None:
    """The N at which an index of this result's bytes per key outgrows ``cache_bytes``, or
    None where its size was not measured."""
    index = result.index_bytes
    if not index:
        return None
    return math.floor(cache_bytes * result.n / index) + 1


# One engine's loads ---------------------------------------------------------------------


@dataclass
class Measurement:
    """Every key kind asked, loaded into one engine: its name and exact version, the keys per
    kind, the cache the loads went through in words ("" for the model), the checkpoint
    interval (None for the model, or where there was none during the loads), the loads, and
    the product that answered in the engine's place, where one did (``FerretDB``, whose own
    version ``engine_version`` then is; "" for the engine itself)."""

    engine: str
    engine_version: str
    n: int
    cache: Text
    checkpoint_every: int | None
    results: list[LoadResult]
    product: str = ""

    @property
    def name(self) -> str:
        """The engine's name, or the product's that answered in its place."""
        return self.product or engine_name(self.engine)

    def by_kind(self) -> dict[str, LoadResult]:
        """The loads by key kind."""
        return {r.keys: r for r in self.results}

    def larger_by(self, kind: str, than: str) -> float:
        """How much larger ``kind``'s index is than ``than``'s (0.25 = 25% larger)."""
        by_kind = self.by_kind()
        return by_kind[kind].size() / by_kind[than].size() - 1

    def to_dict(self) -> dict[str, Any]:
        """The measurement as ``labkit btree --json``, the lessons and the plots read it."""
        return {"engine": self.engine, "engine_version": self.engine_version, "n": self.n,
                "cache": self.cache, "checkpoint_every": self.checkpoint_every,
                **({"product": self.product} if self.product else {}),
                "results": [r.to_dict() for r in self.results]}


@dataclass(frozen=True)
class NotMeasured:
    """An engine of a comparison that gave no loads: not run (it could not be had, and why)
    or an error (its load failed, and the cause)."""

    engine: str
    not_run: Text = ""
    error: Text = ""

    @property
    def results(self) -> list[LoadResult]:
        """No loads: an engine not measured gave none."""
        return []

    def to_dict(self) -> dict[str, Any]:
        """``{"engine", "error"}`` or ``{"engine", "not_run"}``, as a comparison entry."""
        return ({"engine": self.engine, "error": self.error} if self.error else
                {"engine": self.engine, "not_run": self.not_run})


# Checkpoints and ratios ------------------------------------------------------------------


def check_checkpoint_every(every: int | None, name: str = "--checkpoint-every") -> None:
    """Refuse a checkpoint interval that is not a positive number of keys (None: none)."""
    if every is not None and (isinstance(every, bool) or every < 1):
        raise BadInput(Message(N_("{name} must be a positive number of keys (or none for no "
                                  "checkpoint during the load), not {every}"),
                               name=name, every=str(every)))


class Checkpoints:
    """Calls ``checkpoint()`` each time the keys loaded pass a multiple of ``every``."""

    def __init__(self, every: int | None, checkpoint: Callable[[], object]) -> None:
        self.every = every
        self._checkpoint = checkpoint
        self.loaded = 0
        self.taken = 0

    def after(self, count: int) -> None:
        """Note ``count`` more keys loaded; checkpoint if an interval's end was passed."""
        before, self.loaded = self.loaded, self.loaded + count
        if self.every and before // self.every != self.loaded // self.every:
            self._checkpoint()
            self.taken += 1


def add_ratios(results: Sequence[LoadResult]) -> None:
    """Rate each load beside the others: its write volume as a ratio to every sequential kind
    loaded beside it (``write_vs``: ``{"uuid7": 2.4, ...}``); its dictionary then carries its
    bytes written per key and its index's size over its cache's too (``LoadResult.to_dict``).
    The ratios are kept across calls: a run rates its loads each time it hands them out, beside
    the kinds asked that time."""
    by_kind = {r.keys: r for r in results}
    for result in results:
        result.rated = True
        written = result.write_bytes
        if written is not None:
            if result.write_vs is None:
                result.write_vs = {}
            result.write_vs.update(
                {kind: round(written / base_written, 3) for kind, base in by_kind.items()
                 if kind in SEQUENTIAL and (base_written := base.write_bytes)})


# The engine ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """How a load is made, in the same words for every engine; each reads the ones it has:
    a cache of ``cache_mb`` (None: the engine's default) and a checkpoint every
    ``checkpoint_every`` keys (None: only before and after the load) for the real engines,
    the page capacity, split policy and split-count interval for the model; keys sent at a
    time, ``batch`` (None: the engine's own, ``BTreeEngine.batch``)."""

    cache_mb: int | None = None
    checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY
    capacity: int = 64
    policy: str = "half"
    trace_every: int = 0
    batch: int | None = None


S = TypeVar("S")


def check_n(n: int, name: str = "--n") -> None:
    """Refuse a key count outside 1..MAX_N, naming the option it came from."""
    if not 1 <= n <= MAX_N:
        raise BadInput(Message(N_("{name} must be between 1 and {most:,} keys, not {n:,}"),
                               name=name, most=MAX_N, n=n))


class BTreeEngine(ABC, Generic[S]):
    """An engine the B-tree loads run on, loading into a server of type ``S`` (None for the
    engines labkit runs itself). ``key`` is the name the code, ``--engine`` and the results
    use; ``name`` the one a person reads (``names.engine_name``). ``server`` is the kind of
    server it needs (``servers.provide``'s, and the run's context's), ``binding`` an optional
    binding it imports; a load that cannot have either is not run, never an error. ``batch``
    is the keys it sends at a time unless the settings say otherwise."""

    key: ClassVar[str]
    server: ClassVar[str | None] = None
    binding: ClassVar[str | None] = None
    batch: ClassVar[int] = 10_000
    # Why the smallest cache ``cache_range_mb`` allows is what it is, where that needs saying.
    cache_floor: ClassVar[Text] = ""

    @property
    def name(self) -> str:
        """The engine's display name."""
        return engine_name(self.key)

    @property
    def needs(self) -> str | None:
        """What the engine needs besides labkit: a server kind or a binding (None: nothing)."""
        return self.server or self.binding

    def ready(self) -> None:
        """Raise ``ServerUnavailable`` where a binding the engine needs is missing, before any
        key is loaded (a server is the caller's to provide)."""

    def cache_range_mb(self) -> tuple[int, int]:
        """The cache sizes the engine takes, in MB (PostgreSQL's ``shared_buffers``,
        WiredTiger's cache and SQLite's page cache: 1 MB and more)."""
        return 1, round(MAX_CACHE_GB * 1024)

    def validate(self, n: int, settings: Settings) -> None:
        """Refuse a key count, a cache size or a checkpoint interval out of range, before any
        server is started."""
        check_n(n)
        check_checkpoint_every(settings.checkpoint_every)
        if settings.cache_mb is None:
            return
        low, high = self.cache_range_mb()
        if not low <= settings.cache_mb <= high:
            raise BadInput(Message(N_("--cache-mb must be between {low}{floor} and {high}, not "
                                      "{given}"), low=str(low), floor=self.cache_floor,
                                   high=str(high), given=str(settings.cache_mb)))

    @abstractmethod
    def version(self, server: S) -> str:
        """The exact version of what loads the keys."""

    @abstractmethod
    def load(self, kind: str, n: int, settings: Settings, server: S,
             progress: Progress | None = None) -> LoadResult:
        """Load ``n`` keys of ``kind`` into a fresh index and read what it became."""

    def load_key(self, settings: Settings, server: S) -> tuple[object, ...]:
        """What, besides the key kind and N, sets two loads apart (a run loads each once)."""
        return (settings.cache_mb, settings.checkpoint_every)

    def cache(self, settings: Settings, server: S, results: Sequence[LoadResult]) -> Text:
        """The cache the loads went through, in words ("" where there is none to say)."""
        return ""

    def _batch(self, settings: Settings) -> int:
        """The keys sent at a time: the settings', else the engine's own."""
        return settings.batch or self.batch

    @staticmethod
    def _largest_cache(text: str, results: Sequence[LoadResult]) -> Text:
        """``text`` filled with the largest cache the loads report, in MB ("" where none
        does)."""
        sizes = [size for r in results if (size := r.cache_bytes)]
        if not sizes:
            return ""
        mb = round(max(sizes) / 2**20, 2)
        return Message(text, mb=int(mb) if mb.is_integer() else mb)

    def checkpoint_every(self, settings: Settings) -> int | None:
        """The checkpoint interval a measurement reports (None for the model)."""
        return settings.checkpoint_every

    def measurement(self, kinds: Sequence[str], n: int, settings: Settings, server: S,
                    progress: Callable[[str, int], None] | None = None) -> Measurement:
        """Every key kind loaded into this engine, each rated beside the others."""
        loads = [self.load(kind, n, settings, server, ticks(progress, kind)) for kind in kinds]
        return self.measured(n, settings, server, loads)

    def measured(self, n: int, settings: Settings, server: S,
                 loads: list[LoadResult]) -> Measurement:
        """``loads`` (made by ``load``, here or from a run's cache), each rated beside the
        others, as this engine's measurement."""
        add_ratios(loads)
        return Measurement(self.key, self.version(server), n,
                           self.cache(settings, server, loads),
                           self.checkpoint_every(settings), loads,
                           product=str(getattr(server, "product", "") or ""))


def ticks(progress: Callable[[str, int], None] | None, kind: str) -> Progress | None:
    """``progress`` told the key kind with each count of keys loaded."""
    if progress is None:
        return None
    report = progress
    return lambda count: report(kind, count)
