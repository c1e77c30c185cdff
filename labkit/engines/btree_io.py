"""What a B-tree load wrote and read: each engine's own counters of write volume and of pages
read into its cache, with checkpoints at one interval for every key kind (claim U5).

Every engine is asked in its own words: PostgreSQL by the WAL's position (LSN) and its
cumulative statistics, WiredTiger by its statistics cursor, ``mongod`` by
``serverStatus().wiredTiger``, SQLite by the frames its write-ahead log took. What an engine
cannot tell stays None, with the reason beside it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from labkit.engines.btree_results import (
    LoadResult,
    MongoIO,
    PostgresIO,
    Reasons,
    SQLiteIO,
    WiredTigerIO,
)
from labkit.errors import BadInput
from labkit.i18n import N_, Message, joined

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


# SQLite ---------------------------------------------------------------------------------


def sqlite_checkpoint(conn: Any, frames: list[int]) -> None:
    """Checkpoint the WAL into the database and restart it, noting the frames it held."""
    _busy, logged, _moved = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
    frames.append(max(logged, 0))


def sqlite_io(conn: Any, frames: list[int]) -> SQLiteIO:
    """The WAL's frames times its frame size; the page cache's size (its reads not counted)."""
    page = int(conn.execute("PRAGMA page_size").fetchone()[0])
    pages = int(conn.execute("PRAGMA cache_size").fetchone()[0])
    cache = -pages * 1024 if pages < 0 else pages * page  # negative: KiB, as SQLite documents
    return SQLiteIO(write_bytes=sum(frames) * (page + SQLITE_FRAME_HEADER),
                    wal_frames=sum(frames),
                    write_meaning=Message(N_("WAL frames x (page size + 24-byte frame "
                                             "header)")),
                    cache_bytes=cache, cache_reads=None,
                    why=Reasons(cache_reads_why=Message(SQLITE_NO_CACHE_READS)))


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


def pg_io(conn: Any, before: dict[str, Any], after: dict[str, Any]) -> PostgresIO:
    """What the load wrote and read, from two snapshots (``pg_snapshot``) around it. Full-page
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
    return PostgresIO(write_bytes=wal + pages * block, wal_bytes=wal, wal_fpi=diff("wal_fpi"),
                      data_pages_written=pages, checkpoints=diff("checkpoints"),
                      write_meaning=Message(N_("WAL bytes (LSN difference) + data pages "
                                               "written x block size")),
                      cache_reads=diff("cache_reads"), cache_bytes=int(shared))


# WiredTiger -----------------------------------------------------------------------------


def wt_io(before: dict[str, int], after: dict[str, int], logged: bool = True
          ) -> WiredTigerIO:
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
    return WiredTigerIO(write_bytes=written, log_bytes=log, block_bytes=block,
                        write_meaning=Message(N_("log bytes + block-manager bytes written"))
                        if logged else Message(N_("block-manager bytes written (the table is "
                                                  "not logged, as in a replica set)")),
                        cache_reads=diff("cache_reads"),
                        cache_bytes=after.get(WT_IO_STATS["cache_bytes"]))


# mongod ---------------------------------------------------------------------------------

# The action each command the B-tree load sends needs (the manual's "Privilege Actions").
ACTIONS = {"serverStatus": "serverStatus", "$collStats": "collStats", "fsync": "fsync"}
# serverStatus's operation counters (the manual's "serverStatus", opcounters: 64-bit integers
# since 4.2): what a load compares with its own work to tell whether others used the server.
# Where an aggregation counts moved between releases: a command, then a query (SERVER-66495),
# then an ``aggregate`` counter of its own (SERVER-123987), read where the server has it.
READS, WRITES = ("query", "getmore"), ("insert", "update", "delete")
OPCOUNTERS = (*WRITES, *READS)
# What the server itself and labkit's own bookkeeping add to the write counters during a load,
# besides its inserts: the lease each run's database renews once a minute (an update) and
# mongod's logical session cache, which writes config.system.sessions every 5 minutes.
HOUSEKEEPING_WRITES = 5
WRITES_PER_MINUTE = 2
SERVER_WIDE = Message(N_("server-wide (serverStatus): every client's work on the server "
                         "counts, labkit compares the server's operation counters with its "
                         "own to tell"))
REFUSED = N_("the server refused {command} (code {code}): the user lacks the {action} action "
             "{where}, which the built-in roles {roles} grant; labkit measures the rest")
