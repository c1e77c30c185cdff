"""Where experiments register their claims: the ``@claim`` decorator and the table it fills."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from labkit import syllabus
from labkit.claims.claim import (
    BEHAVIOUR,
    KINDS,
    SOURCES,
    TOPICS,
    Claim,
    Experiment,
    Judge,
    Kind,
)
from labkit.errors import BadInput

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

    The ID and the lesson are checked against ``labkit.syllabus`` as the module is imported:
    a letter no lesson owns, an experiment outside its lesson's module or a topic not its
    lesson's raises ``BadInput`` naming the claim, never later in a run.
    """
    if not syllabus.by_claim(id):  # no lesson's letter, or not a letter and a number
        raise BadInput(f"claim {id!r}: an ID is a letter of a lesson and a number from 1 (such "
                       f"as O10); the letters are {syllabus.letters_text()}. A new lesson's "
                       "letter goes in its record in labkit/syllabus.py")
    if topic not in TOPICS:
        raise BadInput(f"claim {id}: unknown topic {topic!r}; known: {', '.join(TOPICS)}")
    if source not in SOURCES:
        raise BadInput(f"claim {id}: unknown source {source!r}; known: {', '.join(SOURCES)}")
    if kind not in KINDS:
        raise BadInput(f"claim {id}: unknown kind {kind!r}; known: {', '.join(KINDS)}")

    def register(experiment: E) -> E:
        _check_lesson(id, topic, experiment)
        if id in REGISTRY:
            raise BadInput(f"claim {id} is registered twice")
        REGISTRY[id] = Claim(id=id, title=title, source=source, topic=topic, expected=expected,
                             experiment=experiment, needs=tuple(needs), judge=judge,
                             kind=Kind(kind), predict=predict, recorded=recorded)
        return experiment

    return register


def _check_lesson(id: str, topic: str, experiment: Experiment) -> None:
    """The experiment of claim ``id`` lives in the module of a lesson that may hold the ID, and
    the claim's topic is that lesson's; else ``BadInput`` says which lesson would."""
    module = getattr(experiment, "__module__", "") or ""
    lesson = syllabus.of_experiment(module)
    may_hold = syllabus.by_claim(id)
    where = ", ".join(f"{item.number} (labkit.experiments.{item.module})" for item in may_hold)
    if lesson is None:
        raise BadInput(f"claim {id}: its experiment is in {module}, which is no lesson's module; "
                       f"the lessons that may hold it: {where}")
    if lesson not in may_hold:
        raise BadInput(f"claim {id}: lesson {lesson.number} ({module}) holds only claims "
                       f"lettered {', '.join((*lesson.letters, syllabus.MANUAL_LETTER))}; "
                       f"the lessons that may hold {id}: {where}")
    if topic != lesson.topic:
        raise BadInput(f"claim {id}: topic {topic!r} is not its lesson's; lesson "
                       f"{lesson.number} teaches {lesson.topic!r}")
