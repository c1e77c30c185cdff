"""The experiments behind the claims, one module per lesson; importing this registers them all.

Each module's docstring names its lesson; ``tests/test_<module>.py`` mirrors it.
"""

from . import (  # noqa: F401  (importing registers the claims)
    bracketing,
    btree_keys,
    dates,
    objectid_anatomy,
    objectid_ordering,
    sort_order,
)

LESSONS = {
    "dates": "01_dates_not_strings.ipynb",
    "sort_order": "02_bson_sort_order.ipynb",
    "bracketing": "03_type_bracketing.ipynb",
    "objectid_anatomy": "04_objectid_anatomy.ipynb",
    "objectid_ordering": "05_objectid_ordering.ipynb",
    "btree_keys": "06_btree_keys.ipynb",
}


def lesson_of(claim) -> str:
    """The notebook that teaches a claim: ``notebooks/<lesson>``, from its experiment's module."""
    module = claim.experiment.__module__.rsplit(".", 1)[-1]
    return f"notebooks/{LESSONS[module]}" if module in LESSONS else ""
