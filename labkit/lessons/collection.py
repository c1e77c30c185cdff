"""A collection the learner queries, shaped like pymongo's: ``labkit.collection("orders")``.

It runs on the lesson's MongoDB where the kernel has one (in a fresh ``labkit_…`` database of
its own, never another) and on labkit's model of MongoDB's rules otherwise. Every answer says
which answered, shows the query as mongosh and pymongo write it, and says, document by document,
why the model places it where it does. With a server, the model's prediction stands beside the
server's answer and a difference is flagged: the server is what counts, and a difference is a
finding worth reporting.
"""

from __future__ import annotations

import copy
import html
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from labkit.claims.claim import COLOURS, FAILS, one_line, short_json
from labkit.engines import writes
from labkit.engines.query import driver_raised, model_read, pymongo_read
from labkit.engines.writes import pymongo_write
from labkit.errors import BadInput, LabkitError, NotSupported
from labkit.i18n import N_, Message, _, shown
from labkit.model import bson_order, explain, fixtures, reads, regex
from labkit.model.fixtures import dumps
from labkit.model.versions import CURRENT_MAJOR, VERSIONS
from labkit.outputs.escape import as_typed
from labkit.outputs.explanations import frame, page

if TYPE_CHECKING:
    import pandas as pd
    from pymongo.collection import Collection as PyCollection

    from labkit.model.bson_order import Document

# The blue of an answer; a difference or a refusal in the colour of a claim that fails.
_BORDER, _DIFFERS = "#0969da", COLOURS[FAILS]
# The updates the model performs on its own copy: top-level fields only.
_MODEL_UPDATES = ("$set", "$unset", "$inc")


def _identifier(key: str) -> bool:
    return key.replace("_", "a").replace("$", "a").isalnum() and not key[:1].isdigit()


