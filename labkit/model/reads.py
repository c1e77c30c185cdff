"""What a read returns, by the model's rules: ``find``, whether a document matches, an
expression's value, a ``$type`` census and the ``_id``s; the front door to the model's filters
and expressions (``sort`` is :func:`labkit.model.bson_order.sort`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from labkit.model import regex
from labkit.model.bson_order import Document, bson_type
from labkit.model.collation import collation_strings
from labkit.model.expr import collating, compile_expression, field_path
from labkit.model.match import compile_filter
from labkit.model.versions import check_rules_version


def matches(doc: Document, query: Document, collation: dict[str, Any] | None = None,
            mongodb_version: str | None = None) -> bool:
    """Whether ``find(query)`` returns ``doc``, by the documented rules (strings compared by
    ``collation`` where one is given)."""
    return compile_filter(query, check_rules_version(mongodb_version), collation=collation)(doc)


def find(docs: Iterable[Document], query: Document, collation: dict[str, Any] | None = None,
         mongodb_version: str | None = None) -> list[Document]:
    """The documents ``find(query)`` returns, in their stored order. Under a ``collation``
    (``{"locale": "en", "strength": 2}``) the comparisons (``$eq``, ``$ne``, ``$gt``, ``$gte``,
    ``$lt``, ``$lte``, ``$in``, ``$nin``, ``$all``, ``$expr``'s) compare strings by ICU, as
    ``find(query).collation(...)`` does; ``$regex`` never uses it."""
    test = compile_filter(query, check_rules_version(mongodb_version), collation=collation)
    with regex.one_read():  # bounded: see regex.MAX_LIMIT_HITS
        return [doc for doc in docs if test(doc)]


def evaluate(expression: Any, doc: Document, collation: dict[str, Any] | None = None) -> Any:
    """The value of an aggregation expression (as ``$expr`` sees it) for one document, its
    string comparisons by ``collation`` where one is given."""
    with collating(collation_strings(collation)):
        compiled = compile_expression(expression)
    return compiled(doc)


def census(docs: Iterable[Document], path: str) -> dict[str, int]:
    """What ``$group`` by ``{$type: "$path"}`` counts: type alias -> documents."""
    counts: dict[str, int] = {}
    for doc in docs:
        kind = bson_type(field_path(doc, path))
        counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


def ids(docs: Iterable[Document]) -> list[Any]:
    """The ``_id`` of each document, in order."""
    return [doc.get("_id") for doc in docs]
