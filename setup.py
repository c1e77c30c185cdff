"""The package list, found: every package and data folder under ``labkit/`` (so a new room is
never forgotten), plus the folders that pyproject.toml maps into the package (``data/`` as
``labkit.data``). Everything else about the build is in pyproject.toml."""

import tomllib
from pathlib import Path

from setuptools import find_namespace_packages, setup

HERE = Path(__file__).resolve().parent
MAPPED = tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "setuptools"]["package-dir"]

setup(packages=sorted({*find_namespace_packages(where=str(HERE), include=["labkit", "labkit.*"],
                                                exclude=["*.__pycache__"]),
                       *MAPPED}))