def mongosh(value: Any) -> str:
    """A query value as mongosh takes it: keys bare where JavaScript allows (``$gt``, ``userId``),
    quoted where not (``"a.b"``); values as the shell writes them."""
    # outputs.tables loads the servers' room: `labkit.exercise` loads this module without it
    from labkit.outputs.tables import shell

    if isinstance(value, dict):
        return "{" + ", ".join(f"{k if _identifier(str(k)) else json.dumps(str(k))}: "
                               f"{mongosh(item)}" for k, item in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(mongosh(item) for item in value) + "]"
    return shell(value)


def sort_pairs(key_or_list: Any, direction: int | None = None) -> list[tuple[str, int]]:
    """A sort as pymongo's ``sort`` takes it (a key and a direction, a list of pairs, or a
    dict), as its pairs; anything else is ``BadInput``."""
    if isinstance(key_or_list, str):
        return [(key_or_list, 1 if direction is None else direction)]
    if isinstance(key_or_list, dict):
        return [(str(k), v) for k, v in key_or_list.items()]
    if isinstance(key_or_list, list | tuple) and all(
            isinstance(p, list | tuple) and len(p) == 2 for p in key_or_list):
        return [(str(k), v) for k, v in key_or_list]
    raise BadInput(Message(N_("a sort is a field and a direction, {example}, or a list of "
                              "pairs, {pairs}"), example='.sort("userId", 1)',
                           pairs='.sort([("userId", 1), ("_id", -1)])'))


@dataclass(frozen=True)
class Query:
    """One read as the learner wrote it: the operation and its arguments (``find``'s filter,
    projection, sort, skip and limit; ``aggregate``'s pipeline; ``count_documents``'s filter;
    ``distinct``'s field and filter)."""

    collection: str
    operation: str  # find, aggregate, countDocuments, distinct
    arguments: dict[str, Any]

    def mongosh(self) -> str:
        """The read as mongosh writes it: ``db.orders.find({userId: {$gt: 0}}).limit(2)``."""
        return self._written(_MONGOSH)

    def pymongo(self) -> str:
        """The same read as pymongo (Python) writes it."""
        return self._written(_PYMONGO)

    def _written(self, how: _Dialect) -> str:
        """The read as one language writes it (``how``): the same calls in the same order."""
        args, name = self.arguments, how.name.format(self.collection)
        filter_ = how.value(args.get("filter") or {})
        if self.operation == "find":
            text = f"{name}.find({filter_}"
            text += f", {how.value(args['projection'])})" if args.get("projection") else ")"
            if args.get("sort"):
                text += f".sort({how.sort(args['sort'])})"
            return text + "".join(f".{step}({args[step]})" for step in ("skip", "limit")
                                  if args.get(step))
        if self.operation == "aggregate":
            return f"{name}.aggregate({how.value(args['pipeline'])})"
        if self.operation == "distinct":
            return f"{name}.distinct({how.field(args['fieldName'])}, {filter_})"
        return f"{name}.{how.count_method}({filter_})"


class _Dialect(NamedTuple):
    """How a language writes a read: the collection (a format of its name), a value, a field's
    name, a sort, and its name for countDocuments."""

    name: str
    value: Callable[[Any], str]
    field: Callable[[str], str]
    sort: Callable[[dict[str, Any]], str]
    count_method: str


# mongosh writes a sort as a document; pymongo as a list of (field, direction) pairs.
_MONGOSH = _Dialect("db.{}", mongosh, json.dumps, mongosh, "countDocuments")
_PYMONGO = _Dialect("{}", repr, repr, lambda sort: repr(list(sort.items())), "count_documents")


class Where:
    """What answers the learner's collection: the lesson's MongoDB, or labkit's model alone.
    ``label`` names it as a result says it; ``rules`` is the MongoDB version whose rules the
    model follows for the prediction."""

    def __init__(self, server: Any = None, database: Any = None) -> None:
        self.server, self.database = server, database
        major = ".".join(str(getattr(server, "version", "")).split(".")[:2])
        self.rules = major if major in VERSIONS else CURRENT_MAJOR

    @property
    def on_server(self) -> bool:
        """True where the lesson's MongoDB answers."""
        return self.server is not None

    def label(self) -> str:
        """Who answered, in the learner's words."""
        if self.server is None:
            return _("labkit's model of MongoDB {version}: a prediction, no server asked").format(
                version=self.rules)
        return _("MongoDB {version}, the lesson's server").format(version=self.server.version)

    def short(self) -> str:
        """Who answered, in two words."""
        return _("the server") if self.server is not None else _("labkit's model")

    def model_label(self) -> str:
        """The model's column beside a server's answer, in the learner's words."""
        return _("labkit's model of MongoDB {version} predicts").format(version=self.rules)


def where_now() -> Where:
    """The kernel's MongoDB if it has one, else the model alone."""
    # the session (lessons.notebook, about 40 more modules): a collection made needs it;
    # `labkit.exercise` loads this module (through query_tasks) and makes none
    from labkit.lessons.notebook import session

    ctx = session()
    if ctx.unavailable("mongodb") is not None:
        return Where()
    return Where(ctx.mongodb(), ctx.mongodb_database("yourturn"))


def _model_read(docs: list[Document], query: Query, rules: str) -> Any:
    return model_read(docs, query.operation, query.arguments, rules=rules)


def _server_read(collection: PyCollection[Document], query: Query) -> Any:
    return pymongo_read(collection, query.operation, query.arguments)


def _refusal(exc: Exception) -> str:
    """What an engine said when it refused a read, in one line of the learner's words."""
    said = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], Message) else None
    return shown(said) if said is not None else shown(one_line(exc))


