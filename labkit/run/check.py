"""``labkit check``: claim files judged on every engine and MongoDB version, as a matrix.

Each claim gets one row per engine (and per MongoDB version), in the same results
(``run.results``) that ``labkit run`` reports, so ``report.write`` gives the same HTML, Markdown
and JSON; ``outputs.matrix`` and ``outputs.junit`` draw the matrix and JUnit XML for CI, and
``CheckRun`` gives pandas frames for notebooks. A user's claims are behaviour claims: where one
does not hold on an engine, that is a failure.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labkit import servers
from labkit.claims import files as claimfiles
from labkit.claims.claim import (
    BEHAVIOUR,
    ERROR,
    FAILS,
    HOLDS,
    NOT_RUN,
    RESULT_ONLY,
    Claim,
    Observation,
    Verdict,
    needs,
    short_json,
)
from labkit.claims.expect import Judgement, judge_step
from labkit.claims.files import ClaimSpec
from labkit.claims.spec import Answer, Expectation, Step
from labkit.claims.steps import Plan, plan
from labkit.engines import fakes
from labkit.engines.query import ENGINES, Engine, ModelEngine, MongoDBEngine
from labkit.errors import BadInput, NotSupported, ServerUnavailable, said
from labkit.i18n import N_, Message, Text, _, joined, shown
from labkit.model import explain
from labkit.model.versions import check_rules_version
from labkit.names import EngineInfo, engine_name
from labkit.run.guard import guarded, judge
from labkit.run.results import ClaimResult, Result, Run
from labkit.servers import check_pinned_version

if TYPE_CHECKING:
    import pandas as pd

    from labkit.model import explain
    from labkit.servers.mongo import MongoServer

DEFAULT_ENGINES = ("model",)


@dataclass(frozen=True)
class FileClaim(Claim):
    """A claim read from a claim file: the registry's ``Claim``, placed at its file and line."""

    spec: ClaimSpec | None = None

    @property
    def experiment_name(self) -> str:
        """Where the claim is written: ``claims/lesson01_dates.yaml:12``."""
        return self.spec.where if self.spec else super().experiment_name

    @property
    def results_only(self) -> bool:
        """True when the file's test also expects what a claim check does not judge (its
        expectEvents): a verdict judges its steps' results only."""
        return bool(self.spec and self.spec.result_only)


def as_claim(spec: ClaimSpec) -> FileClaim:
    """The claim of a claim file, as the runner and the report know claims."""

    def on_the_model(ctx: object = None) -> Observation:
        return observe(spec, ModelEngine())[0]

    return FileClaim(id=spec.id, title=spec.title, source=spec.source, topic=spec.path.stem,
                     expected=spec.expected, experiment=on_the_model, kind=BEHAVIOUR,
                     spec=spec)


# Parsing the command line's lists --------------------------------------------------------


def parse_engines(text: str | Iterable[str] | None) -> list[str]:
    """``"model,mongodb,mongomock"`` -> the engine names, checked; BadInput on an unknown one."""
    if text is None:
        return list(DEFAULT_ENGINES)
    names = [n.strip() for n in (text.split(",") if isinstance(text, str) else text)]
    if not names or not all(names):
        raise BadInput(Message(N_("{option} needs at least one name, with none empty"),
                               option="--engines"))
    unknown = [n for n in names if n not in ENGINES]
    if unknown:
        raise BadInput(Message(N_("unknown engine {engine}; choose from {known}"),
                               engine=repr(unknown[0]), known=", ".join(ENGINES)))
    return list(dict.fromkeys(names))


def parse_versions(text: str | None) -> list[str] | None:
    """``"6.0,7.0,8.0"`` -> the versions, each pinned (``latest`` is refused); None: any."""
    if text is None:
        return None
    versions = [v.strip() for v in text.split(",")]
    if not all(versions):
        raise BadInput(Message(N_("--mongodb-version needs versions such as 6.0,7.0,8.0, with "
                                  "none empty")))
    return [checked for v in dict.fromkeys(versions) if (checked := check_pinned_version(v))]


