"""Predict-first exercises: the learner writes a prediction, a live observation judges it.

Every right answer a learner would type counts: an ``accept`` rule per exercise says what
"the same" means (a moment in time, hex digits, a fraction, a set...). Without a server, a
claim-backed exercise is judged against the model's prediction or the source's recorded
result, and says which.
"""

from __future__ import annotations

import contextlib
import html
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Required, TypedDict, Unpack

from labkit.claims.claim import COLOURS, FAILS, HOLDS, NOT_RUN, one_line
from labkit.errors import NoAnswer, Unreadable
from labkit.i18n import N_, Message, _, english, shown
from labkit.lessons import course
from labkit.lessons.answers import parse_time
from labkit.lessons.rules import (
    Accept,
    AsSet,
    Bool,
    Custom,
    Fraction,
    Hex,
    InOrder,
    Number,
    Said,
    Same,
    Spelling,
    Time,
    same,
)
from labkit.names import where
from labkit.outputs.escape import as_typed

__all__ = ["BYTES", "LIVE", "MODEL", "MODEL_NO_SERVER", "OWN", "RECORDED", "Accept", "AsSet",
           "Bool", "Custom", "Exercise", "Feedback", "Fraction", "Hex", "InOrder", "Made",
           "Number", "Said", "Same", "Spelling", "Time", "asked", "parse_time", "same",
           "textbook_btree"]


def _written(prediction: Any) -> str:
    """A prediction as Python writes it (``repr``: ``'an error'``, ``[1, 3, 4]``), for the
    learner's progress; a value whose ``repr`` fails is named by its type."""
    try:
        return repr(prediction)
    except Exception:  # the learner's own object: its repr is not labkit's to trust
        return f"<{type(prediction).__name__}>"


# About how many characters of feedback a learner reads at a glance: a right answer's verdict
# and its short why stay within it, and what is longer (the rest of a why, this run's own
# figures) waits behind a fold (``Feedback.more``).
VISIBLE = 400


@dataclass
class Feedback:
    """The answer to one prediction: right or not, and a hint that does not give it away
    (``message``, always shown); ``more``, what can wait behind a fold (the rest of a long
    why, this run's figures), opened on request in HTML and written on the next line in
    text, where nothing can fold."""

    correct: bool | None
    message: str
    more: str = ""

    def __str__(self) -> str:
        return f"{self.message}\n{self.more}" if self.more else self.message

    __repr__ = __str__

    @as_typed
    def _repr_html_(self) -> str:
        # a right answer in the colour of a claim that holds, a wrong one of one that does not
        colour = COLOURS[{True: HOLDS, False: FAILS, None: NOT_RUN}[self.correct]]
        fold = (f"<details><summary>{html.escape(_('More'))}</summary>"
                f"{html.escape(self.more)}</details>" if self.more else "")
        return f"<div style='color:{colour}'>{html.escape(self.message)}{fold}</div>"

    def __bool__(self) -> bool:
        return bool(self.correct)


LIVE, MODEL, RECORDED = "live", "model", "recorded"
# What a question answered by labkit's model names as its engine (lessons/recall.py): its
# agreement is a prediction, never "the live run".
MODEL_NAME = N_("labkit's model")
# What answered where a claim's exercise had no server: the model's prediction, so labelled.
MODEL_NO_SERVER = "labkit's model (no server here)"
# Units a learner may write after a number of bytes; any language, as typed (not translated).
BYTES = ("bytes", "byte", "b")
# The progress table's group for exercises made outside any lesson (a learner's own).
OWN = N_("own")


class RowOptions(TypedDict, total=False):
    """The keywords ``Exercise`` takes beside its question, answer, hints and lesson: what a
    lesson's table of exercises gives for one (``asked``)."""

    explanation: Required[str]
    more: str | None
    finding: Callable[[], str | Message] | None
    measured: str | None
    engine: Callable[[], tuple[str, str]] | None
    accept: Accept[Any] | Callable[[Any, Any], bool] | None
    mistakes: dict[Any, str] | Iterable[tuple[Any, str]] | None


