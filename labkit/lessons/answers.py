"""Reading what a learner types as an answer: numbers, yes/no, times, hex, in the language in use.

A number is read as the learner's language writes it (Babel, CLDR): "69,6%" and "0,7" in
Vietnamese, "1,700" as one thousand seven hundred in English. Where the two languages read a
text differently, the language in use wins and the reading says which it took. A time is read
as ISO 8601, else by dateutil's parser, day first where the language writes the day first
(CLDR, through Babel): "17/10/2012 21:13:27" in Vietnamese.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from labkit.errors import Unreadable
from labkit.i18n import LANGUAGE_NAMES, LANGUAGES, N_, Message, _, language, number

if TYPE_CHECKING:
    from dateutil import parser as dateutil_parser

# Words in front of a number that only say it is rounded: "~69%", "about 70%", "khoảng 70%".
_ROUGHLY = ("~", "≈", "about", "around", "roughly", "approximately", "approx.", "approx",
            "circa", "ca.", "khoảng", "chừng", "xấp xỉ", "gần", "tầm")
# What says a number is a percentage, after it: "69%", "69 percent", "69 phần trăm".
_PERCENT = ("%", "percent", "per cent", "phần trăm")
_LN2 = re.compile(r"(ln|log)\s*\(?\s*2\s*\)?")
_RATIO = re.compile(r"(\d+)\s*/\s*(\d+)")
_HEX_NUMBER = re.compile(r"0x[0-9a-f]+")
_GROUPED = re.compile(r"\d{1,3}([.,]\d{3})+")


@dataclass(frozen=True)
class Reading:
    """A number read from text, and a note saying how, when the text could be read two ways."""

    value: float
    note: str = ""


@functools.cache
def _number_words(code: str) -> dict[str, int]:
    """Zero to one hundred in words ("three", "ba", "twenty-five", "hai mươi lăm"), from
    num2words, so that the spellings are the library's, not ours."""
    from num2words import num2words

    words = {}
    for value in range(101):
        text = num2words(value, lang=code)
        words[text] = value
        words[text.replace("-", " ")] = value
    if code == "vi":
        words.update(_spoken_tens(words))
    return words


def _spoken_tens(words: dict[str, int]) -> dict[str, int]:
    """Vietnamese as it is said from 21 to 99: without "mươi" where the unit takes a form of its
    own after it ("hai mươi mốt" is said "hai mốt", "hai mươi lăm" "hai lăm"), which num2words
    does not write. A unit that keeps its own form is left whole: "hai ba" also says "two or
    three"."""
    alone = {value: text for text, value in words.items() if value < 10}
    spoken = {}
    for text, value in words.items():
        parts = text.split()
        if 20 < value < 100 and len(parts) == 3 and parts[1] == "mươi" \
                and parts[2] != alone[value % 10]:
            spoken[f"{parts[0]} {parts[2]}"] = value
    return spoken


def _strip_roughly(text: str) -> str:
    changed = True
    while changed:
        changed = False
        for word in _ROUGHLY:
            if text.startswith(word):
                text, changed = text[len(word):].strip(), True
    return text


def _decimal(text: str, code: str) -> float | None:
    """``text`` read strictly as ``code``'s locale writes a number, or None."""
    from babel.numbers import NumberFormatError, parse_decimal

    try:
        return float(parse_decimal(text, locale=code, strict=True))
    except (NumberFormatError, ValueError):
        return None


def _note(text: str, value: float, code: str) -> str:
    """How an ambiguous ``text`` was read: as ``code``'s locale writes numbers, saying which
    mark it took for what, and naming that language where it is not the one in use (English
    reads no "2,9": it was read as Vietnamese writes 2.9)."""
    from babel.numbers import get_decimal_symbol, get_group_symbol

    mark = get_decimal_symbol(code)
    if code != language():
        name = _(LANGUAGE_NAMES[code])
        if mark in text:
            return _("I read {text} as {value}, as {language} writes numbers (\u201c{mark}\u201d "
                     "as the decimal mark).").format(
                text=text, value=number(value), mark=mark, language=name)
        return _("I read {text} as {value}, as {language} writes numbers (\u201c{mark}\u201d "
                 "grouping thousands).").format(
            text=text, value=number(value), mark=get_group_symbol(code), language=name)
    if mark in text:
        return _("I read {text} as {value}, with \u201c{mark}\u201d as the decimal mark.").format(
            text=text, value=number(value), mark=mark)
    return _("I read {text} as {value}, with \u201c{mark}\u201d grouping thousands.").format(
        text=text, value=number(value), mark=get_group_symbol(code))


