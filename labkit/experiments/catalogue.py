"""Every claim the kit checks, by ID and topic, in the order of ``CLAIMS.md``."""

from __future__ import annotations

from collections.abc import Iterable

from labkit.claims.claim import (  # noqa: F401  (the vocabulary, for callers of this module)
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
from labkit.claims.registry import REGISTRY
from labkit.errors import BadInput, UnknownClaim
from labkit.experiments import (  # noqa: F401  (importing the experiments registers their claims)
    bracketing,
    btree_keys,
    dates,
    objectid_anatomy,
    objectid_ordering,
    sort_order,
)
from labkit.i18n import _

LESSONS = {
    "dates": "01_dates_not_strings.ipynb",
    "sort_order": "02_bson_sort_order.ipynb",
    "bracketing": "03_type_bracketing.ipynb",
    "objectid_anatomy": "04_objectid_anatomy.ipynb",
    "objectid_ordering": "05_objectid_ordering.ipynb",
    "btree_keys": "06_btree_keys.ipynb",
}


def lesson_of(claim) -> str:
    """The notebook that teaches a claim: ``notebooks/<lesson>``, from its experiment's module."""
    module = claim.experiment.__module__.rsplit(".", 1)[-1]
    return f"notebooks/{LESSONS[module]}" if module in LESSONS else ""


def _order(claim_id: str) -> tuple[int, int]:
    return ("DSBOUX".index(claim_id[0]), int(claim_id[1:]))


def registered() -> list[Claim]:
    """Every registered claim, in the order of CLAIMS.md."""
    return [REGISTRY[key] for key in sorted(REGISTRY, key=_order)]


def get(claim_id: str) -> Claim:
    """Return one registered claim, or raise ``UnknownClaim`` naming the known IDs."""
    key = claim_id.strip().upper()
    if key not in REGISTRY:
        raise UnknownClaim(_("no claim {claim}; known: {known}").format(
            claim=repr(claim_id), known=", ".join(c.id for c in registered())))
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
