"""Every lesson's predict-first exercises, by name (``"04.timestamp_hex"``).

They live here, not in the notebooks, so that a cell never shows a hint, a common
mistake or an explanation before the learner has answered."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from labkit.engines.query import model_read, pymongo_read
from labkit.errors import BadInput
from labkit.i18n import N_, Message, _
from labkit.lessons.answers import says_error
from labkit.lessons.exercises import (
    BYTES,
    MODEL,
    MODEL_NO_SERVER,
    Accept,
    AsSet,
    Bool,
    Exercise,
    Fraction,
    Hex,
    Made,
    Number,
    Said,
    Spelling,
    Time,
    asked,
    textbook_btree,
)
from labkit.lessons.query_questions import QUERY_EXERCISES
from labkit.lessons.recall import RECALL_EXERCISES
from labkit.model import fixtures
from labkit.model.bson_order import bson_type
from labkit.names import engine_name

if TYPE_CHECKING:
    from labkit.experiments.btree_keys import WriteReading
    from labkit.run.runner import Context

# The documents a range count counts are IDs too ("25 IDs"); the random values are one per
# process ("3 processes").
DOCUMENTS = ("documents", "document", "docs", "doc", "ids", "id", "tài liệu", "bản ghi",
             "văn bản")
VALUES = ("random values", "values", "value", "processes", "process", "giá trị ngẫu nhiên",
          "giá trị", "tiến trình")
# Other ways of naming an _id of the mixed fixture: its value where no other _id holds that
# value, in either language's decimal mark ("9,5" in Vietnamese).
NAMES = {"emptyArr": ("empty array", "[]", "mảng rỗng", "mảng trống"),
         "dbl9.5": ("double 9.5", "9.5", "9,5", "dbl9,5", "double 9,5", "số thực 9,5",
                    "số thực 9.5")}


def _expected(claim_id: str, *keys: str) -> list[Any]:
    """The _ids a claim's fixture holds, from its expectation's lists (the choices an answer
    may name). A claim's expectation is any JSON value, hence Any."""
    # the claims' catalogue (the experiments, the engines and the servers' room, about 35
    # modules): only the exercises that quote a claim's fixture need it
    from labkit.experiments.catalogue import get

    expected = get(claim_id).expected
    return sorted({item for key in keys for item in expected[key]}, key=str)


def _events() -> list[object]:
    return _expected("D3", "string_range", "date_range")


def _numbers_left_out(ids: list[Any]) -> Message:
    """Which orders' userIds a prediction of ``$gt: 0`` left out, by their BSON types: numbers
    all, whatever their type."""
    types = {doc["_id"]: bson_type(doc["userId"]) for doc in fixtures.load("orders")}
    return Message(N_("{ids} left out: {types} are numbers too, and every numeric type shares "
                      "one bracket."), ids=", ".join(f"_id {i}" for i in ids),
                   types=", ".join(dict.fromkeys(types[i] for i in ids)))


def _orders() -> list[object]:
    return _expected("X1", "expr_gt_0")


def _ladder() -> list[str]:  # the mixed fixture's _ids are names
    return _expected("S2", "v_then_id")


def _session() -> Context:
    # the session (lessons.notebook, about 40 more modules): `labkit.exercise` loads this
    # module without it; only the exercises that ask the kernel (its loads, its MongoDB) do
    from labkit.lessons.notebook import session

    return session()


def _sqlite_larger_by() -> float:
    """How much larger SQLite's UUIDv4 index is than its UUIDv7 one, from the kernel's loads."""
    return _session().btree_load("sqlite", ["uuid4", "uuid7"]).larger_by("uuid4", than="uuid7")


def _write_reading() -> WriteReading:
    """What lesson 06's largest loads wrote, UUIDv4 against UUIDv7, on the engine it grows (the
    kernel's loads, made once): ``Unobservable`` where no engine counted its bytes."""
    from labkit.experiments import btree_keys  # the B-tree engines: lesson 06's alone

    ctx = _session()
    return btree_keys.write_reading(ctx, btree_keys.growth(ctx))


def _sqlite() -> tuple[str, str]:
    """SQLite, and with this run's version."""
    import sqlite3

    return engine_name("sqlite"), f"{engine_name('sqlite')} {sqlite3.sqlite_version}"


