"""Which of a claim's steps one engine runs, in the file's order, and why the others are not
judged there: a step after an operation no engine performs is never run (its ``skip``); a
step after a CRUD write the engine does not perform is not run on that engine, naming the
write; a write the engine performs is run whether or not its result is expected, since it
changes what the steps after it see."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from labkit.claims.spec import ClaimSpec, Step
from labkit.i18n import N_, Message, Text


@dataclass
class Plan:
    """One engine's share of a claim: ``run`` (the steps to send, in order), ``judged`` (those
    of them with an expectation), ``unjudged`` (each step with an expectation left out, with
    why) and, where nothing is judged, ``reason``, the not-run cause."""

    run: list[Step] = field(default_factory=list)
    judged: list[Step] = field(default_factory=list)
    unjudged: list[tuple[Step, Text]] = field(default_factory=list)
    reason: Text = ""


def plan(spec: ClaimSpec, performs: Callable[[Step], bool], engine: Text) -> Plan:
    """The steps of ``spec`` an engine named ``engine`` runs, where ``performs`` says which
    writes it performs (every read is performed)."""
    out = Plan()
    blocked: Step | None = None
    for step in spec.steps:
        why = step.skip
        if not why and blocked is not None:
            why = Message(N_("it follows {write} at line {line:d}, which {engine} does not "
                             "perform"), write=blocked.operation, line=blocked.line,
                          engine=engine)
        if not why and step.writes and not performs(step):
            blocked = step
            why = Message(N_("{engine} does not perform {write}"), engine=engine,
                          write=step.operation)
        if why:
            if step.expect is not None:
                out.unjudged.append((step, why))
            continue
        if step.writes or step.expect is not None:
            out.run.append(step)
        if step.expect is not None:
            out.judged.append(step)
    if not out.judged:
        if out.unjudged:
            step, why = out.unjudged[0]
            out.reason = Message(N_("nothing to judge: {operation} at line {line:d}: {why}"),
                                 operation=step.operation, line=step.line, why=why)
        else:
            out.reason = Message(N_("nothing to judge: no read has an expected result or "
                                    "error"))
    return out
