"""Retrieval practice, by name: the warm-up that opens each lesson from 02 on with a question
from the lesson before (``"03.warm_up"``), and the short mixed quiz that closes every lesson
(``"03.quiz_ne"``), some of its questions from earlier lessons.

Each answer is computed when first needed, by labkit's model of MongoDB's rules, its textbook
B-tree or pymongo's bson library, never typed in. ``RECALLS`` says which lesson's idea each
question asks; ``score`` says how a lesson's questions went, from the learner's progress, and
names the lesson to read again for each one missed on the first try.
"""

from __future__ import annotations

import datetime as dt
import html
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bson import Decimal128, ObjectId

from labkit.i18n import N_, _
from labkit.lessons import course
from labkit.lessons.exercises import (
    BYTES,
    MODEL_NAME,
    AsSet,
    Bool,
    Fraction,
    Made,
    Number,
    Spelling,
    Time,
    asked,
    textbook_btree,
)
from labkit.model import bson_order, keys, objectid, reads, uuids
from labkit.model.versions import CURRENT_MAJOR
from labkit.outputs.escape import as_typed

if TYPE_CHECKING:
    from labkit.lessons.rules import Accept
    from labkit.model.bson_order import Document

# Units a learner may write after a number (as typed, in either language: not translated).
_MILLISECONDS = ("ms", "milliseconds", "millisecond", "mili giây", "miligiây")
_IDS = ("ids", "id", "documents", "document", "tài liệu")


def _model() -> tuple[str, str]:
    """labkit's model of MongoDB's rules, and with the rules' version (what answers)."""
    return _(MODEL_NAME), _("labkit's model ({version} rules)").format(
        version=CURRENT_MAJOR)


def _bson() -> tuple[str, str]:
    """pymongo's bson library, and with its version."""
    import pymongo  # the driver loads when a question names it, as bson alone does not

    return "pymongo bson", f"pymongo bson {pymongo.version}"


def _before(a: Any, b: Any) -> bool:
    """Whether ``a`` sorts before ``b`` in MongoDB's ascending order of values."""
    return bson_order.compare(a, b) < 0


def _first_by(docs: list[Document], sort: Document, last: bool = False) -> Any:
    """The ``_id`` that ``find().sort(sort)`` gives first (or last)."""
    return bson_order.sort(docs, sort)[-1 if last else 0]["_id"]


def _fill(inserted: Iterable[Any], policy: str) -> float:
    """The average leaf fill of labkit's textbook B-tree (64 keys a page) after ``inserted``."""
    from labkit.engines.btree_model import BPlusTree  # the engines load when a question asks

    tree = BPlusTree(64, policy)
    for key in inserted:
        tree.insert(key)
    fills = tree.leaf_fills()
    return sum(fills) / len(fills)


# 00 · Start here ----------------------------------------------------------------------------

def _objectid_keeps_milliseconds() -> bool:
    made = dt.datetime(2026, 1, 1, 12, 0, 0, 750_000, tzinfo=dt.UTC)
    return ObjectId.from_datetime(made).generation_time.microsecond != 0


# 01 · Dates are not strings -------------------------------------------------------------------

_MONTHS = ("2026-12-01", "2026-2-01")


def _first_month_string() -> str:
    early, late = _MONTHS
    return early if _before(early, late) else late


def _hour_in_milliseconds() -> int:
    start = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
    return bson_order.millis(start + dt.timedelta(hours=1)) - bson_order.millis(start)


# 02 · BSON sort order -------------------------------------------------------------------------

def _dates_under_a_string() -> int:
    docs = [{"_id": day, "atDate": dt.datetime(2026, 10, day, tzinfo=dt.UTC)}
            for day in (1, 2, 3)]
    return len(reads.find(docs, {"atDate": {"$lt": "2030"}}))


# 03 · Type bracketing -------------------------------------------------------------------------

_LETTERS: list[Document] = [{"_id": 1, "v": "a"}, {"_id": 2, "v": 5}, {"_id": 3, "v": "z"},
                            {"_id": 4, "v": None}]


# 04 · ObjectId anatomy ------------------------------------------------------------------------

def _one_process_one_random() -> bool:
    maker = objectid.Generator()
    first, later = maker.next(at=1_700_000_000), maker.next(at=1_700_000_060)
    return bool(objectid.split(first).random == objectid.split(later).random)


