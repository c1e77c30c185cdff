"""How long ``make test`` takes on this machine, against the 180 s a newcomer should wait, and
how fast this machine is, so that two runs on two machines can be compared.

    python benchmarks/suite_bench.py [--workers auto,3] [--repeat 1] [--json] [-- PYTEST ARGS]

The suite's time depends as much on the machine as on the suite: two machines sold as "two
cores" ran the same tests at times apart by more than two to one. So before and after the
runs it times a fixed piece of pure Python on one core (a sum over a range, the least of five
rounds): the machine's speed beside the suite's time. Each run is ``make test`` with
``ARGS="-n WORKERS ..."`` (``auto``: the suite's own count, one per core and two more), its
wall time and its children's CPU time; it prints every run beside the target, and the exit
status of each (a failing run's time is printed, marked, but is no measurement of a green
suite).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 180.0  # seconds: what a newcomer should wait for make test on two cores
REFERENCE_N = 30_000_000


def reference_seconds(rounds: int = 5) -> float:
    """The least CPU time of ``rounds`` sums over ``range(REFERENCE_N)`` in a fresh
    interpreter: one core's speed at pure Python, the suite's main work."""
    code = ("import time\nt = time.process_time()\ns = 0\n"
            f"for i in range({REFERENCE_N}):\n    s += i\nprint(time.process_time() - t)\n")
    return min(float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                    text=True, check=True).stdout) for _ in range(rounds))


def run_suite(workers: str, extra: list[str]) -> dict[str, object]:
    """One ``make test`` with ``workers``: wall seconds, children's CPU seconds, exit status."""
    args = " ".join(["-n", workers, *extra])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(["make", "test", f"ARGS={args}"], cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"workers": workers, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "status": done.returncode}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="auto",
                        help="comma-separated worker counts for pytest -n (default: auto)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per worker count")
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")
    parser.add_argument("pytest_args", nargs="*", help="after --: more arguments for pytest")
    options = parser.parse_args(argv)
    counts = [w.strip() for w in options.workers.split(",") if w.strip()]

    speed_before = reference_seconds()
    runs = [run_suite(w, options.pytest_args) for w in counts for _ in range(options.repeat)]
    speed_after = reference_seconds()
    result = {"reference_s": [round(speed_before, 2), round(speed_after, 2)],
              "reference": f"sum over range({REFERENCE_N:,}), least of 5, one core",
              "target_s": TARGET, "cores": os.cpu_count(), "runs": runs}
    if options.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"machine: {os.cpu_count()} cores; reference {speed_before:.2f} s before the runs, "
          f"{speed_after:.2f} s after ({result['reference']})")
    print(f"{'workers':>8} {'make test':>10} {'CPU':>8} {'target':>8}  status")
    for run in runs:
        green = run["status"] == 0
        verdict = ("within" if float(str(run["wall_s"])) <= TARGET else "over") if green else ""
        status = "green" if green else f"FAILED ({run['status']}): not a measurement"
        print(f"{run['workers']:>8} {run['wall_s']:>9}s {run['cpu_s']:>7}s {TARGET:>7.0f}s  "
              f"{verdict} {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
