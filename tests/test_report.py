"""The report: results.json's shape, a self-contained HTML page, Markdown, the terminal table."""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
import json
import os
import re
import sys
from pathlib import Path

import pytest
from helpers import ONE_CLAIM, labkit

from labkit.claims import files
from labkit.claims.claim import COLOURS, VERDICTS, Figure, Observation, needs, topic_text
from labkit.cli import main
from labkit.errors import ServerUnavailable
from labkit.experiments import catalogue as claims
from labkit.names import EngineInfo
from labkit.outputs import escape, plots, report
from labkit.run.results import SCHEMA as SCHEMA_ID
from labkit.run.results import ClaimResult, Result, Run

CLAIM_FIELDS = {"id", "title", "topic", "kind", "source", "experiment", "lesson", "verdict",
                "prediction", "expected", "results"}
ROW_FIELDS = {"verdict", "verdict_words", "engine", "engine_version", "engine_key",
              "engine_name", "predicted", "observed", "reason", "missing", "missing_detail", "hint",
              "evidence", "seconds"}


# ``offline_run`` (tests/conftest.py) is a real run of every claim with no database server at
# all, on small B-tree loads: its MongoDB rows say "no mongodb: this run is offline on purpose".


@pytest.fixture(scope="module")
def offline_report(offline_run, tmp_path_factory):
    """``report.write`` of the offline run, once for the tests that only read what it wrote
    (its plots take a second or more to draw): ``{"json", "html", "markdown"}`` paths."""
    return report.write(offline_run, tmp_path_factory.mktemp("offline-report"))


def test_the_offline_run_has_no_errors(offline_run):
    """Without servers, claims hold, are findings or are not run; none errs."""
    verdicts = {row.verdict for row in offline_run.rows}
    assert claims.ERROR not in verdicts, [str(r) for r in offline_run.rows if r.verdict == "error"]
    assert {claims.HOLDS, claims.FINDING, claims.NOT_RUN} <= verdicts
    assert offline_run.exit_status() == 0
    assert offline_run.exit_status(strict=True) == 1


def test_results_json_has_every_field_for_every_claim(offline_run, offline_report):
    """Each claim in results.json carries the documented fields, its rows, and known verdicts."""
    paths = offline_report
    data = json.loads(paths["json"].read_text())
    assert len(data["claims"]) == 31
    for claim in data["claims"]:
        assert claim.keys() == CLAIM_FIELDS
        assert claim["verdict"] in {"holds", "fails", "finding", "not-run", "error"}
        assert claim["results"]
        for row in claim["results"]:
            assert row.keys() == ROW_FIELDS
    assert data["counts"]["hold"] == sum(c["verdict"] == "holds" for c in data["claims"])
    assert data["summary"] == offline_run.summary()


def test_html_is_self_contained(offline_run, offline_report):
    """report.html loads nothing from elsewhere and embeds its plots as data URIs."""
    page = offline_report["html"].read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<figure class='chart'>" in page  # the verdicts by topic, written in HTML
    assert page.count("data:image/png;base64,") >= 1  # U1's bit layout, among others
    for claim in offline_run.to_dict()["claims"]:
        assert f"id='{claim['id']}'" in page
    assert html.escape(offline_run.summary(), quote=True) in page


def _chart_rows(chart: str) -> dict[str, dict[str, int]]:
    """The verdict chart's rows read back: each topic's counts by verdict colour's name."""
    colour_verdict = {colour: verdict for verdict, colour in COLOURS.items()}
    rows = {}
    for topic, bar, total in re.findall(
            r"<tr><th>(.*?)</th><td><div class='bar' style='width:[\d.]+%'>(.*?)</div></td>"
            r"<td class='n'>(\d+)</td></tr>", chart):
        counts = {colour_verdict[c]: int(n) for c, n in
                  re.findall(r"background:(#[0-9a-f]{6})' title='[^']*'>(\d+)</span>", bar)}
        assert sum(counts.values()) == int(total), topic
        rows[html.unescape(topic)] = counts
    return rows


