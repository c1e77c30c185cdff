"""Which MongoDB versions' comparison rules the model knows, and which it follows by default."""

from __future__ import annotations

from labkit.errors import BadInput
from labkit.i18n import N_, Message

CURRENT_MAJOR = "8.0"  # MongoDB's current major release: the model's rules unless told otherwise
# The rule sets the model carries. 6.0 and 7.0: {a: null} also matches the deprecated BSON
# undefined (8.0 stopped that); 9.0: null through arrays changed. 6.0 matches $regex with PCRE,
# the model with PCRE2 (docs/model.md says what can differ).
VERSIONS = ("6.0", "7.0", "8.0", "9.0")
_NULL_MATCHES_UNDEFINED = frozenset({"6.0", "7.0"})


def check_rules_version(version: str | None) -> str:
    """The rule set to follow: ``version`` (or the current major) if the model knows its rules;
    BadInput otherwise."""
    version = version or CURRENT_MAJOR
    if version not in VERSIONS:
        raise BadInput(Message(N_("the model knows MongoDB {known}, not {version}"),
                                       known=", ".join(VERSIONS), version=repr(version)))
    return version


def null_matches_undefined(version: str) -> bool:
    """Whether an equality with null (``$eq``, ``$lte``, ``$gte``, ``$in``) also matches BSON
    undefined: before 8.0 (``expression_leaf.cpp``), not since."""
    return version in _NULL_MATCHES_UNDEFINED
