"""What a B-tree load reports, as typed records: one key kind's load on one engine
(``LoadResult``, one class per engine), what it wrote and read (``LoadIO``), why a figure is
missing or cannot be trusted (``Reasons``), and one engine's loads together (``Measurement``).

Each record's ``to_dict()`` is the dictionary results.json, ``labkit btree --json``, the
lessons' tables and the plots read: the same keys, in the same order, with the same values as
these loads have always written, so the files do not change with the types. An engine's keys
and their order are its record's own (``_figures``); the key names are the record's field
names wherever the two can be the same.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from labkit.errors import Unobservable
from labkit.i18n import N_, Message, Text

# The per-page and per-batch lists a summary leaves out (tables, JSON, a claim's evidence).
LONG = ("leaf_fills", "splits_trace", "trace_every", "inserts_per_second_by_batch")
# What "index size" means wherever a file is measured (embedded WiredTiger and mongod alike).
SIZE_MEANING = Message(N_("file size less the space free for reuse, after a checkpoint"))


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


@dataclass(frozen=True)
class SQLiteIO(LoadIO):
    """SQLite: the frames its write-ahead log took (its cache reads cannot be counted)."""

    wal_frames: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The figures as the load's dictionary holds them."""
        return {"write_bytes": self.write_bytes, "wal_frames": self.wal_frames,
                "write_meaning": self.write_meaning, "cache_bytes": self.cache_bytes,
                "cache_reads": self.cache_reads, "cache_reads_why": self.why.cache_reads_why}


@dataclass(frozen=True)
class PostgresIO(LoadIO):
    """PostgreSQL: WAL bytes and full-page images, data pages written, checkpoints taken."""

    wal_bytes: int = 0
    wal_fpi: int | None = None
    data_pages_written: int = 0
    checkpoints: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The figures as the load's dictionary holds them."""
        return {"write_bytes": self.write_bytes, "wal_bytes": self.wal_bytes,
                "wal_fpi": self.wal_fpi, "data_pages_written": self.data_pages_written,
                "checkpoints": self.checkpoints, "write_meaning": self.write_meaning,
                "cache_reads": self.cache_reads, "cache_bytes": self.cache_bytes}


@dataclass(frozen=True)
class WiredTigerIO(LoadIO):
    """WiredTiger (embedded or in mongod): log and block-manager bytes written."""

    log_bytes: int | None = None
    block_bytes: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The figures as the load's dictionary holds them."""
        return {"write_bytes": self.write_bytes, "log_bytes": self.log_bytes,
                "block_bytes": self.block_bytes, "write_meaning": self.write_meaning,
                "cache_reads": self.cache_reads, "cache_bytes": self.cache_bytes}


@dataclass(frozen=True)
class MongoIO(WiredTigerIO):
    """mongod: WiredTiger's figures, server-wide, and the other clients' operations the
    server's counters showed during the load (``counted``: whether they could be compared;
    not where ``serverStatus`` was refused, ``refused``, or its counters went back)."""

    refused: Text | None = None
    counted: bool = False
    others_writes: int | None = None
    others_reads: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The figures as the load's dictionary holds them."""
        why = self.why
        if self.refused:
            return {"write_bytes": self.write_bytes, "log_bytes": self.log_bytes,
                    "block_bytes": self.block_bytes, "write_bytes_why": why.write_bytes_why,
                    "cache_reads": self.cache_reads, "cache_reads_why": why.cache_reads_why,
                    "cache_bytes": self.cache_bytes, "write_meaning": self.write_meaning}
        out = super().to_dict()
        if self.counted:
            out.update(others_writes=self.others_writes, others_reads=self.others_reads)
        out.update((key, value) for key, value in (("write_disturbed", why.write_disturbed),
                                                   ("cache_reads_disturbed",
                                                    why.cache_reads_disturbed)) if value)
        return out


# One key kind's load ---------------------------------------------------------------------


def index_size(kind: str, index_bytes: int | None, leaf_pages: int | None,
               why: Text | None = None) -> int:
    """An index's size: bytes where the engine reports them, else leaf pages (the model);
    ``Unobservable`` where neither was measured, with ``why`` where it is known."""
    if index_bytes is not None:
        return index_bytes
    if leaf_pages is None:
        raise Unobservable(Message(N_("no index size was measured for {kind} keys: {why}"),
                                   kind=kind, why=why) if why else
                           f"no index size was measured for {kind} keys")
    return leaf_pages


