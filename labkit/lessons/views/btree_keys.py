"""Lesson 06's names: a UUIDv7 taken apart, the B-tree loads per engine and key kind, their
tables and pictures (leaf splits stepped through, growth, sizes, writes, cache reads)."""

from labkit.experiments.btree_keys import (
    growth,
    growth_head,
    growth_rows,
    key_points,
    keys_per_kind,
    layout_rows,
    layout_table,
    write_summary,
)
from labkit.model.uuids import explain, parse
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
