"""U2 on a busy machine: how often the claim is judged (and holds) while other processes keep
every core busy, as on a learner's laptop or a shared runner.

    python benchmarks/u2_busy_bench.py [--runs 10] [--busy 2] [--spread-ms 0,400]

For each spread (0: every process makes its 20,000 UUIDv7s at once, as U2 did first; above 0:
paced evenly over that many milliseconds), it starts ``--busy`` processes that spin on one core
each, then runs claim U2 ``--runs`` times through labkit's runner (with its own retries) and
prints, per run, the verdict and the milliseconds in which both ID-making processes made IDs,
then the count of holds beside the runs. Both sides print: the spread this machine needs shows
as the one whose holds equal its runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from labkit.experiments import btree_keys, catalogue
from labkit.run import runner

SPIN = "while True:\n    pass\n"


def run_u2(spread_ms: int) -> tuple[str, int | None]:
    """U2 once through the runner with ``spread_ms``: its verdict and the shared milliseconds
    its observation counted (None where it had none)."""
    btree_keys.U2_SPREAD_MS = spread_ms
    (row,) = runner.run_claim(catalogue.get("U2"), runner.Context()).rows
    observed = row.observation.observed if row.observation is not None else {}
    return row.verdict, observed.get("milliseconds_shared_by_both_nodes")


def main() -> int:
    """Run the comparison and print it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--busy", type=int, default=2)
    parser.add_argument("--spread-ms", default="0,400")
    args = parser.parse_args()
    spreads = [int(s) for s in args.spread_ms.split(",")]
    print(f"{os.cpu_count()} cores, {args.busy} spinning processes, {args.runs} runs per spread")
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(args.busy)]
    try:
        time.sleep(1)
        for spread in spreads:
            started, holds, lines = time.monotonic(), 0, []
            for _ in range(args.runs):
                verdict, shared = run_u2(spread)
                holds += verdict == "holds"
                lines.append(f"{verdict}/{shared}")
            took = time.monotonic() - started
            print(f"spread {spread:>4} ms: {holds}/{args.runs} hold in {took:.1f} s "
                  f"(verdict/shared ms: {' '.join(lines)})")
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
