"""Lesson 06, UUIDv7 against UUIDv4 as B-tree keys: the UUIDv7 layout and order on a real
generator, then the page-split claims judged per engine on real loads (claims U1-U7, X7)."""

from __future__ import annotations

import itertools
import math
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from labkit import _defaults
from labkit.claims.claim import (
    SURVEY,
    BTreeContext,
    Context,
    Figure,
    Observation,
    Unobservable,
    not_run,
    require,
    retry_until,
    subset_of_observed,
)
from labkit.claims.registry import claim
from labkit.engines import btree, processes
from labkit.engines.btree_engine import LoadResult, Measurement, outgrows_from
from labkit.engines.btree_mongodb import MongoLoad
from labkit.engines.btree_postgres import PostgresIO
from labkit.engines.btree_sqlite import SQLiteIO
from labkit.errors import ServerUnavailable
from labkit.i18n import N_, Message, Text, _, joined, number
from labkit.model import uuids
from labkit.names import engine_name

# The run's context as the B-tree claims use it: its loads are ``Measurement``s.
Loads = BTreeContext[Measurement]
# A key kind's load by key kind, and an engine's observation made from them.
ByKind = dict[str, LoadResult]

SAMPLES = 1000
FIELDS = (("unix_ts_ms", 48), ("ver", 4), ("rand_a", 12), ("var", 2), ("rand_b", 62))


KEYS_PER_KIND = N_("N = {n:,} keys per kind")


def generator_engine() -> tuple[str, str]:
    """The UUIDv7 generator these claims observe and its version."""
    import uuid_utils

    return "uuid_utils", str(uuid_utils.__version__)


def layout_rows(u: uuid.UUID) -> list[dict[str, Any]]:
    """The RFC 9562 fields of one UUIDv7, most significant first, with their bits."""
    bits = f"{u.int:0128b}"
    rows, start = [], 0
    for name, width in FIELDS:
        chunk = bits[start : start + width]
        rows.append({"field": name, "bits": width, "first_bit": start,
                     "value": int(chunk, 2), "binary": chunk if width <= 12 else f"{chunk[:12]}…"})
        start += width
    return rows





@claim("U1", title="UUIDv7: 48-bit Unix ms, version 0111, 12-bit rand_a, variant 10, 62-bit rand_b",
       source="003", topic="btree",
       expected={"version_bits": ["0111"], "variant_bits": ["10"],
                 "unix_ts_ms_within_clock": True})
def v7_layout(ctx: Context) -> Observation:
    """Generate UUIDv7s and read their version, variant and timestamp bits."""
    before = time.time_ns() // 1_000_000
    samples = [uuids.uuid7() for _ in range(SAMPLES)]
    after = time.time_ns() // 1_000_000
    versions = sorted({f"{(u.int >> 76) & 0xF:04b}" for u in samples})
    variants = sorted({uuids.variant_bits(u) for u in samples})
    within = all(before <= u.int >> 80 <= after for u in samples)
    engine, version = generator_engine()
    return Observation({"version_bits": versions, "variant_bits": variants,
                        "unix_ts_ms_within_clock": within},
                       engine, version, layout_rows(samples[0]),
                       note=Message(N_("{samples:,} UUIDs generated between {before} and {after} "
                                       "ms since 1970 (from {at})"), samples=SAMPLES,
                                    before=str(before), after=str(after),
                                    at=uuids.ms_to_text(before)),
                       figure=Figure("bit_layout", (layout_rows(samples[0]),
                                                     f"UUIDv7 {samples[0]}")))


@claim("U3", title="A UUIDv7's creation time can be read back from it", source="003",
       topic="btree", expected={"chosen": "2023-11-14T22:13:20.123Z", "now_within_clock": True})
def v7_time_read_back(ctx: Context) -> Observation:
    """Stamp a UUIDv7 with a chosen time and with now; read both times back from the bits."""
    chosen = uuids.uuid7_at(1_700_000_000_123_456_789)
    before = time.time_ns() // 1_000_000
    now = uuids.uuid7()
    after = time.time_ns() // 1_000_000
    now_ms = uuids.explain(now)["unix_ts_ms"]
    engine, version = generator_engine()
    return Observation({"chosen": uuids.explain(chosen)["datetime"],
                        "now_within_clock": before <= now_ms <= after},
                       engine, version,
                       [uuids.explain(chosen), uuids.explain(now)],
                       note=Message(N_("now: clock window {before}..{after} ms since 1970 (from "
                                       "{at}), read back {now_ms} ms"), before=str(before),
                                    after=str(after), now_ms=str(now_ms),
                                    at=uuids.ms_to_text(before)))



# Page splits, judged per engine ---------------------------------------------------------

