"""The run's outputs: the terminal verdict table, report.html, report.md and results.json."""

from __future__ import annotations

import base64
import html
import json
import textwrap
from pathlib import Path

from .claims import ERROR, FAILS, HOLDS, NOT_RUN, VERDICT_TEXT, Run, short_json

_ANSI = {HOLDS: "\033[32m", FAILS: "\033[31m", NOT_RUN: "\033[2m", ERROR: "\033[33m"}
_RESET = "\033[0m"


def _engine(row: dict) -> str:
    return f"{row['engine']} {row['engine_version']}" if row["engine"] else "-"


def terminal_table(run: Run, colour: bool = False, width: int = 100) -> str:
    """The verdict table printed at the end of ``labkit run``."""
    rows = run.to_dict()["claims"]
    engine_width = max([len(_engine(r)) for r in rows] + [6])
    title_width = max(20, width - 6 - 15 - engine_width - 6)
    lines = [f"{'ID':<5} {'verdict':<14} {'engine':<{engine_width}}  claim"]
    for row in rows:
        verdict = f"{VERDICT_TEXT[row['verdict']]:<14}"
        if colour:
            verdict = _ANSI[row["verdict"]] + verdict + _RESET
        title = textwrap.shorten(row["title"], title_width, placeholder="…")
        lines.append(f"{row['id']:<5} {verdict} {_engine(row):<{engine_width}}  {title}")
    lines.append("")
    lines.append(summary_line(run))
    notes = _reasons(rows)
    if notes:
        lines.append("")
        lines.extend(notes)
    return "\n".join(lines)


def summary_line(run: Run) -> str:
    """``N holds, N does not hold, N not run, N error`` for the whole run."""
    counts = run.counts()
    return ", ".join(f"{counts[v]} {VERDICT_TEXT[v]}" for v in (HOLDS, FAILS, NOT_RUN, ERROR))


def _reasons(rows: list[dict]) -> list[str]:
    """Why claims did not run (grouped), and what went wrong where one failed or erred."""
    lines: list[str] = []
    not_run: dict[str, list[str]] = {}
    for row in rows:
        if row["verdict"] == NOT_RUN:
            not_run.setdefault(row["reason"], []).append(row["id"])
        elif row["verdict"] in (FAILS, ERROR):
            lines.append(f"{row['id']} {VERDICT_TEXT[row['verdict']]}: expected "
                         f"{short_json(row['expected'])}, observed {short_json(row['observed'])}"
                         + (f" ({row['reason']})" if row["reason"] else ""))
    for reason, ids in not_run.items():
        lines.append(f"Not run ({', '.join(ids)}): {reason}")
    return lines


def markdown(run: Run) -> str:
    """report.md: the same table and details, for a pull request or a wiki page."""
    data = run.to_dict()
    out = ["# labkit report", "",
           f"Run {data['started']} to {data['finished']}, labkit {data['labkit_version']}, "
           f"Python {data['python']}.", ""]
    out += [f"- Server: {line}" for line in data["engines"]] or ["- Servers: none used"]
    out += ["", f"**{summary_line(run)}**", "",
            "| ID | verdict | engine | claim |", "|---|---|---|---|"]
    for row in data["claims"]:
        out.append(f"| {row['id']} | {VERDICT_TEXT[row['verdict']]} | {_engine(row)} | "
                   f"{row['title'].replace('|', '/')} |")
    out.append("")
    for row in data["claims"]:
        out += [f"## {row['id']}: {row['title']}", "",
                f"- Verdict: **{VERDICT_TEXT[row['verdict']]}**",
                f"- Source: {row['source']}",
                f"- Engine: {_engine(row)}",
                f"- Expected: `{short_json(row['expected'], 400)}`",
                f"- Observed: `{short_json(row['observed'], 400)}`"]
        if row["reason"]:
            out.append(f"- Note: {row['reason']}")
        out.append("")
    return "\n".join(out)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:60rem;margin:2rem auto;
