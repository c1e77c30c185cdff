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
from labkit.i18n import N_, Message

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
        raise BadInput(Message(N_(
            "claim {id}: an ID is a letter of a lesson and a number from 1 (such as O10); the "
            "letters are {letters}. A new lesson's letter goes in its record in "
            "labkit/syllabus.py"), id=repr(id), letters=syllabus.letters_text()))
    if topic not in TOPICS:
        raise BadInput(Message(N_("claim {id}: unknown topic {topic}; known: {known}"),
                               id=id, topic=repr(topic), known=", ".join(TOPICS)))
    if source not in SOURCES:
        raise BadInput(Message(N_("claim {id}: unknown source {source}; known: {known}"),
                               id=id, source=repr(source), known=", ".join(SOURCES)))
    if kind not in KINDS:
        raise BadInput(Message(N_("claim {id}: unknown kind {kind}; known: {known}"),
                               id=id, kind=repr(kind), known=", ".join(KINDS)))

    def register(experiment: E) -> E:
        _check_lesson(id, topic, experiment)
        if id in REGISTRY:
            raise BadInput(Message(N_("claim {id} is registered twice"), id=id))
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
        raise BadInput(Message(N_("claim {id}: its experiment is in {module}, which is no "
                                  "lesson's module; the lessons that may hold it: {where}"),
                               id=id, module=module, where=where))
    if lesson not in may_hold:
        raise BadInput(Message(N_("claim {id}: lesson {lesson} ({module}) holds only claims "
                                  "lettered {letters}; the lessons that may hold {id}: {where}"),
                               id=id, lesson=lesson.number, module=module, where=where,
                               letters=", ".join((*lesson.letters, syllabus.MANUAL_LETTER))))
    if topic != lesson.topic:
        raise BadInput(Message(N_("claim {id}: topic {topic} is not its lesson's; lesson "
                                  "{lesson} teaches {taught}"), id=id, topic=repr(topic),
                               lesson=lesson.number, taught=repr(lesson.topic)))
