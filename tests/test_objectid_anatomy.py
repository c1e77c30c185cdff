"""Lesson 04's experiments, `labkit.experiments.objectid_anatomy`: each claim agrees with CLAIMS.md
when run live, and names the engine and version it ran on."""

from __future__ import annotations

import pytest
from claim_helpers import lesson_claims, run_offline

from labkit import claims

OFFLINE = lesson_claims("objectid_anatomy", offline=True)
assert OFFLINE, "every claim of lesson 04 runs without a server"


@pytest.mark.parametrize("claim_id", OFFLINE)
def test_offline_claim_holds_on_a_live_run(claim_id):
    """Each claim that needs no server runs here and agrees with its recorded result."""
    (row,) = run_offline(claim_id).rows
    assert row.verdict == claims.HOLDS, str(row)
    assert row.engine and row.engine_version
