"""``labkit compare`` on runs of 10 and 1,000 claims, 8 runs each: time, peak memory and bytes
written, to show they grow with the input (claims x runs) and not with claims x columns; and
the same on a hostile file whose every claim names an engine of its own (a column per claim).

    python benchmarks/compare_bench.py [--claims 10,1000] [--runs 8] [--hostile 1000]

Each run is a results.json made from one ``labkit check`` of a one-claim file on the model,
mongomock and montydb (three columns), its claim copied ``--claims`` times with verdicts that
differ from run to run. Each figure is one fresh ``labkit compare`` process: its wall time,
its peak resident memory (``ru_maxrss``) and the bytes of compare.html and compare.md.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

LABKIT = Path(sys.executable).with_name("labkit")
CLAIM = ("- id: A1\n  title: plain\n  fixture: [{_id: a, v: 1}]\n  find: {v: 1}\n"
         "  expect: {ids: [a]}\n")
VERDICTS = ("holds", "fails", "not-run")
MEASURE = ("import os, resource, subprocess, sys, time\n"
           "t = time.perf_counter()\n"
           "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
           "stderr=subprocess.PIPE, text=True)\n"
           "print(time.perf_counter() - t, "
           "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, done.returncode)\n"
           "sys.stderr.write(done.stderr[-300:])\n")


def _template(folder: Path) -> dict[str, object]:
    claims = folder / "one.yaml"
    claims.write_text(CLAIM, encoding="utf-8")
    subprocess.run([str(LABKIT), "check", str(claims), "--engines", "model,mongomock,montydb",
                    "--out", str(folder / "one"), "--quiet"], stdout=subprocess.DEVNULL,
                   check=False)
    return json.loads((folder / "one" / "results.json").read_text(encoding="utf-8"))


def _run_file(template: dict, claims: int, run: int, hostile: bool) -> dict:
    data = copy.deepcopy(template)
    first = data["claims"][0]
    made = []
    for i in range(claims):
        claim = copy.deepcopy(first)
        claim["id"] = f"C{i}.claim_{i}"
        for j, row in enumerate(claim["results"]):
            row["verdict"] = VERDICTS[(i + j + run) % 3]
            if hostile:  # every claim names its own engine version: a column of its own
                row["engine_version"] = f"{i}.{j}"
        made.append(claim)
    data["claims"] = made
    if hostile:
        data["engine_details"] = []
    return data


def _measure(paths: list[Path], out: Path) -> str:
    done = subprocess.run([sys.executable, "-c", MEASURE, str(LABKIT), "compare",
                           *map(str, paths), "--out", str(out)], capture_output=True, text=True,
                          check=True)
    seconds, mb, status = done.stdout.split()
    written = sum(f.stat().st_size for f in out.glob("compare.*")) if out.is_dir() else 0
    said = done.stderr.strip().splitlines()[-1] if status != "0" and done.stderr.strip() else ""
    return (f"{float(seconds):7.2f} s  {float(mb):7.1f} MB  {written / 2**20:8.2f} MiB written"
            f"  exit {status}" + (f"  ({said[:90]})" if said else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", default="10,1000")
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--hostile", type=int, default=1000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        template = _template(folder)
        cases = [(int(n), False) for n in args.claims.split(",")]
        cases += [(args.hostile, True)] if args.hostile else []
        for claims, hostile in cases:
            paths = []
            for run in range(args.runs):
                path = folder / f"run{claims}-{hostile}-{run}.json"
                path.write_text(json.dumps(_run_file(template, claims, run, hostile)),
                                encoding="utf-8")
                paths.append(path)
            size = sum(p.stat().st_size for p in paths) / 2**20
            label = f"{claims:,} claims x {args.runs} runs" + (
                " (a column per claim)" if hostile else "")
            print(f"{label:42} input {size:6.2f} MiB: "
                  f"{_measure(paths, folder / f'out{claims}-{hostile}')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
