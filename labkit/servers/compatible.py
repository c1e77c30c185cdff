"""Servers that speak MongoDB's wire protocol and are not MongoDB, told apart by what they
answer, so that a run names what it ran on ("FerretDB 1.24.2, reports MongoDB 7.0.42") and
never counts one as MongoDB.

FerretDB adds its own version to ``buildInfo`` (``ferretdbVersion``, beside the MongoDB version
it reports in ``version``: internal/handler/msg_buildinfo.go:32-59 at FerretDB/FerretDB's tag
v1.24.2, commit cda72d44, which reports 7.0.42; the same field since its early 1.x releases).
The other servers docs/compatible.md names document no such marker that labkit could check
here; each is said by what it refuses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# buildInfo's field that names a product, and the product's name.
MARKERS = {"ferretdbVersion": "FerretDB"}


@dataclass(frozen=True)
class Identity:
    """What a server is: ``product`` (empty for MongoDB itself), its own ``version``, and the
    MongoDB version it reports (``reports``; for MongoDB, its version)."""

    product: str
    version: str
    reports: str

    @property
    def is_mongodb(self) -> bool:
        """True where no product marker was found: the server is taken for MongoDB."""
        return not self.product


def identify(build_info: Mapping[str, object]) -> Identity:
    """The server that answered ``build_info`` (its ``buildInfo`` reply)."""
    reported = str(build_info.get("version") or "")
    for field, product in MARKERS.items():
        own = build_info.get(field)
        if own:
            return Identity(product, str(own), reported)
    return Identity("", reported, reported)
