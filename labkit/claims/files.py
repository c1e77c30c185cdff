"""Claim files: a user's claims about MongoDB, by hand in YAML or JSON, read into one model.

Two forms are read: the short form (a list of claims, each a fixture, one query and what it
should give; ``_short``) and the drivers' Unified Test Format (``_unified``). Values are Extended
JSON. Every mistake is one ``BadInput`` naming file, claim and line. This module finds and reads
the files; the model they are read into (``spec``), the versions a claim speaks for (``bounds``)
and how an answer is judged (``expect``) are named here too, as the claim check uses them.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable
from pathlib import Path

from labkit._paths import CHECKOUT, PACKAGE
from labkit.claims._short import read_short
from labkit.claims._source import extended_json, parse
from labkit.claims._unified import read_unified
from labkit.claims.bounds import Requirement, version_tuple
from labkit.claims.expect import unjudged_checks
from labkit.claims.spec import NEUTRAL_ARGUMENTS, READS, Answer, ClaimSpec, Expectation, Step
from labkit.errors import BadInput
from labkit.i18n import N_, Message

__all__ = ["KIT_CLAIMS", "NEUTRAL_ARGUMENTS", "READS", "SUFFIXES", "Answer", "ClaimSpec",
           "Expectation", "Requirement", "Step", "claim_files", "extended_json", "kit_claim",
           "kit_titles", "load", "read", "unjudged_checks", "version_tuple"]

SUFFIXES = (".yaml", ".yml", ".json")


def claim_files(paths: Iterable[str | Path]) -> list[Path]:
    """The claim files named, with every ``.yaml``, ``.yml`` or ``.json`` under a folder."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file())
            if not inside:
                raise BadInput(Message(N_("{path}: no claim files (.yaml, .yml, .json) in this "
                                          "folder"), path=str(path)))
            found += inside
        elif path.exists():  # a file, or a pipe or device that reading refuses or bounds
            if path.suffix not in SUFFIXES:
                raise BadInput(Message(N_("{path}: a claim file ends in .yaml, .yml or .json"),
                                       path=str(path)))
            found.append(path)
        else:
            raise BadInput(Message(N_("{path}: no such file or folder"), path=str(path)))
    return list(dict.fromkeys(found))


def _kit_claims_folder() -> Path:
    """``labkit/kit_claims`` in an installed wheel, else the checkout's top-level ``claims/``."""
    installed = PACKAGE / "kit_claims"
    return installed if installed.is_dir() else CHECKOUT / "claims"


# The kit's own query claims (D3, S1, S2, B1, B2, X1-X5): the experiments ask their questions.
KIT_CLAIMS = _kit_claims_folder()


def load(paths: Iterable[str | Path]) -> list[ClaimSpec]:
    """Read every claim in the given files and folders; IDs must be unique across them."""
    specs: list[ClaimSpec] = []
    seen: dict[str, ClaimSpec] = {}
    for path in claim_files(paths):
        for spec in read(path):
            if spec.id in seen:
                raise BadInput(Message(N_("{where}: claim {id}: the ID is already used at "
                                          "{first}"), where=spec.where, id=repr(spec.id),
                                       first=seen[spec.id].where))
            seen[spec.id] = spec
            specs.append(spec)
    return specs


def read(path: str | Path) -> list[ClaimSpec]:
    """Read one claim file: the short form (a list) or the Unified Test Format (an object)."""
    path = Path(path)
    data, node = parse(path)
    if isinstance(data, list):
        return read_short(path, data, node)
    if isinstance(data, dict) and "tests" in data:
        return read_unified(path, data, node)
    raise BadInput(Message(N_("{path}:{line:d}: a claim file is a list of claims, or a Unified "
                              "Test Format file (an object with schemaVersion and tests)"),
                           path=str(path), line=node.line))


def kit_claim(claim_id: str) -> ClaimSpec:
    """One of the kit's own claims by its ID (``B1.eq_42``), read from ``KIT_CLAIMS``."""
    specs = _kit_claims()
    if claim_id not in specs:
        raise KeyError(f"{claim_id} is not among the kit's claim files in {KIT_CLAIMS}")
    return copy.deepcopy(specs[claim_id])  # a copy: a caller may insert its fixture


def kit_titles() -> dict[str, str]:
    """The kit's claim files' titles, each with the file it is in (``claims/lesson01_dates.yaml``):
    labkit's catalogue translates them, since a lesson shows them."""
    return {spec.title: f"claims/{spec.path.name}" for spec in _kit_claims().values()}


@functools.cache
def _kit_claims() -> dict[str, ClaimSpec]:
    return {spec.id: spec for spec in load([KIT_CLAIMS])}
