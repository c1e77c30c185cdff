"""A claim's verdict card in a notebook: the claim's verdict, then each engine's row.

The card reads a ``run.results.ClaimResult`` and draws it, as the report does a run; the
notebook's ``Checked`` (``lessons.notebook``) shows it as its HTML. Beside a card whose rows
are ``_id``s of a fixture, ``Fixture`` shows that fixture and each row's query.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Sequence
from typing import Any

from labkit.claims.claim import (
    COLOURS,
    item_separator,
    jsonable,
    kind_text,
    verdict_text,
    whole_items,
)
from labkit.claims.files import kit_claim
from labkit.claims.labels import PERCENTS, label, value_word
from labkit.claims.spec import Step
from labkit.experiments import catalogue
from labkit.i18n import N_, Phrase, _, number, percent
from labkit.model import explain
from labkit.names import engine_name
from labkit.outputs import escape, explanations
from labkit.outputs.tables import fixture, shell
from labkit.run.results import ClaimResult, Result


def _value(value: Any) -> str:
    """A JSON value written as compact JSON is, its numbers as the learner's language writes
    them ("0,875", "5.541.888" in Vietnamese); a list holding a number written with a comma
    separates its items with "; " ("[0,9; 1,0]" in Vietnamese, "[-86,400,000; 1]" in
    English)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return number(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return json.dumps(value)
        # Three decimals below 1 (a fill, 0,501), two above (a ratio, 1,23): "1,226" would
        # read as an English 1226.
        return number(value, at_most=3 if abs(value) < 1 else 2)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        items = [_value(v) for v in value]
        return "[" + item_separator(items).join(items) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k), ensure_ascii=False)}: "
                               f"{_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


def cell_text(value: Any, limit: int = 200) -> str:
    """One cell of a card: labkit's own words translated, other text as it is, anything else
    as compact JSON with its numbers in the learner's format, shortened with an ellipsis."""
    if isinstance(value, Phrase):  # one of labkit's sentences: in the learner's words
        return value.shown()
    value = jsonable(value_word(value))
    if isinstance(value, str):
        return value
    text = _value(value)
    if len(text) <= limit:
        return text
    if isinstance(value, dict | list) and value:
        return _whole_items(value, limit)
    return text[: limit - 1] + "\u2026"


def _whole_items(value: dict[str, Any] | list[Any], limit: int) -> str:
    """A document or a list too long for its cell, cut after its last item that fits whole
    (``claim.whole_items``), its items written as ``_value`` writes them."""
    if isinstance(value, dict):
        return whole_items([f"{json.dumps(str(k), ensure_ascii=False)}: {_value(v)}"
                            for k, v in value.items()], "{", "}", limit)
    items = [_value(v) for v in value]
    return whole_items(items, "[", "]", limit, item_separator(items))


def figure_text(key: str, value: Any) -> str:
    """A card's value for question or figure ``key``: a fraction that ``labels.PERCENTS`` says
    is a percentage as one in the learner's language ("-27,6%", and a range's ends alike:
    "[25%; 40%]"), anything else as ``cell_text`` writes it."""
    def is_fraction(item: Any) -> bool:
        return isinstance(item, int | float) and not isinstance(item, bool) \
            and math.isfinite(item)

    if key in PERCENTS and is_fraction(value):
        return _percent(value)
    if key in PERCENTS and isinstance(value, list) and value and all(map(is_fraction, value)):
        items = [_percent(item) for item in value]
        return "[" + item_separator(items).join(items) + "]"
    return cell_text(value)


def _percent(ratio: float) -> str:
    """A fraction as a percentage, with one decimal where it has one (27,6%, 25%)."""
    return percent(ratio, 0 if round(ratio * 100, 1) == round(ratio * 100) else 1)


def _items(mapping: dict[str, Any]) -> str:
    """Several figures in one cell: each with its label ("UUIDv7 keys: 50.4%; int keys: …")."""
    return "; ".join(f"{label(key)}: {figure_text(key, value)}" for key, value in mapping.items())


def side_by_side(expected: Any, observed: Any, expected_heading: str) -> str:
    """Expected beside observed as an HTML table, each row a question with both sides. Where
    both are mappings, a question both name is a row; the figures only the observation has
    (the measurement's details) follow under the table, and a question only the expectation
    names is judged on another row (a survey's other parts) and left out. Where they share no
    question (the expectation's one question, the observation's figures for it), the row sets
    the whole expectation beside the whole observation."""
    expected, observed = jsonable(expected), jsonable(observed)
    details = ""
    if isinstance(expected, dict) and isinstance(observed, dict) and \
            any(key in observed for key in expected):
        rows = [(str(key), figure_text(key, expected[key]), figure_text(key, observed[key]))
                for key in expected if key in observed]
        details = _items({key: value for key, value in observed.items() if key not in expected})
    elif isinstance(expected, dict) and isinstance(observed, dict) and len(expected) == 1:
        (key, value), = expected.items()
        rows = [(str(key), figure_text(key, value), _items(observed))]
    elif isinstance(expected, dict) and isinstance(observed, dict):
        rows = [("", _items(expected), _items(observed))]
    else:
        rows = [("", cell_text(expected), cell_text(observed))]
    esc = escape.html
    head = (f"<tr><th>{esc(_('question'))}</th><th>{esc(expected_heading)}</th>"
            f"<th>{esc(_('observed'))}</th></tr>")
    body = "".join(
        f"<tr><th style='text-align:left' title='{esc(key)}'>{esc(label(key))}</th>"
        f"<td><code>{esc(left)}</code></td>"
        f"<td><code>{esc(right)}</code></td></tr>" for key, left, right in rows)
    table = f"<table style='margin:.3em 0'>{head}{body}</table>"
    return table + (f"<div><small>{esc(details)}</small></div>" if details else "")


