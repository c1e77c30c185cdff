"""Lessons 07's and 08's views of a claim check, in the learner's language: which engines ran,
each engine's verdicts (the model's as what it predicts), the scorecard, the tally, and how the
model fares, counted by where each expectation comes from."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from labkit import servers
from labkit.claims.claim import (
    ERROR,
    FAILS,
    HOLDS,
    jsonable,
    predicted_text,
    short_json,
    verdict_text,
)
from labkit.engines.fakes import HOW_TO_INSTALL
from labkit.engines.fakes import version as fake_version
from labkit.errors import ClaimFailed, ServerUnavailable, UnknownClaim
from labkit.experiments import catalogue
from labkit.i18n import N_, Message, _, number
from labkit.model.versions import CURRENT_MAJOR
from labkit.names import FAKES
from labkit.outputs.tables import whole_text
from labkit.run.check import CheckRun, Column
from labkit.run.results import Result

if TYPE_CHECKING:
    import pandas as pd


def engines(fakes: bool = True) -> list[str]:
    """The engines a lesson asks: the model, both fakes (lesson 07; lesson 08 asks without,
    ``fakes=False``), and MongoDB where one can be had."""
    chosen = ["model", "mongomock", "montydb"] if fakes else ["model"]
    if servers.mongodb_missing() is None:
        chosen.append("mongodb")
    return chosen


def engines_note(chosen: list[str]) -> str:
    """One line: the engines of this run, whether MongoDB's column is real or absent, and the
    fakes that are not installed here, with how to add them."""
    line = _("Engines in this run: {engines}.").format(engines=", ".join(chosen))
    if "mongodb" in chosen:
        line += " " + _("A MongoDB server is available: its column is real.")
    else:
        line += " " + _("No MongoDB server here, so no column is a real server's.")
    absent = _absent_fakes(chosen)
    if absent:
        line += " " + _("Not installed here: {fakes}; their columns stay empty.").format(
            fakes=", ".join(absent)) + " " + _(HOW_TO_INSTALL)
    return line


def _absent_fakes(chosen: list[str]) -> list[str]:
    """The fakes among ``chosen`` that are not installed here."""
    absent = []
    for name in (n for n in chosen if n in FAKES):
        try:
            fake_version(name)
        except ServerUnavailable:
            absent.append(name)
    return absent


def _is_model(column: Column) -> bool:
    return column.engine == "model"


def _heading(column: Column) -> str:
    """A column's heading: the engine's label, the model's as labkit's model of the version
    whose rules it states ("model 8.0" read as if it were MongoDB 8.0)."""
    if _is_model(column):
        return _("labkit's model ({version} rules)").format(version=CURRENT_MAJOR)
    return column.label


def _word(column: Column, row: Result) -> str:
    """A verdict cell: the real engines' word, or, in the model's column, what it predicts."""
    if _is_model(column):
        return predicted_text(verdict_text(row.verdict))
    return verdict_text(row.verdict)


def _source(result: CheckRun, index: int) -> str:
    """Where entry ``index``'s expectation comes from, as a column heading says it."""
    spec = result.specs[index]
    try:
        return catalogue.get(spec.id.split(".")[0]).expected_short
    except UnknownClaim:
        return _("the claim file's own")


def verdicts(result: CheckRun) -> pd.DataFrame:
    """pandas: one row per claim file entry, one column per engine, verdict words in the
    learner's language (the model's column says what it predicts)."""
    import pandas as pd

    data = {_heading(c): [_word(c, row) for row in c.rows] for c in result.columns}
    return pd.DataFrame(data, index=pd.Index([s.id for s in result.specs], name=_("claim")))


def raised(result: CheckRun, fakes: list[str]) -> pd.DataFrame:
    """pandas: the entries on which any of ``fakes`` raised where an answer is expected, and
    what each raised (``CheckRun.raised``), headed in the learner's language; each message
    whole, where pandas cut it at 50 characters, mid-word."""
    return whole_text(result.raised(fakes).rename_axis(_("claim")))


