"""What each question and figure of a claim's card is, in words: a claim's expectation and its
observation are dictionaries keyed by identifiers (``string_range``, ``uuid7_fill``), which
results.json, JUnit and ``--json`` keep; a card shows the learner these labels instead, in the
learner's language, with the identifier beside them on request (the cell's tooltip)."""

from __future__ import annotations

from typing import Any

from labkit.i18n import N_, _

# One label per key a claim's expectation or observation uses, the same key meaning the same
# thing in every claim (``counter_steps`` in O1, O5 and O6). A key not here is shown as it is.
LABELS: dict[str, str] = {
    "types": N_("the types stored"),
    "millis": N_("milliseconds stored"),
    "read_back": N_("the value read back"),
    "date_bytes": N_("bytes of the Date"),
    "string_bytes": N_("bytes of the ISO string"),
    "string_range": N_("range on the string field"),
    "date_range": N_("range on the Date field"),
    "sort_by_string_desc": N_("descending sort on the strings"),
    "date_field_string_operand": N_("Date field, string operand"),
    "ascending": N_("ascending sort"),
    "descending": N_("descending sort"),
    "v_then_id": N_("sort by v, then _id"),
    "eq_42": N_("equal to 42"),
    "eq_string_42": N_('equal to "42"'),
    "gt_0": N_("greater than 0"),
    "gt_empty_string": N_('greater than ""'),
    "census": N_("documents per type"),
    "census_from_python": N_("documents per type, written by Python"),
    "every_numeric_type_matches": N_("every numeric type matches"),
    "string_hidden_from_number": N_("a string hidden from a number"),
    "date_hidden_from_string": N_("a Date hidden from a string"),
    "bytes": N_("bytes"),
    "hex_characters": N_("hex characters"),
    "timestamp_is_clock_seconds": N_("timestamp is the clock's seconds"),
    "random_values_in_process": N_("random values in one process"),
    "counter_steps": N_("counter steps"),
    "lowercase_hex": N_("hex in lowercase"),
    "timestamp_hex": N_("timestamp (hex)"),
    "counter_hex": N_("counter (hex)"),
    "oid": N_("the ID"),
    "next": N_("the next ID"),
    "seconds": N_("seconds"),
    "last_second": N_("last second"),
    "timestamp_after_last": N_("timestamp after the last second"),
    "counter_wrap": N_("counter at the top, then"),
    "random_values": N_("random values"),
    "ids": N_("IDs made"),
    "shared_timestamp": N_("one shared timestamp"),
    "one_random_per_process": N_("one random value per process"),
    "milliseconds": N_("milliseconds in the ID"),
    "new_random_after_restart": N_("a new random value after a restart"),
    "tries": N_("tries"),
    "server_generated": N_("made by the server"),
    "server_random_differs_from_client": N_("server's random value differs from the client's"),
    "server_ids_share_random": N_("the server's IDs share one random value"),
    "lower_bound": N_("lower bound of the second"),
    "count_from_lower_bound": N_("documents from the lower bound"),
    "count_from_made_at": N_("documents from the made-at ID"),
    "made_at": N_("an ID made in that second"),
    "made_at_misses_documents": N_("the made-at ID misses documents"),
    "same_second": N_("in the same second"),
    "later_process_sorts_first": N_("the later process sorts first"),
    "objectid_bytes": N_("bytes of an ObjectId"),
    "uuid_bytes": N_("bytes of a UUID"),
    "objectid_bson_value_bytes": N_("bytes of an ObjectId as a BSON value"),
    "uuid_bson_value_bytes": N_("bytes of a UUID as a BSON value"),
    "version_bits": N_("version bits"),
    "variant_bits": N_("variant bits"),
    "unix_ts_ms_within_clock": N_("unix_ts_ms within the clock"),
    "later_ms_sorts_after": N_("a later millisecond sorts after"),
    "one_generator_in_order": N_("one generator, in order"),
    "two_nodes_same_ms_in_time_order": N_("two nodes in one millisecond, in time order"),
    "milliseconds_shared_by_both_nodes": N_("milliseconds with IDs of both nodes"),
    "chosen": N_("the time chosen"),
    "now_within_clock": N_("now, within the clock"),
    "sequential_fill": N_("fill of sequential keys"),
    "uuid7_fill": N_("fill with UUIDv7 keys"),
    "int_fill": N_("fill with int keys"),
    "uuid4_fill": N_("fill with UUIDv4 keys"),
    "random_larger_by": N_("random keys larger by"),
    "random_writes_more": N_("random keys write more"),
    "random_reads_more": N_("random keys read more"),
    "part": N_("what is measured"),
    "unit": N_("unit"),
    "uuid4": N_("UUIDv4 keys"),
    "uuid7": N_("UUIDv7 keys"),
    "uuid4_write_bytes": N_("bytes written, UUIDv4"),
    "uuid7_write_bytes": N_("bytes written, UUIDv7"),
    "uuid4_bytes_per_insert": N_("bytes per insert, UUIDv4"),
    "uuid7_bytes_per_insert": N_("bytes per insert, UUIDv7"),
    "uuid4_writes_vs_uuid7": N_("UUIDv4 writes against UUIDv7"),
    "uuid4_cache_reads": N_("pages read into the cache, UUIDv4"),
    "uuid7_cache_reads": N_("pages read into the cache, UUIDv7"),
    "checkpoint_every": N_("a checkpoint every (keys)"),
    "versions": N_("UUID versions"),
    "in_insert_order": N_("in insert order"),
    "expr_gt_0": N_("$expr greater than 0"),
    "ne_42": N_("not equal to 42"),
    "nin_42": N_("not in [42]"),
    "eq": N_("$eq"),
    "gte": N_("$gte"),
    "lte": N_("$lte"),
    "gt": N_("$gt"),
    "lt": N_("$lt"),
    "eq_whole_array": N_("equal to the whole array"),
    "eq_element": N_("equal to an element"),
    "counters": N_("counters"),
    "sorted_like_creation": N_("sorted as they were made"),
    "random_index_larger": N_("the random-key index is larger"),
    "sequential_in_memory_splits_more": N_("sequential keys split more in memory"),
    "random_eviction_splits_more": N_("random keys split more on eviction"),
    "uuid7_splits": N_("page splits, UUIDv7"),
    "uuid4_splits": N_("page splits, UUIDv4"),
    "before": N_("before the repair"),
    "bytewise": N_("bytewise"),
    "numericOrdering": N_("numericOrdering"),
    "uuid4_index_to_cache": N_("UUIDv4 index size / cache size"),
    "cache_bytes": N_("bytes of the cache"),
    # The fields of an ID as ``objectid.explain`` and ``processes.rows`` give them.
    "process": N_("process"),
    "random": N_("random"),
    "counter": N_("counter"),
    "clock": N_("clock"),
    "clock_ns": N_("clock (ns)"),
    "made_at_ms": N_("made at (ms)"),
    "datetime": N_("date and time (UTC)"),
}

# Words an observation holds as values that are labkit's own (which part of U5 a row judges,
# the unit of a size): shown translated. Any other string value is data, shown as it is.
VALUE_WORDS = frozenset([N_("size"), N_("write amplification"), N_("cache churn"),
                         N_("leaf pages"), N_("bytes")])


def label(key: Any) -> str:
    """A question's or figure's label in the learner's words; the key itself when it has none."""
    text = LABELS.get(key) if isinstance(key, str) else None
    return _(text) if text else str(key)


def value_word(value: Any) -> Any:
    """``value`` in the learner's words where it is one of labkit's own words, else as it is."""
    return _(value) if isinstance(value, str) and value in VALUE_WORDS else value
