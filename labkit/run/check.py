"""``labkit check``: claim files judged on every engine and MongoDB version, as a matrix.

Each claim gets one row per engine (and per MongoDB version), in the same ``runner`` results
that ``labkit run`` reports, so ``report.write`` gives the same HTML, Markdown and JSON; this
module adds the matrix, JUnit XML for CI, and pandas frames for notebooks. A user's claims are
behaviour claims: where one does not hold on an engine, that is a failure.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import os
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labkit.claims import files as claimfiles
from labkit.claims.claim import (
    BEHAVIOUR,
    ERROR,
    FAILS,
    HOLDS,
    NOT_RUN,
    VERDICT_TEXT,
    Claim,
    Observation,
    errored,
    one_line,
    short_json,
)
from labkit.claims.files import ClaimSpec, Expectation
from labkit.engines.query import ENGINES, Answer, Engine, ModelEngine, NotSupported
from labkit.errors import BadInput, ServerUnavailable
from labkit.run.runner import ClaimResult, Result, Run

DEFAULT_ENGINES = ("model",)


@dataclass(frozen=True)
class FileClaim(Claim):
    """A claim read from a claim file: the registry's ``Claim``, placed at its file and line."""

    spec: ClaimSpec | None = None

    @property
    def experiment_name(self) -> str:
        """Where the claim is written: ``claims/lesson01_dates.yaml:12``."""
        return self.spec.where if self.spec else super().experiment_name


def as_claim(spec: ClaimSpec) -> FileClaim:
    """The claim of a claim file, as the runner and the report know claims."""

    def on_the_model(ctx=None) -> Observation:
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
        raise BadInput("--engines needs at least one name, with none empty")
    unknown = [n for n in names if n not in ENGINES]
    if unknown:
        raise BadInput(f"unknown engine {unknown[0]!r}; choose from {', '.join(ENGINES)}")
    return list(dict.fromkeys(names))


def parse_versions(text: str | None) -> list[str] | None:
    """``"6.0,7.0,8.0"`` -> the versions, each pinned (``latest`` is refused); None: any."""
    from labkit.servers import check_version

    if text is None:
        return None
    versions = [v.strip() for v in text.split(",")]
    if not all(versions):
        raise BadInput("--mongodb-version needs versions such as 6.0,7.0,8.0, with none empty")
    return [check_version(v) for v in dict.fromkeys(versions)]


# Judging one claim on one engine ---------------------------------------------------------


def _unmet(spec: ClaimSpec, engine: Engine) -> str:
    """Why the claim's runOnRequirements exclude this engine, or ``""``."""
    from labkit.claims.files import version_tuple

    for group in spec.requirements:
        reasons = []
        for req in group:
            if req.unknown:
                reasons.append(f"it requires {', '.join(req.unknown)}, which a claim check "
                               "cannot establish")
                continue
            if req.topologies and engine.topology not in req.topologies:
                reasons.append(f"it runs on {', '.join(req.topologies)}, not {engine.topology}")
                continue
            if req.min_version or req.max_version:
                if engine.speaks_for is None:
                    reasons.append(f"it speaks for {req.text()}; {engine.name} claims no "
                                   "server version")
                    continue
                version = version_tuple(engine.speaks_for)
                low = version_tuple(req.min_version) if req.min_version else (0, 0, 0)
                high = version_tuple(req.max_version) if req.max_version else (99999,) * 3
                if not low <= version <= high:
                    reasons.append(f"it speaks for {req.text()}; "
                                   f"{_speaks_for_text(engine)}")
                    continue
            reasons = []
            break
        if reasons:
            return reasons[0]
    return ""


def _speaks_for_text(engine: Engine) -> str:
    if engine.key == "mongodb":
        return f"this server is {engine.speaks_for}"
    if engine.key == "model":
        return f"the model follows MongoDB {engine.speaks_for}"
    return f"{engine.name.split(' (')[0]} reports MongoDB {engine.speaks_for}"


