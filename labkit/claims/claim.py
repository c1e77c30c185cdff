"""A claim, what its experiment observes, and how one observation is judged."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from labkit import syllabus
from labkit.errors import ServerUnavailable

# Both are used here and imported from here by the runner, the cards and the experiments.
from labkit.errors import Unobservable as Unobservable
from labkit.errors import one_line as one_line
from labkit.i18n import N_, Message, Text, _

if TYPE_CHECKING:
    from pymongo.database import Database

    from labkit.model.bson_order import Document
    from labkit.servers import MongoServer, PostgresServer

T = TypeVar("T")
# The type of a run's B-tree measurements (``engines.btree_engine.Measurement``).
M = TypeVar("M", covariant=True)



class Verdict(StrEnum):
    """A verdict. A row is one engine's verdict; a claim's verdict sums up its rows. The values
    are what results.json, JUnit and the report store (a ``StrEnum`` is written as its value)."""

    HOLDS = "holds"
    FAILS = "fails"
    FINDING = "finding"
    NOT_RUN = "not-run"
    ERROR = "error"


HOLDS, FAILS, FINDING, NOT_RUN, ERROR = (Verdict.HOLDS, Verdict.FAILS, Verdict.FINDING,
                                         Verdict.NOT_RUN, Verdict.ERROR)
VERDICTS = tuple(Verdict)
# The words every output uses: the terminal table, the report, the chart legend, JSON counts.
# English, as results.json stores them; shown translated: ``verdict_text(v)``, ``count_text(v)``.
VERDICT_TEXT: dict[Verdict, str] = {
    HOLDS: N_("holds"), FAILS: N_("does not hold"), FINDING: N_("finding"),
    NOT_RUN: N_("not run"), ERROR: N_("error")}
# A row that holds on its reads' results where its claim also expects what a check does not
# judge (a Unified Test Format test's expectEvents or outcome): every output says so.
RESULT_ONLY = N_("holds (result only)")
COUNT_TEXT: dict[Verdict, str] = {
    HOLDS: N_("hold"), FAILS: N_("do not hold"), FINDING: N_("findings"),
    NOT_RUN: N_("not run"), ERROR: N_("error")}
# The colour of each verdict wherever one is drawn: cards, the report's chart, an exercise's
# feedback (right as holds, wrong as does not hold, unread as not run).
COLOURS: dict[Verdict, str] = {HOLDS: "#1a7f37", FAILS: "#cf222e", FINDING: "#8250df",
                           NOT_RUN: "#6e7781", ERROR: "#bc4c00"}



class Kind(StrEnum):
    """A claim's kind. A behaviour claim says what a server does: not holding is a failure. A
    survey claim asks on which engines a statement holds: not holding on one engine is a
    finding."""

    BEHAVIOUR = "behaviour"
    SURVEY = "survey"


BEHAVIOUR, SURVEY = Kind.BEHAVIOUR, Kind.SURVEY
KINDS = tuple(Kind)
KIND_TEXT: dict[str, str] = {BEHAVIOUR: N_("behaviour claim"), SURVEY: N_("survey claim")}

# Topics, the lessons' own (labkit.syllabus): the code files keep ("sort-order"), and each as a
# learner reads it (charts, tables), translated where it is shown.
TOPICS = syllabus.TOPICS
TOPIC_TEXT = syllabus.TOPIC_TEXT
SOURCES = {
    "000": N_("000_bdc55fbfedc17ec7.txt (ObjectId generator page)"),
    "002": N_("002_b087e3843ef37896.txt (BSON & ObjectId, part 2/3)"),
    "003": N_("003_d044462534279811.txt (UUIDv7 vs UUIDv4 as a B-tree key)"),
    "manual": N_("MongoDB manual and server test suite"),
}


def source_title(source: str) -> str:
    """A source's title in the learner's words, without the file name the catalogue's entry
    opens with: ``BSON & ObjectId, part 2/3``; the manual's entry is its title whole."""
    text = _(SOURCES[source])
    if source == "manual":
        return text
    return text.split(" (", 1)[-1].removesuffix(")")


def verdict_text(verdict: Verdict) -> str:
    """A verdict code (``holds``, ``not-run``…) in the learner's words."""
    return _(VERDICT_TEXT[verdict])