# Every engine loads the same four kinds, once per run (the run's context caches the loads):
# the lesson's tables and the verdicts quote the same numbers.
KINDS = ["uuid4", "uuid7", "objectid", "int"]
FILL_TOLERANCE = 0.01  # one point below the claim's range still counts (its figures are whole)


@dataclass(frozen=True)
class Row:
    """Whose verdict a row of the B-tree claims is: an engine of ``btree.ENGINES`` (the model
    once per split policy) and the row's label, English where files keep it (results.json)
    and shown translated."""

    engine: str
    label: Text
    policy: str = "half"


ROWS = {"model-half": Row("model", Message(N_("{model} (50/50 splits)"),
                                           model=engine_name("model")), "half"),
        "model-rightmost": Row("model", Message(N_("{model} (rightmost splits)"),
                                                model=engine_name("model")), "rightmost"),
        **{key: Row(key, btree.ENGINES[key].name)
           for key in ("sqlite", "postgres", "wiredtiger", "mongodb")}}


def measurement(ctx: Loads, row: str) -> Measurement:
    """The run's load of every key kind into ``row``'s engine (made on first use, then
    reused)."""
    return ctx.btree_load(ROWS[row].engine, KINDS, policy=ROWS[row].policy)


def per_engine(ctx: Loads, rows: Sequence[str],
               observe: Callable[[ByKind, Text], dict[str, Any]],
               figure: bool = False) -> list[Observation]:
    """One observation per row (``ROWS``): observed, not run (why the engine is missing), or
    an error.

    ``observe`` turns ``{key kind: result}`` into the observed values. Each engine runs inside
    the run's guard (``ctx.guard``): whatever goes wrong on one engine (a refused ``fsync``, a
    server that stops) costs that engine's row only.
    """
    def judged(row: str, measured: Measurement, label: Text) -> Observation:
        observed = observe(measured.by_kind(), label)
        note = (Message(N_("N = {n:,} keys per kind; {cache}"), n=measured.n,
                        cache=measured.cache) if measured.cache else
                Message(KEYS_PER_KIND, n=measured.n))
        return Observation(observed, label, measured.engine_version,
                           [r.summary() for r in measured.results], note=note,
                           figure=Figure("btree_summary", (measured,))
                           if figure else None, engine_key=ROWS[row].engine)

    def observed(row: str) -> Observation:
        engine = ROWS[row].engine
        measured = ctx.guard(ROWS[row].label, lambda: measurement(ctx, row), kind=engine,
                             key=engine)
        if isinstance(measured, Observation):  # the engine could not be had, or failed
            return measured
        # Named once the loads say who answered: FerretDB's rows are FerretDB's, judged or not.
        label = measured.product or ROWS[row].label
        return ctx.guard(label, lambda: judged(row, measured, label),
                         version=measured.engine_version, kind=engine, key=engine)

    return [observed(row) for row in rows]


def _fill(result: LoadResult) -> float | None:
    value = result.avg_leaf_fill
    return None if value is None else round(value, 3)


def _fills_within(expected: dict[str, Any], observed: dict[str, Any]) -> tuple[bool, Text]:
    low, high = expected["sequential_fill"]
    fills = [require(observed["uuid7_fill"], N_("an average leaf fill")), observed["int_fill"]]
    inside = all(low - FILL_TOLERANCE <= f <= high for f in fills)
    return inside, Message(N_("uuid7 {uuid7:.1%}, int {int:.1%} (range {low:.0%}-{high:.0%}, "
                              "less one point of tolerance: from {floor:.0%})"),
                           uuid7=fills[0], int=fills[1], low=low, high=high,
                           floor=low - FILL_TOLERANCE)


@claim("U4", title="Sequential keys append to the rightmost leaf: pages end 90-100% full",
       source="003", topic="btree", kind=SURVEY, judge=_fills_within,
       expected={"sequential_fill": [0.90, 1.00]})
def sequential_fill(ctx: Loads) -> list[Observation]:
    """Average leaf fill after loading UUIDv7 and integer keys, per engine."""
    def observe(by_kind: ByKind, engine: Text) -> dict[str, Any]:
        return {"uuid7_fill": _fill(by_kind["uuid7"]), "int_fill": _fill(by_kind["int"])}

    return per_engine(ctx, ["model-half", "model-rightmost", "sqlite", "postgres",
                            "wiredtiger"], observe)


