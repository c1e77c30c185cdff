"""What counts as the right answer: one ``Accept`` rule per kind of answer (a moment, hex
digits, a number, a fraction, yes or no, a list in order or as a set), each reading what a
learner types (``labkit.lessons.answers``) and comparing it with the observed answer."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from labkit.claims.claim import short_json
from labkit.errors import Unreadable
from labkit.i18n import N_, Message, _, number, percent
from labkit.lessons.answers import (
    parse_time,
    read_bool,
    read_hex,
    read_number,
    read_time,
    whole_or_none,
    yes_no,
)


def _normal(value: object) -> object:
    """Forgive what does not matter: case and spaces, int versus float, tuple versus list."""
    if isinstance(value, str):
        return " ".join(value.strip().lower().split())
    if isinstance(value, bool):
        return ("boolean", value)  # keep True apart from 1, which Python calls equal
    if value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | tuple):
        return [_normal(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _normal(item) for key, item in value.items()}
    return value


def same(prediction: Any, answer: Any) -> bool:
    """The default comparison: equal after ``_normal``; floats within a relative 1e-9."""
    left, right = _normal(prediction), _normal(answer)
    if isinstance(left, float) and isinstance(right, float):
        return math.isclose(left, right, rel_tol=1e-9)
    return left == right


# What a rule reads a prediction as (a float for ``Number``, a list for ``InOrder``...).
R = TypeVar("R")


class Accept(Generic[R]):
    """What counts as the right answer: ``read`` the prediction, then ``matches`` the answer.

    ``show`` writes an answer for ``reveal``, rounded and readable. A prediction is whatever
    a learner typed in a notebook cell and an answer whatever an experiment observed: any
    Python value, hence ``Any``; ``read`` turns the prediction into the rule's own type ``R``.
    """

    example = ""

    def read(self, prediction: Any, answer: Any) -> R:
        """The prediction as a value comparable with the answer (raises ``Unreadable``)."""
        return cast(R, prediction)  # this rule compares the prediction as it was typed

    def equal(self, prediction: R, answer: Any) -> bool:
        """Whether a read prediction equals the answer."""
        return same(prediction, answer)

    def matches(self, prediction: Any, answer: Any) -> bool:
        """Read, then compare."""
        return self.equal(self.read(prediction, answer), answer)

    def gather(self, parts: tuple[Any, ...]) -> tuple[Any, str]:
        """Several values given to ``check`` at once as one prediction, and a note on how they
        were read. ``check(0,75)`` passes 0 and 75 (outside quotes, Python takes the comma as
        a separator): whole numbers are joined again with their comma, as typed, and read as
        the learner's language reads "0,75". Raises ``Unreadable`` when they make no answer."""
        if all(isinstance(p, int) and not isinstance(p, bool) for p in parts) \
                and all(p >= 0 for p in parts[1:]):
            text = ",".join(str(p) for p in parts)
            return text, _("I read {parts} as {text}: without quotes, Python splits a number at "
                           "its comma. Next time write it in quotes: \"{text}\".").format(
                parts=", ".join(str(p) for p in parts), text=text)
        raise Unreadable(Message(N_("give check one answer, in quotes if it holds a comma; it "
                                    "was given {count} values"), count=len(parts)))

    def note(self, prediction: Any, answer: Any) -> str:
        """How the prediction was read, where it could have been read another way, else ""."""
        return ""

    def mistake(self, prediction: Any, answer: Any) -> str | Message:
        """A hint for a wrong answer this kind of answer invites (any exercise), else ""."""
        return ""

    def describe(self) -> str:
        """What this rule accepts, in words, for the answer sheet."""
        return _("the answer as shown, or a value equal to it")

    def show(self, answer: Any) -> str:
        """The answer as a learner would write it."""
        return answer if isinstance(answer, str) else short_json(answer)


