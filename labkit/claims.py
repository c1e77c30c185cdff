"""Every claim the kit checks, by ID and topic, in the order of ``CLAIMS.md``."""

from __future__ import annotations

from collections.abc import Iterable

from . import experiments  # noqa: F401  (importing the experiments registers the claims)
from ._claim import (  # noqa: F401  (the vocabulary, for callers of this module)
    BEHAVIOUR,
    ERROR,
    FAILS,
    FINDING,
    HOLDS,
    NOT_RUN,
    SURVEY,
    TOPICS,
    VERDICT_TEXT,
    Claim,
    Observation,
)
from ._registry import REGISTRY
from .errors import BadInput, UnknownClaim


def _order(claim_id: str) -> tuple[int, int]:
    return ("DSBOUX".index(claim_id[0]), int(claim_id[1:]))


def registered() -> list[Claim]:
    """Every registered claim, in the order of CLAIMS.md."""
    return [REGISTRY[key] for key in sorted(REGISTRY, key=_order)]


def get(claim_id: str) -> Claim:
    """Return one registered claim, or raise ``UnknownClaim`` naming the known IDs."""
    key = claim_id.strip().upper()
    if key not in REGISTRY:
        raise UnknownClaim(f"no claim {claim_id!r}; known: {', '.join(c.id for c in registered())}")
    return REGISTRY[key]


def _names(values: Iterable[str] | None, what: str) -> list[str] | None:
    if values is None:
        return None
    names = [v.strip() for v in values]
    if not names or not all(names):
        raise BadInput(f"{what} needs at least one name, with none empty")
    return names


def select(ids: Iterable[str] | None = None, topics: Iterable[str] | None = None) -> list[Claim]:
    """The claims to run: all, or those with the given IDs or topics (None: no filter)."""
    claims = registered()
    topics = _names(topics, "--topics")
    if topics:
        unknown = [t for t in topics if t not in TOPICS]
        if unknown:
            raise UnknownClaim(f"unknown topic {unknown[0]!r}; known: {', '.join(TOPICS)}")
        claims = [c for c in claims if c.topic in topics]
    ids = _names(ids, "--claims")
    if ids:
        wanted = [get(i).id for i in ids]
        claims = [c for c in claims if c.id in wanted]
    return claims
