"""MongoDB as a B-tree engine: ``{_id: key}`` documents inserted into a fresh database, the
``_id`` index's size and WiredTiger counters read with ``$collStats``, and what the server
wrote and read from ``serverStatus``: server-wide, so marked where other clients worked on the
server during the load. What the server refuses this user leaves its figures None, with why.
"""

from __future__ import annotations

import dataclasses
import math
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from labkit.engines.btree_engine import (
    BTreeEngine,
    Checkpoints,
    LoadResult,
    Progress,
    Reasons,
    Settings,
)
from labkit.engines.btree_wiredtiger import SIZE_MEANING, WT_IO_STATS, WiredTigerIO, wt_io
from labkit.errors import server_said
from labkit.i18n import N_, Message, Text, joined
from labkit.model import keys as keymod
from labkit.servers import (
    ATLAS_ERROR,
    MAX_CACHE_GB,
    MIN_CACHE_GB,
    in_replica_set,
    missing_command,
    refused,
)
from labkit.servers.privileges import NEED_BY_ACTION

if TYPE_CHECKING:
    from bson import Int64, ObjectId
    from pymongo.collection import Collection
    from pymongo.mongo_client import MongoClient

    from labkit.servers import MongoServer

# A statistics reading: WiredTiger's descriptions ("cache: in-memory page splits") to values.
Counters = dict[str, Any]

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
# A server that speaks MongoDB's protocol without the command (FerretDB has no fsync): 59,
# CommandNotFound, as mongod answers a name it does not know (src/mongo/base/error_codes.yml).
NO_SUCH_COMMAND = N_("this server has no {command} command ({said}): no role grants it, so "
                     "labkit measures the rest")
NO_WIREDTIGER = N_("this server's serverStatus has no wiredTiger section (a hosted tier or a "
                   "mongos leaves it out): labkit measures the rest")


def not_given(exc: BaseException) -> bool:
    """Whether the server will not run a command for this load: refused to this user (13, or
    Atlas's 8000), or not one of its commands (59, as FerretDB answers fsync). Either way the
    figure it gives is missing, with ``refusal``'s reason, and the rest is measured."""
    return refused(exc) or missing_command(exc)


def refusal(command: str, exc: Any) -> Message:
    """Why a figure is missing where the server refused ``command``: the action the user lacks
    and the built-in roles that grant it (``servers.privileges``, the one table of them); or,
    where Atlas's proxy refused it (8000), what it said, without role advice: its tiers refuse
    some commands to every user."""
    if exc.code == ATLAS_ERROR:
        return Message(HOSTED_REFUSED, command=command, said=server_said(exc))
    if missing_command(exc):
        return Message(NO_SUCH_COMMAND, command=command, said=server_said(exc))
    need = NEED_BY_ACTION[ACTIONS[command]]
    return Message(REFUSED, command=command, code=exc.code, action=need.action,
                   where=need.where(), roles=", ".join(need.roles))


def mongo_status(client: Any) -> dict[str, Any]:
    """One reading of ``serverStatus``: the WiredTiger figures named in ``WT_IO_STATS``
    (flattened to the statistics cursor's ``"group: name"`` descriptions) and the operation
    counters, with the time it was read; ``{"refused": why}`` where the server refuses the
    command to this user."""
    try:
        status = client.admin.command("serverStatus")
    except Exception as exc:
        if not_given(exc):
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
    return Int64(int.from_bytes(key, "big", signed=True))


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
        if not_given(exc):
            return None, refusal("$collStats", exc)
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
        out.update(self.disturbed())
        return out


@dataclass
class MongoLoad(LoadResult):
    """mongod: the ``_id`` index's file (``file_bytes``, ``indexSizes._id_``) and its
    WiredTiger statistics (``counters``: differences across the load, sizes as read after
    it), inserts per second by batch, whether a checkpoint was refused, whether the collection
    is logged, and mongod's smallest cache in bytes. No leaf pages or fill: the server reads
    its tree statistics in "fast" mode. A refused ``$collStats`` or ``fsync`` leaves the index
    figures None, with why (``index_bytes_why``, ``counters_why``)."""

    size_meaning = SIZE_MEANING

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
                    ("size_meaning", self.size_meaning), ("leaf_pages", self.leaf_pages),
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


class MongoTree(BTreeEngine["MongoServer"]):
    """MongoDB: a fresh database's ``_id`` index, through whatever the user may run."""

    key = "mongodb"
    server = "mongodb"
    batch = 1_000
    cache_floor = Message(N_(" (the smallest cache mongod accepts)"))

    def cache_range_mb(self) -> tuple[int, int]:
        """mongod's own range (``servers.check_cache_gb``), in MB."""
        return round(MIN_CACHE_GB * 1024), round(MAX_CACHE_GB * 1024)

    def version(self, server: MongoServer) -> str:
        """The server's version."""
        return server.version

    def load(self, kind: str, n: int, settings: Settings, server: MongoServer,
             progress: Progress | None = None) -> MongoLoad:
        """Insert ``{_id: key}`` documents in batches; read the ``_id`` index's size and counters,
        and what the server wrote and read (``mongo_io``: ``serverStatus``, server-wide,
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
            # A failure of the server, or the database's lease lost meanwhile (MongoDB would
            # make a dropped database again at the next insert), is one ServerUnavailable
            # (``Server.working``): no measurement stands on a database a clean-up dropped.
            with server.working():
                # A fresh database never holds it: no listCollections check (pymongo's
                # check_exists), which a role without listCollections would be refused.
                collection = database.create_collection("t", check_exists=False)
                return _load(server.client(), collection, kind, n, self._batch(settings),
                             settings.checkpoint_every, progress)
        finally:
            server.drop(database.name)

    def load_key(self, settings: Settings, server: MongoServer) -> tuple[object, ...]:
        """A MongoDB load is set apart by the server's cache and the checkpoint interval."""
        return (server.cache_gb, settings.checkpoint_every)

    def cache(self, settings: Settings, server: MongoServer,
              results: Sequence[LoadResult]) -> Text:
        """The server's cache, as the server reports it."""
        return server.cache


def _load(client: MongoClient[dict[str, Any]], collection: Collection[dict[str, Any]],
          kind: str, n: int, batch: int, checkpoint_every: int | None,
          progress: Progress | None) -> MongoLoad:
    """``MongoTree.load`` in its fresh collection: the readings before, the inserts with their
    checkpoints, the readings after."""
    stats, counters_why = _read_stats(collection)
    logged = mongo_logged(stats, client)
    io_before = mongo_status(client)
    refusals: list[Message] = []

    def checkpoint() -> None:
        why = _checkpoint(client)
        if why:
            refusals.append(why)

    checkpoints = Checkpoints(checkpoint_every, checkpoint)
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
    io = mongo_io(io_before, mongo_status(client), inserted=n, logged=logged)
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


def _checkpoint(client: MongoClient[dict[str, Any]]) -> Message | None:
    """``fsync``: a checkpoint, so the index file holds its pages. None once taken; where the
    user may not (no ``fsync`` action; MongoDB Atlas refuses it to every user), why: without a
    checkpoint the file's size says nothing, so no index size is reported and the size claims
    are not run there, rather than turned into an error (notebooks/hosted.md)."""
    try:
        client.admin.command("fsync")
    except Exception as exc:
        if not_given(exc):
            return refusal("fsync", exc)
        raise
    return None