class Answer:
    """What one read returned: the value, who answered, the query in mongosh and pymongo form,
    the model's prediction beside a server's answer, and why the model places each document."""

    def __init__(self, query: Query, where: Where, value: Any = None, *, refused: str = "",
                 predicted: Any = None, prediction_refused: str = "",
                 docs: list[Document] | None = None, model_in_step: bool = True) -> None:
        self.query, self.where, self.value, self.refused = query, where, value, refused
        self.predicted, self.prediction_refused = predicted, prediction_refused
        self.docs = docs or []  # the model's copy of the collection the read ran on
        self.model_in_step = model_in_step
        self.held: tuple[str, ...] = ()  # exercises whose answer this would give away

    # What a notebook cell reads ---------------------------------------------------------------

    def ids(self) -> list[Any]:
        """The ``_id`` of each document returned, in order."""
        return [doc.get("_id") for doc in self.documents()]

    def documents(self) -> list[Document]:
        """The documents returned (a read that gives documents); raises the refusal."""
        if self.refused:
            raise BadInput(self.refused)
        return list(self.value) if isinstance(self.value, list) else []

    def __iter__(self) -> Iterator[Any]:
        return iter(self.documents() if self.query.operation != "distinct" else self.value)

    def __len__(self) -> int:
        return len(self.value) if isinstance(self.value, list) else 0

    def __eq__(self, other: object) -> bool:
        return bool(self.value == (other.value if isinstance(other, Answer) else other))

    __hash__ = None  # type: ignore[assignment]  # a result, compared by value

    # The model beside the server ------------------------------------------------------------

    def differs(self) -> bool:
        """True where a server answered and the model predicted otherwise: a finding."""
        if not self.where.on_server or self.refused or self.prediction_refused \
                or not self.model_in_step:
            return False
        return not agree(self.query, self.value, self.predicted)

    def _difference(self) -> str:
        if self.query.operation not in ("find", "aggregate") or not isinstance(self.value, list):
            return _("the server gave {server}; the model predicted {model}").format(
                server=short_value(self.value), model=short_value(self.predicted))
        server = {value_key(d.get("_id")) for d in self.value if isinstance(d, dict)}
        model = {value_key(d.get("_id")) for d in self.predicted or [] if isinstance(d, dict)}
        only_server = [d.get("_id") for d in self.value if value_key(d.get("_id")) not in model]
        only_model = [d.get("_id") for d in self.predicted or []
                      if value_key(d.get("_id")) not in server]
        if not only_server and not only_model:
            return _("the same documents in another order")
        return _("only the server returned {server}; only the model {model}").format(
            server=short_value(only_server) if only_server else _("none"),
            model=short_value(only_model) if only_model else _("none"))

    # Why --------------------------------------------------------------------------------------

    def why(self) -> pd.DataFrame | None:
        """Why the model places each document of the collection (a filter: in or out, and the
        rule; a sort alone: the value each sorts by), or None where the read has neither."""
        filter_, sort = filter_and_sort(self.query)
        try:
            if filter_ is not None and (filter_ or sort is None):
                return frame(explain.find(self.docs, filter_,
                                          mongodb_version=self.where.rules))
        except (BadInput, NotSupported, ValueError):
            return None
        return self.why_order()

    def why_order(self) -> pd.DataFrame | None:
        """Why the documents the filter keeps come in the sort's order: the value each sorts
        by and the rule that places it, or None where the read has no sort."""
        filter_, sort = filter_and_sort(self.query)
        if not sort:
            return None
        try:
            chosen = _model_read(self.docs, Query(self.query.collection, "find",
                                                  {"filter": filter_ or {}}), self.where.rules)
            return frame(explain.sorted_rows(chosen, sort, mongodb_version=self.where.rules))
        except (BadInput, NotSupported, ValueError):
            return None

    # Display ----------------------------------------------------------------------------------

    def _table(self) -> pd.DataFrame | None:
        from labkit.outputs.tables import fixture  # the servers' room: a shown answer's alone

        if self.query.operation in ("find", "aggregate") and isinstance(self.value, list) and \
                self.value and all(isinstance(d, dict) for d in self.value):
            return fixture(self.value)
        return None

    def _lines(self) -> list[str]:
        if self.refused:
            return [_("{who} gives no answer: {why}").format(who=self.where.short(),
                                                            why=self.refused)]
        lines = [_("Answered by {who}.").format(who=self.where.label())]
        if self.query.operation in ("find", "aggregate") and isinstance(self.value, list):
            lines.append(_("Documents returned: {count} of {total}.").format(
                count=len(self.value), total=len(self.docs)) if self.query.operation == "find"
                else _("Documents out of the pipeline: {count}.").format(count=len(self.value)))
        else:
            lines.append(_("Result: {value}").format(value=short_value(self.value)))
        if self.where.on_server:
            lines.append(self._beside())
        return lines

    def _beside(self) -> str:
        if not self.model_in_step:
            return _("The model's copy of this collection is out of step with the server's "
                     "(a write it cannot perform), so it predicts nothing here.")
        if self.prediction_refused:
            return _("{model}: no prediction ({why}).").format(model=self.where.model_label(),
                                                               why=self.prediction_refused)
        if self.differs():
            return _("The server and labkit's model differ: {difference}. The server is what "
                     "counts; a difference is a finding worth reporting.").format(
                difference=self._difference())
        return _("{model} the same.").format(model=self.where.model_label())

    def _waiting(self) -> Any:
        """A note that this answer waits for an exercise not yet tried, or None."""
        # the session's module (about 40 more modules): a shown answer's alone, as above
        from labkit.lessons.notebook import Waiting, _untried

        name = _untried(self.held) if self.held else None
        return Waiting(name) if name else None

    def __str__(self) -> str:
        waiting = self._waiting()
        if waiting is not None:
            return f"{self.query.mongosh()}\n{waiting}"
        lines = [self.query.mongosh(), "  pymongo: " + self.query.pymongo(), *self._lines()]
        table = self._table()
        if table is not None:
            lines.append(table.to_string())
        return "\n".join(lines)

    __repr__ = __str__

    @as_typed
    def _repr_html_(self) -> str:
        esc = html.escape
        waiting = self._waiting()
        if waiting is not None:
            return f"<code><b>{esc(self.query.mongosh())}</b></code>{waiting._repr_html_()}"
        colour = _DIFFERS if self.differs() or self.refused else _BORDER
        parts = [f"<div style='border-left:4px solid {colour};"
                 "padding:.3em .8em'>",
                 f"<code><b>{esc(self.query.mongosh())}</b></code>",
                 f"<div><small>pymongo: <code>{esc(self.query.pymongo())}</code></small></div>"]
        parts += [f"<div>{esc(line)}</div>" for line in self._lines()]
        table = self._table()
        if table is not None:
            parts.append(table.to_html(escape=True, border=0))
        why = None if self.refused else self.why()
        if why is not None:
            parts.append(f"<details><summary>{esc(_('Why, document by document (labkit model)'))}"
                         f"</summary>{page(why)}</details>")
        # a filter's fold says which documents match; the order has a fold of its own (a sort
        # alone has only that one, as ``why``)
        order = self.why_order() if why is not None and filter_and_sort(self.query)[0] else None
        if order is not None:
            parts.append(f"<details><summary>{esc(_('In what order, and why (labkit model)'))}"
                         f"</summary>{page(order)}</details>")
        parts.append("</div>")
        return "".join(parts)


