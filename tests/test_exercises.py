"""Predict-first exercises: every right answer a learner would type counts, hints that move on,
input that never raises, reveal on request, and answers without a server."""

from __future__ import annotations

import datetime as dt

import pytest
from helpers import fresh_lab

from labkit import Exercise
from labkit.lessons import course
from labkit.lessons.exercises import (
    AsSet,
    Bool,
    Fraction,
    Hex,
    InOrder,
    Number,
    Spelling,
    Time,
    same,
)


def counted(answer, **kwargs):
    """An exercise whose observation counts how often it ran."""
    calls = []

    def observe():
        calls.append(1)
        return answer

    kwargs.setdefault("hint", "look closer")
    kwargs.setdefault("explanation", "because of the rule")
    return Exercise("q?", observe, **kwargs), calls


def test_right_prediction_is_confirmed_with_the_explanation():
    """A prediction equal to the observation is right, and the feedback says why."""
    exercise, _ = counted([1, 2, 3])
    feedback = exercise.check((1, 2, 3))
    assert feedback.correct is True
    assert bool(feedback)
    assert "because of the rule" in feedback.message


def test_an_exercise_without_an_explanation_is_refused():
    """Every exercise must say why its answer is right."""
    with pytest.raises(ValueError, match="needs an explanation"):
        Exercise("q?", lambda: 1, hint="h", explanation="")


def test_wrong_prediction_gets_the_hint_not_the_answer():
    """A wrong prediction gets the hint, and the feedback never contains the answer."""
    exercise, _ = counted("2012-10-17T21:13:27Z", accept=Time())
    feedback = exercise.check("2012-10-17T21:13:28Z")
    assert feedback.correct is False
    assert "look closer" in feedback.message
    assert "21:13:27" not in feedback.message


def test_hints_move_on_and_never_repeat_without_more_help():
    """Each wrong try gets the next hint; once they run out, the feedback points at reveal()."""
    exercise, _ = counted(42, hint=["first", "second"])
    messages = [exercise.check(n).message for n in (1, 2, 3)]
    assert "first" in messages[0]
    assert "second" in messages[1]
    assert "first" not in messages[2]
    assert "second" not in messages[2]
    assert "reveal()" in messages[2]


def test_a_common_mistake_gets_its_own_hint():
    """A wrong answer listed in ``mistakes`` gets the hint written for it, once; then the rule's
    own hint for that kind of mistake (the decimal value of hex), then the general hint."""
    exercise, _ = counted("6553f100", accept=Hex(), hint="general",
                          mistakes={"1700000000": "That is the decimal; write it in base 16."})
    assert "write it in base 16" in exercise.check("1700000000").message
    assert "put hex digits in quotes" in exercise.check("1700000000").message
    assert "general" in exercise.check("1700000000").message


def test_reveal_shows_the_answer_readably_with_its_explanation():
    """reveal() rounds a fraction to a percentage and adds the explanation."""
    exercise, _ = counted(0.693147, accept=Fraction())
    message = exercise.reveal().message
    assert "69.3%" in message
    assert "because of the rule" in message


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


@pytest.mark.parametrize("prediction", [
    "2012-10-17T21:13:27Z", "2012-10-17T21:13:27+00:00", "2012-10-17T21:13:27.000Z",
    "2012-10-17 21:13:27", "2012-10-18T04:13:27+07:00",
    dt.datetime(2012, 10, 17, 21, 13, 27, tzinfo=dt.UTC), dt.datetime(2012, 10, 17, 21, 13, 27),
])
def test_a_time_is_right_however_it_is_written(prediction):
    """Dates count as datetimes or ISO strings with Z, +00:00, an offset or milliseconds."""
    exercise, _ = counted("2012-10-17T21:13:27Z", accept=Time())
    assert exercise.check(prediction).correct is True


@pytest.mark.parametrize("prediction", ["6553f100", "0x6553f100", "6553F100", "0X6553F100",
                                        " 6553 f100 ", "'0x6553f100'"])