def test_the_verdict_chart_counts_each_topics_claims_by_verdict(offline_run, offline_report):
    """The page's chart has a row per topic, in the claims' order, whose segments count that
    topic's claims by verdict, and the widest row is the topic with the most claims."""
    page = offline_report["html"].read_text()
    chart = page[page.index("<figure class='chart'>"):page.index("</figure>")]
    expected: dict[str, dict[str, int]] = {}
    for claim in offline_run.claims:
        counts = expected.setdefault(topic_text(claim.claim.topic), {})
        counts[claim.verdict] = counts.get(claim.verdict, 0) + 1
    rows = _chart_rows(chart)
    assert list(rows) == list(expected)
    assert rows == expected
    most = max(expected, key=lambda t: sum(expected[t].values()))
    assert f"<th>{most}</th><td><div class='bar' style='width:100.0%'>" in chart
    legend = re.findall(r"<i style='background:(#[0-9a-f]{6})'></i>", chart)
    assert legend == [COLOURS[v] for v in VERDICTS if any(v in c for c in expected.values())]


HOSTILE_TOPICS = ["x$\\nope{$", "\udcff", "\x1b]0;PWNED\x07\x1b[2J", "\u202eevil", "<b>x</b>",
                  "a'b\"c", "tab\there"]


@pytest.mark.parametrize("name", HOSTILE_TOPICS, ids=ascii)
def test_the_verdict_chart_shows_a_hostile_topic_as_text(name):
    """A claim file's name is its claims' topic: the chart shows its visible form, escaped
    (markup as text, controls and bidi overrides as escapes, a lone surrogate replaced)."""
    item = dataclasses.replace(claims.get("O3"), topic=name)
    chart = report.verdict_chart([ClaimResult(item, [Result(item, claims.HOLDS)])])
    assert f"<tr><th>{escape.html(name)}</th>" in chart
    assert not any(ch in chart for ch in "\x1b\x07\u202e\t\udcff")
    assert "<b>" not in chart
    assert "a'b" not in chart
    assert _chart_rows(chart) == {html.unescape(escape.html(name)): {claims.HOLDS: 1}}


@pytest.mark.parametrize("file_name", ["x$\\nope{$.yaml", "e\x1b[2Jx.yaml", b"n\xff.yaml"],
                         ids=ascii)
def test_a_claim_file_whatever_its_name_gets_its_report(tmp_path, capfd, file_name):
    """``labkit check 'x$\\nope{$.yaml'``, a name holding ESC or the byte 0xff writes its
    report, the file's name in the verdict chart (the first ended in matplotlib's mathtext
    ValueError and no report, the last in a TypeError from FreeType, while the chart was drawn
    by matplotlib)."""
    if isinstance(file_name, bytes) and sys.platform in ("darwin", "win32"):
        pytest.skip("needs file names of bytes")
    folder = tmp_path / "claims"
    folder.mkdir()
    path = os.path.join(os.fsencode(folder), os.fsencode(file_name))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(ONE_CLAIM)
    out = tmp_path / "out"
    status = main(["check", os.fsdecode(path), "--quiet", "--out", str(out)])
    captured = capfd.readouterr()
    assert status == 0, captured.err
    assert "Traceback" not in captured.err, captured.err
    assert "\x1b" not in captured.err, captured.err
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "could not be drawn" not in page
    chart = page[page.index("<figure class='chart'>"):page.index("</figure>")]
    # judged by the model alone: predicted, so not seen to run (docs/report.md)
    assert list(_chart_rows(chart).values()) == [{claims.NOT_RUN: 1}]
    assert "\x1b" not in chart


def test_markdown_lists_every_claim_and_engine_with_its_verdict(offline_run, offline_report):
    """report.md has a table row per claim, and one per engine under a survey claim; a row of
    labkit's model says what it predicts."""
    text = offline_report["markdown"].read_text()
    for result in offline_run.claims:
        first = result.rows[0]
        verdict = (f"predicts: {claims.VERDICT_TEXT[first.verdict]}"
                   if result.single and first.predicted else claims.VERDICT_TEXT[result.verdict])
        assert f"| {result.claim.id} | {verdict} |" in text
        if len(result.rows) > 1:
            for row in result.rows:
                words = claims.VERDICT_TEXT[row.verdict]
                words = f"predicts: {words}" if row.predicted else words
                # The version beside the engine's name ("SQLite 3.40.1 · size").
                assert f"| | {words} | {row.where} | |" in text
    assert "| | predicts: finding | model (50/50 splits) labkit" in text


def test_the_same_words_everywhere(offline_run, offline_report):
    """The summary line of the terminal table, report.md, report.html and results.json agree."""
    paths = offline_report
    summary = offline_run.summary()
    assert summary.startswith("31 claims: ")
    assert summary in report.terminal_table(offline_run)
    assert summary in paths["markdown"].read_text()
    assert json.loads(paths["json"].read_text())["summary"] == summary


