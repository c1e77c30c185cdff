"""Benchmark ``labkit predict`` against its targets and against mongomock (an in-process fake).

    python benchmarks/predict_bench.py [--n 100000] [--repeat 5] [--mock-repeat 3] [--json]

Issue 20's targets, on ``--n`` mixed-type documents in canonical Extended JSON, one per line:
the whole ``labkit predict sort`` command (interpreter start-up included) within 1.0 s, the whole
``labkit predict find`` within 0.5 s, each at least 10x faster than mongomock on the same work
(reading the file and answering, inside each process), and at most 100 MB of memory. Every
figure is the median of several runs, each in a fresh process, labkit's and mongomock's runs
taking turns so that both sides see the same machine; the load average is printed, since a
machine shared with other work slows both sides.

mongomock 4.3 cannot sort Decimal128, so the ratio is taken on the same file without decimals.
mongomock is a fake: where it disagrees with the model, neither is the server's word. The same
sort under a collation shows what ICU costs where it is asked for; the plain sort and find say
whether a $regex was compiled in PCRE2 or ICU was loaded at all (neither should be; the reader
loads PCRE2 for its check of a large text, where it is faster than Python's re). The Python
reader, which answers where the C reader declines, is timed on the same file for comparison,
and the peak memory of a sort at a quarter, half and all of the documents shows whether it
grows linearly.

Every process reads its compiled bytecode from a cache of the benchmark's own (a temporary
``PYTHONPYCACHEPREFIX``, filled by one run first), as every run but a user's first does. The
whole command is also timed with no bytecode written (``PYTHONDONTWRITEBYTECODE=1``, as some
shells and containers set it), where Python compiles labkit's modules from source on each run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

SORT = "v:1,_id:1"
FILTER = {"v": {"$gt": 0}}
TARGETS = {"sort": 1.0, "find": 0.5}  # seconds, the whole command
RATIO_TARGET = 10.0
MEMORY_TARGET_MB = 100.0

CHILD = r'''
import json, os, resource, sys, time
tool, path, task = sys.argv[1], sys.argv[2], sys.argv[3]
start = time.perf_counter()
if tool == "labkit-cli":
    from labkit import cli
    args = ["sort", path, "--sort", "v:1,_id:1"] if task == "sort" else [
        "find", path, "--filter", '{"v": {"$gt": 0}}']
    stdout, sys.stdout = sys.stdout, open(os.devnull, "w")
    cli.main(["predict", *args])
    sys.stdout = stdout
    loaded = done = time.perf_counter()
    ids = []
elif tool.startswith("labkit"):
    from labkit.model import _fastread, bson_order, fixtures, reads
    if tool == "labkit-python":  # the Python reader alone, as where the C reader declines
        _fastread.documents = lambda text: None
    docs = fixtures.read(path)
    loaded = time.perf_counter()
    if task == "sort":
        ids = reads.ids(bson_order.sort(docs, "v:1,_id:1"))
    elif task == "sort-collated":
        ids = reads.ids(bson_order.sort(docs, "v:1,_id:1",
                                        collation={"locale": "en", "strength": 2}))
    else:
        ids = reads.ids(reads.find(docs, {"v": {"$gt": 0}}))
    done = time.perf_counter()
else:
    import mongomock
    from bson import json_util
    from bson.binary import UuidRepresentation
    options = json_util.JSONOptions(json_mode=json_util.JSONMode.CANONICAL,
                                    uuid_representation=UuidRepresentation.UNSPECIFIED,
                                    tz_aware=True)
    with open(path, encoding="utf-8") as handle:
        docs = [json_util.loads(line, json_options=options) for line in handle if line.strip()]
    collection = mongomock.MongoClient().db.docs
    collection.insert_many(docs)
    loaded = time.perf_counter()
    if task == "sort":
        ids = [d["_id"] for d in collection.find({}, {"_id": 1}).sort([("v", 1), ("_id", 1)])]
    else:
        ids = [d["_id"] for d in collection.find({"v": {"$gt": 0}}, {"_id": 1})]
    done = time.perf_counter()
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"load_s": loaded - start, "answer_s": done - loaded, "total_s": done - start,
                  "peak_mb": peak_kb / (1024 * 1024 if sys.platform == "darwin" else 1024),
                  "count": len(ids), "first": repr(ids[:5]),
                  "regex_or_icu": [name for name, used in (
                      ("a $regex in PCRE2", "labkit.model.regex" in sys.modules and
                       sys.modules["labkit.model.regex"]._compiled.cache_info().currsize),
                      ("ICU", "icu" in sys.modules)) if used],
                  "pcre2_loaded": "pcre2" in sys.modules}))
'''


def generate(n: int, path: str, decimals: bool = True, seed: int = 7) -> None:
    """Write ``n`` documents whose ``v`` spans the BSON types, as canonical Extended JSON."""
    rng = random.Random(seed)
    kinds = [k for k in range(14) if decimals or k != 3]

    def value() -> object:
        pick = rng.choice(kinds)
        number = rng.randrange(-1000, 1000)
        return [
            {"$numberInt": str(number)},
            {"$numberLong": str(number * 1000)},
            {"$numberDouble": repr(number / 7)},
            {"$numberDecimal": f"{number}.5"},
            str(number),
            None,
            {"a": {"$numberInt": str(number)}},
            [{"$numberInt": str(number)}, str(number)],
            [],
            {"$oid": f"{rng.getrandbits(96):024x}"},
            rng.random() < 0.5,
            {"$date": {"$numberLong": str(number * 86_400_000)}},
            {"$binary": {"base64": "AAECAwQFBgcICQoLDA0ODw==", "subType": "04"}},
            {"$numberDouble": "NaN"},
        ][pick]

    with open(path, "w", encoding="utf-8") as handle:
        for i in range(n):
            doc = {"_id": {"$numberInt": str(i)}}
            if rng.random() > 0.05:  # some documents lack the field
                doc["v"] = value()
            handle.write(json.dumps(doc) + "\n")


# The environment of every timed process: set by ``main`` to read a warm bytecode cache.
ENV: dict[str, str] = dict(os.environ)


def bytecode_environments(cache: str) -> tuple[dict[str, str], dict[str, str]]:
    """The environment with bytecode written to and read from ``cache``, and the one where
    no bytecode is written (labkit's modules, having none cached, compile on every run)."""
    warm = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    warm["PYTHONPYCACHEPREFIX"] = cache
    cold = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    cold["PYTHONDONTWRITEBYTECODE"] = "1"
    return warm, cold


def child(tool: str, path: str, task: str) -> dict:
    """Run one tool on one task in a fresh process; its own timings and peak memory."""
    result = subprocess.run([sys.executable, "-c", CHILD, tool, path, task],
                            capture_output=True, text=True, check=False, env=ENV)
    if result.returncode:
        return {"failed": result.stderr.strip().splitlines()[-1]}
    return json.loads(result.stdout)


def cli_wall(path: str, task: str, env: dict[str, str] | None = None
             ) -> tuple[float, float | None]:
    """Wall time of the whole ``labkit predict`` command, interpreter start-up included, and
    the CPU time it used (user and system; None where the system does not report it), which
    other work on a shared machine disturbs less than the wall time."""
    args = ["sort", path, "--sort", SORT] if task == "sort" else [
        "find", path, "--filter", json.dumps(FILTER)]
    before = _children_cpu()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "labkit", "predict", *args], check=True,
                   stdout=subprocess.DEVNULL, env=ENV if env is None else env)
    wall = time.perf_counter() - start
    after = _children_cpu()
    return wall, None if before is None or after is None else after - before