class Same(Accept[Any]):
    """Equal after forgiving case, spaces, int versus float and tuple versus list; a list
    may be typed as text (``"a, b, c"``), a yes/no as ``"yes"``, a number as ``"1,234"``."""

    def _rule(self, answer: Any) -> Accept[Any] | None:
        if isinstance(answer, bool):
            return Bool()
        if isinstance(answer, int | float):
            return Number()
        if isinstance(answer, list | tuple):
            return InOrder()
        return None

    def read(self, prediction: Any, answer: Any) -> Any:
        """Through the rule the answer's type calls for, where there is one."""
        rule = self._rule(answer)
        return prediction if rule is None else rule.read(prediction, answer)

    def equal(self, prediction: Any, answer: Any) -> bool:
        """Through the rule the answer's type calls for, else ``same``."""
        rule = self._rule(answer)
        return same(prediction, answer) if rule is None else rule.equal(prediction, answer)

    def show(self, answer: Any) -> str:
        """As the answer's rule writes it."""
        rule = self._rule(answer)
        return super().show(answer) if rule is None else rule.show(answer)

    def note(self, prediction: Any, answer: Any) -> str:
        """As the answer's rule reads it."""
        rule = self._rule(answer)
        return "" if rule is None else rule.note(prediction, answer)

    def describe(self) -> str:
        """What the rule for the answer's type accepts; the rule's words need the answer."""
        return _("the answer, case and spaces aside")


class Spelling(Accept[str]):
    """A text compared with its case kept (where case is the lesson: ``"Z" < "a"``); only
    surrounding spaces and quotes are forgiven. With ``case=False`` (a name such as an _id,
    where no two differ in case alone) case, spaces, ``_`` and ``-`` are forgiven too;
    ``aliases`` maps an answer to other ways of saying it (``"empty array"``), and a text
    outside ``choices`` (a function giving the names there are) is unreadable, not wrong."""

    example = '"Z"'

    def __init__(self, case: bool = True, aliases: dict[str, tuple[str, ...]] | None = None,
                 choices: Callable[[], Iterable[str]] | None = None) -> None:
        self.case = case
        self.aliases = aliases or {}
        self.choices = choices
        if choices is not None:  # what cannot be read is told the names there are instead
            self.example = ""

    def _key(self, text: str) -> str:
        return text if self.case else "".join(c for c in text.lower() if c not in " _-")

    def read(self, prediction: Any, answer: Any) -> str:
        """Strip spaces and one pair of quotes; where there are ``choices``, a number typed
        without quotes (``9.5``) is read as its digits, and a list or a document typed as
        Python (``[]``) as its JSON text, which may name one (an alias such as ``"[]"``)."""
        if self.choices and isinstance(prediction, int | float) \
                and not isinstance(prediction, bool):
            prediction = str(prediction)
        if self.choices and isinstance(prediction, list | tuple | dict):
            prediction = json.dumps(list(prediction) if isinstance(prediction, tuple)
                                    else prediction, default=str)
        if not isinstance(prediction, str) and self.choices:
            raise Unreadable(Message(N_("write one of {choices} in quotes"),
                                     choices=", ".join(self.choices())))
        if not isinstance(prediction, str):
            raise Unreadable(Message(N_("write the text in quotes")))
        text = prediction.strip().strip("\"'")
        known = list(self.choices()) if self.choices else []
        if known and not any(self.equal(text, choice) for choice in known):
            raise Unreadable(Message(N_("{value} is not one of {choices}"), value=repr(text),
                                     choices=", ".join(known)))
        return text

    def equal(self, prediction: str, answer: Any) -> bool:
        """Exact, case included (unless ``case=False``); or one of the answer's aliases."""
        spellings = (answer, *self.aliases.get(answer, ()))
        return any(self._key(prediction) == self._key(s) for s in spellings)

    def describe(self) -> str:
        """Case kept, or forgiven for names."""
        if self.case:
            return _("the same text, case included; quotes and surrounding spaces aside")
        named = "; ".join(f"{key}: {', '.join(alias)}" for key, alias in self.aliases.items())
        text = _("the _id in any case, with or without quotes, spaces, _ or -")
        return text + (" " + _("(also: {aliases})").format(aliases=named) if named else "")


