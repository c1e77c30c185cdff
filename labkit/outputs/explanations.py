"""The model's explanations as the learner reads them: ``labkit explain``'s text table and the
notebooks' ``labkit.explain`` frame, one row per document (``labkit.model.explain`` decides
what each row says), each ``because`` in the learner's language."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from labkit.errors import BadInput
from labkit.i18n import N_, Message, _, shown
from labkit.model import explain as model_explain
from labkit.model import fixtures
from labkit.model.explain import RULES, FindRow, SortRow
from labkit.outputs import escape
from labkit.outputs.escape import visible

if TYPE_CHECKING:
    import pandas as pd

    from labkit.model.bson_order import Document

# The headings and words a table shows, kept in English here and shown translated.
HEADINGS = (N_("matched"), N_("sorts by"), N_("rule"), N_("because"), N_("Sources:"))
# A frame's columns are --json's keys, each headed in the learner's words ("_id" stays).
COLUMNS = {"matched": N_("matched"), "key": N_("key"), "because": N_("because"),
           "rule": N_("rule"), "source": N_("source")}
YES, NO = N_("yes"), N_("no")


def _id_text(value: Any) -> str:
    """An ``_id`` as ``labkit predict`` prints one: a plain int or string as itself, any other
    value as Extended JSON."""
    return str(value) if type(value) in (str, int) else fixtures.dumps(value)


def key_text(key: dict[str, Any]) -> str:
    """A sort row's key as mongosh writes its values: ``v: 5, _id: "array"``."""
    from labkit.outputs.tables import shell  # which loads the servers' room: a sort's alone

    return ", ".join(f"{path}: {shell(value)}" for path, value in key.items())


def table(rows: Sequence[FindRow] | Sequence[SortRow]) -> str:
    """The rows as plain text: ``_id``, the decision, the rule and why, one line each; then
    each rule's source once, under the table. Every value is escaped for the terminal."""
    return "\n".join(table_lines(rows))


def table_lines(rows: Sequence[FindRow] | Sequence[SortRow]) -> Iterator[str]:
    """``table``'s lines, one at a time: the padded columns are measured first, then each line
    is made as it is given, so a table of many rows is never held whole (``labkit explain``
    writes each line as it comes)."""
    second = _(HEADINGS[0]) if rows and isinstance(rows[0], FindRow) else _(HEADINGS[1])
    head = ("_id", second, _(HEADINGS[2]))
    widths = [len(text) for text in head]
    for row in rows:
        for i, text in enumerate(_padded(row)):
            widths[i] = max(widths[i], len(text))
    yield _line((*head, _(HEADINGS[3])), widths)
    for row in rows:
        yield _line((*_padded(row), visible(shown(row.because))), widths)
    used = dict.fromkeys(row.rule for row in rows)
    if used:
        yield ""
        yield _(HEADINGS[4])
        yield from (f"  {rule}: {_source(rule)}".rstrip() for rule in used)


def _padded(row: FindRow | SortRow) -> tuple[str, str, str]:
    """A row's first three cells, the ones padded to a common width."""
    if isinstance(row, FindRow):
        return visible(_id_text(row.id)), _(YES) if row.matched else _(NO), row.rule
    return visible(_id_text(row.id)), visible(key_text(row.key)), row.rule


def _line(cells: tuple[str, ...], widths: list[int]) -> str:
    return ("  ".join(text.ljust(width) for text, width in zip(cells[:3], widths, strict=True))
            + "  " + cells[3]).rstrip()


def _source(rule: str) -> str:
    return RULES[rule].source


def frame(rows: Sequence[FindRow] | Sequence[SortRow]) -> pd.DataFrame:
    """The rows as a DataFrame with ``--json``'s columns (``_id``, ``matched`` or ``key``,
    ``because``, ``rule``, ``source``), each headed in the learner's language (English: those
    names), ``because`` in the learner's language and a key as mongosh writes it. ``matched``
    is a bool to filter by. Shown, it reads as the text table does (``page``): "yes" or "no"
    in the learner's language, code as code, each rule's source once, under the table."""
    import pandas as pd

    records = []
    for row in rows:
        record = row.to_dict()
        record["because"] = shown(row.because)
        if not isinstance(row, FindRow):
            record["key"] = key_text(row.key)
        records.append(record)
    columns = ["_id", "matched" if not rows or isinstance(rows[0], FindRow) else "key",
               "because", "rule", "source"]
    table = pd.DataFrame(records, columns=columns)
    return _explanation()(table.rename(columns={name: _(heading)
                                                for name, heading in COLUMNS.items()}))


def _decision(value: Any) -> str:
    """A ``matched`` cell in the learner's words ("yes", "no"); a sort key as it is."""
    if isinstance(value, bool):
        return _(YES) if value else _(NO)
    return str(value)


