"""``labkit compare``: results.json files of real ``labkit check`` runs (the model's 6.0, 7.0,
8.0 and 9.0 rule sets, mongomock and montydb) joined into one page, claims as rows and runs'
engines as columns, the claims that differ first; bad input is one ``Error:`` line.

The claims are tests/data/compare/versions.yaml; the verdicts that differ between rule sets
are docs/model.md's "Rule sets per version" (null and undefined before 8.0, null through
arrays in 9.0), each cited in the claim's source.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers import labkit as run_labkit
from markdown_it import MarkdownIt

from labkit.cli import main
from labkit.outputs.compare import headline
from labkit.run import comparison as joined
from labkit.run.results import SCHEMA

CLAIMS = Path(__file__).parent / "data" / "compare" / "versions.yaml"
RULE_SETS = ("6.0", "7.0", "8.0", "9.0")
IDS = ["null-skips-undefined", "null-through-arrays", "decimal-sort", "count-strings"]
MODEL = "model (labkit's rules for MongoDB {})"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    """One ``labkit check`` per rule set of the model, then one on mongomock and montydb."""
    root = tmp_path_factory.mktemp("runs")
    made = []
    for rules in RULE_SETS:
        out = root / f"model-{rules}"
        main(["check", str(CLAIMS), "--model-version", rules, "--out", str(out), "--quiet"])
        made.append(out / "results.json")
    out = root / "fakes"
    main(["check", str(CLAIMS), "--engines", "mongomock,montydb", "--out", str(out), "--quiet"])
    made.append(out / "results.json")
    assert all(path.is_file() for path in made)
    return made


@pytest.fixture(scope="module")
def page(runs, tmp_path_factory) -> Path:
    """``labkit compare`` of the five runs, written to a folder."""
    out = tmp_path_factory.mktemp("compare")
    assert main(["compare", *map(str, runs), "--out", str(out)]) == 0
    return out


def _verdicts(data: dict, claim_id: str) -> dict[str, str | None]:
    row = next(c for c in data["claims"] if c["id"] == claim_id)
    return {col["label"]: v for col, v in zip(data["columns"], row["verdicts"], strict=True)}


def test_the_json_has_a_column_per_engine_of_each_run_and_a_row_per_claim(runs, capsys,
                                                                            tmp_path):
    """Four model runs give a column each, the fakes' run two; every claim is a row."""
    assert main(["compare", *map(str, runs), "--out", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == joined.SCHEMA
    assert [run["source"] for run in data["runs"]] == [str(path) for path in runs]
    assert [(c["run"], c["engine"], c["predicted"]) for c in data["columns"]] == [
        *((i, MODEL.format(rules), True) for i, rules in enumerate(RULE_SETS)),
        (4, "mongomock (in-process fake)", False), (4, "montydb (in-process fake)", False)]
    assert sorted(c["id"] for c in data["claims"]) == sorted(IDS)


def test_differences_come_first_and_the_known_version_differences_show(runs, capsys,
                                                                        tmp_path):
    """null and undefined: 6.0 and 7.0 match (the claim, 8.0's rule, does not hold there),
    8.0 and 9.0 do not; null through arrays: only 9.0 matches. The claim that holds
    everywhere comes last, after every claim that differs."""
    assert main(["compare", *map(str, runs), "--out", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ids = [c["id"] for c in data["claims"]]
    assert ids[-1] == "count-strings"
    assert data["differing"] == 3
    assert [c["differs"] for c in data["claims"]] == [True, True, True, False]
    undefined = _verdicts(data, "null-skips-undefined")
    model = {rules: undefined[f"{MODEL.format(rules)} {data['runs'][0]['labkit_version']}"]
             for rules in RULE_SETS}
    assert model == {"6.0": "fails", "7.0": "fails", "8.0": "holds", "9.0": "holds"}
    arrays = [v for label, v in _verdicts(data, "null-through-arrays").items()
              if label.startswith("model")]
    assert arrays == ["holds", "holds", "holds", "fails"]
    assert set(_verdicts(data, "count-strings").values()) == {"holds"}


def test_a_claim_one_run_lacks_is_absent_there_and_not_compared(runs, tmp_path):
    """A claim judged in one run only has no verdict in the other run's columns: nothing there
    to differ from, so it is not compared there (issue 44), and the headline says so."""
    data = json.loads(runs[0].read_text(encoding="utf-8"))
    data["claims"] = data["claims"][:1]
    fewer = tmp_path / "fewer.json"
    fewer.write_text(json.dumps(data), encoding="utf-8")
    result = joined.compare([fewer, runs[2]])
    row = next(r for r in result.rows if r.id == "count-strings")
    assert row.cells[0] is None
    assert row.cells[1] is not None
    assert not row.differs
    assert row.not_compared == 1
    assert "did not run in every column" in headline(result)


def test_a_run_that_did_not_run_is_no_difference(runs, tmp_path, nothing_available, capsys):
    """Issue 44, 5: a run whose only column is MongoDB without a server (every claim not run)
    against the model's run: "2 differ" before, now none differs, every claim is counted as
    compared only where it ran, and the JSON says how many columns each was not compared in."""
    out = tmp_path / "mongodb"
    main(["check", str(CLAIMS), "--engines", "mongodb", "--out", str(out), "--quiet"])
    capsys.readouterr()
    result = joined.compare([runs[2], out / "results.json"])
    assert result.differing == []
    assert [row.not_compared for row in result.rows] == [1] * len(IDS)
    assert headline(result) == (f"{len(IDS)} claims in 2 runs (2 columns): none differs. "
                                f"{len(IDS)} claims did not run in every column: each is "
                                "compared only where it ran.")
    assert main(["compare", str(runs[2]), str(out / "results.json"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "labkit-compare/2"
    assert (data["differing"], {c["not_compared"] for c in data["claims"]}) == (0, {1})


class _Cells(HTMLParser):
    """Each table row's cells as ``(class, text)``, the header cells too."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, str]]] = []
        self.scripts = 0
        self._cell: list[str] | None = None
        self._class = ""

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts += 1
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell, self._class = [], dict(attrs).get("class") or ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append((self._class, "".join(self._cell).strip()))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_the_html_colours_each_cell_by_its_verdict_differences_first(page):
    """compare.html: the differences' table before the rest's, one coloured cell per column,
    its class the verdict's (the report's colours); labkit's model's cells are predictions,
    worded and marked so (issue 44: they read as plain "holds")."""
    text = (page / "compare.html").read_text(encoding="utf-8")
    assert text.index("Verdicts that differ (3)") < text.index("The same wherever it ran (1)")
    cells = _Cells()
    cells.feed(text)
    body = [row for row in cells.rows if len(row) > 2 and row[2][0].startswith("c ")]
    assert [row[0][1] for row in body] == [*IDS[:3], "count-strings"]
    undefined = body[0][2:]
    # The fakes keep Python values, which have no undefined: that claim is not run on them.
    assert [cls for cls, _ in undefined] == ["c fails predicted", "c fails predicted",
                                             "c holds predicted", "c holds predicted",
                                             "c not-run", "c not-run"]
    assert [text for _, text in undefined][:3] == ["predicts: does not hold",
                                                   "predicts: does not hold", "predicts: holds"]
    header = next(row for row in cells.rows if row and row[0] == ("id", "ID"))
    assert len(header) == 2 + 6
    assert header[2][1].startswith(MODEL.format("6.0"))


def test_the_markdown_is_two_gfm_tables_differences_first(page):
    """compare.md renders (GFM) as two tables, the three claims that differ in the first, with
    a column per engine of each run."""
    text = (page / "compare.md").read_text(encoding="utf-8")
    html = MarkdownIt("gfm-like").render(text)
    assert html.count("<table>") == 2
    assert "<script" not in html
    first, second = html.split("<table>")[1:]
    assert all(claim in first for claim in IDS[:3])
    assert "count-strings" in second
    assert first.split("</tr>")[0].count("<th>") == 2 + 6
    assert "<strong>predicts: does not hold</strong>" in first
    assert "<strong>does not hold</strong>" not in html
    model_why = [line for line in text.splitlines()
                 if line.startswith("- null-skips-undefined on model")]
    assert model_why
    assert all(", predicted " in line and ", observed " not in line
                             for line in model_why)


def test_values_from_a_file_are_escaped_in_html_and_markdown(runs, tmp_path):
    """A claim's title holding markup and a table's pipe stays text in both pages."""
    data = json.loads(runs[0].read_text(encoding="utf-8"))
    data["claims"][0]["title"] = "<script>alert(1)</script> | **x**"
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "page"
    assert main(["compare", str(odd), str(runs[1]), "--out", str(out)]) == 0
    cells = _Cells()
    cells.feed((out / "compare.html").read_text(encoding="utf-8"))
    assert cells.scripts == 0
    rendered = MarkdownIt("gfm-like").render((out / "compare.md").read_text(encoding="utf-8"))
    assert "<script>" not in rendered
    assert "&lt;script&gt;alert(1)&lt;/script&gt; | **x**" \
        in rendered


def _refused(argv: list[str], capsys) -> str:
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.startswith("Error: ")
    assert "Traceback" not in err
    assert err.count("\n") == 1
    return err


def test_fewer_than_two_files_is_an_error_line(runs, capsys, tmp_path):
    """One file, or none, is refused in one line."""
    assert "at least two results files; 1 given" in _refused(
        ["compare", str(runs[0]), "--out", str(tmp_path)], capsys)
    with pytest.raises(SystemExit) as stopped:  # argparse's usage error, one line
        main(["compare"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2
    assert err.startswith("Error: ")
    assert "RESULTS.json" in err


@pytest.mark.parametrize(("content", "words"), [
    ("[1, 2]", "is not labkit results: it has no \"schema\""),
    ("{\"schema\": \"junit\"}", "is not labkit results"),
    ("not json", "is not labkit results: it is not JSON"),
    ("{\"schema\": \"labkit-results/2\", \"claims\": [{\"id\": \"x\"}]}",
     "claim 1 lacks an id, a verdict or rows with verdicts"),
])
def test_a_file_that_is_not_labkit_results_is_an_error_line(runs, capsys, tmp_path, content,
                                                             words):
    """JSON that is not results.json, or no JSON, is named and refused."""
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    assert words in _refused(["compare", str(runs[0]), str(bad), "--out", str(tmp_path / "o")],
                             capsys)


def test_another_schema_version_is_an_error_line(runs, capsys, tmp_path):
    """A results.json of another layout names both versions."""
    data = json.loads(runs[0].read_text(encoding="utf-8"))
    data["schema"] = "labkit-results/1"  # the layout before the model's rows were predictions
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data), encoding="utf-8")
    err = _refused(["compare", str(runs[0]), str(other), "--out", str(tmp_path / "o")], capsys)
    assert "labkit-results/1" in err
    assert SCHEMA in err


def test_a_missing_or_binary_file_is_an_error_line(runs, capsys, tmp_path):
    """A path with nothing there, and bytes that are not UTF-8, are refused in one line."""
    assert "no such file" in _refused(
        ["compare", str(runs[0]), str(tmp_path / "nowhere.json"), "--out", str(tmp_path / "o")],
        capsys)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    assert "not UTF-8" in _refused(
        ["compare", str(runs[0]), str(binary), "--out", str(tmp_path / "o")], capsys)


def test_the_model_version_option_is_checked(capsys, tmp_path):
    """``--model-version`` names rule sets the model carries, and needs the model's column."""
    assert "the model knows MongoDB 6.0, 7.0, 8.0, 9.0, not '5.0'" in _refused(
        ["check", str(CLAIMS), "--model-version", "5.0", "--out", str(tmp_path)], capsys)
    assert "--model-version needs model among --engines" in _refused(
        ["check", str(CLAIMS), "--engines", "mongomock", "--model-version", "7.0",
         "--out", str(tmp_path)], capsys)


def test_the_page_speaks_vietnamese_and_the_json_stays_english(runs, tmp_path):
    """Under LABKIT_LANG=vi the page's headings and verdicts are Vietnamese; --json English."""
    out = tmp_path / "vi"
    result = run_labkit("compare", str(runs[0]), str(runs[2]), "--out", str(out),
                        env={"LABKIT_LANG": "vi"})
    assert result.returncode == 0, result.stderr
    text = (out / "compare.html").read_text(encoding="utf-8")
    assert "<html lang='vi'>" in text
    assert "Kết luận khác nhau (1)" in text
    assert "không đúng" in text
    assert "Verdicts that differ" not in text
    assert "Kết luận khác nhau (1)" in (out / "compare.md").read_text(encoding="utf-8")
    as_json = run_labkit("compare", str(runs[0]), str(runs[2]), "--out", str(out), "--json",
                         env={"LABKIT_LANG": "vi"})
    data = json.loads(as_json.stdout)
    assert _verdicts(data, "null-skips-undefined")[
        f"{MODEL.format('6.0')} {data['runs'][0]['labkit_version']}"] == "fails"


def _with(runs, tmp_path, name, change) -> Path:
    data = json.loads(runs[0].read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_file_naming_an_engine_per_claim_is_refused_by_its_columns(runs, capsys, tmp_path):
    """Issue 46, item 2: the page is claims x columns, so a file whose every row names an
    engine version of its own made compare's time, memory and output grow as the square of
    the file (300 claims x 8 runs: 186 s, 784 MB, 496 MiB written; benchmarks/
    compare_bench.py). Past ``MAX_COLUMNS`` columns it is one line."""
    def spread(data):
        first = data["claims"][0]
        data["engine_details"] = []
        data["claims"] = [dict(first, id=f"C{i}", results=[
            dict(row, engine_version=f"{i}.{j}") for j, row in enumerate(first["results"])])
            for i in range(joined.MAX_COLUMNS)]
    hostile = _with(runs, tmp_path, "hostile.json", spread)
    err = _refused(["compare", str(runs[0]), str(hostile), "--out", str(tmp_path / "o")], capsys)
    assert "columns" in err
    assert "at most 128" in err


@pytest.mark.parametrize("details", [["model"], [None], {"a": 1}, "x"],
                         ids=["a string", "null", "an object", "text"])
def test_odd_engine_details_are_read_by_each_rows_engine(runs, capsys, tmp_path, details):
    """engine_details that is not a list of objects, with rows that name no engine (a
    traceback before): each row is placed by its own engine and version, as in a run's file
    without the list."""
    def odd(data):
        data["engine_details"] = details
        for claim in data["claims"]:
            for row in claim["results"]:
                row.pop("engine", None)
                row.pop("engine_version", None)
    odd = _with(runs, tmp_path, "odd.json", odd)
    assert main(["compare", str(runs[1]), str(odd), "--out", str(tmp_path / "o")]) == 0
    capsys.readouterr()


# Each claim ID's text measured against its own cell, laid out by Chromium: the report's
# `td.id{white-space:nowrap}` let the kit's long IDs (D3.date_field_string_operand) run over
# the title column of compare's fixed-width table (issue 46, item 11).
_ID_PROBE = """<script>
const over = [];
for (const cell of document.querySelectorAll('td.id')) {
  const range = document.createRange();
  range.selectNodeContents(cell);
  const right = cell.getBoundingClientRect().right;
  if ([...range.getClientRects()].some(box => box.right > right + 0.5))
    over.push(cell.textContent);
}
document.body.setAttribute('data-over', JSON.stringify(over));
</script></body>"""


def test_long_claim_ids_stay_in_their_column(runs, tmp_path):
    import html
    import re
    import subprocess

    from test_report import _browser

    browser = _browser()
    long_ids = ["D3.date_field_string_operand", "S2.cross_type_order_ladder_long",
                "B1.bracketing_type_census_x", "O8.from_datetime_lower_bound"]

    def rename(data):
        for claim, name in zip(data["claims"], long_ids, strict=False):
            claim["id"] = name
    first = _with(runs, tmp_path, "a.json", rename)
    out = tmp_path / "o"
    assert main(["compare", str(first), str(runs[1]), "--out", str(out)]) == 0
    page = out / "compare.html"
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", _ID_PROBE),
                    encoding="utf-8")
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,900", "--dump-dom",
         page.as_uri()], capture_output=True, text=True, timeout=120, check=True).stdout
    found = re.search(r'data-over="([^"]*)"', dom)
    assert found, dom[-2000:]
    assert json.loads(html.unescape(found.group(1))) == []


def test_a_model_runs_line_gives_its_predictions_apart(page):
    """A run only the model judged saw nothing (every claim not run) and predicts the rest:
    its line says both, as its own summary does (issue 44: the page gave the counts alone)."""
    text = (page / "compare.md").read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.startswith("- run 1:"))
    assert first.endswith("4 claims: 0 hold, 0 do not hold, 0 findings, 4 not run, 0 error; "
                          "labkit's model predicts: 3 hold, 1 do not hold, 0 findings, 0 error")