def _children_cpu() -> float | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def median_of(runs: list[dict]) -> dict:
    """The median of each timing over runs (a failed run is reported as the failure)."""
    failed = [run for run in runs if "failed" in run]
    if failed:
        return failed[0]
    out = dict(runs[0])
    for name in ("load_s", "answer_s", "total_s", "peak_mb"):
        out[name] = statistics.median(run[name] for run in runs)
    out["runs"] = len(runs)
    return out


def have_mongomock() -> bool:
    """Whether mongomock can be imported here."""
    probe = subprocess.run([sys.executable, "-c", "import mongomock"], capture_output=True,
                           check=False)
    return probe.returncode == 0


def load_average() -> str:
    """The 1, 5 and 15 minute load averages where the system reports them."""
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except (AttributeError, OSError):
        return "not reported here"


def measure(args: argparse.Namespace, full: str, shared: str, mock: bool,
            cold: dict[str, str]) -> dict:
    """Every timing, repeated, labkit's and mongomock's runs taking turns."""
    results: dict = {"n": args.n, "mongomock": mock, "cpus": os.cpu_count(), "tasks": {},
                     "load_before": load_average()}
    for task in ("sort", "find"):
        cli_wall(full, task)  # fills the bytecode cache (and the system's file cache)
        walls, cpus, cli, full_runs, shared_runs, python_runs, mock_runs = ([] for _ in range(7))
        cold_walls = []
        for turn in range(max(args.repeat, args.mock_repeat if mock else 0)):
            if turn < args.repeat:
                wall, cpu = cli_wall(full, task)
                walls.append(wall)
                if cpu is not None:
                    cpus.append(cpu)
                cold_walls.append(cli_wall(full, task, cold)[0])
                cli.append(child("labkit-cli", full, task))
                full_runs.append(child("labkit", full, task))
                shared_runs.append(child("labkit", shared, task))
                python_runs.append(child("labkit-python", full, task))
            if mock and turn < args.mock_repeat:
                mock_runs.append(child("mongomock", shared, task))
        row = {"cli_wall_s": statistics.median(walls), "cli_walls_s": walls,
               "cli_wall_no_bytecode_s": statistics.median(cold_walls),
               "cli_walls_no_bytecode_s": cold_walls,
               "cli_cpu_s": statistics.median(cpus) if cpus else None,
               "cli": median_of(cli), "labkit_full": median_of(full_runs),
               "labkit": median_of(shared_runs), "labkit_python_reader": median_of(python_runs)}
        if mock:
            row["mongomock"] = median_of(mock_runs)
            if "failed" not in row["mongomock"]:
                row["ratio"] = row["mongomock"]["total_s"] / row["labkit"]["total_s"]
        results["tasks"][task] = row
    results["collated_sort"] = median_of([child("labkit", full, "sort-collated")
                                          for _ in range(args.repeat)])
    results["load_after"] = load_average()
    return results


