"""The model's explanations as the learner reads them: ``labkit explain``'s text table and the
notebooks' ``labkit.explain`` frame, one row per document (``labkit.model.explain`` decides
what each row says), each ``because`` in the learner's language."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from labkit.i18n import N_, _, shown

if TYPE_CHECKING:
    import pandas as pd

    from labkit.model.bson_order import Document
    from labkit.model.explain import FindRow, SortRow

# The headings and words a table shows, kept in English here and shown translated.
HEADINGS = (N_("matched"), N_("sorts by"), N_("rule"), N_("because"), N_("Sources:"))
# A frame's columns are --json's keys, each headed in the learner's words ("_id" stays).
COLUMNS = {"matched": N_("matched"), "key": N_("key"), "because": N_("because"),
           "rule": N_("rule"), "source": N_("source")}
YES, NO = N_("yes"), N_("no")


def _id_text(value: Any) -> str:
    """An ``_id`` as ``labkit predict`` prints one: a plain int or string as itself, any other
    value as Extended JSON."""
    from labkit.model import fixtures

    return str(value) if type(value) in (str, int) else fixtures.dumps(value)


def key_text(key: dict[str, Any]) -> str:
    """A sort row's key as mongosh writes its values: ``v: 5, _id: "array"``."""
    from labkit.outputs.tables import shell

    return ", ".join(f"{path}: {shell(value)}" for path, value in key.items())


def table(rows: Sequence[FindRow] | Sequence[SortRow]) -> str:
    """The rows as plain text: ``_id``, the decision, the rule and why, one line each; then
    each rule's source once, under the table. Every value is escaped for the terminal."""
    from labkit.model.explain import FindRow, SortRow
    from labkit.outputs.escape import visible

    cells: list[tuple[str, str, str, str]] = []
    for row in rows:
        if isinstance(row, FindRow):
            decision = _(YES) if row.matched else _(NO)
        else:
            assert isinstance(row, SortRow)
            decision = key_text(row.key)
        cells.append((visible(_id_text(row.id)), visible(decision), row.rule,
                      visible(shown(row.because))))
    second = _(HEADINGS[0]) if rows and isinstance(rows[0], FindRow) else _(HEADINGS[1])
    head = ("_id", second, _(HEADINGS[2]), _(HEADINGS[3]))
    widths = [max([len(head[i]), *(len(c[i]) for c in cells)]) for i in range(3)]
    lines = ["  ".join(text.ljust(width) for text, width in zip(line[:3], widths, strict=True))
             + "  " + line[3] for line in [head, *cells]]
    used = dict.fromkeys(row.rule for row in rows)
    if used:
        lines += ["", _(HEADINGS[4])]
        lines += [f"  {rule}: {_source(rule)}" for rule in used]
    return "\n".join(line.rstrip() for line in lines)


def _source(rule: str) -> str:
    from labkit.model.explain import RULES

    return RULES[rule].source


def frame(rows: Sequence[FindRow] | Sequence[SortRow], *, words: bool = False) -> pd.DataFrame:
    """The rows as a DataFrame with ``--json``'s columns (``_id``, ``matched`` or ``key``,
    ``because``, ``rule``, ``source``), each headed in the learner's language (English: those
    names), ``because`` in the learner's language and a key as mongosh writes it. ``matched``
    is a bool to filter by; ``words`` writes it as the text table does, "yes" or "no" in the
    learner's language, for a page that is only read."""
    import pandas as pd

    from labkit.model.explain import FindRow

    records = []
    for row in rows:
        record = row.to_dict()
        record["because"] = shown(row.because)
        if words and isinstance(row, FindRow):
            record["matched"] = _(YES) if row.matched else _(NO)
        if not isinstance(row, FindRow):
            record["key"] = key_text(row.key)
        records.append(record)
    columns = ["_id", "matched" if not rows or isinstance(rows[0], FindRow) else "key",
               "because", "rule", "source"]
    from labkit.outputs.tables import whole_text

    table = pd.DataFrame(records, columns=columns)
    return whole_text(table.rename(columns={name: _(heading) for name, heading in COLUMNS.items()}))


def explain(filter_or_sort: Any, documents: str | list[Document], *,
            collation: dict[str, Any] | None = None,
            mongodb_version: str | None = None) -> pd.DataFrame:
    """``labkit.explain``: why the model places each document where it does, as a table.

    A document (``{"userId": 42}``) is a filter: one row per document in their order, whether
    ``find`` matches it and why. Text (``"v:1,_id:1"``) or a list of ``(path, direction)``
    pairs is a sort: one row per document in the sorted order, the value it sorts by and why.
    ``documents`` is a list of documents or a fixture's name (``"orders"``, ``"mixed"``)."""
    from labkit.errors import BadInput
    from labkit.i18n import Message
    from labkit.model import explain as model_explain
    from labkit.model import fixtures

    docs = fixtures.load(documents) if isinstance(documents, str) else list(documents)
    if isinstance(filter_or_sort, dict):
        return frame(model_explain.find(docs, filter_or_sort, collation=collation,
                                        mongodb_version=mongodb_version))
    if isinstance(filter_or_sort, str | list | tuple):
        return frame(model_explain.sorted_rows(docs, filter_or_sort, collation=collation,
                                               mongodb_version=mongodb_version))
    raise BadInput(Message(N_("labkit.explain takes a filter document, or a sort as text "
                              "such as \"v:1,_id:1\" or a list of (path, direction) pairs")))