class ExerciseOptions(RowOptions, total=False):
    """The keywords ``Exercise`` takes beside its question, answer and hints (``from_claim``
    passes them on)."""

    lesson: str | None


class Exercise:
    """A question whose right answer is observed live, on first need, never typed in.

    ``observe`` runs the experiment and returns the answer. ``accept`` says which
    predictions count as right (an ``Accept`` rule, or a function of prediction and
    answer). ``hint`` is one hint or several, from gentle to plain; ``mistakes`` gives a
    common wrong answer its own hint (a dict, or ``(answer, hint)`` pairs). Every
    exercise says why, once answered: ``explanation``, true wherever it runs, short enough to
    read at a glance (``VISIBLE``), and ``more``, the rest of a longer why, shown behind a fold;
    ``finding``, where the answer is the learner's run's own (a measurement), says behind the
    fold what this run measured (a function called once the answer is had; a ``Message``).
    ``measured`` says in words what the run measures, for an answer that differs from run to
    run or machine to machine: the answer sheet says that instead of printing a figure.
    ``engine`` names what answers, once it has: its name (the answer sheet's) and its label
    with its version (the feedback's and ``reveal``'s); ``from_claim`` names the claim's
    engine itself. ``lesson`` files it in the learner's progress (a lesson's number; else the
    lesson the kernel is in, else "own").
    """

    def __init__(self, question: str, observe: Callable[[], Any], hint: str | Iterable[str], *,
                 explanation: str, more: str | None = None,
                 finding: Callable[[], str | Message] | None = None,
                 measured: str | None = None,
                 engine: Callable[[], tuple[str, str]] | None = None,
                 accept: Accept[Any] | Callable[[Any, Any], bool] | None = None,
                 mistakes: dict[Any, str] | Iterable[tuple[Any, str]] | None = None,
                 lesson: str | None = None) -> None:
        if not explanation:
            raise ValueError("every exercise needs an explanation")
        self.question = question
        self.hints = [hint] if isinstance(hint, str) else list(hint)
        self.explanation = explanation
        self.more = more
        self.finding = finding
        self.measured = measured
        self.accept = accept if isinstance(accept, Accept) else Custom(accept) if accept \
            else Same()
        pairs = mistakes.items() if isinstance(mistakes, dict) else (mistakes or [])
        self.mistakes: list[tuple[Any, str]] = list(pairs)
        self._observe = observe
        self._engine_of = engine
        self._answer: Any = None
        self._failure = ""
        self._observed = False
        self._given: set[str | Message] = set()
        self.attempts = 0
        self.solved = False
        self.engine: str | None = None  # what produced the answer, for reveal
        self.engine_name: str | None = None  # the same without its version (answer sheet)
        self.source = LIVE  # live, model or recorded
        self.lesson = lesson
        self._record("seen")

    @property
    def hint(self) -> str:
        """The first hint."""
        return self.hints[0] if self.hints else ""

    @classmethod
    def from_claim(cls, claim_id: str, question: str, pick: Callable[[Any], Any],
                   hint: str | Iterable[str], **kwargs: Unpack[ExerciseOptions]) -> Exercise:
        """An exercise answered by part (``pick``) of a claim's observation on this kernel's
        engines, whatever the verdict there. Where the claim cannot run (no server), the
        answer comes from the model's prediction, else from the source's expectation, and
        the feedback says so."""
        def observe() -> Any:
            # the claim's run (the registry, the session, the servers): loaded when the answer
            # is first asked for, so that making an Exercise stays light
            from labkit.experiments.catalogue import get
            from labkit.lessons.notebook import (
                MODEL_LABEL,
                model_prediction,
                session,
            )
            from labkit.run.runner import first_missing

            item = get(claim_id)
            ctx = session()
            if first_missing(ctx, item.needs) is None:
                row = ctx.claim_result(item).rows[0]
                # A row that shows an observation was judged on one (run.guard.judge).
                if row.shows_observation and (obs := row.observation) is not None:
                    exercise.engine = where(obs.engine, obs.engine_version)
                    exercise.engine_name = english(obs.engine)
                    return pick(obs.observed)
            predicted = model_prediction(item)
            if predicted is not None and predicted[0] == MODEL_LABEL:
                try:
                    value = pick(predicted[1])
                except (KeyError, IndexError, TypeError, ValueError):
                    pass
                else:
                    exercise.source, exercise.engine = MODEL, MODEL_NO_SERVER
                    return value
            exercise.source, exercise.engine = RECORDED, item.expected_label
            return pick(item.expected)

        exercise = cls(question, observe, hint, **kwargs)
        return exercise

    def _record(self, state: str, prediction: Any = None) -> None:
        """Note this exercise's state in the learner's progress; a check (``"tried"``,
        ``"right"``) with the prediction it judged, written as Python writes it."""
        here = course.current()
        lesson = self.lesson or (here if here != "?" else OWN)
        given = _written(prediction) if state in ("tried", "right") else None
        course.record(self.question, state, lesson, answer=given)

    def answer(self) -> Any:
        """The observed answer (runs the experiment the first time)."""
        if not self._observed:
            try:
                self._answer = self._observe()
                if self._engine_of is not None:
                    self.engine_name, self.engine = self._engine_of()
            except Exception as exc:  # the learner's cell must never show a traceback
                self._failure = shown(one_line(exc))
            self._observed = True
        if self._failure:
            raise NoAnswer(self._failure)
        return self._answer

    def _agreement(self) -> str:
        if self.source == MODEL:
            return _("No MongoDB here, so this was checked against labkit's model's prediction, "
                     "not an observation of a server.")
        if self.source == RECORDED:
            return _("No server here, so this was checked against the result {label}.").format(
                label=self.engine)
        if self.engine and self.engine_name == _(MODEL_NAME):
            return _("{engine} predicts the same: a prediction from MongoDB's rules, not an "
                     "observation of a server.").format(engine=self.engine)
        if self.engine:
            return _("The live run on {engine} agrees.").format(engine=self.engine)
        return _("The live run agrees.")

    def _said(self, prediction: Any) -> bool:
        """Whether the prediction says one of the mistakes given in words (``Said``)."""
        return any(isinstance(wrong, Said) and wrong.says(prediction)
                   for wrong, _text in self.mistakes)

    def _next_hint(self, prediction: Any, answer: Any) -> str | Message:
        for wrong, text in self.mistakes:
            if isinstance(wrong, Said):
                hit = wrong.says(prediction)
            else:
                try:
                    hit = self.accept.matches(prediction, wrong)
                except Exception:  # a mistake that cannot be compared is simply not this one
                    hit = False
            if hit and text not in self._given:
                return text
        try:
            said = self.accept.mistake(prediction, answer)
        except Exception:  # a value the rule reads but cannot place: no hint of its own
            said = ""
        if said and said not in self._given:
            return said
        return next((h for h in self.hints if h not in self._given), "")

    def check(self, prediction: Any = None, *more: Any) -> Feedback:
        """Compare a prediction with the answer; say right and why, or give a fresh hint.

        Never raises, whatever the learner typed: values Python split at a comma
        (``check(0,75)``) are read as the one answer they were (``Accept.gather``).
        """
        gathered = ""
        if more:
            try:
                prediction, gathered = self.accept.gather((prediction, *more))
            except Unreadable as exc:
                return self._unreadable(exc)
        if prediction is None or prediction is Ellipsis:
            return Feedback(None, _(self.question) + " " + _(
                "Write your prediction in place of None, then run this cell again."))
        try:
            answer = self.answer()
        except NoAnswer as exc:
            return Feedback(None, _("This exercise cannot be checked here: {why}").format(
                why=exc))
        said = self._said(prediction)  # a wrong answer in words, such as "an error"
        try:
            right = False if said else self.accept.matches(prediction, answer)
        except Exception as exc:  # unreadable input is never an attempt, and never raises
            return self._unreadable(exc)
        self.attempts += 1
        note = " ".join(text for text in (gathered, "" if said else
                                          self._note(prediction, answer)) if text)
        note = note + " " if note else ""
        if right:
            self.solved = True
            self._record("right", prediction)
            return Feedback(True, note + _("Right. {agreement} Why: {explanation}").format(
                agreement=self._agreement(), explanation=_(self.explanation)), self._more())
        self._record("tried", prediction)
        return Feedback(False, note + self._wrong(prediction, answer))

    def _note(self, prediction: Any, answer: Any) -> str:
        """What the rule says of how it read the answer; nothing where it cannot say (an
        object from numpy or pandas it compared, but cannot describe)."""
        try:
            return self.accept.note(prediction, answer)
        except Exception:
            return ""

    def _unreadable(self, exc: Exception) -> Feedback:
        written = _(self.accept.example) if self.accept.example else ""
        example = " " + _("Write it like {example}.").format(example=written) if written else ""
        if isinstance(exc, Unreadable):
            why = shown(exc.args[0]) if exc.args else ""  # a message, shown in the learner's words
            if written and written in why:  # the reason gives the example already
                example = ""
            return Feedback(None, _("I could not read that: {why}.").format(why=why) + example)
        return Feedback(None, _("I could not read that as an answer to this question.")
                        + example)

    def _wrong(self, prediction: Any, answer: Any) -> str:
        text = self._next_hint(prediction, answer)
        if text:
            self._given.add(text)
            said = shown(text) if isinstance(text, Message) else _(text)  # a hint with values
            message = _("Not quite. Hint: {hint}").format(hint=said)
            if self.attempts >= 3:
                message += " " + _("(.reveal() shows the answer and why.)")
        else:
            message = _("Not quite, and that was the last hint. Call .reveal() to see the "
                        "answer with its explanation.")
        return message

    def reveal(self) -> Feedback:
        """Show the answer, readable, with where it came from and why."""
        try:
            answer = self.answer()
        except NoAnswer as exc:
            return Feedback(None, _("No answer can be had here: {why}").format(why=exc))
        self._record("revealed")
        if self.source == MODEL:
            where = " " + _("(labkit's model's prediction; no server here)")
        elif self.source == RECORDED:
            where = f" ({self.engine})"
        else:
            where = " " + _("(observed on {engine})").format(engine=self.engine) \
                if self.engine else ""
        return Feedback(None, _("Answer: {answer}{where}. Why: {explanation}").format(
            answer=self.accept.show(answer), where=where, explanation=_(self.explanation)),
            self._more())

    def _more(self) -> str:
        """What the feedback folds away: the rest of the why (``more``), then, where the answer
        is a measurement, what this run measured (``finding``); a finding that cannot be had
        is left out, never raised."""
        parts = [_(self.more)] if self.more else []
        # The answer was had; a reading of it must not cost the feedback.
        with contextlib.suppress(Exception):
            if self.finding is not None:
                parts.append(f"{_('In this run:')} {shown(self.finding())}")
        return " ".join(parts)


def textbook_btree() -> tuple[str, str]:
    """labkit's textbook B-tree, as an exercise's ``engine`` names what answers (it has no
    version)."""
    return (_("labkit's textbook B-tree"),) * 2


# An exercise as a lesson's table holds it: made afresh each time it is asked for, and filed in
# the lesson it is given then (``questions.exercise``).
Made = Callable[[str], Exercise]


def asked(question: str, observe: Callable[[], Any], hints: str | list[str],
          **options: Unpack[RowOptions]) -> Made:
    """A row of a lesson's table: ``Exercise(question, observe, hints, **options)``, made when
    its lesson asks for it."""
    return lambda lesson: Exercise(question, observe, hints, lesson=lesson, **options)
