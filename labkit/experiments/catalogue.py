"""Every claim the kit checks, by ID and topic: each lesson's module that ``labkit.syllabus``
names is imported here, which registers its claims, and they are listed by their IDs' letters
in lesson order (D, S, B, O, U, then X), then by number, as ``docs/claims.md`` lists them."""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from labkit import syllabus
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
from labkit.i18n import N_, Message


def _import_lessons() -> None:
    """Import each lesson's module the record names: that registers its claims (``@claim``
    checks each against the record as it does)."""
    for lesson in syllabus.LESSONS:
        if lesson.module:
            importlib.import_module(syllabus.EXPERIMENTS + lesson.module)


_import_lessons()


def lesson_of(claim: Claim) -> str:
    """The notebook that teaches a claim: ``notebooks/<lesson>``, from its experiment's module."""
    lesson = syllabus.of_experiment(claim.experiment.__module__)
    return f"notebooks/{lesson.file}" if lesson else ""


def _order(claim_id: str) -> tuple[int, int, str]:
    """Where a claim is listed: its letter's place in the lessons' letters, then its number.
    An ID of no lesson's letter or form (one put in the table by hand) comes last, by text."""
    found = syllabus.CLAIM_ID.fullmatch(claim_id)
    if found is None or found["letter"] not in syllabus.LETTERS:
        return (len(syllabus.LETTERS), 0, claim_id)
    return (syllabus.LETTERS.index(found["letter"]), int(found["number"]), "")


def registered() -> list[Claim]:
    """Every registered claim, by letter in lesson order (D, S, B, O, U, X), then number."""
    return [REGISTRY[key] for key in sorted(REGISTRY, key=_order)]


def get(claim_id: str) -> Claim:
    """Return one registered claim, or raise ``UnknownClaim`` naming the known IDs."""
    key = claim_id.strip().upper()
    if key not in REGISTRY:
        raise UnknownClaim(Message(N_("no claim {claim}; known: {known}"), claim=repr(claim_id),
                                   known=", ".join(c.id for c in registered())))
    return REGISTRY[key]


def _names(values: Iterable[str] | None, what: str) -> list[str] | None:
    if values is None:
        return None
    names = [v.strip() for v in values]
    if not names or not all(names):
        raise BadInput(Message(N_("{option} needs at least one name, with none empty"),
                               option=what))
    return names


def select(ids: Iterable[str] | None = None, topics: Iterable[str] | None = None) -> list[Claim]:
    """The claims to run: all, or those with the given IDs or topics (None: no filter)."""
    claims = registered()
    topics = _names(topics, "--topics")
    if topics:
        unknown = [t for t in topics if t not in TOPICS]
        if unknown:
            raise UnknownClaim(Message(N_("unknown topic {topic}; known: {known}"),
                                       topic=repr(unknown[0]), known=", ".join(TOPICS)))
        claims = [c for c in claims if c.topic in topics]
    ids = _names(ids, "--claims")
    if ids:
        wanted = [get(i).id for i in ids]
        claims = [c for c in claims if c.id in wanted]
    return claims