def _u5_part(expected: dict[str, Any], observed: dict[str, Any]) -> tuple[bool, Text]:
    """One of U5's three parts on one engine, against its own expectation: size within the
    stated range; random keys writing, and reading into the cache, more than sequential ones
    (by how much is the finding, shown in the note)."""
    part = observed["part"]
    if part == "size":
        low, high = expected["random_larger_by"]
        larger = observed["random_larger_by"]
        return (low <= larger <= high,
                Message(N_("the UUIDv4 index is {ratio:.2f} times the UUIDv7 one's ({unit})"),
                        ratio=1 + larger, unit=Message(observed["unit"])))
    if part == "write amplification":
        return (observed["random_writes_more"] == expected["random_writes_more"],
                Message(N_("UUIDv4 wrote {ratio:.2f} times the bytes UUIDv7 wrote ({b4:,.0f} "
                           "against {b7:,.0f} bytes per key)"),
                        ratio=observed["uuid4_writes_vs_uuid7"],
                        b4=observed["uuid4_bytes_per_insert"],
                        b7=observed["uuid7_bytes_per_insert"]))
    return (observed["random_reads_more"] == expected["random_reads_more"],
            Message(N_("UUIDv4 read {r4:,} pages into the cache, UUIDv7 {r7:,}; the UUIDv4 index "
                       "is {ratio:.2f} times the cache"),
                    r4=observed["uuid4_cache_reads"], r7=observed["uuid7_cache_reads"],
                    ratio=observed["uuid4_index_to_cache"]))


def _never_outgrew(rnd: LoadResult, index: int, cache: int) -> Message:
    """Why cache churn could not show: the UUIDv4 index (``index`` bytes) stayed inside the
    cache (``cache`` bytes). With its bytes per key, the N from which it would outgrow this
    cache; on mongod (``smallest_cache_bytes``, the smallest cache it accepts, which at the
    defaults holds the index many times over), what the server shows instead and the N from
    which the index outgrows that smallest cache."""
    values: dict[str, Any] = {"index": index, "cache": cache,
                              "per_key": round(index / rnd.n, 1),
                              "here": outgrows_from(rnd, cache)}
    smallest = rnd.smallest_cache_bytes if isinstance(rnd, MongoLoad) else None
    if not smallest:
        return Message(N_("the UUIDv4 index ({index:,} bytes, {per_key:,.1f} bytes per key) stayed "
                          "smaller than the cache ({cache:,} bytes): it never outgrew memory "
                          "here (from N = {here:,} keys it would, or with a smaller cache: "
                          "labkit btree --cache-mb)"),
                       **values)
    values.update(smallest=smallest, needed=outgrows_from(rnd, smallest))
    return Message("{reason} ({sooner})", reason=_mongod_never_outgrew(values, cache, smallest),
                   sooner=Message(EVICTS_SOONER))


# WiredTiger's eviction starts before its cache is full: eviction_target, 80 (per cent) by
# default (WiredTiger's dist/api_data.py); mongod keeps the default.
EVICTS_SOONER = N_("an upper bound: the collection's own table shares the cache, and "
                   "WiredTiger starts evicting pages once the cache is 80% full, its "
                   "eviction_target, so pages can be read back at a smaller N")


def _mongod_never_outgrew(values: dict[str, Any], cache: int, smallest: int) -> Message:
    """What a mongod shows where its cache held the UUIDv4 index, and from which N it would
    not: mongod's smallest cache, and this one where it is larger."""
    if cache <= smallest:
        return Message(N_("the UUIDv4 index ({index:,} bytes, {per_key:,.1f} bytes per key) stayed "
                          "smaller than the cache ({cache:,} bytes): it never outgrew memory "
                          "here, so a mongod at the defaults shows the index's size, the bytes "
                          "written and the split counters, not cache churn. At {per_key:,.1f} "
                          "bytes per key the index outgrows mongod's smallest cache, 0.25 GB "
                          "({smallest:,} bytes), from N = {needed:,} keys (LABKIT_BTREE_N)"),
                       **values)
    return Message(N_("the UUIDv4 index ({index:,} bytes, {per_key:,.1f} bytes per key) stayed "
                      "smaller than the cache ({cache:,} bytes): it never outgrew memory here, "
                      "so this mongod shows the index's size, the bytes written and the split "
                      "counters, not cache churn. At {per_key:,.1f} bytes per key the index "
                      "outgrows this cache from N = {here:,} keys (LABKIT_BTREE_N), and "
                      "mongod's smallest, 0.25 GB ({smallest:,} bytes), from N = {needed:,}"),
                   **values)


U5_PARTS = ("size", "write amplification", "cache churn")
PART_TEXT = {"size": N_("size"), "write amplification": N_("write amplification"),
             "cache churn": N_("cache churn")}


def _u5_size(by_kind: ByKind) -> dict[str, Any]:
    random, base = by_kind["uuid4"].size(), by_kind["uuid7"].size()
    return {"part": "size", "uuid4": random, "uuid7": base,
            "unit": by_kind["uuid4"].size_unit(),
            "random_larger_by": round(random / base - 1, 3)}


def _why(text: Text) -> Message:
    """A reason a result carries, as a message (kept as it is where it already is one)."""
    return text if isinstance(text, Message) else Message(text)


