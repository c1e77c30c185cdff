"""Query exercises: the learner writes a filter, a sort or a pipeline, and it is judged by
what it returns, on the lesson's fixture and on a variant the learner has not seen (the same
shapes under other ``_id``s, in another order, with a few more documents), so that a list of
``_id``s copied from the fixture is no answer. A wrong query is told which documents it let in
or kept out, each with the rule that decided (``labkit.model.explain``).

Both the learner's query and the reference run where the learner's collection runs: the
lesson's MongoDB where the kernel has one, else labkit's model, and the feedback says which.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from labkit.errors import BadInput, Unreadable
from labkit.i18n import N_, Message, _, shown
from labkit.lessons import shell_query
from labkit.lessons.collection import (
    Answer,
    Collection,
    Cursor,
    Query,
    agree,
    filter_and_sort,
    short_value,
    sort_pairs,
    value_key,
    where_now,
)
from labkit.lessons.exercises import MODEL, Exercise
from labkit.lessons.rules import Accept
from labkit.model import explain
from labkit.model.match import field_paths

if TYPE_CHECKING:
    from labkit.model.bson_order import Document

FILTER, SORT, PIPELINE = "filter", "sort", "pipeline"
# At most this many documents are named in one piece of feedback; the rest are counted.
_NAMED = 3
# Of those, this many carry the model's whole reason; the others its rule alone.
_REASONED = 1


def rekeyed(docs: list[Document], extra: list[Document]) -> list[Document]:
    """A variant of ``docs``: each ``_id`` moved (a number by 100, a string behind ``v_``),
    the order reversed, and ``extra`` documents mixed in."""
    out = []
    for doc in reversed(docs):
        moved = copy.deepcopy(doc)
        key = moved.get("_id")
        if isinstance(key, int) and not isinstance(key, bool):
            moved["_id"] = key + 100
        elif isinstance(key, str):
            moved["_id"] = "v_" + key
        out.append(moved)
    return [*out[:2], *copy.deepcopy(extra), *out[2:]]


@dataclass(frozen=True)
class Task:
    """What a query exercise asks: the kind of query (a ``filter``, a ``sort`` of the whole
    collection, or a ``pipeline``), the fixture it runs on, a reference query whose answer is
    right, and the extra documents of the unseen variant."""

    kind: str
    collection: str
    fixture: Callable[[], list[Document]]
    reference: Any
    extra: list[Document] = field(default_factory=list)

    def variant(self) -> list[Document]:
        """The documents the learner has not seen."""
        return rekeyed(self.fixture(), self.extra)


def as_query(task: Task, written: Any) -> Query:
    """What the learner wrote, read as a query of the task's kind: a filter document (or a
    cursor, ``orders.find(...)``, whose filter, sort, skip and limit count), a sort (a
    dict, pairs, or a cursor's), a pipeline (a list of stages). ``Unreadable`` otherwise."""
    if isinstance(written, Judged):  # the exercise's own answer: its reference
        written = task.reference
    if isinstance(written, str):  # typed as mongosh writes it
        return _typed(task, shell_query.read(written))
    if isinstance(written, Cursor):
        query = written.query
        return Query(task.collection, query.operation, query.arguments)
    if isinstance(written, Answer) and written.query.operation == "aggregate":
        return Query(task.collection, "aggregate", written.query.arguments)
    if task.kind == FILTER and isinstance(written, dict):
        return Query(task.collection, "find", {"filter": written})
    if task.kind == SORT and isinstance(written, dict | list | tuple) and written:
        try:
            pairs = sort_pairs(list(written) if isinstance(written, tuple) else written)
        except Exception as exc:
            raise Unreadable(Message(N_("a sort such as {example}"),
                                     example=_EXAMPLES[SORT][0])) from exc
        return Query(task.collection, "find", {"filter": {}, "sort": dict(pairs)})
    if task.kind == PIPELINE and isinstance(written, list) and all(
            isinstance(stage, dict) for stage in written):
        return Query(task.collection, "aggregate", {"pipeline": written})
    example, shell = _EXAMPLES[task.kind]
    raise Unreadable(Message(N_("a {kind} such as {example}, or mongosh's text in quotes, such "
                                "as {shell}"), kind=_(_KIND_WORDS[task.kind]), example=example,
                             shell=f'"{shell}"'))


def _typed(task: Task, typed: shell_query.Typed) -> Query:
    """A query typed in mongosh's notation: a bare filter, sort or pipeline is read as the
    same written in Python; a call, ``db.orders.find(…).sort(…)`` or
    ``db.orders.aggregate([…])``, as the cursor or pipeline it makes (on the exercise's
    collection, whatever the name after ``db.``)."""
    if typed.operation is None:
        return as_query(task, typed.value)
    if typed.operation == "aggregate":
        return as_query(task, typed.arguments[0] if typed.arguments else None)
    try:  # the learner's collection's own cursor reads find's arguments and its methods'
        cursor = Cursor(task.collection, *[*typed.arguments, None, None][:2])
        for method, given in typed.chained:
            getattr(cursor, method)(*given)
    except (BadInput, TypeError, ValueError) as exc:
        raise Unreadable(exc.args[0] if exc.args and isinstance(exc.args[0], Message)
                         else Message(N_("find() takes a filter document, then .sort(), "
                                         ".skip() and .limit() their one argument each"))) \
            from exc
    if task.kind == SORT and "sort" not in cursor.query.arguments:
        raise Unreadable(Message(N_("a sort such as {example}"), example=_EXAMPLES[SORT][1]))
    return as_query(task, cursor)


# Per kind of query, an example as Python writes it and as mongosh does: no exercise's answer.
_EXAMPLES = {FILTER: ('{"userId": 42}', "{userId: 42}"),
             SORT: ('{"v": 1, "_id": 1}', "{v: 1, _id: 1}"),
             PIPELINE: ('[{"$match": {"userId": 42}}]', "[{$match: {userId: 42}}]")}
_KIND_WORDS = {FILTER: N_("filter document"), SORT: N_("sort"), PIPELINE: N_("pipeline")}


@dataclass
class Judged:
    """The reference's answer on the fixture and on the variant, and the collections both
    live in (where the learner's query runs too)."""

    task: Task
    seen: Collection
    unseen: Collection
    expected: tuple[Answer, Answer]

    def run(self, query: Query) -> tuple[Answer, Answer]:
        """The learner's query on the fixture and on the variant; ``Unreadable`` with the
        engine's words where it refuses it (not an attempt)."""
        answers = (self.seen.ask(query), self.unseen.ask(query))
        for answer in answers:
            if answer.refused:
                raise Unreadable(Message(N_("{who} cannot run it: {why}"),
                                         who=answer.where.short(), why=answer.refused))
        return answers


def _same(got: Answer, expected: Answer) -> bool:
    """Whether the learner's answer agrees with the reference's: the same documents, in the
    same order where the reference sorts them (ties in any order)."""
    return agree(expected.query, got.value, expected.value)


class Returns(Accept[Query]):
    """Right when the learner's query returns what the reference returns, on the fixture and
    on the variant; a wrong one is told which documents it let in or kept out, and why."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.example = _EXAMPLES[task.kind][0]

    def read(self, prediction: Any, answer: Any) -> Query:
        """The learner's query (``as_query``)."""
        return as_query(self.task, prediction)

    def equal(self, prediction: Query, answer: Any) -> bool:
        """The same answers on the fixture and on the variant."""
        judged: Judged = answer
        got = judged.run(prediction)
        return all(_same(mine, theirs)
                   for mine, theirs in zip(got, judged.expected, strict=True))

    def mistake(self, prediction: Any, answer: Any) -> str | Message:
        """The documents the query let in or kept out, each with the model's reason; or, where
        the fixture's answer is right, that the unseen variant's is not."""
        judged: Judged = answer
        query = self.read(prediction, answer)
        absent = _absent_fields(query, judged.seen.documents())
        if absent:
            return Message(N_("No document has a field {fields}: check its name against the "
                              "fixture's."), fields=", ".join(absent))
        got = judged.run(query)
        if _same(got[0], judged.expected[0]):
            return Message(N_("Right on these documents, but not on others of the same shape "
                              "that you have not seen: {detail}"),
                           detail=shown(_wrongly(query, got[1], judged.expected[1],
                                                 judged.unseen)))
        return _wrongly(query, got[0], judged.expected[0], judged.seen)

    def describe(self) -> str:
        """For the answer sheet."""
        return _("a query that returns what {reference} returns, on the fixture and on a "
                 "variant").format(reference=self.show_reference())

    def show_reference(self) -> str:
        """The reference query, as mongosh writes it."""
        reference = as_query(self.task, self.task.reference)
        return reference.mongosh()

    def show(self, answer: Any) -> str:
        """The reference query, as mongosh writes it."""
        return self.show_reference()


def _fields(query: Query) -> list[str]:
    """The fixture's field paths a query names: its filter's and its sort's, and a pipeline's
    ``$match`` and ``$sort`` stages' up to the first stage that makes fields of its own."""
    arguments = query.arguments
    named = [*field_paths(arguments.get("filter")), *(arguments.get("sort") or {})]
    for stage in arguments.get("pipeline") or []:
        operator, value = next(iter(stage.items()), ("", None))
        if operator == "$match":
            named += field_paths(value)
        elif operator == "$sort" and isinstance(value, dict):
            named += list(value)
        elif operator not in ("$limit", "$skip"):
            break
    return named


def _absent_fields(query: Query, documents: list[Document]) -> list[str]:
    """The fields the query names whose first part no document of the fixture has."""
    named = _fields(query)
    present = {key for document in documents for key in document}
    return list(dict.fromkeys(name for name in named if name.split(".")[0] not in present))


def _wrongly(query: Query, got: Answer, expected: Answer, seen: Collection) -> Message:
    """Which documents ``got`` lets in or keeps out against ``expected``, each with the rule
    that decided under the learner's filter (or the order, for a sort)."""
    mine = {value_key(d.get("_id")): d.get("_id") for d in got.documents()}
    theirs = {value_key(d.get("_id")): d.get("_id") for d in expected.documents()}
    wrongly_in = [v for k, v in mine.items() if k not in theirs]
    wrongly_out = [v for k, v in theirs.items() if k not in mine]
    if not wrongly_in and not wrongly_out:
        place, yours, right = next((n, a, b) for n, (a, b) in enumerate(
            zip(got.ids(), expected.ids(), strict=True), start=1) if value_key(a) != value_key(b))
        return Message(N_("The right documents in another order: at place {place} yours has "
                          "_id {yours}, where the order asked for has _id {right}."),
                       place=place, yours=short_value(yours), right=short_value(right))
    reasons = _reasons(query, seen, [*wrongly_in, *wrongly_out])
    told = [0]
    parts = []
    if wrongly_in:
        parts.append(shown(Message(N_("let in {ids}"), ids=_named(wrongly_in, reasons, told))))
    if wrongly_out:
        parts.append(shown(Message(N_("kept out {ids}"),
                                   ids=_named(wrongly_out, reasons, told))))
    return Message(N_("Your query {parts}."), parts="; ".join(parts))


def _reasons(query: Query, seen: Collection, ids: list[Any]) -> dict[str, tuple[str, str]]:
    """The model's reason for each of ``ids`` under the learner's filter: its rule and why."""
    filter_, _sort = filter_and_sort(query)
    if filter_ is None:
        return {}
    try:
        rows = explain.find(seen.documents(), filter_, mongodb_version=seen.where.rules)
    except Exception:  # a reason is extra; its absence must not cost the feedback
        return {}
    wanted = {value_key(i) for i in ids}
    return {value_key(row.id): (row.rule, shown(row.because)) for row in rows
            if value_key(row.id) in wanted}


def _named(ids: list[Any], reasons: dict[str, tuple[str, str]], told: list[int]) -> str:
    """``ids`` as feedback names them: the first few, each with its rule (the first with the
    model's whole reason, counted in ``told``), the rest counted."""
    named = []
    for i in ids[:_NAMED]:
        reason = reasons.get(value_key(i))
        if reason is None:
            named.append(f"_id {short_value(i)}")
        elif told[0] < _REASONED:
            told[0] += 1
            named.append(f"_id {short_value(i)} ({reason[0]}: {reason[1]})")
        else:
            named.append(f"_id {short_value(i)} ({reason[0]})")
    more = len(ids) - _NAMED
    return ", ".join(named) + (" " + _("and {count} more").format(count=more) if more > 0
                               else "")


def query_exercise(task: Task, question: str, hint: str | list[str], *, explanation: str,
                   lesson: str) -> Exercise:
    """An exercise whose answer is a query the learner writes, judged by what it returns."""
    def observe() -> Judged:
        where = where_now()
        seen = Collection(task.collection, task.fixture(), where)
        unseen = Collection(task.collection + "_unseen", task.variant(), where)
        reference = as_query(task, task.reference)
        judged = Judged(task, seen, unseen, (seen.ask(reference), unseen.ask(
            Query(unseen.name, reference.operation, reference.arguments))))
        if not where.on_server:
            exercise.source = MODEL
        exercise.engine = where.label()
        return judged

    exercise = Exercise(question, observe, hint, explanation=explanation,
                        accept=Returns(task), lesson=lesson)
    return exercise