# How every output words a row labkit's model gave: ``predicts: holds``.
PREDICTS = N_("predicts: {verdict}")


def predicted_text(words: str) -> str:
    """A verdict's words, in the learner's language, as labkit's model's prediction (English
    where files keep it: ``PREDICTS.format``)."""
    return _(PREDICTS).format(verdict=words)


def kind_text(kind: str) -> str:
    """A claim's kind as a learner reads it: ``behaviour claim`` or ``survey claim``."""
    return _(KIND_TEXT.get(kind, kind))


def topic_text(topic: str) -> str:
    """A topic code (``sort-order``) in the learner's words; a claim file's own topic as is."""
    return _(TOPIC_TEXT[topic]) if topic in TOPIC_TEXT else topic


def count_text(verdict: Verdict) -> str:
    """A verdict as a count reads it (``3 findings``), in the learner's words."""
    return _(COUNT_TEXT[verdict])


@dataclass(frozen=True)
class Figure:
    """How an observation can be drawn: a plot of ``labkit.outputs.plots`` named, with its
    data. Plain data: an experiment draws nothing, the report and the lessons draw it."""

    plot: str
    args: tuple[Any, ...] = ()


@dataclass
class Observation:
    """What an experiment saw, and which engine (with its exact version) showed it.

    ``not_run`` or ``error`` set means the engine gave no observation, and why.
    """

    observed: Any
    engine: Text  # English where files keep it, shown translated (a model's split policy)
    engine_version: str
    evidence: list[dict[str, Any]] = field(default_factory=list)
    note: Text = ""  # a ``Message``: English where files keep it, shown translated
    figure: Figure | None = None
    not_run: Text = ""
    error: Text = ""
    missing: str = ""  # a server kind that could not be had ("mongodb", ...): the not-run cause
    missing_detail: Text = ""  # what failed when it was sought, without the hint
    hint: Text = ""  # what to do about it
    # The engine's key (``names.ENGINE_NAMES``: ``sqlite``, ``mongodb``) where it is one of
    # labkit's engines, so that no output reads it back out of ``engine``, the row's label
    # ("SQLite · size"); empty for a library observed directly (``pymongo bson``).
    engine_key: str = ""
    # The part of what the engine measured that this row is about (U5's "size"), where a claim
    # judges an engine in parts: the row's label is the engine and the part (``names.aspect``).
    aspect: Text = ""


def not_run(engine: Text, reason: Text, key: str = "", version: str = "") -> Observation:
    """An engine this claim is judged on could not be had: reported as not run, with why
    (``key``: the engine's key, as ``Observation.engine_key``; ``version``: the version that
    was asked for, such as one of ``--mongodb-version``, where one was)."""
    return Observation(None, engine, version, not_run=reason, engine_key=key)


def needs(kind: str, exc: ServerUnavailable, engine: Text = "", key: str = "",
          version: str = "") -> Observation:
    """Not run because a server (or binding) of ``kind`` could not be had: ``exc`` is the
    ``ServerUnavailable`` that says what failed and what to do, kept as fields (``version``:
    the one asked for, such as one of ``--mongodb-version``, where one was)."""
    return Observation(None, engine, version, not_run=Message(N_("needs {kind}: {summary}"),
                                                         kind=kind, summary=exc.summary()),
                       missing=kind, missing_detail=exc.what_failed(), hint=exc.hint,
                       engine_key=key)


def errored(engine: Text, exc: BaseException, version: str = "", key: str = "") -> Observation:
    """An engine's experiment failed: that engine's verdict is ``error``, with the cause."""
    return Observation(None, engine, version, error=one_line(exc), engine_key=key)


class Context(Protocol):
    """What an experiment may ask of the run it observes in (``run.runner.Context`` is the
    run's): its servers, each found or started on first need and stopped with the run, a fresh
    database dropped when the claim is done, and the guard that makes one engine's failure
    that engine's row."""

    def mongodb(self) -> MongoServer:
        """The run's MongoDB server; ``ServerUnavailable`` where none can be had."""
        ...

    def mongodb_database(self, label: str) -> Database[Document]:
        """A fresh database on the run's MongoDB server, dropped when the claim is done."""
        ...

    def postgres(self) -> PostgresServer:
        """The run's PostgreSQL server; ``ServerUnavailable`` where none can be had."""
        ...

    def guard(self, engine: Text, attempt: Callable[[], T], *, version: str = "",
              kind: str = "", key: str = "") -> T | Observation:
        """``attempt()`` for one engine of several, or the observation saying why that engine
        gave none (an error, or not run where ``kind`` cannot be had); ``key`` is the engine's
        key, which that observation keeps."""
        ...


