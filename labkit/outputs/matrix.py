"""``labkit check``'s matrix in the terminal: claim by engine (and MongoDB version)."""

from __future__ import annotations

from labkit.claims.claim import ERROR, FAILS, NOT_RUN, VERDICT_TEXT, short_json
from labkit.outputs.escape import terminal
from labkit.run.check import CheckRun


def matrix_table(result: CheckRun, width: int = 120) -> str:
    """The terminal matrix: claim × engine/version, then what was seen where a claim did not
    hold, why cells did not run, and which engine each column is."""
    ids = [terminal(spec.id) for spec in result.specs]
    labels = [terminal(column.label) for column in result.columns]
    id_width = min(max([len(i) for i in ids] + [5]), 48)
    widths = [max(len(label), 13) for label in labels]
    lines = [f"{'claim':<{id_width}}  " + "  ".join(
        f"{label:<{w}}" for label, w in zip(labels, widths, strict=True))]
    for index, shown in enumerate(ids):
        name = shown if len(shown) <= id_width else shown[: id_width - 1] + "…"
        cells = [f"{VERDICT_TEXT[c.rows[index].verdict]:<{w}}"
                 for c, w in zip(result.columns, widths, strict=True)]
        lines.append(f"{name:<{id_width}}  " + "  ".join(cells))
    lines += ["", result.run.summary()]
    notes: list[str] = []
    not_run: dict[str, list[str]] = {}
    for column in result.columns:
        for spec, row in zip(result.specs, column.rows, strict=True):
            where = f"{spec.id} on {column.label}"
            if row.verdict == NOT_RUN:
                not_run.setdefault(row.reason, []).append(where)
            elif row.verdict == ERROR:
                notes.append(f"{where}: error: {row.reason}")
            elif row.verdict == FAILS:
                notes.append(f"{where}: does not hold: expected {short_json(spec.expected)}, "
                             f"observed {short_json(row.observed)}"
                             + (f" ({row.reason})" if row.reason else ""))
    for reason, places in not_run.items():
        shown = ", ".join(places[:4]) + (f" and {len(places) - 4} more" if len(places) > 4
                                         else "")
        notes.append(f"Not run ({shown}): {reason}")
    if notes:
        lines += ["", *(terminal(note) for note in notes)]
    lines += ["", "Engines:", *[terminal(f"  {c.label}: {c.description}")
                                for c in result.columns]]
    return "\n".join(lines)
