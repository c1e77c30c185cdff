"""The run's outputs: the terminal verdict table, report.html, report.md and results.json.

Each counts claims, not rows: one verdict per claim, with its per-engine rows below it. All
render from the run's objects (``run.results``); results.json is the run's one dict.
"""

from __future__ import annotations

import base64
import math
import re
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from labkit.claims.claim import (
    COLOURS,
    ERROR,
    FAILS,
    FINDING,
    HOLDS,
    NOT_RUN,
    VERDICT_TEXT,
    VERDICTS,
    Figure,
    Verdict,
    count_text,
    item_separator,
    kind_text,
    one_line,
    short_json,
    topic_text,
    verdict_text,
)
from labkit.claims.labels import label as question_label
from labkit.claims.labels import value_word
from labkit.i18n import N_, Text, _, language, number, percent, plural, shown
from labkit.model.explain import DIFFERENCES, FindRow
from labkit.model.fixtures import dumps
from labkit.names import engine_name
from labkit.outputs import escape, plots
from labkit.outputs.explanations import key_text
from labkit.run.made import Made, check_target, staged_in
from labkit.run.results import ClaimResult, Result, Run

_ANSI: dict[Verdict, str] = {HOLDS: "\033[32m", FAILS: "\033[31m", FINDING: "\033[35m",
                         NOT_RUN: "\033[2m", ERROR: "\033[33m"}
_RESET = "\033[0m"


def _verdict_rows(claims: list[ClaimResult]
                  ) -> Iterator[tuple[ClaimResult, bool, Verdict, str, str]]:
    """The verdict table's rows, as every output draws them: ``(claim, sub, verdict, words,
    engine)`` for each claim, then one ``sub`` row per engine under a claim judged on several.
    A row of labkit's model reads as what it predicts (``predicts: holds``) and is coloured as
    not run: nothing was seen to run there."""
    for result in claims:
        first = result.rows[0] if result.single else None
        words = (first.shown_verdict if first is not None and first.predicted
                 else verdict_text(result.verdict))
        yield result, False, result.verdict, words, first.where if first is not None else ""
        if not result.single:
            for row in result.rows:
                yield (result, True, NOT_RUN if row.predicted else row.verdict,
                       row.shown_verdict if row.predicted else verdict_text(row.verdict),
                       row.where)


def terminal_table(run: Run, colour: bool = False, width: int = 100) -> str:
    """The verdict table printed at the end of ``labkit run``: a line per claim, then a line
    per engine under claims judged on several."""
    engine_width = max([len(escape.terminal(r.where)) + 2 for r in run.rows] + [6])
    title_width = max(20, width - 6 - 15 - engine_width - 6)

    rows = list(_verdict_rows(run.claims))
    verdict_width = max([14] + [len(words) for *_rest, words, _engine in rows])

    def paint(verdict: Verdict, words: str) -> str:
        text = f"{words:<{verdict_width}}"
        return _ANSI[verdict] + text + _RESET if colour else text

    lines = [f"{'ID':<5} {_('verdict'):<{verdict_width}} {_('engine'):<{engine_width}}  "
             f"{_('claim')}"]
    for result, sub, verdict, words, engine in rows:
        if sub:
            lines.append(f"{'':<5} {paint(verdict, words)} └ {escape.terminal(engine)}")
        else:
            title = textwrap.shorten(escape.terminal(result.claim.shown_title), title_width,
                                     placeholder="…")
            lines.append(f"{escape.terminal(result.claim.id):<5} {paint(verdict, words)} "
                         f"{escape.terminal(engine):<{engine_width}}  {title}")
    lines += ["", run.summary()]
    notes = _reasons(run.claims)
    if notes:
        lines += ["", *(escape.terminal(note) for note in notes)]
    return "\n".join(lines)


def _row_where(result: ClaimResult, row: Result) -> str:
    """The claim, and the engine (with its version, or the one asked for) where it was
    judged on several."""
    if result.single:
        return result.claim.id
    return _where(result.claim.id, row.where if row.engine else None)


