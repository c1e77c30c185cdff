"""Figures for the report and the lessons, drawn with matplotlib without a display.

Every string a figure shows passes through ``text`` (``escape.plot``): a name from a claim
file, a fixture or a server reaches matplotlib as plain text, never as mathtext."""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NotRequired, TypedDict

from labkit.claims.claim import Figure
from labkit.engines.btree_engine import LoadResult, Measurement, NotMeasured
from labkit.engines.btree_model import POLICIES, BPlusTree, ModelLoad
from labkit.engines.btree_mongodb import MongoLoad
from labkit.i18n import N_, _, number, percent, shown
from labkit.model import bson_order, objectid, reads
from labkit.names import FAKES, engine_name, where
from labkit.outputs.escape import plot as text
from labkit.outputs.tables import shell

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
# The rungs a sort key can sit on, numbered as ``bson_order.rank`` numbers them (an empty array
# below null, as a sort key sits): the type ladder's rows and the type brackets' names, in the
# manual's ladder's words (``bson_order.LADDER``), so every label is in one language.
RUNGS = [bson_order.LADDER[0], N_("empty array"), *bson_order.LADDER[1:]]


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


def _lines(words: str) -> str:
    """Text of several lines for matplotlib: each line plain text (``text`` writes a newline
    as an escape), joined by newlines."""
    return "\n".join(text(line) for line in words.split("\n"))


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
    _size_panel(axes.pop(0), results, kinds, colours)
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
    engine = where(measurement.name, measurement.engine_version)
    figure.suptitle(text(_(title) if title else f"{engine}, N = {number(measurement.n)}"
                         + (f", {policy}" if policy else "")), fontsize=10)
    figure.tight_layout()
    _local_ticks(*figure.axes)
    return figure


def _size_panel(axis: Axes, results: Sequence[LoadResult], kinds: list[str],
                colours: list[str]) -> None:
    """The index's size per key kind in MiB, or its leaf pages where the engine gives no size.
    A kind with neither (a server that refused ``fsync`` or ``$collStats``) has no bar but
    "not measured" in its place, and why is written under the panel."""
    sizes = [None if r.index_bytes is None else r.index_bytes / 2**20 for r in results]
    measured = any(size is not None for size in sizes)
    values = sizes if measured else [r.leaf_pages for r in results]
    axis.bar(kinds, [value or 0 for value in values], color=colours)
    axis.set_ylabel(text(_("index size (MiB)") if measured else _("leaf pages")))
    if all(value is None for value in values):  # nothing to scale: no axis to read
        axis.set_ylabel("")
        axis.set_yticks([])
        axis.set_ylim(0, 1)
    for index, value in enumerate(values):
        if value is None:
            axis.text(index, 0, text(_("not measured")), rotation=90, ha="center",
                      va="bottom", fontsize=8, color="#57606a")
    reasons = dict.fromkeys(shown(r.why.index_bytes_why) for r in results
                            if r.index_bytes is None and r.why.index_bytes_why)
    if reasons and not all(value is not None for value in values):
        axis.set_xlabel(_lines("\n".join(textwrap.fill(reason, 40) for reason in reasons)),
                        fontsize=7)
    axis.set_title(text(_("size")), fontsize=10)


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

    rungs = [text(_(rung)) for rung in RUNGS]
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


def ladder(title: str = N_("The BSON type ladder: type first, then value")) -> MplFigure:
    """The manual's ladder of types alone (``bson_order.ladder``), lowest at the bottom, as
    steps: no document placed, so it answers nothing a lesson asks about its fixture."""
    import matplotlib.pyplot as plt

    rungs = bson_order.ladder()
    figure, axes = plt.subplots(figsize=(7, 4.6))
    palette = plt.get_cmap("tab20")
    for step, name in enumerate(rungs):
        axes.barh(step, 6, left=step * 0.35, height=0.8, color=palette(step), alpha=0.55,
                  edgecolor="white")
        axes.text(step * 0.35 + 0.15, step, text(f"{step + 1}. {name}"), va="center",
                  fontsize=8)
    axes.annotate("", xy=(-0.4, len(rungs) - 0.6), xytext=(-0.4, -0.4),
                  arrowprops={"arrowstyle": "->", "color": "#57606a"})
    axes.text(-0.6, (len(rungs) - 1) / 2, text(_("ascending sort: lower rungs first")),
              rotation=90, va="center", ha="right", fontsize=8, color="#57606a")
    axes.set_xlim(-1.4, 6 + len(rungs) * 0.35)
    axes.set_ylim(-0.6, len(rungs) - 0.4)
    axes.axis("off")
    axes.set_title(text(_(title)), fontsize=10)
    return figure


