"""What a run found: each engine's row, each claim's verdict, the run counted once.

The terminal table, the report and ``results.json`` all read these objects; ``Run.to_dict``
is built once per run, for ``results.json`` (``docs/results.schema.json`` describes it).
"""

from __future__ import annotations

import datetime as dt
import functools
import platform
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from labkit._version import __version__
from labkit.claims.claim import (
    COUNT_TEXT,
    ERROR,
    FAILS,
    FINDING,
    HOLDS,
    NOT_RUN,
    RESULT_ONLY,
    SOURCES,
    VERDICT_TEXT,
    VERDICTS,
    Claim,
    Observation,
    Verdict,
    claim_verdict,
    count_text,
    jsonable,
    predicted_text,
    short_json,
    verdict_text,
)
from labkit.experiments.catalogue import lesson_of
from labkit.i18n import N_, Text, _, english, plural, shown
from labkit.names import FAKES, EngineInfo, aspect, engine_name, where

if TYPE_CHECKING:
    from labkit.model.explain import Explained

# The version of results.json's layout, its first field; bumped when a field changes meaning.
SCHEMA = "labkit-results/2"


@dataclass
class Result:
    """One engine's verdict on a claim: the observation behind it and why, where it matters."""

    claim: Claim
    verdict: Verdict
    observation: Observation | None = None
    reason: Text = ""  # English where results.json keeps it; ``shown_reason`` is the learner's
    seconds: float = 0.0
    # Where the answer differs from the expectation (labkit check's reads of a fixture): the
    # model's explanation of the documents in question, read by read.
    explained: tuple[Explained, ...] = ()

    @property
    def engine(self) -> Text | None:
        """The row's engine label, the engine that produced the observation and the part of
        it the row is about (``SQLite · size``); None when no engine was reached. English where
        files keep it, shown translated (``where``)."""
        obs = self.observation
        return aspect(obs.engine, obs.aspect) if obs is not None and obs.engine else None

    @property
    def engine_version(self) -> str | None:
        """The exact version of that engine."""
        return self.observation.engine_version if self.observation else None

    @property
    def engine_key(self) -> str | None:
        """That engine's key (``sqlite``, ``mongodb``), as the observation recorded it; None when
        no engine was reached or the engine is a library observed directly."""
        return (self.observation.engine_key or None) if self.engine and self.observation \
            else None

    @property
    def engine_name(self) -> str | None:
        """That engine's display name, without the part the row is about ("SQLite" for
        "SQLite · size"): the name of its key, else the engine as recorded."""
        obs = self.observation
        if obs is None or not obs.engine:
            return None
        return engine_name(obs.engine_key) if obs.engine_key else english(obs.engine)

    @property
    def where(self) -> str:
        """The engine, its version and the row's part as the tables show them (``-`` when none
        was reached)."""
        obs = self.observation
        if obs is None or not obs.engine:
            return "-"
        return where(obs.engine, obs.engine_version, obs.aspect)

    @property
    def predicted(self) -> bool:
        """True when labkit's model gave the row: a prediction of what an engine would do, never
        an observation, so it never decides what its claim was seen to do (``ClaimResult``)."""
        return self.engine_key == "model"

    @property
    def shows_observation(self) -> bool:
        """True when there is an observation to compare with the expectation."""
        return self.verdict in (HOLDS, FAILS, FINDING)

    @property
    def verdict_words(self) -> str:
        """The verdict in the English words every output shows (``_()`` gives them in the
        learner's language): ``holds (result only)`` where the claim also expects what the row
        does not judge, else the verdict's own words."""
        if self.verdict == HOLDS and self.claim.results_only:
            return RESULT_ONLY
        return VERDICT_TEXT[self.verdict]

    @property
    def shown_verdict(self) -> str:
        """The verdict words in the learner's language, as a prediction where the model gave
        the row (``predicts: holds``)."""
        words = _(self.verdict_words)
        return predicted_text(words) if self.predicted else words

    def against(self, where: str) -> str:
        """``{where} does not hold: expected …, observed …`` (``predicted`` on labkit's
        model's rows), and the row's reason, in the learner's language: how every output's
        list of reasons says a row that did not hold or made a finding."""
        said = (N_("{where} {verdict}: expected {expected}, predicted {observed}")
                if self.predicted
                else N_("{where} {verdict}: expected {expected}, observed {observed}"))
        return (_(said).format(where=where, verdict=self.shown_verdict,
                               expected=short_json(self.claim.expected),
                               observed=short_json(self.observed))
                + (f" ({self.shown_reason})" if self.reason else ""))

    @property
    def observed(self) -> Any:
        """What the engine observed, as plain JSON values; None without an observation."""
        obs = self.observation
        return jsonable(obs.observed) if obs is not None and self.shows_observation else None

    @property
    def evidence(self) -> list[dict[str, Any]]:
        """The observation's evidence rows, as plain JSON values."""
        return jsonable(self.observation.evidence) if self.observation else []

    @property
    def missing(self) -> str:
        """The server kind whose absence kept this row from running (``""`` if none)."""
        return self.observation.missing if self.observation else ""

    @property
    def missing_detail(self) -> Text:
        """What failed when that server was sought, without the hint."""
        return self.observation.missing_detail if self.observation else ""

    @property
    def hint(self) -> Text:
        """What to do about the missing server (``Hint: …``)."""
        return self.observation.hint if self.observation else ""

    @property
    def shown_reason(self) -> str:
        """``reason`` in the learner's language: a ``Message`` (a note, a judge's words joined
        to it) translated, a plain text (a server's words) as is."""
        return shown(self.reason)

    def to_dict(self) -> dict[str, Any]:
        """The row as ``results.json`` stores it, under its claim."""
        return {
            "verdict": self.verdict,
            "verdict_words": self.verdict_words,
            "engine": english(self.engine) if self.engine else self.engine,
            "engine_version": self.engine_version,
            "engine_key": self.engine_key,
            "engine_name": self.engine_name,
            "predicted": self.predicted,
            "observed": self.observed,
            "reason": english(self.reason),
            "missing": self.missing,
            "missing_detail": english(self.missing_detail),
            "hint": english(self.hint),
            "evidence": self.evidence,
            "seconds": round(self.seconds, 3),
        }

    def __str__(self) -> str:
        return self.text()

    def text(self, reason: str | None = None) -> str:
        """The row as the terminal shows it: verdict, engine, claim, expected and observed,
        and why (``reason`` in place of its own, such as "the same reason as above")."""
        where = " " + _("on {engine}").format(engine=self.where) if self.engine else ""
        line = f"{self.claim.id} {verdict_text(self.verdict)}{where}: {self.claim.shown_title}"
        if self.shows_observation and self.observation is not None:
            seen = _("predicted:") if self.predicted else _("observed:")
            line += (f"\n  {_('expected:')} {short_json(self.claim.expected)}"
                     f"\n  {seen} {short_json(self.observation.observed)}")
        if self.reason:
            line += f"\n  {self.shown_reason if reason is None else reason}"
        return line


