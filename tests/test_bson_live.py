"""The model against a real server on random mixed-type documents (runs where MongoDB exists)."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from bson import Binary, Decimal128, Int64, ObjectId
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labkit.model import bson_order as m
from labkit.model import reads

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**63), 2**63 - 1).map(Int64),
    st.sampled_from([0.5, -0.0, 1e300, math.inf, -math.inf, math.nan]), st.floats(-1e6, 1e6),
    st.decimals(min_value=-1000, max_value=1000, places=2).map(Decimal128),
    st.text(alphabet="aZ9é ", max_size=3), st.binary(max_size=2).map(lambda b: Binary(b, 0)),
    st.integers(-(2**40), 2**41).map(
        lambda ms: dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(milliseconds=ms)),
    st.binary(min_size=12, max_size=12).map(ObjectId),
)
values = st.one_of(scalars, st.lists(scalars, max_size=3),
                   st.dictionaries(st.sampled_from("ab"), scalars, max_size=2))
documents = st.lists(st.one_of(values.map(lambda v: {"v": v}), st.just({})), min_size=1,
                     max_size=10).map(lambda docs: [{"_id": i, **d} for i, d in enumerate(docs)])
OPERATORS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]


@pytest.fixture(scope="module")
def scratch(mongodb_server):
    """One labkit_ database for the module's random collections."""
    database = mongodb_server.fresh_database("model_vs_server")
    yield database
    mongodb_server.drop(database.name)


@pytest.mark.mongodb
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents)
def test_model_and_server_sort_alike(scratch, docs):
    """Random mixed-type documents sort the same on the server and in the model."""
    scratch.docs.drop()
    scratch.docs.insert_many([dict(d) for d in docs])
    server = [d["_id"] for d in scratch.docs.find({}, {"_id": 1}).sort([("v", 1), ("_id", 1)])]
    assert server == reads.ids(m.sort(docs, "v:1,_id:1"))
    server = [d["_id"] for d in scratch.docs.find({}, {"_id": 1}).sort([("v", -1), ("_id", 1)])]
    assert server == reads.ids(m.sort(docs, "v:-1,_id:1"))


@pytest.mark.mongodb
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents, st.sampled_from(OPERATORS), scalars)
def test_model_and_server_filter_alike(scratch, docs, op, operand):
    """Random comparisons on random documents match the same _ids on the server and the model."""
    scratch.docs.drop()
    scratch.docs.insert_many([dict(d) for d in docs])
    query = {"v": {op: operand}}
    server = sorted(d["_id"] for d in scratch.docs.find(query, {"_id": 1}))
    assert server == sorted(reads.ids(reads.find(docs, query))), query
