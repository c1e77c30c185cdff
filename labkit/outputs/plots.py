"""Figures for the report and the lessons, drawn with matplotlib without a display.

Every string a figure shows passes through ``text`` (``escape.plot``): a name from a claim
file, a fixture or a server reaches matplotlib as plain text, never as mathtext."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NotRequired, TypedDict

from labkit.claims.claim import Figure
from labkit.engines.btree_engine import Measurement, NotMeasured
from labkit.engines.btree_model import ModelLoad
from labkit.engines.btree_mongodb import MongoLoad
from labkit.i18n import N_, _, number, percent
from labkit.names import engine_name
from labkit.outputs.escape import plot as text

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure as MplFigure

    from labkit.model.bson_order import Document

FIELD_COLOURS = ["#0969da", "#8250df", "#1a7f37", "#bf8700", "#cf222e", "#57606a"]
# Series that coincide (sequential keys often do) stay visible: each has its own dash and mark.
LINE_STYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "D", "v", "x"]
POLICY_TEXT = {"half": N_("50/50 splits"), "rightmost": N_("rightmost splits")}


class BitField(TypedDict):
    """One field of an ID's layout (``bit_layout``): its name and how many bits it takes."""

    field: str
    bits: int


class IdPoint(TypedDict):
    """One ID in ``id_rank``: its hex, the process that made it, and when (the process's
    clock in nanoseconds, or milliseconds since the epoch)."""

    hex: str
    process: str
    clock_ns: NotRequired[int]
    made_at_ms: NotRequired[float]


class CachePoint(TypedDict):
    """One load in ``cache_reads_vs_ratio``: its key kind, its index size against the cache
    size, and the pages it read into the cache (None where the engine could not tell)."""

    keys: str
    index_to_cache: float
    cache_reads: NotRequired[int | None]


def _policy(measurement: Measurement) -> str:
    """Which split policy a model measurement shows, for its title ("" for real engines)."""
    policies = {r.split_policy for r in measurement.results if isinstance(r, ModelLoad)}
    return ", ".join(_(POLICY_TEXT.get(p, p)) for p in sorted(policies))


# pyplot is imported where a figure is drawn, not when this module loads; matplotlib picks a
# non-interactive backend by itself where there is no display.


def figure_bytes(figure: MplFigure, fmt: str = "png") -> bytes:
    """Render a figure to PNG or SVG bytes and close it."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, dpi=110, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()


def png_bytes(figure: MplFigure) -> bytes:
    """Render a figure to PNG bytes and close it."""
    return figure_bytes(figure, "png")


def bit_layout(rows: Sequence[BitField], title: str) -> MplFigure:
    """One horizontal bar split into fields (``field``, ``bits`` per row)."""
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(9, 1.6))
    start = 0
    for index, row in enumerate(rows):
        axes.barh(0, row["bits"], left=start, color=FIELD_COLOURS[index % len(FIELD_COLOURS)],
                  edgecolor="white")
        label = f"{text(row['field'])}\n" + text(_("{bits} bits").format(bits=row["bits"]))
        axes.text(start + row["bits"] / 2, 0, label, ha="center", va="center", color="white",
                  fontsize=8 if row["bits"] >= 8 else 6)
        start += row["bits"]
    axes.set_xlim(0, start)
    axes.set_yticks([])
    axes.set_xlabel(text(_("bit position (most significant first)")))
    axes.set_title(text(_(title)), fontsize=10)
    _local_ticks(*figure.axes)
    return figure


def _whole_ticks(axis: Axis) -> None:
    """Ticks on whole numbers only, for counts and ranks."""
    from matplotlib.ticker import MaxNLocator

    locator = axis.get_major_locator()
    if isinstance(locator, MaxNLocator):  # a numeric axis's default locator (AutoLocator) is one
        locator.set_params(integer=True)


def id_rank(table: Sequence[IdPoint], title: str) -> MplFigure:
    """Each ID as a point: when it was made (x) against its rank in ``_id`` order (y), by process.

    Rows need ``hex`` and ``process``, and ``clock_ns`` or ``made_at_ms``.
    """
    import matplotlib.pyplot as plt

    ms = [row["clock_ns"] / 1e6 if "clock_ns" in row else row["made_at_ms"] for row in table]
    origin = min(ms)
    ranks = {h: i + 1 for i, h in enumerate(sorted(row["hex"] for row in table))}
    labels = [row["process"] for row in table]
    # Rows labelled per document (A1, A2, B1) group by process (A, B); rows labelled per
    # process (P1 five times) keep their label.
    repeated = len(set(labels)) < len(labels)
    group = [label if repeated else label.rstrip("0123456789") or label for label in labels]
    processes = sorted(set(group))
    figure, axes = plt.subplots(figsize=(7, 3.6))
    for index, name in enumerate(processes):
        points = [(m - origin, ranks[row["hex"]])
                  for m, row, g in zip(ms, table, group, strict=True) if g == name]
        axes.scatter([p[0] for p in points], [p[1] for p in points], s=60,
                     color=FIELD_COLOURS[index % len(FIELD_COLOURS)],
                     label=text(_("process {name}").format(name=name)))
    axes.set_xlabel(text(_("made at (ms after the first ID)")))
    axes.set_ylabel(text(_("rank when sorted by _id")))
    axes.invert_yaxis()
    _whole_ticks(axes.yaxis)
    axes.legend(fontsize=8)
    axes.set_title(text(_(title)), fontsize=10)
    _local_ticks(*figure.axes)
    return figure


def _local_ticks(*axes_list: Axes) -> None:
    """Tick labels written as the learner's language writes numbers ("0,25", "12.500"): only
    matplotlib's numeric default is replaced, so names (engines, key kinds, rungs) stay."""
    from matplotlib.ticker import FuncFormatter, ScalarFormatter

    ticks = FuncFormatter(lambda value, _pos: number(value))
    for axes in axes_list:
        for axis in (axes.xaxis, axes.yaxis):
            if type(axis.get_major_formatter()) is ScalarFormatter:
                axis.set_major_formatter(ticks)


