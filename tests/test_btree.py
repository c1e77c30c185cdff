"""B-tree measurements: the textbook model's invariants, and robust ranges on real engines."""

from __future__ import annotations

import itertools
import math
import sqlite3

import pytest
from helpers import load
from hypothesis import given, settings
from hypothesis import strategies as st

from labkit.engines import btree, btree_engine, btree_model, btree_mongodb, btree_wiredtiger
from labkit.errors import BadInput
from labkit.model import keys


def _check_tree(tree: btree_model.BPlusTree) -> list:
    """Walk the tree: every node within capacity, keys sorted, separators bounding children."""
    out = []

    def walk(node, low, high):
        assert node.keys == sorted(node.keys)
        assert all((low is None or k >= low) and (high is None or k < high) for k in node.keys)
        if node.children is None:
            assert len(node.keys) <= tree.capacity
            out.extend(node.keys)
            return
        assert len(node.children) == len(node.keys) + 1 <= tree.capacity
        bounds = [low, *node.keys, high]
        for child, (lo, hi) in zip(node.children, itertools.pairwise(bounds),
                                   strict=True):
            walk(child, lo, hi)

    walk(tree.root, None, None)
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 10**6), unique=True, max_size=400), st.integers(3, 9),
       st.sampled_from(btree_model.POLICIES))
def test_model_keeps_every_key_in_order(values, capacity, policy):
    """Whatever the insertion order, capacity and policy, the tree holds each key once, sorted."""
    tree = btree_model.BPlusTree(capacity, policy)
    for value in values:
        tree.insert(value)
    assert _check_tree(tree) == sorted(values)
    assert tree.size == len(values)
    assert len(tree.leaf_fills()) == tree.leaf_splits + 1


def test_model_refuses_duplicates_and_bad_settings():
    """A key is inserted once; capacity and policy are checked."""
    tree = btree_model.BPlusTree(4)
    tree.insert(1)
    with pytest.raises(BadInput):
        tree.insert(1)
    with pytest.raises(BadInput):
        btree_model.BPlusTree(2)
    with pytest.raises(BadInput):
        btree_model.BPlusTree(8, "thirds")


@pytest.mark.parametrize(("policy", "fill"), [("half", 0.5), ("rightmost", 1.0)])
def test_model_sequential_fill_depends_on_the_split_policy(policy, fill):
    """Sequential keys fill leaves to half under 50/50 splits and fully under rightmost splits."""
    result = load("model", "int", 20_000, capacity=64, policy=policy)
    assert result.avg_leaf_fill == pytest.approx(fill, abs=0.01)


def test_model_random_fill_is_near_ln2():
    """Random keys fill leaves to about ln 2 (Yao 1978), not one half."""
    result = load("model", "uuid4", 60_000, capacity=64)
    assert result.avg_leaf_fill == pytest.approx(math.log(2), abs=0.03)


def test_key_streams_have_the_right_sizes_and_order():
    """uuid7, objectid and int streams come out in increasing byte order; uuid4 does not."""
    for kind in keys.KINDS:
        made = list(keys.stream(kind, 2000))
        assert {len(k) for k in made} == {keys.KEY_BYTES[kind]}
        assert len(set(made)) == len(made)
        assert (made == sorted(made)) is (kind != "uuid4")


def test_key_kinds_are_checked():
    """Unknown key kinds are refused with the list of known ones."""
    assert keys.parse_kinds("uuid4, int") == ["uuid4", "int"]
    with pytest.raises(BadInput, match="uuid4, uuid7, objectid, int"):
        keys.parse_kinds("uuid5")


def test_naive_uuid7_is_unordered_within_a_millisecond():
    """Random bits after the timestamp leave IDs of one millisecond out of creation order."""
    made = list(keys.stream("uuid7-naive", 5000))
    assert made != sorted(made)
    assert all(k[6] >> 4 == 7 and k[8] >> 6 == 0b10 for k in made)


def test_sqlite_random_and_sequential_both_fill_about_90_percent():
    """SQLite rebalances siblings: both key kinds fill leaves well; sizes stay close."""
    random = load("sqlite", "uuid4", 50_000)
    sequential = load("sqlite", "uuid7", 50_000)
    assert 0.8 < random.avg_leaf_fill <= 1.0
    assert 0.8 < sequential.avg_leaf_fill <= 1.0
    assert abs(random.index_bytes / sequential.index_bytes - 1) < 0.15
    assert random.leaf_pages == len(random.leaf_fills)