def test_terminal_table_summarises_and_explains_not_run():
    """The table ends with counts of claims and groups not-run reasons by cause."""
    item = claims.get("O3")
    now = dt.datetime.now(dt.UTC)
    rows = [Result(item, claims.NOT_RUN, reason="needs mongodb: nope")]
    run = Run([ClaimResult(item, rows), ClaimResult(item, rows)],
                     now, now, [])
    text = report.terminal_table(run)
    assert "2 claims: 0 hold, 0 do not hold, 0 findings, 2 not run, 0 error" in text
    assert text.count("needs mongodb: nope") == 1


def test_a_figure_that_fails_does_not_cost_the_report(tmp_path, monkeypatch):
    """A plot that raises is replaced by a one-line note; the report is still written."""
    item = claims.get("O3")

    def broken(figure):
        raise ValueError("no data to draw")

    monkeypatch.setattr(plots, "draw", broken)
    observation = Observation({"x": 1}, "e", "1", figure=Figure("id_rank", ([], "t")))
    now = dt.datetime.now(dt.UTC)
    run = Run([ClaimResult(item, [Result(item, claims.FAILS, observation)])],
                     now, now, [])
    page = report.write(run, tmp_path)["html"].read_text()
    assert "The figure could not be drawn: ValueError: no data to draw" in page


HINT = "Hint: set LABKIT_MONGODB_URI"


def test_the_page_gives_the_mongodb_hint_once_however_many_claims_miss_it(offline_run,
                                                                          offline_report):
    """Sixteen claims without MongoDB cost one summary line with the hint, not sixteen."""
    page = offline_report["html"].read_text()
    mongodb_rows = sum(str(row.reason).startswith("needs mongodb") for row in offline_run.rows)
    assert mongodb_rows > 1
    assert page.count("no mongodb: this run is offline on purpose") == 1
    assert "MongoDB was not available here (how to get it: see the summary" in page


def _run_of(verdicts: list[str]):
    """A run of O3 rows; a not-run row misses MongoDB, as the runner records it."""
    item = claims.get("O3")
    now = dt.datetime.now(dt.UTC)
    cause = needs("mongodb", ServerUnavailable("no server.", hint=HINT))

    def row(verdict):
        if verdict == "not-run":
            return Result(item, verdict, cause, cause.not_run)
        return Result(item, verdict)

    return Run([ClaimResult(item, [row(v)]) for v in verdicts], now, now, [])


@pytest.mark.parametrize(("verdicts", "words"), [
    (["holds"], "1 claim was checked: 1 claim holds."),
    (["holds", "holds", "not-run"], "3 claims were checked: 2 claims hold; 1 claim did not run."),
])
def test_the_summary_counts_in_singular_or_plural(verdicts, words):
    """The opening sentence agrees in number with each count."""
    assert report.summary_lines(_run_of(verdicts))[0] == words


def test_the_summary_says_what_to_do_about_a_missing_server_once():
    """Claims missing MongoDB make one line naming them and one short line saying what to do;
    the server's full hint is a detail shown on request."""
    lines = report.summary_lines(_run_of(["not-run", "not-run"]))
    assert lines[1:] == [
        "MongoDB was not available: 1 claim did not run (O3).",
        "To run them: give labkit a MongoDB server (LABKIT_MONGODB_URI, a mongod on PATH, "
        "or Docker), then run again."]
    assert report.cause_details(_run_of(["not-run", "not-run"])) == ["set LABKIT_MONGODB_URI"]


def test_the_summary_counts_not_run_claims_as_the_headline_does():
    """A claim that ran on its other engines is not among those that "did not run": the
    summary's count of not-run claims is the headline's (issue 21: 15 against 16)."""
    now = dt.datetime.now(dt.UTC)
    cause = needs("mongodb", ServerUnavailable("no server.", hint=HINT), "MongoDB")
    d1, u5 = claims.get("D1"), claims.get("U5")
    run = Run([ClaimResult(d1, [Result(d1, claims.NOT_RUN, cause, cause.not_run)]),
               ClaimResult(u5, [Result(u5, claims.HOLDS, Observation({}, "SQLite", "3")),
                                Result(u5, claims.NOT_RUN, cause, cause.not_run)])],
              now, now, [])
    assert run.counts[claims.NOT_RUN] == 1
    assert report.summary_lines(run)[1] == ("MongoDB was not available: 1 claim did not run "
                                            "(D1); 1 claim ran on its other engines only (U5).")