# 05 · ObjectId ordering -----------------------------------------------------------------------

def _counter_two_later() -> int:
    made = objectid.Generator(random=1, counter=0xFFFFFE).batch(3, at=1_700_000_000)
    return int(objectid.split(made[-1]).counter)


_FIELDS = ("timestamp", "random", "counter")


def _deciding_field() -> str:
    """The first field in which two IDs made by two processes in one second differ."""
    second = 1_700_000_000
    one, two = (objectid.split(objectid.Generator().next(at=second)) for _ in range(2))
    return next(field for field in _FIELDS if getattr(one, field) != getattr(two, field))


def _below_the_lower_bound() -> int:
    second = 1_791_417_600  # 2026-10-08T00:00:00Z
    bound = ObjectId.from_datetime(dt.datetime.fromtimestamp(second, tz=dt.UTC))
    made = objectid.Generator().batch(20, at=second)
    return sum(ObjectId(oid) < bound for oid in made)


# 06 · B-trees ----------------------------------------------------------------------------------

def _skewed_client_sorts_first() -> bool:
    """Client A writes at second t; B, its clock 2 s behind, writes 1 s later."""
    t = 1_700_000_000
    a = objectid.Generator().next(at=t)
    b = objectid.Generator().next(at=t + 1 - 2)
    return b < a  # equal-length lowercase hex sorts as the bytes do


def _uuid7_time_bits() -> int:
    return int(uuids.v7_fields(uuid.UUID(int=(1 << 128) - 1))["unix_ts_ms"].bit_length())


# 07 · Can you trust your fake? ----------------------------------------------------------------

def _random_fills_fuller() -> bool:
    random_fill = _fill(keys.stream("uuid4", 5_000), "half")
    return random_fill > _fill(keys.stream("int", 5_000), "half")


def _one_process_sorts_in_order() -> bool:
    made = objectid.Generator(counter=1_000).batch(5, at=1_700_000_000)
    return sorted(made) == made


# 08 · A claim from the wild -------------------------------------------------------------------

_PRODUCTS: list[Document] = [{"_id": "book", "price": 12}, {"_id": "sticker"},
                             {"_id": "lamp", "price": 30}]
_EMPTY_OR_NULL: list[Document] = [{"_id": "null", "v": None}, {"_id": "empty", "v": []}]


def _names(docs: list[Document]) -> Callable[[], list[str]]:
    return lambda: [str(doc["_id"]) for doc in docs]


def _recall(recalls: str, question: str, observe: Callable[[], Any], hint: str | list[str], *,
            mistake: tuple[Any, str], explanation: str, accept: Accept[Any] | None = None,
            engine: Callable[[], tuple[str, str]] = _model) -> tuple[str, Made]:
    """A row of the table: the lesson whose idea the question asks (``recalls``), and the
    exercise, with its one common mistake; a yes-or-no question unless ``accept`` says
    otherwise, answered by labkit's model unless ``engine`` names another."""
    return recalls, asked(question, observe, hint, mistakes=[mistake], explanation=explanation,
                          accept=accept or Bool(), engine=engine)


