"""``labkit compare``'s page: several runs' verdicts side by side (``run.comparison``), as
compare.html (verdicts coloured as the report colours them) and compare.md (CommonMark with
GFM tables, for a CI job's summary), the claims that differ first.

Every value from a results file (a claim's ID and title, an engine's name, a reason) is
escaped for its format by ``outputs.escape``; labels go through labkit's catalogue.
"""

from __future__ import annotations

from pathlib import Path

from labkit.claims.claim import (
    COUNT_TEXT,
    FAILS,
    FINDING,
    HOLDS,
    VERDICTS,
    count_text,
    predicted_text,
    short_json,
    verdict_text,
)
from labkit.i18n import N_, _, language, plural
from labkit.outputs import escape
from labkit.outputs.report import CSS
from labkit.run.comparison import Cell, Comparison, Row, RunSource
from labkit.run.made import Made, check_target, staged_in

# The page's files in its folder, by what each is.
COMPARE_FILES = {"html": "compare.html", "markdown": "compare.md"}

# What the report's styles lack: a wide table, and each cell coloured by its verdict; a claim's
# ID breaks where it must (the report keeps IDs on one line, which in this fixed-width table
# ran a long ID, D3.date_field_string_operand, over the title column).
_CSS = """
body{max-width:96rem}table.m{table-layout:fixed;width:100%}th.id{width:11rem}th.t{width:16rem}
table.m td.id{white-space:normal;overflow-wrap:anywhere}
td.c{font-weight:600;white-space:nowrap;text-align:center;vertical-align:middle}
td.c.holds{background:#dafbe1}td.c.fails{background:#ffebe9}td.c.finding{background:#fbefff}
td.c.not-run{background:#f6f8fa}td.c.error{background:#fff1e5}
td.c.absent{color:#6e7781;font-weight:400}td.c.predicted{font-style:italic;font-weight:400}
th.col{font-weight:400}th.col b{display:block}
.run{color:#59636e;font-size:.85em}tr.differs td.id{border-left:4px solid #cf222e}
.why li{margin:.15rem 0}
"""


def headline(comparison: Comparison) -> str:
    """``5 claims in 4 runs (6 columns): 2 differ.``, in the learner's words, then how many
    claims did not run in some column, which is not a difference."""
    runs = plural(len(comparison.runs), N_("{n} run"), N_("{n} runs"))
    columns = plural(len(comparison.columns), N_("{n} column"), N_("{n} columns"))
    differ = len(comparison.differing)
    verdicts = (plural(differ, N_("{n} differs"), N_("{n} differ")) if differ
                else _("none differs"))
    line = plural(len(comparison.rows), N_("{n} claim in {runs} ({columns}): {differ}."),
                   N_("{n} claims in {runs} ({columns}): {differ}."),
                   runs=runs, columns=columns, differ=verdicts)
    partly = len(comparison.partly_compared)
    if partly:
        line += " " + plural(partly, N_("{n} claim did not run in every column: it is "
                                         "compared only where it ran."),
                              N_("{n} claims did not run in every column: each is compared "
                                 "only where it ran."))
    return line


def _run_line(comparison: Comparison, index: int) -> str:
    run = comparison.runs[index]
    return _("run {n}: {source}, started {started}, labkit {version}: {summary}").format(
        n=index + 1, source=run.source, started=run.started, version=run.labkit_version,
        summary=_summary(run))


def _summary(run: RunSource) -> str:
    """The run's counts in the learner's words (the file's English line if it has none)."""
    words = {COUNT_TEXT[v]: v for v in VERDICTS}
    if not run.counts or not set(run.counts) | set(run.predictions) <= set(words):
        return run.summary
    parts = ", ".join(f"{n} {count_text(words[key])}" for key, n in run.counts.items())
    n = sum(run.counts.values())
    line = plural(n, N_("{n} claim: {counts}"), N_("{n} claims: {counts}"), counts=parts)
    if run.predictions:
        line += _("; labkit's model predicts: {counts}").format(counts=", ".join(
            f"{n} {count_text(words[key])}" for key, n in run.predictions.items()))
    return line


def _column_text(comparison: Comparison, index: int) -> str:
    column = comparison.columns[index]
    return _("{label} (run {n})").format(label=column.label or "-", n=column.run + 1)


def _cell_text(cell: Cell | None) -> str:
    """The cell's verdict in the learner's words, as a prediction where labkit's model gave
    it (``predicts: holds``), as the report and the check's matrix word it."""
    if cell is None:
        return _("absent")
    words = verdict_text(cell.verdict)
    return predicted_text(words) if cell.predicted else words


def _why(comparison: Comparison, row: Row) -> list[str]:
    """Where a differing claim did not hold (or did not run, or erred) and why, per column."""
    lines = []
    for index, cell in enumerate(row.cells):
        where = _column_text(comparison, index)
        if cell is None:
            lines.append(_("{id} on {engine}: not in this run").format(id=row.id, engine=where))
        elif cell.verdict in (FAILS, FINDING):
            said = (N_("{id} on {engine}: {verdict}: expected {expected}, predicted {observed}")
                    if cell.predicted else
                    N_("{id} on {engine}: {verdict}: expected {expected}, observed {observed}"))
            lines.append(_(said).format(id=row.id, engine=where, verdict=_cell_text(cell),
                                        expected=short_json(row.expected),
                                        observed=short_json(cell.observed))
                         + (f" ({cell.reason})" if cell.reason else ""))
        elif cell.verdict != HOLDS:
            lines.append(_("{id} on {engine}: {verdict}").format(
                id=row.id, engine=where, verdict=_cell_text(cell))
                + (f": {cell.reason}" if cell.reason else ""))
    return lines