def value_key(value: Any) -> str:
    """A value as a set compares it: its Extended JSON."""
    return dumps(value)


def short_value(value: Any) -> str:
    """A value as feedback names it: its Extended JSON, cut after 200 characters."""
    return short_json(value, 200)


def filter_and_sort(query: Query) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The filter and sort a read applies to the collection's documents: a find's own, an
    aggregate's leading ``$match`` and the ``$sort`` after it, where they are."""
    args = query.arguments
    if query.operation in ("find", "countDocuments", "distinct"):
        return args.get("filter") or {}, args.get("sort")
    filter_: dict[str, Any] | None = None
    sort: dict[str, Any] | None = None
    for stage in args.get("pipeline") or []:
        (name, spec), = stage.items() if isinstance(stage, dict) and len(stage) == 1 \
            else ((None, None),)
        if name == "$match" and filter_ is None and sort is None:
            filter_ = spec
        elif name == "$sort" and sort is None:
            sort = spec
        else:
            break
    return filter_, sort


def agree(query: Query, server: Any, model: Any) -> bool:
    """Whether a server's answer and the model's prediction say the same: the same documents
    (in the same order where the read sorts them, ties in any order), the same value else."""
    if not (isinstance(server, list) and isinstance(model, list)):
        return value_key(server) == value_key(model)
    if sorted(map(value_key, server)) != sorted(map(value_key, model)):
        return False
    _filter, sort = filter_and_sort(query)
    if not sort:
        return True
    keys = [[[k for _value, k in bson_order.sort_values(d, sort)] for d in side]
            for side in (server, model)]
    return keys[0] == keys[1]


# What the learner's collection takes, as pymongo names it.
_TAKES = ("find, find_one, count_documents, distinct, aggregate, insert_one, insert_many, "
          "update_one, update_many, delete_one, delete_many")


class _NoSuchMethodError(LabkitError, AttributeError):
    """A name pymongo has that the learner's collection or cursor does not: said in one line,
    with what it takes (an ``AttributeError`` still, so ``hasattr`` answers as it should)."""

    def _render_traceback_(self) -> list[str]:
        return [f"AttributeError: {self}"]


def _not_here(kind: Message, name: str, takes: str) -> _NoSuchMethodError:
    return _NoSuchMethodError(Message(N_("{kind} has no {name}; it takes {takes}"), kind=kind,
                                      name=name, takes=takes))


