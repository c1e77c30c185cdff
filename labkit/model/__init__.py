"""MongoDB's comparison rules as a library: what ``find`` returns, the order ``sort`` gives,
how two values compare, for a MongoDB version the model knows (``VERSIONS``; the current major
by default). Usable without notebooks or servers; imports nothing of labkit but ``errors`` (and
``_paths``, where the fixtures' data folder is). ``docs/model.md`` lists the rules covered and
every known difference from a server.

The rooms behind it: BSON order (``bson_order``), filters (``match``), ``$expr`` (``expr``),
regular expressions by PCRE2 (``regex``), conversions (``convert``), what a read returns
(``reads``), the rule sets per version (``versions``), ObjectId and UUID anatomy, B-tree key
streams, fixtures.
"""

from typing import Any

from labkit.model import bson_order
from labkit.model.bson_order import MISSING, UNDEFINED, bson_type, sort
from labkit.model.reads import evaluate, find, matches
from labkit.model.versions import CURRENT_MAJOR, VERSIONS, check_rules_version

__all__ = [
    "CURRENT_MAJOR",
    "MISSING",
    "UNDEFINED",
    "VERSIONS",
    "bson_type",
    "compare",
    "evaluate",
    "find",
    "matches",
    "sort",
]


def compare(a: Any, b: Any, mongodb_version: str | None = None,
            collation: dict[str, Any] | None = None) -> int:
    """-1, 0 or 1: how ``a`` compares with ``b`` in MongoDB's order of BSON values (the same
    in every version the model knows; an unknown version is BadInput), strings by the
    collation where one is given (ICU; CannotJudge where ICU cannot load)."""
    check_rules_version(mongodb_version)
    return bson_order.compare(a, b, collation)
