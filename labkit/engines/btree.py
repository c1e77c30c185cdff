"""The B-tree engines: each loads keys of one kind into a fresh index and reports what the
index became (``engines.btree_results``); the textbook model (``engines.btree_model``),
SQLite, PostgreSQL, an embedded WiredTiger and MongoDB.

Every engine is one ``BTreeEngine``: its key and display name, what it needs (a server of a
kind, or a binding), how it checks a request before anything starts, and ``load(kind, n,
settings, server)``, which gives a typed ``LoadResult``. ``ENGINES`` is the one table of them;
``measurement`` loads several key kinds into one engine. The ``run_<engine>`` functions are
the harnesses the engines call, each with its engine's own settings.
"""

from __future__ import annotations

import os
import sqlite3
import struct
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from labkit import _defaults
from labkit.engines import btree_io
from labkit.engines.btree_model import Progress, model_version, run_model
from labkit.engines.btree_results import (
    LONG,
    LoadResult,
    Measurement,
    MongoLoad,
    PostgresLoad,
    SQLiteIO,
    SQLiteLoad,
    WiredTigerLoad,
    index_size,
)
from labkit.engines.wt_binding import wiredtiger_module, wiredtiger_version, wt_inserter
from labkit.engines.wt_binding import wt_stats as _wt_stats
from labkit.errors import BadInput
from labkit.i18n import N_, Message, Text
from labkit.model import keys as keymod
from labkit.names import engine_name
from labkit.servers import MAX_CACHE_GB, MIN_CACHE_GB, refused
from labkit.servers.reaper import scratch_folder

if TYPE_CHECKING:
    from bson import Int64, ObjectId
    from psycopg import Connection
    from psycopg.rows import TupleRow
    from pymongo.collection import Collection
    from pymongo.mongo_client import MongoClient

    from labkit.servers import MongoServer, PostgresServer

# Keys per kind for the claims, the lesson and ``labkit run`` (LABKIT_BTREE_N, --btree-n).
DEFAULT_N = _defaults.BTREE_N
MAX_N = 100_000_000  # a bound on a single load; the model holds every key in memory
MODEL_TRACE_POINTS = 50  # the model records its split count this many times per load
WT_CACHE_MB = _defaults.WT_CACHE_MB
# SQLite's page cache unless --cache-mb says otherwise, as WiredTiger's: its reads are not
# counted (btree_io.SQLITE_NO_CACHE_READS); the WAL frames are the same as with its own 2 MB.
SQLITE_CACHE_MB = WT_CACHE_MB
# A statistics reading: WiredTiger's descriptions ("cache: in-memory page splits") to values.
Counters = dict[str, Any]


# SQLite ---------------------------------------------------------------------------------


def sqlite_load(path: str, kind: str, n: int, batch: int = 10_000,
                progress: Progress | None = None, checkpoint_every: int | None = None,
                cache_mb: int | None = None) -> tuple[float, SQLiteIO]:
    """Load ``n`` keys into a fresh table keyed by them, in WAL mode with a checkpoint every
    ``checkpoint_every`` keys (and one at the end); return the seconds the inserts took and
    what the write-ahead log took (``btree_io.sqlite_io``)."""
    conn = sqlite3.connect(path)
    frames: list[int] = []
    try:
        # The one connection: an exclusive lock keeps the WAL's index in the process's memory.
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints at labkit's interval only
        if cache_mb is not None:  # None: SQLite's own default
            conn.execute(f"PRAGMA cache_size=-{int(cache_mb) * 1024}")  # negative: KiB
        conn.execute("CREATE TABLE t (k BLOB NOT NULL PRIMARY KEY)")
        btree_io.sqlite_checkpoint(conn, [])
        checkpoints = btree_io.Checkpoints(
            checkpoint_every, lambda: btree_io.sqlite_checkpoint(conn, frames))
        start = time.perf_counter()
        for keys in keymod.batches(kind, n, batch):
            with conn:
                conn.executemany("INSERT INTO t (k) VALUES (?)", zip(keys))
            checkpoints.after(len(keys))
            if progress:
                progress(len(keys))
        seconds = time.perf_counter() - start
        btree_io.sqlite_checkpoint(conn, frames)
        return seconds, btree_io.sqlite_io(conn, frames)
    finally:
        conn.close()


