"""The report: results.json's shape, a self-contained HTML page, Markdown, the terminal table."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from labkit import claims, report
from labkit.claims import Context

REQUIRED = {"id", "title", "topic", "verdict", "expected", "observed", "engine",
            "engine_version", "reason"}


@pytest.fixture(scope="module")
def offline_run():
    """A real run of the offline claims."""
    with Context() as ctx:
        return claims.run(claims.select(topics=["objectid", "btree", "dates"]), ctx)


def test_results_json_has_every_field_for_every_claim(offline_run, tmp_path):
    """Each claim in results.json carries the documented fields and a known verdict."""
    paths = report.write(offline_run, tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["claims"], "the run produced no results"
    for row in data["claims"]:
        assert row.keys() >= REQUIRED
        assert row["verdict"] in {"holds", "fails", "not-run", "error"}
    assert data["counts"]["holds"] == sum(r["verdict"] == "holds" for r in data["claims"])


def test_html_is_self_contained(offline_run, tmp_path):
    """report.html loads nothing from elsewhere and embeds its plots as data URIs."""
    page = report.write(offline_run, tmp_path)["html"].read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert page.count("data:image/png;base64,") >= 2  # the summary and U1's bit layout
    for row in offline_run.to_dict()["claims"]:
        assert f"id='{row['id']}'" in page


def test_markdown_lists_every_claim_with_its_verdict(offline_run, tmp_path):
    """report.md has a table row per claim naming verdict and engine."""
    text = report.write(offline_run, tmp_path)["markdown"].read_text()
    for result in offline_run.results:
        verdict = claims.VERDICT_TEXT[result.verdict]
        engine = f"{result.engine} {result.engine_version}" if result.engine else "-"
        assert f"| {result.claim.id} | {verdict} | {engine} |" in text


def test_terminal_table_summarises_and_explains_not_run():
    """The table ends with counts and groups not-run reasons by cause."""
    item = claims.get("O3")
    run = claims.Run([claims.Result(item, claims.NOT_RUN, reason="needs mongodb: nope"),
                      claims.Result(item, claims.NOT_RUN, reason="needs mongodb: nope")],
                     dt.datetime.now(dt.UTC), dt.datetime.now(dt.UTC), [])
    text = report.terminal_table(run)
    assert "0 holds, 0 does not hold, 2 not run, 0 error" in text
    assert text.count("needs mongodb: nope") == 1
