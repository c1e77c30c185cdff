"""Lesson 04's names: an ObjectId taken apart, a deterministic generator, the lower bound of a
second, and pictures of the fields and bytes."""

from labkit.experiments.objectid_anatomy import below_in_second
from labkit.model.objectid import Generator, explain
from labkit.outputs.plots import bit_layout, bson_bytes

__all__ = ["Generator", "below_in_second", "bit_layout", "bson_bytes", "explain"]
