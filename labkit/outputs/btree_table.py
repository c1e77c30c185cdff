"""A B-tree measurement as the plain-text table ``labkit btree`` prints: one row per key kind
(index size, leaf pages, fill, insert time, bytes written per key, cache reads, the engine's
other figures), then, once each, what the figures mean and why one is missing or marked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labkit.engines.btree_results import LONG, REASON_KEYS
from labkit.i18n import english, shown

# Measurement = a measurement's dictionary (``Measurement.to_dict``, as ``labkit btree --json``
# gives it), or a comparison entry that gave none (``{"engine", "not_run"}``, ``{"engine",
# "error"}``).
Measurement = Mapping[str, Any]

# What a table says below its rows, once for the key kinds it concerns: what the figures mean,
# then every reason a load can give (btree_results.Reasons), each under the figure it concerns.
REASON_LABEL = {"write_bytes_why": "write", "write_disturbed": "write",
                "cache_reads_why": "cache", "cache_reads_disturbed": "cache",
                "index_bytes_why": "index bytes", "counters_why": "counters"}
SAID_BELOW = (("write_meaning", "write"), *((key, REASON_LABEL[key]) for key in REASON_KEYS))
# The figures a row has a column for; every other one goes under "other".
COLUMNS = ("keys", "n", "index_bytes", "leaf_pages", "avg_leaf_fill", "insert_seconds",
           "size_meaning", "write_bytes_per_key", "cache_reads")


def table(measurement: Measurement) -> str:
    """A measurement as a plain-text table: size, leaf pages, fill, time, then other counters.

    A comparison entry that did not run (``{"engine", "not_run"}``) is one line.
    """
    if "not_run" in measurement:
        return f"{measurement['engine']}: not run ({english(measurement['not_run'])})"
    if "error" in measurement:
        return f"{measurement['engine']}: error ({english(measurement['error'])})"
    results: list[Mapping[str, Any]] = measurement["results"]
    lines = [_head(measurement),
             f"{'keys':<12} {'index bytes':>13} {'leaf pages':>10} {'avg fill':>8} "
             f"{'insert s':>9} {'written/key':>11} {'cache reads':>11}  other"]
    lines += [_row(result) for result in results]
    lines += _said_below(results)
    meaning = next((r["size_meaning"] for r in results if "size_meaning" in r), "")
    if meaning:
        lines.append(f"index bytes: {meaning}")
    return "\n".join(lines)


def _head(measurement: Measurement) -> str:
    """The engine, its version, N and the cache the loads went through."""
    head = f"{measurement['engine']} {measurement['engine_version']}, N = {measurement['n']:,}"
    if measurement.get("cache"):
        head += f", {english(measurement['cache'])}"
    return head


def _row(result: Mapping[str, Any]) -> str:
    """One key kind's row; its long per-page and per-batch lists are left out."""
    shown_here = {*COLUMNS, *(key for key, _ in SAID_BELOW)}
    fill = f"{result['avg_leaf_fill']:.1%}" if result["avg_leaf_fill"] is not None else "-"
    size, pages, per_key, reads = (f"{result[k]:,.0f}" if result.get(k) is not None else "-"
                                   for k in ("index_bytes", "leaf_pages",
                                             "write_bytes_per_key", "cache_reads"))
    other = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                      for k, v in result.items() if k not in shown_here and k not in LONG)
    return (f"{result['keys']:<12} {size:>13} {pages:>10} {fill:>8} "
            f"{result['insert_seconds']:>9.2f} {per_key:>11} {reads:>11}  {other}")


def _said_below(results: list[Mapping[str, Any]]) -> list[str]:
    """Each meaning and reason once, with the key kinds it concerns where not all of them."""
    lines = []
    for key, label in SAID_BELOW:
        said: dict[str, list[str]] = {}
        for result in results:
            if result.get(key):
                said.setdefault(result[key], []).append(result["keys"])
        for text, kinds in said.items():
            scope = "" if len(kinds) == len(results) else f" ({', '.join(kinds)})"
            lines.append(f"{label}{scope}: {shown(text)}")
    return lines