def test_sqlite_reports_the_library_version():
    """The SQLite result names the library Python links against."""
    assert btree.ENGINES["sqlite"].version(None) == sqlite3.sqlite_version


@pytest.mark.postgres
def test_postgres_random_keys_leave_leaves_clearly_emptier(postgres_server):
    """PostgreSQL: UUIDv4 leaves average well below UUIDv7's, and its index is larger."""
    measured = btree.measurement("postgres", ["uuid4", "uuid7"], 50_000, server=postgres_server)
    v4, v7 = measured.results
    assert v4.avg_leaf_fill < v7.avg_leaf_fill - 0.15
    assert 0.85 <= v7.avg_leaf_fill <= 0.92  # fillfactor 90 on rightmost splits
    assert v4.index_bytes > v7.index_bytes
    assert measured.engine_version == postgres_server.version


def test_wiredtiger_random_keys_split_during_eviction(wiredtiger_binding):
    """WiredTiger: random keys give emptier pages and eviction splits; sequential ones don't."""
    v4 = load("wiredtiger", "uuid4", 100_000, cache_mb=16)
    v7 = load("wiredtiger", "uuid7", 100_000, cache_mb=16)
    assert v4.avg_leaf_fill < v7.avg_leaf_fill
    assert v4.index_bytes > v7.index_bytes
    split = "cache: leaf pages split during eviction"
    assert v4.counters[split] > v7.counters[split]


def test_measure_refuses_unknown_engines():
    """Only the five engines exist."""
    with pytest.raises(BadInput, match="model, sqlite, postgres, wiredtiger, mongodb"):
        btree.measurement("oracle", ["int"], 10)


def test_mongodb_counters_are_differences_and_sizes_are_readings():
    """Event counters are taken as differences across the load; block-manager sizes are read
    as they are after it (a file size is not a count of events)."""
    before = {"cache: in-memory page splits": 10, "block-manager: file size in bytes": 4096,
              "block-manager: file bytes available for reuse": 0}
    after = {"cache: in-memory page splits": 25, "block-manager: file size in bytes": 8192,
             "block-manager: file bytes available for reuse": 1024}
    assert btree_mongodb._during(before, after) == {
        "cache: in-memory page splits": 15, "block-manager: file size in bytes": 8192,
        "block-manager: file bytes available for reuse": 1024}
    assert btree_mongodb._during({"x": None}, {"x": 5}) == {"x": None}


@pytest.mark.mongodb
def test_mongodb_random_id_index_is_larger(mongodb_server):
    """MongoDB: after an fsync, the _id index of UUIDv4 keys is larger than UUIDv7's, every
    WiredTiger statistic labkit reads is there, and sizes mean what they mean on WiredTiger."""
    measured = btree.measurement("mongodb", ["uuid7", "uuid4"], 50_000, server=mongodb_server)
    v7, v4 = measured.results
    for result in (v7, v4):
        for group, names in btree_mongodb.MONGO_COUNTERS.items():
            for name in names:
                value = result.counters[f"{group}: {name}"]
                assert isinstance(value, int), (group, name, value)
                assert value >= 0, (group, name, value)
        assert 0 < result.index_bytes <= result.file_bytes
        assert result.size_meaning == btree_wiredtiger.SIZE_MEANING
    assert v4.index_bytes > v7.index_bytes
    assert len(v4.inserts_per_second_by_batch) == 50
    assert measured.cache  # what cache the server had is said, whoever started it


class _Refusing:
    """A pymongo client's ``admin.command`` that raises what a server sends for ``fsync``: a
    stand-in for labkit's choice, not for a server's answer."""

    def __init__(self, code: int) -> None:
        self.admin = self
        self.code = code

    def command(self, name: str) -> None:
        from pymongo.errors import OperationFailure

        raise OperationFailure(f"{name} refused", code=self.code)


