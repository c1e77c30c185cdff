"""WiredTiger embedded as a B-tree engine: a table shaped like mongod's ``_id`` index, loaded
through the binding (imported, or said how to install), its pages counted by a tree walk, and
what the load wrote and read from WiredTiger's statistics, as mongod's load reads them too."""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from labkit import _defaults
from labkit.engines.btree_engine import (
    BTreeEngine,
    Checkpoints,
    LoadIO,
    LoadResult,
    Progress,
    Settings,
)
from labkit.errors import ServerUnavailable
from labkit.i18n import N_, Message, Text
from labkit.model import keys as keymod
from labkit.servers.reaper import scratch_folder

WT_CACHE_MB = _defaults.WT_CACHE_MB
# What "index size" means wherever a file is measured (embedded WiredTiger and mongod alike).
SIZE_MEANING = Message(N_("file size less the space free for reuse, after a checkpoint"))
WT_IO_STATS = {"log_bytes": "log: log bytes written",
               "block_bytes": "block-manager: bytes written",
               "cache_reads": "cache: pages read into cache",
               "cache_bytes": "cache: maximum bytes configured"}

WT_TABLE_CONFIG = ("key_format=u,value_format=u,internal_page_max=16k,leaf_page_max=16k,"
                   "prefix_compression=true")
WT_COUNTERS = (
    "cache: leaf pages split during eviction", "cache: internal pages split during eviction",
    "cache: in-memory page splits", "cache: pages read into cache",
    "cache: pages written from cache", "reconciliation: leaf page multi-block writes",
    "reconciliation: page reconciliation calls", "btree: maximum tree depth",
)


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


@dataclass
class WiredTigerLoad(LoadResult):
    """Embedded WiredTiger: the file's size and the space free for reuse in it, the pages a
    tree walk counted and the average page image a cache walk saw, the cache, and the
    table's own statistics (``counters``, by WiredTiger's descriptions)."""

    size_meaning = SIZE_MEANING

    file_bytes: int = 0
    cache_mb: int = 0
    internal_pages: int | None = None
    avg_page_image_bytes: int = 0
    reusable_bytes: int = 0

    def _figures(self) -> Iterator[tuple[str, Any]]:
        yield from (("keys", self.keys), ("n", self.n), ("index_bytes", self.index_bytes),
                    ("file_bytes", self.file_bytes), ("size_meaning", self.size_meaning),
                    ("leaf_pages", self.leaf_pages), ("avg_leaf_fill", self.avg_leaf_fill),
                    ("insert_seconds", self.insert_seconds), ("cache_mb", self.cache_mb),
                    ("checkpoint_every", self.checkpoint_every))
        if self.io:
            yield from self.io.to_dict().items()
        yield from (("internal_pages", self.internal_pages),
                    ("avg_page_image_bytes", self.avg_page_image_bytes),
                    ("reusable_bytes", self.reusable_bytes))
        yield from self.counters.items()


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


# The binding ---------------------------------------------------------------------------


def wiredtiger_module() -> Any:
    """Import the WiredTiger binding, or say how to install it (a SWIG module without types:
    Any to its callers)."""
    try:
        import wiredtiger  # optional: built by make wiredtiger (pyproject: no stubs)
    except ImportError as exc:
        raise ServerUnavailable(
            Message(N_("The WiredTiger binding is not installed.")),
            hint=Message(N_("make wiredtiger (needs swig, cmake, ninja and a C/C++ compiler: "
                            "apt-get install swig cmake ninja-build g++, or the conda "
                            "environment)."))) from exc
    return wiredtiger


def wiredtiger_version() -> str:
    """The version of the embedded WiredTiger library."""
    wt = wiredtiger_module()
    return str(wt.wiredtiger_version()[0]).split(":")[0].replace("WiredTiger ", "")


def wt_inserter(cursor: Any) -> Callable[[bytes, bytes], None]:
    """Insert a key and a value through ``cursor``, each given as its bytes.

    The binding's ``set_key`` and ``set_value`` run every item through a packer written in
    Python, which took about 40% of a 200,000-key load; for a format of one ``u`` (a raw byte
    array, the last item of its format, so stored without a length: WiredTiger's "Packing and
    unpacking data") that packer returns the bytes unchanged, so they go to the cursor's own
    setters directly. The key stays referenced by its batch and the value by the caller until
    the insert returns, as the binding's setters keep theirs. Any other format, or a binding
    without those setters, takes the public path.
    """
    set_key, set_value = getattr(cursor, "_set_key", None), getattr(cursor, "_set_value", None)
    if (cursor.key_format, cursor.value_format) != ("u", "u") or not (set_key and set_value):
        def insert_public(key: bytes, value: bytes) -> None:
            cursor[key] = value
        return insert_public
    raw_insert = cursor.insert

    def insert(key: bytes, value: bytes) -> None:
        set_key(key)
        set_value(value)
        if raw_insert() != 0:
            raise KeyError(key)
    return insert