def _written(text: str) -> Reading | None:
    """Digits as the language in use writes them, else as the other language does (saying so)."""
    ours = language()
    mine = _decimal(text, ours)
    others = [(code, v) for code in LANGUAGES if code != ours
              if (v := _decimal(text, code)) is not None]
    if mine is not None:
        ambiguous = any(not math.isclose(v, mine) for _code, v in others)
        return Reading(mine, _note(text, mine, ours) if ambiguous else "")
    if others:
        code, value = others[0]
        return Reading(value, _note(text, value, code))
    return None


def _plain(text: str) -> Reading | None:
    """Hex (``0x…``), ``ln 2``, a ratio ``2/3``, a number word, or digits."""
    if _HEX_NUMBER.fullmatch(text):
        return Reading(float(int(text, 16)))
    if _LN2.fullmatch(text):
        return Reading(math.log(2))
    ratio = _RATIO.fullmatch(text)
    if ratio and int(ratio.group(2)):
        return Reading(int(ratio.group(1)) / int(ratio.group(2)))
    words = {**_number_words("en"), **_number_words(language())}
    if text in words:
        return Reading(float(words[text]))
    text = text.replace("_", "")
    if _GROUPED.fullmatch(text):  # "1,700" or "1.700": the two languages differ
        return _written(text)
    try:
        return Reading(float(text))  # Python's own spellings: "1e3", "0.5"
    except ValueError:
        return _written(text)


def read_number(value: Any, units: tuple[str, ...] = ()) -> Reading:
    """A number from an int, a float or text; a percentage (``"69%"``, ``"69 percent"``, ``"69
    phần trăm"``) is read as 0.69; a unit
    of ``units`` after the number, in any case, with or without a space (``"29 bytes"``,
    ``"29B"``), is allowed. Raises ``Unreadable``."""
    if isinstance(value, bool):
        raise Unreadable(Message(N_("write a number, not True or False")))
    if isinstance(value, int | float):
        return Reading(float(value))
    if not isinstance(value, str):
        raise Unreadable(Message(N_("{value} is not a number"), value=repr(value)))
    text = _strip_roughly(" ".join(value.strip().strip("\"'").lower().split()))
    for unit in sorted((u.lower() for u in units), key=len, reverse=True):
        # "29b" is 29 bytes, but in "0x1b" the b is a hex digit: a one-letter unit glued to a
        # hex number is left to the number.
        glued = (text.endswith(unit) and text[:-len(unit)][-1:].isdigit()
                 and (len(unit) > 1 or not _HEX_NUMBER.fullmatch(text)))
        if text.endswith(" " + unit) or glued:  # "29 bytes", "29bytes", "29B"
            text = text[:-len(unit)].strip()
            break
    if units and text in _NONE:  # a count of things: "how many …?" "none"
        return Reading(0.0)
    mark = next((mark for mark in _PERCENT if text.endswith(mark)), "")
    text = text.removesuffix(mark).strip()
    reading = _plain(text)
    if reading is None and units and re.match(r"[\d.,]+\s*\S", text):
        raise Unreadable(Message(N_("{value}: write the number alone, or followed by {units}"),
                                 value=repr(value), units=" / ".join(units)))
    if reading is None:
        raise Unreadable(Message(N_("{value} is not a number"), value=repr(value)))
    return Reading(reading.value / 100, reading.note) if mark else reading


# What answers a count of things (a number with units: "how many IDs …?") with nothing.
_NONE = frozenset({"none", "nothing", "no one", "không có", "không cái nào", "không có cái nào"})

YES_NO = {
    "en": {"true": True, "yes": True, "y": True, "false": False, "no": False, "n": False},
    "vi": {"có": True, "đúng": True, "phải": True, "có thể": True, "được": True,
           "vâng": True, "dạ": True, "ừ": True, "đúng vậy": True,
           "không": False, "sai": False, "không phải": False, "không thể": False,
           "không được": False, "không đúng": False},
}


