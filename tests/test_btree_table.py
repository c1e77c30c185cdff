"""The B-tree text table, `labkit.outputs.btree_table` (what `labkit btree` prints): its rows,
what it says below them, and the one-line entries of engines that gave no loads."""

from __future__ import annotations

import pytest

from labkit.engines import btree, btree_results
from labkit.outputs import btree_table


@pytest.fixture(scope="module")
def sqlite_measured() -> dict:
    """A small SQLite measurement of two key kinds, as `labkit btree --json` gives it."""
    return btree.measure("sqlite", ["uuid4", "int"], 2_000)


def test_a_row_per_key_kind_with_its_figures_and_the_rest_under_other(sqlite_measured):
    """The head names the engine, its version, N and the cache; each key kind has one row with
    its size, pages, fill and bytes per key, and its other figures after them; the long
    per-page lists are left out."""
    shown = btree_table.table(sqlite_measured).splitlines()
    version = btree.sqlite_version()
    assert shown[0] == f"sqlite {version}, N = 2,000, SQLite page cache 64 MB"
    assert shown[1].split() == ["keys", "index", "bytes", "leaf", "pages", "avg", "fill",
                                "insert", "s", "written/key", "cache", "reads", "other"]
    rows = {line.split()[0]: line for line in shown[2:4]}
    assert set(rows) == {"uuid4", "int"}
    for kind, result in ((r["keys"], r) for r in sqlite_measured["results"]):
        assert f"{result['index_bytes']:,}" in rows[kind]
        assert f"wal_frames={result['wal_frames']}" in rows[kind]
        assert "leaf_fills" not in rows[kind]


def test_what_the_figures_mean_is_said_once_below_the_rows(sqlite_measured):
    """The write figures' meaning and why SQLite's cache reads are not counted come once each,
    below the rows, for every key kind (no kinds named)."""
    shown = btree_table.table(sqlite_measured).splitlines()
    assert shown[4:] == [
        "write: WAL frames x (page size + 24-byte frame header)",
        "cache: Python's sqlite3 module does not expose sqlite3_db_status "
        "(SQLITE_DBSTATUS_CACHE_MISS), so SQLite's cache reads are not counted"]


def test_a_reason_for_some_kinds_names_them():
    """A reason that concerns only some key kinds names them in brackets."""
    measured = btree.measure("model", ["uuid4", "int"], 500)
    measured["results"][1]["index_bytes_why"] = "refused"
    shown = btree_table.table(measured).splitlines()
    assert shown[-1] == "index bytes (int): refused"
    assert "index_bytes_why" not in shown[3]


@pytest.mark.parametrize(("entry", "line"), [
    ({"engine": "postgres", "not_run": "no server"}, "postgres: not run (no server)"),
    ({"engine": "sqlite", "error": "disk full"}, "sqlite: error (disk full)"),
])
def test_an_engine_that_gave_no_loads_is_one_line(entry, line):
    """A comparison's engine that was not run, or failed, is one line saying why."""
    assert btree_table.table(entry) == line
    assert btree_table.table(btree_results.NotMeasured(**entry).to_dict()) == line
