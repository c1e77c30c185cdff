"""pandas tables: fixtures as the shell writes them, B-tree pivots, results.json as a frame,
the chapter's recorded outputs, and the course's lessons."""

from __future__ import annotations

import json
from pathlib import Path

from labkit.claims import recorded
from labkit.engines.btree_engine import LoadResult, Measurement, NotMeasured
from labkit.lessons import course
from labkit.outputs import tables

ROOT = Path(__file__).resolve().parent.parent


def test_a_fixture_table_shows_values_and_types_without_answers():
    """The orders table lists each userId as the shell writes it, with its BSON type."""
    frame = tables.fixture("orders")
    assert frame.loc[3, "userId"] == 'NumberLong("42")'
    assert frame.loc[5, "userId type"] == "decimal"
    assert list(frame.index) == [1, 2, 3, 4, 5]


def test_a_missing_field_is_shown_as_missing():
    """The mixed fixture's document without v says so."""
    assert tables.fixture("mixed").loc["missing", "v"] == "(missing)"


def test_a_uuid_id_is_shown_as_the_shell_writes_it():
    """A UUID _id heads its row as mongosh writes it, UUID("…"), not as raw bytes; an ObjectId
    _id as its hex."""
    assert tables.fixture("sessions").index[0] == 'UUID("01a11abd-aa80-71b9-a0c4-70abe7bd78f2")'
    assert str(tables.fixture("tickets").index[0]) == "6ac6dcff5c17e2a9b001a2f0"


def _measurement(engine, fills, sizes):
    return Measurement(engine, "1", 10, "", None,
                       [LoadResult(keys=k, n=10, index_bytes=sizes[k], leaf_pages=1,
                                   avg_leaf_fill=fills[k], insert_seconds=0.5) for k in fills])


def test_btree_pivot_gives_engine_by_key_kind_in_rounded_percentages():
    """Fill and size relative to uuid7 per engine and key kind; an engine not run is left out."""
    comparison = {"a": _measurement("a", {"uuid4": 0.6934, "uuid7": 0.9}, {"uuid4": 142,
                                                                            "uuid7": 100}),
                  "b": NotMeasured("b", not_run="no b here")}
    pivot = tables.btree_pivot(comparison)
    assert pivot.loc["a 1", ("avg leaf fill", "uuid4")] == "69.3%"
    assert pivot.loc["a 1", ("size vs uuid7", "uuid4")] == "142%"
    assert list(pivot.index) == ["a 1"]
    assert "not run: no b here" in tables.btree_frame(comparison)["note"].tolist()
    # An engine's rows are headed by its name, as the rest of lesson 06 writes it (the pivot
    # said "postgres 15.18" beside "PostgreSQL" everywhere else).
    named = tables.btree_pivot({"postgres": _measurement("postgres", {"uuid7": 0.9},
                                                         {"uuid7": 100})})
    assert list(named.index) == ["PostgreSQL 1"]


def test_the_btree_frame_spells_engines_as_the_pivot_and_dashes_what_was_not_run():
    """Lesson 06's frame under the pivot read "postgres 15.18" where the pivot read
    "PostgreSQL 15.18", and its WiredTiger row (not run) showed NaN in its four number
    columns: both tables head a row by the engine's display name, and a figure an engine did
    not measure is "-", as everywhere else in the lessons' tables."""
    comparison = {"postgres": _measurement("postgres", {"uuid7": 0.9}, {"uuid7": 100}),
                  "wiredtiger": NotMeasured("wiredtiger", not_run="no binding")}
    frame = tables.btree_frame(comparison)
    assert frame["engine"].tolist() == ["PostgreSQL 1", "WiredTiger"]
    assert list(tables.btree_pivot(comparison).index) == ["PostgreSQL 1"]
    assert frame.iloc[1].tolist() == ["WiredTiger", "-", "-", "-", "-", "-",
                                      "not run: no binding"]
    assert not frame.isna().any().any()


def test_results_json_becomes_one_row_per_claim_and_engine(tmp_path):
    """tables.results reads a report folder's results.json into rows with plain verdict words."""
    data = {"claims": [{"id": "U4", "topic": "btree", "kind": "survey", "verdict": "finding",
                        "results": [{"engine": "SQLite", "engine_version": "3", "verdict":
                                     "holds", "seconds": 1.0, "reason": ""},
                                    {"engine": None, "engine_version": None, "verdict":
                                     "not-run", "seconds": 0, "reason": "no postgres"}]}]}
    (tmp_path / "results.json").write_text(json.dumps(data))
    frame = tables.results(tmp_path)
    assert frame["verdict"].tolist() == ["holds", "not run"]
    assert frame["claim verdict"].tolist() == ["finding", "finding"]


def test_the_claims_table_has_no_titles_or_expectations():
    """The catalogue table shown in lesson 00 cannot give an exercise's answer away."""
    frame = tables.claims()
    assert "title" not in frame
    assert "expected" not in frame
    assert frame.loc["S2", "lesson"] == "02_bson_sort_order.ipynb"