class BTreeContext(Context, Protocol[M]):
    """A run's context with its B-tree loads, each made once per run and quoted by every
    claim and table that asks for it. ``M`` is what a load of several key kinds into one
    engine gives (``engines.btree_engine.Measurement``; claims/ sits below engines/, so it
    is named by the experiments that read it)."""

    btree_n: int  # keys per kind in the run's B-tree loads

    def btree_load(self, engine: str, kinds: Sequence[str], n: int | None = None, *,
                   policy: str = "half", checkpoint_every: int | None = ...) -> M:
        """Every key kind loaded into ``engine`` (N: ``btree_n`` unless given; the model's
        split ``policy``; a checkpoint every ``checkpoint_every`` keys, None for none during
        the load), loaded once per run."""
        ...


# An experiment observes a claim in a run's context: one that asks for no B-tree load takes a
# ``Context``, the B-tree claims a ``BTreeContext[Measurement]``; every run gives both.
Experiment = Callable[[BTreeContext[Any]], Observation | list[Observation]]
Judge = Callable[[Any, Any], bool | tuple[bool, Text]]


@dataclass(frozen=True)
class Claim:
    """A documented claim: where it comes from, what it expects, and how to observe it."""

    id: str
    title: str
    source: str
    topic: str
    expected: Any
    experiment: Experiment
    needs: tuple[str, ...] = ()
    judge: Judge | None = None
    kind: Kind = BEHAVIOUR
    # What labkit's model says the experiment would observe, computed with no server; shown
    # beside ``expected`` where the claim cannot run, never as an observation.
    predict: Callable[[], Any] | None = None
    # True when ``expected`` is an output the source document recorded on a real server.
    recorded: bool = False

    @property
    def results_only(self) -> bool:
        """True when a verdict of this claim judges its reads' results only: it also expects
        what no engine's row judges (a claim file's command events, say)."""
        return False

    @property
    def shown_title(self) -> str:
        """The title in the learner's language (``title`` stays English for results.json and
        JUnit); a title labkit's catalogue does not know, a user's own, is shown as written."""
        return _(self.title)

    @property
    def experiment_name(self) -> str:
        """Where the experiment lives: ``labkit.experiments.dates.dates_as_strings``."""
        return f"{self.experiment.__module__}.{self.experiment.__qualname__}"

    @property
    def expected_label(self) -> str:
        """What ``expected`` is, in words: recorded on a real server, or stated."""
        if self.source == "manual":
            return _("stated by MongoDB's manual and server tests (not an observation)")
        title = source_title(self.source)
        if self.recorded:
            return _("recorded by the source document \u201c{title}\u201d on a real server "
                     "through mongosh; it does not say which MongoDB version").format(title=title)
        return _("stated by the source document \u201c{title}\u201d (not an observation)"
                 ).format(title=title)

    @property
    def expected_short(self) -> str:
        """``expected_label`` as a column heading."""
        if self.source == "manual":
            return _("stated by the manual")
        if self.recorded:
            return _("recorded by the source (real server)")
        return _("stated by the source")

    def verdict_for(self, observation: Observation) -> tuple[Verdict, Text]:
        """Judge one observation: ``(verdict, note)``; a survey's disagreement is a finding."""
        outcome = (self.judge or _equal)(self.expected, observation.observed)
        agreed, note = outcome if isinstance(outcome, tuple) else (outcome, "")
        if agreed:
            return HOLDS, note
        return (FINDING if self.kind == SURVEY else FAILS), note


def _equal(expected: Any, observed: Any) -> bool:
    return bool(expected == observed)


