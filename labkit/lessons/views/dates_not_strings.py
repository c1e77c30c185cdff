"""Lesson 01's names: the events fixture's tables, a Date's bytes, Date against Timestamp, and
a Date shown in a time zone."""

from labkit.experiments._common import model_answers
from labkit.experiments.dates import (
    D3_QUESTIONS,
    date_and_timestamp,
    local_times,
    local_times_by_python,
)
from labkit.outputs.plots import bson_bytes
from labkit.outputs.tables import fixture, frame

__all__ = ["D3_QUESTIONS", "bson_bytes", "date_and_timestamp", "fixture", "frame",
           "local_times", "local_times_by_python", "model_answers"]
