"""B-tree page splits under different keys, measured on real engines and on the textbook
model (``engines.btree_model``).

Each ``run_<engine>`` loads one key kind and returns a result dict with at least
``keys``, ``n``, ``index_bytes``, ``leaf_pages``, ``avg_leaf_fill`` (0..1, or
None where the engine cannot tell), ``insert_seconds``, and the engine's own
counters. ``measure`` runs several key kinds on one engine.
"""

from __future__ import annotations

import os
import sqlite3
import struct
import time
import uuid
from collections.abc import Callable
from typing import Any

from labkit import _defaults
from labkit.engines import btree_io
from labkit.engines.btree_model import Progress, model_version, run_model
from labkit.engines.wt_binding import wiredtiger_module, wiredtiger_version, wt_inserter
from labkit.engines.wt_binding import wt_stats as _wt_stats
from labkit.errors import BadInput
from labkit.i18n import N_, Message
from labkit.i18n import shown as shown_text
from labkit.model import keys as keymod
from labkit.servers import MIN_CACHE_GB, refused
from labkit.servers.reaper import scratch_folder

ENGINES = ("model", "sqlite", "postgres", "wiredtiger", "mongodb")
# Keys per kind for the claims, the lesson and ``labkit run`` (LABKIT_BTREE_N, --btree-n).
DEFAULT_N = _defaults.BTREE_N
MAX_N = 100_000_000  # a bound on a single load; the model holds every key in memory
MODEL_TRACE_POINTS = 50  # the model records its split count this many times per load
WT_CACHE_MB = _defaults.WT_CACHE_MB
# SQLite's page cache unless --cache-mb says otherwise, as WiredTiger's: its reads are not
# counted (btree_io.SQLITE_NO_CACHE_READS); the WAL frames are the same as with its own 2 MB.
SQLITE_CACHE_MB = WT_CACHE_MB
# What "index size" means wherever a file is measured (embedded WiredTiger and mongod alike).
SIZE_MEANING = "file size less the space free for reuse, after a checkpoint"


# SQLite ---------------------------------------------------------------------------------


def sqlite_load(path: str, kind: str, n: int, batch: int = 10_000,
                progress: Progress | None = None, checkpoint_every: int | None = None,
                cache_mb: int | None = None) -> tuple[float, dict]:
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
        return conn.execute("SELECT pagetype, pgsize, unused FROM dbstat "
                            "WHERE name = 'sqlite_autoindex_t_1'").fetchall()
    finally:
        conn.close()


def run_sqlite(kind: str, n: int, batch: int = 10_000, progress: Progress | None = None,
               checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY,
               cache_mb: int | None = None) -> dict:
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
    return {"keys": kind, "n": n, "index_bytes": sum(size for _, size, _ in pages),
            "leaf_pages": len(leaves),
            "avg_leaf_fill": sum(s - u for s, u in leaves) / sum(s for s, _ in leaves),
            "insert_seconds": seconds, "interior_pages": len(pages) - len(leaves),
            "file_bytes": file_bytes, "leaf_fills": fills,
            "checkpoint_every": checkpoint_every, **io}


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
    return _INT.unpack(key)[0]


def pg_converter(kind: str) -> Callable[[bytes], object]:
    """The function turning a key's bytes into the value psycopg sends for its column."""
    if PG_TYPES[kind] == "uuid":
        return _uuid_from_bytes
    if kind == "int":
        return _int_from_bytes
    return bytes