class Cursor:
    """``find``'s answer, as pymongo's cursor is shaped: ``.sort()``, ``.skip()`` and
    ``.limit()`` refine it; a notebook shows it, ``list()`` and ``.ids()`` read it."""

    def __init__(self, owner: Collection | str, filter_: dict[str, Any] | None,
                 projection: dict[str, Any] | None) -> None:
        """A cursor of ``owner``'s; of a collection's name alone, it is a query to read and
        never asks (a query exercise's answer typed as mongosh's text)."""
        if filter_ is not None and not isinstance(filter_, dict):
            raise BadInput(Message(N_("a filter is a document, such as {example}"),
                                   example='{"userId": {"$gt": 0}}'))
        self._owner = owner
        self._arguments: dict[str, Any] = {"filter": filter_ or {}}
        if projection:
            self._arguments["projection"] = projection
        self._answer: Answer | None = None

    def sort(self, key_or_list: Any, direction: int | None = None) -> Cursor:
        """Sort by a field and a direction (``.sort("userId", 1)``) or by a list of pairs."""
        self._arguments["sort"] = dict(sort_pairs(key_or_list, direction))
        self._answer = None
        return self

    def skip(self, count: int) -> Cursor:
        """Leave out the first ``count`` documents."""
        self._arguments["skip"] = int(count)
        self._answer = None
        return self

    def limit(self, count: int) -> Cursor:
        """Return at most ``count`` documents."""
        self._arguments["limit"] = int(count)
        self._answer = None
        return self

    @property
    def query(self) -> Query:
        """The read as written so far."""
        name = self._owner if isinstance(self._owner, str) else self._owner.name
        return Query(name, "find", dict(self._arguments))

    def answer(self) -> Answer:
        """The read's answer (asked once, when first needed)."""
        if isinstance(self._owner, str):
            raise TypeError("a cursor of a collection's name alone is never asked")
        if self._answer is None:
            self._answer = self._owner.ask(self.query)
        return self._answer

    def ids(self) -> list[Any]:
        """The ``_id`` of each document returned, in order."""
        return self.answer().ids()

    def __iter__(self) -> Iterator[Document]:
        return iter(self.answer().documents())

    def __str__(self) -> str:
        return str(self.answer())

    __repr__ = __str__

    @as_typed
    def _repr_html_(self) -> str:
        return self.answer()._repr_html_()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise _not_here(Message(N_("this cursor")), name, "sort, skip, limit, ids")