def _mongomock_eq_42() -> Any:
    """What mongomock (an in-process fake, never MongoDB) returns for B1's ``{userId: 42}``;
    where it is not installed, ``ServerUnavailable`` says so and how to add it (the exercise
    shows that, translated, in place of an answer)."""
    # the claim check (run.check, about 40 more modules) and the fakes: this exercise alone
    from labkit.claims import files as claimfiles
    from labkit.engines import fakes
    from labkit.run import check as claimcheck

    fakes.version("mongomock")
    specs = [s for s in claimfiles.load([claimfiles.KIT_CLAIMS]) if s.id == "B1.eq_42"]
    return claimcheck.check(specs, ["mongomock"]).observed("B1.eq_42", "mongomock")


def _mongomock() -> tuple[str, str]:
    """mongomock, and with its version, named a fake of MongoDB."""
    from labkit.engines import fakes  # importlib.metadata (about 15 ms): lesson 07's alone

    return engine_name("mongomock"), _("the in-process fake {engine} {version}").format(
        engine=engine_name("mongomock"), version=fakes.version("mongomock"))


# Lesson 08's claim from the wild, as its claim file states it: three products, one without a
# price, sorted by price ascending; the blog says the one without a price comes last.
_BLOG_PRODUCTS = ({"_id": "pen", "price": 3}, {"_id": "gift-card"}, {"_id": "mug", "price": 8})
_BLOG_SORT = {"price": 1}
_BLOG_LAST = "gift-card"


def _blog_order(exercise: Exercise) -> list[Any]:
    """The products' ``_id``s as ``find().sort({price: 1})`` gives them: on the kernel's
    MongoDB where there is one (named as the exercise's engine), else as labkit's model
    predicts them (the exercise's source then says so)."""
    ctx = _session()
    docs = [dict(doc) for doc in _BLOG_PRODUCTS]
    arguments = {"filter": {}, "sort": _BLOG_SORT}
    if ctx.unavailable("mongodb") is None:
        collection = ctx.mongodb_database("blog").products
        collection.insert_many(docs)
        found = pymongo_read(collection, "find", arguments)
        exercise.engine_name = ctx.mongodb().name
        exercise.engine = f"{ctx.mongodb().name} {ctx.mongodb().version}"
    else:
        found = model_read(docs, "find", arguments)
        exercise.source, exercise.engine = MODEL, MODEL_NO_SERVER
    return [doc["_id"] for doc in found]


def _08_missing_last(lesson: str) -> Exercise:
    """08.missing_last, made as a function, not a row: its answer, had on a server or by the
    model, names where it was had on the exercise itself (``_blog_order``)."""
    def last_is_missing() -> bool:
        return bool(_blog_order(made)[-1] == _BLOG_LAST)

    made = Exercise(
        N_("Does find().sort({price: 1}) put the gift card, which has no price, last?"),
        observe=last_is_missing,
        accept=Bool(),
        hint=[N_("Lesson 02: in a sort, a missing field stands for one value of the type "
                 "order. Which one?"),
              N_("A missing field sorts as null. Where is null against every number in an "
                 "ascending sort?")],
        mistakes=[(True, N_("That is PostgreSQL's default (an ascending `ORDER BY` puts NULLs "
                            "last), which the blog carried over. In MongoDB's sort order, where "
                            "does a missing field stand?"))],
        explanation=N_("In an ascending sort a missing field sorts as null, and null sorts "
                       "before every number, so the gift card comes first, not last "
                       "(labkit.explain names the rule: missing-sorts-as-null). PostgreSQL puts "
                       "NULLs last in an ascending `ORDER BY`; MongoDB does not."),
        lesson=lesson,
    )
    return made


def _claim(claim_id: str, pick: str | Callable[[Any], Any], question: str, *,
           accept: Accept[Any], hints: list[str], explanation: str,
           mistakes: dict[Any, str] | list[tuple[Any, str]] | None = None) -> Made:
    """A row of the table answered by claim ``claim_id``'s observation, or the part of it that
    ``pick`` names (a key of it, or a function of it): ``Exercise.from_claim``."""
    part = operator.itemgetter(pick) if isinstance(pick, str) else pick
    return lambda lesson: Exercise.from_claim(claim_id, question, part, hints, accept=accept,
                                              mistakes=mistakes, explanation=explanation,
                                              lesson=lesson)