def page(table: pd.DataFrame) -> str:
    """An explanation frame as HTML a learner reads: ``_id``, the decision ("✓ yes", "✗ no",
    or the key it sorts by), why (its code as code, no backticks shown) and the rule; then
    each rule's source once, as a link, under the table."""
    esc = escape.html
    names = list(table.columns)
    head = "".join(f"<th>{esc(name)}</th>" for name in names[:4])
    body = []
    for _id, decided, because, rule in table[names[:4]].itertuples(index=False, name=None):
        if isinstance(decided, bool):
            decision = "<td>" + ("\u2713 " if decided else "\u2717 ") + \
                esc(_decision(decided)) + "</td>"
        else:  # code, as mongosh writes it (9.5 in every language), as a query is shown
            decision = f"<td style='text-align:left'><code>{esc(decided)}</code></td>"
        why = escape.html_with_code(because)
        body.append(f"<tr><td>{esc(_id_text(_id))}</td>{decision}"
                    f"<td style='text-align:left'>{why}</td><td><code>{esc(rule)}</code></td>"
                    "</tr>")
    sources = dict(zip(table[names[3]], table[names[4]], strict=True))
    links = "".join(f"<li><code>{esc(rule)}</code>: <a href='{esc(url)}' target='_blank' "
                    f"rel='noopener'>{esc(url)}</a></li>" for rule, url in sources.items())
    notes = (f"<div><small>{esc(_(HEADINGS[4]))}<ul style='margin:.2em 0'>{links}</ul>"
             "</small></div>" if links else "")
    return (f"<table class='dataframe' border='0'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>{notes}")


@functools.cache
def _explanation() -> type[pd.DataFrame]:
    import pandas as pd

    class Explanation(pd.DataFrame):
        """``labkit.explain``'s frame: --json's columns to filter by, shown as a learner
        reads it (``page``)."""

        @escape.as_typed
        def _repr_html_(self) -> str:
            return page(self)

        def __repr__(self) -> str:  # each rule's source once, under the rows
            names = list(self.columns)
            shown_rows = self[names[:4]].copy()
            shown_rows[names[1]] = shown_rows[names[1]].map(_decision)
            sources = dict(zip(self[names[3]], self[names[4]], strict=True))
            lines = [shown_rows.to_string(index=False, max_colwidth=None)]
            if sources:
                lines += ["", _(HEADINGS[4])]
                lines += [f"  {rule}: {url}" for rule, url in sources.items()]
            return "\n".join(lines)

    return Explanation


def _documents(documents: Any) -> list[Document]:
    """What a notebook passes as documents: a fixture's name, a list (or numpy array) of
    documents, or a pandas DataFrame, a document per row; BadInput for anything else."""
    if isinstance(documents, str):
        return fixtures.load(documents)
    if hasattr(documents, "to_dict") and hasattr(documents, "columns"):  # a DataFrame
        # a cell pandas left empty (NaN, NA, NaT: a field the row's document lacks, as
        # pd.DataFrame(documents) writes one) is a missing field, not the double NaN
        return [{name: value for name, value in row.items() if not _empty_cell(value)}
                for row in documents.to_dict("records")]
    try:
        docs = list(documents)
    except TypeError:
        docs = None
    if docs is None or not all(isinstance(doc, dict) for doc in docs):
        raise BadInput(Message(N_("labkit.explain takes its documents as a list of documents "
                                  "(dicts), a pandas DataFrame (a document per row) or a "
                                  "fixture's name such as \"orders\"")))
    return docs


def _empty_cell(value: Any) -> bool:
    import pandas as pd

    return value is not None and not isinstance(value, dict | list) and bool(pd.isna(value))


def explain(filter_or_sort: Any, documents: str | list[Document], *,
            collation: dict[str, Any] | None = None,
            mongodb_version: str | None = None) -> pd.DataFrame:
    """``labkit.explain``: why the model places each document where it does, as a table.

    A document (``{"userId": 42}``) is a filter: one row per document in their order, whether
    ``find`` matches it and why. Text (``"v:1,_id:1"``) or a list of ``(path, direction)``
    pairs is a sort: one row per document in the sorted order, the value it sorts by and why.
    ``documents`` is a list of documents, a pandas DataFrame (a document per row, an empty
    cell a missing field) or a fixture's name (``"orders"``, ``"mixed"``)."""
    docs = _documents(documents)
    for n, doc in enumerate(docs, start=1):
        fixtures.check_nesting(doc, Message(N_("document {n:d}"), n=n))
    if isinstance(filter_or_sort, dict):
        fixtures.check_nesting(filter_or_sort, N_("the filter"))
        return frame(model_explain.find(docs, filter_or_sort, collation=collation,
                                        mongodb_version=mongodb_version))
    if isinstance(filter_or_sort, str | list | tuple):
        return frame(model_explain.sorted_rows(docs, filter_or_sort, collation=collation,
                                               mongodb_version=mongodb_version))
    raise BadInput(Message(N_("labkit.explain takes a filter document, or a sort as text "
                              "such as \"v:1,_id:1\" or a list of (path, direction) pairs")))
