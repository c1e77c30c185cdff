"""Lesson 02's names: the type ladder (as a list and as pictures), the mixed fixture, the
model's sort, a claim's fixture card and a collation's sort."""

from labkit.experiments.sort_order import collation_sort
from labkit.lessons.cards import Fixture
from labkit.model.bson_order import ladder, sort
from labkit.model.fixtures import load
from labkit.outputs.plots import ladder as ladder_plot
from labkit.outputs.plots import type_ladder
from labkit.outputs.tables import fixture

__all__ = ["Fixture", "collation_sort", "fixture", "ladder", "ladder_plot", "load", "sort",
           "type_ladder"]