def btree_summary(measurement: Measurement, title: str | None = None) -> MplFigure:
    """Index size (or leaf pages), leaf-fill distribution and insert rate per key kind.

    The title names the engine, its version, N, and for the model its split policy.
    """
    import matplotlib.pyplot as plt

    results = measurement.results
    kinds = [text(r.keys) for r in results]
    colours = [FIELD_COLOURS[i % len(FIELD_COLOURS)] for i in range(len(kinds))]
    with_fills = [r for r in results if r.leaf_fills]
    with_rates = [r for r in results
                  if isinstance(r, MongoLoad) and r.inserts_per_second_by_batch]
    panels = 1 + bool(with_fills) + bool(with_rates)
    figure, grid = plt.subplots(1, panels, figsize=(4.2 * panels, 3.4), squeeze=False)
    axes = list(grid[0])
    size_axis = axes.pop(0)
    sizes = [r.index_bytes for r in results]
    if all(sizes):
        size_axis.bar(kinds, [(size or 0) / 2**20 for size in sizes], color=colours)
        size_axis.set_ylabel(text(_("index size (MiB)")))
    else:
        size_axis.bar(kinds, [r.leaf_pages for r in results], color=colours)
        size_axis.set_ylabel(text(_("leaf pages")))
    size_axis.set_title(text(_("size")), fontsize=10)
    if with_fills:
        fill_axis = axes.pop(0)
        for index, r in enumerate(with_fills):
            fill_axis.hist(r.leaf_fills, bins=20, range=(0, 1.05), label=text(r.keys),
                           color=colours[index], histtype="step", linewidth=1.6,
                           linestyle=LINE_STYLES[index % len(LINE_STYLES)])
        fill_axis.axvline(0.693, color="#57606a", linestyle=":", linewidth=1)
        fill_axis.text(0.693, fill_axis.get_ylim()[1] * 0.95, text(" ln 2"), fontsize=8,
                       color="#57606a", va="top")
        fill_axis.set_xlabel(text(_("leaf fill")))
        fill_axis.set_ylabel(text(_("leaf pages")))
        fill_axis.legend(fontsize=8)
        fill_axis.set_title(text(_("leaf fill distribution")), fontsize=10)
    if with_rates:
        rate_axis = axes.pop(0)
        for index, (r, colour) in enumerate(zip(with_rates, colours, strict=False)):
            rate_axis.plot(r.inserts_per_second_by_batch, label=text(r.keys), color=colour,
                           linestyle=LINE_STYLES[index % len(LINE_STYLES)])
        rate_axis.set_xlabel(text(_("batch")))
        rate_axis.set_ylabel(text(_("inserts per second")))
        rate_axis.legend(fontsize=8)
        rate_axis.set_title(text(_("insert rate over time")), fontsize=10)
    policy = _policy(measurement)
    figure.suptitle(text(_(title) if title else f"{measurement.engine} "
                         f"{measurement.engine_version}, N = {number(measurement.n)}"
                         + (f", {policy}" if policy else "")), fontsize=10)
    figure.tight_layout()
    _local_ticks(*figure.axes)
    return figure