def said_above(rows: Sequence[Result]) -> list[bool]:
    """For each of a card's rows, whether a row above it gave the same reason: a cause several
    rows share (no MongoDB server) is written once, and the others say so."""
    seen: set[str] = set()
    repeated = []
    for row in rows:
        repeated.append(bool(row.reason) and row.shown_reason in seen)
        seen.add(row.shown_reason)
    return repeated


# What a row whose reason a row above gave says instead (``said_above``).
SAME_REASON = N_("the same reason as above")
# What a row says instead of a missing server's reason that a card above, in the same
# lesson, gave in full (what was tried, and the hint: several hundred characters).
TOLD_ABOVE = N_("no {engine} here: why is on the first card above that says so")


def instead(rows: Sequence[Result], told: Collection[str] = ()) -> list[str | None]:
    """For each of a card's rows, what it says in place of its reason, or None where it gives
    its own: a short reference where its server's absence (its ``missing`` kind) is in
    ``told``, said in full by an earlier card of the lesson; "the same reason as above" where
    a row above in this card gave it (``said_above``)."""
    return [_(TOLD_ABOVE).format(engine=engine_name(row.missing))
            if row.reason and row.missing and row.missing in told
            else _(SAME_REASON) if repeated else None
            for row, repeated in zip(rows, said_above(rows), strict=True)]


def row_card(row: Result, reason: str | None = None, single: bool = False) -> str:
    """One engine's verdict as HTML under its claim's heading, which gave the claim's title:
    the row's verdict (``single``: the claim's one row, whose verdict the heading gave) and
    its engine on one line, expected beside observed, why (``reason`` in place of the row's
    own, as ``instead`` gives it)."""
    item = row.claim
    verdict = "" if single else (f"<b style='color:{COLOURS[row.verdict]}'>{item.id} "
                                 f"{verdict_text(row.verdict)}</b>")
    engine = (f"{_('engine:')} {escape.html(row.where)}"
              if row.engine else "")
    rows = [" &middot; ".join(part for part in (verdict, engine) if part)]
    table = ""
    if row.shows_observation and row.observation is not None:
        table = side_by_side(item.expected, row.observation.observed, item.expected_short)
    said = ""
    if row.reason and reason is not None:
        said = f"<div><i>{escape.html(reason)}</i></div>"
    elif row.reason:
        said = f"<div>{escape.html(row.shown_reason)}</div>"
    return "<div>" + "<br>".join(part for part in rows if part) + table + said + "</div>"


def claim_card(result: ClaimResult, told: Collection[str] = ()) -> str:
    """A claim's verdict card as HTML: the claim's verdict and kind, its experiment, then its
    row (or, judged on several engines, each row indented); a row whose missing server is in
    ``told`` refers to the card above that said why (``instead``)."""
    item = result.claim
    head = (f"<p><b style='color:{COLOURS[result.verdict]}'>{item.id}: "
            f"{verdict_text(result.verdict)}</b> ({kind_text(item.kind)}) &mdash; "
            f"{escape.html(item.shown_title)}<br><small>{_('experiment:')} "
            f"<code>{escape.html(item.experiment_name)}</code></small></p>")
    said = instead(result.rows, told)
    if result.single:
        return head + row_card(result.rows[0], said[0], single=True)
    return head + "".join(f"<div style='margin-left:1.5em'>{row_card(row, reason)}</div>"
                          for row, reason in zip(result.rows, said, strict=True))


# The fixture beside a card -----------------------------------------------------------------


def _query(step: Step) -> str:
    """A read of a claim file as mongosh writes it: ``find({a: {$gt: null}})``, with its sort."""
    arguments = step.arguments
    if step.operation == "aggregate":
        return f"aggregate({shell(arguments.get('pipeline', []))})"
    text = f"{step.operation}({shell(arguments.get('filter', {}))})"
    return text + (f".sort({shell(arguments['sort'])})" if arguments.get("sort") else "")