def _reasons(claims: list[ClaimResult]) -> list[str]:
    """Why claims did not run (grouped), and what was seen where a claim failed, erred or
    made a finding."""
    lines: list[str] = []
    not_run: dict[str, list[str]] = {}
    errors: dict[str, list[str]] = {}  # one server-wide failure errs every claim the same way
    for result in claims:
        for row in result.rows:
            where = _row_where(result, row)
            if row.verdict == NOT_RUN:
                not_run.setdefault(row.shown_reason, []).append(where)
            elif row.verdict == ERROR:
                errors.setdefault(row.shown_reason, []).append(where)
            elif row.verdict in (FAILS, FINDING):
                lines.append(row.against(where))
    for reason, places in errors.items():
        lines.insert(0, _("{where} error: {reason}").format(where=", ".join(places),
                                                           reason=reason))
    for reason, places in not_run.items():
        lines.append(_("Not run ({where}): {reason}").format(where=", ".join(places),
                                                             reason=reason))
    return lines


def _where(claim_id: str, engine: str | None) -> str:
    return _("{id} on {engine}").format(id=claim_id, engine=engine)


# How each verdict reads as a sentence about a number of claims.
_COUNT_SENTENCE: dict[Verdict, tuple[str, str]] = {
    HOLDS: (N_("{n} claim holds"), N_("{n} claims hold")),
    FAILS: (N_("{n} claim does not hold"), N_("{n} claims do not hold")),
    FINDING: (N_("{n} survey claim has a finding"), N_("{n} survey claims have findings")),
    NOT_RUN: (N_("{n} claim did not run"), N_("{n} claims did not run")),
    ERROR: (N_("{n} claim erred"), N_("{n} claims erred"))}


@dataclass
class Cause:
    """One cause of not-run rows: the server kind missing (``""`` for another reason) and its
    name, what failed, what to do (the hint, given once), the claims it kept from running,
    those that ran only on their other engines (``partly``), and the rows it cost."""

    kind: str
    missing: str
    what_failed: str
    todo: str
    claims: list[str] = field(default_factory=list)
    partly: list[str] = field(default_factory=list)
    where: list[str] = field(default_factory=list)


def not_run_causes(claims: list[ClaimResult]) -> list[Cause]:
    """Why claims did not run, one entry per cause. A row says what it is missing and the
    hint as fields; other not-run rows group by reason."""
    causes: dict[str, Cause] = {}
    for result in claims:
        for row in result.rows:
            if row.verdict != NOT_RUN:
                continue
            kind = row.missing
            cause = causes.setdefault(kind or row.shown_reason, Cause(
                kind, engine_name(kind),
                shown(row.missing_detail) if kind else row.shown_reason, _todo(row.hint)))
            group = cause.claims if result.verdict == NOT_RUN else cause.partly
            if result.claim.id not in group:
                group.append(result.claim.id)
            cause.where.append(_row_where(result, row))
    return list(causes.values())


def _todo(hint: Text) -> str:
    """A row's hint (English, as results.json keeps it) in the learner's words, without its
    ``Hint:`` label."""
    text = shown(hint).strip()
    for label in ("Hint:", _("Hint:")):
        text = text.removeprefix(label).strip()
    return text


# What to do when a server is missing, in one short line; the full hint is in the details.
_TODO = {"mongodb": N_("give labkit a MongoDB server (LABKIT_MONGODB_URI, a mongod on PATH, "
                       "or Docker), then run again."),
         "postgres": N_("give labkit a PostgreSQL server (LABKIT_POSTGRES_DSN, PostgreSQL's "
                        "binaries on PATH, or Docker), then run again.")}


def summary_lines(run: Run) -> list[str]:
    """The report's opening in sentences: counts per claim (singular or plural as the number
    says), then each cause of not-run claims once, counted as the headline counts, and what
    to do about it in one short line."""
    counted = "; ".join(plural(run.counts[v], *_COUNT_SENTENCE[v]) for v in VERDICT_TEXT
                        if run.counts[v])
    lines = [plural(len(run.claims), N_("{n} claim was checked: {counts}."),
                     N_("{n} claims were checked: {counts}."), counts=counted)]
    if run.predictions:
        predicted = "; ".join(plural(n, *_COUNT_SENTENCE[v])
                              for v, n in run.predictions.items() if n)
        lines.append(_("labkit's model predicts: {counts}. A prediction is labkit's reading of "
                       "MongoDB's rules, not an engine's answer: it counts in none of the "
                       "numbers above.").format(counts=predicted))
    for cause in not_run_causes(run.claims):
        lines += _cause_lines(cause)
    return lines


