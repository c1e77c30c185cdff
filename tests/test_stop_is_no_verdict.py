"""A stop (SIGTERM, Ctrl-C) is never an engine's verdict: once the command's handler took a
signal, whatever the stop became on its way out of a library (an ``ImportError`` from an
import it cut short, a driver's own error) is raised as the stop by the one guard
(labkit/run/guard.py), and the handler itself raises nothing but the stop. The subprocess
case, a SIGTERM inside a lazy import: tests/test_interruptions.py."""

from __future__ import annotations

import logging
import os
import signal

import pytest

from labkit import _signals
from labkit.claims.claim import ERROR, Claim, Observation
from labkit.errors import Stopped
from labkit.run.guard import guarded, judge

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"),
                                reason="the process sends itself SIGTERM and SIGINT (POSIX)")

STOPS = [(signal.SIGTERM, Stopped), (signal.SIGINT, KeyboardInterrupt)]
IDS = ["SIGTERM", "SIGINT"]


def _signal_self(signum: int) -> None:
    os.kill(os.getpid(), signum)  # the handler runs before the next line
    raise AssertionError("the signal did not reach the handler")


def _cut_short(signum: int) -> None:
    """What a library does when the stop lands in an import it runs: the stop becomes an
    ImportError (as "partially initialized module" did), raised from it."""
    try:
        _signal_self(signum)
    except KeyboardInterrupt as exc:
        raise ImportError("cannot import name 'getLogger' from partially initialized module "
                          "'logging'") from exc


def _claim() -> Claim:
    return Claim(id="X99", title="a stop", source="manual", topic="objectid", expected=1,
                 experiment=lambda ctx: None)


@pytest.mark.parametrize(("signum", "stop"), STOPS, ids=IDS)
def test_a_stop_a_library_turned_into_an_error_is_raised_as_the_stop(signum, stop):
    """An engine's attempt that fails because a stop cut it short makes the guard raise the
    stop (Stopped for SIGTERM, KeyboardInterrupt for Ctrl-C), not return an error row."""
    with _signals.as_interrupts(), pytest.raises(stop) as caught:
        guarded("engine", lambda: _cut_short(signum))
    assert isinstance(caught.value.__cause__, ImportError)
    if stop is Stopped:
        assert caught.value.signum == signal.SIGTERM


@pytest.mark.parametrize(("signum", "stop"), STOPS, ids=IDS)
def test_a_judge_cut_short_by_a_stop_raises_the_stop(signum, stop, monkeypatch):
    """A claim's judge that fails because a stop cut it short raises the stop, not a
    "judging failed" error row."""
    claim = _claim()
    monkeypatch.setattr(Claim, "verdict_for", lambda self, observation: _cut_short(signum))
    with _signals.as_interrupts(), pytest.raises(stop):
        judge(claim, Observation(1, "engine", "1.0"))


def test_without_a_stop_the_same_failure_is_the_engines_error():
    """The control: the same ImportError with no signal taken is that engine's error, inside
    and after the command's handlers (a stop once taken is forgotten when the command ends)."""
    def fails():
        raise ImportError("no module named 'x'")

    with _signals.as_interrupts():
        assert "no module named" in guarded("engine", fails).error
    with _signals.as_interrupts(), pytest.raises(Stopped):
        guarded("engine", lambda: _cut_short(signal.SIGTERM))
    assert "no module named" in guarded("engine", fails).error
    claim = _claim()
    assert judge(claim, Observation(1, "engine", "1.0", error="x")).verdict == ERROR


def test_the_handler_raises_the_stop_even_when_its_own_work_fails(monkeypatch):
    """Quieting psycopg's logger is the handler's one piece of work; where it fails (as it
    did on a half-imported ``logging``), the handler still raises the stop, nothing else."""
    def broken(self, level):
        raise ImportError("cannot import name 'ERROR' from partially initialized module")

    with _signals.as_interrupts():
        monkeypatch.setattr(logging.Logger, "setLevel", broken)
        with pytest.raises(Stopped):
            _signal_self(signal.SIGTERM)
