"""PostgreSQL as a B-tree engine: keys COPY'd into a fresh database's table, its primary key
index read with pgstattuple and pageinspect, and what the load wrote and read from the WAL's
position and the cumulative statistics."""

from __future__ import annotations

import math
import struct
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from labkit.engines.btree_engine import (
    BTreeEngine,
    Checkpoints,
    LoadIO,
    LoadResult,
    Progress,
    Reasons,
    Settings,
)
from labkit.i18n import N_, Message, Text
from labkit.model import keys as keymod

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.rows import TupleRow

    from labkit.servers import PostgresServer


# Other clients at work during a load. The WAL's position, the data pages written and the
# checkpoints are the cluster's, every database's: a load's bytes cannot be told from another
# load's on the same server (eight at once on one server wrote 1,400 to 5,100 bytes per key
# each, against 257 to 288 alone). What tells that others worked is the cumulative statistics of
# every other database (pg_stat_database): the rows they wrote and the blocks they read. labkit's
# own bookkeeping writes a few rows there (its lease, a comment on its database renewed once a
# minute, is a shared catalog's row) and so may autovacuum: allowed, as on mongod.
HOUSEKEEPING_ROWS = 10
ROWS_PER_MINUTE = 5
BLOCKS_PER_MINUTE = 200
OTHERS_WROTE = N_("other clients wrote to the server during the load: {others:,} rows in other "
                  "databases ({allowed:,} allowed for labkit's lease and the server's "
                  "housekeeping); the WAL and the data pages written are the whole server's, so "
                  "their bytes cannot be told from labkit's")
OTHERS_READ = N_("other clients read from the server during the load ({others:,} blocks read "
                 "into shared buffers in other databases, {allowed:,} allowed): they share the "
                 "cache, so this index's reads are not its own doing alone")
DATABASES_CHANGED = N_("databases were created or dropped on the server during the load: "
                       "CREATE DATABASE writes its template to the WAL, so the WAL's bytes "
                       "cannot be told from labkit's")


@dataclass(frozen=True)
class PostgresIO(LoadIO):
    """PostgreSQL: WAL bytes and full-page images, data pages written, checkpoints taken; the
    rows other databases wrote and the blocks they read meanwhile (``others_rows``,
    ``others_blocks``), which mark the figures as disturbed (``why``)."""

    wal_bytes: int = 0
    wal_fpi: int | None = None
    data_pages_written: int = 0
    checkpoints: int | None = None
    others_rows: int | None = None
    others_blocks: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The figures as the load's dictionary holds them, and what disturbed them."""
        out = {"write_bytes": self.write_bytes, "wal_bytes": self.wal_bytes,
               "wal_fpi": self.wal_fpi, "data_pages_written": self.data_pages_written,
               "checkpoints": self.checkpoints, "write_meaning": self.write_meaning,
               "cache_reads": self.cache_reads, "cache_bytes": self.cache_bytes,
               "others_rows": self.others_rows, "others_blocks": self.others_blocks}
        out.update(self.disturbed())
        return out


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


def _one(conn: Any, sql: str) -> Any:
    row = conn.execute(sql).fetchone()
    return row[0] if row else None


def _major(conn: Any) -> int:
    """The server's major version, from the number the server sent when the connection was
    made (psycopg's ``ConnectionInfo.server_version``, ``server_version_num``'s value): no
    round trip, where the checkpoint's wait asks for it every few milliseconds."""
    return int(conn.info.server_version) // 10000


def _pg_checkpoints(conn: Any) -> int:
    conn.execute("SELECT pg_stat_clear_snapshot()")
    return int(_one(conn, (
        "SELECT num_timed + num_requested FROM pg_stat_checkpointer" if _major(conn) >= 17
        else "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter")))


def _checkpoint(conn: Any, settle_seconds: float = 5.0) -> None:
    """``CHECKPOINT``, then wait (up to ``settle_seconds``) until the checkpointer has put it
    in the cumulative statistics: it reports after the command returns, so a snapshot taken at
    once could miss its writes and count them in the next load instead."""
    before = _pg_checkpoints(conn)
    conn.execute("CHECKPOINT")
    deadline = time.monotonic() + settle_seconds
    while _pg_checkpoints(conn) <= before and time.monotonic() < deadline:
        time.sleep(0.005)


