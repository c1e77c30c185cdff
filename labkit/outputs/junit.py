"""``labkit check --junit``: the matrix as JUnit XML, for CI."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from labkit.claims.claim import ERROR, FAILS, HOLDS, NOT_RUN, PREDICTS, short_json
from labkit.outputs.escape import xml
from labkit.run.check import CheckRun, verdict_words
from labkit.run.made import Made, check_target, staged_in


def junit_xml(result: CheckRun) -> str:
    """JUnit XML for CI: a test suite per engine column, a test case per claim; a claim that
    does not hold is a failure, an error an error, not run a skip with the reason. Each case
    names its verdict in a ``verdict`` property, the words the matrix shows ("holds (result
    only)" where the claim file's test also expects what a check does not judge, its events),
    which a passing case's output also opens with. labkit's model's cases are predictions:
    their verdict reads ``predicts: …``, a predicted "does not hold" fails as the exit status
    does, and a predicted "holds" is skipped, never a pass, since nothing ran it. Every value
    passes through
    :func:`~labkit.outputs.escape.xml`: the file parses whatever a claim's id says, and holds
    no secret."""
    suites = ET.Element("testsuites", name="labkit check")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for column in result.columns:
        suite = ET.SubElement(suites, "testsuite", name=xml(column.label))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for spec, row in zip(result.specs, column.rows, strict=True):
            counts["tests"] += 1
            case = ET.SubElement(suite, "testcase", classname=xml(spec.path),
                                 name=xml(f"{spec.id} [{column.label}]"),
                                 time=f"{row.seconds:.3f}")
            case.set("file", xml(spec.path))
            case.set("line", str(spec.line))
            words = verdict_words(row)
            if row.predicted:
                words = PREDICTS.format(verdict=words)  # English, as the file keeps it
            properties = ET.SubElement(case, "properties")
            ET.SubElement(properties, "property", name="verdict", value=xml(words))
            if row.verdict == FAILS:
                counts["failures"] += 1
                seen = "predicted" if row.predicted else "observed"
                failure = ET.SubElement(
                    case, "failure", type="ClaimDoesNotHold",
                    message="predicted not to hold" if row.predicted else "does not hold")
                failure.text = xml(f"expected: {short_json(spec.expected, 2000)}\n{seen}: "
                                   f"{short_json(row.observed, 2000)}\n{row.reason}")
            elif row.verdict == ERROR:
                counts["errors"] += 1
                ET.SubElement(case, "error", message=xml(row.reason), type="Error")
            elif row.verdict == NOT_RUN or row.predicted:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=xml(
                    row.reason if row.verdict == NOT_RUN else
                    f"{words}: labkit's model, a prediction; no engine ran it"))
            if row.verdict != NOT_RUN:
                out = ET.SubElement(case, "system-out")
                out.text = xml((f"{words}\n" if row.verdict == HOLDS else "")
                               + f"{row.engine} {row.engine_version or ''}".strip()
                               + (f"\n{row.reason}" if row.reason else ""))
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        suites.set(key, str(value))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode")


def write_junit(result: CheckRun, path: str | Path, made: Made | None = None) -> Path:
    """Write the JUnit XML to ``path`` (its folder is made if needed), whole and never through
    a link; with ``made``, the run's record, it is put in place with the report."""
    target = Path(path)
    with staged_in(made) as record:
        record.folder(target.parent)
        check_target(target, "--junit")
        record.stage(target, (junit_xml(result) + "\n").encode("utf-8"))
    return target
