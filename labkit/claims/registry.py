"""Where experiments register their claims: the ``@claim`` decorator and the table it fills."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from labkit.claims.claim import BEHAVIOUR, KINDS, SOURCES, TOPICS, Claim, Experiment, Judge

E = TypeVar("E", bound=Experiment)

REGISTRY: dict[str, Claim] = {}


def claim(id: str, *, title: str, source: str, topic: str, expected: Any,
          needs: Iterable[str] = (), judge: Judge | None = None, kind: str = BEHAVIOUR,
          predict: Callable[[], Any] | None = None, recorded: bool = False
          ) -> Callable[[E], E]:
    """Register the decorated function as the experiment of claim ``id``.

    ``kind="survey"`` for a claim judged per engine, where not holding is a finding.
    ``predict`` computes, with no server, what labkit's model says the experiment would
    observe; ``recorded=True`` says ``expected`` is an output the source document recorded on
    a real server. Both stand in, labelled, where the claim cannot run.
    """
    if topic not in TOPICS:
        raise ValueError(f"unknown topic {topic!r}")
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}")
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")

    def register(experiment: E) -> E:
        if id in REGISTRY:
            raise ValueError(f"claim {id} is registered twice")
        REGISTRY[id] = Claim(id=id, title=title, source=source, topic=topic, expected=expected,
                             experiment=experiment, needs=tuple(needs), judge=judge, kind=kind,
                             predict=predict, recorded=recorded)
        return experiment

    return register