def test_the_claims_table_names_each_source_whole_in_vietnamese(monkeypatch):
    """The manual's Vietnamese title holds a parenthesis ("tài liệu hướng dẫn (manual) và…"):
    the column keeps it whole, and a document's title loses only its file name."""
    import labkit
    from labkit import i18n

    monkeypatch.setattr(i18n, "_chosen", None)
    labkit.language("vi")
    try:
        frame = tables.claims()
    finally:
        monkeypatch.setattr(i18n, "_chosen", None)
    assert frame.loc["X1", "nguồn"] == "tài liệu hướng dẫn (manual) và bộ test của server MongoDB"
    assert frame.loc["D1", "nguồn"] == "BSON & ObjectId, phần 2/3"
    assert "tài liệu hướng dẫn (manual) và bộ test của server MongoDB" in frame._repr_html_()


def test_the_recorded_outputs_are_the_chapters_and_say_so():
    """The same-second table splits the chapter's IDs and carries the 'recorded' label."""
    frame = recorded.same_second()
    assert set(frame["random"]) == {"454f588ca2", "174cbaf76f"}
    assert set(frame["getTimestamp()"]) == {"2026-10-08T03:45:49.000Z"}
    assert "recorded by" in frame.attrs["source"]
    assert recorded.from_seconds()["counter"].tolist() == ["4196bf", "000000"]


def test_every_notebook_is_a_lesson_of_the_course_and_back():
    """course.LESSONS and the notebooks folder list the same files (new lessons join both)."""
    files = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert {lesson.file for lesson in course.LESSONS} <= files


def test_a_long_note_is_cut_at_a_word_before_pandas_cuts_it():
    """A not-run note longer than pandas shows of a cell (``display.max_colwidth``, 50) is cut
    at a word, with an ellipsis: lesson 06's MongoDB row read "…nào dùng đư..." (issue 32)."""
    note = tables.fitted("chưa chạy: Không có server MongoDB nào dùng được (đã thử "
                         "LABKIT_MONGODB_URI: chưa đặt)")
    assert note == "chưa chạy: Không có server MongoDB nào dùng được\u2026"
    assert len(note) <= tables.CELL_WIDTH
    assert tables.fitted("not run: short") == "not run: short"
    frame = tables.btree_frame(NotMeasured("mongodb", not_run="x " * 60))
    assert len(frame.iloc[0, -1]) <= tables.CELL_WIDTH


def test_the_btree_table_writes_its_counts_in_the_learners_digits(monkeypatch):
    """Lesson 06's table showed "5537792" bytes and "<NA>" for the model's bytes in Vietnamese
    (issue 32 names the ungrouped byte counts): counts are grouped as Babel writes them for the
    language, and a figure not measured is "-"."""
    import labkit
    from labkit import i18n

    measured = Measurement("sqlite", "3.40.1", 1, "", None, [
        LoadResult(keys="uuid4", n=1, index_bytes=5_537_792, leaf_pages=1340,
                   avg_leaf_fill=0.901, insert_seconds=1.47)])
    model = Measurement("model", "", 1, "", None, [
        LoadResult(keys="uuid4", n=1, index_bytes=None, leaf_pages=4499, avg_leaf_fill=0.695,
                   insert_seconds=1.06)])
    monkeypatch.setattr(i18n, "_chosen", None)
    labkit.language("vi")
    try:
        rows = tables.btree_frame([measured, model]).values.tolist()
    finally:
        monkeypatch.setattr(i18n, "_chosen", None)
    assert rows[0][2:5] == ["5.537.792", "1.340", "90,1%"]
    assert rows[1][2:4] == ["-", "4.499"]


def test_lesson_07s_tables_show_what_a_fake_raised_whole(tmp_path):
    """Lesson 07's tables of what the fakes raised cut each message at pandas' 50 characters,
    mid-word ("TypeError: can't compare offset-naive and offs..."): the page and the text now
    show mongomock's whole message (mongomock 4.3.0 refuses to sort a Decimal128, as its
    'does not know how to sort' NotImplementedError says)."""
    from labkit.lessons import checkviews
    from labkit.run import check as claimcheck

    claims = tmp_path / "decimal_sort.yaml"
    claims.write_text(
        "- id: decimal-sorts\n"
        "  title: a Decimal128 sorts among numbers\n"
        "  fixture: [{_id: 1, v: {$numberDecimal: '2'}}, {_id: 2, v: 1}]\n"
        "  find: {filter: {}, sort: {v: 1}}\n"
        "  expect: {ids: [2, 1], ordered: true}\n")
    result = claimcheck.run_files([claims], ["mongomock"])
    raised = checkviews.raised(result, ["mongomock"])
    message = raised.iloc[0, 0]
    assert len(message) > 50
    for table in (raised, checkviews.scorecard(result)):
        assert message.replace("'", "&#x27;") in table._repr_html_() or \
            message.replace("<", "&lt;").replace(">", "&gt;") in table._repr_html_()
        assert "..." not in repr(table)
