"""Reading what a learner types as an answer: numbers, yes/no, times, hex, in the language in use.

A number is read as the learner's language writes it (Babel, CLDR): "69,6%" and "0,7" in
Vietnamese, "1,700" as one thousand seven hundred in English. Where the two languages read a
text differently, the language in use wins and the reading says which it took.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
from dataclasses import dataclass
from typing import Any

from labkit.errors import Unreadable
from labkit.i18n import LANGUAGE_NAMES, LANGUAGES, N_, Message, _, language, number

# Words in front of a number that only say it is rounded: "~69%", "about 70%", "khoảng 70%".
_ROUGHLY = ("~", "≈", "about", "around", "roughly", "approximately", "approx.", "approx",
            "circa", "ca.", "khoảng", "chừng", "xấp xỉ", "gần", "tầm")
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
    return words


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
    """A number from an int, a float or text; a percentage (``"69%"``) is read as 0.69; a unit
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
    share = text.endswith("%")
    text = text.removesuffix("%").strip()
    reading = _plain(text)
    if reading is None and units and re.match(r"[\d.,]+\s*\S", text):
        raise Unreadable(Message(N_("{value}: write the number alone, or followed by {units}"),
                                 value=repr(value), units=" / ".join(units)))
    if reading is None:
        raise Unreadable(Message(N_("{value} is not a number"), value=repr(value)))
    return Reading(reading.value / 100, reading.note) if share else reading


YES_NO = {
    "en": {"true": True, "yes": True, "y": True, "false": False, "no": False, "n": False},
    "vi": {"có": True, "đúng": True, "phải": True, "có thể": True, "được": True,
           "không": False, "sai": False, "không phải": False, "không thể": False,
           "không được": False},
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


def parse_time(value: Any) -> dt.datetime:
    """A moment from a ``datetime`` (naive means UTC) or an ISO 8601 string (``Z``, ``+00:00``,
    ``UTC``, milliseconds, a space instead of ``T``)."""
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, str):
        text = value.strip().strip("\"'").strip()
        for zone in _ZONES:
            if text.lower().endswith(zone):
                text = text[:-len(zone)].strip() + "+00:00"
                break
        text = text.replace(" ", "T", 1)
        if text[-1:] in "zZ":
            text = text[:-1] + "+00:00"
        try:
            moment = dt.datetime.fromisoformat(text)
        except ValueError as exc:
            raise Unreadable(Message(N_("{value} is not a time"), value=repr(value))) from exc
    else:
        raise Unreadable(Message(N_("{value} is not a time"), value=repr(value)))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


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


def whole_or_none(value: Any) -> str | None:
    """``"all"`` or ``"none"`` when the text says "all of them" or "none", in English or the
    language in use (the word lists above), else None."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.strip().strip("\"'.!").lower().split())
    if text in EVERYTHING:
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