def _unless_said(result: LoadResult, *reasons: Text | None) -> None:
    """Not run, with the result's own reason, where it says why a figure is missing or cannot
    be trusted (a refused command, other clients at work on a shared server)."""
    for why in reasons:
        if why:
            raise Unobservable(Message(N_("{kind} keys: {why}"), kind=result.keys,
                                       why=_why(why)))


def _u5_writes(by_kind: ByKind, engine: Text) -> dict[str, Any]:
    for kind in ("uuid4", "uuid7"):
        why = by_kind[kind].why
        _unless_said(by_kind[kind], why.write_bytes_why, why.write_disturbed)
    rnd, seq = (int(require(by_kind[k].write_bytes, N_("bytes written"), engine))
                for k in ("uuid4", "uuid7"))
    n = by_kind["uuid4"].n
    return {"part": "write amplification", "uuid4_write_bytes": rnd, "uuid7_write_bytes": seq,
            "uuid4_bytes_per_insert": round(rnd / n, 1),
            "uuid7_bytes_per_insert": round(seq / n, 1),
            "uuid4_writes_vs_uuid7": round(rnd / seq, 3), "random_writes_more": rnd > seq,
            "checkpoint_every": by_kind["uuid4"].checkpoint_every}


def _u5_churn(by_kind: ByKind, engine: Text) -> dict[str, Any]:
    rnd, seq = by_kind["uuid4"], by_kind["uuid7"]
    rnd_reads, seq_reads = rnd.cache_reads, seq.cache_reads
    if rnd_reads is None:
        why = rnd.why.cache_reads_why
        raise Unobservable(_why(why) if why else
                           Message(N_("{engine} does not count the pages it reads into its "
                                      "cache"), engine=engine))
    for result in (rnd, seq):
        _unless_said(result, result.why.cache_reads_disturbed)
    ratio = float(require(rnd.index_to_cache, N_("the index's size against the cache's"),
                          engine))
    if ratio <= 1:
        # A ratio is there only where both sizes are.
        raise Unobservable(_never_outgrew(rnd, rnd.index_bytes or 0, rnd.cache_bytes or 0))
    seq_reads = int(require(seq_reads, N_("pages read into the cache"), engine))
    return {"part": "cache churn", "uuid4_cache_reads": rnd_reads,
            "uuid7_cache_reads": seq_reads, "uuid4_index_to_cache": ratio,
            "cache_bytes": rnd.cache_bytes, "random_reads_more": rnd_reads > seq_reads}


@claim("U5", title="Random UUIDv4 keys force page splits: write amplification, cache churn once "
       "the index outgrows memory, and an index 25-40% larger than with sequential keys",
       source="003", topic="btree", kind=SURVEY, judge=_u5_part,
       expected={"random_larger_by": [0.25, 0.40], "random_writes_more": True,
                 "random_reads_more": True})
def random_index_size(ctx: Loads) -> list[Observation]:
    """U5 in three parts per engine, UUIDv4 against UUIDv7 (same width: the claim is about
    order): index size; bytes written with checkpoints at one interval; pages read into a
    cache smaller than the index. ObjectId and integers are in the evidence beside them."""
    observers: dict[str, Callable[[ByKind, Text], dict[str, Any]]] = {
        "size": lambda by_kind, engine: _u5_size(by_kind),
        "write amplification": _u5_writes, "cache churn": _u5_churn}
    rows = []
    for part in U5_PARTS:
        models = ["model-half", "model-rightmost"] if part == "size" else []
        for row in per_engine(ctx, [*models, "sqlite", "postgres", "wiredtiger", "mongodb"],
                              observers[part], figure=part == "size"):
            row.aspect = Message(PART_TEXT[part])
            rows.append(row)
    return rows


def _half_full(expected: dict[str, Any], observed: dict[str, Any]) -> tuple[bool, Text]:
    fill = require(observed["uuid4_fill"], N_("an average leaf fill"))
    near = abs(fill - expected["uuid4_fill"]) <= 0.05
    return near, Message(N_("random keys fill leaves to {fill:.1%}; ln 2 = {ln2:.1%}, the claim "
                            "says {claimed:.0%}"),
                         fill=fill, ln2=math.log(2), claimed=expected["uuid4_fill"])


@claim("U6", title="50/50 page splits leave pages only half full on average", source="003",
       topic="btree", kind=SURVEY, judge=_half_full, expected={"uuid4_fill": 0.5})
def random_fill(ctx: Loads) -> list[Observation]:
    """Average leaf fill after loading random UUIDv4 keys, per engine, against 50% and ln 2."""
    def observe(by_kind: ByKind, engine: Text) -> dict[str, Any]:
        return {"uuid4_fill": _fill(by_kind["uuid4"])}

    return per_engine(ctx, ["model-half", "model-rightmost", "sqlite", "postgres", "wiredtiger"],
                      observe)


