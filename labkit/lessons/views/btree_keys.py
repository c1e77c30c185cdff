"""Lesson 06's names: a UUIDv7 taken apart, the B-tree loads per engine and key kind, their
tables and pictures (leaf splits stepped through, growth, sizes, writes, cache reads), and the
lesson's own sentences built from this run's loads (its key points)."""

from __future__ import annotations

import uuid
from typing import Any

from labkit.claims.claim import Observation, Unobservable
from labkit.engines.btree_engine import Measurement
from labkit.experiments.btree_keys import (
    KEYS_PER_KIND,
    KINDS,
    Loads,
    growth,
    growth_rows,
    layout_rows,
    write_reading,
)
from labkit.i18n import N_, Message, _, number, percent, shown
from labkit.model.uuids import explain, parse
from labkit.names import engine_name
from labkit.outputs.plots import (
    bit_layout,
    btree_summary,
    cache_reads_vs_ratio,
    engines_side_by_side,
    leaf_splits,
    splits_per_1000,
    writes_per_1000,
)
from labkit.outputs.tables import btree_frame, btree_pivot, frame

__all__ = ["bit_layout", "btree_frame", "btree_pivot", "btree_summary", "cache_reads_vs_ratio",
           "engines_side_by_side", "explain", "frame", "growth", "growth_head", "growth_rows",
           "key_points", "keys_per_kind", "layout_rows", "layout_table", "leaf_splits", "parse",
           "splits_per_1000", "write_summary", "writes_per_1000"]

# The layout table's headings as a learner reads them (the rows above keep the field names).
LAYOUT_HEADINGS = {"field": N_("field"), "bits": N_("bits"), "first_bit": N_("first bit"),
                   "value": N_("value"), "binary": N_("binary")}


def layout_table(u: uuid.UUID) -> list[dict[str, Any]]:
    """``layout_rows`` with its headings in the learner's words, for the lesson's table."""
    return [{_(LAYOUT_HEADINGS[key]): value for key, value in row.items()}
            for row in layout_rows(u)]


def keys_per_kind(n: int) -> str:
    """How many keys of each kind the B-tree loads hold (``N = 2,000 keys per kind``), in the
    learner's words."""
    return Message(KEYS_PER_KIND, n=n).shown()


def growth_head(grown: dict[str, Any]) -> str:
    """The engine, its version and its cache above ``growth``'s table, in the learner's words."""
    return f"{grown['engine']} {grown['engine_version']}, {shown(grown['cache'])}".rstrip(", ")


def write_summary(ctx: Loads, grown: dict[str, Any]) -> str:
    """``write_reading``'s text in the learner's words, or why there is none."""
    try:
        return shown(write_reading(ctx, grown).text)
    except Unobservable as exc:
        return shown(exc.args[0]) if exc.args else ""


def key_points(ctx: Loads, grown: dict[str, Any], writes_shown: bool = True) -> str:
    """Lesson 06's key points, every figure from this run's loads (engines that did not run
    are left out; the write figures only once their question was answered)."""
    def loaded(engine: str) -> Measurement | Observation:
        return ctx.guard(engine, lambda: ctx.btree_load(engine, KINDS), kind=engine, key=engine)

    lines = []
    engines = [loaded(engine) for engine in ("sqlite", "postgres", "wiredtiger")]
    model = ctx.btree_load("model", KINDS, policy="half").results[0].avg_leaf_fill
    lines.append(_("Random keys fill leaves to about ln 2 \u2248 69%, not 50%: the model gave "
                   "{fill}.").format(fill=percent(model or 0)))
    for measured in engines:
        if isinstance(measured, Observation):  # not run, or failed: left out
            continue
        by_kind = measured.by_kind()
        lines.append(_("{engine} {version}: the UUIDv4 index is {ratio} times the size of the "
                       "UUIDv7 one; leaves {fill4} full with UUIDv4, {fill7} with UUIDv7.").format(
            engine=engine_name(measured.engine), version=measured.engine_version,
            ratio=number(1 + measured.larger_by("uuid4", than="uuid7"), 2),
            fill4=percent(by_kind["uuid4"].avg_leaf_fill or 0),
            fill7=percent(by_kind["uuid7"].avg_leaf_fill or 0)))
    if not writes_shown:
        lines.append(_("The write and cache figures appear here once the write-volume question "
                       "of section 5 is answered."))
    elif "not_run" not in grown:
        try:
            lines.append(shown(write_reading(ctx, grown).gist))
        except Unobservable as exc:  # the engine did not count its bytes: said, not shown
            lines.append(shown(exc.args[0]))
    lines.append(_("A UUIDv7 exposes its creation time to the millisecond; use a generator that "
                   "is monotonic within a millisecond."))
    return "\n".join(f"- {line}" for line in lines)
