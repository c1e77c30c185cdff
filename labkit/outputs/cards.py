"""A claim's verdict card in a notebook: the claim's verdict, then each engine's row.

The card is an output like the report: it reads a ``run.results.ClaimResult`` and draws it.
The notebook's ``Checked`` (``lessons.notebook``, above this room) shows it as its HTML.
"""

from __future__ import annotations

import html

from labkit.claims.claim import COLOURS, kind_text, short_json, verdict_text
from labkit.i18n import _
from labkit.run.results import ClaimResult, Result


def row_card(row: Result) -> str:
    """One engine's verdict as HTML: the verdict, the engine, expected beside observed, why."""
    item = row.claim
    rows = [f"<b style='color:{COLOURS[row.verdict]}'>{item.id} "
            f"{verdict_text(row.verdict)}</b> &mdash; {html.escape(item.shown_title)}"]
    if row.engine:
        rows.append(f"{_('engine:')} {html.escape(row.engine)} "
                    f"{html.escape(row.engine_version or '')}")
    if row.shows_observation and row.observation is not None:
        rows.append(f"{_('expected:')} <code>{html.escape(short_json(item.expected))}</code>")
        rows.append(f"{_('observed:')} <code>"
                    f"{html.escape(short_json(row.observation.observed))}</code>")
    if row.reason:
        rows.append(html.escape(row.shown_reason))
    return "<div>" + "<br>".join(rows) + "</div>"


def claim_card(result: ClaimResult) -> str:
    """A claim's verdict card as HTML: the claim's verdict and kind, its experiment, then its
    row (or, judged on several engines, each row indented)."""
    item = result.claim
    head = (f"<p><b style='color:{COLOURS[result.verdict]}'>{item.id}: "
            f"{verdict_text(result.verdict)}</b> ({kind_text(item.kind)}) &mdash; "
            f"{html.escape(item.shown_title)}<br><small>{_('experiment:')} "
            f"<code>{html.escape(item.experiment_name)}</code></small></p>")
    if result.single:
        return head + row_card(result.rows[0])
    return head + "".join(f"<div style='margin-left:1.5em'>{row_card(row)}</div>"
                          for row in result.rows)
