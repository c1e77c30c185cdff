"""Lesson 03's experiments, `labkit.experiments.bracketing`: each claim agrees with CLAIMS.md
when run live, and names the engine and version it ran on."""

from __future__ import annotations

import pytest
from claim_helpers import lesson_claims, run_on

from labkit import claims

ON_MONGODB = lesson_claims("bracketing", offline=False)


@pytest.mark.mongodb
@pytest.mark.parametrize("claim_id", ON_MONGODB)
def test_server_claim_holds_on_a_real_server(claim_id, mongodb_server):
    """Each claim that needs MongoDB agrees with CLAIMS.md on the session's real server."""
    for row in run_on(mongodb_server, claim_id).rows:
        assert row.verdict == claims.HOLDS, str(row)
        assert (row.engine, row.engine_version) == ("MongoDB", mongodb_server.version)