def observe(spec: ClaimSpec, engine: Engine) -> tuple[Observation, str]:
    """Run a claim's reads on one engine and judge them: ``(observation, verdict)``."""
    def not_run(reason: str) -> tuple[Observation, str]:
        return Observation(None, engine.name, engine.version, not_run=reason), NOT_RUN

    if spec.skip_reason:
        return not_run(f"the test is marked skip: {spec.skip_reason}")
    unmet = _unmet(spec, engine)
    if unmet:
        return not_run(f"runOnRequirements: {unmet}")
    steps = [s for s in spec.steps if s.expect is not None and not s.skip]
    if not steps:
        skipped = [s.skip for s in spec.steps if s.skip]
        return not_run("nothing to judge: " + (skipped[0] if skipped else
                                               "no read has an expected result or error"))
    if engine.key == "model" and any(s.expect.kind == "error" for s in steps):
        return not_run("the model predicts results, not server errors")
    try:
        answers = engine.answer(spec, steps)
        judged = [judge_step(step.expect, answer) for step, answer in zip(steps, answers,
                                                                          strict=True)]
    except NotSupported as exc:
        return not_run(str(exc))
    shown = [item[1] for item in judged]
    notes = [f"read {i + 1}: {item[2]}" if len(judged) > 1 else item[2]
             for i, item in enumerate(judged) if item[2]]
    skipped = [f"not judged: {s.operation} at line {s.line}, {s.skip}" for s in spec.steps
               if s.skip and s.expect is not None]
    unjudged = [f"not checked: expectError {', '.join(c)}" for s in steps
                if (c := claimfiles.unjudged_checks(s.expect))]
    evidence = [{"read": step.operation, "asked": step.arguments,
                 "answer": answer.raised or answer.result}
                for step, answer in zip(steps, answers, strict=True)]
    observation = Observation(shown[0] if len(shown) == 1 else shown, engine.name,
                              engine.version, evidence,
                              note="; ".join(notes + skipped + unjudged))
    return observation, HOLDS if all(item[0] for item in judged) else FAILS


def judge_step(expect: Expectation, answer: Answer) -> tuple[bool, Any, str]:
    """One read against its expectation: ``(holds, what to show as observed, note)``."""
    if answer.raised:
        if expect.kind != "error":
            return False, {"raised": answer.raised}, ""
        note = _error_note(expect.value or {}, answer)
        return not note, {"error": answer.raised}, note
    result = answer.result
    if expect.kind == "error":
        return False, _shown(result), "no error was raised"
    if expect.kind == "ids":
        if not isinstance(result, list) or not all(isinstance(d, dict) for d in result):
            return False, result, "the read did not return documents"
        ids = [doc.get("_id") for doc in result]
        return _same_ids(expect.value, ids, expect.ordered), ids, ""
    if expect.kind == "documents":
        problem = _match_list(expect.value, result, expect.ordered, root=True)
    elif expect.kind == "values":
        problem = _match_list(expect.value, result, expect.ordered, root=False)
    else:
        problem = match(expect.value, result)
    return problem is None, result, problem or ""


def _shown(result: Any) -> Any:
    if isinstance(result, list) and all(isinstance(d, dict) and "_id" in d for d in result):
        return {"ids": [d["_id"] for d in result]}
    return result


def _error_note(checks: dict, answer: Answer) -> str:
    """Why the raised error does not meet the ``expectError`` checks, or ``""`` if it does."""
    if "isClientError" in checks and bool(checks["isClientError"]) == answer.server_error:
        return "the error came from the " + ("server" if answer.server_error else "client")
    if "errorCode" in checks and answer.code != checks["errorCode"]:
        return f"error code {answer.code}, not {checks['errorCode']}"
    if "errorCodeName" in checks and answer.code_name.lower() != str(
            checks["errorCodeName"]).lower():
        return f"error code name {answer.code_name or 'none'}, not {checks['errorCodeName']}"
    if "errorContains" in checks and str(checks["errorContains"]).lower() not in \
            answer.raised.lower():
        return f"the message does not contain {checks['errorContains']!r}"
    return ""


def _cmp(a: Any, b: Any) -> int:
    from labkit.model import bson_order

    return bson_order.compare(a, b)


def _same_ids(expected: list, observed: list, ordered: bool) -> bool:
    if len(expected) != len(observed):
        return False
    if not ordered:
        key = functools.cmp_to_key(_cmp)
        expected, observed = sorted(expected, key=key), sorted(observed, key=key)
    return all(_cmp(a, b) == 0 for a, b in zip(expected, observed, strict=True))


# The Unified Test Format's matching rules ------------------------------------------------


def _special(value: Any) -> str | None:
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        if isinstance(key, str) and key.startswith("$$"):
            return key
    return None