@pytest.mark.parametrize("code", [13, 8000])
def test_a_refused_fsync_means_no_checkpoint_not_an_error(code):
    """Unauthorized (13: no ``fsync`` action) and AtlasError (8000: Atlas refuses ``fsync``
    to every user) leave the load without a checkpoint, so no size is reported
    (notebooks/hosted.md); for 13 the reason names the action and the built-in roles that grant it
    (builtin_roles.yml), for 8000 it says a hosted tier may refuse it whatever the role."""
    why = str(btree_mongodb._checkpoint(_Refusing(code)))
    if code == 8000:
        assert "the hosted server refused fsync" in why
        assert "whatever the role" in why
        assert "hostManager" not in why
    else:
        assert f"the server refused fsync (code {code})" in why
        assert "hostManager" in why


def test_any_other_fsync_failure_is_still_an_error():
    """A failure that is not a refusal of the action stays an error of that engine's row."""
    from pymongo.errors import OperationFailure

    with pytest.raises(OperationFailure):
        btree_mongodb._checkpoint(_Refusing(11600))  # InterruptedAtShutdown


# The engines as objects, their records as dictionaries -----------------------------------


def test_one_table_names_every_engine_its_display_name_and_what_it_needs():
    """The five B-tree engines are one table, in the order the help lists them; each says its
    display name (names.py's) and what it needs: a server kind, the WiredTiger binding, or
    nothing (the model and SQLite run inside labkit)."""
    from labkit.names import engine_name

    assert list(btree.ENGINES) == ["model", "sqlite", "postgres", "wiredtiger", "mongodb"]
    for key, engine in btree.ENGINES.items():
        assert engine.key == key
        assert engine.name == engine_name(key)
    assert {key: engine.needs for key, engine in btree.ENGINES.items()} == {
        "model": None, "sqlite": None, "postgres": "postgres", "wiredtiger": "wiredtiger",
        "mongodb": "mongodb"}
    assert [key for key, engine in btree.ENGINES.items() if engine.server] == [
        "postgres", "mongodb"]


@pytest.mark.parametrize(("engine", "cache_mb", "words"), [
    ("sqlite", 0, "--cache-mb must be between 1 and"),
    ("mongodb", 100, "(the smallest cache mongod accepts)"),
    ("model", None, "--n must be between 1"),
])
def test_each_engine_validates_a_request_before_anything_starts(engine, cache_mb, words):
    """An engine refuses a cache outside its own range (mongod's starts at 0.25 GB) and a key
    count outside 1..MAX_N, as bad input."""
    n = 0 if cache_mb is None else 1_000
    with pytest.raises(BadInput, match=words.replace("(", r"\(").replace(")", r"\)")):
        btree.ENGINES[engine].validate(n, btree_engine.Settings(cache_mb=cache_mb))


MODEL_KEYS = ["keys", "n", "index_bytes", "leaf_pages", "avg_leaf_fill", "insert_seconds",
              "page_capacity", "split_policy", "leaf_splits", "internal_splits",
              "splits_per_1000_inserts", "leaf_fills", "splits_trace", "trace_every",
              "write_bytes_per_key", "index_to_cache"]
SQLITE_KEYS = ["keys", "n", "index_bytes", "leaf_pages", "avg_leaf_fill", "insert_seconds",
               "interior_pages", "file_bytes", "leaf_fills", "checkpoint_every", "write_bytes",
               "wal_frames", "write_meaning", "cache_bytes", "cache_reads", "cache_reads_why",
               "write_bytes_per_key", "write_vs", "index_to_cache"]


@pytest.mark.parametrize(("engine", "expected"), [("model", MODEL_KEYS),
                                                  ("sqlite", SQLITE_KEYS)])
def test_a_loads_dictionary_keeps_the_keys_results_files_have_always_had(engine, expected):
    """A typed load's ``to_dict()`` gives the keys, in the order, that results.json and
    ``labkit btree --json`` have always held; the summary drops the long per-page lists; the
    typed figures and the dictionary's agree."""
    measured = btree.measurement(engine, ["uuid4", "uuid7"], 1_000)
    load = measured.results[0]
    shown = load.to_dict()
    assert list(shown) == expected
    assert list(load.summary()) == [k for k in expected if k not in btree_engine.LONG]
    assert (shown["index_bytes"], shown["leaf_pages"], shown["avg_leaf_fill"]) == (
        load.index_bytes, load.leaf_pages, load.avg_leaf_fill)
    assert shown["write_bytes_per_key"] == load.write_bytes_per_key
    assert measured.to_dict()["results"][0] == shown
    assert list(measured.to_dict()) == ["engine", "engine_version", "n", "cache",
                                        "checkpoint_every", "results"]