def _cause_lines(cause: Cause) -> list[str]:
    """One cause of not-run rows: what was missing and what it cost, then what to do."""
    if not cause.missing:
        return [_("Not run: {who}: {what}.").format(who=", ".join(cause.where),
                                                   what=cause.what_failed.rstrip("."))]
    parts = []
    if cause.claims:
        parts.append(plural(len(cause.claims), N_("{n} claim did not run ({ids})"),
                             N_("{n} claims did not run ({ids})"), ids=", ".join(cause.claims)))
    if cause.partly:
        parts.append(plural(len(cause.partly),
                             N_("{n} claim ran on its other engines only ({ids})"),
                             N_("{n} claims ran on their other engines only ({ids})"),
                             ids=", ".join(cause.partly)))
    lines = [_("{missing} was not available: {cost}.").format(missing=cause.missing,
                                                             cost="; ".join(parts))]
    todo = _(_TODO[cause.kind]) if cause.kind in _TODO else cause.todo
    if todo:
        lines.append(_("To run them: {todo}").format(todo=todo))
    return lines


def cause_details(run: Run) -> list[str]:
    """Each missing server's full hint, shown on request below the summary (the header says
    what labkit tried; the summary's one line says what to do)."""
    return [cause.todo for cause in not_run_causes(run.claims) if cause.missing and cause.todo]


def engine_states(run: Run) -> list[tuple[str, str]]:
    """Each engine of the run and its state, as the report's header lists them: a missing
    server and why, a server with its version and where it runs, an embedded engine's version.
    Every engine the run recorded has its line, so several versions of one engine (the model's
    rule sets, ``--mongodb-version 6.0,7.0``) each keep theirs."""
    recorded = {engine.name for engine in run.engines}
    missing: dict[str, str] = {}
    for row in run.rows:
        name = engine_name(row.missing) if row.missing else ""
        if name and name not in recorded:
            missing.setdefault(name, _("not available ({why})").format(
                why=shown(row.missing_detail).rstrip(".") or row.shown_reason))
    states = dict.fromkeys([*missing.items(),
                            *((engine.name, engine.state()) for engine in run.engines)])
    named = {name for name, _state in states}
    for row in run.rows:
        if row.engine_name and row.engine_version and row.engine_name not in named:
            named.add(row.engine_name)  # the engine, not the row's label
            states[(row.engine_name, row.engine_version)] = None
    return list(states)


def _is_share(key: str) -> bool:
    return any(word in key for word in ("fill", "larger_by", "share"))


def readable(value: object, key: str = "") -> str:
    """A value as a person reads it, in the learner's language: shares as rounded percentages,
    numbers rounded and grouped, short lists joined, yes/no for booleans, small objects as
    ``key: value`` pairs."""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if value is None:
        return "-"
    if isinstance(value, float):
        return _readable_float(value, key)
    if isinstance(value, int):
        return number(value)
    if isinstance(value, list):
        return _readable_list(value, key)
    if isinstance(value, dict):
        return _readable_dict(value)
    return str(value_word(value))


def _readable_float(value: float, key: str) -> str:
    if _is_share(key):
        shown = percent(value, 1)
        return ("+" + shown if value >= 0 else shown) if "larger" in key else shown
    if abs(value) >= 1000:
        return number(value, 0)
    # Three significant digits, as "%.3g" keeps them, written in the learner's language: as
    # many decimals as the third significant digit needs (0.000123 keeps six).
    rounded = float(f"{value:.3g}")
    if rounded == 0 or not math.isfinite(rounded):
        return number(rounded) if rounded == 0 else str(value)
    return number(rounded, at_most=max(0, 2 - math.floor(math.log10(abs(rounded)))))


