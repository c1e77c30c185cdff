"""Write volume and cache reads of B-tree loads, each engine's own counters (claim U5's write
amplification and cache churn, docs/write_amplification.md): measured on real SQLite,
WiredTiger and PostgreSQL loads, asserted loosely in the direction the physics says."""

from __future__ import annotations

import json

import pytest
from helpers import load

from labkit import cli
from labkit.engines import btree, btree_engine, btree_postgres, btree_sqlite, btree_wiredtiger
from labkit.errors import BadInput

N = 30_000


def test_checkpoints_come_every_interval_whatever_the_batch():
    """A checkpoint each time the keys loaded pass a multiple of the interval (the same
    interval for every key kind: docs/write_amplification.md), and none at all without one."""
    taken = []
    points = btree_engine.Checkpoints(2_500, lambda: taken.append(points.loaded))
    for _ in range(10):
        points.after(1_000)
    assert taken == [3_000, 5_000, 8_000, 10_000]
    assert points.taken == 4
    none = btree_engine.Checkpoints(None, lambda: pytest.fail("no interval, no checkpoint"))
    none.after(10**6)
    assert none.taken == 0


@pytest.mark.parametrize("every", [0, -5])
def test_a_checkpoint_interval_below_one_key_is_refused(every):
    """A checkpoint interval of 0 keys (or fewer) is bad input (docs/write_amplification.md)."""
    with pytest.raises(BadInput, match="positive number of keys"):
        btree.validate_request("sqlite", 1_000, btree_engine.Settings(checkpoint_every=every))


@pytest.mark.parametrize(("argv", "words"), [
    (["btree", "--engine", "sqlite", "--checkpoint-every", "0"], "--checkpoint-every"),
    (["btree", "--engine", "postgres", "--cache-mb", "0"], "--cache-mb must be between 1"),
    (["btree", "--engine", "wiredtiger", "--cache-mb", "0"], "--cache-mb must be between 1"),
    (["btree", "--engine", "mongodb", "--cache-mb", "100"], "smallest cache mongod accepts"),
])
def test_bad_values_cost_one_error_line_and_exit_2_before_any_work(argv, words, capsys,
                                                                   monkeypatch):
    """`--cache-mb` below what the engine accepts and a checkpoint interval of 0 are one
    `Error:` line and exit status 2, before a server is sought or a key loaded."""
    from labkit import servers

    monkeypatch.setattr(servers, "provide", lambda *a, **k: pytest.fail("a server was sought"))
    monkeypatch.setattr(btree, "measurement", lambda *a, **k: pytest.fail("a load was made"))
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("Error:")
    assert words in err[0]


def test_ratios_compare_each_kind_with_the_sequential_ones():
    """Bytes per key, the ratio to each sequential kind loaded beside it, and index size over
    cache size (docs/write_amplification.md: per key and as a ratio to the sequential kinds)."""
    def loaded(kind: str, written: int, index: int, cache: int | None):
        io = btree_engine.LoadIO(write_bytes=written, write_meaning="", cache_reads=None,
                                 cache_bytes=cache)
        return btree_engine.LoadResult(kind, 1_000, index, None, None, 0.0, io=io)

    results = [loaded("uuid4", 600_000, 300, 100), loaded("uuid7", 200_000, 200, 100),
               loaded("int", 150_000, 50, None)]
    btree_engine.add_ratios(results)
    rated = [r.to_dict() for r in results]
    assert rated[0]["write_bytes_per_key"] == 600
    assert rated[0]["write_vs"] == {"uuid7": 3.0, "int": 4.0}
    assert rated[0]["index_to_cache"] == 3.0
    assert rated[2]["index_to_cache"] is None


def test_sqlite_random_keys_write_more_wal_than_sequential_ones():
    """SQLite: UUIDv4 keys put more WAL frames in the log than integer keys, with the same
    checkpoint interval (claim U5, write amplification; sqlite.org/wal.html); its cache reads
    are said to be uncountable rather than guessed."""
    by_kind = {k: load("sqlite", k, N, checkpoint_every=10_000).to_dict()
               for k in ("uuid4", "int")}
    page = 4096 + btree_sqlite.SQLITE_FRAME_HEADER
    for result in by_kind.values():
        assert result["write_bytes"] == result["wal_frames"] * page
        assert result["cache_reads"] is None
        assert "SQLITE_DBSTATUS_CACHE_MISS" in str(result["cache_reads_why"])
    assert by_kind["uuid4"]["write_bytes"] > 1.5 * by_kind["int"]["write_bytes"]


def test_sqlite_cache_mb_sets_its_page_cache():
    """`--cache-mb` on SQLite sets `PRAGMA cache_size` (negative: KiB), reported in bytes."""
    result = load("sqlite", "int", 2_000, cache_mb=3)
    assert result.cache_bytes == 3 * 2**20


def test_sqlite_loads_through_the_default_cache_unless_told():
    """Without `--cache-mb`, SQLite loads through `SQLITE_CACHE_MB`, WiredTiger's default
    too, and reports it (docs/write_amplification.md: its reads cannot be counted)."""
    result = load("sqlite", "int", 2_000)
    assert result.cache_bytes == btree_sqlite.SQLITE_CACHE_MB * 2**20 \
        == btree_wiredtiger.WT_CACHE_MB * 2**20