def splits_per_1000(traces: dict[str, list[int]], every: int, title: str = "") -> MplFigure:
    """Leaf splits per 1,000 inserts as the model grows, one line per key kind (each with
    its own dash and marker, so lines that coincide stay visible)."""
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 3.4))
    for index, (kind, trace) in enumerate(traces.items()):
        steps = [b - a for a, b in zip([0, *trace], trace, strict=False)]
        axes.plot([every * (i + 1) for i in range(len(steps))],
                  [1000 * s / every for s in steps], label=text(kind),
                  color=FIELD_COLOURS[index % len(FIELD_COLOURS)],
                  linestyle=LINE_STYLES[index % len(LINE_STYLES)],
                  marker=MARKERS[index % len(MARKERS)], markevery=max(len(steps) // 8, 1),
                  markersize=4, alpha=0.85)
    if title:
        axes.set_title(text(_(title)), fontsize=10)
    axes.set_xlabel(text(_("keys inserted")))
    axes.set_ylabel(text(_("leaf splits per 1,000 inserts")))
    axes.set_ylim(bottom=0)
    axes.legend(fontsize=8)
    _local_ticks(*figure.axes)
    return figure


def writes_per_1000(growth: dict[str, dict[str, list[tuple[int, float]]]],
                    title: str = "") -> MplFigure:
    """Bytes written per 1,000 keys as N grows, one line per key kind and checkpoint setting
    (``{setting: {kind: [(n, write_bytes), ...]}}``; solid: with checkpoints)."""
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 3.6))
    for dash, (setting, by_kind) in zip(LINE_STYLES, growth.items(), strict=False):
        for index, (kind, points) in enumerate(by_kind.items()):
            axes.plot([n for n, _w in points], [w / n for n, w in points],  # kB per 1,000
                      label=text(f"{kind}, {_(setting)}"), linestyle=dash,
                      color=FIELD_COLOURS[index % len(FIELD_COLOURS)],
                      marker=MARKERS[index % len(MARKERS)], markersize=4)
    axes.set_xlabel(text(_("keys loaded (N)")))
    axes.set_ylabel(text(_("kB written per 1,000 keys")))
    axes.set_ylim(bottom=0)
    axes.legend(fontsize=7, ncol=2)
    axes.set_title(text(_(title) if title else _("Write volume as the index grows")),
                   fontsize=10)
    _local_ticks(*figure.axes)
    return figure


def cache_reads_vs_ratio(points: Sequence[CachePoint], title: str = "") -> MplFigure:
    """Pages read into the cache against index size / cache size, per key kind (rows with
    ``keys``, ``index_to_cache`` and ``cache_reads``), the point where the index outgrows the
    cache marked at 1 where a drawn point reaches it; where none does, the title says how much
    of the cache the largest index took."""
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 3.6))
    kinds = list(dict.fromkeys(p["keys"] for p in points))
    for index, kind in enumerate(kinds):
        mine = sorted((p["index_to_cache"], reads) for p in points
                      if p["keys"] == kind and (reads := p.get("cache_reads")) is not None)
        axes.plot([x for x, _r in mine], [r for _x, r in mine], label=text(kind),
                  color=FIELD_COLOURS[index % len(FIELD_COLOURS)],
                  linestyle=LINE_STYLES[index % len(LINE_STYLES)],
                  marker=MARKERS[index % len(MARKERS)], markersize=4)
    drawn = [p["index_to_cache"] for p in points if p.get("index_to_cache") is not None
             and p.get("cache_reads") is not None]
    largest = max(drawn, default=None)
    if largest is not None and largest >= 1:
        axes.axvline(1.0, color="#cf222e", linestyle=":", linewidth=1.2,
                     label=text(_("the index outgrows the cache")))
        default_title = _("Cache reads as the index outgrows the cache")
    elif largest is not None:  # no line the points never reach; the title says what happened
        default_title = _("Cache reads: the index stayed within the cache (at most {share} "
                          "of it)").format(share=percent(largest, 0))
    else:  # nothing measured to draw: no share to state
        default_title = _("Cache reads: none measured")
    axes.set_xlabel(text(_("index size / cache size")))
    axes.set_ylabel(text(_("pages read into the cache")))
    axes.set_ylim(bottom=0)
    axes.legend(fontsize=8)
    axes.set_title(text(_(title) if title else default_title), fontsize=10)
    _local_ticks(*figure.axes)
    return figure


