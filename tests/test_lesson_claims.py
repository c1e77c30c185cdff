"""Each lesson's claims run live and agree with docs/claims.md, naming the engine and version they
ran on: those that need no server in the suite's offline run of every claim, those that need
MongoDB on a real server. The lessons are those of `labkit.experiments.dates` (lesson 01),
`sort_order` (02), `bracketing` (03), `objectid_anatomy` (04) and `objectid_ordering` (05),
none of which has a test file of its own (tests/test_docs.py keeps that so)."""

from __future__ import annotations

import pytest
from helpers import LESSONS_RUN_WHOLE, lesson_claims, run_on

from labkit.experiments import catalogue as claims

OFFLINE = [i for module in LESSONS_RUN_WHOLE for i in lesson_claims(module, offline=True)]
SERVER = [i for module in LESSONS_RUN_WHOLE for i in lesson_claims(module, offline=False)]


@pytest.mark.parametrize("module", LESSONS_RUN_WHOLE)
def test_each_lesson_named_here_registers_claims(module):
    """A lesson this file stands for registers claims under its module's name, so none of its
    claims can drop out of the tests below by a rename."""
    assert lesson_claims(module, offline=True) + lesson_claims(module, offline=False), module


@pytest.mark.parametrize("claim_id", OFFLINE)
def test_offline_claim_holds_on_a_live_run(claim_id, offline_run):
    """Each claim that needs no server runs here and agrees with its recorded result."""
    (result,) = [r for r in offline_run.claims if r.claim.id == claim_id]
    (row,) = result.rows
    assert row.verdict == claims.HOLDS, str(row)
    assert row.engine
    assert row.engine_version


@pytest.mark.mongodb
@pytest.mark.parametrize("claim_id", SERVER)
def test_server_claim_holds_on_a_real_server(claim_id, mongodb_server):
    """Each claim that needs MongoDB agrees with its expectation (docs/claims.md) on the
    session's real server."""
    for row in run_on(mongodb_server, claim_id).rows:
        assert row.verdict == claims.HOLDS, str(row)
        assert (row.engine, row.engine_version) == ("MongoDB", mongodb_server.version)