def size_unit_of(index_bytes: int | None) -> str:
    """What ``index_size`` counts: bytes where there are some, else leaf pages."""
    return N_("bytes") if index_bytes is not None else N_("leaf pages")


@dataclass
class LoadResult:
    """One key kind's load into one engine: ``n`` keys of kind ``keys``, the index's size in
    bytes and in leaf pages and its average leaf fill (0..1; None where the engine cannot
    tell), the seconds the inserts took, what the load wrote and read (``io``; None for the
    model), the checkpoint interval it met (None: only before and after it), and WiredTiger's
    statistics of the index by their descriptions (``counters``: embedded and mongod's;
    empty for the other engines). ``write_vs`` is set by ``btree_io.add_ratios``, beside the
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
        """The index's size (``index_size``): bytes, else leaf pages (the model)."""
        return index_size(self.keys, self.index_bytes, self.leaf_pages,
                          self.why.index_bytes_why)

    def size_unit(self) -> str:
        """What ``size`` counts: bytes, or leaf pages."""
        return size_unit_of(self.index_bytes)

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


@dataclass
class ModelLoad(LoadResult):
    """The textbook model (``engines.btree_model``): its page capacity and split policy, the
    splits it made, every leaf's fill and, every ``trace_every`` keys, its split count."""

    page_capacity: int = 64
    split_policy: str = "half"
    leaf_splits: int = 0
    internal_splits: int = 0
    leaf_fills: list[float] = field(default_factory=list)
    splits_trace: list[int] = field(default_factory=list)
    trace_every: int = 0

    @property
    def splits_per_1000_inserts(self) -> float:
        """Leaf splits per thousand keys inserted."""
        return 1000 * self.leaf_splits / self.n

    def _figures(self) -> Iterator[tuple[str, Any]]:
        yield from super()._figures()
        yield from (("page_capacity", self.page_capacity), ("split_policy", self.split_policy),
                    ("leaf_splits", self.leaf_splits), ("internal_splits", self.internal_splits),
                    ("splits_per_1000_inserts", self.splits_per_1000_inserts),
                    ("leaf_fills", self.leaf_fills), ("splits_trace", self.splits_trace),
                    ("trace_every", self.trace_every))


@dataclass
class SQLiteLoad(LoadResult):
    """SQLite: the index's pages from ``dbstat`` (interior pages, every leaf's fill), the
    database file's size and the checkpoint interval."""

    interior_pages: int = 0
    file_bytes: int = 0
    leaf_fills: list[float] = field(default_factory=list)

    def _figures(self) -> Iterator[tuple[str, Any]]:
        yield from self._head()
        yield from (("interior_pages", self.interior_pages), ("file_bytes", self.file_bytes),
                    ("leaf_fills", self.leaf_fills), ("checkpoint_every", self.checkpoint_every))
        if self.io:
            yield from self.io.to_dict().items()


@dataclass
class PostgresLoad(LoadResult):
    """PostgreSQL: the primary key's column type, ``pgstatindex``'s figures of its index and
    every leaf's fill from ``pageinspect``."""

    column_type: str = ""
    tree_level: int = 0
    internal_pages: int = 0
    empty_pages: int = 0
    deleted_pages: int = 0
    avg_leaf_density: float = 0.0
    leaf_fragmentation: float = 0.0
    leaf_fills: list[float] = field(default_factory=list)

    def _figures(self) -> Iterator[tuple[str, Any]]:
        yield from self._head()
        yield from (("column_type", self.column_type), ("checkpoint_every", self.checkpoint_every))
        if self.io:
            yield from self.io.to_dict().items()
        yield from (("tree_level", self.tree_level), ("internal_pages", self.internal_pages),
                    ("empty_pages", self.empty_pages), ("deleted_pages", self.deleted_pages),
                    ("avg_leaf_density", self.avg_leaf_density),
                    ("leaf_fragmentation", self.leaf_fragmentation),
                    ("leaf_fills", self.leaf_fills))