def read_bool(value: Any) -> bool:
    """A truth value from a bool or a yes/no word in English or the language in use."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        words = {**YES_NO["en"], **YES_NO.get(language(), {})}
        text = " ".join(value.strip().strip("\"'.!").lower().split())
        if text in words:
            return words[text]
    raise Unreadable(Message(N_("answer True or False, or yes or no")))


def yes_no(value: bool) -> str:
    """A truth value as a word of the language in use."""
    return _(N_("yes")) if value else _(N_("no"))


_ZONES = (" utc", " gmt", "utc", "gmt")
# "UTC+7", "GMT-5:30": the offset as labkit's own hints write a zone. dateutil reads "UTC+7" the
# POSIX way, as the clock 7 hours *behind* UTC, the opposite of what a person means by it, so
# the offset is written out (+07:00) before the text reaches it.
_NAMED_OFFSET = re.compile(r"\b(?:utc|gmt)\s*([+-])(\d{1,2})(?::?(\d{2}))?\b", re.IGNORECASE)
# A date whose first number has four digits is year first (2012/10/17), as ISO 8601 and both
# languages write it; the language's day-first order (dateutil's ``dayfirst``) would read
# 2012/10/05 as the 10th of May.
_YEAR_FIRST_DATE = re.compile(r"\d{4}\s*[-/.]\s*\d{1,2}\s*[-/.]\s*\d{1,2}")
# Two stand-ins for what a text leaves out: a text that reads the same with either names its
# year, month, day, hour and minute (a missing second is 0 in both, as ISO 8601 reads 21:13).
_BLANKS = (dt.datetime(2000, 1, 1, 0, 0), dt.datetime(2001, 2, 2, 1, 1))
# Vietnamese words around a date and a time that only say what follows ("ngày 17 tháng 10 năm
# 2012 lúc 21:13:27"), and the units of "21 giờ 13 phút 27 giây"; the morning and afternoon
# marks (SA, CH) are CLDR's, from Babel.
_VI_JUMP = ("ngày", "lúc", "vào", "tháng", "thg", "năm")
_VI_HMS = {"giờ": 0, "phút": 1, "giây": 2}


@dataclass(frozen=True)
class TimeReading:
    """A moment read from text, and a note saying how where the text could be read another way
    (no time zone written; a day and a month that could swap places)."""

    moment: dt.datetime
    note: str = ""


class _UnknownZoneError(Exception):
    """A zone's name that says no offset from UTC ("ICT"): dateutil would drop it."""


def _zone(name: str | None, offset: int | None) -> dt.tzinfo | None:
    """A zone for dateutil (its ``tzinfos``) from what it read: an offset, UTC's own names, or
    nothing written. Without this, a name it does not know is dropped with a warning, and the
    local machine's own zone names are read as the local machine's clock."""
    if offset is not None:
        return dt.timezone(dt.timedelta(seconds=offset)) if offset else dt.UTC
    if name is None:
        return None
    raise _UnknownZoneError(name)


@functools.cache
def _time_parser() -> dateutil_parser.parser:
    """dateutil's parser, knowing Vietnamese's words around a date and a time beside
    English's."""
    from babel.dates import get_period_names
    from dateutil import parser

    periods = get_period_names("abbreviated", "format", locale="vi")
    marks = {periods["am"].lower(): 0, periods["pm"].lower(): 1}

    class Words(parser.parserinfo):
        def jump(self, name: str) -> bool:
            return name.lower() in _VI_JUMP or super().jump(name)

        def hms(self, name: str) -> int | None:
            found = _VI_HMS.get(name.lower())
            return super().hms(name) if found is None else found

        def ampm(self, name: str) -> int | None:
            found = marks.get(name.lower())
            return super().ampm(name) if found is None else found

    return parser.parser(Words())


def _day_first(code: str) -> bool:
    """Whether ``code``'s language writes the day before the month (CLDR's short date, from
    Babel: d/M/yy in Vietnamese, M/d/yy in English)."""
    from babel.dates import get_date_format

    pattern = get_date_format("short", locale=code).pattern
    return pattern.index("d") < pattern.index("M")


def _not_a_time(value: Any) -> Unreadable:
    return Unreadable(Message(N_("{value} is not a time"), value=repr(value)))