def _operator(op: str, argument: Any, actual: Any) -> str | None:
    from labkit.model import bson_order

    if op == "$$unsetOrMatches":
        return match(argument, actual)
    if op == "$$matchAsRoot":
        return match(argument, actual, root=True)
    if op == "$$type":
        names = argument if isinstance(argument, list) else [argument]
        kind = bson_order.bson_type(actual)
        numeric = kind in ("int", "long", "double", "decimal")
        if kind in names or (numeric and "number" in names):
            return None
        return f"type {kind}, not {' or '.join(map(str, names))}"
    if op == "$$lte":
        if not (_is_number(actual) and _is_number(argument)) or _cmp(actual, argument) > 0:
            return f"{short_json(actual)} is not <= {short_json(argument)}"
        return None
    raise NotSupported(f"the claim check does not evaluate {op}")


def _is_number(value: Any) -> bool:
    from bson import Decimal128, Int64

    return isinstance(value, int | float | Int64 | Decimal128) and not isinstance(value, bool)


def match(expected: Any, actual: Any, root: bool = False) -> str | None:
    """Match as the Unified Test Format does: None, or where and how ``actual`` differs.

    Root documents may carry extra fields; nested ones may not; key order is free; arrays
    match element by element; 32-bit, 64-bit and double numbers match by value (not Decimal128).
    """
    op = _special(expected)
    if op:
        return _operator(op, expected[op], actual)
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"expected a document, got {short_json(actual, 60)}"
        for key, value in expected.items():
            inner = _special(value)
            if inner == "$$exists":
                if bool(value[inner]) != (key in actual):
                    return f"{key}: " + ("missing" if key not in actual else "present")
                continue
            if inner == "$$unsetOrMatches" and key not in actual:
                continue
            if key not in actual:
                return f"{key}: missing"
            problem = match(value, actual[key])
            if problem:
                return f"{key}: {problem}"
        extra = [k for k in actual if k not in expected]
        if extra and not root:
            return f"unexpected field {extra[0]}"
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"expected an array, got {short_json(actual, 60)}"
        if len(actual) != len(expected):
            return f"{len(actual)} elements, not {len(expected)}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            problem = match(want, got)
            if problem:
                return f"[{index}]: {problem}"
        return None
    return _scalar(expected, actual)


def _scalar(expected: Any, actual: Any) -> str | None:
    from bson import Decimal128

    from labkit.model import bson_order

    if _is_number(expected) and _is_number(actual):
        decimal = isinstance(expected, Decimal128), isinstance(actual, Decimal128)
        if decimal[0] != decimal[1] or _cmp(expected, actual) != 0:
            return f"{short_json(actual, 60)}, not {short_json(expected, 60)}"
        return None
    try:
        same = (bson_order.bson_type(expected) == bson_order.bson_type(actual)
                and _cmp(expected, actual) == 0)
    except BadInput:
        same = expected == actual
    return None if same else f"{short_json(actual, 60)}, not {short_json(expected, 60)}"


def _match_list(expected: list, actual: Any, ordered: bool, root: bool) -> str | None:
    if not isinstance(actual, list):
        return f"expected a list, got {short_json(actual, 60)}"
    if len(actual) != len(expected):
        return f"{len(actual)} results, not {len(expected)}"
    if ordered:
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            problem = match(want, got, root=root)
            if problem:
                return f"[{index}]: {problem}"
        return None
    left = list(actual)
    for index, want in enumerate(expected):
        found = next((i for i, got in enumerate(left) if match(want, got, root=root) is None),
                     None)
        if found is None:
            return f"nothing matches expected [{index}] {short_json(want, 80)}"
        left.pop(found)
    return None


# The matrix ------------------------------------------------------------------------------


@dataclass
class Column:
    """One column of the matrix: an engine, or a MongoDB version, and its rows in claim order."""

    label: str
    engine: str
    description: str
    rows: list[Result] = field(default_factory=list)


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
        return row.observation.observed if row.shows_observation else None

    def frame(self):
        """pandas: one row per claim, one column per engine, the verdict words in the cells."""
        import pandas as pd

        data = {c.label: [VERDICT_TEXT[r.verdict] for r in c.rows] for c in self.columns}
        return pd.DataFrame(data, index=pd.Index([s.id for s in self.specs], name="claim"))

    def scorecard(self):
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

    def raised(self, engines: Iterable[str]):
        """pandas: the claims on which any of ``engines`` raised an exception where the claim
        expects an answer, and what each raised (empty cells where it did not)."""
        import pandas as pd

        columns = [c for c in self.columns if c.engine in set(engines)]
        rows = {}
        for index, spec in enumerate(self.specs):
            found = {c.label: _raised(c.rows[index]) for c in columns}
            if any(found.values()):
                rows[spec.id] = found
        return pd.DataFrame.from_dict(rows, orient="index",
                                      columns=[c.label for c in columns]).rename_axis("claim")