@dataclass
class WiredTigerLoad(LoadResult):
    """Embedded WiredTiger: the file's size and the space free for reuse in it, the pages a
    tree walk counted and the average page image a cache walk saw, the cache, and the
    table's own statistics (``counters``, by WiredTiger's descriptions)."""

    file_bytes: int = 0
    cache_mb: int = 0
    internal_pages: int | None = None
    avg_page_image_bytes: int = 0
    reusable_bytes: int = 0

    def _figures(self) -> Iterator[tuple[str, Any]]:
        yield from (("keys", self.keys), ("n", self.n), ("index_bytes", self.index_bytes),
                    ("file_bytes", self.file_bytes), ("size_meaning", SIZE_MEANING),
                    ("leaf_pages", self.leaf_pages), ("avg_leaf_fill", self.avg_leaf_fill),
                    ("insert_seconds", self.insert_seconds), ("cache_mb", self.cache_mb),
                    ("checkpoint_every", self.checkpoint_every))
        if self.io:
            yield from self.io.to_dict().items()
        yield from (("internal_pages", self.internal_pages),
                    ("avg_page_image_bytes", self.avg_page_image_bytes),
                    ("reusable_bytes", self.reusable_bytes))
        yield from self.counters.items()


@dataclass
class MongoLoad(LoadResult):
    """mongod: the ``_id`` index's file (``file_bytes``, ``indexSizes._id_``) and its
    WiredTiger statistics (``counters``: differences across the load, sizes as read after
    it), inserts per second by batch, whether a checkpoint was refused, whether the collection
    is logged, and mongod's smallest cache in bytes. No leaf pages or fill: the server reads
    its tree statistics in "fast" mode. A refused ``$collStats`` or ``fsync`` leaves the index
    figures None, with why (``index_bytes_why``, ``counters_why``)."""

    inserts_per_second_by_batch: list[float] = field(default_factory=list)
    checkpoints_refused: bool = False
    logged: bool = True
    smallest_cache_bytes: int = 0
    file_bytes: int | None = None
    index_bytes_why: Text | None = None
    counters_why: Text | None = None

    @property
    def why(self) -> Reasons:
        """Why a figure is missing or marked: the server's refusals and the others' work."""
        return dataclasses.replace(super().why, index_bytes_why=self.index_bytes_why,
                                   counters_why=self.counters_why)

    def _figures(self) -> Iterator[tuple[str, Any]]:
        yield from (("keys", self.keys), ("n", self.n), ("index_bytes", self.index_bytes),
                    ("size_meaning", SIZE_MEANING), ("leaf_pages", self.leaf_pages),
                    ("avg_leaf_fill", self.avg_leaf_fill),
                    ("insert_seconds", self.insert_seconds),
                    ("inserts_per_second_by_batch", self.inserts_per_second_by_batch),
                    ("checkpoint_every", self.checkpoint_every),
                    ("checkpoints_refused", self.checkpoints_refused), ("logged", self.logged),
                    ("smallest_cache_bytes", self.smallest_cache_bytes))
        if self.io:
            yield from self.io.to_dict().items()
        yield ("file_bytes", self.file_bytes)
        yield from self.counters.items()
        # Why a figure is missing, only where one is.
        yield from ((key, value) for key, value in (("index_bytes_why", self.index_bytes_why),
                                                     ("counters_why", self.counters_why))
                    if value)


# One engine's loads ---------------------------------------------------------------------


@dataclass
class Measurement:
    """Every key kind asked, loaded into one engine: its name and exact version, the keys per
    kind, the cache the loads went through in words ("" for the model), the checkpoint
    interval (None for the model, or where there was none during the loads), the loads."""

    engine: str
    engine_version: str
    n: int
    cache: Text
    checkpoint_every: int | None
    results: list[LoadResult]

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
                "results": [r.to_dict() for r in self.results]}


@dataclass(frozen=True)
class NotMeasured:
    """An engine of a comparison that gave no loads: not run (it could not be had, and why)
    or an error (its load failed, and the cause)."""

    engine: str
    not_run: Text = ""
    error: Text = ""

    def to_dict(self) -> dict[str, Any]:
        """``{"engine", "error"}`` or ``{"engine", "not_run"}``, as a comparison entry."""
        return ({"engine": self.engine, "error": self.error} if self.error else
                {"engine": self.engine, "not_run": self.not_run})
