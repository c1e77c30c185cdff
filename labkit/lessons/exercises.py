"""Predict-first exercises: the learner writes a prediction, a live observation judges it.

Every right answer a learner would type counts: an ``accept`` rule per exercise says what
"the same" means (a moment in time, hex digits, a fraction, a set...). Without a server, a
claim-backed exercise is judged against the model's prediction or the source's recorded
result, and says which.
"""

from __future__ import annotations

import datetime as dt
import html
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from labkit.claims.claim import short_json
from labkit.errors import NoAnswer, Unreadable
from labkit.i18n import N_, _


def _normal(value: Any) -> Any:
    """Forgive what does not matter: case and spaces, int versus float, tuple versus list."""
    if isinstance(value, str):
        return " ".join(value.strip().lower().split())
    if isinstance(value, bool):
        return ("boolean", value)  # keep True apart from 1, which Python calls equal
    if value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | tuple):
        return [_normal(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _normal(item) for key, item in value.items()}
    return value


def same(prediction: Any, answer: Any) -> bool:
    """The default comparison: equal after ``_normal``; floats within a relative 1e-9."""
    left, right = _normal(prediction), _normal(answer)
    if isinstance(left, float) and isinstance(right, float):
        return math.isclose(left, right, rel_tol=1e-9)
    return left == right


class Accept:
    """What counts as the right answer: ``read`` the prediction, then ``matches`` the answer.

    ``show`` writes an answer for ``reveal``, rounded and readable.
    """

    example = ""

    def read(self, prediction: Any, answer: Any) -> Any:
        """The prediction as a value comparable with the answer (raises ``Unreadable``)."""
        return prediction

    def equal(self, prediction: Any, answer: Any) -> bool:
        """Whether a read prediction equals the answer."""
        return same(prediction, answer)

    def matches(self, prediction: Any, answer: Any) -> bool:
        """Read, then compare."""
        return self.equal(self.read(prediction, answer), answer)

    def show(self, answer: Any) -> str:
        """The answer as a learner would write it."""
        return answer if isinstance(answer, str) else short_json(answer)


class Same(Accept):
    """Equal after forgiving case, spaces, int versus float and tuple versus list; a list
    may be typed as text (``"a, b, c"``), a yes/no as ``"yes"``, a number as ``"1,234"``."""

    def _rule(self, answer: Any) -> Accept | None:
        if isinstance(answer, bool):
            return Bool()
        if isinstance(answer, int | float):
            return Number()
        if isinstance(answer, list | tuple):
            return InOrder()
        return None

    def read(self, prediction, answer):
        """Through the rule the answer's type calls for, where there is one."""
        rule = self._rule(answer)
        return prediction if rule is None else rule.read(prediction, answer)

    def equal(self, prediction, answer):
        """Through the rule the answer's type calls for, else ``same``."""
        rule = self._rule(answer)
        return same(prediction, answer) if rule is None else rule.equal(prediction, answer)

    def show(self, answer):
        """As the answer's rule writes it."""
        rule = self._rule(answer)
        return super().show(answer) if rule is None else rule.show(answer)


class Text(Accept):
    """Text compared with its case kept (where case is the lesson: ``"Z" < "a"``); only
    surrounding spaces and quotes are forgiven."""

    example = '"Z"'

    def read(self, prediction, answer):
        """Strip spaces and one pair of quotes."""
        if not isinstance(prediction, str):
            raise Unreadable(_("write the text in quotes, like {example}").format(
                example=self.example))
        return prediction.strip().strip("\"'")

    def equal(self, prediction, answer):
        """Exact, case included."""
        return prediction == answer


def parse_time(value: Any) -> dt.datetime:
    """A moment from a ``datetime`` (naive means UTC) or an ISO 8601 string (``Z``, ``+00:00``,
    milliseconds, a space instead of ``T``)."""
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, str):
        text = value.strip().strip("\"'").replace(" ", "T", 1)
        if text[-1:] in "zZ":
            text = text[:-1] + "+00:00"
        try:
            moment = dt.datetime.fromisoformat(text)
        except ValueError as exc:
            raise Unreadable(_("{value} is not a time").format(value=repr(value))) from exc
    else:
        raise Unreadable(_("{value} is not a time").format(value=repr(value)))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


