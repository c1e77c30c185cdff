"""One OS process that makes IDs (pymongo ObjectIds or uuid_utils UUIDv7s) at a chosen moment.

The ordering experiments start several of these so that each has its own
process-level random value, exactly as separate application servers would.
Prints one JSON object: the label, the IDs' hex and the clock (ns) at each; or, where the
server refuses or cannot be reached, one line on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from labkit.errors import one_line

WORKER_URI_VARIABLE = "LABKIT_WORKER_MONGODB_URI"


def main(argv: list[str]) -> int:
    """Wait until ``--start-ns``, make ``--count`` IDs; insert each into MongoDB when the
    environment names a server (a URI with a password never goes on a command line). What
    the server refuses, or a lost connection, ends the process with one line on stderr."""
    parser = argparse.ArgumentParser(prog="python -m labkit.engines.idworker")
    parser.add_argument("--label", required=True)
    parser.add_argument("--start-ns", type=int, required=True)
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--db")
    parser.add_argument("--collection", default="events")
    parser.add_argument("--kind", choices=("objectid", "uuid7"), default="objectid")
    parser.add_argument("--spread-ms", type=int, default=0)
    args = parser.parse_args(argv)

    from pymongo.errors import PyMongoError

    try:
        made = _make(args, os.environ.get(WORKER_URI_VARIABLE))
    except PyMongoError as exc:  # the parent quotes this line as the process's failure
        print(one_line(exc), file=sys.stderr)
        return 1
    json.dump(made, sys.stdout)
    return 0


def _make(args: argparse.Namespace, uri: str | None) -> dict[str, Any]:
    """Make the IDs at the moment, all at once or paced evenly over ``--spread-ms`` (inserting
    each where ``uri`` names a server): the label, the IDs' hex and the clock (ns) at each."""
    from bson import ObjectId

    if args.kind == "uuid7":
        import uuid_utils

        def make() -> str:
            return str(uuid_utils.uuid7())
    else:
        def make() -> str:
            return str(ObjectId())
    collection = None
    if uri:
        # the servers' room, some 20 modules: only a worker that inserts needs it
        from labkit.servers import mongo_client

        collection = mongo_client(uri)[args.db][args.collection]
        collection.database.command("ping")  # connect before the moment, not during it
    make()  # draw this process's random state before the moment too
    while (wait := args.start_ns - time.time_ns()) > 0:
        time.sleep(min(wait / 1e9, 0.05))
    ids, clock = _made_paced(make, args.count, args.start_ns, args.spread_ms * 1_000_000)
    if collection is not None:
        # Inserted after they were made, in one command: an insert per ID, each waiting for its
        # reply, spread the IDs over as many round trips, and on a distant server (a third of
        # a second each) a process's last ID fell in the next second at every try.
        collection.insert_many([
            {"_id": ObjectId(made), "process": args.label,
             "inserted_at": dt.datetime.fromtimestamp(now_ns / 1e9, tz=dt.UTC),
             "inserted_ns": now_ns} for made, now_ns in zip(ids, clock, strict=True)])
    return {"label": args.label, "ids": ids, "clock_ns": clock}


def _made_paced(make: Callable[[], str], count: int, start_ns: int, spread_ns: int
                ) -> tuple[list[str], list[int]]:
    """``count`` IDs from ``make`` and the clock at each: all at once (``spread_ns`` 0, as one
    process makes a batch), or as many as are due at each moment of ``spread_ns`` from
    ``start_ns``. Paced, a process the scheduler held back catches up when it runs again, and
    two processes on a busy machine still make IDs in many of the same milliseconds."""
    ids: list[str] = []
    clock: list[int] = []
    while len(ids) < count:
        elapsed = time.time_ns() - start_ns
        due = count if spread_ns <= 0 else min(count, count * elapsed // spread_ns + 1)
        while len(ids) < due:
            ids.append(make())
            clock.append(time.time_ns())
        if len(ids) < count:
            time.sleep(0.0002)
    return ids, clock


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