# The widest offset of any time zone from UTC (UTC+14, Kiribati; UTC-12 the other way).
_WIDEST_OFFSET = dt.timedelta(hours=14)
_HALF_HOUR = dt.timedelta(minutes=30)
_LOCAL = {(True, True): N_("1 hour ahead: that is the time in {zone}; {what} is UTC."),
          (True, False): N_("{hours} hours ahead: that is the time in {zone}; {what} is UTC."),
          (False, True): N_("1 hour behind: that is the time in {zone}; {what} is UTC."),
          (False, False): N_("{hours} hours behind: that is the time in {zone}; {what} is "
                             "UTC.")}


def _zone(offset: dt.timedelta) -> str:
    """An offset from UTC as a zone's name: "UTC+7", "UTC+5:30", "UTC-5"."""
    minutes = round(offset / dt.timedelta(minutes=1))
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{'-' if minutes < 0 else '+'}{hours}" + (f":{rest:02d}" if rest else "")


def _iso_offset(offset: dt.timedelta) -> str:
    """An offset from UTC as ISO 8601 writes it after a time: "+07:00", "-05:00"."""
    minutes = round(offset / dt.timedelta(minutes=1))
    hours, rest = divmod(abs(minutes), 60)
    return f"{'-' if minutes < 0 else '+'}{hours:02d}:{rest:02d}"


# A count since 1970-01-01 UTC typed where a time is asked names the right moment, but is not
# yet the time asked for: seconds (what int('507f1f77', 16) gives) and milliseconds (what
# JavaScript's Date counts) each get their own hint.
_COUNTS = {1: N_("That is the right moment, as seconds since 1970: now write it as a UTC time "
                 "(datetime.datetime.fromtimestamp(seconds, datetime.UTC) makes one)."),
           1000: N_("That is the right moment, as milliseconds since 1970 (as JavaScript's Date "
                    "counts): divide by 1,000 for seconds, then write it as a UTC time.")}


@dataclass(frozen=True)
class Count:
    """A number typed where a time is asked that counts the right moment since 1970, in
    ``per_second`` units a second (1: seconds, 1000: milliseconds): a near miss, never right."""

    per_second: int


def _count(prediction: Any, answer: Any) -> Count | None:
    """The count since 1970 that ``prediction`` is, where it names ``answer``'s moment (to the
    nearest unit), else None."""
    try:
        value = read_number(prediction).value
    except Unreadable:
        return None
    seconds = parse_time(answer).timestamp()
    return next((Count(per) for per in _COUNTS
                 if math.isclose(value, seconds * per, rel_tol=0, abs_tol=0.5)), None)


