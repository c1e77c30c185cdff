"""The notebook's side of the runner: the kernel's context (its lab's), ``labkit.claim``, and
what stands in, labelled, where a lesson's server is missing."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from labkit import i18n
from labkit.claims.claim import (
    COLOURS,
    ERROR,
    FAILS,
    NOT_RUN,
    Claim,
    Verdict,
    kind_text,
    one_line,
    short_json,
    verdict_text,
)
from labkit.claims.labels import label as question_label
from labkit.errors import BadInput, ClaimFailed, ServerUnavailable
from labkit.experiments import catalogue
from labkit.i18n import N_, Message, _
from labkit.i18n import shown as shown_text
from labkit.lessons import course
from labkit.lessons.cards import Why, WhyFrame, cell_text, claim_card, instead
from labkit.lessons.lab import lab
from labkit.names import engine_name
from labkit.outputs.escape import as_typed
from labkit.outputs.tables import keep_from_maths
from labkit.run.results import ClaimResult, Result
from labkit.run.runner import Context, first_missing

if TYPE_CHECKING:
    import pandas as pd
    from pymongo.database import Database

    from labkit.servers.mongo import MongoServer

T = TypeVar("T")  # what an experiment on a server gives (``on_server``)

# Stand-in labels are kept in English (the model's is compared below) and shown translated.
MODEL_LABEL = N_("labkit's model predicts (computed here, no server asked)")
MODEL_SHORT = N_("labkit's model predicts")
MODEL_FAILED = N_("labkit's model could not predict this")


@dataclass(frozen=True)
class _Label:
    """A stand-in's label already in the learner's words (``text``), with its column heading
    (``short``)."""

    text: str
    short: str


# A stand-in's label: one in the learner's words, or one kept in English (``MODEL_LABEL``).
Label = _Label | str


def _text(label: Label) -> str:
    """A stand-in's label in the learner's words."""
    return label.text if isinstance(label, _Label) else _(label)


def _short(label: Label) -> str:
    """A column heading for a stand-in's label."""
    if isinstance(label, _Label):
        return label.short
    return _(MODEL_SHORT) if label == MODEL_LABEL else _(label)


def language(code: str | None = None) -> str:
    """Set the lessons' language (``"en"`` or ``"vi"``, as ``labkit.language("vi")``) when
    given one; return the language in use. An unknown code is refused: ``BadInput``, in the
    learner's words, naming the languages there are."""
    if code is not None and i18n.known_language(code) is None:
        raise BadInput(Message(N_("unknown language {code}; choose one of {choices}"),
                               code=repr(code.strip().lower()),
                               choices=", ".join(i18n.LANGUAGES)))
    return i18n.language(code)


def _how_to_get_one() -> str:
    return _("How to get one: labkit finds or starts a server when JupyterLab starts, in one "
             "of three ways: set <code>LABKIT_MONGODB_URI</code> to a server you have (a free "
             "Atlas cluster will do); or put a <code>mongod</code> on PATH (or name it in "
             "<code>LABKIT_MONGOD</code>), for instance with <code>conda env create -f "
             "environment.yml</code> then <code>conda activate labkit</code>; or start Docker. "
             "Then stop JupyterLab and run <code>make lab</code> again: it starts that server "
             "for the whole session. Lesson 00 explains the three ways.")


def _no_server_line() -> str:
    return _("No MongoDB server here: each server cell shows the source's recorded result and "
             "labkit's model's prediction, labelled; its verdict stays \u201cnot run\u201d.")


def _server_note_html(missing: ServerUnavailable) -> str:
    """The one line on a missing server, and how to get one (with what was tried) on request."""
    return (f"{html.escape(_no_server_line())}<details><summary><small>"
            f"{html.escape(_('How to get a server, and what labkit tried'))}</small></summary>"
            f"<small>{_how_to_get_one()}<br><i>{html.escape(_('What labkit tried:'))}</i> "
            f"{html.escape(shown_text(missing.summary()))}</small></details>")


