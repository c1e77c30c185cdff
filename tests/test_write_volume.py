"""Lesson 06's write-volume exercise (claim U5's write amplification) is judged against the
learner's own run: its answer is the run's measured ratio of bytes written, its explanation
names the cause the engine's counters point to (the checkpoints, pages evicted from a cache the
index outgrew, SQLite's commits), and without bytes counted it is not judged at all.

The loads below are the figures ``labkit btree --keys uuid4,uuid7 --n 200000`` measured on
2026-12-01 on this machine (with the default checkpoint every 50,000 keys and with
``--checkpoint-every none``): PostgreSQL 15.18 through labkit's own 4 MB of shared_buffers and
through a Debian cluster's 128 MB, SQLite 3.40.1 and WiredTiger 11.3.1 through 64 MB caches.
"""

from __future__ import annotations

from typing import Any

import pytest

from labkit.engines.btree_engine import LoadResult, Measurement
from labkit.engines.btree_postgres import PostgresIO, PostgresLoad
from labkit.engines.btree_sqlite import SQLiteIO, SQLiteLoad
from labkit.engines.btree_wiredtiger import WiredTigerIO, WiredTigerLoad
from labkit.experiments import btree_keys
from labkit.i18n import shown
from labkit.lessons import notebook, questions

N, EVERY = 200_000, 50_000
MB = 1024 * 1024


def _pg(kind: str, written: int | None, *, index: int, fpi: int, pages: int, reads: int,
        cache: int, n: int = N) -> PostgresLoad:
    io = PostgresIO(write_bytes=written, write_meaning="", cache_reads=reads, cache_bytes=cache,
                    wal_bytes=0, wal_fpi=fpi, data_pages_written=pages, checkpoints=1)
    return PostgresLoad(keys=kind, n=n, index_bytes=index, leaf_pages=index // 8192,
                        avg_leaf_fill=None, insert_seconds=1.0, io=io)


def _sqlite(kind: str, written: int, *, index: int, frames: int) -> SQLiteLoad:
    io = SQLiteIO(write_bytes=written, write_meaning="", cache_reads=None,
                  cache_bytes=64 * MB, wal_frames=frames)
    return SQLiteLoad(keys=kind, n=N, index_bytes=index, leaf_pages=index // 4096,
                      avg_leaf_fill=None, insert_seconds=1.0, io=io)


def _wt(kind: str, written: int, *, index: int, pages: int, reads: int) -> WiredTigerLoad:
    io = WiredTigerIO(write_bytes=written, write_meaning="", cache_reads=reads,
                      cache_bytes=64 * MB, block_bytes=written)
    return WiredTigerLoad(keys=kind, n=N, index_bytes=index, leaf_pages=index // 16384,
                          avg_leaf_fill=None, insert_seconds=1.0, io=io,
                          counters={btree_keys.WRITTEN_FROM_CACHE: pages})


# Each engine's two loads per setting, UUIDv4 then UUIDv7: with a checkpoint every 50,000 keys
# (EVERY) and with none during the load (None).
PG_SMALL_CACHE = {  # labkit's own PostgreSQL, shared_buffers 4 MB
    EVERY: [_pg("uuid4", 312_828_568, index=8_945_664, fpi=1_520, pages=34_292,
                reads=30_035, cache=4 * MB),
            _pg("uuid7", 50_602_048, index=6_332_416, fpi=11, pages=3_728, reads=773,
                cache=4 * MB)],
    None: [_pg("uuid4", 295_209_080, index=8_642_560, fpi=0, pages=33_205, reads=29_953,
               cache=4 * MB),
           _pg("uuid7", 50_458_528, index=6_332_416, fpi=0, pages=3_716, reads=773,
               cache=4 * MB)]}
PG_LARGE_CACHE = {  # a Debian cluster, shared_buffers 128 MB
    EVERY: [_pg("uuid4", 79_659_312, index=8_749_056, fpi=1_531, pages=5_838, reads=1_068,
                cache=128 * MB),
            _pg("uuid7", 50_602_048, index=6_332_416, fpi=11, pages=3_728, reads=773,
                cache=128 * MB)],
    None: [_pg("uuid4", 58_997_856, index=8_945_664, fpi=0, pages=4_354, reads=1_092,
               cache=128 * MB),
           _pg("uuid7", 50_458_504, index=6_332_416, fpi=0, pages=3_716, reads=773,
               cache=128 * MB)]}