def sqlite_index_pages(path: str) -> list[tuple[str, int, int]]:
    """``(pagetype, pgsize, unused)`` for every page of the key's index, from ``dbstat``."""
    conn = sqlite3.connect(path)
    try:
        return [(str(kind), int(size), int(unused)) for kind, size, unused in conn.execute(
            "SELECT pagetype, pgsize, unused FROM dbstat WHERE name = 'sqlite_autoindex_t_1'")]
    finally:
        conn.close()


def run_sqlite(kind: str, n: int, batch: int = 10_000, progress: Progress | None = None,
               checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY,
               cache_mb: int | None = None) -> SQLiteLoad:
    """Load a SQLite table keyed by ``kind`` through a page cache of ``cache_mb`` (None:
    ``SQLITE_CACHE_MB``); read leaf fill and size from ``dbstat`` and the bytes its
    write-ahead log took.

    The database file lives in a scratch folder that a killed owner does not leave behind.
    """
    with scratch_folder("labkit-sqlite-") as workdir:
        path = os.path.join(workdir, "btree.db")
        seconds, io = sqlite_load(path, kind, n, batch, progress, checkpoint_every,
                                  cache_mb or SQLITE_CACHE_MB)
        pages = sqlite_index_pages(path)
        file_bytes = os.path.getsize(path)
    leaves = [(size, unused) for kind_, size, unused in pages if kind_ == "leaf"]
    fills = [(size - unused) / size for size, unused in leaves]
    return SQLiteLoad(keys=kind, n=n, index_bytes=sum(size for _, size, _ in pages),
                      leaf_pages=len(leaves),
                      avg_leaf_fill=sum(s - u for s, u in leaves) / sum(s for s, _ in leaves),
                      insert_seconds=seconds, interior_pages=len(pages) - len(leaves),
                      file_bytes=file_bytes, leaf_fills=fills,
                      checkpoint_every=checkpoint_every, io=io)


def sqlite_version() -> str:
    """The SQLite library Python links against."""
    return sqlite3.sqlite_version


# PostgreSQL -----------------------------------------------------------------------------

PG_TYPES = {"uuid4": "uuid", "uuid7": "uuid", "uuid7-naive": "uuid", "objectid": "bytea",
            "int": "bigint"}
_INT = struct.Struct(">q")


def _uuid_from_bytes(key: bytes) -> uuid.UUID:
    return uuid.UUID(bytes=key)


def _int_from_bytes(key: bytes) -> int:
    value: int = _INT.unpack(key)[0]
    return value


def pg_converter(kind: str) -> Callable[[bytes], object]:
    """The function turning a key's bytes into the value psycopg sends for its column."""
    if PG_TYPES[kind] == "uuid":
        return _uuid_from_bytes
    if kind == "int":
        return _int_from_bytes
    return bytes


