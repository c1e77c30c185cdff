"""The kernel's lab (``labkit.lessons.lab``): the one object that holds what a notebook kernel
keeps between cells, its context, the lesson in use and what that lesson has said once, and
the exercises made in the kernel with their states."""

from __future__ import annotations

from types import SimpleNamespace

from helpers import fresh_lab, offline

import labkit
from labkit.lessons import course, lab
from labkit.run import runner


def test_start_lesson_begins_the_lesson_on_the_kernels_one_lab(kernel):
    """``labkit.start_lesson`` begins the lesson on the kernel's lab: its number is the
    lesson's, what the lesson before said once and its predictions are gone, while the
    context, the exercises made and their states stay."""
    here = lab.lab()
    made = labkit.exercise("04.after_top")
    made.check(0)
    here.says("footer", "claim:D1")
    here.predictions["D1"] = ("model", 1)
    labkit.start_lesson("05")
    assert lab.lab() is here
    assert (here.lesson, course.current()) == ("05", "05")
    assert here.says("footer", "claim:D3")  # said afresh: D3 is now the card that says it
    assert here.predictions == {}
    assert here.exercises == {"04.after_top": made}
    assert here.states == {made.question: "right"}
    assert course.tried("04.after_top")
    assert labkit.session() is kernel


def test_the_context_is_made_once_and_another_is_used_only_for_a_while(monkeypatch):
    """A lab makes its context on first need, keeps it and closes it when the kernel ends;
    ``using`` puts another in its place for a while (the answer sheet's) and then gives back
    the one it had."""
    closing: list[object] = []
    monkeypatch.setattr(runner, "Context", lambda **_kw: SimpleNamespace(close=lambda: None))
    monkeypatch.setattr("atexit.register", closing.append)
    made = fresh_lab(monkeypatch)
    own = made.context
    assert made.context is own
    assert closing == [own.close]
    other = runner.Context(btree_n=1_000)
    with made.using(other):
        assert labkit.session() is other
    assert labkit.session() is own


def test_a_lab_given_a_context_uses_it_and_no_other():
    """A lab given a context (a test's, the answer sheet's) uses that one."""
    ctx = runner.Context(btree_n=1_000, mongodb_provider=offline, postgres_provider=offline)
    try:
        assert lab.Lab(ctx).context is ctx
    finally:
        ctx.close()