def _server_note_text() -> str:
    return _no_server_line() + " " + _("How to get one: labkit.doctor().")


def session() -> Context:
    """The kernel's shared context: one MongoDB (``labkit.mongodb()``), one set of B-tree loads.

    ``session().btree_n`` is the number of keys per kind every B-tree table and verdict
    of the kernel uses (``LABKIT_BTREE_N``, or the kit's default).
    """
    return lab().context


def _legend(label: Label) -> str:
    """What a column heading stands for, in full (the model's: how it was computed)."""
    return _("computed here, no server asked") if label == MODEL_LABEL else _text(label)


def _cell(value: Any) -> str:
    return cell_text(value, 160)


def _rows_frame(value: Any) -> pd.DataFrame | None:
    """A list of flat dicts (rows, such as a table an experiment returns) as a DataFrame."""
    import pandas as pd

    if not (isinstance(value, list) and value and all(isinstance(row, dict) for row in value)):
        return None
    return pd.DataFrame([{key: _cell(item) for key, item in row.items()} for row in value])


class NotRun:
    """A cell whose server is missing: "not run" (one line on the missing server, once per
    lesson), then what can honestly stand in, each labelled: the source's expectation and the
    model's prediction."""

    verdict = NOT_RUN

    def __init__(self, what: str, missing: ServerUnavailable, stand_ins: list[tuple[Label, Any]],
                 title: str = "", kind: str = "mongodb", why: Any = None) -> None:
        self.what = what
        # The model's explanation (``cards.Why``), or a ``Waiting`` note where it would give
        # an exercise's answer away; shown after the stand-ins, None where there is none.
        self.why = why
        self.title = title
        self.missing = missing
        self.reason = missing.summary()
        self.kind = kind
        self.stand_ins = stand_ins
        # Said by the first card of the lesson that needs them (again when that card is shown
        # again), and by no other.
        card, said = f"{kind}:{what}", lab()
        self.first = said.says("notice", card)
        if self.first:  # its note's details give the missing server's reason in full
            said.says(f"reason:{kind}", card)
        self.legend = [label for label, _value in stand_ins if _short(label) != _text(label)
                       and said.says(f"{_short(label)}: {_legend(label)}", card)]
        self.footer = bool(stand_ins) and said.says("footer", card)

    def table(self) -> pd.DataFrame | None:
        """The stand-ins side by side as a DataFrame (one row per question), or None."""
        import pandas as pd

        dicts = [value for _label, value in self.stand_ins if isinstance(value, dict)]
        if not self.stand_ins or len(dicts) != len(self.stand_ins):
            return None
        keys = list(dict.fromkeys(key for value in dicts for key in value))
        columns = {_short(label): [_cell(value[k]) if k in value else "" for k in keys]
                   for label, value in self.stand_ins}
        return pd.DataFrame(columns, index=pd.Index([question_label(k) for k in keys],
                                                    name=_("question")))

    def _head(self) -> str:
        return _("{what}: not run (no {name} here)").format(what=_(self.what),
                                                            name=engine_name(self.kind))

    def __str__(self) -> str:
        lines = [self._head() + (f" \u2014 {self.title}" if self.title else "")]
        if self.first:
            lines.append(_server_note_text())
        for label, value in self.stand_ins:
            lines.append(f"  {_text(label)}: {cell_text(value, 400)}")
        if self.why is not None:
            lines.append(str(self.why))
        if self.footer:
            lines.append("  " + _("(neither is an observation of your server; the verdict "
                                  "stays 'not run')"))
        return "\n".join(lines)

    __repr__ = __str__

    def _stand_ins_html(self) -> list[str]:
        esc = html.escape
        frame = self.table()
        if frame is not None:
            legend = "".join(f"<li><i>{esc(_short(label))}</i>: {esc(_legend(label))}</li>"
                             for label in self.legend)
            parts = [frame.to_html(escape=True, border=0)]
            if legend:
                parts.append(f"<details><summary><small>{esc(_('What the columns are'))}"
                             f"</small></summary><ul style='margin:.2em 0'>{legend}</ul>"
                             "</details>")
            return parts
        parts = []
        for label, value in self.stand_ins:
            rows = _rows_frame(value)
            shown = (rows.to_html(escape=True, border=0, index=False) if rows is not None
                     else f"<code>{esc(cell_text(value, 400))}</code>")
            parts.append(f"<div><i>{esc(_text(label))}</i>:</div>{shown}")
        return parts

    @as_typed
    def _repr_html_(self) -> str:
        esc = html.escape
        parts = [f"<div style='border-left:4px solid {COLOURS[NOT_RUN]};padding:.3em .8em'>",
                 f"<b style='color:{COLOURS[NOT_RUN]}'>{esc(self._head())}</b>"
                 + (f" &mdash; {esc(self.title)}" if self.title else "")]
        if self.first:
            parts.append(f"<div><small>{_server_note_html(self.missing)}</small></div>")
        if self.stand_ins:
            parts += self._stand_ins_html()
        if self.why is not None:
            parts.append(self.why._repr_html_())
        if self.footer:
            parts.append("<small>" + esc(_("Neither is an observation of your server; the "
                                           "verdict stays \u201cnot run\u201d.")) + "</small>")
        parts.append("</div>")
        return "".join(parts)


