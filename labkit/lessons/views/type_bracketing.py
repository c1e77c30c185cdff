"""Lesson 03's names: the orders fixture, the model's find and $type census, the brackets on
a number line, a claim's fixture card, and the repair and validator experiments."""

from labkit.experiments.bracketing import (
    census_by_writer,
    parse_user_id,
    repair,
    validator,
    validator_as_stated,
)
from labkit.lessons.cards import Fixture
from labkit.model.fixtures import load
from labkit.model.reads import census, find, ids
from labkit.outputs.plots import type_brackets
from labkit.outputs.tables import fixture, frame

__all__ = ["Fixture", "census", "census_by_writer", "find", "fixture", "frame", "ids", "load",
           "parse_user_id", "repair", "type_brackets", "validator", "validator_as_stated"]
