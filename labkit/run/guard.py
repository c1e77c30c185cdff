"""The one guard around an engine: what goes wrong on one engine costs that engine's row only.

Every place that observes several engines (a claim's experiment, a survey's loads, the run's
B-tree comparison, ``labkit check``'s matrix) goes through ``guarded``, and every observation
is judged through ``judge``: an exception is that engine's ``error`` with its cause, a server
that cannot be had or a statistic it does not give is that engine's ``not run``. A stop (Ctrl-C,
SIGTERM) is never a verdict: whatever it became on its way out is raised as the stop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from labkit._signals import raise_if_stopping
from labkit.claims.claim import (
    ERROR,
    NOT_RUN,
    Claim,
    Observation,
    Unobservable,
    errored,
    needs,
    not_run,
    one_line,
)
from labkit.errors import ServerUnavailable, said
from labkit.i18n import N_, Message, Text, joined
from labkit.run.results import Result

T = TypeVar("T")


def guarded(engine: Text, attempt: Callable[[], T], *, version: str = "", kind: str = "",
            key: str = "", passes: tuple[type[BaseException], ...] = ()) -> T | Observation:
    """``attempt()`` for one engine, or the observation that says why that engine gave none.

    ``kind`` names the server the attempt starts (``postgres``, ``wiredtiger``…): where it
    cannot be had, the engine is not run with what is missing and the hint. Without a
    ``kind``, a missing server is an error like any other. ``Unobservable`` is not run;
    ``passes`` are raised on (a bad request is the caller's, not the engine's). ``key`` is the
    engine's key (``names.ENGINE_NAMES``), kept by the observation as ``engine_key``.
    """
    try:
        return attempt()
    except passes:
        raise
    except Exception as exc:
        raise_if_stopping(exc)  # a stop unwinding the run is no verdict, whatever it became
        return _failed(engine, exc, version, kind, key)


def _failed(engine: Text, exc: Exception, version: str, kind: str, key: str) -> Observation:
    """Why ``engine`` gave no observation: a missing server, a statistic it does not give, or
    an error (one engine's failure is that engine's alone)."""
    if isinstance(exc, ServerUnavailable) and kind:
        return needs(kind, exc, engine, key)
    if isinstance(exc, Unobservable):
        return not_run(engine, unobservable_reason(exc), key, version)
    return errored(engine, exc, version, key)


def unobservable_reason(exc: Unobservable) -> Text:
    """Why the engine gave nothing to judge: the exception's message, kept a ``Message`` (to be
    shown in the learner's language) when it was raised with one."""
    return said(exc)


def judge(claim: Claim, observation: Observation, seconds: float = 0.0) -> Result:
    """One engine's row: its observation judged; a judge that crashes costs this row only."""
    if observation.error:
        return Result(claim, ERROR, observation, observation.error, seconds)
    if observation.not_run:
        return Result(claim, NOT_RUN, observation, observation.not_run, seconds)
    try:
        verdict, note = claim.verdict_for(observation)
    except Exception as exc:  # a judge that crashes costs this engine's verdict, nothing more
        raise_if_stopping(exc)
        if isinstance(exc, Unobservable):
            return Result(claim, NOT_RUN, observation, unobservable_reason(exc), seconds)
        return Result(claim, ERROR, observation,
                      Message(N_("judging failed: {error}"), error=one_line(exc)), seconds)
    reason = joined("; ", (observation.note, note))
    return Result(claim, verdict, observation, reason, seconds)