def model_prediction(item: Claim) -> tuple[str, Any] | None:
    """``(label, value)`` of the model's offline prediction for a claim, or None if it has none.

    A prediction that cannot be computed is shown as such, never raised.
    """
    if item.predict is None:
        return None
    predictions = lab().predictions
    made = predictions.get(item.id)
    if made is None:
        try:
            made = MODEL_LABEL, item.predict()
        except Exception as exc:  # the model is a stand-in: its failure must not stop a lesson
            made = MODEL_FAILED, one_line(exc)
        predictions[item.id] = made  # made once: a prediction with random IDs (O8) too
    return made


def stand_ins(item: Claim) -> list[tuple[Label, Any]]:
    """What may stand in for a claim's observation: its expectation (labelled for what it is)
    and the model's prediction, where there is one."""
    out: list[tuple[Label, Any]] = [(_Label(item.expected_label, item.expected_short),
                                   item.expected)]
    predicted = model_prediction(item)
    if predicted is not None:
        out.append(predicted)
    return out


Names = str | tuple[str, ...] | list[str]


def _untried(names: Names) -> str | None:
    """The first of the exercises ``names`` not yet tried in this kernel, or None."""
    return next((n for n in ([names] if isinstance(names, str) else names) if not course.tried(n)),
                None)


CELL_WAITS = N_("This cell shows the answer to exercise {name}: answer the exercise above "
                "first, then run this cell again (or run {command} to see the answer).")
EXPLANATION_WAITS = N_("labkit's model's explanation of this card would give away the answer "
                       "to exercise {name}: answer the exercise first, then run this cell "
                       "again (or run {command} to see the answer).")


class Waiting:
    """A cell that would show an exercise's answer, held back until the exercise is tried
    (``says``: what is held, the whole cell or a card's explanation)."""

    verdict = None

    def __init__(self, name: str, says: str = CELL_WAITS) -> None:
        self.name = name
        self.says = says

    def __str__(self) -> str:
        return _(self.says).format(name=self.name, command=f'labkit.reveal("{self.name}")')

    __repr__ = __str__

    @as_typed
    def _repr_html_(self) -> str:
        text = html.escape(_(self.says))
        command = f'labkit.reveal("{self.name}")'
        text = text.format(name=f"<b>{html.escape(self.name)}</b>",
                           command=f"<code>{html.escape(command)}</code>")
        return f"<div style='color:{COLOURS[NOT_RUN]}'>&#x23F3; {text}</div>"