class Time(Accept[dt.datetime | Count]):
    """The same moment: a ``datetime``, any ISO 8601 spelling of it, or a date and a time as the
    learner's language writes them (``labkit.lessons.answers.read_time``). ``utc`` names the
    answer in the hint for a local time given as UTC (``"the ObjectId's time"``)."""

    example = '"2001-02-03T04:05:06Z"'

    def __init__(self, utc: str = N_("the answer")) -> None:
        self.utc = utc

    def mistake(self, prediction: Any, answer: Any) -> str | Message:
        """The right moment as a count since 1970 (seconds, milliseconds) is told to write it
        as a time. A local time where UTC is asked: a time written as UTC (no offset, ``Z``)
        that is a whole number of hours or half hours off, within any zone's offset, is named
        by that offset ("7 hours ahead: that is the time in UTC+7"); UTC's clock digits
        labelled with an offset are told that the offset names another clock."""
        count = _count(prediction, answer)
        if count is not None:
            return _COUNTS[count.per_second]
        try:
            moment, truth = parse_time(prediction), parse_time(answer)
        except Unreadable:
            return ""
        offset = moment.utcoffset() or dt.timedelta(0)
        clock = moment.replace(tzinfo=None)
        utc_clock = truth.astimezone(dt.UTC).replace(tzinfo=None)
        if offset:
            if clock != utc_clock:
                return ""
            return Message(N_("These are UTC's clock digits, but {offset} says they are the "
                              "clock of {zone}: write them with Z, or as that zone's clock."),
                           offset=_iso_offset(offset), zone=_zone(offset))
        gap = clock - utc_clock
        if not gap or abs(gap) > _WIDEST_OFFSET or gap % _HALF_HOUR:
            return ""
        hours = abs(gap) / dt.timedelta(hours=1)
        template = _LOCAL[(gap > dt.timedelta(0), hours == 1)]
        return Message(template, hours=int(hours) if hours.is_integer() else hours,
                       zone=_zone(gap), what=Message(self.utc))

    def read(self, prediction: Any, answer: Any) -> dt.datetime | Count:
        """The prediction as an aware datetime; a number that counts the answer's moment since
        1970 as a ``Count`` (a near miss with its own hint, not unreadable)."""
        try:
            return parse_time(prediction)
        except Unreadable:
            count = _count(prediction, answer)
            if count is None:
                raise
            return count

    def equal(self, prediction: dt.datetime | Count, answer: Any) -> bool:
        """Same instant (to the microsecond); a count is never the time asked for."""
        return isinstance(prediction, dt.datetime) and prediction == parse_time(answer)

    def note(self, prediction: Any, answer: Any) -> str:
        """How a date was read where it could be read another way (day or month first), and
        that a time naming no zone was read as UTC."""
        try:
            return read_time(prediction).note
        except Unreadable:
            return ""

    def show(self, answer: Any) -> str:
        """ISO 8601 in UTC with ``Z``."""
        # the model package (bson, about 20 ms): `labkit.Exercise` loads rules without it
        from labkit.model.objectid import iso_z

        return iso_z(parse_time(answer))

    def describe(self) -> str:
        """Any spelling of the same moment."""
        return _("the same moment in any ISO 8601 spelling (with Z, +00:00, UTC or another "
                 "offset, a space or T, with or without milliseconds) or as a date and a time "
                 "are written in the learner's language (03/02/2001 04:05:06, day first in "
                 "Vietnamese; 04:05:06 UTC ngày 03-02-2001); a time without a zone is read as "
                 "UTC, and the feedback says so; seconds or milliseconds since 1970 get a hint "
                 "to write them as a time")


class Hex(Accept[str]):
    """The same hex digits: with or without ``0x``, any case, spaces ignored; an int counts."""

    example = '"00ff"'  # an example that is no exercise's answer

    def read(self, prediction: Any, answer: Any) -> str:
        """Lowercase digits, without ``0x``, spaces or ``ObjectId("…")``. An int is read as
        its decimal digits: Python keeps no base, and 1700000000 is not the hex digits of
        1,700,000,000."""
        return read_hex(prediction)

    def equal(self, prediction: str, answer: Any) -> bool:
        """Same digits, leading zeros included (the width is the lesson)."""
        return prediction == str(answer).lower().removeprefix("0x")

    def mistake(self, prediction: Any, answer: Any) -> str | Message:
        """The decimal value typed where its hex digits are asked for."""
        try:
            decimal = int(read_hex(prediction))
        except (Unreadable, ValueError):
            return ""
        if decimal == int(str(answer), 16) and not self.equal(str(decimal), answer):
            return N_("That is the value in decimal; the answer is its hex digits (base 16). "
                      "Typed without quotes, 0x\u2026 is this same decimal number to Python: "
                      "put hex digits in quotes.")
        return ""

    def describe(self) -> str:
        """Hex digits, any spelling; never the decimal value."""
        return _("the same hex digits, leading zeros included, with or without 0x or "
                 "ObjectId(\"\u2026\"), in any case; not the number in decimal")