MIN_SHARED_MS = 3  # fewer shared milliseconds than this cannot show an order is random
# U2's two processes make their IDs paced over this long, not in one burst each: a burst lasts
# some 20 ms, and beside two busy processes on two cores the bursts met in 0 or 1 milliseconds
# (benchmarks/u2_busy_bench.py prints both ways).
U2_SPREAD_MS = 400


def _judge_v7_order(expected: dict[str, Any], observed: dict[str, Any]) -> tuple[bool, Text]:
    """As ``subset_of_observed``, once the two processes met in enough milliseconds to say
    anything about the order of IDs from two nodes; before that, there is nothing to judge."""
    shared = observed.get("milliseconds_shared_by_both_nodes") or 0
    if shared < MIN_SHARED_MS:
        raise Unobservable(Message(N_("the two processes made IDs in the same millisecond "
                                      "{shared} time(s), fewer than the {needed} needed to judge "
                                      "their order"), shared=shared, needed=MIN_SHARED_MS))
    return subset_of_observed(expected, observed)


@claim("U2", title="A later UUIDv7 sorts after an earlier one; within one millisecond, IDs "
       "from different nodes are in random order", source="003", topic="btree",
       judge=_judge_v7_order,
       expected={"later_ms_sorts_after": True, "one_generator_in_order": True,
                 "two_nodes_same_ms_in_time_order": False})
def v7_order(ctx: Context) -> Observation:
    """Two processes make UUIDv7s at the same moment; compare sort order with creation order."""
    def shared_ms(results: list[dict[str, Any]]) -> set[int]:
        """The milliseconds in which both processes made IDs (UUIDv7's top 48 bits)."""
        first, second = ({int(u.replace("-", "")[:12], 16) for u in r["ids"]} for r in results)
        return first & second

    results, _ = retry_until(  # now and then, the two processes barely meet in a millisecond
        lambda: processes.in_processes(["node1", "node2"], count=20_000, kind="uuid7",
                                       spread_ms=U2_SPREAD_MS),
        lambda found: len(shared_ms(found)) >= MIN_SHARED_MS, limit=5)
    made = sorted((ns, u, r["label"]) for r in results
                  for u, ns in zip(r["ids"], r["clock_ns"], strict=True))
    by_bytes = sorted(made, key=lambda item: uuid.UUID(item[1]).bytes)
    ms = {u: uuids.explain(u)["unix_ts_ms"] for _, u, _ in made}
    per_node = all([u for _, u, label in made if label == r["label"]]
                   == [u for _, u, label in by_bytes if label == r["label"]] for r in results)
    later_after = all(ms[a[1]] <= ms[b[1]] for a, b in itertools.pairwise(by_bytes))
    shared = shared_ms(results)
    in_time_order = all([u for _, u, _ in made if ms[u] == m]
                        == [u for _, u, _ in by_bytes if ms[u] == m] for m in shared)
    engine, version = generator_engine()
    return Observation({"later_ms_sorts_after": later_after, "one_generator_in_order": per_node,
                        "two_nodes_same_ms_in_time_order": in_time_order if shared else None,
                        "milliseconds_shared_by_both_nodes": len(shared)},
                       engine, version,
                       note=Message(N_("{made:,} UUIDv7s from two processes; {shared:,} "
                                       "milliseconds had IDs from both"), made=len(made),
                                    shared=len(shared)))


@claim("U7", title="PostgreSQL 18 generates UUIDv7 in DDL: id uuid PRIMARY KEY DEFAULT uuidv7()",
       source="003", topic="btree", judge=subset_of_observed, needs=("postgres",),
       expected={"versions": [7], "in_insert_order": True})
def postgres_uuidv7(ctx: Context) -> Observation:
    """Create the document's table on PostgreSQL, insert rows, read the generated IDs back."""
    server = ctx.postgres()
    major = int(server.version.split(".")[0])
    if major < 18:
        return not_run(server.engine, Message(N_(
            "PostgreSQL {version} has no uuidv7(); it came in 18 (set LABKIT_POSTGRES_DSN to a "
            "PostgreSQL 18 server, or use Docker)"), version=server.version), key=server.key)
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
                       server.engine, server.version, [uuids.explain(u) for u in ids[:3]],
                       engine_key=server.key)


EVICTION, IN_MEMORY = "cache: leaf pages split during eviction", "cache: in-memory page splits"


