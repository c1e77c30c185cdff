"""Collations as MongoDB builds them on ICU: the collation document checked field by field as
the server checks it, each field set on an ICU collator, and each string's ICU sort key.

Follows ``CollatorFactoryICU::makeFromBSON`` in the server's
``src/mongo/db/query/collation/collator_factory_icu.cpp``: ``{locale: "simple"}`` (and no other
field) is bytewise; any other locale must be one ICU names back unchanged; ``strength`` 1–5,
``caseLevel``, ``caseFirst``, ``numericOrdering``, ``alternate``, ``maxVariable``,
``normalization`` and ``backwards`` each set one ICU attribute, and a field left out keeps the
locale's own default (``fr_CA`` compares accents backwards). The server orders strings by ICU's
sort keys, which compare as ICU's ``compare`` does, so the model uses the keys too.

ICU comes from PyPI's ``pyicu-wheels`` (wheels for Linux, macOS and Windows). Where it cannot
be imported the model does not guess: a collation other than ``simple`` is ``CannotJudge``.
The server carries ICU 57.1; the wheel carries a newer ICU, whose root order differs only for
characters added to Unicode since (emoji, new scripts).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from labkit.errors import BadInput, CannotJudge
from labkit.i18n import N_, Message

Strings = Callable[[str], Any] | None  # how a collation orders strings (None: bytewise)

SERVER_ICU_VERSION = "57.1"  # the collation "version" a server reports (jstests collation.js)
_BOOLEANS = ("caseLevel", "numericOrdering", "normalization", "backwards")
_CHOICES = {"caseFirst": ("upper", "lower", "off"), "alternate": ("non-ignorable", "shifted"),
            "maxVariable": ("punct", "space")}
FIELDS = frozenset({"locale", "strength", "version", *_BOOLEANS, *_CHOICES})
_EXAMPLE = "{\"locale\": \"en\", \"strength\": 2}"


def collation_strings(collation: Any) -> Strings:
    """How a collation orders strings: None for bytewise (no collation, or ``simple``), else a
    function from a string to its ICU sort key. A malformed collation is BadInput, as the
    server refuses it; a valid one without ICU to hand is CannotJudge."""
    if collation is None:
        return None
    options = validate(collation)
    if options is None:
        return None
    collator = _collator(tuple(sorted(options.items())))
    return collator.getSortKey  # type: ignore[no-any-return]


def validate(collation: Any) -> dict[str, Any] | None:
    """The collation's fields, checked as ``collator_factory_icu.cpp`` checks them (types,
    ranges, unknown fields, the server's ICU version, the combinations it refuses); None
    for the simple collation."""
    if not isinstance(collation, dict) or not isinstance(collation.get("locale"), str):
        raise BadInput(Message(N_("a collation is a document with a locale, such as "
                                          "{example}"), example=_EXAMPLE))
    unknown = sorted(set(collation) - FIELDS)
    if unknown:
        raise BadInput(Message(N_("unknown collation field {name}"),
                                       name=repr(unknown[0])))
    locale = collation["locale"]
    if locale == "simple":
        if len(collation) > 1:
            raise BadInput(Message(N_("the simple locale takes no other collation "
                                              "fields")))
        return None
    if not locale or "\0" in locale:
        raise BadInput(Message(N_("a collation's locale is a name such as \"en_US\", not "
                                          "empty and without a null byte")))
    if "version" in collation and collation["version"] != SERVER_ICU_VERSION:
        raise BadInput(Message(N_("collation version {version}: a server's ICU is "
                                          "{icu} (IncompatibleCollationVersion)"),
                                       version=repr(collation["version"]),
                                       icu=SERVER_ICU_VERSION))
    options = _options(collation)
    _check_combinations(options)
    return options


def _options(collation: dict[str, Any]) -> dict[str, Any]:
    """The locale and each field given, typed as the server's field extractors type them."""
    options: dict[str, Any] = {"locale": collation["locale"]}
    for name in _BOOLEANS:
        if name in collation:
            options[name] = _boolean(collation[name], name)
    for name, choices in _CHOICES.items():
        if name in collation:
            options[name] = _choice(collation[name], name, choices)
    if "strength" in collation:
        options["strength"] = _strength(collation["strength"])
    return options