def _bracket(value: object) -> int:
    """The rung a value's type sits on, which is its query bracket (``bson_order.rank``)."""
    return bson_order.rank(value)


def type_brackets(docs: Sequence[Document], path: str = "userId",
                  query: dict[str, object] | None = None,
                  title: str = N_("Each value in its type's bracket")) -> MplFigure:
    """Each document's value of ``path`` in its type bracket, one line per bracket: numbers on
    a number line (every numeric type on the same one), the values of another bracket on a
    line of their own in sort order. With ``query`` (an operand such as ``{"$gt": 0}``), the
    operand stands on its bracket's line and each document is drawn as labkit's model
    matches it: what the query returns, which only a lesson's answered exercise may show."""
    import matplotlib.pyplot as plt

    values = [(doc.get("_id"), doc[path]) for doc in docs if path in doc]
    operand = next(iter(query.values())) if query else None
    operator = next(iter(query)) if query else ""
    brackets = sorted({_bracket(v) for _i, v in values}
                      | ({_bracket(operand)} if query else set()))
    matched = ({doc.get("_id") for doc in reads.find(docs, {path: query})}
               if query else set())
    figure, grid = plt.subplots(len(brackets), 1, figsize=(8, 1.5 * len(brackets) + 0.6),
                                squeeze=False)
    number_rank = _bracket(0)
    for axes, rung in zip([row[0] for row in grid], brackets, strict=True):
        mine = [(i, v) for i, v in values if _bracket(v) == rung]
        if rung == number_rank:
            numbers = [float(str(v)) for _i, v in mine] + ([float(str(operand))] if query
                                                         and _bracket(operand) == rung else [0.0])
            low, high = min(numbers), max(numbers)
            pad = max((high - low) * 0.15, 1.0)
            axes.set_xlim(low - pad, high + pad)
            xs = [float(str(v)) for _i, v in mine]
            axes.spines[["left", "right", "top"]].set_visible(False)
        else:  # no scale across a bracket of strings, dates...: their sort order, spread out
            ordered = bson_order.sort([{"_id": i, "v": v} for i, v in mine], "v:1,_id:1")
            mine = [(doc["_id"], doc["v"]) for doc in ordered]
            xs = [float(k + 1) for k in range(len(mine))]
            axes.set_xlim(0, len(mine) + 1)
            axes.set_xticks([])
            axes.spines[["left", "right", "top"]].set_visible(False)
            # A line of its own, dashed: where a value stands says nothing of the numbers'
            # line above it (a learner read a string under 21 as near 21).
            axes.spines["bottom"].set_linestyle((0, (4, 3)))
            if number_rank in brackets and not query:  # with a query, its own note says so
                axes.text(1.0, 0.0, text(_("no number line here: these values are never above "
                                           "or below a number")),
                          transform=axes.transAxes, ha="right", va="bottom", fontsize=7,
                          color="#59636e", style="italic")
        seen: dict[float, int] = {}
        for (doc_id, value), x in zip(mine, xs, strict=True):
            height = seen[x] = seen.get(x, -1) + 1  # equal values stack upwards
            hit = doc_id in matched
            colour = "#1a7f37" if hit else ("#8c959f" if query else
                                           FIELD_COLOURS[brackets.index(rung) % 6])
            axes.scatter(x, height, s=70, color=colour if hit or not query else "white",
                         edgecolors=colour, linewidths=1.8, zorder=3)
            low, high = axes.get_xlim()
            right = x > (low + high) / 2  # a label on the side with room
            axes.annotate(text(f"_id {doc_id}: {shell(value)}"), (x, height),
                          textcoords="offset points", xytext=(-9 if right else 9, -3),
                          ha="right" if right else "left", fontsize=8)
        top = max(seen.values(), default=0)
        axes.set_ylim(-0.7, top + 1.0)
        axes.set_yticks([])
        axes.set_ylabel(text(_(RUNGS[rung])), rotation=0, ha="right", va="center", fontsize=9)
        if query and _bracket(operand) == rung:
            at = float(str(operand))
            axes.axvline(at, color="#cf222e", linewidth=1.4)
            axes.text(at, top + 0.55, " " + text(f"{{{operator}: {shell(operand)}}}"),
                      color="#cf222e", ha="left", va="center", fontsize=8)
            side = {"$gt": 1, "$gte": 1, "$lt": -1, "$lte": -1}.get(operator)
            if side:
                edge = axes.get_xlim()[1 if side > 0 else 0]
                axes.axvspan(min(at, edge), max(at, edge), color="#dafbe1", zorder=0)
        elif query:
            axes.text(0.5, 0.04, text(_("another bracket: {query} never compares these")
                                      .format(query=f"{{{operator}: {shell(operand)}}}")),
                      transform=axes.transAxes, ha="center", va="bottom", fontsize=8,
                      color="#57606a")
    if query:
        grid[-1][0].legend(handles=[
            plt.Line2D([], [], marker="o", linestyle="", color="#1a7f37",
                       label=text(_("returned (labkit's model)"))),
            plt.Line2D([], [], marker="o", linestyle="", markerfacecolor="white",
                       color="#8c959f", label=text(_("not returned")))],
            fontsize=8, loc="upper right", frameon=False)
    figure.suptitle(text(_(title)), fontsize=10)
    figure.tight_layout()
    _local_ticks(*figure.axes)
    return figure