def _readable_list(value: Sequence[object], key: str) -> str:
    """A stated range of shares as "low to high", a flat list joined, a nested one as JSON."""
    numbers = [v for v in value if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(value) == 2 and len(numbers) == 2 and _is_share(key):
        return _("{low} to {high}").format(low=readable(float(numbers[0]), key),
                                           high=readable(float(numbers[1]), key))
    if all(not isinstance(v, dict | list) for v in value):
        parts = [readable(v) if not isinstance(v, str) else v for v in value]
        return item_separator(parts).join(parts) or _("(none)")
    return short_json(value, 200)


def _readable_dict(value: Mapping[str, object]) -> str:
    if all(not isinstance(v, dict | list) for v in value.values()):
        return ", ".join(f"{k}: {readable(v, k)}" for k, v in value.items()) or _("(none)")
    return short_json(value, 200)


def _numbers(value: object) -> list[float] | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return [float(value)]
    return None


def outside_range(expected: object, observed: object,
                  named: Callable[[str], str] = str) -> list[str]:
    """For each stated number or range that an observed number misses, say in which direction:
    ``random_larger_by +42.0% is larger than stated (25.0% to 40.0%)``, each quantity as
    ``named`` calls it (the report's page: by its label)."""
    if not isinstance(expected, dict) or not isinstance(observed, dict):
        return []
    notes = []
    for key, stated in expected.items():
        if isinstance(stated, list) and len(stated) == 2 and all(
                _numbers(v) for v in stated):
            low, high = float(stated[0]), float(stated[1])
        elif _numbers(stated):
            low = high = float(stated)
        else:
            continue
        suffix = key.rsplit("_", 1)[-1]
        matches = [k for k in observed if k == key] or \
            [k for k in observed if k.endswith(f"_{suffix}") and _numbers(observed[k])]
        for name in matches:
            value = _numbers(observed[name])
            if not value:
                continue
            tolerance = 0.005 if _is_share(key) else 0.0
            if value[0] > high + tolerance or value[0] < low - tolerance:
                text = (_("{name} {value} is larger than stated ({stated})") if value[0] > high
                        else _("{name} {value} is smaller than stated ({stated})"))
                notes.append(text.format(name=named(name),
                                         value=readable(value[0], name),
                                         stated=readable(stated, key)))
    return notes


def _about(run: Run, sentence: str) -> str:
    about = run.about()
    return _(sentence).format(started=about["started"], finished=about["finished"],
                              version=about["labkit_version"], python=about["python"])


def markdown(run: Run) -> str:
    """report.md: the same table and details, for a pull request or a wiki page. Every value
    from a claim or a server is escaped, so Markdown shows it as text (no HTML, no links)."""
    md, code = escape.markdown, escape.markdown_code
    out = [f"# {_('labkit report')}", "",
           _about(run, N_("Run {started} to {finished}, labkit {version}, Python {python}.")),
           ""]
    out += [f"- {md(name)}: {md(state)}" for name, state in engine_states(run)] or [
        f"- {_('No engine was used.')}"]
    out += ["", f"**{md(run.summary())}**", ""]
    out += [f"- {md(line)}" for line in summary_lines(run)]
    out += [f"  - {md(line)}" for line in cause_details(run)]
    out += ["", f"| ID | {_('verdict')} | {_('engine')} | {_('claim')} |", "|---|---|---|---|"]
    for result, sub, _verdict_code, words, engine in _verdict_rows(run.claims):
        cells = ["" if sub else md(result.claim.id), md(words), md(engine),
                 "" if sub else md(result.claim.shown_title)]
        out.append("|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|")
    out.append("")
    for result in run.claims:
        item = result.claim
        # A lesson is one of labkit's modules (a plain name): the catalogue's words keep it.
        lesson = (" " + _("(lesson `{lesson}`)").format(lesson=escape.shown(result.lesson))
                  if result.lesson else "")
        out += [f"## {md(item.id)}: {md(item.shown_title)}", "",
                f"- {_('Verdict:')} **{verdict_text(result.verdict)}** "
                f"({kind_text(item.kind)})",
                f"- {_('Source:')} {md(_(result.source))}",
                f"- {_('Experiment:')} {code(item.experiment_name)}{lesson}",
                f"- {_('Expected:')} {code(short_json(item.expected, 400))}"]
        for row in result.rows:
            seen = row.observed
            said = N_("predicted answer {value}") if row.predicted else N_("observed {value}")
            observed = (_(said).format(value=code(short_json(seen, 400)))
                        if seen is not None else _("no observation"))
            verdict = row.shown_verdict if row.predicted else verdict_text(row.verdict)
            out.append(f"- {md(row.where)}: **{verdict}**, {observed}"
                       + (f"; {md(row.shown_reason)}" if row.reason else ""))
            out += _explained_markdown(row)
        out.append("")
    return "\n".join(out)


# Where an answer differs from its expectation, the documents in question as labkit's model
# explains them: its account of MongoDB's rules, never an answer of MongoDB's.
EXPLAINED_LABEL = N_("labkit's model explains the documents in question (the model's account "
                     "of MongoDB's rules, not an answer of MongoDB's):")
EXPLAINED_READ = N_("{operation} at line {line:d}: {why}")
_MATCHED, _NOT_MATCHED, _SORTS_BY = N_("matched"), N_("not matched"), N_("sorts by {key}")
EXPLAINED_HEADINGS = ("_id", N_("difference"), N_("the model"), N_("because"), N_("rule"),
                      N_("source"))


class _Explained(NamedTuple):
    """One document in question, as plain text to be escaped for its format: its ``_id``, how
    it differs, the model's decision, why (``because``, the model's reason, which writes its
    code in backticks), the rule and its source."""

    ident: str
    how: str
    decision: str
    because: str
    rule: str
    source: str


def _explained_cells(row: Result) -> Iterator[tuple[str, list[_Explained]]]:
    """Each read the row's answer differs on: its line, then one row of plain text per
    document in question (``_id``, how it differs, the model's decision, why, the rule, its
    source), each to be escaped for its format."""
    for read in row.explained:
        cells = []
        for item in read.documents:
            decided = item.row
            if isinstance(decided, FindRow):
                decision = _(_MATCHED if decided.matched else _NOT_MATCHED)
            else:
                decision = _(_SORTS_BY).format(key=key_text(decided.key))
            cells.append(_Explained(dumps(decided.id), _(_difference(item.how)), decision,
                                    shown(decided.because), decided.rule, decided.source))
        yield _(EXPLAINED_READ).format(operation=read.operation, line=read.line,
                                       why=dumps(read.asked)), cells


def _difference(how: str) -> str:
    return DIFFERENCES[how]


def _explained_markdown(row: Result) -> list[str]:
    """report.md's lines under an engine's row: the model's explanation, labelled as its."""
    md, code = escape.markdown, escape.markdown_code
    if not row.explained:
        return []
    out = [f"  - {md(_(EXPLAINED_LABEL))}"]
    for read, cells in _explained_cells(row):
        out.append(f"    - {md(read)}")
        out += [f"      - {code(ident)} ({md(how)}): {md(decision)}; "
                f"{escape.markdown_with_code(because)} "
                f"({code(rule)}; {md(source)})" for ident, how, decision, because, rule, source
                in cells]
    return out


def _explained_html(row: Result) -> str:
    """report.html's table under an engine's row: the model's explanation, labelled as its."""
    esc = escape.html
    if not row.explained:
        return ""
    parts = [f"<div class='explained'><p><b>{esc(_(EXPLAINED_LABEL))}</b></p>"]
    head = "".join(f"<th>{esc(_(h) if h != '_id' else h)}</th>" for h in EXPLAINED_HEADINGS)
    for read, cells in _explained_cells(row):
        body = "".join(
            "<tr>" + "".join(f"<td>{cell}</td>" for cell in (
                esc(line.ident), esc(line.how), esc(line.decision),
                escape.html_with_code(line.because), esc(line.rule), esc(line.source)))
            + "</tr>" for line in cells)
        parts.append(f"<p>{esc(read)}</p><div class='ev'><table><tr>{head}</tr>{body}"
                     "</table></div>")
    parts.append("</div>")
    return "".join(parts)


# The report's styles; the comparison page (outputs/compare.py) uses the same.
CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:60rem;margin:2rem auto;
padding:0 1rem;color:#1f2328;line-height:1.45;overflow-wrap:break-word}
table{border-collapse:collapse;margin:.5rem 0 1rem}td,th{border:1px solid #d0d7de;
padding:.25rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f8fa}
code{background:#f6f8fa;padding:.1rem .25rem;border-radius:4px;word-break:break-all}
.v{font-weight:600;white-space:nowrap}
tr.sub td{border-top:none;font-size:.92em}tr.sub td.e{padding-left:1.5rem}
section{border-top:1px solid #d0d7de;margin-top:1.5rem}.meta{color:#59636e}img{max-width:100%}
.row{margin:.75rem 0 .75rem 1rem}
td.id,th.id,td.e,td.n{white-space:nowrap}td.n{text-align:right}
.ev{overflow-x:auto;max-width:100%}.ev table{font-size:.85em}
.ev td,.ev th{padding:.2rem .35rem;overflow-wrap:normal}
.summary{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.5rem 1rem}
.summary li{margin:.2rem 0}.dir{color:#9a6700}
.chart{margin:1rem 0}.chart figcaption{color:#59636e;font-size:.9em}
.chart table{width:100%;margin:.25rem 0}.chart td,.chart th{border:none;padding:.15rem .5rem;
vertical-align:middle}.chart th{background:none;font-weight:normal;width:1%;white-space:nowrap}
.chart td.n{width:1%;color:#59636e}.bar{display:flex;height:1.4rem}
.bar span{min-width:1.4rem;color:#fff;font-size:.8em;line-height:1.4rem;text-align:center;
overflow:hidden}.legend span{margin-right:1rem;font-size:.9em;white-space:nowrap}
.legend i{display:inline-block;width:.8em;height:.8em;margin-right:.3em}
.bar span,.legend i{-webkit-print-color-adjust:exact;print-color-adjust:exact}
@media (max-width:40rem){td.e,.chart th,.v{white-space:normal;overflow-wrap:normal}}
""" + "".join(f".{verdict}{{color:{colour}}}" for verdict, colour in COLOURS.items()) + "\n"


def _img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{escape.html(alt)}" src="data:image/png;base64,{data}">'


def verdict_chart(claims: Sequence[ClaimResult]) -> str:
    """The verdicts by topic as stacked bars written in HTML: a row per topic (in the order
    the claims come), a segment per verdict as long as its count with the count written in
    it, and the row's total. Its words are text: they follow the page's language and zoom,
    can be selected, and show a hostile topic name escaped like every other cell."""
    esc = escape.html
    topics: dict[str, dict[Verdict, int]] = {}
    for result in claims:
        counts = topics.setdefault(topic_text(result.claim.topic), {})
        counts[result.verdict] = counts.get(result.verdict, 0) + 1
    if not topics:
        return ""
    widest = max(sum(counts.values()) for counts in topics.values())
    shown_verdicts = [v for v in VERDICTS if any(v in counts for counts in topics.values())]
    legend = "".join(f"<span><i style='background:{COLOURS[v]}'></i>{esc(count_text(v))}</span>"
                     for v in shown_verdicts)
    rows = []
    for topic, counts in topics.items():
        total = sum(counts.values())
        segments = "".join(
            f"<span style='flex:{counts[v]};background:{COLOURS[v]}' "
            f"title='{esc(count_text(v))}: {number(counts[v])}'>{number(counts[v])}</span>"
            for v in VERDICTS if v in counts)
        rows.append(f"<tr><th>{esc(topic)}</th><td><div class='bar' "
                    f"style='width:{100 * total / widest:.1f}%'>{segments}</div></td>"
                    f"<td class='n'>{number(total)}</td></tr>")
    return (f"<figure class='chart'><figcaption>{esc(_('verdicts by topic'))}</figcaption>"
            f"<div class='legend'>{legend}</div><table>{''.join(rows)}</table></figure>")


# Where a long value of an evidence table may break when the page is narrow (a projector): after
# the T of a date and time, and after each group mark of a long number. Words never break.
_DATE_TIME = re.compile(r"(\d)T(\d)")
_GROUP = re.compile(r"(\d[.,\u00a0])(?=\d{3})")


def _breakable(text: str) -> str:
    """An escaped cell with a break opportunity (``<wbr>``) in its long dates and numbers."""
    if len(text) <= 12:
        return text
    return _GROUP.sub(r"\1<wbr>", _DATE_TIME.sub(r"\1T<wbr>\2", text))


def _evidence_table(rows: Sequence[Mapping[str, object]]) -> str:
    if not rows:
        return ""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    head = "".join(f"<th title='{escape.html(str(c))}'>{escape.html(question_label(c))}</th>"
                   for c in columns)

    def cell(value: object, column: str) -> str:
        return _breakable(escape.html(value_word(value) if isinstance(value, str)
                                      else readable(value, str(column))))

    body = "".join("<tr>" + "".join(f"<td>{cell(row.get(c), c)}</td>" for c in columns)
                   + "</tr>" for row in rows)
    return f"<div class='ev'><table><tr>{head}</tr>{body}</table></div>"


def _figure(figure: Figure, alt: str) -> str:
    try:
        return _img(plots.png_bytes(plots.draw(figure)), alt)
    except Exception as exc:  # a figure that cannot be drawn must not cost the whole report
        return ("<p class='error'>" + escape.html(_("The figure could not be drawn: {why}")
                                                  .format(why=shown(one_line(exc)))) + "</p>")


def _short_reason(row: Result) -> str:
    """A not-run row's reason without the how-to, which the summary gives once."""
    if row.verdict != NOT_RUN or not row.missing:
        return row.shown_reason
    return _("{name} was not available here (how to get it: see the summary at the top)."
             ).format(name=engine_name(row.missing))


def _expected_html(expected: Any) -> str:
    if isinstance(expected, dict):
        return ""  # shown beside each engine's observation
    return f"<p>{_('Expected:')} {escape.html(readable(expected))}</p>"


def _compare_html(expected: object, observed: object, predicted: bool = False) -> str:
    """Expected and observed (or, from labkit's model, predicted) side by side, one row per
    quantity, in readable words."""
    esc = escape.html
    if not isinstance(observed, dict):
        seen = _("Predicted:") if predicted else _("Observed:")
        return f"<p>{seen} {esc(readable(observed))}</p>"
    stated = expected if isinstance(expected, dict) else {}
    keys = list(dict.fromkeys([*stated, *observed]))
    body = "".join(f"<tr><td class='e' title='{esc(k)}'>{esc(question_label(k))}</td>"
                   f"<td>{esc(readable(stated[k], k)) if k in stated else ''}</td>"
                   f"<td>{esc(readable(observed[k], k)) if k in observed else ''}</td></tr>"
                   for k in keys)
    notes = "".join(f"<br><span class='dir'>{esc(n)}</span>"
                    for n in outside_range(stated, observed, question_label))
    heading = _("predicted") if predicted else _("observed")
    return (f"<table><tr><th></th><th>{_('expected')}</th><th>{heading}</th></tr>"
            f"{body}</table>"
            + (f"<p>{notes[4:]}</p>" if notes else ""))


def _verdict(verdict: Verdict, words: str | None = None) -> str:
    """A verdict as report.html colours it, in its own words or ``words``."""
    shown_words = verdict_text(verdict) if words is None else words
    return f"<span class='v {verdict}'>{escape.html(shown_words)}</span>"


def html_report(run: Run) -> str:
    """report.html: one self-contained page, plots embedded, readable offline."""
    esc = escape.html
    about = run.about()
    parts = [f"<!doctype html><html lang='{language()}'><head><meta charset='utf-8'>"
             f"<title>{_('labkit report')} {esc(about['started'])}</title><style>{CSS}</style>"
             "</head><body>",
             f"<h1>{_('labkit report')}</h1>",
             "<p class='meta'>" + esc(_about(run, N_(
                 "Run {started} to {finished}; labkit {version}; Python {python}."))) + "</p>",
             _engines_html(run),
             f"<div class='summary'><p><b>{esc(run.summary())}</b></p><ul>"
             + "".join(f"<li>{esc(line)}</li>" for line in summary_lines(run))
             + "</ul>" + "".join(f"<details><summary>{esc(_('More on how to get it'))}</summary>"
                                 f"<p>{esc(line)}</p></details>" for line in cause_details(run))
             + "</div>",
             "<p class='meta'>" + _(
                 "A <i>behaviour</i> claim says what a server does: if it does not hold, that "
                 "is a failure. A <i>survey</i> claim is judged on several engines: where it "
                 "does not hold, that is a <span class='finding'>finding</span>, not a fault.")
             + "</p>"]
    if run.claims:
        parts.append(verdict_chart(run.claims))
    parts.append(f"<table><tr><th class='id'>ID</th><th>{_('verdict')}</th>"
                 f"<th>{_('engine')}</th><th>{_('claim')}</th></tr>")
    for result, sub, verdict, words, engine in _verdict_rows(run.claims):
        item = result.claim
        if sub:
            parts.append(f"<tr class='sub'><td></td><td>{_verdict(verdict, words)}</td>"
                         f"<td class='e'>{esc(engine)}</td><td></td></tr>")
        else:
            parts.append(f"<tr><td class='id'><a href='#{esc(item.id)}'>{esc(item.id)}"
                         f"</a></td><td>{_verdict(verdict, words)}</td>"
                         f"<td class='e'>{esc(engine)}</td>"
                         f"<td>{esc(item.shown_title)}</td></tr>")
    parts.append("</table>")
    for result in run.claims:
        parts.append(_claim_section(result))
    parts.append("</body></html>")
    return "\n".join(parts)


def _engines_html(run: Run) -> str:
    """The header's engines, one line each with its state: which ran, which were missing."""
    esc = escape.html
    states = engine_states(run)
    if not states:
        return f"<p class='meta'>{esc(_('No engine was used.'))}</p>"
    return (f"<p class='meta'><b>{esc(_('Engines:'))}</b></p><ul class='meta'>"
            + "".join(f"<li><b>{esc(name)}</b>: {esc(state)}</li>" for name, state in states)
            + "</ul>")


def _claim_section(result: ClaimResult) -> str:
    """One claim's section of report.html: its verdict, source and experiment, then each
    engine's row with what it observed beside the expectation, its evidence and figure."""
    esc = escape.html
    item, expected = result.claim, result.expected
    lesson = (f" &middot; {_('lesson:')} <code>{esc(result.lesson)}</code>"
              if result.lesson else "")
    parts = [f"<section id='{esc(item.id)}'>"
             f"<h2>{esc(item.id)}: {esc(item.shown_title)}</h2>"
             f"<p>{_verdict(result.verdict)} ({esc(kind_text(item.kind))}) "
             f"&middot; {_('source:')} {esc(_(result.source))}<br>{_('experiment:')} "
             f"<code>{esc(item.experiment_name)}</code>{lesson}</p>"
             + _expected_html(expected)]
    for row in result.rows:
        observed = row.observed
        shown_verdict = (_verdict(NOT_RUN, row.shown_verdict) if row.predicted
                         else _verdict(row.verdict))
        parts.append("<div class='row'><p>" + _("{verdict} on {engine}").format(
            verdict=shown_verdict, engine=f"<b>{esc(row.where)}</b>"))
        if row.reason:
            parts.append(f"<br>{esc(_short_reason(row))}")
        parts.append("</p>")
        if observed is not None:
            parts.append(_compare_html(expected, observed, row.predicted))
        parts.append(_explained_html(row))
        parts.append(_evidence_table(row.evidence))
        figure = row.observation.figure if row.observation is not None else None
        if figure is not None and observed is not None:
            parts.append(_figure(figure, _where(item.id, row.where)))
        parts.append("</div>")
    parts.append("</section>")
    return "\n".join(parts)


# The report's files in its folder, by what each is.
REPORT_FILES = {"html": "report.html", "markdown": "report.md", "json": "results.json"}


def check_targets(out: Path, option: str = "--out") -> None:
    """Refuse, before the work, a report folder where a report file's name holds something
    other than a regular file (a link, a named pipe, a folder): the report would be lost
    after the run, or, for a named pipe, the run would block there for ever."""
    for name in REPORT_FILES.values():
        check_target(out / name, option)


def write(run: Run, out: Path, made: Made | None = None) -> dict[str, Path]:
    """Write report.html, report.md and results.json under ``out``; return their paths.

    Each is written whole beside its name, then the three are put in place together (never
    through a link; an interrupt or a full disk leaves the report that was there). With
    ``made``, the run's record, they wait for its ``commit``, so a JUnit file can join them.
    """
    paths = {kind: out / name for kind, name in REPORT_FILES.items()}
    with staged_in(made) as record:
        record.folder(out)
        check_targets(out)
        record.stage(paths["json"], (escape.json_text(run.to_dict()) + "\n").encode("utf-8"))
        record.stage(paths["markdown"], (markdown(run) + "\n").encode("utf-8"))
        record.stage(paths["html"], html_report(run).encode("utf-8"))
    return paths