def _split_paths(by_kind: ByKind, engine: Text) -> dict[str, Any]:
    seq, rnd = by_kind["uuid7"], by_kind["uuid4"]
    for result in (seq, rnd):
        _unless_said(result, result.why.counters_why)
    counts = {name: {path: require(r.counters.get(counter),
                                   Message(N_("the counter '{counter}'"), counter=counter),
                                   engine)
                     for path, counter in (("in_memory", IN_MEMORY), ("eviction", EVICTION))}
              for name, r in (("uuid7", seq), ("uuid4", rnd))}
    return {"random_index_larger": rnd.size() > seq.size(),
            "sequential_in_memory_splits_more":
                counts["uuid7"]["in_memory"] > counts["uuid4"]["in_memory"],
            "random_eviction_splits_more":
                counts["uuid4"]["eviction"] > counts["uuid7"]["eviction"],
            "uuid7_splits": counts["uuid7"], "uuid4_splits": counts["uuid4"]}


@claim("X7", title="WiredTiger: append-only keys take the in-memory split path; random keys "
       "split pages during eviction all over the tree", source="manual", topic="btree",
       kind=SURVEY, judge=subset_of_observed,
       expected={"random_index_larger": True, "sequential_in_memory_splits_more": True,
                 "random_eviction_splits_more": True})
def wiredtiger_split_paths(ctx: Loads) -> list[Observation]:
    """Split counters for UUIDv7 and UUIDv4 keys: embedded WiredTiger and mongod's _id index."""
    return per_engine(ctx, ["wiredtiger", "mongodb"], _split_paths)


GROWTH_ENGINES = ("postgres", "wiredtiger", "sqlite")  # the first that runs shows U5 grow
GROWTH_STEPS = 4  # loads at N/8, N/4, N/2 and N


def growth(ctx: Loads, kinds: tuple[str, ...] = ("uuid4", "uuid7")) -> dict[str, Any]:
    """U5 as the index grows, on the first engine of ``GROWTH_ENGINES`` that runs: loads at
    N/8 to N keys with a checkpoint every ``_defaults.CHECKPOINT_EVERY`` keys and with none
    during the load, through the run's cache (the largest load with checkpoints is the one
    U5 is judged on). ``{"key", "engine", "engine_version", "cache", "writes": {setting:
    {kind: [(n, bytes written)]}}, "cache_points": [{keys, n, index_to_cache, cache_reads}]}``
    (bytes written None where the engine did not count them); ``{"not_run": why}`` when no
    engine runs."""
    ns = sorted({max(ctx.btree_n >> i, 1) for i in range(GROWTH_STEPS)})
    why = []
    for engine in GROWTH_ENGINES:
        try:
            loads = {setting: [ctx.btree_load(engine, list(kinds), n, checkpoint_every=every)
                               for n in ns]
                     for setting, every in ((N_("with checkpoints"), _defaults.CHECKPOINT_EVERY),
                                            (N_("no checkpoint"), None))}
        except ServerUnavailable as exc:
            why.append(Message("{engine}: {why}", engine=engine_name(engine), why=exc.summary()))
            continue
        last = loads[N_("with checkpoints")][-1]
        return {"key": engine, "engine": engine_name(engine),
                "engine_version": last.engine_version,
                "cache": last.cache, "checkpoint_every": _defaults.CHECKPOINT_EVERY,
                "writes": {setting: {k: [(m.n, r.write_bytes) for m in runs
                                         for r in m.results if r.keys == k]
                                     for k in kinds}
                           for setting, runs in loads.items()},
                "cache_points": [{"keys": r.keys, "n": r.n, "index_bytes": r.index_bytes,
                                  "cache_bytes": r.cache_bytes,
                                  "index_to_cache": r.index_to_cache,
                                  "cache_reads": r.cache_reads}
                                 for m in loads[N_("with checkpoints")] for r in m.results]}
    return {"not_run": joined("; ", why)}


def growth_rows(grown: dict[str, Any]) -> list[dict[str, str]]:
    """``growth``'s loads as table rows: N, key kind, bytes written per key with and without
    checkpoints, index and cache size, pages read into the cache."""
    cache = {(p["keys"], p["n"]): p for p in grown["cache_points"]}
    rows = []
    for kind, points in grown["writes"][N_("with checkpoints")].items():
        without = dict(grown["writes"][N_("no checkpoint")][kind])
        for n, written in points:
            point = cache[(kind, n)]
            rows.append({"N": number(n), _("keys"): kind,
                         _("bytes/key, with checkpoints"): _per_key(written, n),
                         _("bytes/key, no checkpoint"): _per_key(without[n], n),
                         _("index bytes"): _shown_count(point["index_bytes"]),
                         _("cache bytes"): _shown_count(point["cache_bytes"]),
                         _("pages read into the cache"): _shown_count(point["cache_reads"])})
    return rows


def _shown_count(value: int | None) -> str:
    return "-" if value is None else number(value)


def _per_key(written: int | None, n: int) -> str:
    return "-" if written is None else number(written / n, 1)