def _calendar(text: str, typed: str, value: Any) -> TimeReading:
    """A date and a time as people write them ("17/10/2012 21:13:27", "21:13:27 UTC ngày
    17-10-2012"), read by dateutil, day first or month first as the language in use writes
    dates; the note says which order it took where the other would give another day. ``text``
    is what dateutil reads, ``typed`` what the note quotes, ``value`` what an error quotes."""
    from babel.dates import format_date
    from dateutil.parser import ParserError

    def parse(dayfirst: bool, default: dt.datetime) -> dt.datetime:
        return _time_parser().parse(text, default=default, dayfirst=dayfirst, tzinfos=_zone)

    code = language()
    year_first = _YEAR_FIRST_DATE.search(text) is not None
    dayfirst = _day_first(code) and not year_first
    try:
        moment, filled = (parse(dayfirst, blank) for blank in _BLANKS)
        other = parse(not dayfirst, _BLANKS[0])
    except _UnknownZoneError as exc:
        raise Unreadable(Message(N_("{value}: {zone} names no offset from UTC; write the offset "
                                    "instead, such as +07:00"), value=repr(value),
                                 zone=exc.args[0])) from exc
    except (ParserError, ValueError, OverflowError) as exc:
        raise _not_a_time(value) from exc
    if moment != filled:
        raise Unreadable(Message(N_("{value} lacks a date or a time of day: write both"),
                                 value=repr(value)))
    if other == moment or year_first:
        return TimeReading(moment)
    template = (N_("I read {text} as {date}, day first, as {language} writes dates.") if dayfirst
                else N_("I read {text} as {date}, month first, as {language} writes dates."))
    return TimeReading(moment, _(template).format(
        text=typed, date=format_date(moment.date(), "long", locale=code),
        language=_(LANGUAGE_NAMES[code])))


def _iso(text: str) -> dt.datetime | None:
    """ISO 8601 (``Z``, ``+00:00``, ``UTC``, milliseconds, a space instead of ``T``), else
    None."""
    for zone in _ZONES:
        if text.lower().endswith(zone):
            text = text[:-len(zone)].strip() + "+00:00"
            break
    text = text.replace(" ", "T", 1)
    if text[-1:] in "zZ":
        text = text[:-1] + "+00:00"
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None


def _offset(found: re.Match[str]) -> str:
    sign, hours, minutes = found.groups()
    return f"{sign}{int(hours):02d}:{minutes or '00'}"


def read_time(value: Any) -> TimeReading:
    """A moment from a ``datetime`` or text: ISO 8601, or a date and a time as the learner's
    language writes them ("17/10/2012 21:13:27", "21:13:27 UTC ngày 17-10-2012"). A time
    without a zone is read as UTC, and the note says so. Raises ``Unreadable``."""
    if isinstance(value, dt.datetime) and value != value:  # pandas' NaT: a datetime of no time
        raise _not_a_time(value)
    if isinstance(value, dt.datetime):
        if value.tzinfo:
            return TimeReading(value)
        return TimeReading(value.replace(tzinfo=dt.UTC), _(
            "I read this datetime as UTC: it has no tzinfo. Give it tzinfo=datetime.UTC to say "
            "which clock it is on."))
    if not isinstance(value, str) or not value.strip().strip("\"'").strip():
        raise _not_a_time(value)
    typed = value.strip().strip("\"'").strip()
    text = _NAMED_OFFSET.sub(_offset, typed)
    moment = _iso(text)
    reading = TimeReading(moment) if moment is not None else _calendar(text, typed, value)
    if reading.moment.tzinfo:
        return reading
    unzoned = _("I read {text} as UTC: it names no time zone. Write UTC or Z after a time to "
                "say which clock it is on.").format(text=typed)
    return TimeReading(reading.moment.replace(tzinfo=dt.UTC),
                       " ".join(note for note in (reading.note, unzoned) if note))


def parse_time(value: Any) -> dt.datetime:
    """A moment from a ``datetime`` (naive means UTC) or text (``read_time``)."""
    return read_time(value).moment


_OBJECTID = re.compile(r"objectid\(\s*[\"']?([0-9a-f]*)[\"']?\s*\)")