class Number(Accept[float]):
    """A number within ``tolerance`` (absolute), written as the learner's language writes it
    (``"1,234"`` in English, ``"0,7"`` in Vietnamese), in words up to a hundred (``"three"``,
    ``"ba"``), in hex (``"0x000000"``), or followed by one of ``units`` (``"29 bytes"``)."""

    example = "42"  # an example that is no exercise's answer

    def __init__(self, tolerance: float = 0.0, units: tuple[str, ...] = ()) -> None:
        self.tolerance = tolerance
        self.units = units

    def read(self, prediction: Any, answer: Any) -> float:
        """The prediction as a float."""
        return read_number(prediction, self.units).value

    def note(self, prediction: Any, answer: Any) -> str:
        """Which reading an ambiguous number got ("1,700": 1700 in English, 1.7 in
        Vietnamese)."""
        try:
            return read_number(prediction, self.units).note
        except Unreadable:
            return ""

    def equal(self, prediction: float, answer: Any) -> bool:
        """Within the tolerance (and a hair of float rounding)."""
        gap = abs(prediction - float(answer))
        scale: float = max(1, abs(answer))  # the answer's size, for float rounding
        return gap <= self.tolerance + 1e-9 * scale

    def show(self, answer: Any) -> str:
        """Grouped as the learner's language groups digits; others to three significant
        places."""
        value = float(answer)
        if value.is_integer():
            return number(int(value))
        return number(float(f"{value:.3g}"))

    def describe(self) -> str:
        """Any way of writing the number, with its unit."""
        text = _("the number in digits (as the learner's language writes them), in words up to "
                 "a hundred, or in hex with 0x")
        if self.tolerance:
            text += "; " + _("within {tolerance}").format(tolerance=number(self.tolerance))
        if self.units:
            text += "; " + _("followed by a unit: {units}").format(units=", ".join(self.units))
        return text


class Fraction(Number):
    """A fraction of a whole within ``tolerance``: ``0.69``, ``"69%"``, ``"~69%"``, ``"69,6%"``
    (Vietnamese), ``"ln 2"`` and ``69`` all read as about 0.69 (a number above 1 is taken as a
    percentage)."""

    example = N_('0.25 or "25%"')  # no exercise's answer

    def __init__(self, tolerance: float = 0.02, also: tuple[float, ...] = ()) -> None:
        """``also``: values that count as right beside the answer, within the same tolerance
        (the theory's figure beside a run's measurement, which varies from run to run)."""
        super().__init__(tolerance)
        self.also = also

    def equal(self, prediction: float, answer: Any) -> bool:
        """Within the tolerance of the answer or of one of ``also``."""
        return any(Number.equal(self, prediction, value) for value in (answer, *self.also))

    def read(self, prediction: Any, answer: Any) -> float:
        """The prediction as a fraction of 1."""
        value = read_number(prediction).value
        return value / 100 if 1 < value <= 100 else value

    def show(self, answer: Any) -> str:
        """A rounded percentage."""
        return percent(float(answer))

    def describe(self) -> str:
        """A share or a percentage, within the tolerance (of the answer, or of ``also``)."""
        forms = _("as a share (0.69), a percentage (69%, ~69%), a ratio (2/3) or ln 2; with a "
                  "decimal comma in Vietnamese (69,6%)")
        if not self.also:
            return _("within {points} percentage points, {forms}").format(
                points=number(self.tolerance * 100), forms=forms)
        return _("within {points} percentage points of the run's figure or of {values}, "
                 "{forms}").format(points=number(self.tolerance * 100), forms=forms,
                                   values=", ".join(percent(value) for value in self.also))


