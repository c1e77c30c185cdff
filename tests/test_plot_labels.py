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


def _ids(names: list[str]) -> list[dict]:
    """One ID a name, a millisecond apart (the rank and in-second charts), made by process
    ``name``."""
    return [{"hex": f"{65 + index:02x}" * 12, "process": name, "made_at_ms": float(index)}
            for index, name in enumerate(names)]


def _hostile_figures(names: list[str]) -> list[tuple[object, list[str]]]:
    """Each plot a lesson draws, with ``names`` as its ``_id``s, processes, fields and keys, one
    of them as its title; the ID-in-second chart and a B-tree summary (engine, version and kind)
    three names at a time. Each figure with the names it was given."""
    figures = [
        plots.type_ladder([{"_id": name, "v": index} for index, name in enumerate(names)]
                          + [{"_id": "b", "v": "s"}]),
        plots.id_rank(_ids(names), names[0]),
        plots.bit_layout([{"field": name, "bits": 8} for name in names], names[1]),
        plots.splits_per_1000({name: [1, 2, 3] for name in names}, 10, names[2]),
        plots.type_brackets([{"_id": name, "userId": index} for index, name in
                             enumerate(names)] + [{"_id": "b", "userId": "s"}]),
        plots.type_brackets([{"_id": name, "userId": 1} for name in names], query={"$gt": 0}),
    ]
    given = [(figure, names) for figure in figures]
    for at in range(0, len(names), 3):
        three = names[at:at + 3]
        given.append((plots.id_time_in_second(_ids(three), three[0]), three))
        engine, version, kind = three
        given.append((plots.btree_summary(_measured(engine, version, kind, [0.5, 0.7])), three))
    return given


def test_hostile_ids_processes_fields_and_versions_render_in_every_plot():
    """The type ladder's and the type brackets' ``_id``s, the ID charts' process names, the bit
    layout's fields, the split chart's keys and a B-tree summary's engine, version and kind are
    drawn as plain text, with no warning, many at once: each figure shows every name it was
    given that holds a ``$`` as it was written, in some text it drew (never as mathematics:
    ``_plain``)."""
    for figure, names in _hostile_figures(HOSTILE):
        texts = _renders(figure)
        missing = [name for name in names
                   if "$" in name and not any(name in text for text in texts)]
        assert not missing, (missing, texts)


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
    "type_brackets": lambda: plots.type_brackets([{"_id": 1, "userId": 0.5},
                                                  {"_id": 2, "userId": 2.5}], "userId"),
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