OTHERS_WROTE = N_("other clients wrote to the server during the load: its operation counters "
                  "grew by {others:,} inserts, updates and deletes beyond labkit's own {own:,} "
                  "inserts (labkit allows {allowed:,} for its lease and the server's "
                  "housekeeping); the write counters are server-wide, so their bytes cannot be "
                  "told from labkit's")
OTHERS_READ = N_("other clients read from the server during the load ({others:,} queries and "
                 "getMores, {allowed:,} allowed); the cache counters are server-wide, so their "
                 "pages cannot be told from labkit's")
# On a replica set each secondary reads the oplog with getMores all the time, and every getMore
# counts in opcounters (GetMoreCmd's run() counts it first: src/mongo/db/commands/
# getmore_cmd.cpp, mongodb/mongo at 01018b26), replication's as any client's: there only the
# queries and aggregations tell another client's reads.
OTHERS_READ_REPLICA_SET = N_(
    "other clients read from the server during the load ({others:,} queries and aggregations, "
    "{allowed:,} allowed; getMores are not counted on a replica set, whose members read the "
    "oplog with them); the cache counters are server-wide, so their pages cannot be told from "
    "labkit's")
NO_WIREDTIGER_STATISTICS = N_("this server's serverStatus gave its wiredTiger section without "
                              "the statistics labkit reads (the server could not collect them "
                              "at that moment): labkit measures the rest")
COUNTERS_BACK = N_("the server's operation counters went back during the load (a restart?): "
                   "its write and cache counters cannot be compared across it")


HOSTED_REFUSED = N_("the hosted server refused {command} ({said}): such a tier may refuse it "
                    "to every user, whatever the role; labkit measures the rest")
NO_WIREDTIGER = N_("this server's serverStatus has no wiredTiger section (a hosted tier or a "
                   "mongos leaves it out): labkit measures the rest")


def refusal(command: str, exc: Any) -> Message:
    """Why a figure is missing where the server refused ``command``: the action the user lacks
    and the built-in roles that grant it (``servers.privileges``, the one table of them); or,
    where Atlas's proxy refused it (8000), what it said, without role advice: its tiers refuse
    some commands to every user."""
    from labkit.errors import server_said
    from labkit.servers import ATLAS_ERROR
    from labkit.servers.privileges import NEED_BY_ACTION

    if exc.code == ATLAS_ERROR:
        return Message(HOSTED_REFUSED, command=command, said=server_said(exc))
    need = NEED_BY_ACTION[ACTIONS[command]]
    return Message(REFUSED, command=command, code=exc.code, action=need.action,
                   where=need.where(), roles=", ".join(need.roles))


def mongo_status(client: Any) -> dict[str, Any]:
    """One reading of ``serverStatus``: the WiredTiger figures named in ``WT_IO_STATS``
    (flattened to the statistics cursor's ``"group: name"`` descriptions) and the operation
    counters, with the time it was read; ``{"refused": why}`` where the server refuses the
    command to this user."""
    from labkit.servers import in_replica_set, refused  # refused: 13, or Atlas's 8000

    try:
        status = client.admin.command("serverStatus")
    except Exception as exc:
        if refused(exc):
            return {"refused": refusal("serverStatus", exc)}
        raise
    if not isinstance(status.get("wiredTiger"), dict):
        return {"refused": Message(NO_WIREDTIGER)}
    tiger, ops = status["wiredTiger"], status.get("opcounters") or {}
    wt = {}
    for name in WT_IO_STATS.values():
        group, field = name.split(": ", 1)
        value = (tiger.get(group) or {}).get(field)
        if isinstance(value, int):
            wt[name] = value
    if not wt:  # the section without its statistics (wiredtiger_server_status.cpp gives it so
        # when it cannot take its lock at once, or cannot collect them)
        return {"refused": Message(NO_WIREDTIGER_STATISTICS)}
    # A member's serverStatus says in its repl section what its hello says (the manual's
    # "serverStatus" page, repl); a standalone's has none.
    repl = status.get("repl")
    return {"wt": wt, "at": time.monotonic(),
            "replica_set": isinstance(repl, dict) and in_replica_set(repl),
            "ops": {name: ops[name] for name in (*OPCOUNTERS, "aggregate")
                    if isinstance(ops.get(name), int)}}


