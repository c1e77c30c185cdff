"""BSON's undefined carried to a server (labkit.engines.undefined) and kept from the fakes.

The byte string is the BSON corpus's own: mongodb/specifications,
``source/bson-corpus/tests/undefined.json`` at 611817ea223da601fd5275be251b03d7771087a5,
``{"a": {"$undefined": true}}`` is ``0800000006610000``. libbson (python-bsonjs) reads the
nested cases back as Extended JSON, a reader apart from the code under test. Whether a server
stores and matches what is sent only a real one says: the live test at the end inserts such a
fixture and asks for it by ``$type``.
"""

from __future__ import annotations

import json

import pytest

from labkit.engines import undefined
from labkit.model.bson_order import UNDEFINED


def test_the_corpus_document_is_written_byte_for_byte():
    assert undefined.as_bson({"a": UNDEFINED}).raw == bytes.fromhex("0800000006610000")


def test_nested_undefined_values_and_a_moved_id_read_back_in_libbson():
    """Undefined inside arrays and documents, beside a null that stays a null, with every
    fixed- and counted-size type between them, and an ``_id`` written first though given
    last (pymongo moves it; the marking goes by name)."""
    bsonjs = pytest.importorskip("bsonjs")
    from bson import Binary, Decimal128, Int64, ObjectId, Regex, Timestamp
    from bson.max_key import MaxKey
    from bson.min_key import MinKey

    document = {"x": [1, UNDEFINED, {"y": UNDEFINED, "n": None}], "s": "text", "b": b"\x01",
                "bin": Binary(b"\x00" * 16, 4), "d": 2.5, "l": Int64(7), "dec": Decimal128("1.5"),
                "o": ObjectId("0" * 24), "r": Regex("^a", "i"), "t": Timestamp(1, 2),
                "lo": MinKey(), "hi": MaxKey(), "after": UNDEFINED, "_id": 1}
    read = json.loads(bsonjs.dumps(undefined.as_bson(document).raw))
    assert next(iter(read)) == "_id"
    assert read["x"] == [1, {"$undefined": True}, {"y": {"$undefined": True}, "n": None}]
    assert read["after"] == {"$undefined": True}
    assert read["s"] == "text"
    assert read["d"] == 2.5


def test_a_document_without_undefined_goes_as_it_is():
    document = {"_id": 1, "a": None, "b": [None]}
    assert undefined.as_bson(document) is document
    assert not undefined.holds_undefined(document)
    assert undefined.holds_undefined({"a": [{"b": UNDEFINED}]})


FIXTURE_WITH_UNDEFINED = """\
- id: null-skips-undefined
  title: "{a: null} matches null and missing, not undefined"
  source: "jstests/core/query/null_query_semantics.js:10-11 at 1704949c (requires_fcv_80)"
  fixture:
    - {_id: 1, a: null}
    - {_id: 2}
    - {_id: 3, a: {$undefined: true}}
  find: {a: null}
  expect: {ids: [1, 2]}
"""


@pytest.mark.parametrize("fake", ["mongomock", "montydb"])
def test_a_fake_does_not_run_a_fixture_holding_undefined(fake, tmp_path):
    """A fake would store a null where the file says undefined and answer about that, so the
    claim is not run there, saying why; the model, which keeps undefined, judges it."""
    pytest.importorskip(fake)
    from labkit.claims.claim import HOLDS, NOT_RUN
    from labkit.i18n import english
    from labkit.run import check

    path = tmp_path / "undefined.yaml"
    path.write_text(FIXTURE_WITH_UNDEFINED, encoding="utf-8")
    result = check.run_files([path], f"model,{fake}")
    model, faked = result.run.rows
    assert english(model.engine).startswith("model")
    assert model.verdict == HOLDS
    assert english(faked.engine).startswith(fake)
    assert faked.verdict == NOT_RUN
    assert "BSON's undefined has no Python value" in str(faked.reason)