SQLITE = {
    EVERY: [_sqlite("uuid4", 89_535_840, index=5_500_928, frames=21_732),
            _sqlite("uuid7", 14_267_560, index=5_701_632, frames=3_463)],
    None: [_sqlite("uuid4", 63_176_080, index=5_509_120, frames=15_334),
           _sqlite("uuid7", 11_383_560, index=5_701_632, frames=2_763)]}
WIREDTIGER = {
    EVERY: [_wt("uuid4", 159_170_560, index=6_266_880, pages=11_841, reads=2_711),
            _wt("uuid7", 4_468_736, index=3_956_736, pages=273, reads=1)],
    None: [_wt("uuid4", 131_481_600, index=6_160_384, pages=9_699, reads=1_135),
           _wt("uuid7", 4_034_560, index=3_952_640, pages=253, reads=0)]}
# N = 50,000 through the 4 MB cache: no checkpoint comes during a load that short.
PG_SHORT = {every: [_pg("uuid4", 14_800_000, index=2_236_416, fpi=0, pages=1_094, reads=273,
                        cache=4 * MB, n=50_000),
                    _pg("uuid7", 12_650_000, index=1_589_248, fpi=0, pages=936, reads=194,
                        cache=4 * MB, n=50_000)]
            for every in (EVERY, None)}


class Loads:
    """A kernel's context as write_reading asks it: the loads of one engine by checkpoint
    interval (``btree_load`` with ``checkpoint_every``)."""

    def __init__(self, key: str, by_interval: dict[int | None, list[LoadResult]]) -> None:
        self.key, self.by_interval = key, by_interval

    def btree_load(self, engine: str, kinds: list[str], n: int | None = None, *,
                   checkpoint_every: int | None = EVERY, **_options: Any) -> Measurement:
        assert engine == self.key
        results = self.by_interval[checkpoint_every]
        return Measurement(engine, "test", results[0].n, "", checkpoint_every, results)


def _grown(key: str, name: str, by_interval: dict[int | None, list[LoadResult]]
           ) -> dict[str, Any]:
    """``btree_keys.growth``'s dictionary for these loads (their largest N only)."""
    writes = {setting: {r.keys: [(r.n, r.write_bytes)] for r in by_interval[every]}
              for setting, every in (("with checkpoints", EVERY), ("no checkpoint", None))}
    return {"key": key, "engine": name, "engine_version": "test", "cache": "",
            "checkpoint_every": EVERY, "writes": writes, "cache_points": []}


@pytest.fixture
def run(monkeypatch, tmp_path):
    """Make the kernel's session one engine's loads: ``run(key, name, loads)`` returns a fresh
    06.write_volume exercise judged on them."""
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))

    def made(key: str, name: str, by_interval: dict[int | None, list[LoadResult]]):
        ctx = Loads(key, by_interval)
        monkeypatch.setattr(notebook, "session", lambda: ctx)
        monkeypatch.setattr(btree_keys, "growth", lambda _ctx: _grown(key, name, by_interval))
        return questions.exercise("06.write_volume")

    return made


def test_the_same_engine_answers_yes_or_no_with_its_cache(run):
    """PostgreSQL at N = 200,000 wrote 6.18 times the bytes through a 4 MB cache and 1.57
    times through 128 MB: the exercise answers yes for the first run and no for the second,
    as each run measured (no answer is fixed)."""
    small = run("postgres", "PostgreSQL", PG_SMALL_CACHE)
    assert small.check(True).correct
    large = run("postgres", "PostgreSQL", PG_LARGE_CACHE)
    assert large.check(False).correct
    assert not run("postgres", "PostgreSQL", PG_LARGE_CACHE).check(True).correct