def leaf_splits(keys: Sequence[int], capacity: int = 4,
                steps: Sequence[int] | None = None,
                title: str = N_("Sequential keys into leaves of 4: 50/50 against rightmost "
                                "splits (labkit's model)")) -> MplFigure:
    """The leaves of labkit's textbook B+tree (``engines.btree_model.BPlusTree``) as ``keys``
    go in, one row per split policy and one panel per step (after that many keys): each leaf a
    row of ``capacity`` slots, its keys written in them, with the leaves' average fill."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    shown = list(steps) if steps else sorted({capacity, capacity + 1, len(keys)})
    drawn: dict[str, list[tuple[list[list[int]], list[float]]]] = {}
    for policy in POLICIES:  # each policy's leaves after each step, from one tree
        tree = BPlusTree(capacity, policy)
        done, drawn[policy] = 0, []
        for step in shown:
            for key in keys[done:step]:
                tree.insert(key)
            done = step
            drawn[policy].append(([list(leaf.keys) for leaf in tree.leaves()],
                                  tree.leaf_fills()))
    slot_width = capacity + 0.5
    most = max(len(leaves) for snapshots in drawn.values() for leaves, _f in snapshots)
    figure, grid = plt.subplots(len(shown), len(POLICIES),
                                figsize=(0.27 * slot_width * most * len(POLICIES) + 1.2,
                                         1.05 * len(shown) + 0.7), squeeze=False)
    for column, policy in enumerate(POLICIES):
        grid[0][column].set_title(text(_(POLICY_TEXT[policy])), fontsize=9,
                                  fontweight="bold", color=FIELD_COLOURS[column])
        for row, (step, (leaves, fills)) in enumerate(zip(shown, drawn[policy], strict=True)):
            axes = grid[row][column]
            for place, leaf in enumerate(leaves):
                for slot in range(capacity):
                    filled = slot < len(leaf)
                    axes.add_patch(Rectangle(
                        (place * slot_width + slot, 0), 1, 1, edgecolor="#57606a",
                        linewidth=0.8, facecolor=FIELD_COLOURS[column] if filled else "white",
                        alpha=0.8 if filled else 1))
                    if filled:
                        axes.text(place * slot_width + slot + 0.5, 0.5, text(str(leaf[slot])),
                                  ha="center", va="center", fontsize=8, color="white")
            axes.set_xlim(-0.2, most * slot_width)
            axes.set_ylim(-0.9, 1.1)
            axes.set_aspect("equal")
            axes.axis("off")
            axes.text(0, -0.2, text(_("leaves: {leaves}; average fill: {fill}").format(
                leaves=number(len(leaves)), fill=percent(sum(fills) / len(fills), 0))),
                fontsize=8, color="#57606a", va="top")
            if column == 0:
                axes.text(-0.6, 0.5, text(_("after {n} keys").format(n=number(step))),
                          ha="right", va="center", fontsize=8)
    figure.suptitle(text(_(title)), fontsize=10)
    figure.tight_layout()
    return figure


def id_time_in_second(table: Sequence[IdPoint], title: str) -> MplFigure:
    """When in its second each ID was made (x, milliseconds: the clock's modulo 1,000) against
    the time the ID carries (y: its timestamp field, one line per second), by process. No
    rank and no random value is drawn: the figure says what the time field can tell apart."""
    import datetime as dt

    import matplotlib.pyplot as plt

    ms = [(row["clock_ns"] // 1_000_000 if "clock_ns" in row else row["made_at_ms"]) % 1000
          for row in table]
    seconds = [int(row["hex"][:8], 16) for row in table]
    lines = sorted(set(seconds))
    labels = [row["process"] for row in table]
    repeated = len(set(labels)) < len(labels)
    group = [label if repeated else label.rstrip("0123456789") or label for label in labels]
    processes = sorted(set(group))
    figure, axes = plt.subplots(figsize=(8, 1.5 + 0.9 * len(lines)))
    for line in range(len(lines)):
        axes.axhspan(line - 0.35, line + 0.35, color="#eaeef2", zorder=0)
        axes.text(8, line + 0.3, text(_("one value of the timestamp field for the whole "
                                          "second")), ha="left", va="top", fontsize=7,
                  color="#57606a")
    for index, name in enumerate(processes):
        lane = (index - (len(processes) - 1) / 2) * 0.4 / max(len(processes), 1)
        mine = _stacked([(m, lines.index(s) + lane)
                         for m, s, g in zip(ms, seconds, group, strict=True) if g == name])
        axes.scatter([m for m, _y in mine], [y for _m, y in mine], s=55, zorder=3,
                     marker=MARKERS[index % len(MARKERS)], alpha=0.8,
                     color=FIELD_COLOURS[index % len(FIELD_COLOURS)],
                     label=text(_("process {name}: {count} IDs").format(
                         name=name, count=number(len(mine)))))
    axes.set_yticks(range(len(lines)), [
        text(f"{second:08x}") + "\n" + text(objectid.iso_z(dt.datetime.fromtimestamp(second,
                                                                                    dt.UTC)))
        for second in lines], fontsize=8)
    axes.set_ylim(-0.6, len(lines) - 0.4 + 0.5)
    axes.set_xlim(0, 1000)
    axes.set_xlabel(text(_("when in its second the ID was made (ms)")))
    axes.set_ylabel(text(_("the ID's timestamp field")))
    axes.legend(fontsize=8, loc="upper left", ncol=len(processes), frameon=False)
    axes.set_title(text(_(title)), fontsize=10)
    figure.tight_layout()
    _local_ticks(*figure.axes)
    return figure


def _stacked(points: list[tuple[float, float]], width: int = 12) -> list[tuple[float, float]]:
    """Points a marker's width apart or less (``width`` ms on the 1,000 ms axis) lifted a step
    above the one before, so that each is seen: three IDs made within 2 ms drew as one."""
    out: list[tuple[float, float]] = []
    for m, y in sorted(points):
        near = sum(1 for om, oy in out if abs(om - m) <= width and abs(oy - y) < 0.3)
        out.append((m, y + 0.09 * near))
    return out


def _value_parts(value: object) -> tuple[str, list[tuple[str, int]], bytes]:
    """A value's BSON type alias, its encoded bytes (as pymongo's ``bson`` writes them), and
    their parts by name and length, for the types the lessons take apart."""
    import bson

    element = bson.encode({"v": value})[4:-1]  # the document's length and closing NUL off
    data = element[3:]  # the type byte and the name "v" with its NUL off
    kind = bson_order.bson_type(value)
    if kind == "string":
        parts = [(N_("int32 length"), 4), (N_("UTF-8 characters"), len(data) - 5), ("NUL", 1)]
    elif kind == "objectId":
        parts = [(N_("timestamp"), 4), (N_("random"), 5), (N_("counter"), 3)]
    elif kind == "date":
        parts = [(N_("int64: ms since 1970, little-endian"), 8)]
    else:
        parts = [(kind, len(data))]
    return kind, parts, data


def bson_bytes(values: Sequence[object], title: str) -> MplFigure:
    """Each value as BSON stores it: one row of bytes (hex), coloured by part (a string's
    length, characters and NUL; an ObjectId's timestamp, random value and counter; a Date's
    milliseconds), with its count of bytes."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    rows = [_value_parts(value) for value in values]
    widest = max(len(data) for _k, _p, data in rows)
    figure, axes = plt.subplots(figsize=(max(6.0, 0.36 * widest + 1.5), 1.3 * len(rows) + 0.5))
    colour = 0
    for line, ((kind, parts, data), value) in enumerate(zip(rows, values, strict=True)):
        y = -line * 2.3
        axes.text(0, y + 1.15, text(f"{kind}: {shell(value)}"), fontsize=8)
        start = 0
        for name, length in parts:
            fill = FIELD_COLOURS[colour % len(FIELD_COLOURS)]
            colour += 1
            for offset in range(length):
                axes.add_patch(Rectangle((start + offset, y), 1, 0.8, facecolor=fill,
                                         edgecolor="white", alpha=0.85))
                axes.text(start + offset + 0.5, y + 0.4, text(f"{data[start + offset]:02x}"),
                          ha="center", va="center", fontsize=7, color="white",
                          family="monospace")
            axes.text(start + length / 2, y - 0.15, text(_(name)), ha="center", va="top",
                      fontsize=7, color=fill)
            start += length
        axes.text(start + 0.4, y + 0.4, text(_("{count} bytes").format(count=number(start))),
                  va="center", fontsize=8, fontweight="bold")
    axes.set_xlim(-0.2, widest + 3)
    axes.set_ylim(-2.3 * (len(rows) - 1) - 0.7, 1.6)
    axes.set_aspect("equal")
    axes.axis("off")
    axes.set_title(text(_(title)), fontsize=10)
    return figure