def test_hex_is_right_with_or_without_0x_in_any_case(prediction):
    """Hex counts with or without 0x, in any case, with spaces; an int does not (issue 21: the
    int 1700000000 carries no base, so it cannot be told from hex typed without quotes)."""
    exercise, _ = counted("6553f100", accept=Hex())
    assert exercise.check(prediction).correct is True


def test_hex_keeps_its_width():
    """Leading zeros are part of a fixed-width field: 3039 is not the 6-digit counter 003039."""
    assert Hex().matches("003039", "003039")
    assert not Hex().matches("3039", "003039")


@pytest.mark.parametrize("prediction", [0.69, "69%", "69 %", 69, 0.7, "0.68"])
def test_a_fraction_is_right_as_a_share_or_a_percentage(prediction):
    """0.69, "69%" and 69 all read as 69%, within the stated tolerance of two points."""
    exercise, _ = counted(0.693, accept=Fraction(tolerance=0.02))
    assert exercise.check(prediction).correct is True


@pytest.mark.parametrize(("prediction", "right"), [(29, True), ("29", True), (29.0, True),
                                                   (30, False), ("1,234", False)])
def test_numbers_are_right_within_their_tolerance(prediction, right):
    """A number counts typed as text or float; outside the tolerance it does not."""
    exercise, _ = counted(29, accept=Number())
    assert exercise.check(prediction).correct is right


def test_number_tolerance_is_stated_and_applied():
    """A tolerance of 0.5 accepts 28.6 and refuses 28.4 for 29."""
    assert Number(0.5).matches(28.6, 29)
    assert not Number(0.5).matches(28.4, 29)


@pytest.mark.parametrize(("prediction", "right"), [
    (["a", "b", "c"], True), (("a", "b", "c"), True), ("a, b, c", True), ("a b c", True),
    ('["a", "b", "c"]', True), (["b", "a", "c"], False), (["a", "b"], False)])
def test_a_list_where_order_is_the_point(prediction, right):
    """In-order lists count as lists, tuples or text, and only in the right order."""
    exercise, _ = counted(["a", "b", "c"], accept=InOrder())
    assert exercise.check(prediction).correct is right


@pytest.mark.parametrize(("prediction", "right"), [
    ([5, 4, 3, 1], True), ({1, 3, 4, 5}, True), ("1, 3, 4, 5", True), ([1, 3, 4], False),
    ([1, 2, 3, 4, 5], False), ([], False)])
def test_a_list_where_order_does_not_matter(prediction, right):
    """Set-like answers count in any order, typed as text too; a missing or extra item does not."""
    exercise, _ = counted([1, 3, 4, 5], accept=AsSet())
    assert exercise.check(prediction).correct is right


def test_an_empty_answer_is_matched_by_an_empty_list():
    """An empty result is predicted by [] or "[]"."""
    assert AsSet().matches([], [])
    assert AsSet().matches("[]", [])


@pytest.mark.parametrize(("prediction", "right"), [("Z", True), ('"Z"', True), ("z", False)])
def test_case_is_kept_where_case_is_the_lesson(prediction, right):
    """Text compared with Spelling() keeps its case: "z" is not "Z"."""
    assert Spelling().matches(prediction, "Z") is right


@pytest.mark.parametrize(("prediction", "right"), [(True, True), ("yes", True), ("True", True),
                                                   (False, False), ("no", False)])
def test_yes_or_no_answers(prediction, right):
    """True, "true" and "yes" count for True."""
    assert Bool().matches(prediction, True) is right


@pytest.mark.parametrize(("rule", "prediction"), [
    (Time(), "yesterday"), (Time(), 12), (Hex(), "xyz"), (Hex(), 1.5), (Number(), "lots"),
    (Fraction(), [1]), (InOrder(), 42), (Bool(), "maybe"), (Spelling(), 3)])
def test_unreadable_input_never_raises(rule, prediction):
    """Input the rule cannot read gets a 'could not read' note and counts as no attempt."""
    exercise, _ = counted("6553f100", accept=rule)
    feedback = exercise.check(prediction)
    assert feedback.correct is None
    assert "could not read" in feedback.message
    assert exercise.attempts == 0