def readable(value: Any) -> str:
    """An expectation or an answer in words: ``_id`` lists, counts per group, else JSON."""
    value = jsonable(value)
    if isinstance(value, dict) and "ids" in value:
        ids = ", ".join(str(i) for i in value["ids"])
        if not ids:
            return _("no document")
        return (_("_id {ids}, in this order") if value.get("ordered")
                else _("_id {ids}, any order")).format(ids=ids)
    if isinstance(value, dict) and "documents" in value and all(
            isinstance(d, dict) and set(d) == {"_id", "n"} for d in value["documents"]):
        return "; ".join(f"{d['_id']}: {number(d['n'])}" for d in value["documents"])
    return short_json(value, 80)


def _answer(observed: Any) -> str:
    """What an engine gave, in words: the exception it raised, an ``_id`` list, or JSON."""
    if isinstance(observed, dict) and list(observed) == ["raised"]:
        return _("raised {error}").format(error=str(observed["raised"])[:80])
    if isinstance(observed, list) and not any(isinstance(i, dict | list) for i in observed):
        return ", ".join(str(i) for i in observed) or _("no document")
    return readable(observed)


def _cell(row: Result) -> str:
    """A scorecard cell: ✓ agrees, ✗ differs (with what it gave), ! error, – not run (why)."""
    if row.verdict == HOLDS:
        return "✓"
    if row.verdict == FAILS:
        return "✗ " + _answer(row.observed)
    return ("! " if row.verdict == ERROR else "– ") + row.shown_reason


def scorecard(result: CheckRun) -> pd.DataFrame:
    """pandas: per entry, where its expectation comes from and what it is, in words; then each
    engine's answer: ✓ agrees, ✗ differs (with what it gave), ! error, – not run (with why),
    each cell whole."""
    import pandas as pd

    rows = []
    for index, spec in enumerate(result.specs):
        row = {_("claim"): spec.id, _("source"): _source(result, index),
               _("expected"): readable(spec.expected)}
        for column in result.columns:
            row[_heading(column)] = _cell(column.rows[index])
        rows.append(row)
    return whole_text(pd.DataFrame(rows).set_index(_("claim")))


def tally(result: CheckRun) -> pd.DataFrame:
    """pandas: per engine, how many entries it agrees with the source on, out of how many (the
    model's row says how often it predicts the expectation; an engine that could not run says
    so instead)."""
    import pandas as pd

    rows = {_heading(column): _agreement(column, len(result.specs))
            for column in result.columns}
    return pd.DataFrame({_("agrees with the expected result"): rows}).rename_axis(_("engine"))


def _agreement(column: Column, total: int) -> str:
    """A tally cell: ``31 of 33``; or, where the engine could not run at all, why (a fake
    that is not installed answered nothing, which "0 of 33" would misreport as all wrong)."""
    if column.missing:
        return _("not installed") if column.engine in FAKES else _("not run")
    return _("{agree} of {total}").format(
        agree=number(sum(row.verdict == HOLDS for row in column.rows)), total=number(total))


def model_agreement(result: CheckRun) -> str:
    """How many entries the model predicts as expected, counted by where each expectation comes
    from (recorded by the source, stated by the source or the manual). Raises ``ClaimFailed``
    when the model disagrees with any, naming them: the model is the kit's statement of the
    rules."""
    model = next(c for c in result.columns if _is_model(c))
    wrong = [f"{spec.id}: {verdict_text(row.verdict)}"
             for spec, row in zip(result.specs, model.rows, strict=True) if row.verdict != HOLDS]
    if wrong:
        raise ClaimFailed(Message(N_("The model disagrees with these entries: {entries}"),
                                  entries="; ".join(wrong)))
    sources = Counter(_source(result, index) for index in range(len(result.specs)))
    parts = [f"{source}: {number(count)}" for source, count in sources.items()]
    return _("The model predicts the expected result for all {total} entries. Where the "
             "expectations come from: {parts}.").format(total=number(len(result.specs)),
                                                         parts="; ".join(parts))