def claim_verdict(verdicts: Iterable[Verdict]) -> Verdict:
    """One claim's verdict from its rows: error first, then a failure or finding, then holds."""
    ran = [v for v in verdicts if v != NOT_RUN]
    for worst in (ERROR, FAILS, FINDING):
        if worst in ran:
            return worst
    return HOLDS if ran else NOT_RUN


def retry_until(attempt: Callable[[], T], done: Callable[[T], bool], limit: int = 12
                ) -> tuple[T, int]:
    """Call ``attempt`` until ``done(result)``, at most ``limit`` times: ``(result, tries)``.

    For experiments that need a coincidence (two processes in one second).
    """
    tries = 0
    while True:
        tries += 1
        result = attempt()
        if done(result) or tries >= limit:
            return result, tries


def subset_of_observed(expected: dict[str, Any], observed: dict[str, Any]
                       ) -> tuple[bool, Text]:
    """Judge: every expected key is observed with the same value (extra observations are fine)."""
    wrong = [key for key in expected if jsonable(observed.get(key)) != jsonable(expected[key])]
    return not wrong, (Message(N_("differs in: {keys}"), keys=", ".join(wrong)) if wrong else "")


def require(value: Any, what: Text, engine: Text = "this engine") -> Any:
    """Return ``value``; when it is None, the engine cannot give ``what``: raise Unobservable."""
    if value is None:
        raise Unobservable(Message(N_("{engine} does not report {what}"), engine=engine,
                                   what=what if isinstance(what, Message) else Message(what)))
    return value


def jsonable(value: Any) -> Any:
    """Convert a value into plain JSON types (BSON values become relaxed Extended JSON)."""
    return json.loads(json.dumps(value, default=_json_default))


def _json_default(value: Any) -> Any:
    if isinstance(value, Message):  # one of labkit's sentences, as files keep it
        return value.english()
    if isinstance(value, dt.datetime):
        # the model package (bson, about 20 ms): lessons.course and lessons.exercises load
        # this module without it (`labkit.progress()`, `labkit.Exercise`)
        from labkit.model.objectid import iso_z

        return iso_z(value)
    if isinstance(value, set | frozenset | tuple):
        return sorted(value, key=str)
    if isinstance(value, bytes):
        return value.hex()
    try:
        from bson import json_util

        return json.loads(json_util.dumps(value, json_options=json_util.RELAXED_JSON_OPTIONS))
    except Exception:  # any value the encoder refuses is shown as text
        return str(value)


def short_json(value: Any, limit: int = 160) -> str:
    """Compact JSON for a table cell, shortened with an ellipsis: a document or a list after
    its last item that fits whole (``whole_items``)."""
    data = jsonable(value)
    text = json.dumps(data, ensure_ascii=False, separators=(", ", ": "))
    if len(text) <= limit:
        return text
    if isinstance(data, dict) and data:
        return whole_items([json.dumps({k: v}, ensure_ascii=False, separators=(", ", ": "))[1:-1]
                            for k, v in data.items()], "{", "}", limit)
    if isinstance(data, list) and data:
        return whole_items([json.dumps(v, ensure_ascii=False, separators=(", ", ": "))
                            for v in data], "[", "]", limit)
    return text[: limit - 1] + "…"


def item_separator(written: Sequence[str]) -> str:
    """What separates a list's items as written: "; " where one holds a comma of its own, not
    inside quotes or brackets, that a comma between the items would blur (a number's grouping,
    "1,790,812,800,000"; a Vietnamese decimal mark, "0,9"; a text "a, b"), else ", "."""
    own = any("," in item and not item.startswith(('"', "[", "{")) for item in written)
    return "; " if own else ", "


def whole_items(items: list[str], opening: str, closing: str, limit: int,
                separator: str = ", ") -> str:
    """Written ``items`` of a document or a list too long for ``limit``, cut after the last
    one that fits whole and closed with ``…`` and the bracket (``{"a": 1, …}``), so that no
    value seems to go on where it was cut (an ObjectId's hex cut short read as another ID)."""
    kept: list[str] = []
    for item in items:
        if len(opening + separator.join([*kept, item, "…"]) + closing) > limit:
            break
        kept.append(item)
    if not kept:  # not even the first fits whole: cut it, as a text is cut
        return (opening + separator.join(items))[: limit - 1] + "…"
    return opening + separator.join([*kept, "…"]) + closing