class Time(Accept):
    """The same moment: a ``datetime`` or any ISO 8601 spelling of it."""

    example = '"2001-02-03T04:05:06Z"'

    def read(self, prediction, answer):
        """The prediction as an aware datetime."""
        return parse_time(prediction)

    def equal(self, prediction, answer):
        """Same instant (to the microsecond)."""
        return prediction == parse_time(answer)

    def show(self, answer):
        """ISO 8601 in UTC with ``Z``."""
        from labkit.model.objectid import iso_z

        return iso_z(parse_time(answer))


class Hex(Accept):
    """The same hex digits: with or without ``0x``, any case, spaces ignored; an int counts."""

    example = '"6553f100"'

    def read(self, prediction, answer):
        """Lowercase digits, no prefix, no spaces; an int is written in hex at the answer's
        width."""
        if isinstance(prediction, bool):
            raise Unreadable(_("write hex digits as a string"))
        if isinstance(prediction, int):
            return f"{prediction:0{len(str(answer))}x}"
        if not isinstance(prediction, str):
            raise Unreadable(_("write hex digits as a string"))
        text = re.sub(r"[\s_|]", "", prediction.strip().strip("\"'")).lower()
        text = text.removeprefix("0x")
        if not re.fullmatch(r"[0-9a-f]+", text):
            raise Unreadable(_("{value} is not hex digits (0-9, a-f)").format(
                value=repr(prediction)))
        return text

    def equal(self, prediction, answer):
        """Same digits, leading zeros included (the width is the lesson)."""
        return prediction == str(answer).lower().removeprefix("0x")


def _number(value: Any) -> float:
    if isinstance(value, bool):
        raise Unreadable(_("write a number, not True or False"))
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip().replace(",", "").replace("_", "")
        try:
            return float(text.removesuffix("%")) / (100 if text.endswith("%") else 1)
        except ValueError as exc:
            raise Unreadable(_("{value} is not a number").format(value=repr(value))) from exc
    raise Unreadable(_("{value} is not a number").format(value=repr(value)))


class Number(Accept):
    """A number within ``tolerance`` (absolute); ``"1,234"`` and ``"1_234"`` read as 1234."""

    example = "29"

    def __init__(self, tolerance: float = 0.0) -> None:
        self.tolerance = tolerance

    def read(self, prediction, answer):
        """The prediction as a float."""
        return _number(prediction)

    def equal(self, prediction, answer):
        """Within the tolerance (and a hair of float rounding)."""
        return abs(prediction - float(answer)) <= self.tolerance + 1e-9 * max(1, abs(answer))

    def show(self, answer):
        """Whole numbers with thousands separators; others to three significant places."""
        number = float(answer)
        return f"{int(number):,}" if number.is_integer() else f"{number:,.3g}"


class Fraction(Number):
    """A fraction of a whole within ``tolerance``: ``0.69``, ``"69%"`` and ``69`` all read as
    0.69 (a number above 1 is taken as a percentage)."""

    example = N_('0.69 or "69%"')

    def __init__(self, tolerance: float = 0.02) -> None:
        super().__init__(tolerance)

    def read(self, prediction, answer):
        """The prediction as a fraction of 1."""
        number = _number(prediction)
        return number / 100 if 1 < number <= 100 else number

    def show(self, answer):
        """A rounded percentage."""
        return f"{float(answer):.1%}"


class Bool(Accept):
    """True or False; ``"yes"``/``"no"`` and ``"true"``/``"false"`` in any case count."""

    example = "True"

    def read(self, prediction, answer):
        """The prediction as a bool."""
        if isinstance(prediction, bool):
            return prediction
        words = {"true": True, "yes": True, "false": False, "no": False}
        if isinstance(prediction, str) and prediction.strip().lower() in words:
            return words[prediction.strip().lower()]
        raise Unreadable(_("answer True or False"))

    def equal(self, prediction, answer):
        """Identical truth values."""
        return prediction is bool(answer)