def parse_model_versions(text: str | None) -> list[str] | None:
    """``"6.0,9.0"`` -> the model's rule sets to follow, one column each, checked (BadInput on
    one the model does not carry); None: the current major's."""
    if text is None:
        return None
    versions = [v.strip() for v in text.split(",")]
    if not all(versions):
        raise BadInput(Message(N_("{option} needs versions such as 6.0,7.0,8.0, with none "
                                  "empty"), option="--model-version"))
    return [check_rules_version(v) for v in dict.fromkeys(versions)]


# Judging one claim on one engine ---------------------------------------------------------


def _unmet(spec: ClaimSpec, engine: Engine) -> Text:
    """Why the claim's runOnRequirements exclude this engine, or ``""``."""
    for group in spec.requirements:
        reasons: list[Text] = []
        for req in group:
            if req.unknown:
                reasons.append(Message(N_("it requires {needs}, which a claim check cannot "
                                          "establish"), needs=", ".join(req.unknown)))
                continue
            if req.topologies and engine.topology not in req.topologies:
                reasons.append(Message(N_("it runs on {topologies}, not {topology}"),
                                       topologies=", ".join(req.topologies),
                                       topology=engine.topology))
                continue
            if req.min_version or req.max_version:
                if engine.speaks_for is None:
                    reasons.append(Message(N_("it speaks for {versions}; {engine} claims no "
                                              "server version"), versions=req.text(),
                                           engine=engine.name))
                    continue
                if not req.admits(engine.speaks_for):
                    reasons.append(_speaks_for_text(engine, req.text()))
                    continue
            reasons = []
            break
        if reasons:
            return reasons[0]
    return ""


def _speaks_for_text(engine: Engine, versions: Text) -> Message:
    """Why an engine that speaks for a version falls outside the claim's ``versions``."""
    if engine.key == "mongodb":
        return Message(N_("it speaks for {versions}; this server is {version}"),
                       versions=versions, version=engine.speaks_for)
    if engine.key == "model":
        return Message(N_("it speaks for {versions}; the model follows MongoDB {version}"),
                       versions=versions, version=engine.speaks_for)
    return Message(N_("it speaks for {versions}; {engine} reports MongoDB {version}"),
                   versions=versions, engine=engine_name(engine.key), version=engine.speaks_for)


# What the model judges of an expected error: that there is one, and that the server sent it.
_MODEL_ERROR_CHECKS = {"isError", "isClientError"}


def _model_cannot_judge(steps: list[Step]) -> Message | None:
    """Why the model cannot judge a claim's expected errors, or None where it can: it predicts
    whether the server refuses a read (its own refusal, the server's rule), not the error's
    code or message, and no write's errors."""
    for step in steps:
        if step.expect is None or step.expect.kind != "error":
            continue
        if step.writes:
            return Message(N_("the model predicts results, not server errors"))
        checks = step.expect.value if isinstance(step.expect.value, dict) else {}
        if set(checks) - _MODEL_ERROR_CHECKS:
            return Message(N_("the model predicts whether the server refuses a read, not its "
                              "error code or message"))
    return None