def test_the_header_gives_each_engines_state():
    """The header lists a missing server with why, a server used with its description, and an
    embedded engine with its version, instead of one "Server:" line."""
    now = dt.datetime.now(dt.UTC)
    cause = needs("mongodb", ServerUnavailable("no server.", hint=HINT), "MongoDB")
    u5 = claims.get("U5")
    run = Run([ClaimResult(u5, [Result(u5, claims.HOLDS, Observation({}, "SQLite", "3.40.1")),
                                Result(u5, claims.NOT_RUN, cause, cause.not_run)])],
              now, now, [EngineInfo("postgres", "15.18", how="local", address="127.0.0.1")])
    assert report.engine_states(run) == [("MongoDB", "not available (no server)"),
                                         ("PostgreSQL", "15.18 (local: 127.0.0.1)"),
                                         ("SQLite", "3.40.1")]
    assert "- SQLite: " + report.escape.markdown("3.40.1") in report.markdown(run)


@pytest.mark.parametrize(("expected", "observed", "note"), [
    ({"random_larger_by": [0.25, 0.40]}, {"random_larger_by": 0.42},
     "random_larger_by +42.0% is larger than stated (+25.0% to +40.0%)"),
    ({"random_larger_by": [0.25, 0.40]}, {"random_larger_by": -0.03}, "smaller than stated"),
    ({"sequential_fill": [0.9, 1.0]}, {"uuid7_fill": 0.875, "int_fill": 0.95},
     "uuid7_fill 87.5% is smaller than stated (90.0% to 100.0%)"),
    ({"uuid4_fill": 0.5}, {"uuid4_fill": 0.696}, "uuid4_fill 69.6% is larger than stated (50.0%)"),
])
def test_a_value_outside_its_stated_range_says_in_which_direction(expected, observed, note):
    """Out-of-range numbers name the direction; in-range ones add nothing."""
    notes = report.outside_range(expected, observed)
    assert len(notes) == 1
    assert note in notes[0]


def test_a_value_inside_its_range_adds_no_note():
    """A fill within 90-100% is not reported as outside."""
    assert report.outside_range({"sequential_fill": [0.9, 1.0]}, {"int_fill": 0.95}) == []


@pytest.mark.parametrize(("value", "key", "text"), [
    (0.69314, "uuid4_fill", "69.3%"), (0.421, "random_larger_by", "+42.1%"),
    (1234567, "index_bytes", "1,234,567"), (0.123456, "insert_seconds", "0.123"),
    (1234.7, "seconds", "1,235"), (0.000123, "seconds", "0.000123"), (1.5e-05, "x", "0.000015"),
    (0.5, "x", "0.5"),
    (True, "x", "yes"), (["a", "b"], "ids", "a, b"), ([], "ids", "(none)"),
    # D1's card read "[-86,400,000, 1, 1,790,812,800,000]": grouped numbers in a list joined
    # with commas hide where each begins (a learner's walk through lesson 01, 2026-12-03).
    ([-86_400_000, 1, 1_790_812_800_000], "ms", "-86,400,000; 1; 1,790,812,800,000"),
    ([1, 2, 3], "ids", "1, 2, 3"),
    (["a, b", "c"], "ids", "a, b; c"),  # a text with a comma of its own, as a grouped number
    ({"int": 2, "long": 1}, "census", "int: 2, long: 1"),
])
def test_values_read_as_people_write_them(value, key, text):
    """Shares become rounded percentages, big numbers get separators, lists are joined."""
    assert report.readable(value, key) == text


# The page measures itself, laid out in a frame of a phone's width inside a headless browser's
# window (which is never narrower than about 500 px): the page's scrolling width against the
# frame's, and each run of text whose right edge passes it (the evidence tables scroll inside
# their own box, .ev, by design). It writes what it found on the window's page, which the
# browser prints.
_FIT_PROBE = """<script>
const width = document.documentElement.clientWidth;
const wide = [];
const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let text = texts.nextNode(); text; text = texts.nextNode()) {
  if (text.parentElement.closest('.ev')) continue;
  const range = document.createRange();
  range.selectNodeContents(text);
  if ([...range.getClientRects()].some(box => box.right > width + 0.5))
    wide.push(`${text.parentElement.tagName}: ${text.textContent.slice(0, 70)}`);
}
parent.document.body.setAttribute('data-fit-' + window.name, JSON.stringify(
  {width: width, scroll: document.documentElement.scrollWidth, wide: wide.slice(0, 8)}));
</script></body>"""