def _boolean(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise BadInput(Message(N_("collation field {name} is true or false, not "
                                          "{value}"), name=repr(name), value=repr(value)))
    return value


def _choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    if value not in choices or not isinstance(value, str):
        raise BadInput(Message(N_("collation field {name} is one of {choices}, not "
                                          "{value}"), name=repr(name),
                                       choices=", ".join(choices), value=repr(value)))
    return value


def _strength(value: Any) -> int:
    # bsonExtractIntegerField: any number whose value is whole (2.0 is 2; 9.9 is refused).
    whole = isinstance(value, int | float) and not isinstance(value, bool) \
        and value == value and float(value).is_integer()
    if not whole or not 1 <= int(value) <= 5:
        raise BadInput(Message(N_("collation field 'strength' must be an integer 1 "
                                          "through 5, not {value}"), value=repr(value)))
    return int(value)


def _check_combinations(options: dict[str, Any]) -> None:
    """``validateCollationSpec``: the fields that only act at a level the strength drops."""
    strength = options.get("strength", 3)
    if options.get("backwards") and strength == 1:
        raise BadInput(Message(N_("collation field 'backwards' is invalid with "
                                          "'strength' of 1")))
    if options.get("caseFirst", "off") != "off" and not options.get("caseLevel") \
            and strength < 3:
        raise BadInput(Message(N_("collation field 'caseFirst' is invalid unless "
                                          "'caseLevel' is on or 'strength' is greater than 2")))


def icu_version() -> str | None:
    """The version of the ICU the model would use, or None where it cannot be loaded."""
    icu = _icu()
    return None if icu is None else str(icu.ICU_VERSION)


def _icu() -> Any:
    try:
        import icu
    except ImportError:
        return None
    return icu


@functools.lru_cache(maxsize=32)
def _collator(fields: tuple[tuple[str, Any], ...]) -> Any:
    """An ICU collator set up as the server sets one up (cached: one per collation)."""
    icu = _icu()
    if icu is None:
        raise CannotJudge(
            Message(N_("the model cannot judge a collation without ICU, which MongoDB "
                               "orders strings with")), library="ICU",
            hint=Message(N_("pip install pyicu-wheels (or PyICU), or ask a server")))
    options = dict(fields)
    locale = options["locale"]
    try:  # ICU refuses a name it cannot hold (183 characters or more) with an error of its own
        collator = icu.Collator.createInstance(icu.Locale.createFromName(locale))
    except icu.ICUError:
        raise BadInput(Message(N_("collation locale {locale} is not one ICU knows"),
                               locale=repr(locale[:40] + ("…" if len(locale) > 40 else ""))
                               )) from None
    valid = collator.getLocale(icu.ULocDataLocaleType.VALID_LOCALE).getName()
    if valid != locale:  # validateLocaleID: ICU must name the locale back unchanged
        if valid in ("", "root"):
            raise BadInput(Message(N_("collation locale {locale} is not one ICU knows"),
                                           locale=repr(locale)))
        raise BadInput(Message(N_("collation locale {locale} is not one ICU knows; did "
                                          "you mean {valid}?"), locale=repr(locale),
                                       valid=repr(valid)))
    if "maxVariable" in options:  # ICU's locale keyword kv is ucol_setMaxVariable
        keyword = f"kv={options['maxVariable']}"
        collator = icu.Collator.createInstance(icu.Locale.createFromName(
            f"{locale};{keyword}" if "@" in locale else f"{locale}@{keyword}"))
    _set_attributes(icu, collator, options)
    return collator


def _set_attributes(icu: Any, collator: Any, options: dict[str, Any]) -> None:
    attribute, value = icu.UCollAttribute, icu.UCollAttributeValue
    on_off = {True: value.ON, False: value.OFF}
    settings: dict[str, tuple[Any, dict[Any, Any]]] = {
        "caseLevel": (attribute.CASE_LEVEL, on_off),
        "numericOrdering": (attribute.NUMERIC_COLLATION, on_off),
        "normalization": (attribute.NORMALIZATION_MODE, on_off),
        "backwards": (attribute.FRENCH_COLLATION, on_off),
        "caseFirst": (attribute.CASE_FIRST, {"upper": value.UPPER_FIRST,
                                             "lower": value.LOWER_FIRST, "off": value.OFF}),
        "alternate": (attribute.ALTERNATE_HANDLING, {"non-ignorable": value.NON_IGNORABLE,
                                                     "shifted": value.SHIFTED}),
        "strength": (attribute.STRENGTH, {1: value.PRIMARY, 2: value.SECONDARY,
                                          3: value.TERTIARY, 4: value.QUATERNARY,
                                          5: value.IDENTICAL}),
    }
    for name, (which, values) in settings.items():
        if name in options:
            collator.setAttribute(which, values[options[name]])