def observe(spec: ClaimSpec, engine: Engine,
            answered: list[tuple[Step, Answer]] | None = None) -> tuple[Observation, Verdict]:
    """Run a claim's steps on one engine, those it performs (``steps.plan``), and judge them:
    ``(observation, verdict)``. A write that raised where nothing was expected of it makes
    the claim not hold, as the Unified Test Format fails a test on an unexpected error.
    ``answered``, if given, receives each step run and its answer."""
    def not_run(reason: Text) -> tuple[Observation, Verdict]:
        return Observation(None, engine.name, engine.version, not_run=reason,
                           engine_key=engine.key), NOT_RUN

    if spec.skip_reason:
        return not_run(Message(N_("the test is marked skip: {why}"), why=spec.skip_reason))
    if spec.unjudged:  # the file's own cause, the same on every engine
        return not_run(Message(N_("nothing to judge: {why}"), why=spec.unjudged))
    unmet = _unmet(spec, engine)
    if unmet:
        return not_run(Message("runOnRequirements: {reason}", reason=unmet))
    share = plan(spec, engine.performs,
                 Message(N_("the model")) if engine.key == "model" else engine_name(engine.key))
    steps = share.judged
    expects = [s.expect for s in steps if s.expect is not None]  # the same steps', in order
    if not steps:
        return not_run(share.reason)
    unjudged = _model_cannot_judge(steps) if engine.key == "model" else None
    if unjudged is not None:
        return not_run(unjudged)
    try:
        performed = engine.answer(spec, share.run)
        if answered is not None:
            answered.extend(zip(share.run, performed, strict=True))
        answers = [a for step, a in zip(share.run, performed, strict=True)
                   if step.expect is not None]
        judged = [judge_step(expect, answer) for expect, answer in zip(expects, answers,
                                                                       strict=True)]
    except NotSupported as exc:  # its message, kept to be shown in the learner's language
        return not_run(said(exc))
    doubts = [j.undecided for j in judged if j.undecided]
    if doubts:  # the model's answer, where the order among ties decides the claim
        return not_run(doubts[0])
    holds, observed, notes = _judged_steps(share, performed, judged, expects)
    evidence = [*spec.field_types(),
                *({"read": step.operation, "asked": step.arguments,
                   "answer": answer.raised or answer.result}
                  for step, answer in zip(steps, answers, strict=True))]
    observation = Observation(observed[0] if len(observed) == 1 else observed, engine.name,
                              engine.version, evidence, note=joined("; ", notes),
                              engine_key=engine.key)
    return observation, HOLDS if holds else FAILS


def _judged_steps(share: Plan, performed: list[Answer], judged: list[Judgement],
             expects: list[Expectation]) -> tuple[bool, list[Any], list[Text]]:
    """Whether a claim holds on its steps' answers, what each read observed, and the notes
    that say why not or what was not judged."""
    holds = True
    notes: list[Text] = []
    # A write or a command with nothing expected of it fails the claim where it raised.
    for step, answer in zip(share.run, performed, strict=True):
        if step.expect is None and answer.raised:
            holds = False
            notes.append(Message(N_("{operation} at line {line:d} raised {error}"),
                                 operation=step.operation, line=step.line, error=answer.raised))
    # Each read against its expectation: one that does not hold fails the claim.
    observed: list[Any] = []
    for number, judgement in enumerate(judged, start=1):
        holds = holds and judgement.holds
        observed.append(judgement.observed)
        if judgement.note:
            notes.append(judgement.note if len(judged) == 1 else
                         Message(N_("read {n:d}: {note}"), n=number, note=judgement.note))
    for step, why in share.unjudged:
        notes.append(Message(N_("not judged: {operation} at line {line:d}, {why}"),
                             operation=step.operation, line=step.line, why=why))
    for expect in expects:
        checks = claimfiles.unjudged_checks(expect)
        if checks:
            notes.append(Message(N_("not checked: expectError {checks}"),
                                 checks=", ".join(checks)))
    return holds, observed, notes


def judged(spec: ClaimSpec, engine: Engine) -> tuple[Observation, Verdict]:
    """``observe`` inside the run's guard, as every cell of the matrix is judged: an exception
    that is no answer of the engine (a fake's own ``TypeError``) is that engine's ``error``."""
    observation, verdict, _answered = _judged(spec, engine)
    return observation, verdict


def _judged(spec: ClaimSpec, engine: Engine
            ) -> tuple[Observation, Verdict, list[tuple[Step, Answer]]]:
    """``judged``, with each step the engine ran and its answer (none where it erred)."""
    answered: list[tuple[Step, Answer]] = []
    outcome = guarded(engine.name, lambda: observe(spec, engine, answered),
                      version=engine.version, key=engine.key)
    if isinstance(outcome, Observation):
        return outcome, ERROR, []
    return (*outcome, answered)


