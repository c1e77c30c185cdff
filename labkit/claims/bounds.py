"""The server versions a claim speaks for: ``min_server_version``/``max_server_version`` of the
short form and the Unified Test Format's ``runOnRequirements``, compared as the format does."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from labkit.i18n import N_, Message


@dataclass(frozen=True)
class Requirement:
    """One ``runOnRequirement``: a server version range, plus anything the check cannot test.

    ``given_parts_only`` is the short form's rule: a version compares in the parts written, so
    ``max_server_version: "7.0"`` admits every 7.0.x. The Unified Test Format pads instead
    (``version_tuple``): its ``maxServerVersion: "7.0"`` is 7.0.0, and its files write
    ``"4.4.99"`` where they mean every 4.4.
    """

    min_version: str | None = None
    max_version: str | None = None
    topologies: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    given_parts_only: bool = False

    def admits(self, version: str) -> bool:
        """Whether a server of ``version`` lies in the range (both ends included)."""
        have = version_tuple(version)
        if self.min_version and self._cut(have, self.min_version) < version_tuple(
                self.min_version):
            return False
        return not self.max_version or self._cut(have, self.max_version) <= version_tuple(
            self.max_version)

    def _cut(self, have: tuple[int, ...], bound: str) -> tuple[int, ...]:
        """The server's version as far as ``bound`` is written (short form), padded with
        zeros like the bound; the whole version otherwise."""
        if not self.given_parts_only:
            return have
        given = len(_parts(bound))
        return have[:given] + (0,) * (len(have) - given)

    def text(self) -> Message:
        """``MongoDB 4.4 to 7.0``, ``MongoDB 7.0 or newer``, ``any MongoDB``."""
        low, high = self.min_version, self.max_version
        if low and high:
            return Message(N_("MongoDB {low} to {high}"), low=low, high=high)
        if low:
            return Message(N_("MongoDB {low} or newer"), low=low)
        if high:
            return Message(N_("MongoDB {high} or older"), high=high)
        return Message(N_("any MongoDB"))


def is_version(value: Any) -> bool:
    """Whether a file's value reads as a version: ``7``, ``7.0`` or ``"4.4.14"``."""
    return isinstance(value, str | int | float) and not isinstance(value, bool) and bool(
        re.fullmatch(r"\d+(\.\d+){0,2}", str(value)))


def version_text(value: Any) -> str | None:
    """A version as written in a file, as text (None stays None)."""
    return None if value is None else str(value)


def version_tuple(text: str) -> tuple[int, ...]:
    """``"4.4.14"`` -> ``(4, 4, 14)``; missing parts are 0, as the format compares them
    (unified-test-format.md, "Version String": "<patch> is assumed to be zero")."""
    parts = _parts(text)
    return tuple(parts + [0] * (3 - len(parts)))


def _parts(text: str) -> list[int]:
    """The numeric parts written, at most three (``"7.0.14-rc1"`` -> ``[7, 0, 14]``)."""
    return [int(p) for p in str(text).split("-")[0].split(".")[:3] if p.isdigit()]