def _drawn(factory, language, monkeypatch) -> list[str]:
    """The texts of the figure ``factory`` draws in ``language``, rendered with no warning, each
    without the spaces around it."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr(i18n, "_chosen", language)
    figure = factory()
    texts = [t.strip() for t in _renders(figure)]
    plt.close(figure)
    return texts


def _orders():
    from labkit.model import fixtures

    return fixtures.load("orders")


def _chapter_run():
    from labkit.model import objectid

    return objectid.inversion_example()


# The lessons' figures that teach before an answer, each with texts it must show in English and
# in Vietnamese (labkit/locale/vi/labkit.po), and texts it must not show.
TEACHING = {
    "ladder": (lambda: plots.ladder(),
               ["1. MinKey", "3. Numbers (int, long, double, decimal)",
                "The BSON type ladder: type first, then value"],
               ["Bậc thang kiểu BSON: kiểu trước, giá trị sau",
                "sắp xếp tăng dần: bậc thấp đứng trước"],
               # 02.first's answer is the empty array, which sorts below null: not shown
               ["empty array", "mảng rỗng"]),
    "type_brackets": (lambda: plots.type_brackets(_orders(), "userId"),
                      ["Numbers (int, long, double, decimal)", "Symbol, String", '_id 2: "42"',
                       '_id 3: NumberLong("42")', "Each value in its type's bracket"],
                      ["Số (int, long, double, decimal)", "Symbol, String (chuỗi)",
                       "Mỗi giá trị trong nhóm kiểu của nó"],
                      # 03.gt_zero's answer: no operand, nothing marked as returned
                      ["returned (labkit's model)", "{$gt: 0}",
                       "được trả về (mô hình của labkit)"]),
    "type_brackets answered": (
        lambda: plots.type_brackets(_orders(), "userId", {"$gt": 0}),
        ["{$gt: 0}", "returned (labkit's model)", "not returned",
         "another bracket: {$gt: 0} never compares these"],
        ["được trả về (mô hình của labkit)",
         "nhóm kiểu khác: {$gt: 0} không bao giờ so sánh các giá trị này"], []),
    "leaf_splits": (lambda: plots.leaf_splits(range(1, 13), 4, steps=[4, 5, 9, 12]),
                    ["50/50 splits", "rightmost splits", "after 12 keys",
                     "leaves: 5; average fill: 60%", "leaves: 3; average fill: 100%"],
                    ["tách trang 50/50", "sau 12 khoá", "số trang lá: 5; lấp đầy trung bình: 60%",
                     "số trang lá: 3; lấp đầy trung bình: 100%"], []),
    "id_time_in_second": (lambda: plots.id_time_in_second(_chapter_run(), "run"),
                          ["process A: 3 IDs", "process B: 3 IDs", "6ac71201\n2026-10-08T03:46:09Z",
                           "when in its second the ID was made (ms)"],
                          ["tiến trình A: 3 ID", "trường timestamp của ID"],
                          # no random value, no rank: 05.randoms and 05.inversion stay open
                          ["d1375a74bd", "a9fded4f0c", "rank when sorted by _id"]),
    "bson_bytes": (lambda: plots.bson_bytes(
        [__import__("datetime").datetime(2026, 10, 1, tzinfo=__import__("datetime").UTC),
         "2026-10-01T00:00:00.000Z"], "bytes"),
        ["8 bytes", "29 bytes", "int32 length", "UTF-8 characters", "NUL", "19", "5a"],
        ["8 byte", "29 byte", "độ dài int32", "các ký tự UTF-8"], []),
    "bson_bytes objectid": (lambda: plots.bson_bytes(
        [__import__("bson").ObjectId("507f1f77bcf86cd799439011")], "ObjectId"),
        ["timestamp", "random", "counter", "12 bytes", "50", "7f", "11"],
        ["giá trị ngẫu nhiên", "bộ đếm", "12 byte"],
        # 00.when's answer, the time the ID was made, is not shown
        ["2012", "1350508407"]),
    "engine_kinds": (lambda: plots.engine_kinds(["model", "mongomock", "montydb", "mongodb"]),
                     ["labkit's model", "in-process fake", "a MongoDB server", "mongomock, montydb",
                      "MongoDB"],
                     ["mô hình của labkit", "bản giả lập trong tiến trình", "một MongoDB server"],
                     []),
}


@pytest.mark.parametrize("name", TEACHING)
@pytest.mark.parametrize("language", ["en", "vi"])
def test_a_teaching_figure_draws_its_labels_in_both_languages(name, language, monkeypatch):
    """Each figure a lesson shows before an answer draws, with no warning, the labels that say
    what it shows, in English and in Vietnamese, and none of the answers it must not give."""
    factory, english, vietnamese, never = TEACHING[name]
    texts = _drawn(factory, language, monkeypatch)
    expected = english if language == "en" else vietnamese
    assert [label for label in expected if label not in texts] == [], texts
    assert [t for t in texts for answer in never if answer in t] == []


@pytest.mark.parametrize("language", ["en", "vi"])
def test_the_bracket_rows_are_named_in_the_ladders_words(language, monkeypatch):
    """Lesson 03's bracket figure named its rows "Số (Numbers)" and "String" in Vietnamese, two
    languages side by side: each row is named as the type ladder names its rung
    (``bson_order.ladder``, a BSON type's name kept, labkit's words in the learner's
    language), the English text of a rung never left untranslated."""
    from labkit.model import bson_order

    monkeypatch.setattr(i18n, "_chosen", language)
    ladder = bson_order.ladder()
    assert plots.RUNGS[:1] + plots.RUNGS[2:] == bson_order.LADDER
    texts = _drawn(lambda: plots.type_brackets(_orders(), "userId"), language, monkeypatch)
    rows = [t for t in texts if t in ladder]
    assert rows == [ladder[2], ladder[3]]
    if language == "vi":
        assert not {"Numbers", "String", "Số (Numbers)"} & set(texts)


def test_the_answered_brackets_mark_what_the_model_returns():
    """With ``{$gt: 0}``, lesson 03's bracket figure fills the four numeric orders (returned by
    labkit's model) and leaves the string "42" hollow on its own line: type bracketing, the
    manual's "Comparison Query Operators" page (B1)."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    figure = plots.type_brackets(_orders(), "userId", {"$gt": 0})
    numbers, strings = figure.axes
    filled = {to_hex(c) for collection in numbers.collections for c in collection.get_facecolors()
              if collection.get_offsets().shape[0]}
    assert filled == {"#1a7f37"}
    assert sum(c.get_offsets().shape[0] for c in numbers.collections) == 4
    assert {to_hex(c) for collection in strings.collections
            for c in collection.get_facecolors()} == {"#ffffff"}
    plt.close(figure)