def _raised(row: Result) -> str:
    """What an engine raised where the claim expects an answer, or ""."""
    observed = row.observation.observed if row.verdict == FAILS and row.observation else None
    return observed["raised"] if isinstance(observed, dict) and list(observed) == ["raised"] \
        else ""


def cell(row: Result) -> str:
    """A scorecard cell: a mark, then what the engine gave (or why it did not run)."""
    if row.verdict == HOLDS:
        return "✓ " + short_json(row.observation.observed, 60)
    if row.verdict == FAILS:
        raised = _raised(row)
        if raised:
            return "✗ raised " + raised[:80]
        return "✗ " + short_json(row.observation.observed, 60)
    if row.verdict == ERROR:
        return "! " + row.reason
    return "– " + row.reason


@contextlib.contextmanager
def _one_server(version: str | None, mode: str, uris: list[str]) -> Iterator[Any]:
    """One MongoDB server of ``version``, stopped (or let go) when the block ends. (Among
    several ``uris``, the servers route picks the one of that version itself.)"""
    from labkit import servers

    with servers.provide("mongodb", mode, version) as server:
        yield server


def _columns(engines: list[str], versions: list[str] | None,
             mode: str) -> Iterator[tuple[str, str, Engine | None, str]]:
    """``(label, engine name, engine or None, why not)`` per column, one server at a time."""
    from labkit.engines import fakes
    from labkit.engines.query import MongoDBEngine

    for name in engines:
        if name == "model":
            yield "model", name, ModelEngine(), ""
        elif name == "mongodb":
            uris = os.environ.get("LABKIT_MONGODB_URI", "").split()
            for version in versions or [None]:
                label = f"MongoDB {version}" if version else "MongoDB"
                try:
                    with _one_server(version, mode, uris) as server:
                        yield label, name, MongoDBEngine(server), ""
                except ServerUnavailable as exc:
                    why = exc.summary()
                    yield label, name, None, (f"no server of version {version}: {why}"
                                              if version else why)
        else:
            try:
                yield name, name, fakes.engine(name), ""
            except ServerUnavailable as exc:
                yield name, name, None, exc.summary()


def check(specs: list[ClaimSpec], engines: Iterable[str] = DEFAULT_ENGINES,
          versions: list[str] | None = None, mongodb_mode: str = "auto",
          progress: Callable[[str, int, int, ClaimSpec | None], None] | None = None
          ) -> CheckRun:
    """Judge every claim on every engine (and MongoDB version), one server at a time."""
    started = dt.datetime.now(dt.UTC)
    claims = [as_claim(spec) for spec in specs]
    columns: list[Column] = []
    for label, name, engine, why in _columns(list(engines), versions, mongodb_mode):
        column = Column(engine.label if engine else label, name,
                        engine.describe() if engine else f"{label}: not run")
        for index, (spec, claim) in enumerate(zip(specs, claims, strict=True)):
            if progress:
                progress(column.label, index, len(specs), spec)
            column.rows.append(_row(claim, spec, engine, name, why))
        columns.append(column)
    if progress:
        progress("", len(specs), len(specs), None)
    results = [ClaimResult(claim, [c.rows[i] for c in columns]) for i, claim in
               enumerate(claims)]
    described = [c.description for c in columns]
    return CheckRun(Run(results, started, dt.datetime.now(dt.UTC), described), columns, specs)


def _row(claim: FileClaim, spec: ClaimSpec, engine: Engine | None, name: str,
         why: str) -> Result:
    if engine is None:
        engine_name = {"mongodb": "MongoDB"}.get(name, name)
        return Result(claim, NOT_RUN, Observation(None, engine_name, "", not_run=why), why)
    started = time.perf_counter()
    try:
        observation, verdict = observe(spec, engine)
    except Exception as exc:  # one engine's failure costs that row only
        return Result(claim, ERROR, errored(engine.name, exc, engine.version), one_line(exc),
                      time.perf_counter() - started)
    reason = observation.not_run or "; ".join(
        part for part in (observation.note, *_not_checked(spec)) if part)
    return Result(claim, verdict, observation, reason, time.perf_counter() - started)


