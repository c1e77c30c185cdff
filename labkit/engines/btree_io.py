"""What a B-tree load wrote and read: each engine's own counters of write volume and of pages
read into its cache, with checkpoints at one interval for every key kind (claim U5).

Every engine is asked in its own words: PostgreSQL by the WAL's position (LSN) and its
cumulative statistics, WiredTiger by its statistics cursor, ``mongod`` by
``serverStatus().wiredTiger``, SQLite by the frames its write-ahead log took. What an engine
cannot tell stays None, with the reason beside it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from labkit.errors import BadInput
from labkit.i18n import N_

# Keys between two checkpoints, the same for every key kind (``--checkpoint-every``).
SEQUENTIAL = ("uuid7", "objectid", "int")
# A SQLite WAL frame is a 24-byte header followed by one page (sqlite.org/fileformat2.html).
SQLITE_FRAME_HEADER = 24
SQLITE_NO_CACHE_READS = N_("Python's sqlite3 module does not expose sqlite3_db_status "
                         "(SQLITE_DBSTATUS_CACHE_MISS), so SQLite's cache reads are not counted")
WT_IO_STATS = {"log_bytes": "log: log bytes written",
               "block_bytes": "block-manager: bytes written",
               "cache_reads": "cache: pages read into cache",
               "cache_bytes": "cache: maximum bytes configured"}


def check_checkpoint_every(every: int | None, name: str = "--checkpoint-every") -> None:
    """Refuse a checkpoint interval that is not a positive number of keys (None: none)."""
    if every is not None and (isinstance(every, bool) or every < 1):
        raise BadInput(f"{name} must be a positive number of keys (or none for no "
                       f"checkpoint during the load), not {every}")


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


def per_key(result: dict[str, Any]) -> float | None:
    """Bytes written per key loaded, or None where the engine did not tell."""
    written = result.get("write_bytes")
    return None if written is None else written / result["n"]


def add_ratios(results: list[dict[str, Any]]) -> None:
    """Give each result its bytes written per key and its write volume as a ratio to every
    sequential kind loaded beside it (``write_vs``: ``{"uuid7": 2.4, ...}``), and the ratio
    of its index size to the cache it loaded through (``index_to_cache``)."""
    by_kind = {r["keys"]: r for r in results}
    for result in results:
        result["write_bytes_per_key"] = per_key(result)
        if result.get("write_bytes") is not None:  # kept across calls: a run reuses its loads
            result.setdefault("write_vs", {}).update(
                {kind: round(result["write_bytes"] / base["write_bytes"], 3)
                 for kind, base in by_kind.items()
                 if kind in SEQUENTIAL and base.get("write_bytes")})
        index, cache = result.get("index_bytes"), result.get("cache_bytes")
        result["index_to_cache"] = round(index / cache, 3) if index and cache else None


# SQLite ---------------------------------------------------------------------------------


def sqlite_checkpoint(conn: Any, frames: list[int]) -> None:
    """Checkpoint the WAL into the database and restart it, noting the frames it held."""
    _busy, logged, _moved = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
    frames.append(max(logged, 0))


def sqlite_io(conn: Any, frames: list[int]) -> dict[str, Any]:
    """The WAL's frames times its frame size; the page cache's size (its reads not counted)."""
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA cache_size").fetchone()[0]
    cache = -pages * 1024 if pages < 0 else pages * page  # negative: KiB, as SQLite documents
    return {"write_bytes": sum(frames) * (page + SQLITE_FRAME_HEADER), "wal_frames": sum(frames),
            "write_meaning": "WAL frames x (page size + 24-byte frame header)",
            "cache_bytes": cache, "cache_reads": None, "cache_reads_why": SQLITE_NO_CACHE_READS}


# PostgreSQL -----------------------------------------------------------------------------


def _one(conn: Any, sql: str) -> Any:
    row = conn.execute(sql).fetchone()
    return row[0] if row else None


def pg_major(conn: Any) -> int:
    """The server's major version, from the number the server sent when the connection was
    made (psycopg's ``ConnectionInfo.server_version``, ``server_version_num``'s value): no
    round trip, where the checkpoint's wait asks for it every few milliseconds."""
    return int(conn.info.server_version) // 10000