def postgres_load(conn, kind: str, n: int, batch: int = 10_000,
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


def postgres_table(conn, kind: str) -> None:
    """A fresh table ``t`` whose primary key has the column type of ``kind``."""
    conn.execute("DROP TABLE IF EXISTS t")
    conn.execute(f"CREATE TABLE t (id {PG_TYPES[kind]} PRIMARY KEY)")


def postgres_index_stats(conn) -> dict:
    """``pgstatindex`` of ``t_pkey`` and the fill of each leaf page from ``pageinspect``."""
    conn.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
    conn.execute("CREATE EXTENSION IF NOT EXISTS pageinspect")
    row = conn.execute("SELECT tree_level, index_size, internal_pages, leaf_pages, "
                       "empty_pages, deleted_pages, avg_leaf_density, leaf_fragmentation "
                       "FROM pgstatindex('t_pkey')").fetchone()
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


def run_postgres(server, kind: str, n: int, batch: int = 10_000,
                 progress: Progress | None = None,
                 checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY) -> dict:
    """COPY keys of ``kind`` into a fresh database; read the primary key index's statistics
    and what the load wrote and read (``btree_io.pg_io``).

    A ``CHECKPOINT`` comes before the load, every ``checkpoint_every`` keys and at its end,
    so every key kind meets checkpoints at the same interval. Refused up front, as
    ``ServerUnavailable``, where the role is not a superuser: the statistics come from the
    pgstattuple and pageinspect extensions, which only a superuser may create.
    """
    server.require("the B-tree load on PostgreSQL", superuser=True)
    dsn = server.fresh_database(f"btree_{kind}")
    try:
        with server.connect(dsn) as conn:
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
    return {"keys": kind, "n": n, "index_bytes": stats["index_size"],
            "leaf_pages": stats["leaf_pages"], "avg_leaf_fill": stats["avg_leaf_density"] / 100,
            "insert_seconds": seconds, "column_type": PG_TYPES[kind],
            "checkpoint_every": checkpoint_every, **io,
            **{k: v for k, v in stats.items() if k not in ("index_size", "leaf_pages")}}


# WiredTiger (embedded) ------------------------------------------------------------------

WT_TABLE_CONFIG = ("key_format=u,value_format=u,internal_page_max=16k,leaf_page_max=16k,"
                   "prefix_compression=true")
WT_COUNTERS = (
    "cache: leaf pages split during eviction", "cache: internal pages split during eviction",
    "cache: in-memory page splits", "cache: pages read into cache",
    "cache: pages written from cache", "reconciliation: leaf page multi-block writes",
    "reconciliation: page reconciliation calls", "btree: maximum tree depth",
)


def _wt_walk(wt, home: str) -> dict[str, int]:
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
                   checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY) -> dict:
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


def _wiredtiger_load(wt, home: str, kind: str, n: int, cache_mb: int, batch: int,
                     progress: Progress | None, checkpoint_every: int | None) -> dict:
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
        return {"keys": kind, "n": n, "index_bytes": file_bytes - reusable,
                "file_bytes": file_bytes, "size_meaning": SIZE_MEANING,
                "leaf_pages": leaf_pages, "avg_leaf_fill": image / 16384 if image else None,
                "insert_seconds": seconds, "cache_mb": cache_mb,
                "checkpoint_every": checkpoint_every, **io,
                "internal_pages": walk.get("btree: row-store internal pages"),
                "avg_page_image_bytes": image,
                "reusable_bytes": reusable,
                **{name: counters.get(name) for name in WT_COUNTERS}}
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


def mongo_value(kind: str, key: bytes):
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


def _storage_stats(collection) -> dict:
    """``$collStats``'s ``storageStats`` for the collection (the manual's "$collStats")."""
    return next(collection.aggregate([{"$collStats": {"storageStats": {}}}]))["storageStats"]


def _index_figures(stats: dict) -> tuple[int, dict]:
    """``indexSizes._id_`` and the ``_id`` index's counters (``MONGO_COUNTERS``) from
    ``storageStats`` (src/mongo/db/stats/storage_stats.cpp: ``indexSizes`` and
    ``indexDetails``, each index's WiredTiger statistics grouped by their prefix)."""
    details = stats.get("indexDetails", {}).get("_id_", {})
    counters = {f"{group}: {name}": details.get(group, {}).get(name)
                for group, names in MONGO_COUNTERS.items() for name in names}
    return stats["indexSizes"]["_id_"], counters


def _id_index_stats(collection) -> tuple[int, dict]:
    """The ``_id`` index's file size and counters, read now."""
    return _index_figures(_storage_stats(collection))


def _read_stats(collection) -> tuple[dict | None, str | None]:
    """``storageStats`` now, or None and why where the server refuses ``$collStats``."""
    try:
        return _storage_stats(collection), None
    except Exception as exc:
        if refused(exc):  # 13 Unauthorized, or Atlas's 8000
            return None, btree_io.refusal("$collStats", exc)
        raise


def _during(before: dict, after: dict) -> dict:
    """Counters as differences across the load; gauges as read after it (None if absent)."""
    out = {}
    for name, value in after.items():
        if name in MONGO_GAUGES or not isinstance(value, int):
            out[name] = value
        else:
            out[name] = value - before[name] if isinstance(before.get(name), int) else None
    return out


def run_mongodb(server, kind: str, n: int, batch: int = 1_000,
                progress: Progress | None = None,
                checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY) -> dict:
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
        collection = database.create_collection("t")
        client = server.client()
        stats, counters_why = _read_stats(collection)
        logged = btree_io.mongo_logged(stats, client)
        io_before = btree_io.mongo_status(client)
        refusals: list[str] = []

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
        figures: dict = {"file_bytes": None, **dict.fromkeys(MONGO_COUNTER_NAMES)}
        if stats is not None and after is not None:
            file_bytes, counters_after = _index_figures(after)
            figures = {"file_bytes": file_bytes,
                       **_during(_index_figures(stats)[1], counters_after)}
        reusable = figures["block-manager: file bytes available for reuse"]
        why = counters_why or not_checkpointed
        live = figures["file_bytes"] - reusable if isinstance(reusable, int) and not why else None
        result = {"keys": kind, "n": n, "index_bytes": live, "size_meaning": SIZE_MEANING,
                  "leaf_pages": None, "avg_leaf_fill": None, "insert_seconds": seconds,
                  "inserts_per_second_by_batch": rates, "checkpoint_every": checkpoint_every,
                  "checkpoints_refused": bool(refusals or not_checkpointed), "logged": logged,
                  "smallest_cache_bytes": MONGO_SMALLEST_CACHE, **io, **figures}
        # Why a figure is missing, only where one is.
        result.update({key: value for key, value in (("index_bytes_why", why),
                                                      ("counters_why", counters_why)) if value})
        return result
    finally:
        server.drop(database.name)


