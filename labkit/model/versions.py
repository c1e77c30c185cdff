"""Which MongoDB versions' comparison rules the model knows, and which it follows by default."""

from __future__ import annotations

from labkit.errors import BadInput

CURRENT_MAJOR = "8.0"  # MongoDB's current major release: the model's rules unless told otherwise
VERSIONS = ("8.0", "9.0")  # the rule sets the model carries (9.0 changed null through arrays)


def check_rules_version(version: str | None) -> str:
    """The rule set to follow: ``version`` (or the current major) if the model knows its rules;
    BadInput otherwise."""
    version = version or CURRENT_MAJOR
    if version not in VERSIONS:
        raise BadInput(f"the model knows MongoDB {' and '.join(VERSIONS)}, not {version!r}")
    return version
