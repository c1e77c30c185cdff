"""The kernel's lab: one object holding all that a notebook kernel keeps between its cells.

Its runner context (made on first need, kept for the kernel's life), the lesson in use with what
that lesson's cards have said once and the model's predictions (afresh at each
``labkit.start_lesson``), and the exercises made in the kernel with how far each got (kept
across lessons). ``lab()`` reaches it; building a card changes nothing but this record, so a
cell run twice shows the same thing.
"""

from __future__ import annotations

import atexit
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from labkit.run.runner import Context


class Asked(Protocol):
    """An exercise as the lab keeps it: ``lessons.exercises.Exercise``, which records its
    progress here and so is named by what the lab reads of it, its question (the key of its
    state)."""

    question: str


class Lab:
    """A kernel's lab: its context, the lesson in use and what it has said once, and the
    kernel's exercises and their states."""

    def __init__(self, context: Context | None = None) -> None:
        # Given (a test's, the answer sheet's offline one), it is its giver's to close.
        self._context = context
        self.lesson = "?"  # the lesson's number, once one is begun
        # What the lesson has said once (the note on a missing server, a column's legend, the
        # footer that a stand-in is no observation) and the card that says it.
        self._said: dict[str, str] = {}
        # The model's prediction of each claim, made once in the lesson.
        self.predictions: dict[str, tuple[str, Any]] = {}
        # The exercises made in this kernel by name ("01.string_range"), and each one's
        # furthest state here by question (the progress file keeps every session's).
        self.exercises: dict[str, Asked] = {}
        self.states: dict[str, str] = {}
        # What the kernel has told once, whatever the lesson (a progress file it cannot read).
        self.told: set[str] = set()

    @property
    def context(self) -> Context:
        """The kernel's runner context: one MongoDB, one set of B-tree loads."""
        if self._context is None:
            # the servers' room loads when a cell first needs a server or a load; recording a
            # try (``labkit progress``) does not
            from labkit import servers
            from labkit.run.runner import Context

            self._context = Context(mongodb_provider=servers.mongodb)
            atexit.register(self._context.close)
        return self._context

    @contextmanager
    def using(self, context: Context) -> Iterator[None]:
        """``context`` as this lab's context for a while (the answer sheet's, with no server),
        then its own again (still to be made, if it was)."""
        own, self._context = self._context, context
        try:
            yield
        finally:
            self._context = own

    def begin(self, number: str) -> None:
        """Begin lesson ``number``: what a lesson says once, it says afresh, and its
        predictions are made anew; the context and the exercises stay."""
        self.lesson = number
        self._said = {}
        self.predictions = {}

    def says(self, what: str, card: str) -> bool:
        """True where ``card`` is the card that says ``what`` in this lesson: the first to ask,
        and that card every time it is shown again."""
        return self._said.setdefault(what, card) == card


_lab = Lab()  # the kernel's one lab


def lab() -> Lab:
    """The kernel's lab."""
    return _lab
