"""Predict-first exercises: right or wrong against a live answer, hints, and reveal on request."""

from __future__ import annotations

import pytest

from labkit import Exercise
from labkit.exercises import same


def counted(answer):
    """An exercise whose observation counts how often it ran."""
    calls = []

    def observe():
        calls.append(1)
        return answer

    return Exercise("q?", observe, hint="look closer"), calls


def test_right_prediction_is_confirmed():
    """A prediction equal to the observation is right."""
    exercise, _ = counted([1, 2, 3])
    feedback = exercise.check((1, 2, 3))
    assert feedback.correct is True and bool(feedback)


def test_wrong_prediction_gets_the_hint_not_the_answer():
    """A wrong prediction gets the hint, and the feedback never contains the answer."""
    exercise, _ = counted("2012-10-17T21:13:27Z")
    feedback = exercise.check("2012-10-17T21:13:28Z")
    assert feedback.correct is False
    assert "look closer" in feedback.message
    assert "21:13:27" not in feedback.message


def test_reveal_is_offered_after_three_tries_and_shows_the_answer():
    """After three wrong tries the feedback points at reveal(), which shows the answer."""
    exercise, _ = counted(42)
    messages = [exercise.check(n).message for n in (1, 2, 3)]
    assert "reveal()" not in messages[0] and "reveal()" in messages[2]
    assert "42" in exercise.reveal().message


def test_no_prediction_asks_for_one_without_running_the_experiment():
    """``None`` means the learner has not answered yet: no verdict, no experiment."""
    exercise, calls = counted(42)
    assert exercise.check(None).correct is None
    assert calls == []


def test_experiment_runs_once_however_many_tries():
    """The live observation is made once and reused for later tries."""
    exercise, calls = counted(42)
    for guess in (1, 42, 42.0):
        exercise.check(guess)
    assert calls == [1]


@pytest.mark.parametrize("prediction, answer, expected", [
    (" Hello  World ", "hello world", True), (10, 10.0, True), ("10", 10, False),
    ([1, "A"], (1, "a"), True), ({"a": 1}, {"a": 1.0}, True), (True, 1, False),
    (0.1 + 0.2, 0.3, True), (None, None, True), ([1, 2], [2, 1], False),
])
def test_comparison_forgives_only_what_does_not_matter(prediction, answer, expected):
    """Case, spacing, int/float and list/tuple are forgiven; types that differ are not."""
    assert same(prediction, answer) is expected


def test_from_claim_answers_with_the_live_observation_and_its_engine():
    """An exercise on a claim is judged by its live run, and reveal names the engine."""
    exercise = Exercise.from_claim("O3", "when?", pick=lambda o: o["seconds"], hint="hex")
    assert exercise.check(1_350_508_407).correct is True
    assert "pymongo bson" in exercise.reveal().message