def _snapshot(conn: Any) -> dict[str, Any]:
    """The cluster's write counters now: WAL position, full-page images, data pages written,
    checkpoints, and the pages of ``t_pkey`` read into shared buffers. Which view holds the
    data pages written depends on the version (``pg_stat_io`` from 16, ``pg_stat_bgwriter``
    before; checkpoints in ``pg_stat_checkpointer`` from 17)."""
    major = _major(conn)
    if major >= 15:
        conn.execute("SELECT pg_stat_force_next_flush()")
    conn.execute("SELECT pg_stat_clear_snapshot()")
    snap: dict[str, Any] = {"lsn": str(_one(conn, "SELECT pg_current_wal_lsn()"))}
    snap["wal_fpi"] = _one(conn, "SELECT wal_fpi FROM pg_stat_wal") if major >= 14 else None
    if major >= 16:
        snap["data_pages"] = _one(conn, "SELECT coalesce(sum(writes), 0) FROM pg_stat_io "
                                        "WHERE object = 'relation'")
    else:
        snap["data_pages"] = _one(conn, "SELECT buffers_checkpoint + buffers_clean + "
                                        "buffers_backend FROM pg_stat_bgwriter")
    snap["checkpoints"] = _pg_checkpoints(conn)
    snap["cache_reads"] = _one(conn, "SELECT coalesce(sum(idx_blks_read), 0) "
                                     "FROM pg_statio_user_indexes WHERE indexrelname = 't_pkey'")
    # Every other database's work so far (the shared catalogs' row has no name), and which
    # databases there are.
    others = conn.execute("SELECT coalesce(sum(tup_inserted + tup_updated + tup_deleted), 0), "
                          "coalesce(sum(blks_read), 0) FROM pg_stat_database "
                          "WHERE datname IS DISTINCT FROM current_database()").fetchone()
    snap["others_rows"], snap["others_blocks"] = (int(v) for v in others) if others else (0, 0)
    snap["databases"] = sorted(int(row[0]) for row in
                               conn.execute("SELECT oid FROM pg_database").fetchall())
    snap["at"] = time.monotonic()
    return snap


def _io(conn: Any, before: dict[str, Any], after: dict[str, Any]) -> PostgresIO:
    """What the load wrote and read, from two snapshots (``_snapshot``) around it. Full-page
    images are counted (``wal_fpi``), their bytes are inside ``wal_bytes``: the WAL of the
    earlier intervals is recycled at each checkpoint, so pg_walinspect cannot weigh them."""
    block = int(_one(conn, "SELECT current_setting('block_size')"))
    row = conn.execute("SELECT pg_wal_lsn_diff(%s::pg_lsn, %s::pg_lsn)",
                       (after["lsn"], before["lsn"])).fetchone()
    wal = int(row[0])
    pages = int(after["data_pages"] - before["data_pages"])

    def diff(name: str) -> int | None:
        return None if after[name] is None else int(after[name] - before[name])

    shared = _one(conn, "SELECT setting::bigint * current_setting('block_size')::bigint "
                        "FROM pg_settings WHERE name = 'shared_buffers'")
    rows, blocks = diff("others_rows"), diff("others_blocks")
    return PostgresIO(write_bytes=wal + pages * block, wal_bytes=wal, wal_fpi=diff("wal_fpi"),
                      data_pages_written=pages, checkpoints=diff("checkpoints"),
                      write_meaning=Message(N_("WAL bytes (LSN difference) + data pages "
                                               "written x block size")),
                      cache_reads=diff("cache_reads"), cache_bytes=int(shared),
                      others_rows=rows, others_blocks=blocks,
                      why=_disturbed(before, after, rows or 0, blocks or 0))


def _disturbed(before: dict[str, Any], after: dict[str, Any], rows: int,
               blocks: int) -> Reasons:
    """Why the load's figures are not its own alone, where other clients worked meanwhile:
    rows written in other databases beyond labkit's housekeeping, or a database made or
    dropped, disturb the write figures; blocks other databases read into the shared cache
    disturb the cache's."""
    minutes = math.ceil(max(after["at"] - before["at"], 0) / 60)
    allowed_rows = HOUSEKEEPING_ROWS + ROWS_PER_MINUTE * minutes
    allowed_blocks = BLOCKS_PER_MINUTE * max(minutes, 1)
    wrote: Message | None = None
    if before["databases"] != after["databases"]:
        wrote = Message(DATABASES_CHANGED)
    elif rows > allowed_rows:
        wrote = Message(OTHERS_WROTE, others=rows, allowed=allowed_rows)
    read = (Message(OTHERS_READ, others=blocks, allowed=allowed_blocks)
            if blocks > allowed_blocks else None)
    return Reasons(write_disturbed=wrote, cache_reads_disturbed=read)


