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
from labkit.model.objectid import explain, iso_z


def start_of_next_second_ns(lead_s: float = 1.5, offset_ms: int = 100) -> int:
    """A moment ``offset_ms`` into the first whole second at least ``lead_s`` from now."""
    now = time.time_ns()
    return ((now + int(lead_s * 1e9)) // 1_000_000_000 + 1) * 1_000_000_000 + offset_ms * 1_000_000


def in_processes(labels: list[str], count: int = 1, start_ns: int | None = None,
                 offsets_ms: list[int] | None = None, uri: str | None = None,
                 database: str | None = None, collection: str = "events",
                 kind: str = "objectid") -> list[dict[str, Any]]:
    """Make IDs (pymongo ObjectIds, or ``kind="uuid7"``) in one fresh process per label, at once.

    Each process waits until ``start_ns`` plus its offset, then makes ``count``
    IDs (and, given ``uri``, inserts each one). Returns one dict per process:
    ``label``, ``ids`` (hex) and ``clock_ns`` (the process's clock at each ID).
    """
    start_ns = start_ns or start_of_next_second_ns()
    offsets_ms = offsets_ms or [0] * len(labels)
    procs = []
    for label, offset in zip(labels, offsets_ms, strict=True):
        cmd = [sys.executable, "-m", "labkit.engines.idworker", "--label", label,
               "--start-ns", str(start_ns + offset * 1_000_000), "--count", str(count),
               "--kind", kind]
        env = None
        if uri:  # in the environment, not on the command line, which every local user can read
            if not database:
                raise BadInput("IDs inserted into a server need a database to go into")
            cmd += ["--db", database, "--collection", collection]
            env = {**os.environ, WORKER_URI_VARIABLE: uri}
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, env=env))
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        if proc.returncode != 0:
            raise LabkitError(f"an ID-making process failed: {err.strip()[-500:]}")
        results.append(json.loads(out))
    return results


def rows(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per ObjectId made by ``in_processes``: process, fields, and the clock in ms."""
    out = []
    for result in results:
        for hex_id, clock_ns in zip(result["ids"], result["clock_ns"], strict=True):
            out.append({"process": result["label"], **explain(hex_id),
                        "clock": iso_z(dt.datetime.fromtimestamp(clock_ns / 1e9, tz=dt.UTC)),
                        "clock_ns": clock_ns})
    return out