def _items(prediction: Any) -> list:
    """A list from a list, tuple or set, or from text such as ``"a, b c"`` or ``'["a", "b"]'``."""
    if isinstance(prediction, list | tuple | set | frozenset):
        return list(prediction)
    if isinstance(prediction, str):
        text = prediction.strip().strip("[]()")
        return [part.strip().strip("\"'") for part in re.split(r"[,\s]+", text) if part.strip()]
    raise Unreadable(_("write a list, such as [1, 2]"))


def _item(value: Any, like: Any) -> Any:
    """A text item from a typed-in list, read as a number where the answer's item is one."""
    if isinstance(value, str) and isinstance(like, int | float) and not isinstance(like, bool):
        try:
            return _number(value)
        except Unreadable:
            return value
    return value


class InOrder(Accept):
    """A list where order is the point: same items, same order (items compared by ``item``)."""

    example = '["a", "b"]'

    def __init__(self, item: Accept | None = None) -> None:
        self.item = item or Same()

    def read(self, prediction, answer):
        """The prediction as a list."""
        items = _items(prediction)
        like = list(answer) + [None] * len(items)
        return [_item(value, like[i]) for i, value in enumerate(items)]

    def equal(self, prediction, answer):
        """Item by item, in order."""
        answer = list(answer)
        return len(prediction) == len(answer) and all(
            self.item.matches(p, a) for p, a in zip(prediction, answer, strict=True))

    def show(self, answer):
        """The items in order."""
        return ", ".join(self.item.show(a) for a in answer) or _("(none)")


class AsSet(InOrder):
    """A list where order does not matter: the same items, any order, no repeats needed."""

    def read(self, prediction, answer):
        """The prediction as a list (its order is ignored)."""
        items = _items(prediction)
        like = next(iter(answer), None)
        return [_item(value, like) for value in items]

    def equal(self, prediction, answer):
        """Every answer item is predicted and every predicted item is in the answer."""
        answer = list(answer)
        return (all(any(self.item.matches(p, a) for p in prediction) for a in answer)
                and all(any(self.item.matches(p, a) for a in answer) for p in prediction))

    def show(self, answer):
        """The items, sorted for reading."""
        shown = sorted((self.item.show(a) for a in answer), key=lambda s: (len(s), s))
        return ", ".join(shown) or _("(none)")


class Custom(Accept):
    """A comparison function ``compare(prediction, answer) -> bool`` as an ``Accept`` rule."""

    def __init__(self, compare: Callable[[Any, Any], bool]) -> None:
        self.compare = compare

    def equal(self, prediction, answer):
        """What the function says."""
        return bool(self.compare(prediction, answer))


@dataclass
class Feedback:
    """The answer to one prediction: right or not, and a hint that does not give it away."""

    correct: bool | None
    message: str

    def __str__(self) -> str:
        return self.message

    __repr__ = __str__

    def _repr_html_(self) -> str:
        colour = {True: "#1a7f37", False: "#cf222e", None: "#6e7781"}[self.correct]
        return f"<div style='color:{colour}'>{html.escape(self.message)}</div>"

    def __bool__(self) -> bool:
        return bool(self.correct)


LIVE, MODEL, RECORDED = "live", "model", "recorded"