padding:0 1rem;color:#1f2328;line-height:1.45}
table{border-collapse:collapse;margin:.5rem 0 1rem}td,th{border:1px solid #d0d7de;
padding:.25rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f8fa}
code{background:#f6f8fa;padding:.1rem .25rem;border-radius:4px;word-break:break-all}
.v{font-weight:600;white-space:nowrap}.holds{color:#1a7f37}.fails{color:#cf222e}
.not-run{color:#6e7781}.error{color:#bc4c00}section{border-top:1px solid #d0d7de;
margin-top:1.5rem}.meta{color:#59636e}img{max-width:100%}
"""


def _img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _evidence_table(rows: list[dict]) -> str:
    if not rows:
        return ""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)

    def cell(value) -> str:
        return html.escape(value if isinstance(value, str) else short_json(value, 200))

    body = "".join("<tr>" + "".join(f"<td>{cell(row.get(c))}</td>" for c in columns) + "</tr>"
                   for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def html_report(run: Run) -> str:
    """report.html: one self-contained page, plots embedded, readable offline."""
    from .plots import png_bytes, verdict_summary

    data = run.to_dict()
    esc = html.escape
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>labkit report {esc(data['started'])}</title><style>{_CSS}</style>"
             "</head><body>",
             "<h1>labkit report</h1>",
             f"<p class='meta'>Run {esc(data['started'])} to {esc(data['finished'])}; labkit "
             f"{esc(data['labkit_version'])}; Python {esc(data['python'])}.<br>"
             + ("<br>".join(f"Server: {esc(line)}" for line in data["engines"])
                or "No database server was used.") + "</p>",
             f"<p><b>{esc(summary_line(run))}</b></p>"]
    if data["claims"]:
        parts.append(_img(png_bytes(verdict_summary(data["claims"])), "verdicts by topic"))
    parts.append("<table><tr><th>ID</th><th>verdict</th><th>engine</th><th>claim</th></tr>")
    for row in data["claims"]:
        parts.append(f"<tr><td><a href='#{esc(row['id'])}'>{esc(row['id'])}</a></td>"
                     f"<td class='v {row['verdict']}'>{VERDICT_TEXT[row['verdict']]}</td>"
                     f"<td>{esc(_engine(row))}</td><td>{esc(row['title'])}</td></tr>")
    parts.append("</table>")
    seen: set[str] = set()
    for result, row in zip(run.results, data["claims"], strict=True):
        anchor = "" if row["id"] in seen else f" id='{esc(row['id'])}'"
        seen.add(row["id"])
        parts.append(f"<section{anchor}><h2>{esc(row['id'])}: {esc(row['title'])}</h2>"
                     f"<p><span class='v {row['verdict']}'>{VERDICT_TEXT[row['verdict']]}</span>"
                     f" &middot; engine: {esc(_engine(row))} &middot; source: "
                     f"{esc(row['source'])}</p>"
                     f"<p>Expected: <code>{esc(short_json(row['expected'], 600))}</code><br>"
                     f"Observed: <code>{esc(short_json(row['observed'], 600))}</code></p>")
        if row["reason"]:
            parts.append(f"<p>{esc(row['reason'])}</p>")
        parts.append(_evidence_table(row["evidence"]))
        if result.observation and result.observation.figure:
            parts.append(_img(png_bytes(result.observation.figure()), f"{row['id']} figure"))
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write(run: Run, out: Path) -> dict[str, Path]:
    """Write report.html, report.md and results.json under ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"html": out / "report.html", "markdown": out / "report.md",
             "json": out / "results.json"}
    paths["json"].write_text(json.dumps(run.to_dict(), indent=2, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    paths["markdown"].write_text(markdown(run) + "\n", encoding="utf-8")
    paths["html"].write_text(html_report(run), encoding="utf-8")
    return paths