# What each kind of engine is, for the engines of a check (lesson 07).
_ENGINE_KINDS = {
    "model": (N_("labkit's model"), N_("computes MongoDB's documented rules:\nit predicts, "
                                      "it observes nothing")),
    "fake": (N_("in-process fake"), N_("a Python library imitating pymongo:\nno server, "
                                       "its own rules")),
    "mongodb": (N_("a MongoDB server"), N_("MongoDB itself:\nwhat it answers is observed")),
}


def engine_kinds(engines: Sequence[str],
                 title: str = N_("The engines of this check, and what each is")) -> MplFigure:
    """One box per engine (its display name), under what kind of engine it is: labkit's model,
    an in-process fake, or a MongoDB server, and what its answer is worth."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    kinds = list(dict.fromkeys("fake" if e in FAKES else e for e in engines
                               if e in FAKES or e in _ENGINE_KINDS))
    figure, axes = plt.subplots(figsize=(3.5 * max(len(kinds), 1), 2.4))
    for column, kind in enumerate(kinds):
        heading, what = _ENGINE_KINDS[kind]
        names = [engine_name(e) for e in engines if ("fake" if e in FAKES else e) == kind]
        fill = FIELD_COLOURS[column % len(FIELD_COLOURS)]
        axes.add_patch(FancyBboxPatch((column * 3 + 0.1, 0), 2.7, 2, facecolor=fill,
                                      alpha=0.12, edgecolor=fill,
                                      boxstyle="round,pad=0.05"))
        axes.text(column * 3 + 1.45, 1.75, text(_(heading)), ha="center", va="center",
                  fontsize=9, fontweight="bold", color=fill)
        axes.text(column * 3 + 1.45, 1.2, text(", ".join(names)), ha="center", va="center",
                  fontsize=9, family="monospace")
        axes.text(column * 3 + 1.45, 0.5, _lines(_(what)), ha="center", va="center", fontsize=8)
    axes.set_xlim(0, 3 * max(len(kinds), 1))
    axes.set_ylim(-0.1, 2.1)
    axes.axis("off")
    axes.set_title(text(_(title)), fontsize=10)
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