# The model's explanation where an answer differs from the expectation ---------------------

def explain_differences(spec: ClaimSpec, answered: list[tuple[Step, Answer]],
                        rules: str | None = None) -> tuple[explain.Explained, ...]:
    """For each ``find`` whose answer's documents differ from the expected ones (``ids`` or
    ``documents`` with their ``_id``), the model's explanation (``model.explain``, by MongoDB
    ``rules``' rule set, the current major's if None) of each fixture document expected and
    not returned, returned and not expected, or, where the order is expected, out of order.
    Reads after a write, or with ``skip`` or ``limit``, are left out: the fixture alone no
    longer says which documents they could return."""
    out = []
    for step, answer in answered:
        if step.writes:
            break
        expected = _expected_ids(step)
        result = answer.result
        if (step.operation != "find" or expected is None or answer.raised
                or not isinstance(result, list) or not all(isinstance(d, dict) and "_id" in d
                                                           for d in result)
                or {"skip", "limit"} & set(step.arguments)):
            continue
        try:
            found = explain.in_question(spec.fixture.get(step.collection, []), step.arguments,
                                 expected, [d["_id"] for d in result],
                                 step.expect is not None and step.expect.ordered, rules)
        except (BadInput, NotSupported, ValueError):  # a filter beyond the explanations
            continue
        if found:
            asked: dict[str, Any] = {k: step.arguments[k] for k in
                                     ("filter", "sort", "collation") if k in step.arguments}
            out.append(explain.Explained(step.operation, step.line, asked, tuple(found)))
    return tuple(out)


def _expected_ids(step: Step) -> list[Any] | None:
    """The ``_id`` of each document the read should return, or None where the expectation
    does not say them."""
    expect = step.expect
    if expect is None or expect.kind not in ("ids", "documents") \
            or not isinstance(expect.value, list):
        return None
    if expect.kind == "ids":
        return list(expect.value)
    if not all(isinstance(d, dict) and "_id" in d for d in expect.value):
        return None
    return [d["_id"] for d in expect.value]


# The matrix ------------------------------------------------------------------------------


@dataclass
class Column:
    """One column of the matrix: an engine, or a MongoDB version, and its rows in claim order."""

    label: str
    engine: str
    description: str
    rows: list[Result] = field(default_factory=list)
    # Why no engine answered in this column at all (a fake not installed, no server of a
    # version): then every row is not run, for that one reason.
    missing: Text = ""


@dataclass
class CheckRun:
    """A ``labkit check``: the runner's ``Run`` (for the report) and the matrix's columns."""

    run: Run
    columns: list[Column]
    specs: list[ClaimSpec]

    def exit_status(self, strict: bool = False) -> int:
        """As ``labkit run``: 1 when a claim does not hold or erred; ``strict`` also fails when
        any cell of the matrix did not run (a version without a server, say)."""
        missing = strict and any(row.verdict == NOT_RUN for row in self.run.rows)
        return 1 if missing else self.run.exit_status(strict)

    def observed(self, claim_id: str, engine: str) -> Any:
        """What ``engine`` (``model``, ``mongodb``, ``mongomock``, …) gave for a claim, in its
        first column; None where it did not run."""
        index = [s.id for s in self.specs].index(claim_id)
        column = next(c for c in self.columns if c.engine == engine)
        row = column.rows[index]
        return row.observation.observed if row.shows_observation and row.observation else None

    def frame(self) -> pd.DataFrame:
        """pandas: one row per claim, one column per engine, the verdict words in the cells."""
        import pandas as pd

        data = {c.label: [verdict_words(r) for r in c.rows] for c in self.columns}
        return pd.DataFrame(data, index=pd.Index([s.id for s in self.specs], name="claim"))

    def scorecard(self) -> pd.DataFrame:
        """pandas: per claim, what the claim file expects, then each engine's answer, marked
        ✓ (holds), ✗ (does not hold, with what it gave), ! (error) or – (not run, with why)."""
        import pandas as pd

        rows = []
        for index, spec in enumerate(self.specs):
            row = {"claim": spec.id, "expected": short_json(spec.expected, 80)}
            for column in self.columns:
                row[column.label] = cell(column.rows[index])
            rows.append(row)
        return pd.DataFrame(rows).set_index("claim")

    def raised(self, engines: Iterable[str]) -> pd.DataFrame:
        """pandas: the claims on which any of ``engines`` raised an exception where the claim
        expects an answer (an error it answered with, or its own exception, its error), and
        what each raised (empty cells where it did not)."""
        import pandas as pd

        columns = [c for c in self.columns if c.engine in set(engines)]
        rows = {}
        for index, spec in enumerate(self.specs):
            found = {c.label: _raised(c.rows[index]) for c in columns}
            if any(found.values()):
                rows[spec.id] = found
        return pd.DataFrame.from_dict(rows, orient="index",
                                      columns=[c.label for c in columns]).rename_axis("claim")


