"""The report: results.json's shape, a self-contained HTML page, Markdown, the terminal table."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from labkit import claims, report, runner
from labkit._claim import Observation
from labkit.errors import ServerUnavailable

CLAIM_FIELDS = {"id", "title", "topic", "kind", "source", "experiment", "lesson", "verdict",
                "expected", "results"}
ROW_FIELDS = {"verdict", "engine", "engine_version", "observed", "reason", "evidence", "seconds"}


def _offline(kind: str):
    def unavailable():
        raise ServerUnavailable(f"no {kind}: this run is offline on purpose")
    return unavailable


@pytest.fixture(scope="module")
def offline_run():
    """A real run of every claim with no database server at all, on small B-tree loads."""
    with runner.Context(btree_n=3_000, mongodb_provider=_offline("mongodb"),
                        postgres_provider=_offline("postgres")) as ctx:
        return runner.run(claims.registered(), ctx)


def test_the_offline_run_has_no_errors(offline_run):
    """Without servers, claims hold, are findings or are not run; none errs."""
    verdicts = {row.verdict for row in offline_run.rows}
    assert claims.ERROR not in verdicts, [str(r) for r in offline_run.rows if r.verdict == "error"]
    assert {claims.HOLDS, claims.FINDING, claims.NOT_RUN} <= verdicts
    assert offline_run.exit_status() == 0
    assert offline_run.exit_status(strict=True) == 1


def test_results_json_has_every_field_for_every_claim(offline_run, tmp_path):
    """Each claim in results.json carries the documented fields, its rows, and known verdicts."""
    paths = report.write(offline_run, tmp_path)
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


def test_html_is_self_contained(offline_run, tmp_path):
    """report.html loads nothing from elsewhere and embeds its plots as data URIs."""
    page = report.write(offline_run, tmp_path)["html"].read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert page.count("data:image/png;base64,") >= 2  # the summary and U1's bit layout
    for claim in offline_run.to_dict()["claims"]:
        assert f"id='{claim['id']}'" in page
    assert offline_run.summary() in page


def test_markdown_lists_every_claim_and_engine_with_its_verdict(offline_run, tmp_path):
    """report.md has a table row per claim, and one per engine under a survey claim."""
    text = report.write(offline_run, tmp_path)["markdown"].read_text()
    for result in offline_run.claims:
        verdict = claims.VERDICT_TEXT[result.verdict]
        assert f"| {result.claim.id} | {verdict} |" in text
        if len(result.rows) > 1:
            for row in result.rows:
                engine = f"{row.engine} {row.engine_version or ''}".strip()
                assert f"| | {claims.VERDICT_TEXT[row.verdict]} | {engine} | |" in text


def test_the_same_words_everywhere(offline_run, tmp_path):
    """The summary line of the terminal table, report.md, report.html and results.json agree."""
    paths = report.write(offline_run, tmp_path)
    summary = offline_run.summary()
    assert summary.startswith("31 claims: ")
    assert summary in report.terminal_table(offline_run)
    assert summary in paths["markdown"].read_text()
    assert json.loads(paths["json"].read_text())["summary"] == summary


def test_terminal_table_summarises_and_explains_not_run():
    """The table ends with counts of claims and groups not-run reasons by cause."""
    item = claims.get("O3")
    now = dt.datetime.now(dt.UTC)
    rows = [runner.Result(item, claims.NOT_RUN, reason="needs mongodb: nope")]
    run = runner.Run([runner.ClaimResult(item, rows), runner.ClaimResult(item, rows)],
                     now, now, [])
    text = report.terminal_table(run)
    assert "2 claims: 0 hold, 0 do not hold, 0 findings, 2 not run, 0 error" in text
    assert text.count("needs mongodb: nope") == 1


def test_a_figure_that_fails_does_not_cost_the_report(tmp_path):
    """A plot that raises is replaced by a one-line note; the report is still written."""
    item = claims.get("O3")

    def broken():
        raise ValueError("no data to draw")

    observation = Observation({"x": 1}, "e", "1", figure=broken)
    now = dt.datetime.now(dt.UTC)
    run = runner.Run([runner.ClaimResult(item, [runner.Result(item, claims.FAILS, observation)])],
                     now, now, [])
    page = report.write(run, tmp_path)["html"].read_text()
    assert "The figure could not be drawn: ValueError: no data to draw" in page