def test_undefined_and_missing_survive_a_copy_and_a_pickle():
    """The engines copy a fixture before loading it and the ID-making processes pickle
    values: both keep the one ``UNDEFINED`` and ``MISSING`` the model knows by identity."""
    import copy
    import pickle

    from labkit.model.bson_order import MISSING

    fixture = [{"_id": 3, "a": UNDEFINED, "b": [MISSING]}]
    for copied in (copy.deepcopy(fixture), copy.copy(fixture), pickle.loads(pickle.dumps(fixture))):
        assert copied[0]["a"] is UNDEFINED
        assert copied[0]["b"][0] is MISSING
    loaded = {"_id": 3, "a": UNDEFINED}
    assert undefined.as_bson(copy.deepcopy(loaded)).raw == undefined.as_bson(loaded).raw


@pytest.mark.wire
def test_the_mongodb_engine_sends_undefined_as_bsons_own_type(wire_server, tmp_path,
                                                              monkeypatch):
    """Over the wire, the fixture's insert carries ``a`` as type 0x06 (a null stays 0x0A):
    the scripted server reads the commands as raw BSON here (MockupDB decodes with its
    module's ``CODEC_OPTIONS``), since pymongo decodes undefined as None. The reply
    insert's reply is the harness's (write_ops.idl, InsertCommandReply ``{n}``), the find's a
    cursor of the two documents the claim expects (the find command page's reply)."""
    import mockupdb
    from bson.codec_options import CodecOptions
    from bson.raw_bson import RawBSONDocument
    from mongo_wire import cursor_of
    from wire_replies import connected

    from labkit.claims import files
    from labkit.engines.query import MongoDBEngine

    path = tmp_path / "undefined.yaml"
    path.write_text(FIXTURE_WITH_UNDEFINED, encoding="utf-8")
    (spec,) = files.read(path)
    with connected(wire_server) as lab:
        lab.wire.on("find", cursor_of([{"_id": 1}, {"_id": 2}]))
        monkeypatch.setattr(mockupdb, "CODEC_OPTIONS",
                            CodecOptions(document_class=RawBSONDocument))
        try:
            MongoDBEngine(lab.server).answer(spec, list(spec.steps))
        finally:
            monkeypatch.undo()
        (insert,) = [s for s in lab.wire.named("insert") if s.db.startswith("labkit_check_")]
    documents = {doc["_id"]: doc.raw for doc in insert["documents"]}
    # 17 bytes: the length, _id as int32 (0x10), a as undefined (0x06) or null (0x0A), the end.
    assert documents[3] == bytes.fromhex("11000000" "105f696400" "03000000" "066100" "00")
    assert documents[1] == bytes.fromhex("11000000" "105f696400" "01000000" "0a6100" "00")


@pytest.mark.mongodb
def test_live_the_server_stores_the_fixtures_undefined_and_judges_the_claim(mongodb_server,
                                                                            tmp_path):
    """On a real server the fixture's ``a`` is stored as undefined (``$type: "undefined"``
    finds _id 3 alone), and the claim is judged there: it holds from 8.0, where ``{a: null}``
    no longer matches undefined (jstests/core/query/null_query_semantics.js:10-11 at
    1704949c), and does not hold before (jstests/core/null_query_semantics.js:39-43 at
    1a18c8f8)."""
    from labkit.claims import files
    from labkit.claims.claim import FAILS, HOLDS
    from labkit.engines.query import load_and_read
    from labkit.run import check

    path = tmp_path / "undefined.yaml"
    path.write_text(FIXTURE_WITH_UNDEFINED, encoding="utf-8")
    (spec,) = files.read(path)
    database = mongodb_server.fresh_database("undefined")
    try:
        load_and_read(database, spec, [], server_errors=())
        (collection,) = spec.fixture
        stored = [d["_id"] for d in database[collection].find({"a": {"$type": "undefined"}})]
    finally:
        mongodb_server.drop(database.name)
    assert stored == [3]
    (row,) = check.run_files([path], "mongodb").run.rows
    major = int(mongodb_server.version.split(".")[0])
    assert row.verdict == (HOLDS if major >= 8 else FAILS), row.reason