def verdict_words(row: Result) -> str:
    """A row's verdict in the English words the check's outputs show (``_()`` gives them in
    the learner's language): ``holds (result only)`` where the claim's test also expects what
    a claim check does not judge, else the verdict's own words (``Result.verdict_words``)."""
    return row.verdict_words


def _raised(row: Result) -> Text:
    """What an engine raised where the claim expects an answer, or "": an error it answered
    with (a server's error, the claim does not hold), or its own exception (its error)."""
    if row.verdict == ERROR and row.observation is not None:
        return row.observation.error
    observed = row.observation.observed if row.verdict == FAILS and row.observation else None
    return observed["raised"] if isinstance(observed, dict) and list(observed) == ["raised"] \
        else ""


def cell(row: Result) -> str:
    """A scorecard cell: a mark, then what the engine gave (or why it did not run)."""
    if row.verdict == HOLDS:
        only = " (" + _("result only") + ")" if verdict_words(row) == RESULT_ONLY else ""
        return "✓" + only + " " + short_json(row.observed, 60)
    if row.verdict == FAILS:
        raised = _raised(row)
        if raised:
            return "✗ raised " + shown(raised)[:80]
        return "✗ " + short_json(row.observed, 60)
    if row.verdict == ERROR:
        return "! " + row.shown_reason
    return "– " + row.shown_reason


@contextlib.contextmanager
def _one_server(version: str | None, mode: str) -> Iterator[MongoServer]:
    """One MongoDB server of ``version``, stopped (or let go) when the block ends. (Among
    several URIs in ``LABKIT_MONGODB_URI``, the servers route picks the one of that version.)"""
    with servers.provide("mongodb", mode, version) as server:
        yield server


def _columns(engines: list[str], versions: list[str] | None, mode: str,
             model_versions: list[str] | None = None
             ) -> Iterator[tuple[str, str, Engine | None, ServerUnavailable | None, str]]:
    """``(label, engine name, engine or None, why not, version asked for)`` per column, one
    server at a time, and one model column per rule set asked for."""
    for name in engines:
        if name == "model":
            rule_sets: list[str | None] = [*model_versions] if model_versions else [None]
            for rules in rule_sets:
                model = ModelEngine(rules)
                yield model.label, name, model, None, ""
        elif name == "mongodb":
            wanted: list[str | None] = [*versions] if versions else [None]
            for version in wanted:
                label = f"{engine_name(name)} {version or ''}".strip()
                try:
                    with _one_server(version, mode) as server:
                        yield label, name, MongoDBEngine(server), None, version or ""
                except ServerUnavailable as exc:
                    yield label, name, None, exc, version or ""
        else:
            try:
                yield name, name, fakes.engine(name), None, ""
            except ServerUnavailable as exc:
                yield name, name, None, exc, ""


