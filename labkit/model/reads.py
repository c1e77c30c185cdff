"""What a read returns, by the model's rules: ``find``, whether a document matches, an
expression's value, a ``$type`` census and the ``_id``s; the front door to the model's filters
and expressions (``sort`` is :func:`labkit.model.bson_order.sort`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from labkit.model.bson_order import Document, bson_type
from labkit.model.expr import compile_expression, field_path
from labkit.model.match import compile_filter
from labkit.model.versions import check_rules_version


def matches(doc: Document, query: Document, mongodb_version: str | None = None) -> bool:
    """Whether ``find(query)`` returns ``doc``, by the documented rules."""
    return compile_filter(query, check_rules_version(mongodb_version))(doc)


def find(docs: Iterable[Document], query: Document,
         mongodb_version: str | None = None) -> list[Document]:
    """The documents ``find(query)`` returns, in their stored order."""
    test = compile_filter(query, check_rules_version(mongodb_version))
    return [doc for doc in docs if test(doc)]


def evaluate(expression: Any, doc: Document) -> Any:
    """The value of an aggregation expression (as ``$expr`` sees it) for one document."""
    return compile_expression(expression)(doc)


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