def after(names: Names, show: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``show(*args, **kwargs)`` once the exercise ``names`` (one name or several) have been
    tried; until then a ``Waiting`` note that says how to see the answer."""
    waiting = _untried(names)
    if waiting is not None:
        return Waiting(waiting)
    shown = show(*args, **kwargs)
    return None if _on_pyplot(shown) else shown


def _on_pyplot(value: Any) -> bool:
    """True for a figure pyplot holds: Jupyter draws those itself, so returning one again
    would draw it twice."""
    import sys

    pyplot = sys.modules.get("matplotlib.pyplot")
    number = getattr(value, "number", None)
    return pyplot is not None and number is not None and pyplot.fignum_exists(number)


def _words(value: Any) -> str:
    """A table cell: text as it is, a list of plain values joined by commas, else JSON."""
    if isinstance(value, str | Message):
        return shown_text(value)
    if isinstance(value, list | tuple) and not any(isinstance(i, dict | list) for i in value):
        return ", ".join(str(i) for i in value) or _("(none)")
    return short_json(value, 120)


# What a mapping's keys are, as ``table`` heads them.
ROWS = {"question": N_("question"), "field": N_("field")}


def table(value: dict[Any, Any] | list[dict[str, Any]], heading: str = MODEL_SHORT,
          rows: str = "question") -> pd.DataFrame:
    """A DataFrame to read instead of a dictionary: a mapping as one row per key (a
    ``question``, or a ``field``; its values under ``heading``, translated), a list of
    mappings as one row each. (What an experiment returns: keys and values of any kind.)"""
    import pandas as pd

    if isinstance(value, dict):
        return pd.DataFrame({_(heading): [_words(v) for v in value.values()]},
                            index=pd.Index([question_label(k) for k in value],
                                           name=_(ROWS[rows])))
    return pd.DataFrame([{question_label(key): _words(item) for key, item in row.items()}
                         for row in value])


class Checked(list[Result]):
    """The rows of one claim's check, shown as a verdict card in a notebook."""

    def __init__(self, result: ClaimResult) -> None:
        super().__init__(result.rows)
        self.result = result
        # A missing server's reason (what was tried, the hint) is said in full by the first
        # card of the lesson that needs it; this card's rows refer to it where another did.
        card = f"claim:{result.claim.id}"
        self.told = frozenset(kind for kind in {row.missing for row in result.rows}
                              if kind and not lab().says(f"reason:{kind}", card))

    @property
    def verdict(self) -> Verdict:
        """The claim's verdict, summed up from its rows."""
        return self.result.verdict

    @as_typed
    def _repr_html_(self) -> str:
        return claim_card(self.result, self.told)

    def __str__(self) -> str:
        item = self.result.claim
        head = f"{item.id}: {verdict_text(self.verdict)} ({kind_text(item.kind)})"
        return "\n".join([head, *(row.text(said)
                                  for row, said in zip(self, instead(self, self.told),
                                                       strict=True))])

    __repr__ = __str__


def claim(claim_id: str, ctx: Context | None = None, *,
          after: Names | None = None,
          explain_after: Names | None = None) -> Checked | NotRun | Waiting:
    """Run one claim live (in a notebook: on the kernel's servers) and return its verdicts.

    Raises ``ClaimFailed`` when a behaviour claim does not hold or any engine errs. When
    the claim needs a server that cannot be had, returns a "not run" card instead, with the
    source's expectation and the model's prediction, each labelled, and the model's
    explanation of its questions where they are finds of the kit's claim files
    (``cards.Why``). A survey claim that does not hold on some engine is a finding, shown
    and not raised. With ``after`` (an exercise's name, or several), the card waits until
    they have been tried (``Waiting``); with ``explain_after``, the explanation alone does,
    where it would give those exercises' answers away and the card would not.
    """
    waiting = _untried(after or ())
    if waiting is not None:
        return Waiting(waiting)

    item = catalogue.get(claim_id)
    ctx = ctx or session()
    missing = first_missing(ctx, item.needs)
    if missing is not None:
        kind, why = missing
        held = _untried(explain_after or ())
        explained = Waiting(held, EXPLANATION_WAITS) if held else Why.of(item.id)
        return NotRun(item.id, why, stand_ins(item), title=item.shown_title, kind=kind,
                      why=explained)
    checked = Checked(ctx.claim_result(item))
    bad = [row for row in checked if row.verdict in (FAILS, ERROR)]
    if bad:
        raise ClaimFailed("\n".join(str(row) for row in bad))
    return checked


def on_server(what: str, experiment: Callable[[Database[dict[str, Any]]], T], *,
              model: Callable[[], Any] | None = None, model_label: str = MODEL_LABEL,
              explain: Callable[[], Any] | None = None,
              ctx: Context | None = None, after: Names | None = None) -> T | NotRun | Waiting:
    """Run ``experiment(database)`` on a fresh database of the kernel's MongoDB and return its
    result; without a server, a "not run" card with the model's answer (``model()``), labelled,
    and, with ``explain`` (a call of ``labkit.explain`` on the cell's documents), the model's
    explanation beside it, labelled as the model's. With ``after`` (an exercise's name, or
    several), it waits until they have been tried.
    """
    waiting = _untried(after or ())
    if waiting is not None:
        return Waiting(waiting)
    ctx = ctx or session()
    missing = ctx.unavailable("mongodb")
    if missing is not None:
        shown: list[tuple[Label, Any]] = []
        if model is not None:
            try:
                shown.append((model_label, model()))
            except Exception as exc:  # a stand-in's failure must not stop a lesson
                shown.append((MODEL_FAILED, one_line(exc)))
        why = None
        if explain is not None:
            try:
                why = WhyFrame(explain())
            except Exception:  # a stand-in's failure must not stop a lesson
                why = None
        return NotRun(what, missing, shown, why=why)
    return experiment(ctx.mongodb_database(what.split()[0].lower()))


class ServerStatus:
    """Which MongoDB this kernel uses, or, in one line, that there is none and what the lesson
    does then (how to get one on request)."""

    def __init__(self, lesson: str, needs_server: bool, server: MongoServer | None = None,
                 missing: ServerUnavailable | None = None) -> None:
        self.lesson, self.needs_server = lesson, needs_server
        self.server, self.missing = server, missing
        self.first = lab().says("notice", "status") if missing is not None and needs_server \
            else False

    def _intro(self) -> str:
        return _("Lesson {lesson}.").format(lesson=self.lesson)

    def lines(self) -> list[str]:
        """The status as plain sentences."""
        if self.server is not None:
            return [_("Lesson {lesson}. MongoDB: {server}").format(
                lesson=self.lesson, server=self.server.describe())]
        if not self.needs_server:
            return [_("Lesson {lesson}. This lesson needs no MongoDB server.").format(
                lesson=self.lesson)]
        return [f"{self._intro()} {_server_note_text()}"]

    def __str__(self) -> str:
        return "\n".join(self.lines())

    __repr__ = __str__

    @as_typed
    def _repr_html_(self) -> str:
        if self.missing is not None and self.needs_server and self.server is None:
            # Shown, the note gives the reason in full (in its details), so the lesson's cards
            # refer to it: recorded when shown, as lesson 06 never shows its status.
            lab().says("reason:mongodb", "status")
            return f"<div>{html.escape(self._intro())} {_server_note_html(self.missing)}</div>"
        return "<div>" + "<br>".join(html.escape(line) for line in self.lines()) + "</div>"


def start_lesson(lesson: str) -> ServerStatus:
    """Begin a lesson: remember it (for ``labkit.progress()``), keep its tables' ``$`` from
    MathJax, and say which server it uses.

    Never raises for a missing server: the lesson runs without one.
    """
    keep_from_maths()
    info = course.lesson(lesson)
    lab().begin(info.number)  # what a lesson says once, it says afresh in each lesson
    needs_server = "mongodb" in info.uses
    if not needs_server:
        return ServerStatus(info.number, False)
    ctx = session()
    missing = ctx.unavailable("mongodb")
    return ServerStatus(info.number, True, None if missing else ctx.mongodb(), missing)