def check(specs: list[ClaimSpec], engines: Iterable[str] = DEFAULT_ENGINES,
          versions: list[str] | None = None, mongodb_mode: str = "auto",
          progress: Callable[[str, int, int, ClaimSpec | None], None] | None = None,
          model_versions: list[str] | None = None) -> CheckRun:
    """Judge every claim on every engine (and MongoDB version), one server at a time; the
    model once per rule set of ``model_versions`` (the current major's if None)."""
    started = dt.datetime.now(dt.UTC)
    claims = [as_claim(spec) for spec in specs]
    columns: list[Column] = []
    described: list[EngineInfo] = []
    for label, name, engine, unavailable, asked in _columns(list(engines), versions,
                                                            mongodb_mode, model_versions):
        info = engine.info() if engine else EngineInfo(name, asked, not_run=True)
        described.append(info)
        why = _why_not(unavailable, asked)
        column = Column(engine.label if engine else label, name, info.line(), missing=why)
        for index, (spec, claim) in enumerate(zip(specs, claims, strict=True)):
            if progress:
                progress(column.label, index, len(specs), spec)
            column.rows.append(_row(claim, spec, engine, name, unavailable, asked))
        columns.append(column)
    if progress:
        progress("", len(specs), len(specs), None)
    results = [ClaimResult(claim, [c.rows[i] for c in columns]) for i, claim in
               enumerate(claims)]
    return CheckRun(Run(results, started, dt.datetime.now(dt.UTC), described), columns, specs)


def _why_not(unavailable: ServerUnavailable | None, asked: str) -> Text:
    """Why a column has no engine, its version named where one was asked for; ``""`` where
    it has one."""
    if unavailable is None:
        return ""
    why = unavailable.summary()
    return Message(N_("no server of version {version}: {why}"), version=asked, why=why) \
        if asked else why


def _row(claim: FileClaim, spec: ClaimSpec, engine: Engine | None, name: str,
         unavailable: ServerUnavailable | None, asked: str = "") -> Result:
    """One cell of the matrix: the claim judged on one engine, inside the run's guard; where
    there was no engine, not run, with the version asked for (``MongoDB 6.0``), said as
    ``labkit run`` says a missing server (``claim.needs``: what failed and what to do, in
    fields of their own), so that every version missing for one cause is said once."""
    if engine is None:  # _columns gives the reason with every column it has no engine for
        assert unavailable is not None
        return judge(claim, needs(name, unavailable, engine_name(name), name, asked))
    started = time.perf_counter()
    observation, verdict, answered = _judged(spec, engine)
    seconds = time.perf_counter() - started
    if verdict == ERROR:  # the engine failed: that cell's error
        return judge(claim, observation, seconds)
    reason = observation.not_run or joined("; ", (observation.note, *_not_checked(spec)))
    explained = explain_differences(spec, answered, _rules_of(engine)) if verdict == FAILS \
        else ()
    return Result(claim, verdict, observation, reason, seconds, explained)


def _rules_of(engine: Engine) -> str | None:
    """The model's rule set that speaks for ``engine``'s version where the model carries one
    (a MongoDB 7.0 server, the model following 6.0), else the current major's (None)."""
    try:
        # The version's release series, as the model's rule sets are named ("7.0" of 7.0.12).
        series = re.match(r"\d+\.\d+", engine.speaks_for or "")
        return check_rules_version(series.group()) if series else None
    except BadInput:
        return None


def _not_checked(spec: ClaimSpec) -> list[Message]:
    return [Message(N_("not checked: {item}"), item=item) for item in spec.not_checked]


def run_files(paths: Iterable[str | Path], engines: Iterable[str] | str = DEFAULT_ENGINES,
              versions: list[str] | str | None = None, mongodb_mode: str = "auto",
              model_versions: str | None = None) -> CheckRun:
    """Read claim files and check them: the notebook's one call (``labkit check`` in Python)."""
    if isinstance(versions, str):
        versions = parse_versions(versions)
    return check(claimfiles.load(paths), parse_engines(engines), versions, mongodb_mode,
                 model_versions=parse_model_versions(model_versions))
