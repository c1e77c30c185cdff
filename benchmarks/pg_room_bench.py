"""A room on one PostgreSQL: several B-tree loads at once against one server, beside the same
load alone, and whether each concurrent load's figures are its own or marked as disturbed.

    LABKIT_POSTGRES_DSN=postgresql://... python benchmarks/pg_room_bench.py [--loads 8]
        [--n 20000] [--repeat 1]

Each load is ``labkit btree --engine postgres --keys uuid4,uuid7 --n N --json`` in a process of
its own, as each learner's lesson 06 runs one. It prints the lone run's bytes written per key,
then, per round, each concurrent load's bytes per key and its mark, and the count of results
that are neither marked nor within 20% of the lone run's (0 is the target: a learner sees
figures of their own or is told they are not).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

LABKIT = [sys.executable, "-m", "labkit"]
KINDS = "uuid4,uuid7"


def _command(n: int) -> list[str]:
    return [*LABKIT, "btree", "--engine", "postgres", "--keys", KINDS, "--n", str(n), "--json",
            "--quiet"]


def _per_key(out: str) -> dict[str, tuple[float, str]]:
    """{kind: (bytes written per key, its mark or "")} of one load's --json."""
    results = json.loads(out)["results"]
    return {r["keys"]: (r["write_bytes"] / r["n"], str(r.get("write_disturbed") or ""))
            for r in results}


def main() -> int:
    """Run the lone load, then the rounds, and print both."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=8)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    if not os.environ.get("LABKIT_POSTGRES_DSN"):
        print("set LABKIT_POSTGRES_DSN to the server the room shares", file=sys.stderr)
        return 2
    cwd = Path(__file__).resolve().parent.parent
    alone = _per_key(subprocess.run(_command(args.n), capture_output=True, text=True,
                                    check=True, cwd=cwd).stdout)
    print("alone: " + ", ".join(f"{kind} {per:,.0f} B/key{' (marked)' if mark else ''}"
                                for kind, (per, mark) in alone.items()))
    for round_ in range(1, args.repeat + 1):
        procs = [subprocess.Popen(_command(args.n), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, cwd=cwd)
                 for _ in range(args.loads)]
        unmarked_far = marked = 0
        for index, proc in enumerate(procs, start=1):
            out, err = proc.communicate()
            if proc.returncode != 0:
                print(f"  load {index}: failed: {err.strip().splitlines()[-1:]}")
                continue
            parts = []
            for kind, (per, mark) in _per_key(out).items():
                near = abs(per - alone[kind][0]) <= 0.2 * alone[kind][0]
                marked += bool(mark)
                unmarked_far += not mark and not near
                parts.append(f"{kind} {per:,.0f} B/key {'marked' if mark else 'unmarked'}")
            print(f"  round {round_}, load {index}: " + "; ".join(parts))
        print(f"round {round_}: {marked} of {2 * args.loads} results marked disturbed, "
              f"{unmarked_far} unmarked and more than 20% from the lone run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