def test_wiredtiger_raw_inserts_store_what_the_binding_would(wiredtiger_binding, tmp_path):
    """The raw inserter hands WiredTiger the bytes the binding's own packer makes for a `u`
    format (WiredTiger's "Packing and unpacking data": a last `u` has no length), so a
    table loaded either way holds the same keys and values."""
    from wiredtiger.packing import pack

    items = [(bytes([i % 7]) * (i % 5) + bytes([0, i]), bytes([i, 0, 255])) for i in range(50)]
    assert all(pack("u", key) == key and pack("u", value) == value for key, value in items)
    conn = wiredtiger_binding.wiredtiger_open(str(tmp_path), "create")
    try:
        session = conn.open_session()
        tables = {}
        for name, fast in (("table:raw", True), ("table:public", False)):
            session.create(name, btree_wiredtiger.WT_TABLE_CONFIG)
            cursor = session.open_cursor(name)
            insert = btree_wiredtiger.wt_inserter(cursor) if fast else cursor.__setitem__
            for key, value in items:
                insert(key, value)
            cursor.reset()
            rows = []
            while cursor.next() == 0:
                rows.append((cursor.get_key(), cursor.get_value()))
            tables[name] = rows
            cursor.close()
    finally:
        conn.close()
    assert tables["table:raw"] == tables["table:public"] == sorted(items)


def test_wiredtiger_random_keys_write_more_blocks(wiredtiger_binding):
    """WiredTiger, a checkpoint every 10,000 keys, the table not logged as in a replica set
    (jstests/disk/wt_table_checks.js): UUIDv4 keys make the block manager write more than
    UUIDv7 keys (claim U5, write amplification)."""
    by_kind = {k: load("wiredtiger", k, N, checkpoint_every=10_000).to_dict()
               for k in ("uuid4", "uuid7")}
    rnd, seq = by_kind["uuid4"], by_kind["uuid7"]
    assert rnd["block_bytes"] > 1.2 * seq["block_bytes"]
    assert rnd["log_bytes"] is None
    assert rnd["write_bytes"] == rnd["block_bytes"]
    assert rnd["cache_bytes"] == btree_wiredtiger.WT_CACHE_MB * 2**20


@pytest.mark.slow
def test_wiredtiger_small_cache_reads_random_pages_back(wiredtiger_binding):
    """With a 1 MB cache below the index, UUIDv4 keys read many more pages into the cache
    than UUIDv7 keys (claim U5, cache churn once the index outgrows memory). 40,000 keys
    suffice: the UUIDv4 index is then about 1.3 MB, past the cache, and UUIDv4 reads several
    hundred times the pages UUIDv7 reads (60,000 keys showed the same, at twice the time)."""
    by_kind = {k: load("wiredtiger", k, 40_000, cache_mb=1, checkpoint_every=None)
               for k in ("uuid4", "uuid7")}
    assert by_kind["uuid4"].index_bytes > 2**20
    assert by_kind["uuid4"].cache_reads > 10 * max(by_kind["uuid7"].cache_reads, 1)


@pytest.fixture(scope="module")
def own_postgres(request):
    """A PostgreSQL of labkit's own for this module's loads, with 1 MB of shared buffers (the
    smallest `--cache-mb`): its WAL and buffer counters (`pg_stat_wal`, `pg_statio_*`, each
    server-wide) count these loads alone, where a server that other tests load into at the
    same moment (the session's, by LABKIT_POSTGRES_DSN) counts theirs too; and a 50,000-key
    UUIDv4 index, about 2 MB, outgrows its cache. Without local binaries, the session's
    server."""
    from labkit import servers

    if servers.find_postgres_bin() is None:
        yield request.getfixturevalue("postgres_server")
        return
    server = servers.provide("postgres", "local", cache_gb=1 / 1024)
    yield server
    server.stop()


@pytest.mark.postgres
def test_postgres_random_keys_write_more_wal_and_full_page_images(own_postgres):
    """PostgreSQL, a CHECKPOINT every 10,000 keys: UUIDv4 keys write more WAL bytes and more
    full-page images than integer keys (claim U5; PostgreSQL manual, "WAL Configuration" and
    `pg_stat_wal.wal_fpi`)."""
    by_kind = {k: load("postgres", k, N, own_postgres, checkpoint_every=10_000).to_dict()
               for k in ("uuid4", "int")}
    rnd, seq = by_kind["uuid4"], by_kind["int"]
    assert rnd["wal_bytes"] > seq["wal_bytes"]
    assert rnd["wal_fpi"] > 3 * seq["wal_fpi"]
    assert rnd["checkpoints"] >= 3  # the load's own, and any the server took besides
    assert rnd["write_bytes"] == rnd["wal_bytes"] + rnd["data_pages_written"] * 8192