class Fixture:
    """The documents a claim's questions are asked on, and the query each question (each row
    of its card: ``eq``, ``gte``…) asks, read from the kit's claim files: what a card's answers
    are the ``_id``s of. Shown beside the card, with or without a server."""

    def __init__(self, claim_id: str) -> None:
        self.claim_id = claim_id
        specs = {str(key): kit_claim(f"{claim_id}.{key}")
                 for key in catalogue.get(claim_id).expected}
        self.docs: list[dict[str, Any]] = next(iter(specs.values())).fixture["claim"]
        self.queries = {key: _query(spec.steps[0]) for key, spec in specs.items()}

    def _heading(self) -> str:
        return _("{claim}'s questions, each asked on these {count} documents:").format(
            claim=self.claim_id, count=len(self.docs))

    def __str__(self) -> str:
        lines = [self._heading()]
        lines += [f"  {shell(doc)}" for doc in self.docs]
        lines += [f"  {label(key)}: {query}" for key, query in self.queries.items()]
        return "\n".join(lines)

    __repr__ = __str__

    @escape.as_typed
    def _repr_html_(self) -> str:
        esc = escape.html
        rows = "".join(f"<tr><th style='text-align:left' title='{esc(key)}'>{esc(label(key))}</th>"
                       f"<td style='text-align:left'><code>{esc(query)}</code></td></tr>"
                       for key, query in self.queries.items())
        questions = (f"<table style='margin:.3em 0'><tr><th>{esc(_('question'))}</th>"
                     f"<th>{esc(_('query'))}</th></tr>{rows}</table>")
        return (f"<div><small>{esc(self._heading())}</small>"
                f"<div style='display:flex;gap:2em;align-items:flex-start'>"
                f"{fixture(self.docs).to_html(escape=True, border=0)}{questions}</div></div>")


# The model's explanation beside a not-run card ---------------------------------------------

WHY_HEADING = N_("Why, as labkit's model explains it (the model's account of MongoDB's rules, "
                 "computed here; not an observation of a server):")


class Why:
    """labkit's model's explanation of a claim's questions, each asked on its fixture (the
    kit's claim files, as ``Fixture`` reads them): per question, each document, whether the
    model's filter matches it or the value it sorts by, and the rule that decided, with its
    source. Offered beside a card whose server cell did not run, labelled as the model's."""

    def __init__(self, claim_id: str, reads: list[tuple[str, str, list[Any]]]) -> None:
        self.claim_id = claim_id
        self.reads = reads  # (question, query as mongosh writes it, explain's rows)

    @classmethod
    def of(cls, claim_id: str) -> Why | None:
        """The explanation of each of a claim's questions that is a ``find`` of the kit's
        claim files (a sort through the documents the filter matches), or None where the
        claim has no such question. An explanation that cannot be made is left out: it is a
        stand-in beside a card and must never stop a lesson."""
        expected = catalogue.get(claim_id).expected
        reads = []
        for key in expected if isinstance(expected, dict) else ():
            try:
                spec = kit_claim(f"{claim_id}.{key}")
            except KeyError:
                continue
            step = spec.steps[0]
            arguments = step.arguments
            if step.operation != "find" or {"skip", "limit"} & set(arguments):
                continue
            docs = spec.fixture.get(step.collection, [])
            collation = arguments.get("collation")
            try:
                rows: list[Any] = explain.find(docs, arguments.get("filter") or {}, collation)
                if arguments.get("sort"):
                    matched = [d for d, r in zip(docs, rows, strict=True) if r.matched]
                    rows = explain.sorted_rows(matched, arguments["sort"], collation)
            except Exception:  # a stand-in's failure must not stop a lesson
                continue
            reads.append((str(key), _query(step), rows))
        return cls(claim_id, reads) if reads else None

    def __str__(self) -> str:
        lines = [_(WHY_HEADING)]
        for key, query, rows in self.reads:
            lines.append(f"  {label(key)}: {query}")
            lines += [f"    {line}".rstrip() for line in explanations.table(rows).splitlines()]
        return "\n".join(lines)

    __repr__ = __str__

    @escape.as_typed
    def _repr_html_(self) -> str:
        esc = escape.html
        parts = [f"<details><summary><small>{esc(_(WHY_HEADING))}</small></summary>"]
        for key, query, rows in self.reads:
            parts.append(f"<div><i title='{esc(key)}'>{esc(label(key))}</i>: "
                         f"<code>{esc(query)}</code></div>"
                         + explanations.page(explanations.frame(rows)))
        parts.append("</details>")
        return "".join(parts)


class WhyFrame:
    """labkit's model's explanation as ``labkit.explain`` gives it (its frame), offered beside
    a not-run cell of a lesson's own documents, under the heading that says whose it is."""

    def __init__(self, frame: Any) -> None:
        self.frame = frame  # a pandas DataFrame

    def __str__(self) -> str:
        body = repr(self.frame)  # as labkit.explain's frame reads: each source once
        return "\n".join([_(WHY_HEADING), *(f"  {line}".rstrip() for line in body.splitlines())])

    __repr__ = __str__

    @escape.as_typed
    def _repr_html_(self) -> str:
        return (f"<details><summary><small>{escape.html(_(WHY_HEADING))}</small></summary>"
                + explanations.page(self.frame) + "</details>")
