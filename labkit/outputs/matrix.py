"""``labkit check``'s matrix in the terminal: claim by engine (and MongoDB version), in the
learner's words (``LABKIT_LANG``); the JUnit file and ``--json`` keep English."""

from __future__ import annotations

from labkit.claims.claim import ERROR, FAILS, NOT_RUN
from labkit.i18n import _
from labkit.names import EngineInfo
from labkit.outputs.escape import terminal
from labkit.run.check import CheckRun


def matrix_table(result: CheckRun, width: int = 120) -> str:
    """The terminal matrix: claim × engine/version ("holds (result only)" where a test also
    expects what a check does not judge), then what was seen where a claim did not hold, why
    cells did not run, and which engine each column is."""
    ids = [terminal(spec.id) for spec in result.specs]
    labels = [terminal(column.label) for column in result.columns]
    id_width = min(max([len(i) for i in ids] + [5]), 48)
    widths = [max([len(label), 13] + [len(c.shown_verdict) for c in column.rows])
              for label, column in zip(labels, result.columns, strict=True)]
    lines = [f"{_('claim'):<{id_width}}  " + "  ".join(
        f"{label:<{w}}" for label, w in zip(labels, widths, strict=True))]
    for index, shown_id in enumerate(ids):
        cells = "  ".join(f"{c.rows[index].shown_verdict:<{w}}"
                          for c, w in zip(result.columns, widths, strict=True))
        if len(shown_id) > id_width:  # whole on a line of its own: a cut ID names no claim
            lines += [shown_id, f"{'':<{id_width}}  {cells}"]
        else:
            lines.append(f"{shown_id:<{id_width}}  {cells}")
    lines += ["", result.run.summary()]
    notes = [terminal(note) for note in _notes(result)]
    if notes:
        lines += ["", *notes]
    lines += ["", _("Engines:"), *[terminal(f"  {c.label}: {_engine(info)}")
                                   for c, info in zip(result.columns, result.run.engines,
                                                      strict=True)]]
    return "\n".join(lines)


def _engine(info: EngineInfo) -> str:
    """A column's engine after its label, in the learner's words: its name, what it is and
    its version, or "not run" where the column had none (its label names it already)."""
    return _("not run") if info.not_run else f"{info.name} {info.state()}".strip()


def _notes(result: CheckRun) -> list[str]:
    """What was seen where a claim did not hold (predicted, on labkit's model), then each
    error and each reason cells did not run, once, with the cells it concerns: one
    server-wide failure errs every claim of its column the same way."""
    notes: list[str] = []
    errors: dict[str, list[str]] = {}
    not_run: dict[str, list[str]] = {}
    for column in result.columns:
        for spec, row in zip(result.specs, column.rows, strict=True):
            where = _("{id} on {engine}").format(id=spec.id, engine=column.label)
            if row.verdict == NOT_RUN:
                not_run.setdefault(row.shown_reason, []).append(where)
            elif row.verdict == ERROR:
                errors.setdefault(row.shown_reason, []).append(where)
            elif row.verdict == FAILS:
                notes.append(row.against(where))
    for reason, places in errors.items():
        notes.append(_("{where} error: {reason}").format(where=_few(places), reason=reason))
    for reason, places in not_run.items():
        notes.append(_("Not run ({where}): {reason}").format(where=_few(places), reason=reason))
    return notes


def _few(places: list[str]) -> str:
    """The first four places, and how many more."""
    return ", ".join(places[:4]) + (" " + _("and {n} more").format(n=len(places) - 4)
                                    if len(places) > 4 else "")
