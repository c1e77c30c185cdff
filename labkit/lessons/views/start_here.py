"""Lesson 00's names: the claim catalogue as a table, and a value's bytes as BSON stores them."""

from labkit.outputs.plots import bson_bytes
from labkit.outputs.tables import claims

__all__ = ["bson_bytes", "claims"]
