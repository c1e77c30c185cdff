"""Lesson 03's experiments, `labkit.experiments.bracketing` (B1, B2, X1-X4; all need MongoDB): each
claim agrees with docs/claims.md when run live, and names the engine and version it ran on."""

from helpers import server_claims_hold

test_server_claim_holds_on_a_real_server = server_claims_hold("bracketing")