@pytest.mark.postgres
def test_postgres_cache_churn_once_the_index_outgrows_shared_buffers(own_postgres):
    """Where the UUIDv4 index outgrows shared_buffers (this module's own server: 1 MB, which a
    50,000-key UUIDv4 index outgrows twice over), random keys read many more index pages into
    them than sequential keys (claim U5, cache churn)."""
    by_kind = {k: load("postgres", k, 50_000, own_postgres, checkpoint_every=None)
               .to_dict() for k in ("uuid4", "uuid7")}
    rnd, seq = by_kind["uuid4"], by_kind["uuid7"]
    if rnd["index_bytes"] <= rnd["cache_bytes"]:
        pytest.skip(f"this server's shared_buffers ({rnd['cache_bytes']:,} bytes) hold the "
                    "whole index: no churn to see")
    assert rnd["cache_reads"] > 5 * max(seq["cache_reads"], 1)


def _load_beside(server, other_work) -> dict:
    """A 20,000-key UUIDv4 load into ``server``, with ``other_work(server)`` done over a
    connection of its own (another client) as the load's first batch is copied."""
    done: list[int] = []

    def meanwhile(_keys: int) -> None:
        if not done:
            done.append(1)
            other_work(server)

    engine = btree.ENGINES["postgres"]
    return engine.load("uuid4", 20_000, btree_engine.Settings(checkpoint_every=None), server,
                       progress=meanwhile).to_dict()


@pytest.mark.postgres
def test_a_postgres_load_alone_is_not_marked(own_postgres):
    """On a server no one else uses, the load's figures carry no mark: other databases wrote
    no more rows than labkit's own housekeeping (its lease)."""
    alone = _load_beside(own_postgres, lambda server: None)
    assert "write_disturbed" not in alone
    assert alone["others_rows"] <= btree_postgres.HOUSEKEEPING_ROWS


def _rows_elsewhere(server) -> None:
    """Another client: 5,000 rows into a temporary table of the server's first database (gone
    with its session, so no database of the server's is changed), its statistics sent at
    once."""
    with server.connect() as conn:
        conn.execute("CREATE TEMP TABLE other (n int)")
        conn.execute("INSERT INTO other SELECT generate_series(1, 5000)")
        conn.execute("SELECT pg_stat_force_next_flush()")


def _a_database_made(server) -> None:
    server.fresh_database("made-meanwhile")


@pytest.mark.postgres
@pytest.mark.parametrize(("other_work", "said"), [
    (_rows_elsewhere, "other clients wrote to the server during the load"),
    (_a_database_made, "databases were created or dropped")])
def test_a_postgres_load_beside_other_clients_is_marked_disturbed(own_postgres, other_work,
                                                                  said):
    """Issue 44, 7: the WAL's position and the pages written are the whole server's. Eight
    20,000-key loads at once on one PostgreSQL 15 wrote 1,400 to 5,100 bytes per key each,
    against 257 to 289 alone, with no mark (measured on 2026-12-06). Another client's rows in
    another database, or a database made (CREATE DATABASE writes its template to the WAL),
    while the load runs now mark its write figures as disturbed, and U5 does not judge them."""
    try:
        result = _load_beside(own_postgres, other_work)
    finally:
        own_postgres.drop_created()
    assert said in str(result["write_disturbed"])


def test_btree_json_carries_writes_and_cache_side_by_side(capsys):
    """`labkit btree --json` gives each key kind its bytes written, per key and against the
    sequential kinds, with the index's and the cache's sizes (docs/write_amplification.md)."""
    assert cli.main(["btree", "--engine", "sqlite", "--keys", "uuid4,uuid7", "--n", "5000",
                     "--checkpoint-every", "none", "--json", "--quiet"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["checkpoint_every"] is None
    for result in shown["results"]:
        assert result["write_bytes"] > 0
        assert result["write_bytes_per_key"] == result["write_bytes"] / 5000
        assert result["index_bytes"] > 0
        assert result["cache_bytes"] > 0
    assert set(shown["results"][0]["write_vs"]) == {"uuid7"}


@pytest.mark.mongodb
def test_mongodb_random_keys_write_more_blocks(mongodb_server):
    """mongod: UUIDv4 `_id`s make WiredTiger's block manager write more than UUIDv7 ones, read
    server-wide from `serverStatus().wiredTiger` ("block-manager": "bytes written", "log":
    "log bytes written"; MongoDB manual, serverStatus, wiredTiger section; claim U5)."""
    by_kind = {k: load("mongodb", k, N, mongodb_server, checkpoint_every=10_000).to_dict()
               for k in ("uuid4", "uuid7")}
    for result in by_kind.values():
        assert result["cache_bytes"] > 0
        assert result["checkpoints_refused"] is False
    # The counters are the whole server's: on one the suite's other workers load into at the
    # same moment (issue 44), a load's figure is marked as disturbed, and labkit's contract is
    # the mark, not the comparison. Either the figures are each load's own, and compared, or
    # the mark says whose they may be.
    disturbed = [r["write_disturbed"] for r in by_kind.values() if r.get("write_disturbed")]
    if disturbed:
        assert all("other clients" in str(why) for why in disturbed)
        return
    assert by_kind["uuid4"]["block_bytes"] > by_kind["uuid7"]["block_bytes"]
