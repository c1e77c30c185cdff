"""UUIDv7 versus UUIDv4 as B-tree keys, judged per engine on real loads (claims U2, U4-U7, X7)."""

from __future__ import annotations

import uuid

from .. import btree, objectid, uuids
from ..claims import Observation, claim, not_run, retry_until, subset_of_observed
from ..errors import ServerUnavailable
from .uuidv7 import generator_engine

KINDS = ["uuid4", "uuid7", "int"]
FILL_TOLERANCE = 0.01  # fills are compared at whole-percent precision
ENGINE_NAMES = {"model-half": "model (50/50 splits)", "model-rightmost": "model (rightmost splits)",
                "sqlite": "SQLite", "postgres": "PostgreSQL", "wiredtiger": "WiredTiger",
                "mongodb": "MongoDB"}


def measurement(ctx, engine: str) -> dict:
    """Load uuid4, uuid7 and int keys into ``engine`` once per run; raise if it is missing."""
    def load() -> dict:
        n = ctx.btree_n
        if engine.startswith("model"):
            return btree.measure("model", KINDS, min(n, 200_000), policy=engine.split("-")[1])
        if engine == "postgres":
            return btree.measure("postgres", KINDS, n, server=ctx.postgres())
        if engine == "mongodb":
            return btree.measure("mongodb", ["objectid", "uuid4"], n, server=ctx.mongodb())
        if engine == "wiredtiger":
            btree.wiredtiger_module()
        return btree.measure(engine, KINDS, n)

    return ctx.memo(("btree", engine), load)


def per_engine(ctx, engines, observe, figure: bool = False) -> list[Observation]:
    """One observation per engine, or a not-run one naming why that engine is missing.

    ``observe`` turns ``{key kind: result}`` into the observed values.
    """
    out = []
    for engine in engines:
        try:
            measured = measurement(ctx, engine)
        except ServerUnavailable as exc:
            out.append(not_run(ENGINE_NAMES[engine], f"needs {engine}: {exc.summary()}"))
            continue
        by_kind = {r["keys"]: r for r in measured["results"]}
        out.append(Observation(observe(by_kind), ENGINE_NAMES[engine],
                               measured["engine_version"],
                               [btree.summary(r) for r in measured["results"]],
                               note=f"N = {measured['n']:,} keys per kind",
                               figure=_figure_of(measured) if figure else None))
    return out


def _figure_of(measured: dict):
    from ..plots import btree_summary

    return lambda: btree_summary(measured)


def _fill(result: dict) -> float | None:
    value = result.get("avg_leaf_fill")
    return None if value is None else round(value, 3)


def _fills_within(expected: dict, observed: dict) -> tuple[bool, str]:
    low, high = expected["sequential_fill"]
    fills = [observed["uuid7_fill"], observed["int_fill"]]
    inside = all(low - FILL_TOLERANCE <= f <= high for f in fills)
    return inside, f"uuid7 {fills[0]:.1%}, int {fills[1]:.1%} (range {low:.0%}-{high:.0%})"


@claim("U4", title="Sequential keys append to the rightmost leaf: pages end 90-100% full",
       source="003", topic="btree", judge=_fills_within,
       expected={"sequential_fill": [0.90, 1.00]})
def sequential_fill(ctx) -> list[Observation]:
    """Average leaf fill after loading UUIDv7 and integer keys, per engine."""
    def observe(by_kind):
        return {"uuid7_fill": _fill(by_kind["uuid7"]), "int_fill": _fill(by_kind["int"])}

    return per_engine(ctx, ["model-half", "model-rightmost", "sqlite", "postgres",
                            "wiredtiger"], observe)


def _larger_within(expected: dict, observed: dict) -> tuple[bool, str]:
    low, high = expected["random_larger_by"]
    larger = observed["random_larger_by"]
    return low <= larger <= high, f"random keys' index is {larger:+.1%} the sequential one's"


@claim("U5", title="Random UUIDv4 keys make the index 25-40% larger than sequential keys",
       source="003", topic="btree", judge=_larger_within,
       expected={"random_larger_by": [0.25, 0.40]})
def random_index_size(ctx) -> list[Observation]:
    """Index size (bytes, or leaf pages in the model) for UUIDv4 against sequential keys."""
    def observe(by_kind):
        sequential = by_kind.get("uuid7") or by_kind["objectid"]
        random, base = btree.size(by_kind["uuid4"]), btree.size(sequential)
        return {"random": random, "sequential": base, "sequential_keys": sequential["keys"],
                "unit": "bytes" if by_kind["uuid4"].get("index_bytes") else "leaf pages",
                "random_larger_by": round(random / base - 1, 3)}

    return per_engine(ctx, ["model-half", "model-rightmost", "sqlite", "postgres", "wiredtiger",
                            "mongodb"], observe, figure=True)


def _half_full(expected: dict, observed: dict) -> tuple[bool, str]:
    fill = observed["uuid4_fill"]
    near = abs(fill - expected["uuid4_fill"]) <= 0.05
    return near, f"random keys fill leaves to {fill:.1%}; ln 2 = 69.3%, the claim says 50%"


@claim("U6", title="50/50 page splits leave pages only half full on average", source="003",
       topic="btree", judge=_half_full, expected={"uuid4_fill": 0.5})