def _pg_checkpoints(conn: Any) -> int:
    conn.execute("SELECT pg_stat_clear_snapshot()")
    return int(_one(conn, (
        "SELECT num_timed + num_requested FROM pg_stat_checkpointer" if pg_major(conn) >= 17
        else "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter")))


def pg_checkpoint(conn: Any, settle_seconds: float = 5.0) -> None:
    """``CHECKPOINT``, then wait (up to ``settle_seconds``) until the checkpointer has put it
    in the cumulative statistics: it reports after the command returns, so a snapshot taken at
    once could miss its writes and count them in the next load instead."""
    before = _pg_checkpoints(conn)
    conn.execute("CHECKPOINT")
    deadline = time.monotonic() + settle_seconds
    while _pg_checkpoints(conn) <= before and time.monotonic() < deadline:
        time.sleep(0.005)


def pg_snapshot(conn: Any) -> dict[str, Any]:
    """The cluster's write counters now: WAL position, full-page images, data pages written,
    checkpoints, and the pages of ``t_pkey`` read into shared buffers. Which view holds the
    data pages written depends on the version (``pg_stat_io`` from 16, ``pg_stat_bgwriter``
    before; checkpoints in ``pg_stat_checkpointer`` from 17)."""
    major = pg_major(conn)
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
    return snap


def pg_io(conn: Any, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What the load wrote and read, from two snapshots (``pg_snapshot``) around it. Full-page
    images are counted (``wal_fpi``), their bytes are inside ``wal_bytes``: the WAL of the
    earlier intervals is recycled at each checkpoint, so pg_walinspect cannot weigh them."""
    block = int(_one(conn, "SELECT current_setting('block_size')"))
    row = conn.execute("SELECT pg_wal_lsn_diff(%s::pg_lsn, %s::pg_lsn)",
                       (after["lsn"], before["lsn"])).fetchone()
    wal = int(row[0])
    pages = after["data_pages"] - before["data_pages"]

    def diff(name: str) -> int | None:
        return None if after[name] is None else int(after[name] - before[name])

    shared = _one(conn, "SELECT setting::bigint * current_setting('block_size')::bigint "
                        "FROM pg_settings WHERE name = 'shared_buffers'")
    return {"write_bytes": wal + pages * block, "wal_bytes": wal, "wal_fpi": diff("wal_fpi"),
            "data_pages_written": pages, "checkpoints": diff("checkpoints"),
            "write_meaning": "WAL bytes (LSN difference) + data pages written x block size",
            "cache_reads": diff("cache_reads"), "cache_bytes": int(shared)}


# WiredTiger and mongod ------------------------------------------------------------------


def wt_io(before: dict[str, int], after: dict[str, int], logged: bool = True
          ) -> dict[str, Any]:
    """Log and block-manager bytes written and pages read into the cache across a load, from
    two readings of WiredTiger's connection statistics (``WT_IO_STATS``' descriptions).
    ``logged=False``: a table with no log, as a replica-set member's are (its log bytes are
    None, not zero: a standalone ``mongod`` would log each insert, about the same bytes for
    every key kind)."""
    def diff(key: str) -> int | None:
        name = WT_IO_STATS[key]
        if not isinstance(after.get(name), int) or not isinstance(before.get(name), int):
            return None
        return after[name] - before[name]

    log, block = diff("log_bytes") if logged else None, diff("block_bytes")
    written = None if block is None else block + (log or 0)
    return {"write_bytes": written, "log_bytes": log, "block_bytes": block,
            "write_meaning": "log bytes + block-manager bytes written" if logged else
                             "block-manager bytes written (the table is not logged, as in a "
                             "replica set)",
            "cache_reads": diff("cache_reads"),
            "cache_bytes": after.get(WT_IO_STATS["cache_bytes"])}


def mongo_wt_stats(client: Any) -> dict[str, int]:
    """``serverStatus().wiredTiger``'s figures named in ``WT_IO_STATS``, flattened to the
    statistics cursor's ``"group: name"`` descriptions (the manual documents both)."""
    status = client.admin.command("serverStatus").get("wiredTiger", {})
    out = {}
    for name in WT_IO_STATS.values():
        group, field = name.split(": ", 1)
        value = status.get(group, {}).get(field)
        if isinstance(value, int):
            out[name] = value
    return out