class Exercise:
    """A question whose right answer is observed live, on first need, never typed in.

    ``observe`` runs the experiment and returns the answer. ``accept`` says which
    predictions count as right (an ``Accept`` rule, or a function of prediction and
    answer). ``hint`` is one hint or several, from gentle to plain; ``mistakes`` gives a
    common wrong answer its own hint (a dict, or ``(answer, hint)`` pairs). Every
    exercise says why, once answered: ``explanation``.
    """

    def __init__(self, question: str, observe: Callable[[], Any], hint: str | Iterable[str], *,
                 explanation: str, accept: Accept | Callable[[Any, Any], bool] | None = None,
                 mistakes: dict | Iterable[tuple[Any, str]] | None = None,
                 compare: Callable[[Any, Any], bool] | None = None) -> None:
        if not explanation:
            raise ValueError("every exercise needs an explanation")
        self.question = question
        self.hints = [hint] if isinstance(hint, str) else list(hint)
        self.explanation = explanation
        rule = accept if accept is not None else compare
        self.accept = rule if isinstance(rule, Accept) else Custom(rule) if rule else Same()
        pairs = mistakes.items() if isinstance(mistakes, dict) else (mistakes or [])
        self.mistakes = list(pairs)
        self._observe = observe
        self._answer: Any = None
        self._failure = ""
        self._observed = False
        self._given: set[str] = set()
        self.attempts = 0
        self.solved = False
        self.engine: str | None = None  # what produced the answer, for reveal
        self.source = LIVE  # live, model or recorded
        self._record("seen")

    @property
    def hint(self) -> str:
        """The first hint."""
        return self.hints[0] if self.hints else ""

    @classmethod
    def from_claim(cls, claim_id: str, question: str, pick: Callable[[Any], Any],
                   hint: str | Iterable[str], **kwargs) -> Exercise:
        """An exercise answered by part (``pick``) of a claim's observation on this kernel's
        engines, whatever the verdict there. Where the claim cannot run (no server), the
        answer comes from the model's prediction, else from the source's expectation, and
        the feedback says so."""
        def observe():
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
                if row.shows_observation:
                    obs = row.observation
                    exercise.engine = f"{obs.engine} {obs.engine_version}".strip()
                    return pick(obs.observed)
            predicted = model_prediction(item)
            if predicted is not None and predicted[0] == MODEL_LABEL:
                try:
                    value = pick(predicted[1])
                except (KeyError, IndexError, TypeError, ValueError):
                    pass
                else:
                    exercise.source, exercise.engine = MODEL, "labkit's model (no server here)"
                    return value
            exercise.source, exercise.engine = RECORDED, item.expected_label
            return pick(item.expected)

        exercise = cls(question, observe, hint, **kwargs)
        return exercise

    def _record(self, state: str) -> None:
        from labkit.lessons import course

        course.record(self.question, state, self.attempts)

    def answer(self) -> Any:
        """The observed answer (runs the experiment the first time)."""
        if not self._observed:
            try:
                self._answer = self._observe()
            except Exception as exc:  # the learner's cell must never show a traceback
                from labkit.claims.claim import one_line

                self._failure = one_line(exc)
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
        if self.engine:
            return _("The live run on {engine} agrees.").format(engine=self.engine)
        return _("The live run agrees.")

    def _next_hint(self, prediction: Any, answer: Any) -> str:
        for wrong, text in self.mistakes:
            try:
                hit = self.accept.matches(prediction, wrong)
            except Exception:  # a mistake that cannot be compared is simply not this one
                hit = False
            if hit and text not in self._given:
                return text
        return next((h for h in self.hints if h not in self._given), "")

    def check(self, prediction: Any) -> Feedback:
        """Compare a prediction with the answer; say right and why, or give a fresh hint.

        Never raises, whatever the learner typed.
        """
        if prediction is None or prediction is Ellipsis:
            return Feedback(None, _(self.question) + " " + _(
                "Write your prediction in place of None, then run this cell again."))
        try:
            answer = self.answer()
        except NoAnswer as exc:
            return Feedback(None, _("This exercise cannot be checked here: {why}").format(
                why=exc))
        try:
            right = self.accept.matches(prediction, answer)
        except Unreadable as exc:
            example = (" " + _("Write it like {example}.").format(example=_(self.accept.example))
                       if self.accept.example else "")
            return Feedback(None, _("I could not read that: {why}.").format(why=exc) + example)
        except Exception:  # any other input the rule cannot handle is read as a wrong answer
            right = False
        self.attempts += 1
        if right:
            self.solved = True
            self._record("right")
            return Feedback(True, _("Right. {agreement} Why: {explanation}").format(
                agreement=self._agreement(), explanation=_(self.explanation)))
        self._record("tried")
        text = self._next_hint(prediction, answer)
        if text:
            self._given.add(text)
            message = _("Not quite. Hint: {hint}").format(hint=_(text))
            if self.attempts >= 3:
                message += " " + _("(.reveal() shows the answer and why.)")
        else:
            message = _("Not quite, and that was the last hint. Call .reveal() to see the "
                        "answer with its explanation.")
        return Feedback(False, message)

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
            answer=self.accept.show(answer), where=where, explanation=_(self.explanation)))