def random_fill(ctx) -> list[Observation]:
    """Average leaf fill after loading random UUIDv4 keys, per engine, against 50% and ln 2."""
    def observe(by_kind):
        return {"uuid4_fill": _fill(by_kind["uuid4"])}

    return per_engine(ctx, ["model-half", "model-rightmost", "sqlite", "postgres", "wiredtiger"],
                      observe)


@claim("U2", title="A later UUIDv7 sorts after an earlier one; within one millisecond, IDs "
       "from different nodes are in random order", source="003", topic="btree",
       judge=subset_of_observed,
       expected={"later_ms_sorts_after": True, "one_generator_in_order": True,
                 "two_nodes_same_ms_in_time_order": False})
def v7_order(ctx) -> Observation:
    """Two processes make UUIDv7s at the same moment; compare sort order with creation order."""
    def overlapping(results: list[dict]) -> bool:
        (start_a, end_a), (start_b, end_b) = [(r["clock_ns"][0], r["clock_ns"][-1])
                                              for r in results]
        return start_a < end_b and start_b < end_a

    results, _ = retry_until(  # rarely, the two processes never meet in a millisecond
        lambda: objectid.in_processes(["node1", "node2"], count=20_000, kind="uuid7"),
        overlapping, limit=5)
    made = sorted((ns, u, r["label"]) for r in results
                  for u, ns in zip(r["ids"], r["clock_ns"], strict=True))
    by_bytes = sorted(made, key=lambda item: uuid.UUID(item[1]).bytes)
    ms = {u: uuids.explain(u)["unix_ts_ms"] for _, u, _ in made}
    per_node = all([u for _, u, label in made if label == r["label"]]
                   == [u for _, u, label in by_bytes if label == r["label"]] for r in results)
    later_after = all(ms[a[1]] <= ms[b[1]] for a, b in zip(by_bytes, by_bytes[1:], strict=False))
    shared = [m for m in set(ms.values())
              if len({label for _, u, label in made if ms[u] == m}) == 2]
    in_time_order = all([u for _, u, _ in made if ms[u] == m]
                        == [u for _, u, _ in by_bytes if ms[u] == m] for m in shared)
    engine, version = generator_engine()
    return Observation({"later_ms_sorts_after": later_after, "one_generator_in_order": per_node,
                        "two_nodes_same_ms_in_time_order": in_time_order if shared else None,
                        "milliseconds_shared_by_both_nodes": len(shared)},
                       engine, version,
                       note=f"{len(made)} UUIDv7s from two processes; {len(shared)} "
                            "milliseconds had IDs from both")


@claim("U7", title="PostgreSQL 18 generates UUIDv7 in DDL: id uuid PRIMARY KEY DEFAULT uuidv7()",
       source="003", topic="btree", judge=subset_of_observed,
       expected={"versions": [7], "in_insert_order": True})
def postgres_uuidv7(ctx) -> Observation:
    """Create the document's table on PostgreSQL, insert rows, read the generated IDs back."""
    try:
        server = ctx.postgres()
    except ServerUnavailable as exc:
        return not_run("PostgreSQL", f"needs postgres: {exc.summary()}")
    major = int(server.version.split(".")[0])
    if major < 18:
        return not_run("PostgreSQL", f"PostgreSQL {server.version} has no uuidv7(); it came in "
                       "18 (set LABKIT_POSTGRES_DSN to a PostgreSQL 18 server, or use Docker)")
    dsn = server.fresh_database("u7")
    try:
        with server.connect(dsn) as conn:
            conn.execute("CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT uuidv7(), "
                         "n int NOT NULL, created_at timestamptz NOT NULL DEFAULT now())")
            for n in range(1, 201):
                conn.execute("INSERT INTO orders (n) VALUES (%s)", (n,))
            ids = [row[0] for row in conn.execute("SELECT id FROM orders ORDER BY n")]
    finally:
        server.drop_created()
    return Observation({"versions": sorted({u.version for u in ids}),
                        "in_insert_order": ids == sorted(ids, key=lambda u: u.bytes)},
                       "PostgreSQL", server.version, [uuids.explain(u) for u in ids[:3]])


def _split_paths(by_kind: dict, sequential: str) -> dict:
    seq, rnd = by_kind[sequential], by_kind["uuid4"]
    eviction = "cache: leaf pages split during eviction"
    in_memory = "cache: in-memory page splits"
    return {"random_index_larger": btree.size(rnd) > btree.size(seq),
            "sequential_in_memory_splits_more": (seq[in_memory] or 0) > (rnd[in_memory] or 0),
            "random_eviction_splits_more": (rnd[eviction] or 0) > (seq[eviction] or 0),
            f"{sequential}_splits": {"in_memory": seq[in_memory], "eviction": seq[eviction]},
            "uuid4_splits": {"in_memory": rnd[in_memory], "eviction": rnd[eviction]}}


@claim("X7", title="WiredTiger: append-only keys take the in-memory split path; random keys "
       "split pages during eviction all over the tree", source="manual", topic="btree",
       judge=subset_of_observed,
       expected={"random_index_larger": True, "sequential_in_memory_splits_more": True,
                 "random_eviction_splits_more": True})
def wiredtiger_split_paths(ctx) -> list[Observation]:
    """Split counters for sequential and random keys: embedded WiredTiger and mongod's _id index."""
    def observe(by_kind):
        sequential = "uuid7" if "uuid7" in by_kind else "objectid"
        return _split_paths(by_kind, sequential)

    return per_engine(ctx, ["wiredtiger", "mongodb"], observe)
