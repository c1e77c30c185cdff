"""A lesson's exercises as a notebook asks for them, by name: this kernel remembers each one,
so that a cell showing its answer (``labkit.check(..., after=name)``, ``labkit.after``) waits
until the learner has tried it, and ``labkit.reveal(name)`` shows the answer on request."""

from __future__ import annotations

from labkit.lessons import course
from labkit.lessons.exercises import Exercise, Feedback
from labkit.lessons.questions import exercise as make

_exercises: dict[str, Exercise] = {}


def exercise(name: str) -> Exercise:
    """A fresh exercise of a lesson by name, such as ``"01.string_range"``, remembered by
    this kernel."""
    made = make(name)
    _exercises[name] = made
    course.made(name, made.question)
    return made


def reveal(name: str) -> Feedback:
    """The answer to exercise ``name``, with why (as its ``.reveal()``): the cells that wait
    for the exercise then show what they hold."""
    made = _exercises.get(name) or exercise(name)
    return made.reveal()