PG_TYPES = {"uuid4": "uuid", "uuid7": "uuid", "uuid7-naive": "uuid", "objectid": "bytea",
            "int": "bigint"}
_INT = struct.Struct(">q")


def _uuid_from_bytes(key: bytes) -> uuid.UUID:
    return uuid.UUID(bytes=key)


def _int_from_bytes(key: bytes) -> int:
    value: int = _INT.unpack(key)[0]
    return value


def _converter(kind: str) -> Callable[[bytes], object]:
    """The function turning a key's bytes into the value psycopg sends for its column."""
    if PG_TYPES[kind] == "uuid":
        return _uuid_from_bytes
    if kind == "int":
        return _int_from_bytes
    return bytes


def copy_keys(conn: Connection[TupleRow], kind: str, n: int, batch: int = 10_000,
              progress: Progress | None = None, checkpoints: Checkpoints | None = None) -> float:
    """COPY ``n`` keys into table ``t`` (made by ``_table``) in batches, with the
    ``checkpoints`` given; return the seconds it took."""
    column, convert = PG_TYPES[kind], _converter(kind)
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


def _table(conn: Connection[TupleRow], kind: str) -> None:
    """A fresh table ``t`` whose primary key has the column type of ``kind``."""
    conn.execute("DROP TABLE IF EXISTS t")
    conn.execute(f"CREATE TABLE t (id {PG_TYPES[kind]} PRIMARY KEY)")


def _index_stats(conn: Connection[TupleRow]) -> dict[str, Any]:
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


class PostgresTree(BTreeEngine["PostgresServer"]):
    """PostgreSQL: a fresh database's primary key index (a superuser's: the statistics come
    from pgstattuple and pageinspect)."""

    key = "postgres"
    server = "postgres"

    def version(self, server: PostgresServer) -> str:
        """The server's version."""
        return server.version

    def load(self, kind: str, n: int, settings: Settings, server: PostgresServer,
             progress: Progress | None = None) -> PostgresLoad:
        """COPY keys of ``kind`` into a fresh database; read the primary key index's statistics
        and what the load wrote and read (``_io``).

        A ``CHECKPOINT`` comes before the load, every ``checkpoint_every`` keys and at its end,
        so every key kind meets checkpoints at the same interval. Refused up front, as
        ``ServerUnavailable``, where the role is not a superuser: the statistics come from the
        pgstattuple and pageinspect extensions, which only a superuser may create.
        """
        server.require(Message(N_("the B-tree load on PostgreSQL")), superuser=True)
        every = settings.checkpoint_every
        dsn = server.fresh_database(f"btree_{kind}")
        try:
            # The server ending the load's connection, or the database's lease lost meanwhile,
            # is one ServerUnavailable (``Server.working``).
            with server.working(), server.connect(dsn) as conn:
                _table(conn, kind)
                _checkpoint(conn)
                before = _snapshot(conn)
                checkpoints = Checkpoints(every, lambda: conn.execute("CHECKPOINT"))
                seconds = copy_keys(conn, kind, n, self._batch(settings), progress,
                                    checkpoints)
                _checkpoint(conn)
                io = _io(conn, before, _snapshot(conn))
                conn.execute("VACUUM ANALYZE t")
                stats = _index_stats(conn)
        finally:
            server.drop_created()
        return PostgresLoad(keys=kind, n=n, index_bytes=stats["index_size"],
                            leaf_pages=stats["leaf_pages"],
                            avg_leaf_fill=stats["avg_leaf_density"] / 100,
                            insert_seconds=seconds, column_type=PG_TYPES[kind],
                            checkpoint_every=every, io=io, tree_level=stats["tree_level"],
                            internal_pages=stats["internal_pages"],
                            empty_pages=stats["empty_pages"],
                            deleted_pages=stats["deleted_pages"],
                            avg_leaf_density=stats["avg_leaf_density"],
                            leaf_fragmentation=stats["leaf_fragmentation"],
                            leaf_fills=stats["leaf_fills"])

    def load_key(self, settings: Settings, server: PostgresServer) -> tuple[object, ...]:
        """A PostgreSQL load is set apart by its checkpoint interval (the server has its
        own ``shared_buffers``)."""
        return (settings.checkpoint_every,)

    def cache(self, settings: Settings, server: PostgresServer,
              results: Sequence[LoadResult]) -> Text:
        """``shared_buffers``, in MB."""
        return self._largest_cache(N_("shared_buffers {mb:,} MB"), results)
