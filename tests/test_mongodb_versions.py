"""What differs between the MongoDB versions labkit meets: conda's 6.0, CI's 6.0/7.0/8.0, and the
kit's default 8.0 (issue 19, "conda and Binder: the version that exists" and "CI's MongoDB as
the lessons' MongoDB").

Read for this: MongoDB's ``jstests/core/query/null_query_semantics.js`` (its current tags:
``requires_fcv_90``, SERVER-36681), ``jstests/core/query/sort/sorta.js`` (null, missing and
empty-array sort order: no version tag), the 8.0 compatibility notes (``{a: null}`` no longer
matches the deprecated ``undefined``), the 6.1 notes ($regex moved from PCRE to PCRE2),
``src/mongo/db/stats/storage_stats.cpp`` and WiredTiger's ``dist/stat_data.py``. Found: two
rule changes between 6.0 and 8.0, ``undefined`` against ``null`` and the regex library; no
claim the kit checks touches either (pinned below). So the lessons' verdicts on conda's 6.0 are
the same claims as on 8.0. The model carries the first change as rule sets of their own: 6.0
and 7.0 (null matches undefined), 8.0 (the default) and 9.0 (null through arrays), pinned in
``tests/test_versions.py``; for the second it runs PCRE2 on every rule set, and
``docs/model.md`` ("Rule sets per version") says which PCRE/PCRE2 differences a 6.0 server can
show.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from labkit.engines import btree_mongodb

ROOT = Path(__file__).resolve().parent.parent
KIT_CLAIMS = sorted((ROOT / "claims").glob("*.yaml"))
FIXTURES = sorted((ROOT / "data").glob("*.json"))
FIXTURE_KEYS = {"fixture", "fixture_file", "title", "source"}


def test_no_kit_fixture_holds_undefined():
    """No fixture of the kit's claims holds ``undefined`` (Extended JSON ``$undefined``): the
    8.0 change to ``{a: null}`` against ``undefined`` cannot move a lesson's verdict on 6.0."""
    assert FIXTURES
    for path in FIXTURES:
        assert "$undefined" not in path.read_text(encoding="utf-8"), path
    for path in KIT_CLAIMS:
        assert "$undefined" not in path.read_text(encoding="utf-8"), path


def test_no_kit_claim_matches_a_regular_expression():
    """No kit claim's read uses ``$regex`` or a regex operand (6.0 matches with PCRE, 6.1 on
    with PCRE2): the library change cannot move a lesson's verdict. (A regex stored in a
    fixture, as S1's type ladder does, is only sorted by type, never matched.)"""
    assert KIT_CLAIMS
    for path in KIT_CLAIMS:
        for entry in yaml.safe_load(path.read_text(encoding="utf-8")):
            reads = {key: value for key, value in entry.items() if key not in FIXTURE_KEYS}
            assert not re.search(r"\$regex|\$regularExpression", json.dumps(reads, default=str)), \
                (path.name, entry.get("id"))


def test_the_null_claims_fixture_has_no_arrays():
    """X2's fixture holds null, missing and scalars only: null through arrays, which 9.0
    changed, and the 8.0 undefined change are both outside it."""
    documents = json.loads((ROOT / "data" / "nulls.json").read_text(encoding="utf-8"))
    assert [sorted(doc) for doc in documents] == [["_id", "a"], ["_id"], ["_id", "a"],
                                                  ["_id", "a"]]
    assert not any(isinstance(doc.get("a"), list) for doc in documents)


# $collStats: the names the B-tree experiment reads, per version ------------------------------
# storage_stats.cpp builds ``storageStats`` with ``indexDetails`` (each index's WiredTiger
# statistics) and ``indexSizes`` (each index's file size), the same names on 6.0, 7.0 and 8.0
# (the manual's collStats page: the command is deprecated from 6.2; the $collStats stage is
# not). Each WiredTiger statistic is "group: name" in dist/stat_data.py, which mongod exports as
# {group: {name: value}}. The groups and names below are data-source statistics in
# stat_data.py (CacheStat, RecStat, BlockStat); they were read in the stored revisions of that
# file and of storage_stats.cpp, not release tag by release tag, so the table states the same
# names for 6.0, 7.0 and 8.0 as the finding and leaves the confirmation per release to a live
# server: the test marked mongodb below reads each one.
COLLSTATS_FIELDS = {
    version: {
        "storageStats": ("indexSizes", "indexDetails"),
        "cache": ("leaf pages split during eviction", "internal pages split during eviction",
                  "in-memory page splits", "pages read into cache", "pages written from cache"),
        "reconciliation": ("leaf page multi-block writes", "page reconciliation calls"),
        "block-manager": ("file size in bytes", "file bytes available for reuse",
                          "checkpoint size"),
    }
    for version in ("6.0", "7.0", "8.0")
}


@pytest.mark.parametrize("version", sorted(COLLSTATS_FIELDS))
def test_the_btree_experiment_reads_the_names_each_version_gives(version):
    """The WiredTiger counters the B-tree experiment reads from ``indexDetails._id_`` are,
    group by group, the names MongoDB ``version`` exports."""
    fields = COLLSTATS_FIELDS[version]
    for group, names in btree_mongodb.MONGO_COUNTERS.items():
        assert names == fields[group], (version, group)
    for gauge in btree_mongodb.MONGO_GAUGES:
        group, name = gauge.split(": ", 1)
        assert name in fields[group], (version, gauge)


@pytest.mark.mongodb
def test_a_live_server_gives_every_name_the_btree_experiment_reads(mongodb_server):
    """On the server at hand, ``$collStats`` gives ``indexSizes._id_`` and every counter the
    B-tree experiment reads, under the names it reads them by."""
    database = mongodb_server.fresh_database("collstats")
    try:
        collection = database.create_collection("t")
        collection.insert_many([{"_id": i} for i in range(100)])
        size, counters = btree_mongodb._id_index_stats(collection)
        assert isinstance(size, int)
        assert size > 0
        missing = [name for name, value in counters.items() if value is None]
        assert missing == [], f"MongoDB {mongodb_server.version} lacks {missing}"
    finally:
        mongodb_server.drop(database.name)