class Bool(Accept[bool]):
    """True or False; "yes"/"no" and "true"/"false" in any case count, and in Vietnamese
    "có"/"không" and "đúng"/"sai" (``labkit.language("vi")``)."""

    example = "True"

    def read(self, prediction: Any, answer: Any) -> bool:
        """The prediction as a bool."""
        return read_bool(prediction)

    def equal(self, prediction: bool, answer: Any) -> bool:
        """Identical truth values."""
        return prediction is bool(answer)

    def show(self, answer: Any) -> str:
        """Yes or no, in the learner's language."""
        return yes_no(bool(answer))

    def describe(self) -> str:
        """The words that count as yes and no."""
        return _("True or False, yes or no (in Vietnamese also có or không, đúng or sai)")


# The words a person puts before a list's last item: "1, 3 and 4", "1, 3 và 4".
_LAST_ITEM = frozenset({"and", "và", "&"})


def _items(prediction: Any) -> list[Any]:
    """A list from a list, tuple or set, or from text such as ``"a, b c"``, ``"a; b và c"`` or
    ``'["a", "b"]'``; "none", "nothing" or "[]" is the empty list."""
    if isinstance(prediction, list | tuple | set | frozenset):
        return list(prediction)
    if isinstance(prediction, str):
        if whole_or_none(prediction) == "none":
            return []
        text = prediction.strip().strip("[]()")
        parts = (part.strip().strip("\"'") for part in re.split(r"[,;\s]+", text))
        return [part for part in parts if part and part.lower() not in _LAST_ITEM]
    raise Unreadable(Message(N_("write a list, such as [1, 2]")))


def _item(value: Any, like: Any) -> Any:
    """A text item from a typed-in list, read as a number where the answer's item is one."""
    if isinstance(value, str) and isinstance(like, int | float) and not isinstance(like, bool):
        try:
            return read_number(value).value
        except Unreadable:
            return value
    return value


class InOrder(Accept[list[Any]]):
    """A list where order is the point: same items, same order (items compared by ``item``).

    ``choices`` (the fixture's _ids, or a function giving them) are the items there are: an
    item outside them is unreadable, not wrong, and "all" means all of them."""

    def __init__(self, item: Accept[Any] | None = None,
                 choices: Iterable[Any] | Callable[[], Iterable[Any]] | None = None) -> None:
        self.item = item or Same()
        self._choices = choices

    @property
    def choices(self) -> list[Any] | None:
        """The items there are, where the exercise says."""
        if self._choices is None:
            return None
        return list(self._choices() if callable(self._choices) else self._choices)

    def _known(self, typed: list[Any], items: list[Any]) -> list[Any]:
        """``items`` (read from ``typed``), checked against the choices: an unknown item is
        Unreadable (it names another thing than any the question is about)."""
        choices = self.choices
        if choices is None:
            return items
        for raw, value in zip(typed, items, strict=True):
            if not any(self._same_item(value, c) for c in choices):
                raise Unreadable(Message(N_("{value} is not one of {choices}"), value=repr(raw),
                                         choices=", ".join(self.item.show(c) for c in choices)))
        return items

    def _same_item(self, value: Any, choice: Any) -> bool:
        try:
            return self.item.matches(value, choice)
        except Unreadable:
            return False

    def _everything(self, prediction: Any) -> list[Any] | None:
        choices = self.choices
        if whole_or_none(prediction, None if choices is None else len(choices)) != "all":
            return None
        if choices is None:
            raise Unreadable(Message(N_("name the items one by one")))
        return choices

    @property
    def example(self) -> str:  # type: ignore[override]
        """A list of numbers where the _ids are numbers, else of letters."""
        choices = self.choices or []
        numeric = choices and all(isinstance(c, int) and not isinstance(c, bool)
                                  for c in choices)
        return "[1, 2]" if numeric else '["a", "b"]'

    def gather(self, parts: tuple[Any, ...]) -> tuple[Any, str]:
        """Several values given to ``check`` (``check("b", "c")``) are the list's items."""
        return list(parts), ""

    def read(self, prediction: Any, answer: Any) -> list[Any]:
        """The prediction as a list."""
        everything = self._everything(prediction)
        if everything is not None:
            return everything
        items = _items(prediction)
        like = list(answer) + [None] * len(items)
        return self._known(items, [_item(value, like[i]) for i, value in enumerate(items)])

    def equal(self, prediction: list[Any], answer: Any) -> bool:
        """Item by item, in order."""
        answer = list(answer)
        return len(prediction) == len(answer) and all(
            self.item.matches(p, a) for p, a in zip(prediction, answer, strict=True))

    def show(self, answer: Any) -> str:
        """The items in order."""
        return ", ".join(self.item.show(a) for a in answer) or _("(none)")

    def describe(self) -> str:
        """Same items, same order."""
        return _("the same items in the same order, as a list or as text (\"a, b\")")


