"""What the per-lesson test modules share: run a claim live and read its rows."""

from __future__ import annotations

from labkit import claims, runner


def lesson_claims(module: str, offline: bool) -> list[str]:
    """The IDs of the claims an experiments module registers: offline ones, or server ones."""
    return [c.id for c in claims.registered()
            if c.experiment.__module__ == f"labkit.experiments.{module}"
            and (not c.needs) == offline]


def run_offline(claim_id: str) -> runner.ClaimResult:
    """Run one claim in a fresh context that has no server."""
    with runner.Context() as ctx:
        return runner.run_claim(claims.get(claim_id), ctx)


def run_on(server, claim_id: str) -> runner.ClaimResult:
    """Run one claim against a given real MongoDB server."""
    with runner.Context(mongodb_provider=lambda: server) as ctx:
        return runner.run_claim(claims.get(claim_id), ctx)
