"""Lesson 05's experiments, `labkit.experiments.objectid_ordering`: each claim agrees with CLAIMS.md
when run live, and names the engine and version it ran on."""

from __future__ import annotations

import pytest
from claim_helpers import lesson_claims, run_offline, run_on

from labkit import claims

OFFLINE = lesson_claims("objectid_ordering", offline=True)
ON_MONGODB = lesson_claims("objectid_ordering", offline=False)


@pytest.mark.parametrize("claim_id", OFFLINE)
def test_offline_claim_holds_on_a_live_run(claim_id):
    """Each claim that needs no server runs here and agrees with its recorded result."""
    (row,) = run_offline(claim_id).rows
    assert row.verdict == claims.HOLDS, str(row)
    assert row.engine and row.engine_version


@pytest.mark.mongodb
@pytest.mark.parametrize("claim_id", ON_MONGODB)
def test_server_claim_holds_on_a_real_server(claim_id, mongodb_server):
    """Each claim that needs MongoDB agrees with CLAIMS.md on the session's real server."""
    for row in run_on(mongodb_server, claim_id).rows:
        assert row.verdict == claims.HOLDS, str(row)
        assert (row.engine, row.engine_version) == ("MongoDB", mongodb_server.version)
