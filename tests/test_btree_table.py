"""The B-tree text table, `labkit.outputs.btree_table` (what `labkit btree` prints): its rows,
what it says below them, and the one-line entries of engines that gave no loads."""

from __future__ import annotations

import json

import pytest

from labkit.engines import btree
from labkit.engines.btree_engine import LoadIO, Measurement, NotMeasured, Reasons
from labkit.outputs import btree_table

SQLITE_VERSION = btree.ENGINES["sqlite"].version(None)


@pytest.fixture(scope="module")
def sqlite_measured() -> Measurement:
    """A small SQLite measurement of two key kinds, as `labkit btree` makes it."""
    return btree.measurement("sqlite", ["uuid4", "int"], 2_000)


def test_a_row_per_key_kind_with_its_figures_and_the_rest_under_other(sqlite_measured):
    """The head names the engine, its version, N and the cache; each key kind has one row with
    its size, pages, fill and bytes per key, and its other figures after them; the long
    per-page lists are left out."""
    shown = btree_table.table(sqlite_measured).splitlines()
    assert shown[0] == f"SQLite {SQLITE_VERSION}, N = 2,000, SQLite page cache 64 MB"
    assert shown[1].split() == ["keys", "index", "bytes", "leaf", "pages", "avg", "fill",
                                "insert", "s", "written/key", "cache", "reads", "other"]
    rows = {line.split()[0]: line for line in shown[2:4]}
    assert set(rows) == {"uuid4", "int"}
    for result in sqlite_measured.results:
        assert f"{result.index_bytes:,}" in rows[result.keys]
        assert f"wal_frames={result.to_dict()['wal_frames']}" in rows[result.keys]
        assert "leaf_fills" not in rows[result.keys]


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
    measured = btree.measurement("model", ["uuid4", "int"], 500)
    measured.results[1].io = LoadIO(write_bytes=None, write_meaning="", cache_reads=None,
                                    cache_bytes=None, why=Reasons(index_bytes_why="refused"))
    shown = btree_table.table(measured).splitlines()
    assert shown[-1] == "index bytes (int): refused"
    assert "index_bytes_why" not in shown[3]


@pytest.mark.parametrize(("entry", "line"), [
    (NotMeasured("postgres", not_run="no server"), "postgres: not run (no server)"),
    (NotMeasured("sqlite", error="disk full"), "sqlite: error (disk full)"),
])
def test_an_engine_that_gave_no_loads_is_one_line(entry, line):
    """A comparison's engine that was not run, or failed, is one line saying why."""
    assert btree_table.table(entry) == line


def test_under_labkit_lang_vi_the_table_is_vietnamese_and_the_json_english(
        sqlite_measured, monkeypatch, capsys):
    """Issue 27: ``LABKIT_LANG=vi labkit btree`` shows the headings, the cache, the figures'
    meanings and its numbers in Vietnamese (CLDR's "2.000", "89,6%"); ``--json`` stays the
    English the tests above read."""
    from labkit import i18n
    from labkit.cli import main

    monkeypatch.setattr(i18n, "_chosen", None)
    monkeypatch.setenv("LABKIT_LANG", "vi")
    shown = btree_table.table(sqlite_measured).splitlines()
    assert shown[0] == f"SQLite {SQLITE_VERSION}, N = 2.000, cache trang của SQLite 64 MB"
    assert shown[1].split()[:3] == ["khoá", "byte", "chỉ"]
    fills = [r.avg_leaf_fill for r in sqlite_measured.results]
    assert all(f"{fill * 100:.1f}%".replace(".", ",") in row
               for fill, row in zip(fills, shown[2:4], strict=True))
    assert shown[4] == "ghi: số frame WAL x (kích thước trang + 24 byte header của frame)"
    assert shown[5].startswith("cache: mô-đun sqlite3 của Python")
    assert btree_table.table(NotMeasured("postgres", not_run="no server")) == \
        "postgres: chưa chạy (no server)"
    assert main(["btree", "--engine", "sqlite", "--n", "500", "--keys", "uuid4",
                 "--quiet", "--json"]) == 0
    measured = json.loads(capsys.readouterr().out)
    assert measured["cache"] == "SQLite page cache 64 MB"
    assert measured["results"][0]["write_meaning"] == \
        "WAL frames x (page size + 24-byte frame header)"
