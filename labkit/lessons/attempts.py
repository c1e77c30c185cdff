"""A lesson's exercises as a notebook asks for them, by name: this kernel remembers each one,
so that a cell showing its answer (``labkit.claim(..., after=name)``, ``labkit.after``) waits
until the learner has tried it, and ``labkit.reveal(name)`` shows the answer on request."""

from __future__ import annotations

from labkit.i18n import N_, Message, shown
from labkit.lessons import course
from labkit.lessons.exercises import Exercise, Feedback
from labkit.lessons.lab import lab
from labkit.lessons.questions import EXERCISES
from labkit.lessons.questions import exercise as make


def exercise(name: str) -> Exercise:
    """A fresh exercise of a lesson by name, such as ``"01.string_range"``, remembered by
    this kernel."""
    made = make(name)
    lab().exercises[name] = made
    course.made(name, made.question)
    return made


def reveal(name: str) -> Feedback:
    """The answer to exercise ``name``, with why (as its ``.reveal()``): the cells that wait
    for the exercise then show what they hold. A name no exercise has is answered with one
    line saying where the names are, never a traceback in the learner's cell."""
    made = lab().exercises.get(name) if isinstance(name, str) else None
    if not isinstance(made, Exercise):  # not made in this kernel (the lab keeps Exercises)
        if not isinstance(name, str) or name not in EXERCISES:
            return Feedback(None, shown(_unknown(name)))
        made = exercise(name)
    return made.reveal()


def _unknown(name: object) -> Message:
    """What to say for a name no exercise has: where the names are, and the names of the
    lesson the name begins with, where it begins with one."""
    said = Message(N_("There is no exercise {name}. An exercise's ID is the name in the cell "
                      "that asks it, such as {example}; labkit.progress() lists the exercises "
                      "you have met, with their IDs."), name=repr(name), example='"01.silent"')
    lesson = str(name)[:2]
    near = [known for known in EXERCISES if known[:2] == lesson]
    if not near:
        return said
    return Message(N_("{said} Lesson {lesson}'s: {names}."), said=said, lesson=lesson,
                   names=", ".join(near))
