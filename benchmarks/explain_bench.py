"""``labkit explain`` against ``labkit predict`` on the same file: time and peak memory of each
whole command, text and ``--json``, beside issue 46's target (explain within twice predict's
memory).

    python benchmarks/explain_bench.py [--n 100000] [--repeat 3]

The file holds ``--n`` documents whose ``userId`` is an int or, every third, a string, so the
filter ``{"userId": {"$gt": 0}}`` gives both of explain's reasons (BSON order and type
bracketing). Each figure is the median of ``--repeat`` runs, each a fresh ``labkit`` process
writing to /dev/null; its peak memory is the process's maximum resident set (``ru_maxrss`` of
the child). The load average is printed: a machine shared with other work slows every side.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

FILTER = '{"userId": {"$gt": 0}}'
MEMORY_RATIO_TARGET = 2.0
LABKIT = Path(sys.executable).with_name("labkit")


def _documents(n: int) -> list[dict[str, object]]:
    return [{"_id": i, "userId": i if i % 3 else str(i), "tag": "x" * 5} for i in range(n)]


def _measure(argv: list[str], repeat: int) -> tuple[float, float]:
    """The median seconds and the peak MB of ``repeat`` runs, each in a fresh interpreter."""
    code = ("import resource, subprocess, sys, time, os\n"
            "t = time.perf_counter()\n"
            "subprocess.run(sys.argv[1:], stdout=open(os.devnull, 'w'), check=True)\n"
            "print(time.perf_counter() - t, "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n")
    runs = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code, str(LABKIT), *argv],
                             capture_output=True, text=True, check=True).stdout.split()
        runs.append((float(out[0]), float(out[1])))
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "docs.json"
        path.write_text(json.dumps(_documents(args.n)), encoding="utf-8")
        print(f"{args.n:,} documents, {path.stat().st_size / 2**20:.1f} MiB; "
              f"load average {os.getloadavg()[0]:.2f}")
        rows = {}
        for name, argv in (("predict", ["predict", "find"]),
                           ("predict --json", ["predict", "find", "--json"]),
                           ("explain", ["explain", "find"]),
                           ("explain --json", ["explain", "find", "--json"])):
            command = [*argv[:2], str(path), "--filter", FILTER, *argv[2:]]
            rows[name] = _measure(command, args.repeat)
            print(f"{name:16} {rows[name][0]:7.2f} s  {rows[name][1]:7.1f} MB")
    base = rows["predict"][1]
    failed = False
    for name in ("explain", "explain --json"):
        ratio = rows[name][1] / base
        ok = ratio <= MEMORY_RATIO_TARGET
        failed |= not ok
        print(f"{name} memory / predict's: {ratio:.2f} (target at most "
              f"{MEMORY_RATIO_TARGET:.0f}): {'met' if ok else 'NOT met'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