@dataclass
class ClaimResult:
    """A claim's verdict, summed up from its rows (one per engine it was judged on)."""

    claim: Claim
    rows: list[Result] = field(default_factory=list)

    @property
    def verdict(self) -> Verdict:
        """What the engines were seen to do: error, does not hold, finding, holds, or not run,
        the worst row decides; the model's rows never count (a claim only the model judged has
        not run)."""
        return claim_verdict([row.verdict for row in self.rows if not row.predicted])

    @property
    def prediction(self) -> Verdict | None:
        """What labkit's model predicts, the worst of its rows; None where it did not judge."""
        predicted = [row.verdict for row in self.rows if row.predicted]
        return claim_verdict(predicted) if predicted else None

    @property
    def single(self) -> bool:
        """True when the claim was judged on one engine (its row is shown on its line)."""
        return len(self.rows) == 1

    @property
    def lesson(self) -> str:
        """The notebook that teaches the claim (``""`` for a claim file's)."""
        return lesson_of(self.claim)

    @property
    def source(self) -> str:
        """Where the claim comes from, in words."""
        return SOURCES.get(self.claim.source, self.claim.source)

    @property
    def expected(self) -> Any:
        """What the claim expects, as plain JSON values."""
        return jsonable(self.claim.expected)

    def to_dict(self) -> dict[str, Any]:
        """The claim and its rows as ``results.json`` stores them."""
        return {
            "id": self.claim.id,
            "title": self.claim.title,
            "topic": self.claim.topic,
            "kind": self.claim.kind,
            "source": self.source,
            "experiment": self.claim.experiment_name,
            "lesson": self.lesson,
            "verdict": self.verdict,
            "prediction": self.prediction,
            "expected": self.expected,
            "results": [row.to_dict() for row in self.rows],
        }