# Each question: the lesson whose idea it asks, and how it is made. A lesson's warm-up asks the
# lesson before it; its quiz mixes its own ideas with earlier lessons'.
_QUESTIONS: dict[str, tuple[str, Made]] = {
    "00.quiz_seconds": _recall("00",
        N_("An ObjectId begins with 00000e10. How many seconds after 1970-01-01 UTC was it "
           "made?"),
        lambda: int(objectid.split("00000e10" + "0" * 16).timestamp),
        N_("The first 8 hex digits are the time: int('00000e10', 16)."),
        mistake=(0xE10 * 1000, N_("That is milliseconds; an ObjectId counts whole "
                                   "seconds.")),
        explanation=N_("0x00000e10 is 3,600: an ObjectId's first 4 bytes count whole seconds "
                       "since 1970-01-01 UTC, here one hour."),
        accept=Number(units=("seconds", "second", "s", "giây"))),
    "00.quiz_string_42": _recall("00",
        N_("Does the filter {\"userId\": \"42\"} return an order whose userId is the number "
           "42?"),
        lambda: reads.matches({"_id": 1, "userId": 42}, {"userId": "42"}),
        N_("Quotes make a string. Is the number 42 equal to the string \"42\"?"),
        mistake=(True, N_("A string and a number are never equal in a query: they sit in "
                          "different type brackets (lesson 03).")),
        explanation=N_("An equality filter on the string \"42\" matches that string only; the "
                       "number 42 is another type.")),
    "00.quiz_milliseconds": _recall("00",
        N_("An ObjectId is made at 12:00:00.750 UTC. Does the time it holds keep the 750 "
           "milliseconds?"),
        _objectid_keeps_milliseconds,
        N_("What unit does an ObjectId's first field count?"),
        mistake=(True, N_("Its first field counts whole seconds; the milliseconds are "
                          "dropped.")),
        explanation=N_("An ObjectId stores whole seconds only (ObjectId.from_datetime drops "
                       "the rest): store a Date when the time is data."),
        engine=_bson),
    "01.quiz_month": _recall("01",
        N_("As strings, which sorts first: \"2026-12-01\" or \"2026-2-01\"?"),
        _first_month_string,
        [N_("Strings compare character by character, from the left."),
         N_("The first difference is the sixth character: '1' against '2'.")],
        mistake=("2026-2-01", N_("That is the calendar's order. As strings, compare the "
                                 "sixth characters.")),
        explanation=N_("Strings compare bytewise: at the sixth character '1' < '2', so "
                       "December sorts before February. Store Dates, not strings."),
        accept=Spelling(choices=lambda: list(_MONTHS))),
    "01.quiz_hour_ms": _recall("01",
        N_("Two BSON Dates are one hour apart. By how much do the numbers they store differ?"),
        _hour_in_milliseconds,
        N_("A Date counts milliseconds since 1970-01-01 UTC."),
        mistake=(3_600, N_("That is seconds; a Date counts milliseconds.")),
        explanation=N_("A Date is a 64-bit count of milliseconds: one hour is 3,600,000 of "
                       "them."),
        accept=Number(units=_MILLISECONDS)),
    "01.quiz_objectid_time": _recall("00",
        N_("When (UTC) was ObjectId 5f5e1000a9fded4f0c2e7ec8 made?"),
        lambda: objectid.split("5f5e1000a9fded4f0c2e7ec8").datetime,
        [N_("Lesson 00: the first 8 hex digits are seconds since 1970: int('5f5e1000', 16)."),
         N_("datetime.datetime.fromtimestamp(seconds, datetime.UTC) turns seconds into a "
            "date.")],
        mistake=("1970-01-01T00:00:00Z", N_("1970 is where the count starts; add the "
                                            "seconds the first 8 hex digits hold.")),
        explanation=N_("0x5f5e1000 is 1,600,000,000 seconds after 1970-01-01 UTC; the other "
                       "16 hex digits hold no time."),
        accept=Time(utc=N_("the ObjectId's time"))),
    "02.warm_up": _recall("01",
        N_("Does {at: {$gte: \"2026-10-01\"}} match a document whose at is the string "
           "\"2026-5-20\"?"),
        lambda: reads.matches({"_id": 1, "at": "2026-5-20"}, {"at": {"$gte": "2026-10-01"}}),
        [N_("These are strings: compare them character by character."),
         N_("The sixth characters: '5' against '1'.")],
        mistake=(False, N_("May is before October on the calendar, but these are strings: "
                           "'5' > '1' at the sixth character.")),
        explanation=N_("As strings, \"2026-5-20\" > \"2026-10-01\" because '5' > '1': an "
                       "unpadded month lands inside the range.")),
    "02.quiz_number_string": _recall("02",
        N_("Ascending, does the string \"1\" sort before the number 100?"),
        lambda: _before("1", 100),
        N_("Type decides first, value second."),
        mistake=(True, N_("\"1\" is smaller as text, but every number sorts before every "
                          "string.")),
        explanation=N_("Type decides first: numbers stand below strings on the ladder, so 100 "
                       "comes before \"1\".")),
    "02.quiz_descending": _recall("02",
        N_("In sort({v: -1}), which value stands for the array [2, 7, 30]?"),
        lambda: bson_order.sort_key({"_id": 1, "v": [2, 7, 30]}, "v", descending=True),
        N_("Ascending, an array sorts by its smallest element. And descending?"),
        mistake=(2, N_("That is the ascending stand-in. Descending takes the other end.")),
        explanation=N_("Descending, an array sorts by its largest element: 30."),
        accept=Number()),
    "02.quiz_date_string": _recall("01",
        N_("atDate holds a Date in each of 3 documents. How many does {atDate: {$lt: "
           "\"2030\"}} return?"),
        _dates_under_a_string,
        [N_("Lesson 01: the operand is a string."),
         N_("A query compares only values of the operand's type.")],
        mistake=(3, N_("Every Date is before 2030, but the operand is a string: a Date is "
                       "never compared with it.")),
        explanation=N_("A string operand only meets strings: no Date is compared, so nothing "
                       "matches, and no error says so."),
        accept=Number(units=_IDS)),
    "03.warm_up": _recall("02",
        N_("Ascending, does the empty string \"\" sort after the number 1,000,000?"),
        lambda: _before(1_000_000, ""),
        N_("Lesson 02: which decides first, the type or the value?"),
        mistake=(False, N_("\"\" is the smallest string, but every string sorts after every "
                           "number.")),
        explanation=N_("In the sort order type decides first: every string, even \"\", comes "
                       "after every number.")),
    "03.quiz_lt_string": _recall("03",
        N_("Of {_id: 1, v: \"a\"}, {_id: 2, v: 5}, {_id: 3, v: \"z\"} and {_id: 4, v: null}, "
           "which does find({v: {$lt: \"m\"}}) return?"),
        lambda: reads.ids(reads.find(_LETTERS, {"v": {"$lt": "m"}})),
        [N_("The operand \"m\" is a string: which values are in its bracket?")],
        mistake=([1, 2, 4], N_("That is the sort order's answer. A query compares only "
                               "within the operand's bracket.")),
        explanation=N_("$lt: \"m\" only meets strings: \"a\" matches, \"z\" does not, and the "
                       "number and null are never compared."),
        accept=AsSet(choices=[1, 2, 3, 4])),
    "03.quiz_ne": _recall("03",
        N_("Does find({userId: {$ne: 42}}) return the order whose userId is the string "
           "\"42\"?"),
        lambda: reads.matches({"_id": 2, "userId": "42"}, {"userId": {"$ne": 42}}),
        N_("$ne is \"not equal\": is the string \"42\" equal to the number 42?"),
        mistake=(False, N_("$ne does not bracket: it matches every value not equal to 42, "
                           "strings included.")),
        explanation=N_("$ne, $nin and $expr see every type: the string \"42\" is not equal to "
                       "42, so it matches.")),
    "03.quiz_decimal": _recall("02",
        N_("Ascending, does Decimal128(\"2\") sort before the double 2.5?"),
        lambda: _before(Decimal128("2"), 2.5),
        N_("Lesson 02: do the numeric types have a rung each, or share one?"),
        mistake=(False, N_("All numeric types share one rung and compare by value.")),
        explanation=N_("All numeric types share one rung and compare by value: 2 < 2.5.")),
    "04.warm_up": _recall("03",
        N_("Does find({userId: {$gte: \"4\"}}) return an order whose userId is the number 42?"),
        lambda: reads.matches({"_id": 1, "userId": 42}, {"userId": {"$gte": "4"}}),
        N_("Lesson 03: which bracket is the operand \"4\" in?"),
        mistake=(True, N_("A string operand never meets numbers: the number 42 is not "
                          "compared.")),
        explanation=N_("Type bracketing: $gte: \"4\" only looks at strings, so the number 42 "
                       "is skipped.")),
    "04.quiz_counter": _recall("04",
        N_("What is the counter of ObjectId 6553f1003f2a91c8d40000ff, as a number?"),
        lambda: int(objectid.split("6553f1003f2a91c8d40000ff").counter),
        N_("The counter is the last 6 hex digits."),
        mistake=(0xD40000FF, N_("That reads 8 hex digits, into the random value: the counter "
                                "is the last 6.")),
        explanation=N_("The last 3 bytes, 0000ff, are the counter: 255."),
        accept=Number()),
    "04.quiz_random": _recall("04",
        N_("One process makes two IDs a minute apart. Do they share their random value?"),
        _one_process_one_random,
        N_("How often is the random value drawn?"),
        mistake=(False, N_("The random value is drawn once per process, not per second.")),
        explanation=N_("The random value is chosen once per process: every ID it makes carries "
                       "it; only the timestamp and the counter change.")),
    "04.quiz_expr": _recall("03",
        N_("Does {$expr: {$lt: [\"$userId\", 100]}} match an order whose userId is the string "
           "\"42\"?"),
        lambda: reads.matches({"_id": 2, "userId": "42"}, {"$expr": {"$lt": ["$userId", 100]}}),
        N_("Lesson 03: $expr compares with the full sort order."),
        mistake=(True, N_("42 < 100 as numbers, but this is a string: in the sort order "
                          "every string is above every number.")),
        explanation=N_("$expr compares across types: the string \"42\" is above every number, "
                       "so it is not below 100.")),
    "05.warm_up": _recall("04",
        N_("A process makes three IDs in a row; the first has the counter 0xfffffe. What is the "
           "third one's counter, as a number?"),
        _counter_two_later,
        N_("Lesson 04: the counter has 3 bytes. What comes after 0xffffff?"),
        mistake=(0x1000000, N_("That needs a 25th bit; the counter has 24 and wraps.")),
        explanation=N_("0xfffffe, then 0xffffff, then the 3-byte counter wraps to 0."),
        accept=Number()),
    "05.quiz_deciding": _recall("05",
        N_("Two processes each make one ID in the same second. Which field decides which ID "
           "sorts first: timestamp, random or counter?"),
        _deciding_field,
        N_("The fields compare in order: which is the first that differs?"),
        mistake=("counter", N_("The counter comes last; an earlier field already "
                               "differs.")),
        explanation=N_("The timestamps are equal, so the random value decides: each process "
                       "drew its own, so the order is random."),
        accept=Spelling(case=False, choices=lambda: list(_FIELDS),
                    aliases={"random": ("random value", "giá trị ngẫu nhiên", "ngẫu nhiên"),
                             "timestamp": ("dấu thời gian",), "counter": ("bộ đếm",)})),
    "05.quiz_lower_bound": _recall("05",
        N_("Of 20 IDs made in one second, how many sort below ObjectId.from_datetime of that "
           "second?"),
        _below_the_lower_bound,
        N_("from_datetime fills everything after the timestamp with zeros."),
        mistake=(20, N_("The bound is the smallest ID of its second: none of that second is "
                        "below it.")),
        explanation=N_("The bound is the timestamp followed by zeros, the smallest ID of that "
                       "second: every ID of it is at or above it."),
        accept=Number(units=_IDS)),
    "05.quiz_random_bytes": _recall("04",
        N_("How many bytes of an ObjectId are its random value?"),
        lambda: len(bytes.fromhex(objectid.explain("6553f1003f2a91c8d4003039")["random"])),
        N_("Lesson 04: 12 bytes, timestamp 4, counter 3."),
        mistake=(10, N_("10 is its hex digits; two hex digits make a byte.")),
        explanation=N_("4 bytes of timestamp, 5 of random value and 3 of counter make 12."),
        accept=Number(units=BYTES)),
    "06.warm_up": _recall("05",
        N_("Client B's clock is 2 seconds behind A's. B makes an ID 1 second after A. Does "
           "B's ID sort first?"),
        _skewed_client_sorts_first,
        N_("Lesson 05: each client stamps IDs with its own clock."),
        mistake=(False, N_("B wrote later, but its clock says one second earlier, and the "
                           "timestamp comes first.")),
        explanation=N_("B's timestamp is a second earlier than A's, and the timestamp decides "
                       "first: B sorts first.")),
    "06.quiz_sequential": _recall("06",
        N_("Sequential keys, 50/50 splits: the textbook B-tree's average leaf fill?"),
        lambda: _fill(range(6_400), "half"),
        N_("Each split leaves a half page behind. Does a sequential key ever go back there?"),
        mistake=(1.0, N_("That is with rightmost splits. A 50/50 split leaves half pages "
                         "that never fill again.")),
        explanation=N_("Sequential keys always go into the rightmost page; a 50/50 split "
                       "leaves the left half behind for good, so leaves stay half full."),
        accept=Fraction(), engine=textbook_btree),
    "06.quiz_rightmost": _recall("06",
        N_("Sequential keys, rightmost splits: the textbook B-tree's average leaf fill?"),
        lambda: _fill(range(6_400), "rightmost"),
        N_("A rightmost split moves only the new key to the new page."),
        mistake=(0.5, N_("That is with 50/50 splits. Here the old page keeps every key.")),
        explanation=N_("A rightmost split leaves the old page full and starts a new one with "
                       "the new key, so the leaves end about full."),
        accept=Fraction(), engine=textbook_btree),
    "06.quiz_uuid7_bits": _recall("06",
        N_("How many of a UUIDv7's 128 bits hold its time in milliseconds?"),
        _uuid7_time_bits,
        N_("Section 0's layout: the time comes first."),
        mistake=(32, N_("32 bits is an ObjectId's timestamp, in seconds.")),
        explanation=N_("A UUIDv7 starts with 48 bits of Unix time in milliseconds (RFC 9562), "
                       "so its keys arrive in time order."),
        accept=Number(units=("bits", "bit"))),
    "06.quiz_objectid_bytes": _recall("04",
        N_("A UUID is 16 bytes. How many bytes is an ObjectId?"),
        lambda: len(ObjectId("6553f1003f2a91c8d4003039").binary),
        N_("Lesson 04: timestamp, random value, counter."),
        mistake=(24, N_("24 is its hex digits; two make a byte.")),
        explanation=N_("4 + 5 + 3 = 12 bytes: a smaller key than a UUID."),
        accept=Number(units=BYTES), engine=_bson),
    "07.warm_up": _recall("06",
        N_("With 50/50 splits, do random keys fill the leaves fuller than sequential keys?"),
        _random_fills_fuller,
        N_("Lesson 06: sequential keys leave half pages behind; random keys come back to "
           "them."),
        mistake=(False, N_("Random keys keep landing in half pages and fill them; "
                           "sequential keys never go back.")),
        explanation=N_("Random keys fill pages to about 69% on average; sequential keys with "
                       "50/50 splits leave them at 50%."),
        engine=textbook_btree),
    "07.quiz_null_missing": _recall("07",
        N_("Does find({a: null}) return the document {_id: 1}, which has no field a?"),
        lambda: reads.matches({"_id": 1}, {"a": None}),
        N_("What does null stand for in a query: the value null only, or also no value at all?"),
        mistake=(False, N_("A query for null also matches a missing field.")),
        explanation=N_("{a: null} matches a null and a missing field alike; {a: {$exists: "
                       "false}} asks for missing only.")),
    "07.quiz_nan": _recall("07",
        N_("Does MongoDB's find({v: NaN}) return a document whose v is NaN?"),
        lambda: reads.matches({"_id": 1, "v": float("nan")}, {"v": float("nan")}),
        N_("Python says float('nan') == float('nan') is False. Does MongoDB's query agree?"),
        mistake=(False, N_("That is Python's ==, which a fake may use. MongoDB's query "
                           "treats NaN as equal to NaN.")),
        explanation=N_("MongoDB's equality treats NaN as equal to NaN, unlike Python's ==: one "
                       "of the places a fake can differ.")),
    "07.quiz_in_order": _recall("05",
        N_("One process makes 5 IDs in one second, its counter far from the wrap. Sorted by "
           "_id, are they in the order they were made?"),
        _one_process_sorts_in_order,
        N_("Lesson 05: same second, same process: which field changes?"),
        mistake=(False, N_("Across processes the order is random; within one process only "
                           "the counter changes, by one each time.")),
        explanation=N_("Same timestamp, same random value: the counter decides, and it steps up "
                       "by one, so one process's IDs sort in order until the counter wraps.")),
    "08.warm_up": _recall("07",
        N_("Does MongoDB's find({userId: 42}) return a document whose userId is "
           "Decimal128(\"42.00\")?"),
        lambda: reads.matches({"_id": 5, "userId": Decimal128("42.00")}, {"userId": 42}),
        N_("Lesson 07: mongomock missed this one. What does MongoDB do?"),
        mistake=(False, N_("That is mongomock's answer. In MongoDB every numeric type "
                           "compares by value.")),
        explanation=N_("All numeric types share one bracket and compare by value, so "
                       "Decimal128(\"42.00\") equals 42; a fake using Python's == misses it.")),
    "08.quiz_descending": _recall("08",
        N_("book (price 12), sticker (no price), lamp (price 30): which _id does "
           "find().sort({price: -1}) give last?"),
        lambda: _first_by(_PRODUCTS, {"price": -1}, last=True),
        N_("A missing price sorts as null. Where is null in a descending sort?"),
        mistake=("book", N_("Descending puts the largest first, and null is below every "
                            "number.")),
        explanation=N_("Descending reverses the order: null (the missing price) is below every "
                       "number, so the sticker comes last."),
        accept=Spelling(case=False, choices=_names(_PRODUCTS))),
    "08.quiz_lt_missing": _recall("08",
        N_("Does find({price: {$lt: 20}}) return the sticker, which has no price?"),
        lambda: reads.matches(_PRODUCTS[1], {"price": {"$lt": 20}}),
        N_("Lesson 03: which bracket does $lt: 20 look in?"),
        mistake=(True, N_("A missing field sorts as null, but a number comparison only meets "
                          "numbers.")),
        explanation=N_("$lt: 20 only meets numbers; a missing price is not compared, so the "
                       "sticker is not returned.")),
    "08.quiz_empty_array": _recall("02",
        N_("Ascending by v, which _id comes first: {_id: \"null\", v: null} or {_id: "
           "\"empty\", v: []}?"),
        lambda: _first_by(_EMPTY_OR_NULL, {"v": 1, "_id": 1}),
        N_("Lesson 02: an empty array has no element to stand for it."),
        mistake=("null", N_("null is low, but the empty array sorts below it.")),
        explanation=N_("An empty array has no element to stand for it, so it sorts below "
                       "null."),
        accept=Spelling(case=False, choices=_names(_EMPTY_OR_NULL))),
}