def _browser() -> str:
    import shutil

    from conftest import skip_unless_required

    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    skip_unless_required("chromium", "no Chromium or Chrome on PATH (Debian: apt-get install "
                                     "chromium) to lay the report out in")
    raise AssertionError("unreachable")


WIDTHS = (360, 480)


def test_the_page_fits_a_phone_wide_window(offline_run, tmp_path, monkeypatch):
    """Laid out by Chromium 360 and 480 pixels wide, a phone's width, in English and in
    Vietnamese, nothing sticks out past the right edge: the engine column wraps between words
    on a narrow screen (names such as "model (rightmost splits) · size labkit 0.1.0" pushed the
    claims table 40 px past a 480 px window), and a word longer than the line breaks (an
    ObjectId in a heading, a DSN in the engines list, SQLITE_DBSTATUS_CACHE_MISS in the summary
    stuck out at 360 px). The four layouts are frames of one page, laid out by one browser."""
    import subprocess

    from labkit import i18n

    browser = _browser()
    frames = []
    for lang in ("en", "vi"):
        monkeypatch.setattr(i18n, "_chosen", lang)
        page = report.write(offline_run, tmp_path / lang)["html"].read_text(encoding="utf-8")
        dsn = ("<li><b>PostgreSQL</b>: 15.18 (dsn: postgresql://postgres:***@127.0.0.1:5432/"
               "a_database_name_long_enough_to_cross_any_phone)</li>")
        assert "<ul class='meta'><li>" in page
        page = page.replace("<ul class='meta'><li>", f"<ul class='meta'>{dsn}<li>")
        probed = html.escape(page.replace("</body>", _FIT_PROBE), quote=True)
        frames += [f"<iframe name='{lang}{width}' style='border:0;display:block' "
                   f"width='{width}' height='800' srcdoc=\"{probed}\"></iframe>"
                   for width in WIDTHS]
    frame = tmp_path / "frames.html"
    frame.write_text(f"<!doctype html><html><body>{''.join(frames)}</body></html>",
                     encoding="utf-8")
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
         f"--window-size={max(WIDTHS) + 400},900", "--dump-dom", frame.as_uri()],
        capture_output=True, text=True, timeout=120, check=True).stdout
    for lang in ("en", "vi"):
        for width in WIDTHS:
            found = re.search(rf'data-fit-{lang}{width}="([^"]*)"', dom)
            assert found, (lang, width, dom[-2000:])
            fit = json.loads(html.unescape(found.group(1)))
            assert width - 20 <= fit["width"] <= width, fit  # the frame, less its scroll bar
            assert (fit["wide"], fit["scroll"]) == ([], fit["width"]), (lang, width, fit)


@pytest.mark.parametrize(("value", "limit", "written"), [
    ({"oid": "6553f1003f2a91c8d4003039", "next": "6553f1003f2a91c8d400303a"}, 60,
     '{"oid": "6553f1003f2a91c8d4003039", …}'),
    (list(range(100_000, 100_100)), 40, "[100000, 100001, 100002, 100003, …]"),
    ({"a": "x" * 200}, 20, '{"a": "xxxxxxxxxxxx…'),
    ("y" * 50, 10, '"yyyyyyyy…'),
])
def test_a_value_too_long_for_its_cell_is_cut_between_its_items(value, limit, written):
    """A document or a list too long for its cell keeps its items that fit whole and ends with
    "…" and its bracket: O2's card read '"next": "6553f1003f2a91c8d400303a…', an ObjectId cut
    at its last character, which looked like a longer ID (a learner's walk through lesson 04,
    2026-12-03). A single item too long is cut as text is."""
    from labkit.claims.claim import short_json

    assert short_json(value, limit) == written
    assert len(written) <= limit


def test_claim_ids_never_wrap(offline_run, offline_report):
    """The ID column is styled not to wrap, so "O10" never breaks over two lines."""
    page = offline_report["html"].read_text()
    assert "td.id,th.id" in page
    assert "white-space:nowrap" in page
    assert "<td class='id'><a href='#O10'>O10</a></td>" in page


