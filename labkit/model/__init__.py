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

from labkit.model.bson_order import MISSING, UNDEFINED, bson_type, compare, sort
from labkit.model.reads import evaluate, find, matches
from labkit.model.versions import CURRENT_MAJOR, VERSIONS

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
