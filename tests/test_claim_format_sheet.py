"""docs/claims.md opens with how to write and check a claim file of one's own, where people
look for the claims: its examples are real claim files that hold on the model, `labkit check
--help` points to it, and regenerating the list of the kit's claims keeps that opening."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labkit.cli import main
from labkit.lessons import course
from labkit.run import check as claimcheck

ROOT = Path(__file__).resolve().parent.parent
SHEET = ROOT / "docs" / "claims.md"


def _opening() -> str:
    return SHEET.read_text(encoding="utf-8").split(course.CLAIMS_GENERATED)[0]


def _examples() -> list[str]:
    return re.findall(r"^```yaml\n(.*?)^```", _opening(), re.S | re.M)


def test_the_claims_page_opens_with_the_format_sheet():
    """The page's first heading is about writing a claim of one's own, and the sheet shows the
    short form with $date, $numberDecimal and $oid, the Unified Test Format and the engines,
    all before the generated list of the kit's claims."""
    opening = _opening()
    assert opening.startswith("# Claims: write one of your own and check it\n")
    for needed in ("$date", "$numberDecimal", "$oid", "## The short form",
                   "## The Unified Test Format", "## Engines", "mongosh's notation"):
        assert needed in opening, needed
    assert "## D1:" not in opening


def test_every_example_of_the_sheet_holds_on_the_model(tmp_path):
    """Each YAML example of the sheet is a claim file labkit reads, and every claim in it holds
    on the model, so a reader copying one starts from a claim that works."""
    examples = _examples()
    assert len(examples) == 2
    paths = []
    for index, text in enumerate(examples):
        paths.append(tmp_path / f"example{index}.yaml")
        paths[-1].write_text(text, encoding="utf-8")
    result = claimcheck.run_files(paths, "model")
    assert len(result.specs) == 4
    assert {row.verdict for row in result.run.rows} == {claimcheck.HOLDS}, [
        str(row) for row in result.run.rows]


def test_check_help_points_to_the_format_sheet(capsys):
    """`labkit check --help` names docs/claims.md as where the format is written."""
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    assert "docs/claims.md" in capsys.readouterr().out


def test_regenerating_the_list_keeps_the_opening(tmp_path):
    """`course.write_claims_markdown` rewrites the generated list and keeps the hand-written
    opening above its marker line as it is; the committed page is what it writes."""
    page = tmp_path / "claims.md"
    page.write_text(_opening() + course.CLAIMS_GENERATED + "\n\nan old list\n",
                    encoding="utf-8")
    course.write_claims_markdown(page)
    written = page.read_text(encoding="utf-8")
    assert written.startswith(_opening())
    assert "an old list" not in written
    assert written == SHEET.read_text(encoding="utf-8")
