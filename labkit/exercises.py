"""Predict-first exercises: the learner writes a prediction, a live observation judges it."""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._claim import short_json


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


class Exercise:
    """A question whose right answer is observed live, on first need, never typed in.

    ``observe`` runs the experiment and returns the answer; ``engine``, when
    known, names what produced it so ``reveal`` can say so.
    """

    def __init__(self, question: str, observe: Callable[[], Any], hint: str,
                 compare: Callable[[Any, Any], bool] = same, explanation: str = "") -> None:
        self.question = question
        self.hint = hint
        self.explanation = explanation
        self._observe = observe
        self._compare = compare
        self._answer: Any = None
        self._observed = False
        self.attempts = 0

    engine: str | None = None

    @classmethod
    def from_claim(cls, claim_id: str, question: str, pick: Callable[[Any], Any], hint: str,
                   **kwargs) -> Exercise:
        """An exercise answered by part (``pick``) of a claim's live observation."""
        from .notebook import check

        def observe():
            observation = check(claim_id)[0].observation
            exercise.engine = f"{observation.engine} {observation.engine_version}"
            return pick(observation.observed)

        exercise = cls(question, observe, hint, **kwargs)
        return exercise

    def answer(self) -> Any:
        """The observed answer (runs the experiment the first time)."""
        if not self._observed:
            self._answer = self._observe()
            self._observed = True
        return self._answer

    def check(self, prediction: Any) -> Feedback:
        """Compare a prediction with the live answer; say right, or give the hint."""
        if prediction is None or prediction is Ellipsis:
            return Feedback(None, "Write your prediction first, then run this cell again.")
        self.attempts += 1
        if self._compare(prediction, self.answer()):
            extra = f" {self.explanation}" if self.explanation else ""
            agreed = short_json(prediction)
            return Feedback(True, f"Right: the live run agrees with {agreed}.{extra}")
        message = f"Not quite. Hint: {self.hint}"
        if self.attempts >= 3:
            message += " (Call .reveal() to see the observed answer.)"
        return Feedback(False, message)

    def reveal(self) -> Feedback:
        """Show the observed answer (and the engine that produced it)."""
        answer = self.answer()
        source = f" (observed on {self.engine})" if self.engine else ""
        extra = f" {self.explanation}" if self.explanation else ""
        return Feedback(None, f"Observed answer: {short_json(answer)}{source}.{extra}")