# Each exercise by name: the lesson it is filed in is its name's first two digits.
EXERCISES: dict[str, Made] = {
    "00.when": _claim(
        "O3", "datetime", N_("When was ObjectId 507f1f77bcf86cd799439011 created (UTC)?"),
        accept=Time(utc=N_("the ObjectId's time")),
        hints=[N_("Convert the first 8 hex digits to a number of seconds, then to a UTC date: "
                  "int('507f1f77', 16) is a start."),
               N_("datetime.datetime.fromtimestamp(seconds, datetime.UTC) turns seconds into a "
                  "date.")],
        explanation=N_("The first 4 bytes, 507f1f77, are 1,350,508,407 seconds after 1970-01-01 "
                       "UTC. The time has whole seconds only: an ObjectId does not store "
                       "milliseconds.")),
    "01.string_bytes": _claim(
        "D2", "string_bytes", N_("Bytes of the 24-character ISO string as a BSON value?"),
        accept=Number(units=BYTES),
        hints=[N_("A BSON string is more than its characters: something comes before them and "
                  "something after."),
               N_("Before: an int32 length (4 bytes). After: a closing NUL (1 byte).")],
        mistakes={24: N_("24 is the characters alone. What does BSON put before and after "
                         "them?"),
                  25: N_("You counted the closing NUL. What comes before the characters?")},
        explanation=N_("4 bytes of length + 24 characters + 1 NUL = 29 bytes, against 8 for a "
                       "Date.")),
    "01.string_range": _claim(
        "D3", "string_range", N_("Which events does the string range at >= '2026-10-01' return?"),
        accept=AsSet(choices=_events),
        hints=[N_("Strings compare byte by byte, left to right. Compare the sixth character."),
               N_("The sixth character of '2026-9-30' is '9'; of '2026-10-01' it is '1'.")],
        mistakes=[(["b", "c"], N_("That is what real Dates would give. These are strings: compare "
                                  "them character by character, as a dictionary would."))],
        explanation=N_("'2026-9-30' is greater than '2026-10-01' because '9' > '1' at the first "
                       "character that differs, so the 30th of September falls inside the October "
                       "range.")),
    "01.silent": _claim(
        "D3", "date_field_string_operand",
        N_("What does a Date field queried with a string operand return?"),
        accept=AsSet(choices=_events),
        hints=[N_("Query comparisons only look at values of the operand's type (lesson 03)."),
               N_("The operand is a string. How many of the atDate values are strings?")],
        mistakes=[(["b", "c"], N_("The server does not convert the string to a Date for you.")),
                  (Said(N_("an error"), says_error),
                   N_("No error: a string operand makes a valid query, which the server "
                      "answers. A query compares only values of the operand's type: which "
                      "atDate values are strings?"))],
        explanation=N_("A query comparison only matches values in the operand's type bracket. No "
                       "atDate value is a string, so nothing matches, and no error says so.")),
    "02.first": _claim(
        "S2",
        lambda observed: observed["v_then_id"][0],
        N_("Which _id sorts first?"),
        accept=Spelling(case=False, aliases=NAMES, choices=_ladder),
        hints=[N_("Something sorts below null. It is not MinKey, and it is not missing."),
               N_("Look at the arrays: which one has no element to represent it?")],
        mistakes={"null": N_("null is low, but one value sorts even lower."),
                  "missing": N_("A missing field sorts as null. One value sorts below null.")},
        explanation=N_("An empty array has no element to stand for it, so it sorts below null; "
                       "a missing field sorts as null and ties with it, and _id breaks the tie.")),
    "02.after_array": _claim(
        "S2",
        lambda observed: observed["v_then_id"][observed["v_then_id"].index("array") + 1],
        N_("Which _id comes right after 'array'?"),
        accept=Spelling(case=False, aliases=NAMES, choices=_ladder),
        hints=[N_("In an ascending sort an array is represented by its smallest element."),
               N_("The smallest element of [5, 'x'] is the number 5. Which number comes next?")],
        mistakes={"object": N_("An array is not sorted on the Array rung here: in a sort it stands "
                               "for one of its elements.")},
        explanation=N_("Ascending, [5, 'x'] sorts as its smallest element, 5 (numbers sort before "
                       "strings), so it sits among the numbers, just before the double 9.5.")),
    "03.gt_zero": _claim(
        "B1", "gt_0", N_("Which orders does {userId: {$gt: 0}} return?"),
        accept=AsSet(choices=_orders, left_out=_numbers_left_out),
        hints=[N_("Is the string '42' greater than 0? A query never asks."),
               N_("Which bracket is the operand 0 in, and which documents have a value in it?")],
        mistakes=[([1, 2, 3, 4, 5], N_("That is the sort order's answer (every string above every "
                                       "number). A query does not compare across brackets."))],
        explanation=N_("0 is a number, so $gt: 0 only looks at numbers: every numeric 42 (int, "
                       "long, 42.0, decimal) matches; the string '42' is in another bracket and "
                       "is never compared.")),
    "03.expr": _claim(
        "X1", "expr_gt_0", N_("Which orders does $expr {$gt: ['$userId', 0]} return?"),
        accept=AsSet(choices=_orders),
        hints=[N_("Aggregation expressions compare with the full sort order of lesson 02."),
               N_("In the sort order, where does every string stand relative to every number?")],
        mistakes=[([1, 3, 4, 5], N_("That is the query operator's answer. $expr does not "
                                    "bracket."))],
        explanation=N_("$expr compares with the full BSON order, where every string sorts above "
                       "every number, so the string '42' is greater than 0 and matches too.")),
    "03.array_fate": _claim(
        "X4",
        lambda observed: 1 in observed["eq_element"],
        N_("Does find({a: 10}) return the document {_id: 1, a: [1, 10]}?"),
        accept=Bool(),
        hints=[N_("Is a condition on an array asked of the array as a whole only?"),
               N_("A condition on an array field is asked of the array and of each of its "
                  "elements: is one of them 10?")],
        mistakes=[(False, N_("The array [1, 10] is not 10, but a scalar condition is also asked "
                             "of each element, and one element is 10."))],
        explanation=N_("A condition on an array matches when the array as a whole or any one of "
                       "its elements matches: the element 10 equals 10, so the document is "
                       "returned (labkit.explain names the rule: array-element-matching).")),
    "04.timestamp_hex": _claim(
        "O2", "timestamp_hex", N_("Timestamp field of an ID made at 1,700,000,000 s?"),
        accept=Hex(),
        hints=[N_("Write 1,700,000,000 in base 16 and pad it to 8 digits: hex(1_700_000_000)."),
               N_("hex() gives '0x…'; the field is the 8 digits after the prefix.")],
        mistakes={"1700000000": N_("1700000000 is the number of seconds in decimal; the field "
                                   "holds the same number in base 16 (hex digits). Typed "
                                   "without quotes, 0x\u2026 becomes this decimal number in "
                                   "Python: put hex digits in quotes.")},
        explanation=N_("1,700,000,000 = 0x6553f100: exactly 8 hex digits, the 4 timestamp bytes, "
                       "big-endian so that IDs sort by time first.")),
    "04.next_id": _claim(
        "O2", "next", N_("The ID after 6553f1003f2a91c8d4003039 in the same second?"),
        accept=Hex(),
        hints=[N_("Same second, same process: only one field changes, and by exactly one."),
               N_("The counter is the last 6 hex digits. What is 0x003039 + 1, in hex?")],
        mistakes={"6553f1003f2a91c8d4003040": N_("The counter is hex: after 9 comes a, not 10.")},
        explanation=N_("Same second and same process keep the timestamp and the random value; the "
                       "counter steps from 0x003039 to 0x00303a.")),
    "04.after_top": _claim(
        "O4",
        lambda observed: observed["counter_wrap"][1],
        N_("The counter after 16,777,215?"),
        accept=Number(),
        hints=[N_("A 3-byte counter has no room for 16,777,216."),
               N_("Like a car's odometer at 999999: what does it show one step later?")],
        mistakes={16_777_216: N_("That needs a 25th bit; the counter has 24.")},
        explanation=N_("16,777,215 is 0xffffff, the largest 3-byte value; one more wraps to 0.")),
    "04.uuid_bytes": _claim(
        "O10", "uuid_bson_value_bytes", N_("Bytes of a UUID as a BSON value?"),
        accept=Number(units=BYTES),
        hints=[N_("Binary data in BSON is an int32 length, then a subtype byte, then the bytes."),
               N_("4 + 1 + the UUID's own bytes.")],
        mistakes={16: N_("16 is the UUID alone. What does BSON put in front of binary data?")},
        explanation=N_("A BSON binary value is a 4-byte length, a 1-byte subtype (4 for UUID) and "
                       "the 16 bytes: 21 bytes, against 12 for an ObjectId, which needs neither.")),
    "05.randoms": _claim(
        "O6", "random_values",
        N_("Distinct random values among 15 IDs from 3 processes in one second?"),
        accept=Number(units=VALUES),
        hints=[N_("The random value is chosen once per process, not once per ID."),
               N_("Think of the ticket machines: how many machines printed these tickets?")],
        mistakes={15: N_("That would be a new random value per ID. How often is it drawn?"),
                  1: N_("One would mean all processes share it; each process draws its own.")},
        explanation=N_("Each process draws its random value once, when it starts: 3 processes, "
                       "3 values, each shared by that process's 5 IDs.")),
    "05.same_random": _claim(
        "O7",
        lambda observed: not observed["server_random_differs_from_client"],
        N_("Does a server-generated _id carry the client's random value?"),
        accept=Bool(),
        hints=[N_("Which process generated the ID?"),
               N_("The random value belongs to the process that makes the ID: here, mongod.")],
        explanation=N_("An upsert without _id lets mongod make the ID, with mongod's own random "
                       "value; the notebook's pymongo has a different one.")),
    "05.from_bound": _claim(
        "O8", "count_from_lower_bound", N_("Documents counted from the from_datetime lower bound?"),
        accept=Number(units=DOCUMENTS),
        hints=[N_("The bound is the smallest possible ID of that second."),
               N_("Count every document made in that second and in the one after.")],
        mistakes={20: N_("Those are the documents of that second. What about the second after?"),
                  30: N_("The 5 from the second before have a smaller timestamp.")},
        explanation=N_("The bound has zeros after the timestamp, so every ID of that second is at "
                       "or above it, and so is every later one: 20 + 5 = 25.")),
    "05.inversion": _claim(
        "O9", "later_process_sorts_first",
        N_("Can the later process's documents sort first by _id?"),
        accept=Bool(),
        hints=[N_("Within one second, which field decides the order?"),
               N_("After the timestamp comes the random value. Who chose it, and how?")],
        explanation=N_("Within one second the random value decides, and it is random: a later "
                       "process sorts first whenever its random value is smaller.")),
    "06.random_fill": asked(
        N_("Average leaf fill of the model after random inserts with 50/50 splits?"),
        lambda: _session().btree_load("model", ["uuid4"], policy="half").results[0].avg_leaf_fill,
        engine=textbook_btree,
        # The run's figure varies from run to run by about a point: the theory's ln 2, which
        # the explanation gives, counts as right too, so that an answer's verdict does not
        # depend on the run's noise.
        accept=Fraction(tolerance=0.03, also=(math.log(2),)),
        hints=[N_("A page just split is half full, but it keeps filling until its next split. "
                  "Where between 1/2 and 1 does it spend its life on average?"),
               N_("Somewhere between a half and the midpoint 75%: full pages split sooner than "
                  "half-full ones fill up, so the average sits below the midpoint, yet well "
                  "above a half.")],
        mistakes={0.5: N_("That is a page just after its split. It keeps receiving keys."),
                  0.75: N_("The midpoint is a fair first guess, but pages near full split away.")},
        explanation=N_("Random inserts into a B-tree fill pages to about ln 2 = 69% on average "
                       "(A. C.-C. Yao, 1978), not 50%: a half page keeps receiving keys until it "
                       "splits again."),
        measured=N_("the learner's run measures it on labkit's textbook B-tree (random keys: "
                    "the figure varies a little from run to run)")),
    "06.sqlite_bigger": asked(
        N_("On SQLite, is the UUIDv4 index more than 25% larger than the UUIDv7 index?"),
        lambda: _sqlite_larger_by() > 0.25,
        engine=_sqlite,
        accept=Bool(),
        hints=[N_("SQLite balances a full page with its siblings instead of splitting it in two."),
               N_("If random-key pages end as full as sequential ones, how much larger can the "
                  "index be?")],
        explanation=N_("SQLite rebalances a full page with its neighbours, so random keys leave "
                       "its leaves about as full as sequential ones: the UUIDv4 index is hardly "
                       "larger."),
        measured=N_("the learner's run measures it on SQLite (random keys: the sizes vary a "
                    "little from run to run)")),
    # The answer is the learner's own run's: how many times UUIDv4's bytes are UUIDv7's depends
    # on N, the engine and its cache (PostgreSQL at N = 200,000: six times through a 4 MB
    # cache, under twice through a 128 MB one, under twice at N = 50,000 through either). No
    # question about bytes written has one answer on every engine and N (at a few thousand keys
    # random keys may even write less), so this one is judged against the run's measurement,
    # which says what caused it.
    "06.write_volume": asked(
        N_("On the engine printed above, at this run's N and with a checkpoint every 50,000 "
           "keys, do UUIDv4 keys make it write more than twice the bytes UUIDv7 keys do?"),
        lambda: _write_reading().ratio > 2,
        engine=lambda: (_write_reading().engine,) * 2,
        accept=Bool(),
        hints=[N_("A page is written whole after a checkpoint (at its first change), when it "
                  "leaves the cache changed, and, in SQLite, at each commit that changed it."),
               N_("Random keys change pages all over the index, sequential keys the one at its "
                  "right edge. How large is the UUIDv4 index at this N (section 2's table, this "
                  "engine's row), and does it fit in the cache printed above?")],
        explanation=N_("Random keys change pages all over the index, and each page changed is "
                       "written whole: after a checkpoint, when it is evicted from the cache, "
                       "and in SQLite at each commit."),
        more=N_("How many times the bytes that makes is the run's own: it grows with N and "
                "with the index against the engine's cache, so the answer is yes on one engine "
                "or N and no on another."),
        finding=lambda: _write_reading().text,
        measured=N_("the learner's run measures it on the first engine that runs (PostgreSQL, "
                    "else WiredTiger, else SQLite) at the learner's N, and the answer depends "
                    "on both: no where the index is small, yes once random keys make the engine "
                    "rewrite many pages (an index that outgrows the cache, checkpoints during a "
                    "long load, SQLite's commits on a large index); the instructors' guide "
                    "gives figures measured at two N on each engine")),
    "07.mongomock_42": asked(
        N_("Which _ids does mongomock return for find({userId: 42})?"),
        _mongomock_eq_42,
        engine=_mongomock,
        accept=AsSet(choices=_orders),
        hints=[N_("The five values are int32 42, the string \"42\", Int64 42, the shell's 42.0 "
                  "(an int32) and Decimal128(\"42.00\"). Which of them is not a Python number?"),
               N_("Decimal128 is a class of its own in Python; a fake that compares with Python's "
                  "== does not see it as 42.")],
        mistakes=[([1, 3, 4, 5], N_("That is MongoDB's answer (every numeric type matches). The "
                                    "question is what the fake answers.")),
                  (Said(N_("an error"), says_error),
                   N_("mongomock raises on some of this lesson's questions, but not on this one: "
                      "it answers find({userId: 42}) with _ids. Which of the five does it "
                      "match?"))],
        explanation=N_("mongomock returns 1, 3 and 4: it misses the Decimal128 document, which "
                       "MongoDB matches because all numeric types share one bracket and compare "
                       "by value.")),
    "08.missing_last": _08_missing_last,
    **QUERY_EXERCISES,  # the queries the learner writes
    **RECALL_EXERCISES,  # each lesson's warm-up and closing quiz
}


def exercise(name: str) -> Exercise:
    """A fresh exercise of a lesson by name, such as ``"01.string_range"``."""
    if name not in EXERCISES:
        raise BadInput(Message(N_("no exercise {name}; known: {known}"), name=repr(name),
                               known=", ".join(EXERCISES)))
    return EXERCISES[name](name[:2])