# What made random keys write more: read from the largest loads' own counters --------------

# Below this ratio of bytes written, random keys cost "little more" (no cause is named).
LITTLE_MORE = 1.25

W_HEAD = N_("{engine} {version}, N = {n:,} keys per kind: UUIDv4 wrote {ratio:.2f} times the "
            "bytes UUIDv7 wrote with a checkpoint every {every:,} keys, and {bare:.2f} times "
            "with none during the load.")
W_HEAD_NO_CHECKPOINT = N_(
    "{engine} {version}, N = {n:,} keys per kind: UUIDv4 wrote {ratio:.2f} times the bytes "
    "UUIDv7 wrote. No checkpoint came during these loads (N is not more than the interval, "
    "{every:,} keys), so checkpoints made none of the difference.")
W_SHARE = N_("The checkpoints during the load account for {share:.0%} of what UUIDv4 wrote "
             "beyond UUIDv7.")
W_REST = N_("Most of it came without any checkpoint.")
W_CAUSES = {
    "little": N_("At this N random keys cost little more: the index is still small, and the "
                 "two kinds wrote about as many pages (the counters say how many)."),
    "checkpoints": N_("So most of the difference is the checkpoints': after each one, the first "
                      "change to a page writes the whole page again, and random keys change "
                      "pages all over the index where sequential keys keep changing the one at "
                      "its right edge."),
    "outgrew": N_("The UUIDv4 index outgrew the cache, so changed pages were evicted, written "
                  "out and read back, again and again, where sequential keys need only the "
                  "right edge in the cache."),
    "dirty": N_("Pages were evicted, written out and read back although the index is smaller "
                "than the cache: WiredTiger evicts changed pages long before its cache is full "
                "(once they take 5% of it, its eviction_dirty_target), and random keys change "
                "pages all over the index."),
    "shared": N_("Pages were evicted, written out and read back although the index alone is "
                 "smaller than the cache, which holds the table's own pages too."),
    "commits": N_("SQLite writes every page a transaction changed into its log, whole, at each "
                  "commit, and each commit of random keys changes pages all over the index."),
    "size": N_("No page had to be read back into the cache: the UUIDv4 index is {size:.2f} "
               "times the UUIDv7 one, so it has more pages, and the counters say how often "
               "they were written."),
}
# The causes that name what happened without checkpoints (after W_REST where some came).
WITHOUT_CHECKPOINTS = ("outgrew", "dirty", "shared", "commits", "size")
W_EVIDENCE = {
    "postgres": N_("PostgreSQL's counters, UUIDv4 against UUIDv7: {fpi4:,} full-page images "
                   "against {fpi7:,}, {pages4:,} data pages written against {pages7:,}, "
                   "{reads4:,} pages read into the cache against {reads7:,}; the UUIDv4 index "
                   "({index:,} bytes) is {to_cache:.0%} of the cache's size ({cache:,} "
                   "bytes)."),
    "wiredtiger": N_("WiredTiger's counters, UUIDv4 against UUIDv7: {written4:,} pages written "
                     "from the cache against {written7:,}, {reads4:,} read into it against "
                     "{reads7:,}; the UUIDv4 index ({index:,} bytes) is {to_cache:.0%} of the "
                     "cache's size ({cache:,} bytes)."),
    "sqlite": N_("SQLite's counters, UUIDv4 against UUIDv7: {frames4:,} pages written to the "
                 "log against {frames7:,} (it does not count its cache reads); the UUIDv4 index "
                 "({index:,} bytes) is {to_cache:.0%} of the cache's size ({cache:,} bytes)."),
}
NOT_COUNTED = N_("{engine} did not count the bytes it wrote: {why}")
NO_WRITES = N_("no engine here measured the bytes it wrote ({why}), so this cannot be judged")


@dataclass(frozen=True)
class WriteReading:
    """What ``growth``'s largest loads say about the bytes UUIDv4 wrote beyond UUIDv7: the
    ratio with a checkpoint every ``every`` keys (``ratio``, the one U5 and 06.write_volume
    judge) and with none during the load (``bare``), on ``engine`` (its name and version), the
    share of the extra bytes the
    checkpoints account for (None: none came during the loads, or there were no extra bytes),
    the cause the counters point to (a key of ``W_CAUSES``), and in words (``Message``s, shown
    in the learner's language): ``gist``, the ratios and the cause, and ``text``, the same with
    the checkpoints' share and the engine's own counters."""

    engine: str
    ratio: float
    bare: float
    share: float | None
    cause: str
    gist: Text
    text: Text


def _written(result: LoadResult, engine: str) -> int:
    if result.write_bytes is None:
        raise Unobservable(Message(NOT_COUNTED, engine=engine,
                                   why=_why(result.why.write_bytes_why or N_("not counted"))))
    return result.write_bytes