def _checkpoint(client: Any) -> str | None:
    """``fsync``: a checkpoint, so the index file holds its pages. None once taken; where the
    user may not (no ``fsync`` action; MongoDB Atlas refuses it to every user), why: without a
    checkpoint the file's size says nothing, so no index size is reported and the size claims
    are not run there, rather than turned into an error (docs/hosted.md)."""
    try:
        client.admin.command("fsync")
    except Exception as exc:
        if refused(exc):  # 13 Unauthorized, or Atlas's 8000
            return btree_io.refusal("fsync", exc)
        raise
    return None


# One engine, several key kinds ----------------------------------------------------------


def check_n(n: int, name: str = "--n") -> None:
    """Refuse a key count outside 1..MAX_N, naming the option it came from."""
    if not 1 <= n <= MAX_N:
        raise BadInput(f"{name} must be between 1 and {MAX_N:,} keys, not {n:,}")


def check_request(engine: str, n: int, cache_mb: int | None = None,
                  checkpoint_every: int | None = None) -> None:
    """Refuse an unknown engine, a key count, a cache size or a checkpoint interval out of
    range, before any server is started. A mongod's cache follows mongod's own range
    (``servers.check_cache_gb``); PostgreSQL's ``shared_buffers``, WiredTiger's cache and
    SQLite's page cache take 1 MB and more."""
    if engine not in ENGINES:
        raise BadInput(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    check_n(n)
    btree_io.check_checkpoint_every(checkpoint_every)
    if cache_mb is None:
        return
    from labkit import servers

    low, high = ((round(servers.MIN_CACHE_GB * 1024), round(servers.MAX_CACHE_GB * 1024))
                 if engine == "mongodb" else (1, round(servers.MAX_CACHE_GB * 1024)))
    if not low <= cache_mb <= high:
        why = " (the smallest cache mongod accepts)" if engine == "mongodb" else ""
        raise BadInput(f"--cache-mb must be between {low}{why} and {high}, not {cache_mb}")


def measure(engine: str, kinds: list[str], n: int, *, cache_mb: int | None = None,
            capacity: int = 64, policy: str = "half", trace_every: int = 0, server=None,
            progress: Callable[[str, int], None] | None = None,
            checkpoint_every: int | None = _defaults.CHECKPOINT_EVERY) -> dict:
    """Run every key kind on one engine: ``{"engine", "engine_version", "n", "results"}``.

    ``server`` is a running PostgreSQL or MongoDB server for those engines;
    ``capacity``, ``policy`` and ``trace_every`` configure the model; real engines meet a
    checkpoint every ``checkpoint_every`` keys (None: only before and after the load).
    Each result carries its bytes written per key and as a ratio to the sequential kinds
    measured beside it (``btree_io.add_ratios``).
    """
    check_request(engine, n, cache_mb, checkpoint_every)
    every = checkpoint_every

    def tick(kind: str) -> Progress | None:
        return (lambda count: progress(kind, count)) if progress else None

    runners = {
        "model": lambda k: run_model(k, n, capacity, policy, tick(k), trace_every),
        "sqlite": lambda k: run_sqlite(k, n, progress=tick(k), checkpoint_every=every,
                                       cache_mb=cache_mb),
        "postgres": lambda k: run_postgres(server, k, n, progress=tick(k),
                                           checkpoint_every=every),
        "wiredtiger": lambda k: run_wiredtiger(k, n, cache_mb or WT_CACHE_MB, progress=tick(k),
                                               checkpoint_every=every),
        "mongodb": lambda k: run_mongodb(server, k, n, progress=tick(k), checkpoint_every=every),
    }
    versions = {"model": model_version, "sqlite": sqlite_version,
                "wiredtiger": wiredtiger_version,
                "postgres": lambda: server.version, "mongodb": lambda: server.version}
    version = versions[engine]()
    results = [runners[engine](kind) for kind in kinds]
    btree_io.add_ratios(results)
    return {"engine": engine, "engine_version": version, "n": n,
            "cache": cache_text(engine, cache_mb, server, results),
            "checkpoint_every": every if engine != "model" else None, "results": results}


def cache_text(engine: str, cache_mb: int | None, server, results: list[dict]) -> str:
    """The cache a measurement loaded through, in words ("" for the model)."""
    if engine == "wiredtiger":
        return Message(N_("WiredTiger cache {mb:,} MB"), mb=cache_mb or WT_CACHE_MB)
    if engine == "mongodb":
        return getattr(server, "cache", "")
    sizes = [r["cache_bytes"] for r in results if r.get("cache_bytes")]
    names = {"postgres": N_("shared_buffers {mb:,} MB"),
             "sqlite": N_("SQLite page cache {mb:,} MB")}
    if not sizes or engine not in names:
        return ""
    mb = round(max(sizes) / 2**20, 2)
    return Message(names[engine], mb=int(mb) if mb.is_integer() else mb)


def size(result: dict) -> int:
    """A result's index size: bytes where the engine reports them, else leaf pages (the model)."""
    if result.get("index_bytes") is not None:
        return result["index_bytes"]
    if result.get("leaf_pages") is None:
        from labkit.claims.claim import Unobservable

        why = result.get("index_bytes_why")
        raise Unobservable(Message(N_("no index size was measured for {kind} keys: {why}"),
                                   kind=result["keys"], why=why) if why else
                           f"no index size was measured for {result['keys']} keys")
    return result["leaf_pages"]


def size_unit(result: dict) -> str:
    """What ``size`` counts for this result: bytes, or leaf pages."""
    return N_("bytes") if result.get("index_bytes") is not None else N_("leaf pages")


def larger_by(measurement: dict, kind: str, than: str) -> float:
    """How much larger ``kind``'s index is than ``than``'s, as a fraction (0.25 = 25% larger)."""
    by_kind = {r["keys"]: r for r in measurement["results"]}
    return size(by_kind[kind]) / size(by_kind[than]) - 1


def summary(result: dict) -> dict:
    """A result without its long per-page and per-batch lists (for tables and JSON)."""
    return {k: v for k, v in result.items()
            if k not in ("leaf_fills", "splits_trace", "trace_every",
                         "inserts_per_second_by_batch")}


# What a table says below its rows, once for the key kinds it concerns: what the figures mean
# and why one is missing or marked.
SAID_BELOW = (("write_meaning", "write"), ("write_bytes_why", "write"),
              ("write_disturbed", "write"), ("cache_reads_why", "cache"),
              ("cache_reads_disturbed", "cache"), ("index_bytes_why", "index bytes"),
              ("counters_why", "counters"))


def table(measurement: dict) -> str:
    """A measurement as a plain-text table: size, leaf pages, fill, time, then other counters.

    A comparison entry that did not run (``{"engine", "not_run"}``) is one line.
    """
    if "not_run" in measurement:
        return f"{measurement['engine']}: not run ({measurement['not_run']})"
    if "error" in measurement:
        return f"{measurement['engine']}: error ({measurement['error']})"
    head = f"{measurement['engine']} {measurement['engine_version']}, N = {measurement['n']:,}"
    if measurement.get("cache"):
        head += f", {measurement['cache']}"
    lines = [head, f"{'keys':<12} {'index bytes':>13} {'leaf pages':>10} {'avg fill':>8} "
                   f"{'insert s':>9} {'written/key':>11} {'cache reads':>11}  other"]
    shown = {"keys", "n", "index_bytes", "leaf_pages", "avg_leaf_fill", "insert_seconds",
             "size_meaning", "write_bytes_per_key", "cache_reads", *(k for k, _ in SAID_BELOW)}
    for r in map(summary, measurement["results"]):
        cells = [f"{r['avg_leaf_fill']:.1%}" if r["avg_leaf_fill"] is not None else "-"]
        cells += [f"{r[k]:,.0f}" if r.get(k) is not None else "-"
                  for k in ("index_bytes", "leaf_pages", "write_bytes_per_key", "cache_reads")]
        fill, size, pages, per_key, reads = cells
        other = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                          for k, v in r.items() if k not in shown)
        lines.append(f"{r['keys']:<12} {size:>13} {pages:>10} {fill:>8} "
                     f"{r['insert_seconds']:>9.2f} {per_key:>11} {reads:>11}  {other}")
    results = measurement["results"]
    for key, label in SAID_BELOW:
        said: dict[str, list[str]] = {}
        for r in results:
            if r.get(key):
                said.setdefault(r[key], []).append(r["keys"])
        for text, kinds in said.items():
            scope = "" if len(kinds) == len(results) else f" ({', '.join(kinds)})"
            lines.append(f"{label}{scope}: {shown_text(text)}")
    meaning = next((r["size_meaning"] for r in measurement["results"] if "size_meaning" in r), "")
    if meaning:
        lines.append(f"index bytes: {meaning}")
    return "\n".join(lines)