def test_the_explanation_names_eviction_where_the_index_outgrew_the_cache(run):
    """Through 4 MB the checkpoints account for 7% of the extra bytes (UUIDv4 wrote 1,564
    bytes per key with them, 1,476 without): the explanation says the index outgrew the cache
    and quotes the data pages written and read back, not the full-page images."""
    said = str(run("postgres", "PostgreSQL", PG_SMALL_CACHE).check(True))
    assert "6.18 times" in said
    assert "5.85 times" in said
    assert "account for 7%" in said
    assert "outgrew the cache" in said
    assert "34,292 data pages written against 3,728" in said
    assert "30,035 pages read into the cache against 773" in said
    assert "checkpoints'" not in said


def test_the_explanation_names_the_checkpoints_where_they_made_most_of_it(run):
    """Through 128 MB the index fits, and the checkpoints account for 71% of the extra bytes:
    the explanation names the checkpoints' page images (1,531 against 11)."""
    said = str(run("postgres", "PostgreSQL", PG_LARGE_CACHE).check(False))
    assert "account for 71%" in said
    assert "checkpoints'" in said
    assert "1,531 full-page images against 11" in said
    assert "outgrew" not in said


def test_the_explanation_names_sqlites_commits(run):
    """SQLite, which does not count its cache reads, wrote 6.28 times the bytes, 5.55 times
    with no checkpoint during the load: the explanation names its commits and its log
    frames."""
    said = str(run("sqlite", "SQLite", SQLITE).check(True))
    assert "6.28 times" in said
    assert "at each commit" in said
    assert "21,732 pages written to the log against 3,463" in said


def test_the_explanation_names_wiredtigers_early_eviction(run):
    """WiredTiger read 2,711 pages back into a cache eleven times its index's size: the
    explanation says it evicts changed pages before the cache is full (eviction_dirty_target,
    5% by default in WiredTiger's dist/api_data.py)."""
    said = str(run("wiredtiger", "WiredTiger", WIREDTIGER).check(True))
    assert "eviction_dirty_target" in said
    assert "11,841 pages written from the cache against 273" in said


def test_a_load_with_no_checkpoint_in_it_says_checkpoints_made_none_of_it(run):
    """At N = 50,000, the checkpoint interval, no checkpoint comes during the loads: the
    explanation says so instead of a share, and the small difference (1.17 times) is "no"."""
    exercise = run("postgres", "PostgreSQL", PG_SHORT)
    said = str(exercise.check(False))
    assert exercise.solved
    assert "No checkpoint came during these loads" in said
    assert "account for" not in said


def test_no_engine_that_counts_bytes_means_no_judgement(run, monkeypatch):
    """Where no engine ran (growth's not_run), or the engine did not count its bytes, the
    exercise says it cannot be checked and judges nothing (no try is counted)."""
    monkeypatch.setattr(btree_keys, "growth", lambda _ctx: {"not_run": "PostgreSQL: no server"})
    exercise = questions.exercise("06.write_volume")
    said = exercise.check(True)
    assert said.correct is None
    assert "cannot be checked" in str(said)
    assert "PostgreSQL: no server" in str(said)
    assert exercise.attempts == 0
    uncounted = {every: [_pg(r.keys, None, index=r.index_bytes or 0, fpi=0, pages=0, reads=0,
                             cache=4 * MB) for r in loads]
                 for every, loads in PG_SMALL_CACHE.items()}
    said = run("postgres", "PostgreSQL", uncounted).check(True)
    assert said.correct is None
    assert "did not count the bytes it wrote" in str(said)


def test_the_reading_is_said_in_vietnamese(run, monkeypatch):
    """The run's reading is shown in the learner's language, numbers in its format (the
    words are the catalogue's, labkit/locale/vi/labkit.po)."""
    from labkit import i18n

    monkeypatch.setattr(i18n, "_chosen", None)
    run("postgres", "PostgreSQL", PG_SMALL_CACHE)
    reading = btree_keys.write_reading(notebook.session(), btree_keys.growth(None))
    i18n.language("vi")
    text = shown(reading.text)
    assert "6,18" in text
    assert "34.292" in text