# The questions as ``questions.EXERCISES`` holds them, and the lesson whose idea each asks.
RECALL_EXERCISES: dict[str, Made] = {
    name: make for name, (_recalls, make) in _QUESTIONS.items()}
RECALLS: dict[str, str] = {name: recalls for name, (recalls, _make) in _QUESTIONS.items()}


def warm_up(lesson: str) -> str | None:
    """The name of lesson ``lesson``'s warm-up, if it has one (lessons 02 onward)."""
    name = f"{lesson}.warm_up"
    return name if name in RECALLS else None


def quiz(lesson: str) -> list[str]:
    """The names of lesson ``lesson``'s closing quiz, in the order the lesson asks them."""
    return [name for name in RECALLS if name.startswith(f"{lesson}.quiz_")]


# How each question went, as ``score`` says it.
_RIGHT_FIRST = N_("{name}: right first time.")
_RIGHT = N_("{name}: right.")
_RIGHT_LATER = N_("{name}: right on try {tries}; lesson {lesson} ({title}) explains it.")
_REVEALED = N_("{name}: revealed; lesson {lesson} ({title}) explains it.")
_NOT_YET = N_("{name}: not right yet; lesson {lesson} ({title}) explains it.")
_UNANSWERED = N_("{name}: not answered yet.")