def test_an_experiment_that_fails_is_reported_not_raised():
    """If the answer cannot be observed, check() and reveal() say so instead of raising."""
    def broken():
        raise RuntimeError("engine fell over")

    exercise = Exercise("q?", broken, hint="h", explanation="e")
    assert "engine fell over" in exercise.check(1).message
    assert "engine fell over" in exercise.reveal().message


@pytest.mark.parametrize(("prediction", "answer", "expected"), [
    (" Hello  World ", "hello world", True), (10, 10.0, True), ("10", 10, False),
    ([1, "A"], (1, "a"), True), ({"a": 1}, {"a": 1.0}, True), (True, 1, False),
    (0.1 + 0.2, 0.3, True), (None, None, True), ([1, 2], [2, 1], False),
])
def test_comparison_forgives_only_what_does_not_matter(prediction, answer, expected):
    """Case, spacing, int/float and list/tuple are forgiven; types that differ are not."""
    assert same(prediction, answer) is expected


def test_from_claim_answers_with_the_live_observation_and_its_engine():
    """An exercise on a claim that needs no server is judged by its live run, and reveal
    names the engine."""
    exercise = Exercise.from_claim("O3", "when?", pick=lambda o: o["seconds"], hint="hex",
                                   explanation="the first 4 bytes are seconds")
    assert exercise.check(1_350_508_407).correct is True
    assert "pymongo bson" in exercise.reveal().message


class _NoServer:
    """A context with no MongoDB: every server is missing."""

    def unavailable(self, kind):
        from labkit.errors import ServerUnavailable

        return ServerUnavailable("no MongoDB server here. Hint: set LABKIT_MONGODB_URI")


def test_without_a_server_a_claim_exercise_checks_against_the_model_and_says_so(monkeypatch):
    """With no MongoDB, a D3 exercise is judged by the model's prediction, labelled as such."""
    from labkit.lessons import notebook

    monkeypatch.setattr(notebook, "session", lambda: _NoServer())
    exercise = Exercise.from_claim("D3", "string range?", pick=lambda o: o["string_range"],
                                   hint="bytewise", explanation="'9' > '1'", accept=AsSet())
    feedback = exercise.check("c, b, a")
    assert feedback.correct is True
    assert "model" in feedback.message
    assert "not an observation" in feedback.message


def test_without_a_server_or_model_the_recorded_result_judges(monkeypatch):
    """With no MongoDB and no model prediction, O9's recorded result judges, and says whose."""
    from labkit.lessons import notebook

    monkeypatch.setattr(notebook, "session", lambda: _NoServer())
    exercise = Exercise.from_claim("O9", "B first?", pick=lambda o: o["later_process_sorts_first"],
                                   hint="random value", explanation="random decides", accept=Bool())
    feedback = exercise.check("yes")
    assert feedback.correct is True
    assert "recorded by the source document" in feedback.message


def test_progress_records_what_the_learner_did(tmp_path, monkeypatch):
    """progress() lists an exercise as right after a right answer, and unmet lessons as not
    started."""
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "p.json"))
    fresh_lab(monkeypatch, lesson="04")
    exercise, _ = counted(12, accept=Number())
    exercise.check(12)
    frame = course.progress()
    row = frame[frame.exercise == "q?"].iloc[0]
    assert (row.lesson, row.state, row.tries) == ("04", "right", 1)
    others = {lesson.number for lesson in course.LESSONS} - {"04"}
    assert set(frame[frame.state == "not started"].lesson) == others


def test_a_claim_exercise_is_judged_by_the_observation_whatever_the_verdict(monkeypatch):
    """When the live observation disagrees with the claim, the exercise still answers with
    what was observed (and raises nothing)."""
    import dataclasses

    from labkit.claims.claim import Observation
    from labkit.experiments import catalogue as claims

    contrary = dataclasses.replace(
        claims.get("O3"), experiment=lambda ctx: Observation({"seconds": 7}, "engine", "1"))
    monkeypatch.setitem(claims.REGISTRY, "O3", contrary)
    exercise = Exercise.from_claim("O3", "when?", pick=lambda o: o["seconds"], hint="h",
                                   explanation="e", accept=Number())
    assert exercise.check(7).correct is True
    assert "engine 1" in exercise.reveal().message
