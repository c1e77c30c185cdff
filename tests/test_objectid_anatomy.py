"""Lesson 04's experiments, `labkit.experiments.objectid_anatomy` (O1-O5, O10; none needs a
server): each claim agrees with docs/claims.md when run live, and names the engine and version it
ran on."""

from helpers import offline_claims_hold

test_offline_claim_holds_on_a_live_run = offline_claims_hold("objectid_anatomy")