def test_not_run_causes_come_from_the_rows_fields_not_their_wording():
    """A not-run row says what it is missing and the hint as fields; the report's summary
    groups on them, so rewording a reason (or translating it) cannot split a cause."""
    now = dt.datetime.now(dt.UTC)
    error = ServerUnavailable("No MongoDB server is available.", tried=["Docker: off"],
                              hint="start one")
    rows = []
    for claim_id in ("D1", "D3"):
        item = claims.get(claim_id)
        cause = needs("mongodb", error)
        rows.append(ClaimResult(item, [Result(item, claims.NOT_RUN, cause,
                                                            f"reworded for {claim_id}")]))
    (cause,) = report.not_run_causes(Run(rows, now, now, []).claims)
    assert cause.missing == "MongoDB"
    assert cause.claims == ["D1", "D3"]
    assert cause.what_failed == "No MongoDB server is available (tried Docker: off)."
    assert cause.todo == "start one"



# results.json against its published schema ------------------------------------------------

SCHEMA = Path(__file__).parent.parent / "docs" / "results.schema.json"


def _validate(path: Path) -> dict:
    """Validate a written results.json against docs/results.schema.json (draft 2020-12)."""
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    data = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(data)
    return data


def test_labkit_run_writes_results_json_that_its_schema_describes(tmp_path):
    """``labkit run --claims D2,O1`` writes a results.json that validates against
    docs/results.schema.json and names its layout in ``schema`` (docs/report.md, "results.json")."""
    result = labkit("run", "--claims", "D2,O1", "--out", str(tmp_path), "--quiet")
    assert result.returncode == 0, result.stderr
    data = _validate(tmp_path / "results.json")
    assert data["schema"] == SCHEMA_ID
    assert [c["id"] for c in data["claims"]] == ["D2", "O1"]


def test_labkit_check_writes_results_json_that_its_schema_describes(tmp_path):
    """``labkit check`` of a claim file on the model writes a results.json that validates
    against the same schema as ``labkit run``'s (docs/report.md, "results.json")."""
    claims_file = Path(__file__).parent.parent / "claims" / "lesson01_dates.yaml"
    result = labkit("check", str(claims_file), "--out", str(tmp_path), "--quiet")
    assert result.returncode in (0, 1), result.stderr
    data = _validate(tmp_path / "results.json")
    assert data["schema"] == SCHEMA_ID
    assert data["claims"]


def test_labkit_check_json_says_holds_result_only_where_the_matrix_does(tmp_path):
    """``labkit check --json`` on MongoDB's CRUD spec file find.yml (tests/data/crud-unified,
    mongodb/specifications at 92b3c0b9) prints a results.json its schema describes, whose row
    for "Find with batchSize equal to limit", whose expectEvents a check does not judge, says
    "holds (result only)" as the matrix and JUnit do; "Find with filter", which expects its
    result alone, says "holds"; and every other row's words are its verdict's, or "holds
    (result only)" where it holds and its test has expectEvents."""
    spec_file = Path(__file__).parent / "data" / "crud-unified" / "find.yml"
    result = labkit("check", str(spec_file), "--json", "--out", str(tmp_path), "--quiet")
    assert result.returncode == 0, result.stderr
    (tmp_path / "stdout.json").write_text(result.stdout, encoding="utf-8")
    data = _validate(tmp_path / "stdout.json")
    assert data == json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    rows = {c["title"]: c["results"][0] for c in data["claims"]}
    events = {spec.title for spec in files.read(spec_file) if spec.also_expected}
    assert rows["Find with batchSize equal to limit"]["verdict"] == "holds"
    assert rows["Find with batchSize equal to limit"]["verdict_words"] == "holds (result only)"
    assert rows["Find with filter"]["verdict_words"] == "holds"
    words = {"holds": "holds", "fails": "does not hold", "not-run": "not run", "error": "error"}
    for title, row in rows.items():
        only = row["verdict"] == "holds" and title in events
        assert row["verdict_words"] == ("holds (result only)" if only
                                        else words[row["verdict"]]), title


def test_a_card_writes_a_cause_its_rows_share_once(offline_run):
    """U5's card had the same "no MongoDB" paragraph on each of its three MongoDB rows (a
    learner's walk through lesson 06, 2026-12-03): the first row says it, the others "the same
    reason as above", in the card's HTML and in its text."""
    from labkit.lessons import cards
    from labkit.lessons.notebook import Checked

    (u5,) = [result for result in offline_run.claims if result.claim.id == "U5"]
    mongo = [row for row in u5.rows if str(row.engine).startswith("MongoDB")]
    assert len(mongo) == 3
    assert len({row.shown_reason for row in mongo}) == 1
    reason = mongo[0].shown_reason
    for shown in (cards.claim_card(u5), str(Checked(u5))):
        assert shown.count(html.escape(reason) if shown.startswith("<") else reason) == 1
        assert shown.count("the same reason as above") >= 2