def markdown(comparison: Comparison) -> str:
    """compare.md: the runs, then a table of the claims that differ and one of the rest."""
    md = escape.markdown
    out = [f"# {_('labkit comparison')}", "", f"**{md(headline(comparison))}**", ""]
    out += [f"- {md(_run_line(comparison, i))}" for i in range(len(comparison.runs))]
    head = ["ID", _("claim"), *(_column_text(comparison, i)
                                for i in range(len(comparison.columns)))]

    def table(rows: list[Row]) -> list[str]:
        lines = ["| " + " | ".join(md(cell) for cell in head) + " |",
                 "|" + "---|" * len(head)]
        for row in rows:
            cells = [md(row.id), md(_(row.title)),
                     *(f"**{md(_cell_text(c))}**" if c is None or c.verdict != HOLDS
                       else md(_cell_text(c)) for c in row.cells)]
            lines.append("| " + " | ".join(cells) + " |")
        return lines

    differing, same = comparison.differing, comparison.same
    out += ["", f"## {md(_('Verdicts that differ ({n})').format(n=len(differing)))}", ""]
    if differing:
        out += [*table(differing), ""]
        out += [f"- {md(line)}" for row in differing for line in _why(comparison, row)]
    else:
        out.append(md(_("No claim differs between the columns.")))
    out += ["", f"## {md(_('The same wherever it ran ({n})').format(n=len(same)))}", ""]
    out += table(same) if same else [md(_("No claim has one verdict wherever it ran."))]
    return "\n".join(out) + "\n"


def html_page(comparison: Comparison) -> str:
    """compare.html: one self-contained page, readable offline."""
    esc = escape.html
    head = "".join(
        f"<th class='col'><b>{esc(column.engine or '-')}</b><span class='run'>"
        + esc(" · ".join(filter(None, [column.version,
                                        _("run {n}").format(n=column.run + 1)])))
        + "</span></th>" for column in comparison.columns)

    def cell(value: Cell | None) -> str:
        if value is None:
            return f"<td class='c absent' title='{esc(_('not in this run'))}'>" \
                   f"{esc(_('absent'))}</td>"
        title = f" title='{esc(value.reason)}'" if value.reason else ""
        kind = " predicted" if value.predicted else ""
        return f"<td class='c {esc(value.verdict)}{kind}'{title}>{esc(_cell_text(value))}</td>"

    def table(rows: list[Row], kind: str) -> str:
        body = "".join(f"<tr class='{kind}'><td class='id'>{esc(row.id)}</td>"
                       f"<td class='t'>{esc(_(row.title))}</td>"
                       f"{''.join(cell(c) for c in row.cells)}</tr>"
                       for row in rows)
        return (f"<table class='m'><tr><th class='id'>ID</th><th class='t'>{esc(_('claim'))}"
                f"</th>{head}</tr>"
                f"{body}</table>")

    differing, same = comparison.differing, comparison.same
    parts = [f"<!doctype html><html lang='{language()}'><head><meta charset='utf-8'>"
             f"<title>{esc(_('labkit comparison'))}</title><style>{CSS}{_CSS}</style>"
             "</head><body>", f"<h1>{esc(_('labkit comparison'))}</h1>",
             f"<div class='summary'><p><b>{esc(headline(comparison))}</b></p><ul>"
             + "".join(f"<li>{esc(_run_line(comparison, i))}</li>"
                       for i in range(len(comparison.runs))) + "</ul></div>",
             f"<h2>{esc(_('Verdicts that differ ({n})').format(n=len(differing)))}</h2>"]
    if differing:
        parts.append(table(differing, "differs"))
        parts.append("<ul class='why meta'>" + "".join(
            f"<li>{esc(line)}</li>" for row in differing for line in _why(comparison, row))
            + "</ul>")
    else:
        parts.append(f"<p>{esc(_('No claim differs between the columns.'))}</p>")
    parts.append(f"<h2>{esc(_('The same wherever it ran ({n})').format(n=len(same)))}</h2>")
    parts.append(table(same, "same") if same else
                 f"<p>{esc(_('No claim has one verdict wherever it ran.'))}</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


def check_targets(out: Path, option: str = "--out") -> None:
    """Refuse, before the work, a folder where a page's name holds something other than a
    regular file (a link, a named pipe, a folder)."""
    for name in COMPARE_FILES.values():
        check_target(out / name, option)


def write(comparison: Comparison, out: Path, made: Made | None = None) -> dict[str, Path]:
    """Write compare.html and compare.md under ``out``, put in place together; their paths."""
    paths = {kind: out / name for kind, name in COMPARE_FILES.items()}
    with staged_in(made) as record:
        record.folder(out)
        check_targets(out)
        record.stage(paths["markdown"], markdown(comparison).encode("utf-8"))
        record.stage(paths["html"], html_page(comparison).encode("utf-8"))
    return paths
