"""Lesson 05's experiments, `labkit.experiments.objectid_ordering` (O6-O9, X6): each claim agrees
with its expectation (docs/claims.md) when run live, and names the engine and version it ran on."""

from helpers import offline_claims_hold, server_claims_hold

test_offline_claim_holds_on_a_live_run = offline_claims_hold("objectid_ordering")
test_server_claim_holds_on_a_real_server = server_claims_hold("objectid_ordering")
