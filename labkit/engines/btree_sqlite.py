"""SQLite as a B-tree engine: a table keyed by the keys, loaded in a scratch file in WAL mode,
its primary key index read from ``dbstat`` and its write volume from the frames its
write-ahead log took."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from labkit import _defaults
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
from labkit.servers.reaper import scratch_folder

# SQLite's page cache unless --cache-mb says otherwise, as WiredTiger's: its reads are not
# counted (SQLITE_NO_CACHE_READS); the WAL frames are the same as with its own 2 MB.
SQLITE_CACHE_MB = _defaults.WT_CACHE_MB
# A SQLite WAL frame is a 24-byte header followed by one page (sqlite.org/fileformat2.html).
SQLITE_FRAME_HEADER = 24
SQLITE_NO_CACHE_READS = N_("Python's sqlite3 module does not expose sqlite3_db_status "
                           "(SQLITE_DBSTATUS_CACHE_MISS), so SQLite's cache reads are not "
                           "counted")


@dataclass(frozen=True)
class SQLiteIO(LoadIO):
    """SQLite: the frames its write-ahead log took (its cache reads cannot be counted)."""

    wal_frames: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The figures as the load's dictionary holds them."""
        return {"write_bytes": self.write_bytes, "wal_frames": self.wal_frames,
                "write_meaning": self.write_meaning, "cache_bytes": self.cache_bytes,
                "cache_reads": self.cache_reads, "cache_reads_why": self.why.cache_reads_why}


@dataclass
class SQLiteLoad(LoadResult):
    """SQLite: the index's pages from ``dbstat`` (interior pages, every leaf's fill), the
    database file's size and the checkpoint interval."""

    interior_pages: int = 0
    file_bytes: int = 0

    def _figures(self) -> Iterator[tuple[str, Any]]:
        yield from self._head()
        yield from (("interior_pages", self.interior_pages), ("file_bytes", self.file_bytes),
                    ("leaf_fills", self.leaf_fills), ("checkpoint_every", self.checkpoint_every))
        if self.io:
            yield from self.io.to_dict().items()


def _checkpoint(conn: sqlite3.Connection, frames: list[int]) -> None:
    """Checkpoint the WAL into the database and restart it, noting the frames it held."""
    _busy, logged, _moved = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
    frames.append(max(logged, 0))


def _io(conn: sqlite3.Connection, frames: list[int]) -> SQLiteIO:
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


def insert_keys(path: str, kind: str, n: int, batch: int = 10_000,
                progress: Progress | None = None, checkpoint_every: int | None = None,
                cache_mb: int | None = None) -> tuple[float, SQLiteIO]:
    """Load ``n`` keys into a fresh table keyed by them, in WAL mode with a checkpoint every
    ``checkpoint_every`` keys (and one at the end); return the seconds the inserts took and
    what the write-ahead log took."""
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
        _checkpoint(conn, [])
        checkpoints = Checkpoints(checkpoint_every, lambda: _checkpoint(conn, frames))
        start = time.perf_counter()
        for keys in keymod.batches(kind, n, batch):
            with conn:
                conn.executemany("INSERT INTO t (k) VALUES (?)", zip(keys))
            checkpoints.after(len(keys))
            if progress:
                progress(len(keys))
        seconds = time.perf_counter() - start
        _checkpoint(conn, frames)
        return seconds, _io(conn, frames)
    finally:
        conn.close()


def _index_pages(path: str) -> list[tuple[str, int, int]]:
    """``(pagetype, pgsize, unused)`` for every page of the key's index, from ``dbstat``."""
    conn = sqlite3.connect(path)
    try:
        return [(str(kind), int(size), int(unused)) for kind, size, unused in conn.execute(
            "SELECT pagetype, pgsize, unused FROM dbstat WHERE name = 'sqlite_autoindex_t_1'")]
    finally:
        conn.close()


class SQLiteTree(BTreeEngine[None]):
    """SQLite, in a scratch file: its table's primary key index."""

    key = "sqlite"

    def version(self, server: None) -> str:
        """The SQLite library Python links against."""
        return sqlite3.sqlite_version

    def load(self, kind: str, n: int, settings: Settings, server: None,
             progress: Progress | None = None) -> SQLiteLoad:
        """Load a table keyed by ``kind`` through a page cache of ``settings.cache_mb`` (None:
        ``SQLITE_CACHE_MB``); read leaf fill and size from ``dbstat`` and the bytes its
        write-ahead log took.

        The database file lives in a scratch folder that a killed owner does not leave behind.
        """
        every = settings.checkpoint_every
        with scratch_folder("labkit-sqlite-") as workdir:
            path = os.path.join(workdir, "btree.db")
            seconds, io = insert_keys(path, kind, n, self._batch(settings), progress, every,
                                      settings.cache_mb or SQLITE_CACHE_MB)
            pages = _index_pages(path)
            file_bytes = os.path.getsize(path)
        leaves = [(size, unused) for kind_, size, unused in pages if kind_ == "leaf"]
        fills = [(size - unused) / size for size, unused in leaves]
        return SQLiteLoad(keys=kind, n=n, index_bytes=sum(size for _, size, _ in pages),
                          leaf_pages=len(leaves),
                          avg_leaf_fill=sum(s - u for s, u in leaves) / sum(s for s, _ in leaves),
                          insert_seconds=seconds, interior_pages=len(pages) - len(leaves),
                          file_bytes=file_bytes, leaf_fills=fills, checkpoint_every=every, io=io)

    def cache(self, settings: Settings, server: None, results: Sequence[LoadResult]) -> Text:
        """SQLite's page cache, in MB."""
        return self._largest_cache(N_("SQLite page cache {mb:,} MB"), results)