def main() -> int:
    """Generate the files, time every side several times, print medians against the targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="documents (default 100000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each labkit timing")
    parser.add_argument("--mock-repeat", type=int, default=3,
                        help="runs of each mongomock timing (its sort takes about 35 s)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    mock = have_mongomock()
    global ENV
    with tempfile.TemporaryDirectory() as tmp:
        ENV, cold = bytecode_environments(os.path.join(tmp, "bytecode"))
        full = os.path.join(tmp, "mixed.jsonl")
        shared = os.path.join(tmp, "mixed-no-decimal.jsonl")
        generate(args.n, full)
        generate(args.n, shared, decimals=False)  # mongomock 4.3 cannot sort Decimal128
        results = measure(args, full, shared, mock, cold)
        results["memory"] = {}
        for share in (4, 2, 1):  # a quarter, half and all: does the peak grow linearly?
            part = os.path.join(tmp, f"part{share}.jsonl")
            generate(args.n // share, part)
            results["memory"][args.n // share] = child("labkit", part, "sort").get("peak_mb")
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        report(results)
    return 0


def report(results: dict) -> None:
    """The medians, each beside its target."""
    print(f"{results['n']} mixed-type documents; medians of runs in fresh processes on "
          f"{results['cpus']} CPUs; load average before {results['load_before']}, after "
          f"{results['load_after']}{_shared(results)}")
    if not results["mongomock"]:
        print("mongomock is not installed: only labkit is timed "
              "(pip install -e '.[bench]' to compare)")
    for task, row in results["tasks"].items():
        spec = SORT if task == "sort" else json.dumps(FILTER)
        print(f"\n{task} {spec}")
        walls = ", ".join(f"{w:.2f}" for w in row["cli_walls_s"])
        met = _verdict(row["cli_wall_s"] <= TARGETS[task])
        print(f"  the whole `labkit predict {task}` command: {row['cli_wall_s']:.2f} s "
              f"(runs: {walls}); target {TARGETS[task]:.1f} s: {met}")
        cold = ", ".join(f"{w:.2f}" for w in row["cli_walls_no_bytecode_s"])
        cold_met = _verdict(row["cli_wall_no_bytecode_s"] <= TARGETS[task])
        print(f"  the same with no bytecode written (PYTHONDONTWRITEBYTECODE=1): "
              f"{row['cli_wall_no_bytecode_s']:.2f} s (runs: {cold}); target "
              f"{TARGETS[task]:.1f} s: {cold_met}")
        if row["cli_cpu_s"] is not None:
            print(f"  its CPU time (user and system): {row['cli_cpu_s']:.2f} s")
        peak = row["cli"].get("peak_mb")
        if peak is not None:
            print(f"  its peak memory: {peak:.0f} MB; target {MEMORY_TARGET_MB:.0f} MB: "
                  f"{_verdict(peak < MEMORY_TARGET_MB)}")
        used = row["cli"].get("regex_or_icu") or ["neither"]
        reader = " (PCRE2 loaded for the reader's check)" if row["cli"].get("pcre2_loaded") else ""
        print(f"  a $regex compiled in PCRE2, or ICU loaded: {', '.join(used)}{reader}")
        print("  every type, decimals included:")
        _line("labkit", row["labkit_full"])
        _line("Python reader", row["labkit_python_reader"])
        print("  the same file without decimals, which mongomock can sort too:")
        _line("labkit", row["labkit"])
        if "mongomock" in row:
            _line("mongomock", row["mongomock"])
        if "ratio" in row:
            answers = row["mongomock"]["answer_s"] / row["labkit"]["answer_s"]
            print(f"    mongomock / labkit: {row['ratio']:.1f}x (answers alone: {answers:.1f}x);"
                  f" target {RATIO_TARGET:.0f}x: {_verdict(row['ratio'] >= RATIO_TARGET)}")
    print("\nsort v:1,_id:1 under the collation {locale: \"en\", strength: 2} (ICU):")
    _line("labkit", results["collated_sort"])
    print("\nlabkit peak memory for the sort (reading included): " + ", ".join(
        f"{n} docs {mb:.0f} MB" for n, mb in sorted(results["memory"].items()) if mb))


def _shared(results: dict) -> str:
    """A warning where a load average was above the CPU count: other work shared the machine."""
    loads = [float(x) for key in ("load_before", "load_after")
             for x in results[key].split(", ") if x[:1].isdigit()]
    if results["cpus"] and any(load > results["cpus"] for load in loads):
        return " (above the CPU count: other work shared the machine, and slowed both sides)"
    return ""


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def _line(name: str, timing: dict) -> None:
    if "failed" in timing:
        print(f"    {name:<13} failed: {timing['failed']}")
    else:
        print(f"    {name:<13} read {timing['load_s']:6.2f} s  answer {timing['answer_s']:6.2f} s"
              f"  total {timing['total_s']:6.2f} s  peak {timing['peak_mb']:4.0f} MB")


if __name__ == "__main__":
    sys.exit(main())