class Collection:
    """The learner's own collection (``labkit.collection``): reads and writes as pymongo's
    ``Collection`` takes them, answered by the lesson's server or by the model."""

    def __init__(self, name: str, docs: list[Document], where: Where,
                 after: tuple[str, ...] = ()) -> None:
        self.name = name
        self.where = where
        self.after = after  # exercises its answers wait for, in a notebook
        self._docs = copy.deepcopy(docs)  # the model's copy
        self._in_step = True  # False once a write the model cannot perform went to the server
        self._server: PyCollection[Document] | None = None
        if where.on_server:
            self._server = where.database[name]
            if docs:
                self._server.insert_many(copy.deepcopy(docs))

    def __repr__(self) -> str:
        return _("Collection {name} ({count} documents), on {who}").format(
            name=self.name, count=len(self._docs), who=self.where.label())

    def documents(self) -> list[Document]:
        """The documents as the model's copy holds them (the fixture, and your writes)."""
        return copy.deepcopy(self._docs)

    # Reads -----------------------------------------------------------------------------------

    def find(self, filter: dict[str, Any] | None = None,  # pymongo's name
             projection: dict[str, Any] | None = None) -> Cursor:
        """The documents that match ``filter`` (all, without one): a cursor to sort, skip and
        limit, shown with who answered and why."""
        return Cursor(self, filter, projection)

    def find_one(self, filter: dict[str, Any] | None = None,  # pymongo's name
                 projection: dict[str, Any] | None = None) -> Cursor:
        """The first document ``find`` gives (pymongo returns it alone, or None), shown with
        who answered and why."""
        return self.find(filter, projection).limit(1)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise _not_here(Message(N_("this collection")), name, _TAKES)

    def count_documents(self, filter: dict[str, Any]) -> Answer:
        """How many documents match ``filter`` (``{}``: all)."""
        return self.ask(Query(self.name, "countDocuments", {"filter": filter}))

    def distinct(self, key: str, filter: dict[str, Any] | None = None) -> Answer:
        """Each value of field ``key`` once, in BSON order (arrays give their elements)."""
        return self.ask(Query(self.name, "distinct", {"fieldName": key, "filter": filter or {}}))

    def aggregate(self, pipeline: list[dict[str, Any]]) -> Answer:
        """A pipeline's output. The model performs ``$match``, ``$sort``, ``$skip``,
        ``$limit``, ``$project``, ``$count`` and a count by ``$type``; a server, every stage."""
        if not isinstance(pipeline, list):
            raise BadInput(Message(N_("a pipeline is a list of stages, such as {example}"),
                                   example='[{"$match": {"userId": 42}}]'))
        return self.ask(Query(self.name, "aggregate", {"pipeline": pipeline}))

    def ask(self, query: Query) -> Answer:
        """Run one read where the collection lives; the model predicts it too, beside a
        server. A refusal is part of the answer, never a traceback in the cell."""
        predicted, prediction_refused = None, ""
        try:
            predicted = _model_read(self._docs, query, self.where.rules)
        except (BadInput, NotSupported, ValueError, TypeError) as exc:
            prediction_refused = _refusal(exc)
        answer = self._answer(query, predicted, prediction_refused)
        answer.held = self.after
        return answer

    def _answer(self, query: Query, predicted: Any, prediction_refused: str) -> Answer:
        if self._server is None:
            return Answer(query, self.where, predicted, refused=prediction_refused,
                          docs=self._docs)
        try:
            value = _server_read(self._server, query)
        except Exception as exc:  # the server's refusal is its answer, shown as such
            if not driver_raised(exc):
                raise
            return Answer(query, self.where, refused=_refusal(exc), docs=self._docs)
        return Answer(query, self.where, value, predicted=predicted,
                      prediction_refused=prediction_refused, docs=self._docs,
                      model_in_step=self._in_step)

    # Writes ----------------------------------------------------------------------------------

    def insert_one(self, document: Document) -> Written:
        """Add one document (an ``_id`` is made where it has none)."""
        return self._write("insertOne", {"document": document})

    def insert_many(self, documents: list[Document]) -> Written:
        """Add several documents, in order."""
        return self._write("insertMany", {"documents": documents})

    def update_one(self, filter: dict[str, Any], update: dict[str, Any]) -> Written:
        """Change the first document that matches ``filter``."""
        return self._write("updateOne", {"filter": filter, "update": update})

    def update_many(self, filter: dict[str, Any], update: dict[str, Any]) -> Written:
        """Change every document that matches ``filter``."""
        return self._write("updateMany", {"filter": filter, "update": update})

    def delete_one(self, filter: dict[str, Any]) -> Written:
        """Remove the first document that matches ``filter``."""
        return self._write("deleteOne", {"filter": filter})

    def delete_many(self, filter: dict[str, Any]) -> Written:
        """Remove every document that matches ``filter``."""
        return self._write("deleteMany", {"filter": filter})

    def _write(self, operation: str, arguments: dict[str, Any]) -> Written:
        arguments = copy.deepcopy(arguments)
        model_said, model_refused = None, ""
        try:
            model_said = model_write(self._docs, operation, arguments, self.where.rules)
        except (BadInput, NotSupported, ValueError, TypeError) as exc:
            model_refused = _refusal(exc)
        if self._server is None:
            return Written(operation, self.name, self.where, model_said, model_refused)
        if model_refused:
            self._in_step = False
        try:
            said = pymongo_write(self._server, operation, arguments)
        except Exception as exc:
            if not driver_raised(exc):
                raise
            return Written(operation, self.name, self.where, None, _refusal(exc))
        return Written(operation, self.name, self.where, said, "")


