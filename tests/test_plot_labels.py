"""Whatever a name says, it reaches matplotlib as plain text: an ``_id``, a process's or a
key kind's name, a field's, a server's version. ``$…$`` is never read as mathtext (a name
``x$\\nope{$`` ended in a ValueError traceback), a byte that is not UTF-8 never reaches
FreeType (a ``TypeError`` from ``set_text()``), and a control character is drawn as its escape
(matplotlib warned "Glyph 27 missing", the ESC raw in the warning). Matplotlib's rule: an even
number of unescaped ``$`` makes a text mathtext, and ``\\$`` is a literal dollar (matplotlib's
"Writing mathematical expressions" page). (A claim file's name, the topic of its claims in
``labkit check``, is written in the report's HTML chart, not drawn by matplotlib:
tests/test_report.py.)"""

from __future__ import annotations

import re
import warnings

import matplotlib
import pytest

from labkit import i18n
from labkit.engines.btree_engine import LoadResult, Measurement
from labkit.outputs import plots

matplotlib.use("Agg")

HOSTILE = ["x$\\nope{$", "$x^2$", "a\\$b$c$", "\udcff", "\x1b]0;PWNED\x07\x1b[2J", "\u202eevil",
           "{$gt: 1} and {$lt: 2}", "tab\there", "$"]


def _measured(engine: str, version: str, kind: str, fills: list[float]) -> Measurement:
    """One load of three leaf pages with the fills given, as a B-tree summary draws it."""
    return Measurement(engine, version, 10, "", None, [
        LoadResult(keys=kind, n=10, index_bytes=None, leaf_pages=3, avg_leaf_fill=None,
                   insert_seconds=0.0, leaf_fills=fills)])


def _plain(text) -> str:
    """What matplotlib draws for a text artist: mathtext is refused here."""
    shown, is_math = text._preprocess_math(text.get_text())
    assert not is_math, text.get_text()
    return shown


def _texts(figure) -> list[str]:
    return [_plain(t) for t in figure.findobj(matplotlib.text.Text) if t.get_text()]


def _renders(figure) -> list[str]:
    """The figure rendered to PNG, with no warning, then every text it drew (rendering makes
    the tick labels)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing glyph is a warning: none may come
        assert plots.png_bytes(figure).startswith(b"\x89PNG")
    return _texts(figure)


@pytest.mark.parametrize("name", HOSTILE, ids=[ascii(n) for n in HOSTILE])
def test_hostile_ids_processes_fields_and_versions_render_in_every_plot(name):
    """The type ladder's ``_id``s, the ID chart's process names, the bit layout's fields and a
    B-tree summary's engine version are drawn as plain text, with no warning."""
    figures = [
        plots.type_ladder([{"_id": name, "v": 1}, {"_id": "b", "v": "s"}]),
        plots.id_rank([{"hex": "65" * 12, "process": name, "made_at_ms": 1.0},
                       {"hex": "66" * 12, "process": "B", "made_at_ms": 2.0}], name),
        plots.bit_layout([{"field": name, "bits": 32}, {"field": "counter", "bits": 24}], name),
        plots.btree_summary(_measured(name, name, name, [0.5, 0.7])),
        plots.splits_per_1000({name: [1, 2, 3]}, 10, name),
    ]
    for figure in figures:
        texts = _renders(figure)
        assert any(t.count("$") == name.count("$") and t.count("$") for t in texts) \
            or "$" not in name


# Each figure a lesson draws, with data whose ticks fall between whole numbers (the rank chart
# of lesson 05 read "0.5 … 3.5" in Vietnamese, issue 32).
ENGLISH_DECIMAL_TICK = re.compile(r"^[\u2212-]?\d+\.\d+$")
FIGURES = {
    "bit_layout": lambda: plots.bit_layout([{"field": "timestamp", "bits": 32},
                                            {"field": "counter", "bits": 24}], "ObjectId"),
    "id_rank": lambda: plots.id_rank([{"hex": "65" * 12, "process": "P1", "clock_ns": 1_000_000},
                                      {"hex": "66" * 12, "process": "P2", "clock_ns": 3_700_000}],
                                     "ranks"),
    "type_ladder": lambda: plots.type_ladder([{"_id": "a", "v": 1}, {"_id": "b", "v": "s"}]),
    "btree_summary": lambda: plots.btree_summary(_measured("model", "", "uuid4", [0.55, 0.7])),
    "splits_per_1000": lambda: plots.splits_per_1000({"uuid4": [1, 2, 3]}, 10, "splits"),
}


@pytest.mark.parametrize("name", FIGURES)
def test_a_figure_writes_its_tick_numbers_in_the_learners_language(name, monkeypatch):
    """In Vietnamese every numeric tick label of every figure is written with a decimal comma
    ("0,5", "1,5"), never the English "0.5"; names on a categorical axis stay as they are."""
    monkeypatch.setattr(i18n, "_chosen", "vi")
    figure = FIGURES[name]()
    figure.canvas.draw()
    ticks = [t.get_text() for axes in figure.axes
             for t in [*axes.get_xticklabels(), *axes.get_yticklabels()] if t.get_text()]
    assert ticks, name
    assert [t for t in ticks if ENGLISH_DECIMAL_TICK.match(t)] == [], ticks
    monkeypatch.setattr(i18n, "_chosen", "en")
    english = FIGURES[name]()
    english.canvas.draw()
    assert not [t.get_text() for axes in english.axes for t in axes.get_xticklabels()
                if "," in t.get_text() and t.get_text()[0].isdigit()
                and not re.fullmatch(r"\d{1,3}(,\d{3})+", t.get_text())]


@pytest.mark.parametrize(("largest", "line"), [(0.06, False), (1.4, True)])
def test_the_cache_plot_marks_the_outgrowing_only_where_it_happened(largest, line):
    """Lesson 06's cache plot draws the red line at 1 and says the index outgrows the cache
    only where a load's index did; where every load stayed within the cache (WiredTiger's 64 MB
    at the default N: at most about 6% of it), its title says so and how much it took, where it
    read "Cache reads as the index outgrows the cache" over points squashed left of a line none
    reached (a learner's walk through lesson 06, 2026-12-03)."""
    import matplotlib.pyplot as plt

    points = [{"keys": kind, "n": n, "index_to_cache": largest * n / 200_000,
               "cache_reads": n // 1000} for kind in ("uuid4", "uuid7")
              for n in (25_000, 100_000, 200_000)]
    figure = plots.cache_reads_vs_ratio(points)
    texts = _renders(figure)
    title = figure.axes[0].get_title()
    assert ("the index outgrows the cache" in texts) is line
    if line:
        assert title == "Cache reads as the index outgrows the cache"
    else:
        assert title == "Cache reads: the index stayed within the cache (at most 6% of it)"
    plt.close(figure)


def test_the_cache_plot_states_no_share_it_did_not_measure():
    """Where no load's cache share was measured (the engine gave no cache size, or no cache
    reads), the title says none was measured, not "at most 0% of it", and draws no line."""
    import matplotlib.pyplot as plt

    figure = plots.cache_reads_vs_ratio([{"keys": "uuid4", "n": 1000, "index_to_cache": None,
                                          "cache_reads": 3},
                                         {"keys": "uuid7", "n": 1000, "index_to_cache": 2.0,
                                          "cache_reads": None}])
    assert figure.axes[0].get_title() == "Cache reads: none measured"
    assert "the index outgrows the cache" not in _renders(figure)
    plt.close(figure)
