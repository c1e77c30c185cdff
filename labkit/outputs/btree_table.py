"""A B-tree measurement as the plain-text table ``labkit btree`` prints: one row per key kind
(index size, leaf pages, fill, insert time, bytes written per key, cache reads, the engine's
other figures), then, once each, what the figures mean and why one is missing or marked."""

from __future__ import annotations

from labkit.engines.btree_engine import REASON_KEYS, LoadResult, Measurement, NotMeasured
from labkit.i18n import N_, Message, Text, _, english, number, percent, shown
from labkit.names import where

# What a table says below its rows, once for the key kinds it concerns: what the figures mean,
# then every reason a load can give (btree_engine.Reasons), each under the figure it concerns.
# Each label is English here and in the learner's language on screen.
REASON_LABEL = {"write_bytes_why": N_("write"), "write_disturbed": N_("write"),
                "cache_reads_why": N_("cache"), "cache_reads_disturbed": N_("cache"),
                "index_bytes_why": N_("index bytes"), "counters_why": N_("counters")}
SAID_BELOW = (("write_meaning", N_("write")),
              *((key, REASON_LABEL[key]) for key in REASON_KEYS))
# The columns' headings, each with its width (a negative one: aligned left), then "other".
HEADINGS = ((N_("keys"), -12), (N_("index bytes"), 13), (N_("leaf pages"), 10),
            (N_("avg fill"), 8), (N_("insert s"), 9), (N_("written/key"), 11),
            (N_("cache reads"), 11))
# The figures a row has a column for; every other one goes under "other".
COLUMNS = ("keys", "n", "index_bytes", "leaf_pages", "avg_leaf_fill", "insert_seconds",
           "size_meaning", "write_bytes_per_key", "cache_reads")


def table(measurement: Measurement | NotMeasured) -> str:
    """A measurement as a plain-text table: size, leaf pages, fill, time, then other counters.

    An engine that gave no loads (``NotMeasured``) is one line.
    """
    if isinstance(measurement, NotMeasured):
        said = (N_("{engine}: error ({why})") if measurement.error else
                N_("{engine}: not run ({why})"))
        return Message(said, engine=measurement.engine,
                       why=measurement.error or measurement.not_run).shown()
    results = measurement.results
    headings = " ".join(f"{_(text):<{-width}}" if width < 0 else f"{_(text):>{width}}"
                        for text, width in HEADINGS)
    lines = [_head(measurement), f"{headings}  {_('other')}"]
    lines += [_row(result) for result in results]
    lines += _said_below(results)
    meaning = next((r.size_meaning for r in results if r.size_meaning), "")
    if meaning:
        lines.append(f"{_('index bytes')}: {shown(meaning)}")
    return "\n".join(lines)


def _head(measurement: Measurement) -> str:
    """The engine, its version, N and the cache the loads went through."""
    engine = where(measurement.name, measurement.engine_version)
    head = f"{engine}, N = {number(measurement.n)}"
    if measurement.cache:
        head += f", {shown(measurement.cache)}"
    return head


def _row(result: LoadResult) -> str:
    """One key kind's row; its long per-page and per-batch lists are left out."""
    shown_here = {*COLUMNS, *(key for key, _ in SAID_BELOW)}
    # Each figure in the learner's digits ("57,344" and "89.6%" here, "57.344", "89,6%" in
    # Vietnamese); the figures under "other" stay as the engine names them.
    fill = percent(result.avg_leaf_fill) if result.avg_leaf_fill is not None else "-"
    size, pages, per_key, reads = (number(value, 0) if value is not None else "-"
                                   for value in (result.index_bytes, result.leaf_pages,
                                                 result.write_bytes_per_key,
                                                 result.cache_reads))
    seconds = number(result.insert_seconds, 2)
    other = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                      for k, v in result.summary().items() if k not in shown_here)
    return (f"{result.keys:<12} {size:>13} {pages:>10} {fill:>8} "
            f"{seconds:>9} {per_key:>11} {reads:>11}  {other}")


def _said(result: LoadResult, key: str) -> Text | None:
    """What the load says under ``key`` of ``SAID_BELOW``: what its bytes written mean, or a
    reason (``Reasons``)."""
    if key == "write_meaning":
        return result.io.write_meaning if result.io else None
    value: Text | None = getattr(result.why, key)
    return value


def _said_below(results: list[LoadResult]) -> list[str]:
    """Each meaning and reason once, with the key kinds it concerns where not all of them."""
    lines = []
    for key, label in SAID_BELOW:
        said: dict[str, tuple[str, list[str]]] = {}  # by its English: the text and the kinds
        for result in results:
            text = _said(result, key)
            if text:
                said.setdefault(english(text), (shown(text), []))[1].append(result.keys)
        for text, kinds in said.values():
            scope = "" if len(kinds) == len(results) else f" ({', '.join(kinds)})"
            lines.append(f"{_(label)}{scope}: {text}")
    return lines