@dataclass(frozen=True)
class Score:
    """How some questions went: one sentence for the count right first time, one per
    question."""
    lines: tuple[str, ...]

    def __str__(self) -> str:
        return "\n".join(self.lines)

    __repr__ = __str__

    @as_typed
    def _repr_html_(self) -> str:
        return "<div>" + "<br>".join(html.escape(line) for line in self.lines) + "</div>"


def score(names: str | Iterable[str]) -> Score:
    """How the questions ``names`` went, from the learner's progress (``course.entries``,
    across sessions): right first time, right on a later try, revealed or not right yet, and,
    for each not right first time, the lesson that has its idea."""
    asked = [names] if isinstance(names, str) else list(names)
    kept = {entry.get("id"): entry for entry in course.entries()}
    said = [_said(name, kept.get(name, {})) for name in asked]
    first = sum(right for right, _line in said)
    total = _("Right first time: {right} of {count}.").format(right=first, count=len(asked))
    return Score((total, *(line for _right, line in said)))


def _said(name: str, entry: dict[str, Any]) -> tuple[bool, str]:
    """Whether a question was right first time, and its sentence, from its progress entry
    (empty where it has none)."""
    state, right_at = entry.get("state"), entry.get("right_at")
    if state == "right" and right_at == 1:
        return True, _(_RIGHT_FIRST).format(name=name)
    if state == "right" and not isinstance(right_at, int):
        return False, _(_RIGHT).format(name=name)  # kept before first tries were
    template = {"right": _RIGHT_LATER, "revealed": _REVEALED, "tried": _NOT_YET}.get(
        str(state), _UNANSWERED)
    taught = course.lesson(RECALLS.get(name, name[:2]))
    return False, _(template).format(name=name, tries=right_at, lesson=taught.number,
                                     title=_(taught.title))