@dataclass
class Run:
    """The results of one ``labkit run`` (or ``labkit check``), with when and where it ran:
    ``engines`` are the servers a run used (a check's matrix columns), each as its source
    recorded it."""

    claims: list[ClaimResult]
    started: dt.datetime
    finished: dt.datetime
    engines: list[EngineInfo]

    @property
    def rows(self) -> list[Result]:
        """Every engine's verdict, claim after claim."""
        return [row for result in self.claims for row in result.rows]

    @functools.cached_property
    def counts(self) -> dict[Verdict, int]:
        """How many claims got each verdict (claims, not rows), counted once per run."""
        counts = dict.fromkeys(VERDICTS, 0)
        for result in self.claims:
            counts[result.verdict] += 1
        return counts

    @functools.cached_property
    def predictions(self) -> dict[Verdict, int]:
        """How many claims labkit's model predicts each verdict for (``not run`` left out), by
        claim; empty where the model judged none."""
        counts: dict[Verdict, int] = {}
        for result in self.claims:
            if result.prediction is not None and result.prediction != NOT_RUN:
                counts[result.prediction] = counts.get(result.prediction, 0) + 1
        return {v: counts.get(v, 0) for v in VERDICTS if v != NOT_RUN} if counts else {}

    @functools.cached_property
    def on_fakes_alone(self) -> tuple[int, list[str]]:
        """How many claims only in-process fakes were seen to judge (their verdicts count, as
        those fakes' answers, never MongoDB's), and the fakes' names."""
        claims, names = 0, []
        for result in self.claims:
            ran = [row for row in result.rows if not row.predicted and row.verdict != NOT_RUN]
            if ran and all(row.engine_key in FAKES for row in ran):
                claims += 1
                names += [engine_name(row.engine_key or "") for row in ran]
        return claims, list(dict.fromkeys(names))

    def summary(self, english: bool = False) -> str:
        """``31 claims: 14 hold, 0 do not hold, 3 findings, 13 not run, 0 error``, what the
        engines were seen to do, how many of those claims only in-process fakes judged
        (``, 5 of them on in-process fakes alone (mongomock)``), then what labkit's model
        predicts where it judged any (``; labkit's model predicts: 2 hold, …``), in the
        learner's words (``english``: as ``results.json`` keeps it)."""
        faked, fakes = self.on_fakes_alone
        if english:
            parts = ", ".join(f"{self.counts[v]} {COUNT_TEXT[v]}" for v in VERDICTS)
            line = f"{len(self.claims)} {'claim' if len(self.claims) == 1 else 'claims'}: {parts}"
            if faked:
                line += f", {faked} of them on in-process fakes alone ({', '.join(fakes)})"
            if self.predictions:
                line += "; labkit's model predicts: " + ", ".join(
                    f"{n} {COUNT_TEXT[v]}" for v, n in self.predictions.items())
            return line
        parts = ", ".join(f"{self.counts[v]} {count_text(v)}" for v in VERDICTS)
        line = plural(len(self.claims), N_("{n} claim: {counts}"), N_("{n} claims: {counts}"),
                      counts=parts)
        if faked:
            line += _(", {n} of them on in-process fakes alone ({fakes})").format(
                n=faked, fakes=", ".join(fakes))
        if self.predictions:
            line += _("; labkit's model predicts: {counts}").format(
                counts=", ".join(f"{n} {count_text(v)}" for v, n in self.predictions.items()))
        return line

    def exit_status(self, strict: bool = False) -> int:
        """0 when every behaviour claim that ran holds, none the model judged is predicted not
        to hold, and nothing erred; findings never count.

        ``strict`` also fails when a claim was not seen to run on an engine (the model's
        prediction alone is not a run).
        """
        counts, predicted = self.counts, self.predictions
        bad = (counts[FAILS] + counts[ERROR] + (counts[NOT_RUN] if strict else 0)
               + predicted.get(FAILS, 0) + predicted.get(ERROR, 0))
        return 1 if bad else 0

    def about(self) -> dict[str, str]:
        """When the run started and finished, and the labkit and Python it ran on."""
        return {"labkit_version": __version__, "python": platform.python_version(),
                "started": self.started.isoformat(timespec="seconds"),
                "finished": self.finished.isoformat(timespec="seconds")}

    def to_dict(self) -> dict[str, Any]:
        """The whole run as ``results.json`` stores it (built once; the same dict after)."""
        return self._as_dict

    @functools.cached_property
    def _as_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            **self.about(),
            "engines": [engine.line() for engine in self.engines],
            "engine_details": [engine.to_dict() for engine in self.engines],
            "summary": self.summary(english=True),
            "counts": {COUNT_TEXT[v]: n for v, n in self.counts.items()},
            "predictions": {COUNT_TEXT[v]: n for v, n in self.predictions.items()},
            "claims": [result.to_dict() for result in self.claims],
        }