def _evidence(key: str, rnd: LoadResult, seq: LoadResult) -> Message | None:
    """The engine's own counters of what each kind's load wrote and read, or None where the
    engine is not one ``W_EVIDENCE`` knows or a counter is missing."""
    values: dict[str, Any] = {"index": rnd.index_bytes, "cache": rnd.cache_bytes,
                              "to_cache": rnd.index_to_cache,
                              "reads4": rnd.cache_reads, "reads7": seq.cache_reads}
    if key == "postgres" and isinstance(rnd.io, PostgresIO) and isinstance(seq.io, PostgresIO):
        values.update(fpi4=rnd.io.wal_fpi, fpi7=seq.io.wal_fpi,
                      pages4=rnd.io.data_pages_written, pages7=seq.io.data_pages_written)
    elif key == "wiredtiger":
        values.update(written4=rnd.counters.get(WRITTEN_FROM_CACHE),
                      written7=seq.counters.get(WRITTEN_FROM_CACHE))
    elif key == "sqlite" and isinstance(rnd.io, SQLiteIO) and isinstance(seq.io, SQLiteIO):
        values.update(frames4=rnd.io.wal_frames, frames7=seq.io.wal_frames)
        del values["reads4"], values["reads7"]
    else:
        return None
    if any(value is None for value in values.values()):
        return None
    return Message(W_EVIDENCE[key], **values)


WRITTEN_FROM_CACHE = "cache: pages written from cache"


def _cause(key: str, ratio: float, share: float | None, rnd: LoadResult,
           seq: LoadResult) -> str:
    """Which of ``W_CAUSES`` the counters point to: little extra; the checkpoints, where they
    account for half of it or more; else pages read back into the cache (eviction: the index
    outgrew the cache, or WiredTiger's early eviction of changed pages, or a cache the table
    shares), SQLite's commits, or the larger index alone."""
    if ratio < LITTLE_MORE:
        return "little"
    if share is not None and share >= 0.5:
        return "checkpoints"
    if key == "sqlite":
        return "commits"
    reads4, reads7 = rnd.cache_reads, seq.cache_reads
    if reads4 is not None and reads7 is not None and reads4 > 2 * reads7 + 10:
        if (rnd.index_to_cache or 0) > 1:
            return "outgrew"
        return "dirty" if key == "wiredtiger" else "shared"
    return "size"


def write_reading(ctx: Loads, grown: dict[str, Any]) -> WriteReading:
    """What made UUIDv4 write more than UUIDv7 in ``growth``'s largest loads, named from what
    the engine counted: the checkpoints' share (the load with a checkpoint every
    ``CHECKPOINT_EVERY`` keys against the one with none during it), pages read back into a
    cache (eviction), SQLite's commits, or the index's size alone. ``Unobservable`` where no
    engine ran or the engine did not count its bytes: the exercise is then not judged."""
    if "not_run" in grown:
        raise Unobservable(Message(NO_WRITES, why=grown["not_run"]))
    key, every = grown["key"], grown["checkpoint_every"]
    n = grown["writes"][N_("with checkpoints")]["uuid4"][-1][0]
    loads = {setting: ctx.btree_load(key, ["uuid4", "uuid7"], n, checkpoint_every=interval)
             for setting, interval in (("with", every), ("without", None))}
    (rnd, seq), (rnd_bare, seq_bare) = ((m.by_kind()["uuid4"], m.by_kind()["uuid7"])
                                        for m in (loads["with"], loads["without"]))
    name = grown["engine"]
    w4, w7, b4, b7 = (_written(r, name) for r in (rnd, seq, rnd_bare, seq_bare))
    ratio, bare = w4 / w7, b4 / b7
    extra = w4 - w7
    checkpointed = n > every
    share = (min(max(((w4 - b4) - (w7 - b7)) / extra, 0.0), 1.0)
             if checkpointed and extra > 0 else None)
    cause = _cause(key, ratio, share, rnd, seq)
    values = {"engine": name, "version": grown["engine_version"], "n": n, "every": every,
              "ratio": ratio, "bare": bare}
    head = Message(W_HEAD if checkpointed else W_HEAD_NO_CHECKPOINT, **values)
    why: Text = (Message(W_CAUSES[cause], size=rnd.size() / seq.size()) if cause == "size"
                else Message(W_CAUSES[cause]))
    if checkpointed and cause in WITHOUT_CHECKPOINTS:
        why = joined(" ", [Message(W_REST), why])
    share_said = Message(W_SHARE, share=share) if share is not None and cause != "little" else ""
    return WriteReading(f"{name} {grown['engine_version']}".strip(), ratio, bare, share, cause,
                        joined(" ", [head, why]),
                        joined(" ", [head, share_said, why, _evidence(key, rnd, seq) or ""]))
