"""A run whose MongoDB server goes away midway (over the wire, no server needed): the claim
that lost it is an error, and every later claim that needs MongoDB is not run at once, saying
the server stopped answering, instead of each waiting out the driver's server selection. A
reset the server outlives costs only its own claim."""

from __future__ import annotations

import pytest
from wire_replies import databases, script_from_uri

from labkit.experiments import catalogue
from labkit.run import runner
from labkit.servers import mongo

pytestmark = pytest.mark.wire

def _server(wire_server) -> mongo.MongoServer:
    """The scripted server found by URI, as a run finds a user's server (root, as
    ``wire_replies.script_from_uri`` scripts it)."""
    script_from_uri(wire_server)
    return mongo.from_uri(wire_server.uri + "&serverSelectionTimeoutMS=400")


def test_a_server_gone_midway_leaves_the_later_claims_not_run_with_why(wire_server):
    """The server stops after labkit found it: the first claim errs on the lost connection,
    labkit asks the server once more, and D3 and S1 are not run, saying the server stopped
    answering during the run (with what to do), without trying it again."""
    server = _server(wire_server)
    wire_server.stop()
    claims = [catalogue.get(claim_id) for claim_id in ("D1", "D3", "S1")]
    with runner.Context(mongodb_provider=lambda: server) as ctx:
        run = runner.run(claims, ctx)
    first, *later = run.claims
    assert first.verdict == "error"
    for result in later:
        (row,) = result.rows
        assert row.verdict == "not-run", str(row)
        assert "stopped answering during the run" in str(row.reason)
    server.stop()


def test_a_reset_the_server_outlives_costs_only_its_own_claim(wire_server):
    """A connection reset on a claim's first write (its lease), with the server still
    answering the ping labkit sends after it, leaves the server to the next claim: it is not
    marked gone for the rest of the run."""
    from labkit.errors import ServerUnavailable

    server = _server(wire_server)
    wire_server.on("listDatabases", databases())
    wire_server.on("update", hangup=True, times=1)  # the first lease write is cut off
    wire_server.on("dropDatabase", {"ok": 1.0})
    with runner.Context(mongodb_provider=lambda: server) as ctx:
        with pytest.raises(ServerUnavailable) as caught:
            ctx.mongodb_database("first")
        pings = len(wire_server.named("ping"))
        ctx.still_there("mongodb", caught.value)
        assert len(wire_server.named("ping")) == pings + 1
        assert ctx.unavailable("mongodb") is None
    server.stop()
