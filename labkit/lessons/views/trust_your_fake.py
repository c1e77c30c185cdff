"""Lesson 07's names: the kit's claim files checked on the model, the fakes and a server, and
the views of that check (tally, verdicts, scorecard, where a fake raised)."""

from labkit.claims.files import KIT_CLAIMS
from labkit.lessons.checkviews import (
    engines,
    engines_note,
    model_agreement,
    raised,
    scorecard,
    tally,
    verdicts,
)
from labkit.outputs.plots import engine_kinds
from labkit.run.check import run_files

__all__ = ["KIT_CLAIMS", "engine_kinds", "engines", "engines_note", "model_agreement",
           "raised", "run_files", "scorecard", "tally", "verdicts"]