def read_hex(value: Any) -> str:
    """Hex digits, lowercase, without ``0x``, spaces or ``ObjectId("…")`` around them. An int
    (or grouped decimal text, "1,700,000,000") gives its decimal digits: an int carries no
    base, and a number typed in decimal is not its hex digits."""
    if isinstance(value, bool) or (not isinstance(value, int | str) and not _is_objectid(value)):
        raise Unreadable(Message(N_("write hex digits as a string")))
    if isinstance(value, int):
        return str(value)
    text = re.sub(r"[\s_|]", "", str(value).strip().strip("\"'")).lower()
    if _GROUPED.fullmatch(text):
        return re.sub(r"[.,]", "", text)
    wrapped = _OBJECTID.fullmatch(text)
    text = (wrapped.group(1) if wrapped else text).removeprefix("0x")
    if not re.fullmatch(r"[0-9a-f]+", text):
        raise Unreadable(Message(N_("{value} is not hex digits (0-9, a-f)"), value=repr(value)))
    return text


def _is_objectid(value: Any) -> bool:
    from bson import ObjectId

    return isinstance(value, ObjectId)


EVERYTHING = ("all", "every", "everything", "all of them", "every one", "tất cả", "hết",
              "tất cả các", "toàn bộ")
NOTHING = ("none", "nothing", "empty", "no documents", "no results", "not one", "zero",
           "no document", "no result", "none of them", "nothing at all", "no match",
           "no matches", "empty list", "an empty list", "empty set", "an empty set",
           "không", "không có", "không gì", "không cái nào", "rỗng", "trống",
           "không có gì", "không có gì cả", "không gì cả", "chẳng có gì", "không có cái nào",
           "không có kết quả", "không có kết quả nào", "không kết quả", "không ra kết quả",
           "không trả về gì", "không trả về kết quả nào", "không khớp gì", "không khớp cái nào",
           "không có tài liệu nào", "không có bản ghi nào", "không có document nào",
           "danh sách rỗng", "tập rỗng")


# What a list answer's items are called after "all" ("all the orders", "tất cả các đơn hàng"):
# the lessons ask for orders, events, documents and their _ids.
ITEMS = ("orders", "order", "events", "documents", "docs", "ids", "_ids", "đơn hàng",
         "sự kiện", "tài liệu", "bản ghi")
# Words that say "all" before the items' name or their count: "all the orders", "cả 5 đơn hàng"
# (all 5 orders), "tất cả 5".
_ALL = ("all", "all the", "all of the", "every", "tất cả", "tất cả các", "cả", "toàn bộ",
        "toàn bộ các")


def _all_of(text: str, count: int | None) -> bool:
    """Whether ``text`` says all the items by their name or their count ("all the orders", "cả
    5 đơn hàng"): a count is all only where it is ``count``, the number of items there are."""
    named = next((noun for noun in sorted(ITEMS, key=len, reverse=True)
                  if text.endswith(" " + noun)), "")
    text = text.removesuffix(named).strip()
    if named and text in _ALL:
        return True
    head, _space, last = text.rpartition(" ")
    if head not in _ALL or count is None:
        return False
    try:
        return read_number(last).value == count
    except Unreadable:
        return False


def whole_or_none(value: Any, count: int | None = None) -> str | None:
    """``"all"`` or ``"none"`` when the text says "all of them" or "none", in English or the
    language in use (the word lists above), else None. "All" may name the items or their
    ``count`` ("all 5 orders", "cả 5 đơn hàng"): another count is not all."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.strip().strip("\"'.!").lower().split())
    if text in EVERYTHING or _all_of(text, count):
        return "all"
    if text in NOTHING or text in ("[]", "()", "{}", "set()"):
        return "none"
    return None


# A prediction that the operation fails instead of answering: "an error", "lỗi", "it raises",
# "ngoại lệ"; a word of negation ("no error", "không có lỗi") says the opposite.
_ERROR_WORDS = ("error", "errors", "exception", "exceptions", "raise", "raises", "fail", "fails",
                "failure", "crash", "crashes", "lỗi")
_ERROR_PHRASES = ("ngoại lệ",)
_NEGATIONS = ("no", "not", "never", "without", "none", "nothing", "không", "chẳng", "chả",
              "chưa")


def says_error(value: Any) -> bool:
    """Whether ``value`` predicts an error, in English or Vietnamese, or is an exception class
    (``TypeError``); "no error" and "không có lỗi" do not."""
    if isinstance(value, type):
        return issubclass(value, BaseException)
    if not isinstance(value, str):
        return False
    words = re.findall(r"\w+", value.lower())
    text = " ".join(words)
    said = (any(word in _ERROR_WORDS or word.endswith("error") for word in words)
            or any(phrase in text for phrase in _ERROR_PHRASES))
    return said and not any(word in _NEGATIONS for word in words)
