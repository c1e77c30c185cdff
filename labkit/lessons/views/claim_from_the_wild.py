"""Lesson 08's names: a claim file checked on the model and a server, its verdicts, its report,
and the model's sort."""

from labkit.lessons.checkviews import engines, engines_note, verdicts
from labkit.model.bson_order import sort
from labkit.outputs.plots import engine_kinds
from labkit.outputs.report import write
from labkit.run.check import run_files

__all__ = ["engine_kinds", "engines", "engines_note", "run_files", "sort", "verdicts", "write"]