def wt_stats(session: Any, uri: str, config: str | None = None) -> dict[str, int]:
    """A statistics cursor on ``uri`` ("": the connection's) as ``{description: value}``."""
    cursor = session.open_cursor(f"statistics:{uri}", None, config)
    stats: dict[str, int] = {}
    try:
        while cursor.next() == 0:
            desc, _, value = cursor.get_value()
            stats[desc] = value
    finally:
        cursor.close()
    return stats


def _wt_walk(wt: Any, home: str) -> dict[str, int]:
    """Reopen the table, read every page from disk, then walk the tree and the cache."""
    conn = wt.wiredtiger_open(home, "cache_size=1GB,statistics=(fast)")
    try:
        session = conn.open_session()
        cursor = session.open_cursor("table:idx")
        while cursor.next() == 0:
            pass
        cursor.close()
        return wt_stats(session, "table:idx", "statistics=(tree_walk,cache_walk)")
    finally:
        conn.close()


# The engine ----------------------------------------------------------------------------


class WiredTigerTree(BTreeEngine[None]):
    """WiredTiger embedded through its binding: a table shaped like mongod's ``_id`` index."""

    key = "wiredtiger"
    binding = "wiredtiger"
    batch = 1_000

    def ready(self) -> None:
        """Import the binding, or say how to install it (``ServerUnavailable``)."""
        wiredtiger_module()

    def version(self, server: None) -> str:
        """The embedded WiredTiger library's version."""
        return wiredtiger_version()

    def load(self, kind: str, n: int, settings: Settings, server: None,
             progress: Progress | None = None) -> WiredTigerLoad:
        """Insert keys into a WiredTiger table shaped like ``mongod``'s ``_id`` index in a
        replica set (not logged: jstests/disk/wt_table_checks.js), through a cache of
        ``settings.cache_mb`` (``WT_CACHE_MB``), with a checkpoint every
        ``settings.checkpoint_every`` keys.

        Reads page counts from a tree walk and the average on-disk page image from a
        cache walk, after a checkpoint, plus the eviction and reconciliation counters and the
        bytes the block manager wrote. The table lives in a scratch folder that a killed owner
        does not leave behind.
        """
        wt = wiredtiger_module()
        with scratch_folder("labkit-wiredtiger-") as home:
            return self._load(wt, home, kind, n, settings, progress)

    def _load(self, wt: Any, home: str, kind: str, n: int, settings: Settings,
              progress: Progress | None) -> WiredTigerLoad:
        cache_mb = settings.cache_mb or WT_CACHE_MB
        conn = wt.wiredtiger_open(home, f"create,cache_size={cache_mb}MB,statistics=(fast)")
        try:
            session = conn.open_session()
            session.create("table:idx", WT_TABLE_CONFIG)
            session.checkpoint()
            cursor = session.open_cursor("table:idx")
            insert = wt_inserter(cursor)
            pack = struct.Struct(">q").pack
            before = wt_stats(session, "")
            checkpoints = Checkpoints(settings.checkpoint_every, session.checkpoint)
            start = time.perf_counter()
            record = 0
            for keys in keymod.batches(kind, n, self._batch(settings)):
                for key in keys:  # one auto-committed write each, as mongod commits each one
                    record += 1
                    insert(key, pack(record))
                checkpoints.after(len(keys))
                if progress:
                    progress(len(keys))
            seconds = time.perf_counter() - start
            cursor.close()
            session.checkpoint()
            io = wt_io(before, wt_stats(session, ""), logged=False)
            counters = wt_stats(session, "table:idx")
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
                                  checkpoint_every=settings.checkpoint_every, io=io,
                                  internal_pages=walk.get("btree: row-store internal pages"),
                                  avg_page_image_bytes=image, reusable_bytes=reusable,
                                  counters={name: counters.get(name) for name in WT_COUNTERS})
        finally:
            if conn is not None:
                conn.close()

    def load_key(self, settings: Settings, server: None) -> tuple[object, ...]:
        """A WiredTiger load is set apart by its cache and checkpoint interval."""
        return (settings.cache_mb or WT_CACHE_MB, settings.checkpoint_every)

    def cache(self, settings: Settings, server: None, results: Sequence[LoadResult]) -> Text:
        """WiredTiger's cache, in MB."""
        return Message(N_("WiredTiger cache {mb:,} MB"), mb=settings.cache_mb or WT_CACHE_MB)