class AsSet(InOrder):
    """A list where order does not matter: the same items, any order, no repeats needed.

    ``left_out`` says what the items a prediction left out have in common, where every item it
    names is right (``03.gt_zero``'s numbers of other types)."""

    def __init__(self, item: Accept[Any] | None = None,
                 choices: Iterable[Any] | Callable[[], Iterable[Any]] | None = None,
                 left_out: Callable[[list[Any]], Message] | None = None) -> None:
        super().__init__(item, choices)
        self.left_out = left_out

    def mistake(self, prediction: Any, answer: Any) -> str | Message:
        """Right items only, but not all of them: ``left_out`` of those missing."""
        if self.left_out is None:
            return ""
        try:
            predicted = self.read(prediction, answer)
        except Unreadable:
            return ""
        answer = list(answer)
        wrong = [p for p in predicted if not any(self.item.matches(p, a) for a in answer)]
        missing = [a for a in answer if not any(self.item.matches(p, a) for p in predicted)]
        return self.left_out(missing) if missing and predicted and not wrong else ""

    def read(self, prediction: Any, answer: Any) -> list[Any]:
        """The prediction as a list (its order is ignored)."""
        everything = self._everything(prediction)
        if everything is not None:
            return everything
        items = _items(prediction)
        like = next(iter(answer), None)
        if like is None and self.choices:
            like = self.choices[0]
        return self._known(items, [_item(value, like) for value in items])

    def equal(self, prediction: list[Any], answer: Any) -> bool:
        """Every answer item is predicted and every predicted item is in the answer."""
        answer = list(answer)
        return (all(any(self.item.matches(p, a) for p in prediction) for a in answer)
                and all(any(self.item.matches(p, a) for a in answer) for p in prediction))

    def show(self, answer: Any) -> str:
        """The items, sorted for reading."""
        shown = sorted((self.item.show(a) for a in answer), key=lambda s: (len(s), s))
        return ", ".join(shown) or _("(none)")

    def describe(self) -> str:
        """Same items, any order, "all" and "none" in words."""
        return _("the same _ids in any order, as a list or as text (\"1, 3\"); \"all\" or "
                 "\"none\" (\"tất cả\", \"không có\") where that is what is meant")


class Said:
    """A wrong answer given in words rather than as a value of the answer's kind (an error
    expected where a query answers): ``says(prediction)`` tells whether a prediction says it,
    and ``meaning`` names it on the answer sheet. An exercise lists one among its mistakes, so
    the learner hears that mistake's hint instead of "I could not read that"."""

    def __init__(self, meaning: str, says: Callable[[Any], bool]) -> None:
        self.meaning = meaning
        self._says = says

    def says(self, prediction: Any) -> bool:
        """Whether the prediction says this mistake (never raises)."""
        try:
            return bool(self._says(prediction))
        except Exception:  # a prediction the test cannot look at does not say it
            return False


class Custom(Accept[Any]):
    """A comparison function ``compare(prediction, answer) -> bool`` as an ``Accept`` rule."""

    def __init__(self, compare: Callable[[Any, Any], bool]) -> None:
        self.compare = compare

    def equal(self, prediction: Any, answer: Any) -> bool:
        """What the function says."""
        return bool(self.compare(prediction, answer))

    def describe(self) -> str:
        """Whatever the function accepts."""
        return _("what the exercise's own comparison accepts")
