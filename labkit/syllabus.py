"""The course's lessons, one record each: what every other room knows of a lesson comes from here.

A lesson's number, notebook, experiments module, topic, title, minutes, the servers and engines
it uses and the letters of its claims' IDs are written once, below. The catalogue imports the
modules named here, claims are ordered and checked by these letters, and the topics, the
course, ``labkit run --topics`` and the answer sheet are read from the same records. Data and
lookups only: this module imports nothing of labkit but the marker of its words.

Internal to labkit: the API is ``labkit``'s names and the lesson views' (docs/api.md);
what is here may change without notice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labkit.i18n import N_


@dataclass(frozen=True)
class Lesson:
    """One lesson: its notebook ``NN_slug.ipynb``, its claims' module, topic and ID letters,
    and how long it takes with which servers and engines."""

    number: str  # "01": the notebook's prefix, its exercises' ("01.string_range"), progress's
    slug: str  # the notebook's name after the number
    title: str  # English, marked for translation; shown as ``_(lesson.title)``
    minutes: int
    uses: tuple[str, ...] = ()  # what it runs on beside Python: "mongodb", "postgres", ...
    module: str = ""  # labkit.experiments.<module>, which registers its claims; "": none
    topic: str = ""  # the code --topics, claims and results.json use ("sort-order")
    topic_text: str = ""  # the topic as a learner reads it, marked for translation
    letters: tuple[str, ...] = ()  # the first letter of its own claims' IDs

    @property
    def file(self) -> str:
        """The notebook's file name under ``notebooks/``: ``01_dates_not_strings.ipynb``."""
        return f"{self.number}_{self.slug}.ipynb"


LESSONS: tuple[Lesson, ...] = (
    Lesson("00", "start_here", N_("Start here"), 20),
    Lesson("01", "dates_not_strings", N_("Dates are not strings"), 35, ("mongodb",),
           module="dates", topic="dates", topic_text=N_("dates"), letters=("D",)),
    Lesson("02", "bson_sort_order", N_("BSON sort order"), 40, ("mongodb",),
           module="sort_order", topic="sort-order", topic_text=N_("sort order"), letters=("S",)),
    Lesson("03", "type_bracketing", N_("Type bracketing"), 40, ("mongodb",),
           module="bracketing", topic="bracketing", topic_text=N_("type bracketing"),
           letters=("B",)),
    Lesson("04", "objectid_anatomy", N_("ObjectId anatomy"), 40,
           module="objectid_anatomy", topic="objectid", topic_text=N_("ObjectId"),
           letters=("O",)),
    Lesson("05", "objectid_ordering", N_("ObjectId ordering"), 40, ("mongodb",),
           module="objectid_ordering", topic="objectid", topic_text=N_("ObjectId"),
           letters=("O",)),
    Lesson("06", "btree_keys", N_("B-trees: UUIDv4 versus UUIDv7 as keys"), 55,
           ("postgres", "wiredtiger", "mongodb"),
           module="btree_keys", topic="btree", topic_text=N_("B-tree keys"), letters=("U",)),
    Lesson("07", "trust_your_fake", N_("Can you trust your fake?"), 40),
    Lesson("08", "claim_from_the_wild", N_("A claim from the wild"), 25, ("mongodb",)),
)

# A claim that goes beyond the source documents (MongoDB's manual and server tests say it) takes
# this letter in whichever lesson teaches it; such claims are listed after every lesson's own.
MANUAL_LETTER = "X"

# Every claim-ID letter in the order claims are listed: by the first lesson that owns it.
LETTERS: tuple[str, ...] = (
    *dict.fromkeys(letter for lesson in LESSONS for letter in lesson.letters), MANUAL_LETTER)
# The topics in lesson order, and each as a learner reads it.
TOPICS: tuple[str, ...] = tuple(dict.fromkeys(lesson.topic for lesson in LESSONS if lesson.topic))
TOPIC_TEXT: dict[str, str] = {lesson.topic: lesson.topic_text for lesson in LESSONS
                              if lesson.topic}

# A claim's ID: one capital letter and a number from 1, with no leading zero ("O10").
CLAIM_ID = re.compile(r"(?P<letter>[A-Z])(?P<number>[1-9][0-9]*)")


def by_topic(topic: str) -> tuple[Lesson, ...]:
    """The lessons that teach ``topic`` (``"objectid"``: 04 and 05); none for an unknown one."""
    return tuple(lesson for lesson in LESSONS if topic and lesson.topic == topic)


def by_module(module: str) -> Lesson | None:
    """The lesson whose claims ``labkit.experiments.<module>`` registers, if any."""
    return next((lesson for lesson in LESSONS if module and lesson.module == module), None)


EXPERIMENTS = "labkit.experiments."  # the package a lesson's module is in


def of_experiment(qualified: str) -> Lesson | None:
    """The lesson whose module is ``qualified`` (``labkit.experiments.dates``), if any: a module
    outside labkit.experiments is no lesson's."""
    return by_module(qualified.removeprefix(EXPERIMENTS)) \
        if qualified.startswith(EXPERIMENTS) else None


def by_claim(claim_id: str) -> tuple[Lesson, ...]:
    """The lessons that may hold claim ``claim_id`` by its letter: ``"O3"`` 04 and 05, an
    ``X`` claim any lesson with claims; none for an ID of no lesson's letter or form."""
    found = CLAIM_ID.fullmatch(claim_id)
    if found is None:
        return ()
    letter = found["letter"]
    return tuple(lesson for lesson in LESSONS if letter in lesson.letters
                 or (letter == MANUAL_LETTER and lesson.module))


def letters_text() -> str:
    """The claim-ID letters with their lessons, for a message: ``D (01), ..., X (any lesson:
    MongoDB's manual)``."""
    owners = {letter: [lesson.number for lesson in LESSONS if letter in lesson.letters]
              for letter in LETTERS}
    return ", ".join(f"{letter} ({', '.join(numbers)})" if numbers else
                     f"{letter} (any lesson: MongoDB's manual)"
                     for letter, numbers in owners.items())