def postgres_load(conn: Connection[TupleRow], kind: str, n: int, batch: int = 10_000,
                  progress: Progress | None = None,
                  checkpoints: btree_io.Checkpoints | None = None) -> float:
    """COPY ``n`` keys into table ``t`` (made by ``postgres_table``) in batches, with the
    ``checkpoints`` given; return the seconds it took."""
    column, convert = PG_TYPES[kind], pg_converter(kind)
    start = time.perf_counter()
    with conn.cursor() as cur:
        for keys in keymod.batches(kind, n, batch):
            with cur.copy("COPY t (id) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types([column])
                write = copy.write_row
                for row in zip(map(convert, keys)):
                    write(row)
            if checkpoints:
                checkpoints.after(len(keys))
            if progress:
                progress(len(keys))
    return time.perf_counter() - start


def postgres_table(conn: Connection[TupleRow], kind: str) -> None:
    """A fresh table ``t`` whose primary key has the column type of ``kind``."""
    conn.execute("DROP TABLE IF EXISTS t")
    conn.execute(f"CREATE TABLE t (id {PG_TYPES[kind]} PRIMARY KEY)")


def postgres_index_stats(conn: Connection[TupleRow]) -> dict[str, Any]:
    """``pgstatindex`` of ``t_pkey`` and the fill of each leaf page from ``pageinspect``."""
    conn.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
    conn.execute("CREATE EXTENSION IF NOT EXISTS pageinspect")
    row = conn.execute("SELECT tree_level, index_size, internal_pages, leaf_pages, "
                       "empty_pages, deleted_pages, avg_leaf_density, leaf_fragmentation "
                       "FROM pgstatindex('t_pkey')").fetchone()
    if row is None:
        raise RuntimeError("pgstatindex('t_pkey') returned no row")
    names = ("tree_level", "index_size", "internal_pages", "leaf_pages", "empty_pages",
             "deleted_pages", "avg_leaf_density", "leaf_fragmentation")
    stats = dict(zip(names, row, strict=True))
    fills = [row[0] for row in conn.execute(
        "SELECT 1 - s.free_size::float / (s.page_size - 24 - 16) "
        "FROM generate_series(1, (pg_relation_size('t_pkey') / current_setting('block_size')"
        "::int)::int - 1) AS b, LATERAL bt_page_stats('t_pkey', b) AS s "
        "WHERE s.type = 'l'")]
    stats["leaf_fills"] = fills
    return stats


def run_postgres(server: PostgresServer, kind: str, n: int, batch: int = 10_000,
                 progress: Progress | None = None,
                 checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY) -> PostgresLoad:
    """COPY keys of ``kind`` into a fresh database; read the primary key index's statistics
    and what the load wrote and read (``btree_io.pg_io``).

    A ``CHECKPOINT`` comes before the load, every ``checkpoint_every`` keys and at its end,
    so every key kind meets checkpoints at the same interval. Refused up front, as
    ``ServerUnavailable``, where the role is not a superuser: the statistics come from the
    pgstattuple and pageinspect extensions, which only a superuser may create.
    """
    server.require(Message(N_("the B-tree load on PostgreSQL")), superuser=True)
    dsn = server.fresh_database(f"btree_{kind}")
    try:
        # The server ending the load's connection, or the database's lease lost meanwhile,
        # is one ServerUnavailable (``Server.working``).
        with server.working(), server.connect(dsn) as conn:
            postgres_table(conn, kind)
            btree_io.pg_checkpoint(conn)
            before = btree_io.pg_snapshot(conn)
            checkpoints = btree_io.Checkpoints(checkpoint_every,
                                               lambda: conn.execute("CHECKPOINT"))
            seconds = postgres_load(conn, kind, n, batch, progress, checkpoints)
            btree_io.pg_checkpoint(conn)
            io = btree_io.pg_io(conn, before, btree_io.pg_snapshot(conn))
            conn.execute("VACUUM ANALYZE t")
            stats = postgres_index_stats(conn)
    finally:
        server.drop_created()
    return PostgresLoad(keys=kind, n=n, index_bytes=stats["index_size"],
                        leaf_pages=stats["leaf_pages"],
                        avg_leaf_fill=stats["avg_leaf_density"] / 100, insert_seconds=seconds,
                        column_type=PG_TYPES[kind], checkpoint_every=checkpoint_every, io=io,
                        tree_level=stats["tree_level"], internal_pages=stats["internal_pages"],
                        empty_pages=stats["empty_pages"], deleted_pages=stats["deleted_pages"],
                        avg_leaf_density=stats["avg_leaf_density"],
                        leaf_fragmentation=stats["leaf_fragmentation"],
                        leaf_fills=stats["leaf_fills"])


# WiredTiger (embedded) ------------------------------------------------------------------

WT_TABLE_CONFIG = ("key_format=u,value_format=u,internal_page_max=16k,leaf_page_max=16k,"
                   "prefix_compression=true")
WT_COUNTERS = (
    "cache: leaf pages split during eviction", "cache: internal pages split during eviction",
    "cache: in-memory page splits", "cache: pages read into cache",
    "cache: pages written from cache", "reconciliation: leaf page multi-block writes",
    "reconciliation: page reconciliation calls", "btree: maximum tree depth",
)


def _wt_walk(wt: Any, home: str) -> dict[str, int]:
    """Reopen the table, read every page from disk, then walk the tree and the cache."""
    conn = wt.wiredtiger_open(home, "cache_size=1GB,statistics=(fast)")
    try:
        session = conn.open_session()
        cursor = session.open_cursor("table:idx")
        while cursor.next() == 0:
            pass
        cursor.close()
        return _wt_stats(session, "table:idx", "statistics=(tree_walk,cache_walk)")
    finally:
        conn.close()


def run_wiredtiger(kind: str, n: int, cache_mb: int = 64, batch: int = 1_000,
                   progress: Progress | None = None,
                   checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY) -> WiredTigerLoad:
    """Insert keys into a WiredTiger table shaped like ``mongod``'s ``_id`` index in a replica
    set (not logged: jstests/disk/wt_table_checks.js), with a checkpoint every
    ``checkpoint_every`` keys.

    Reads page counts from a tree walk and the average on-disk page image from a
    cache walk, after a checkpoint, plus the eviction and reconciliation counters and the
    bytes the block manager wrote. The table lives in a scratch folder that a killed owner
    does not leave behind.
    """
    wt = wiredtiger_module()
    with scratch_folder("labkit-wiredtiger-") as home:
        return _wiredtiger_load(wt, home, kind, n, cache_mb, batch, progress, checkpoint_every)


def _wiredtiger_load(wt: Any, home: str, kind: str, n: int, cache_mb: int, batch: int,
                     progress: Progress | None, checkpoint_every: int | None) -> WiredTigerLoad:
    conn = wt.wiredtiger_open(home, f"create,cache_size={cache_mb}MB,statistics=(fast)")
    try:
        session = conn.open_session()
        session.create("table:idx", WT_TABLE_CONFIG)
        session.checkpoint()
        cursor = session.open_cursor("table:idx")
        insert = wt_inserter(cursor)
        pack = _INT.pack
        before = _wt_stats(session, "")
        checkpoints = btree_io.Checkpoints(checkpoint_every, session.checkpoint)
        start = time.perf_counter()
        record = 0
        for keys in keymod.batches(kind, n, batch):
            for key in keys:  # one auto-committed write each, as mongod commits each document
                record += 1
                insert(key, pack(record))
            checkpoints.after(len(keys))
            if progress:
                progress(len(keys))
        seconds = time.perf_counter() - start
        cursor.close()
        session.checkpoint()
        io = btree_io.wt_io(before, _wt_stats(session, ""), logged=False)
        counters = _wt_stats(session, "table:idx")
        conn.close()
        conn = None
        walk = _wt_walk(wt, home)
        leaf_pages = walk.get("btree: row-store leaf pages", 0)
        image = walk.get("cache_walk: Average on-disk page image size seen", 0)
        file_bytes = os.path.getsize(os.path.join(home, "idx.wt"))
        reusable = counters.get("block-manager: file bytes available for reuse") or 0
        return WiredTigerLoad(keys=kind, n=n, index_bytes=file_bytes - reusable,
                              file_bytes=file_bytes, leaf_pages=leaf_pages,
                              avg_leaf_fill=image / 16384 if image else None,
                              insert_seconds=seconds, cache_mb=cache_mb,
                              checkpoint_every=checkpoint_every, io=io,
                              internal_pages=walk.get("btree: row-store internal pages"),
                              avg_page_image_bytes=image, reusable_bytes=reusable,
                              counters={name: counters.get(name) for name in WT_COUNTERS})
    finally:
        if conn is not None:
            conn.close()


# MongoDB --------------------------------------------------------------------------------

# mongod's smallest WiredTiger cache in bytes (``--wiredTigerCacheSizeGB`` counts 2**30 bytes).
MONGO_SMALLEST_CACHE = round(MIN_CACHE_GB * 2**30)
MONGO_COUNTERS = {
    "cache": ("leaf pages split during eviction", "internal pages split during eviction",
              "in-memory page splits", "pages read into cache", "pages written from cache"),
    "reconciliation": ("leaf page multi-block writes", "page reconciliation calls"),
    "block-manager": ("file size in bytes", "file bytes available for reuse",
                      "checkpoint size"),
}
MONGO_COUNTER_NAMES = tuple(f"{group}: {name}" for group, names in MONGO_COUNTERS.items()
                            for name in names)


def mongo_value(kind: str, key: bytes) -> uuid.UUID | ObjectId | Int64:
    """The ``_id`` value stored for a key of ``kind``: UUID, ObjectId or Int64."""
    from bson import Int64, ObjectId

    if kind.startswith("uuid"):
        return uuid.UUID(bytes=key)
    if kind == "objectid":
        return ObjectId(key)
    return Int64(_INT.unpack(key)[0])


# Block-manager figures are sizes at a moment; the other statistics count events since start.
MONGO_GAUGES = ("block-manager: file size in bytes",
                "block-manager: file bytes available for reuse",
                "block-manager: checkpoint size")


def _storage_stats(collection: Collection[dict[str, Any]]) -> dict[str, Any]:
    """``$collStats``'s ``storageStats`` for the collection (the manual's "$collStats")."""
    stats: dict[str, Any] = next(
        collection.aggregate([{"$collStats": {"storageStats": {}}}]))["storageStats"]
    return stats


def _index_figures(stats: dict[str, Any]) -> tuple[int, Counters]:
    """``indexSizes._id_`` and the ``_id`` index's counters (``MONGO_COUNTERS``) from
    ``storageStats`` (src/mongo/db/stats/storage_stats.cpp: ``indexSizes`` and
    ``indexDetails``, each index's WiredTiger statistics grouped by their prefix)."""
    details = stats.get("indexDetails", {}).get("_id_", {})
    counters = {f"{group}: {name}": details.get(group, {}).get(name)
                for group, names in MONGO_COUNTERS.items() for name in names}
    return stats["indexSizes"]["_id_"], counters


def _id_index_stats(collection: Collection[dict[str, Any]]) -> tuple[int, Counters]:
    """The ``_id`` index's file size and counters, read now."""
    return _index_figures(_storage_stats(collection))


def _read_stats(collection: Collection[dict[str, Any]]
                ) -> tuple[dict[str, Any] | None, Message | None]:
    """``storageStats`` now, or None and why where the server refuses ``$collStats``."""
    try:
        return _storage_stats(collection), None
    except Exception as exc:
        if refused(exc):  # 13 Unauthorized, or Atlas's 8000
            return None, btree_io.refusal("$collStats", exc)
        raise


def _during(before: Counters, after: Counters) -> Counters:
    """Counters as differences across the load; gauges as read after it (None if absent)."""
    out = {}
    for name, value in after.items():
        if name in MONGO_GAUGES or not isinstance(value, int):
            out[name] = value
        else:
            out[name] = value - before[name] if isinstance(before.get(name), int) else None
    return out


def run_mongodb(server: MongoServer, kind: str, n: int, batch: int = 1_000,
                progress: Progress | None = None,
                checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY) -> MongoLoad:
    """Insert ``{_id: key}`` documents in batches; read the ``_id`` index's size and counters,
    and what the server wrote and read (``btree_io.mongo_io``: ``serverStatus``, server-wide,
    marked where other clients worked on the server during the load).

    After an ``fsync`` (a checkpoint, so the file holds the pages), ``index_bytes`` is
    the file size less the space free for reuse, as for the embedded WiredTiger;
    ``file_bytes`` is ``indexSizes._id_``. An ``fsync`` every ``checkpoint_every`` keys
    where the user may run it (otherwise said in ``checkpoints_refused``). Counters are
    differences across the load; throughput is kept per batch. What the server refuses this
    user (``$collStats``, ``serverStatus``, ``fsync``) leaves its figures None, each with why
    (``counters_why``, ``write_bytes_why`` and ``cache_reads_why``, ``index_bytes_why``), and
    the rest is still measured.
    """
    database = server.fresh_database(f"btree_{kind}")
    try:
        # A failure of the server, or the database's lease lost meanwhile (MongoDB would make
        # a dropped database again at the next insert), is one ServerUnavailable
        # (``Server.working``): no measurement stands on a database a clean-up dropped.
        with server.working():
            # A fresh database never holds it: no listCollections check (pymongo's check_exists),
            # which a role without listCollections would be refused.
            collection = database.create_collection("t", check_exists=False)
            client = server.client()
            stats, counters_why = _read_stats(collection)
            logged = btree_io.mongo_logged(stats, client)
            io_before = btree_io.mongo_status(client)
            refusals: list[Message] = []

            def checkpoint() -> None:
                why = _checkpoint(client)
                if why:
                    refusals.append(why)

            checkpoints = btree_io.Checkpoints(checkpoint_every, checkpoint)
            rates = []
            start = time.perf_counter()
            for keys in keymod.batches(kind, n, batch):
                began = time.perf_counter()
                collection.insert_many([{"_id": mongo_value(kind, k)} for k in keys], ordered=False)
                rates.append(len(keys) / (time.perf_counter() - began))
                checkpoints.after(len(keys))
                if progress:
                    progress(len(keys))
            seconds = time.perf_counter() - start
            not_checkpointed = _checkpoint(client)
            io = btree_io.mongo_io(io_before, btree_io.mongo_status(client), inserted=n,
                                   logged=logged)
            after, counters_why = _read_stats(collection) if stats else (None, counters_why)
            file_bytes: int | None = None
            counters: Counters = dict.fromkeys(MONGO_COUNTER_NAMES)
            if stats is not None and after is not None:
                file_bytes, counters_after = _index_figures(after)
                counters = _during(_index_figures(stats)[1], counters_after)
            reusable = counters["block-manager: file bytes available for reuse"]
            why = counters_why or not_checkpointed
            live = (file_bytes - reusable
                    if file_bytes is not None and isinstance(reusable, int) and not why else None)
            return MongoLoad(keys=kind, n=n, index_bytes=live, leaf_pages=None, avg_leaf_fill=None,
                             insert_seconds=seconds, inserts_per_second_by_batch=rates,
                             checkpoint_every=checkpoint_every,
                             checkpoints_refused=bool(refusals or not_checkpointed), logged=logged,
                             smallest_cache_bytes=MONGO_SMALLEST_CACHE, io=io,
                             file_bytes=file_bytes, counters=counters, index_bytes_why=why,
                             counters_why=counters_why)
    finally:
        server.drop(database.name)


def _checkpoint(client: MongoClient[dict[str, Any]]) -> Message | None:
    """``fsync``: a checkpoint, so the index file holds its pages. None once taken; where the
    user may not (no ``fsync`` action; MongoDB Atlas refuses it to every user), why: without a
    checkpoint the file's size says nothing, so no index size is reported and the size claims
    are not run there, rather than turned into an error (notebooks/hosted.md)."""
    try:
        client.admin.command("fsync")
    except Exception as exc:
        if refused(exc):  # 13 Unauthorized, or Atlas's 8000
            return btree_io.refusal("fsync", exc)
        raise
    return None


# The engines ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """How a load is made, in the same words for every engine; each reads the ones it has:
    a cache of ``cache_mb`` (None: the engine's default) and a checkpoint every
    ``checkpoint_every`` keys (None: only before and after the load) for the real engines,
    the page capacity, split policy and split-count interval for the model."""

    cache_mb: int | None = None
    checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY
    capacity: int = 64
    policy: str = "half"
    trace_every: int = 0


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
    binding it imports; a load that cannot have either is not run, never an error."""

    key: ClassVar[str]
    server: ClassVar[str | None] = None
    binding: ClassVar[str | None] = None
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

    def check(self, n: int, settings: Settings) -> None:
        """Refuse a key count, a cache size or a checkpoint interval out of range, before any
        server is started."""
        check_n(n)
        btree_io.check_checkpoint_every(settings.checkpoint_every)
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
        btree_io.add_ratios(loads)
        return Measurement(self.key, self.version(server), n,
                           self.cache(settings, server, loads),
                           self.checkpoint_every(settings), loads)


def ticks(progress: Callable[[str, int], None] | None, kind: str) -> Progress | None:
    """``progress`` told the key kind with each count of keys loaded."""
    if progress is None:
        return None
    report = progress
    return lambda count: report(kind, count)


def _cache_in_mb(text: str, results: Sequence[LoadResult]) -> Text:
    """``text`` filled with the largest cache the loads report, in MB ("" where none does)."""
    sizes = [size for r in results if (size := r.cache_bytes)]
    if not sizes:
        return ""
    mb = round(max(sizes) / 2**20, 2)
    return Message(text, mb=int(mb) if mb.is_integer() else mb)


class ModelTree(BTreeEngine[None]):
    """The textbook B+tree (``engines.btree_model``): 50/50 or rightmost splits."""

    key = "model"

    def version(self, server: None) -> str:
        """The model is labkit's."""
        return model_version()

    def load(self, kind: str, n: int, settings: Settings, server: None,
             progress: Progress | None = None) -> LoadResult:
        """Insert the keys into the model; count its splits and read every leaf's fill."""
        return run_model(kind, n, settings.capacity, settings.policy, progress,
                         settings.trace_every)

    def load_key(self, settings: Settings, server: None) -> tuple[object, ...]:
        """A model load is set apart by its split policy and page capacity."""
        return (settings.policy, settings.capacity)

    def checkpoint_every(self, settings: Settings) -> int | None:
        """The model takes no checkpoints."""
        return None


class SQLiteTree(BTreeEngine[None]):
    """SQLite, in a scratch file: its table's primary key index."""

    key = "sqlite"

    def version(self, server: None) -> str:
        """The SQLite library Python links against."""
        return sqlite_version()

    def load(self, kind: str, n: int, settings: Settings, server: None,
             progress: Progress | None = None) -> LoadResult:
        """``run_sqlite`` through a page cache of ``settings.cache_mb``."""
        return run_sqlite(kind, n, progress=progress, checkpoint_every=settings.checkpoint_every,
                          cache_mb=settings.cache_mb)

    def cache(self, settings: Settings, server: None, results: Sequence[LoadResult]) -> Text:
        """SQLite's page cache, in MB."""
        return _cache_in_mb(N_("SQLite page cache {mb:,} MB"), results)


class PostgresTree(BTreeEngine["PostgresServer"]):
    """PostgreSQL: a fresh database's primary key index (a superuser's: the statistics come
    from pgstattuple and pageinspect)."""

    key = "postgres"
    server = "postgres"

    def version(self, server: PostgresServer) -> str:
        """The server's version."""
        return server.version

    def load(self, kind: str, n: int, settings: Settings, server: PostgresServer,
             progress: Progress | None = None) -> LoadResult:
        """``run_postgres`` on ``server``."""
        return run_postgres(server, kind, n, progress=progress,
                            checkpoint_every=settings.checkpoint_every)

    def load_key(self, settings: Settings, server: PostgresServer) -> tuple[object, ...]:
        """A PostgreSQL load is set apart by its checkpoint interval (the server has its
        own ``shared_buffers``)."""
        return (settings.checkpoint_every,)

    def cache(self, settings: Settings, server: PostgresServer,
              results: Sequence[LoadResult]) -> Text:
        """``shared_buffers``, in MB."""
        return _cache_in_mb(N_("shared_buffers {mb:,} MB"), results)


class WiredTigerTree(BTreeEngine[None]):
    """WiredTiger embedded through its binding: a table shaped like mongod's ``_id`` index."""

    key = "wiredtiger"
    binding = "wiredtiger"

    def ready(self) -> None:
        """Import the binding, or say how to install it (``ServerUnavailable``)."""
        wiredtiger_module()

    def version(self, server: None) -> str:
        """The embedded WiredTiger library's version."""
        return wiredtiger_version()

    def load(self, kind: str, n: int, settings: Settings, server: None,
             progress: Progress | None = None) -> LoadResult:
        """``run_wiredtiger`` through a cache of ``settings.cache_mb`` (``WT_CACHE_MB``)."""
        return run_wiredtiger(kind, n, settings.cache_mb or WT_CACHE_MB, progress=progress,
                              checkpoint_every=settings.checkpoint_every)

    def load_key(self, settings: Settings, server: None) -> tuple[object, ...]:
        """A WiredTiger load is set apart by its cache and checkpoint interval."""
        return (settings.cache_mb or WT_CACHE_MB, settings.checkpoint_every)

    def cache(self, settings: Settings, server: None, results: Sequence[LoadResult]) -> Text:
        """WiredTiger's cache, in MB."""
        return Message(N_("WiredTiger cache {mb:,} MB"), mb=settings.cache_mb or WT_CACHE_MB)


class MongoTree(BTreeEngine["MongoServer"]):
    """MongoDB: a fresh database's ``_id`` index, through whatever the user may run."""

    key = "mongodb"
    server = "mongodb"
    cache_floor = Message(N_(" (the smallest cache mongod accepts)"))

    def cache_range_mb(self) -> tuple[int, int]:
        """mongod's own range (``servers.check_cache_gb``), in MB."""
        return round(MIN_CACHE_GB * 1024), round(MAX_CACHE_GB * 1024)

    def version(self, server: MongoServer) -> str:
        """The server's version."""
        return server.version

    def load(self, kind: str, n: int, settings: Settings, server: MongoServer,
             progress: Progress | None = None) -> LoadResult:
        """``run_mongodb`` on ``server``."""
        return run_mongodb(server, kind, n, progress=progress,
                           checkpoint_every=settings.checkpoint_every)

    def load_key(self, settings: Settings, server: MongoServer) -> tuple[object, ...]:
        """A MongoDB load is set apart by the server's cache and the checkpoint interval."""
        return (server.cache_gb, settings.checkpoint_every)

    def cache(self, settings: Settings, server: MongoServer,
              results: Sequence[LoadResult]) -> Text:
        """The server's cache, as the server reports it."""
        return server.cache


# Every B-tree engine, by key, in the order the help and the errors list them.
ENGINES: dict[str, BTreeEngine[Any]] = {
    engine.key: engine for engine in (ModelTree(), SQLiteTree(), PostgresTree(),
                                      WiredTigerTree(), MongoTree())}


def engine(key: str) -> BTreeEngine[Any]:
    """The B-tree engine of ``key``; an unknown one is refused with the list of engines."""
    if key not in ENGINES:
        raise BadInput(Message(N_("unknown engine {engine}; choose from {known}"),
                               engine=repr(key), known=", ".join(ENGINES)))
    return ENGINES[key]


def check_request(engine_key: str, n: int, cache_mb: int | None = None,
                  checkpoint_every: int | None = None) -> None:
    """Refuse an unknown engine, a key count, a cache size or a checkpoint interval out of
    range, before any server is started (``BTreeEngine.check``)."""
    engine(engine_key).check(n, Settings(cache_mb=cache_mb, checkpoint_every=checkpoint_every))


def measurement(engine_key: str, kinds: Sequence[str], n: int, *, cache_mb: int | None = None,
                capacity: int = 64, policy: str = "half", trace_every: int = 0,
                server: Any = None, progress: Callable[[str, int], None] | None = None,
                checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY) -> Measurement:
    """Every key kind loaded into one engine, checked first (``check_request``).

    ``server`` is a running PostgreSQL or MongoDB server for those engines; ``capacity``,
    ``policy`` and ``trace_every`` configure the model; real engines meet a checkpoint every
    ``checkpoint_every`` keys (None: only before and after the load). Each load is rated
    beside the others (``btree_io.add_ratios``).
    """
    chosen = engine(engine_key)
    settings = Settings(cache_mb=cache_mb, checkpoint_every=checkpoint_every, capacity=capacity,
                        policy=policy, trace_every=trace_every)
    chosen.check(n, settings)
    return chosen.measurement(kinds, n, settings, server, progress)


def measure(engine_key: str, kinds: Sequence[str], n: int, *, cache_mb: int | None = None,
            capacity: int = 64, policy: str = "half", trace_every: int = 0, server: Any = None,
            progress: Callable[[str, int], None] | None = None,
            checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY) -> dict[str, Any]:
    """``measurement(...)`` as its dictionary: ``{"engine", "engine_version", "n", "cache",
    "checkpoint_every", "results"}``, as ``labkit btree`` and the plots read it."""
    return measurement(engine_key, kinds, n, cache_mb=cache_mb, capacity=capacity,
                       policy=policy, trace_every=trace_every, server=server,
                       progress=progress, checkpoint_every=checkpoint_every).to_dict()


# The dictionary form, as outputs/, lessons/ and labkit/cli.py read it ----------------------


def size(result: dict[str, Any]) -> int:
    """A result's index size: bytes where the engine reports them, else leaf pages (the model)."""
    return index_size(result["keys"], result.get("index_bytes"), result.get("leaf_pages"),
                      result.get("index_bytes_why"))


def summary(result: dict[str, Any]) -> dict[str, Any]:
    """A result without its long per-page and per-batch lists (for tables and JSON)."""
    return {k: v for k, v in result.items() if k not in LONG}