@pytest.mark.parametrize(("language", "note"), [
    ("en", "no number line here: these values are never above or below a number"),
    ("vi", "không có trục số ở đây: các giá trị này không bao giờ lớn hơn hay nhỏ hơn một số"),
])
def test_a_bracket_without_a_scale_says_so(language, note, monkeypatch):
    """A learner's walk: the string "42", drawn on its own line under the numbers' line, sat
    under 21 and read as "about 21". Its line is dashed and says it is no number line (where no
    query's own note already says its bracket never meets the operand)."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr(i18n, "_chosen", language)
    figure = plots.type_brackets(_orders(), "userId")
    numbers, strings = figure.axes
    assert note in [t.get_text() for t in strings.texts]
    assert strings.spines["bottom"].get_linestyle() != numbers.spines["bottom"].get_linestyle()
    plt.close(figure)


def test_the_leaf_splits_are_the_models_own():
    """The leaf figure draws the leaves of labkit's ``BPlusTree``: after 12 sequential keys into
    leaves of 4, 50/50 splits leave 1-2, 3-4, 5-6, 7-8 half full and 9-12 full; rightmost splits
    leave three full leaves."""
    import matplotlib.pyplot as plt

    figure = plots.leaf_splits(range(1, 13), 4, steps=[12])
    half, rightmost = figure.axes
    def keys(axes):
        return [t.get_text() for t in axes.texts if t.get_text().isdigit()]
    assert keys(half) == [str(k) for k in range(1, 13)]
    assert len(half.patches) == 5 * 4
    assert len(rightmost.patches) == 3 * 4
    assert sum(p.get_facecolor()[:3] != (1.0, 1.0, 1.0) for p in half.patches) == 12
    plt.close(figure)


def test_ids_made_within_a_marker_of_each_other_are_each_seen():
    """A learner's walk: the legend said process A made 3 IDs, but two of them, made at 609 and
    610 ms, drew as one marker. Markers a marker's width apart are stacked, so that each of the
    six is seen at its own place."""
    import matplotlib.pyplot as plt

    figure = plots.id_time_in_second(_chapter_run(), "run")
    (axes,) = figure.axes
    points = [tuple(p) for c in axes.collections for p in c.get_offsets()]
    assert len(points) == 6
    # A marker is about 12 ms wide on the 1,000 ms axis: two closer in time must differ in y.
    overlapping = [(a, b) for i, a in enumerate(points) for b in points[i + 1:]
                   if abs(a[0] - b[0]) <= 12 and abs(a[1] - b[1]) < 0.08]
    assert overlapping == []
    plt.close(figure)
