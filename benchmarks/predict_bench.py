"""Benchmark ``labkit predict`` against mongomock (an in-process fake of MongoDB) on one file.

    python benchmarks/predict_bench.py [--n 100000] [--json]

Both tools read the same generated Extended JSON file of mixed-type documents, each in a
fresh process, and answer the same sort and the same filter: once with every type, and once
without Decimal128, which mongomock 4.3 cannot sort (the ratio is taken on that file).
The times are the reading plus the answer, measured inside each process; the wall time of the whole
``labkit predict`` command (interpreter start-up included) is printed as well. Peak memory
at a quarter, half and all of the documents shows whether it grows linearly.
mongomock is a fake: where it disagrees with the model, neither is the server's word.
The same sort under a collation shows what ICU costs where it is asked for (it is not even
imported otherwise).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

SORT = "v:1,_id:1"
FILTER = {"v": {"$gt": 0}}

CHILD = r'''
import json, resource, sys, time
tool, path, task = sys.argv[1], sys.argv[2], sys.argv[3]
start = time.perf_counter()
if tool == "labkit":
    from labkit.model import bson_order, fixtures, reads
    docs = fixtures.read(path)
    loaded = time.perf_counter()
    if task == "sort":
        ids = reads.ids(bson_order.sort(docs, "v:1,_id:1"))
    elif task == "sort-collated":
        ids = reads.ids(bson_order.sort(docs, "v:1,_id:1",
                                        collation={"locale": "en", "strength": 2}))
    else:
        ids = reads.ids(reads.find(docs, {"v": {"$gt": 0}}))
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
                  "peak_mb": peak_kb / 1024, "first": repr(ids[:5]), "count": len(ids)}))
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


def child(tool: str, path: str, task: str) -> dict:
    """Run one tool on one task in a fresh process; its own timings and peak memory."""
    result = subprocess.run([sys.executable, "-c", CHILD, tool, path, task],
                            capture_output=True, text=True, check=False)
    if result.returncode:
        return {"failed": result.stderr.strip().splitlines()[-1]}
    return json.loads(result.stdout)


def cli_wall(path: str, task: str) -> float:
    """Wall time of the whole ``labkit predict`` command, interpreter start-up included."""
    args = ["sort", path, "--sort", SORT] if task == "sort" else [
        "find", path, "--filter", json.dumps(FILTER)]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "labkit", "predict", *args], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def have_mongomock() -> bool:
    """Whether mongomock can be imported here."""
    probe = subprocess.run([sys.executable, "-c", "import mongomock"], capture_output=True,
                           check=False)
    return probe.returncode == 0


def main() -> int:
    """Generate the file, time both tools on sort and filter, print both sides and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="documents (default 100000)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    mock = have_mongomock()
    results: dict = {"n": args.n, "mongomock": mock, "tasks": {}, "memory": {}}
    with tempfile.TemporaryDirectory() as tmp:
        full = os.path.join(tmp, "mixed.jsonl")
        shared = os.path.join(tmp, "mixed-no-decimal.jsonl")
        generate(args.n, full)
        generate(args.n, shared, decimals=False)  # mongomock 4.3 cannot sort Decimal128
        for task in ("sort", "find"):
            row = {"labkit_full": child("labkit", full, task),
                   "labkit": child("labkit", shared, task),
                   "labkit_cli_wall_s": cli_wall(full, task)}
            if mock:
                row["mongomock_full"] = child("mongomock", full, task)
                row["mongomock"] = child("mongomock", shared, task)
                if "failed" not in row["mongomock"]:
                    row["ratio"] = row["mongomock"]["total_s"] / row["labkit"]["total_s"]
            results["tasks"][task] = row
        # ICU is loaded only for a collation: the same sort under {locale: "en", strength: 2}.
        results["collated_sort"] = child("labkit", full, "sort-collated")
        for share in (4, 2, 1):
            part = os.path.join(tmp, f"part{share}.jsonl")
            generate(args.n // share, part)
            results["memory"][args.n // share] = child("labkit", part, "sort")["peak_mb"]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{args.n} mixed-type documents, each tool in a fresh process; times are reading the"
          " file plus answering")
    if not mock:
        print("mongomock is not installed: only labkit is timed "
              "(pip install -e '.[bench]' to compare)")
    for task, row in results["tasks"].items():
        spec = SORT if task == "sort" else json.dumps(FILTER)
        print(f"\n{task} {spec}")
        print("  every type, decimals included:")
        _line("labkit", row["labkit_full"])
        print(f"    (the whole `labkit predict {task}` command: {row['labkit_cli_wall_s']:.2f} s)")
        if mock:
            _line("mongomock", row["mongomock_full"])
            print("  the same file without decimals, which both tools can answer:")
            _line("labkit", row["labkit"])
            _line("mongomock", row["mongomock"])
            if "ratio" in row:
                answers = row["mongomock"]["answer_s"] / row["labkit"]["answer_s"]
                print(f"    mongomock / labkit: {row['ratio']:.1f}x "
                      f"(answers alone: {answers:.1f}x)")
    print("\nsort v:1,_id:1 under the collation {locale: \"en\", strength: 2} (ICU):")
    _line("labkit", results["collated_sort"])
    print("\nlabkit peak memory for the sort: " + ", ".join(
        f"{n} docs {mb:.0f} MB" for n, mb in sorted(results["memory"].items())))
    return 0


def _line(name: str, timing: dict) -> None:
    if "failed" in timing:
        print(f"    {name:<9} failed: {timing['failed']}")
    else:
        print(f"    {name:<9} read {timing['load_s']:6.2f} s  answer {timing['answer_s']:6.2f} s"
              f"  total {timing['total_s']:6.2f} s")


if __name__ == "__main__":
    sys.exit(main())
