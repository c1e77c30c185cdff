"""The server versions a claim speaks for: ``min_server_version``/``max_server_version`` of the
short form and the Unified Test Format's ``runOnRequirements``, compared as the format does."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Requirement:
    """One ``runOnRequirement``: a server version range, plus anything the check cannot test."""

    min_version: str | None = None
    max_version: str | None = None
    topologies: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()

    def text(self) -> str:
        """``MongoDB 4.4 to 7.0``, ``MongoDB 7.0 or newer``, ``any MongoDB``."""
        low, high = self.min_version, self.max_version
        if low and high:
            return f"MongoDB {low} to {high}"
        if low:
            return f"MongoDB {low} or newer"
        if high:
            return f"MongoDB {high} or older"
        return "any MongoDB"


def is_version(value: Any) -> bool:
    """Whether a file's value reads as a version: ``7``, ``7.0`` or ``"4.4.14"``."""
    return isinstance(value, str | int | float) and not isinstance(value, bool) and bool(
        re.fullmatch(r"\d+(\.\d+){0,2}", str(value)))


def version_text(value: Any) -> str | None:
    """A version as written in a file, as text (None stays None)."""
    return None if value is None else str(value)


def version_tuple(text: str) -> tuple[int, ...]:
    """``"4.4.14"`` -> ``(4, 4, 14)``; missing parts are 0, as the format compares them."""
    parts = [int(p) for p in str(text).split("-")[0].split(".")[:3] if p.isdigit()]
    return tuple(parts + [0] * (3 - len(parts)))