def _not_checked(spec: ClaimSpec) -> list[str]:
    return [f"not checked: {item}" for item in spec.not_checked]


# Outputs ---------------------------------------------------------------------------------


def matrix_table(result: CheckRun, width: int = 120) -> str:
    """The terminal matrix: claim × engine/version, then what was seen where a claim did not
    hold, why cells did not run, and which engine each column is."""
    id_width = min(max([len(s.id) for s in result.specs] + [5]), 48)
    widths = [max(len(c.label), 13) for c in result.columns]
    lines = [f"{'claim':<{id_width}}  " + "  ".join(
        f"{c.label:<{w}}" for c, w in zip(result.columns, widths, strict=True))]
    for index, spec in enumerate(result.specs):
        name = spec.id if len(spec.id) <= id_width else spec.id[: id_width - 1] + "…"
        cells = [f"{VERDICT_TEXT[c.rows[index].verdict]:<{w}}"
                 for c, w in zip(result.columns, widths, strict=True)]
        lines.append(f"{name:<{id_width}}  " + "  ".join(cells))
    lines += ["", result.run.summary()]
    notes: list[str] = []
    not_run: dict[str, list[str]] = {}
    for column in result.columns:
        for spec, row in zip(result.specs, column.rows, strict=True):
            where = f"{spec.id} on {column.label}"
            if row.verdict == NOT_RUN:
                not_run.setdefault(row.reason, []).append(where)
            elif row.verdict == ERROR:
                notes.append(f"{where}: error: {row.reason}")
            elif row.verdict == FAILS:
                notes.append(f"{where}: does not hold: expected {short_json(spec.expected)}, "
                             f"observed {short_json(row.observation.observed)}"
                             + (f" ({row.reason})" if row.reason else ""))
    for reason, where in not_run.items():
        shown = ", ".join(where[:4]) + (f" and {len(where) - 4} more" if len(where) > 4 else "")
        notes.append(f"Not run ({shown}): {reason}")
    if notes:
        lines += ["", *notes]
    lines += ["", "Engines:", *[f"  {c.label}: {c.description}" for c in result.columns]]
    return "\n".join(lines)


def junit_xml(result: CheckRun) -> str:
    """JUnit XML for CI: a test suite per engine column, a test case per claim; a claim that
    does not hold is a failure, an error an error, not run a skip with the reason."""
    suites = ET.Element("testsuites", name="labkit check")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for column in result.columns:
        suite = ET.SubElement(suites, "testsuite", name=column.label)
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for spec, row in zip(result.specs, column.rows, strict=True):
            counts["tests"] += 1
            case = ET.SubElement(suite, "testcase", classname=str(spec.path),
                                 name=f"{spec.id} [{column.label}]",
                                 time=f"{row.seconds:.3f}")
            case.set("file", str(spec.path))
            case.set("line", str(spec.line))
            if row.verdict == FAILS:
                counts["failures"] += 1
                failure = ET.SubElement(case, "failure", message="does not hold",
                                        type="ClaimDoesNotHold")
                failure.text = (f"expected: {short_json(spec.expected, 2000)}\nobserved: "
                                f"{short_json(row.observation.observed, 2000)}\n{row.reason}")
            elif row.verdict == ERROR:
                counts["errors"] += 1
                ET.SubElement(case, "error", message=row.reason, type="Error")
            elif row.verdict == NOT_RUN:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=row.reason)
            if row.verdict != NOT_RUN:
                out = ET.SubElement(case, "system-out")
                out.text = (f"{row.engine} {row.engine_version or ''}".strip()
                            + (f"\n{row.reason}" if row.reason else ""))
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        suites.set(key, str(value))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode")


def write_junit(result: CheckRun, path: str | Path) -> Path:
    """Write the JUnit XML to ``path`` (its folder is made if needed)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(junit_xml(result) + "\n", encoding="utf-8")
    return target


def run_files(paths: Iterable[str | Path], engines: Iterable[str] | str = DEFAULT_ENGINES,
              versions: list[str] | str | None = None, mongodb_mode: str = "auto") -> CheckRun:
    """Read claim files and check them: the notebook's one call (``labkit check`` in Python)."""
    if isinstance(versions, str):
        versions = parse_versions(versions)
    return check(claimfiles.load(paths), parse_engines(engines), versions, mongodb_mode)