def model_write(docs: list[Document], operation: str, arguments: dict[str, Any],
                rules: str = CURRENT_MAJOR) -> dict[str, Any]:
    """A write on the model's copy ``docs`` (changed in place), its result as the CRUD
    specification names it: the inserts the model performs (``engines.writes``), deletes, and
    updates by ``$set``, ``$unset`` and ``$inc`` on top-level fields; any other is
    ``NotSupported``."""
    if operation in writes.MODEL_WRITES:
        said: dict[str, Any] = writes.model_write(docs, operation, arguments)
        return said
    with regex.one_read():  # bounded: see regex.MAX_LIMIT_HITS
        chosen = [i for i, doc in enumerate(docs)
                  if reads.matches(doc, arguments["filter"], mongodb_version=rules)]
    if operation.endswith("One"):
        chosen = chosen[:1]
    if operation.startswith("delete"):
        for i in reversed(chosen):
            del docs[i]
        return {"deletedCount": len(chosen)}
    update = arguments["update"]
    if isinstance(update, dict) and update and not any(str(op).startswith("$") for op in update):
        raise BadInput(Message(N_("an update is made of $ operators, such as {example}: pymongo "
                                  "refuses a plain document before any server is asked"),
                               example='{"$set": {"userId": 1}}'))
    if not isinstance(update, dict) or not update or any(
            op not in _MODEL_UPDATES or not isinstance(fields, dict)
            or any("." in str(f) or f == "_id" for f in fields) for op, fields in update.items()):
        raise NotSupported(Message(N_("the model performs {operators} on top-level fields "
                                      "only; a server performs every update"),
                                   operators=", ".join(_MODEL_UPDATES)))
    changed = 0
    for i in chosen:
        before = copy.deepcopy(docs[i])
        for op, fields in update.items():
            for field, value in fields.items():
                _apply(docs[i], op, str(field), value)
        changed += docs[i] != before
    return {"matchedCount": len(chosen), "modifiedCount": changed}


def _apply(doc: Document, op: str, field: str, value: Any) -> None:
    if op == "$set":
        doc[field] = copy.deepcopy(value)
    elif op == "$unset":
        doc.pop(field, None)
    else:
        if not _number(value):
            raise BadInput(Message(N_("MongoDB refuses $inc by a value that is not a number")))
        if not _number(doc.get(field, 0)):
            raise BadInput(Message(N_("MongoDB refuses $inc on a field that holds no number")))
        if not _plain_number(value) or not _plain_number(doc.get(field, 0)):
            raise NotSupported(Message(N_("the model performs $inc of a plain number on a "
                                          "plain number only")))
        doc[field] = doc.get(field, 0) + value


def _number(value: Any) -> bool:
    """A BSON number: int, long, double or Decimal128 (never a bool)."""
    return bson_order.bson_type(value) in bson_order.NUMBER_TYPES


def _plain_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class Written:
    """What a write did, and who did it."""

    def __init__(self, operation: str, collection: str, where: Where, said: Any,
                 refused: str) -> None:
        self.operation, self.collection, self.where = operation, collection, where
        self.said, self.refused = said, refused

    def __str__(self) -> str:
        if self.refused:
            return _("{operation} not done ({who}): {why}").format(
                who=self.where.label(), operation=self.operation, why=self.refused)
        return _("{operation} on {collection}, by {who}: {said}").format(
            operation=self.operation, collection=self.collection, who=self.where.label(),
            said=short_value(self.said))

    __repr__ = __str__

    @as_typed
    def _repr_html_(self) -> str:
        colour = _DIFFERS if self.refused else _BORDER
        return (f"<div style='border-left:4px solid {colour};"
                f"padding:.2em .8em'>{html.escape(str(self))}</div>")


def collection(name: str = "orders", documents: str | list[Document] | None = None, *,
               after: str | list[str] | tuple[str, ...] = ()) -> Collection:
    """Your own collection to query and change: ``labkit.collection("orders")`` holds a copy of
    the orders fixture; ``labkit.collection("mine", [{"_id": 1, "v": 5}])`` the documents you
    give; ``labkit.collection("mine", "orders")`` a fixture under another name; an unknown name
    with no documents starts empty. On the lesson's MongoDB where there is one (a fresh database
    of labkit's own each time), else on labkit's model; each answer says which. With ``after``
    (an exercise's name, or several), a notebook shows its answers once they have been tried,
    where they would give those answers away."""
    if documents is None:
        docs = fixtures.load(name) if name in fixtures.names() else []
    elif isinstance(documents, str):
        docs = fixtures.load(documents)
    elif isinstance(documents, list) and all(isinstance(d, dict) for d in documents):
        docs = documents
    else:
        raise BadInput(Message(N_("documents are a list of documents or a fixture's name, such "
                                  "as {example}"), example='"orders"'))
    held = (after,) if isinstance(after, str) else tuple(after)
    return Collection(name, docs, where_now(), held)
