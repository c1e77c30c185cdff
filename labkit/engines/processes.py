"""IDs made in several fresh OS processes at one moment, each with its own process-level state,
as separate application servers make them (each process runs :mod:`labkit.engines.idworker`)."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
from typing import Any

from labkit.engines.idworker import WORKER_URI_VARIABLE
from labkit.errors import BadInput, LabkitError
from labkit.i18n import N_, Message
from labkit.model.objectid import explain, iso_z

# How long the processes get, together, to reach their moment and make their IDs.
WAIT_S = 120.0


def start_of_next_second_ns(lead_s: float = 1.5, offset_ms: int = 100) -> int:
    """A moment ``offset_ms`` into the first whole second at least ``lead_s`` from now."""
    now = time.time_ns()
    return ((now + int(lead_s * 1e9)) // 1_000_000_000 + 1) * 1_000_000_000 + offset_ms * 1_000_000


def in_processes(labels: list[str], count: int = 1, start_ns: int | None = None,
                 offsets_ms: list[int] | None = None, uri: str | None = None,
                 database: str | None = None, collection: str = "events",
                 kind: str = "objectid", spread_ms: int = 0) -> list[dict[str, Any]]:
    """Make IDs (pymongo ObjectIds, or ``kind="uuid7"``) in one fresh process per label, at once.

    Each process waits until ``start_ns`` plus its offset, then makes ``count``
    IDs, at once or paced evenly over ``spread_ms`` (and, given ``uri``, inserts each one).
    Returns one dict per process: ``label``, ``ids`` (hex) and ``clock_ns`` (the process's
    clock at each ID).

    When one process fails or the processes take longer than ``WAIT_S``, the others are
    stopped before this raises: none lives on to write into a database its caller then drops.
    """
    start_ns = start_ns or start_of_next_second_ns()
    offsets_ms = offsets_ms or [0] * len(labels)
    env = None
    if uri:  # in the environment, not on the command line, which every local user can read
        if not database:
            raise BadInput(Message(N_("IDs inserted into a server need a database to go into")))
        env = {**os.environ, WORKER_URI_VARIABLE: uri}
    procs: list[tuple[str, subprocess.Popen[str]]] = []
    try:
        for label, offset in zip(labels, offsets_ms, strict=True):
            cmd = [sys.executable, "-m", "labkit.engines.idworker", "--label", label,
                   "--start-ns", str(start_ns + offset * 1_000_000), "--count", str(count),
                   "--kind", kind, "--spread-ms", str(spread_ms)]
            if uri:
                cmd += ["--db", str(database), "--collection", collection]
            procs.append((label, subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                                  stderr=subprocess.PIPE, text=True, env=env)))
        deadline = time.monotonic() + WAIT_S
        return [_result(label, proc, deadline) for label, proc in procs]
    finally:
        for _label, proc in procs:  # what is still running when this ends early
            if proc.returncode is None:
                proc.kill()
                proc.communicate()


def _result(label: str, proc: subprocess.Popen[str], deadline: float) -> dict[str, Any]:
    """What one process printed, once it ended; its failure in one line (its last)."""
    try:
        out, err = proc.communicate(timeout=max(deadline - time.monotonic(), 0.0))
    except subprocess.TimeoutExpired as exc:
        # A number, which the message writes in the learner's digits ("120", as :g wrote it).
        seconds = int(WAIT_S) if WAIT_S.is_integer() else WAIT_S
        raise LabkitError(Message(N_("the ID-making process {label} did not finish within "
                                     "{seconds} s"), label=label, seconds=seconds)) from exc
    if proc.returncode != 0:
        # idworker says why in its last line (a traceback's last line says it too)
        lines = err.strip().splitlines()
        why = lines[-1] if lines else Message(N_("exit status {status}"),
                                              status=proc.returncode)
        raise LabkitError(Message(N_("the ID-making process {label} failed: {error}"),
                                  label=label, error=why))
    result: dict[str, Any] = json.loads(out)
    return result


def rows(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per ObjectId made by ``in_processes``: process, fields, and the clock in ms."""
    out = []
    for result in results:
        for hex_id, clock_ns in zip(result["ids"], result["clock_ns"], strict=True):
            out.append({"process": result["label"], **explain(hex_id),
                        "clock": iso_z(dt.datetime.fromtimestamp(clock_ns / 1e9, tz=dt.UTC)),
                        "clock_ns": clock_ns})
    return out