def engines_side_by_side(comparison: dict[str, Measurement | NotMeasured]) -> MplFigure:
    """Index size relative to the ``int`` keys, and average leaf fill, per engine and key kind
    (an engine not measured is left out)."""
    import matplotlib.pyplot as plt

    measured = {e: m for e, m in comparison.items() if isinstance(m, Measurement)}
    figure, (size_axis, fill_axis) = plt.subplots(1, 2, figsize=(10, 3.6))
    kinds = list(dict.fromkeys(r.keys for m in measured.values() for r in m.results))
    width = 0.8 / max(len(kinds), 1)
    for index, kind in enumerate(kinds):
        sizes, fills = [], []
        for m in measured.values():
            by_kind = m.by_kind()
            base = by_kind.get("int") or m.results[0]
            result = by_kind.get(kind)
            sizes.append(result.size() / base.size() if result else 0)
            fills.append(result.avg_leaf_fill or 0 if result else 0)
        xs = [i + index * width for i in range(len(measured))]
        colour = FIELD_COLOURS[index % len(FIELD_COLOURS)]
        size_axis.bar(xs, sizes, width, label=text(kind), color=colour)
        fill_axis.bar(xs, fills, width, label=text(kind), color=colour)
    labels = [f"{text(engine_name(e))}\n{text(m.engine_version)}"
              for e, m in measured.items()]
    for axis in (size_axis, fill_axis):
        axis.set_xticks([i + width * (len(kinds) - 1) / 2 for i in range(len(measured))], labels,
                        fontsize=8)
    size_axis.set_ylabel(text(_("index size relative to int keys")))
    fill_axis.set_ylabel(text(_("average leaf fill")))
    fill_axis.axhline(0.693, color="#57606a", linestyle=":", linewidth=1,
                      label=text(_("ln 2 \u2248 69.3% (random keys, Yao 1978)")))
    fill_axis.set_ylim(0, 1.2)
    size_axis.legend(fontsize=8)
    fill_axis.legend(handles=fill_axis.get_lines(), fontsize=8, loc="upper right")
    figure.suptitle(text(_("Index size and leaf fill per engine and key kind, N = {n}").format(
        n=number(next(iter(measured.values())).n))) if measured else "", fontsize=10)
    figure.tight_layout()
    _local_ticks(*figure.axes)
    return figure


def type_ladder(docs: Sequence[Document], path: str = "v",
                title: str = N_("The BSON type ladder"),
                order: Sequence[object] | None = None) -> MplFigure:
    """The manual's type order as rungs, each document's ``_id`` placed on its value's rung.

    Documents sit left to right in ``order`` (a list of ``_id``s, such as a server's
    answer) or else in the order the model's ascending sort gives; a missing field
    sits on the null rung and an empty array just below it, as sort keys do.
    """
    import matplotlib.pyplot as plt

    from labkit.model import bson_order

    rungs = [text(rung) for rung in (
        "MinKey", _("empty array"), "Null", _("Numbers"), "String", "Object", "Array",
        "BinData", "ObjectId", "Boolean", "Date", "Timestamp", "Regex", "JavaScript",
        "JavaScript with scope", "MaxKey")]
    figure, axes = plt.subplots(figsize=(9, 5))
    palette = plt.get_cmap("tab20")  # 20 colours for the 16 rungs
    by_id = {doc.get("_id"): doc for doc in docs}
    placed = [by_id[i] for i in order] if order else bson_order.sort(docs, f"{path}:1,_id:1")
    shown: set[int] = set()  # one legend entry per rung that holds a document
    for position, doc in enumerate(placed):
        rung = bson_order.rank(bson_order.sort_key(doc, path))  # ranks number the rungs
        axes.scatter(position, rung, s=40, color=palette(rung),  # one colour per rung
                     label=None if rung in shown else rungs[rung])
        shown.add(rung)
        axes.annotate(text(doc.get("_id")), (position, rung), textcoords="offset points",
                      xytext=(0, 6), ha="center", fontsize=8)
    axes.set_yticks(range(len(rungs)), rungs, fontsize=8)
    if shown:
        axes.legend(title=text(_("type (colour of each point)")), fontsize=7, title_fontsize=8,
                    loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    axes.set_ylim(-0.5, len(rungs) - 0.5)
    axes.set_xlabel(text(_("position in {sort}").format(sort=f"sort({{{path}: 1, _id: 1}})")))
    axes.grid(axis="y", color="#eaeef2")
    axes.set_title(text(_(title)), fontsize=10)
    figure.tight_layout()  # room for the legend beside the rungs
    _local_ticks(*figure.axes)
    return figure


# The plots an observation may name (``claims.claim.Figure``): the report draws them by name.
DRAWN: dict[str, Callable[..., MplFigure]] = {
    "bit_layout": bit_layout, "btree_summary": btree_summary, "id_rank": id_rank,
    "type_ladder": type_ladder, "writes_per_1000": writes_per_1000,
    "cache_reads_vs_ratio": cache_reads_vs_ratio}


def draw(figure: Figure) -> MplFigure:
    """The figure an observation names, drawn: ``bit_layout(*args)``, ``id_rank(*args)``…"""
    if figure.plot not in DRAWN:
        raise ValueError(f"no plot called {figure.plot!r}; plots an observation may name: "
                         f"{', '.join(DRAWN)}")
    return DRAWN[figure.plot](*figure.args)