def mongo_logged(storage_stats: dict[str, Any] | None, client: Any) -> bool:
    """Whether mongod logs the load's collection in WiredTiger. A standalone logs every table;
    a replica set's members log only the ``local`` database's (src/mongo/db/storage/wiredtiger/
    wiredtiger_util.cpp, ``useTableLogging``, applied to each table with ``setTableLogging``
    as ``log=(enabled=true|false)``). Read from the tables' own creation strings in
    ``$collStats``; where those are not given, from ``hello`` (``setName`` or ``isreplicaset``:
    a replica set)."""
    stats = storage_stats or {}
    configs = [(stats.get("wiredTiger") or {}).get("creationString"),
               ((stats.get("indexDetails") or {}).get("_id_") or {}).get("creationString")]
    for config in configs:
        if isinstance(config, str) and "log=(enabled=false)" in config:
            return False
        if isinstance(config, str) and "log=(enabled=true)" in config:
            return True
    from labkit.servers import in_replica_set

    return not in_replica_set(client.admin.command("hello"))


def _grew(before: dict[str, int], after: dict[str, int], names: tuple[str, ...],
          also: tuple[str, ...] = ()) -> int | None:
    """How much the counters ``names`` (and ``also``, where the server has them) grew; None
    where one of ``names`` is missing."""
    if not all(name in before and name in after for name in names):
        return None
    return sum(after[name] - before[name] for name in (*names, *also)
               if name in before and name in after)


def mongo_io(before: dict[str, Any], after: dict[str, Any], *, inserted: int,
             logged: bool) -> MongoIO:
    """What a load wrote and read on mongod, from two ``mongo_status`` readings around it: the
    bytes as ``wt_io`` counts them (the log only where the collection is logged), said to be
    server-wide, and marked where the server's operation counters show that others wrote
    (``write_disturbed``) or read (``cache_reads_disturbed``) during the load.

    The rule: labkit's own writes between the readings are its ``inserted`` documents, plus
    ``HOUSEKEEPING_WRITES`` and ``WRITES_PER_MINUTE`` for each minute begun (its lease, the
    server's session cache); any insert, update or delete beyond that is another client's,
    and so is any query, getMore or aggregation counted apart (labkit sends none between the
    readings; on a replica set, getMores are not counted: its members read the oplog with
    them). Commands are not counted: every driver's monitor and every monitoring agent
    sends them all the time, and they write no index pages. A refused ``serverStatus`` leaves
    each figure None, with why.
    """
    why = before.get("refused") or after.get("refused")
    if why:
        return MongoIO(write_bytes=None, cache_reads=None, cache_bytes=None,
                       write_meaning=SERVER_WIDE, refused=why,
                       why=Reasons(write_bytes_why=why, cache_reads_why=why))
    wt = wt_io(before["wt"], after["wt"], logged)
    minutes = math.ceil(max(after["at"] - before["at"], 0) / 60)
    allowed = HOUSEKEEPING_WRITES + WRITES_PER_MINUTE * minutes
    ops_before, ops_after = before["ops"], after["ops"]
    counted = not any(ops_after[k] < v for k, v in ops_before.items() if k in ops_after)
    others = reads = None
    if counted:
        writes = _grew(ops_before, ops_after, WRITES)
        replica_set = bool(before.get("replica_set") or after.get("replica_set"))
        reads = _grew(ops_before, ops_after, ("query",) if replica_set else READS,
                      also=("aggregate",))
        others = None if writes is None else writes - inserted
        wrote = (Message(OTHERS_WROTE, others=others, own=inserted, allowed=allowed)
                 if others is not None and others > allowed else None)
        read = (Message(OTHERS_READ_REPLICA_SET if replica_set else OTHERS_READ, others=reads,
                        allowed=allowed)
                if reads is not None and reads > allowed else None)
    else:
        wrote = read = Message(COUNTERS_BACK)
    return MongoIO(write_bytes=wt.write_bytes, log_bytes=wt.log_bytes, block_bytes=wt.block_bytes,
                   write_meaning=joined(", ", [wt.write_meaning, SERVER_WIDE]),
                   cache_reads=wt.cache_reads,
                   cache_bytes=wt.cache_bytes, counted=counted, others_writes=others,
                   others_reads=reads,
                   why=Reasons(write_disturbed=wrote, cache_reads_disturbed=read))


def outgrows_from(result: LoadResult, cache_bytes: int) -> int | None:
    """The N at which an index of this result's bytes per key outgrows ``cache_bytes``, or
    None where its size was not measured."""
    index = result.index_bytes
    if not index:
        return None
    return math.floor(cache_bytes * result.n / index) + 1
