"""The refusals of the model, the claim files, the claim registry and the commands' small
checks speak the learner's language: each is kept as an English template with its values
(what files and ``str`` of the message keep) and shown in Vietnamese with numbers in the
Vietnamese format; one example per module family."""

from __future__ import annotations

import pytest

from labkit import i18n
from labkit.claims import files as claimfiles
from labkit.claims.registry import claim
from labkit.engines.btree_model import BPlusTree
from labkit.errors import BadInput, UnknownClaim
from labkit.experiments import catalogue
from labkit.model import find, fixtures, objectid
from labkit.run import check
from labkit.servers import route


@pytest.fixture
def vietnamese(monkeypatch):
    """The learner's language is Vietnamese, as ``labkit.language("vi")`` sets it."""
    monkeypatch.setattr(i18n, "_chosen", "vi")


def _refusal(call, kind=BadInput):
    with pytest.raises(kind) as caught:
        call()
    return caught.value


def test_a_filter_the_model_refuses_is_shown_in_vietnamese_and_kept_in_english(vietnamese):
    """An unknown query operator (model/match.py): the learner reads Vietnamese, the message
    itself stays the English template with the operator as its value."""
    error = _refusal(lambda: find([{"a": 1}], {"a": {"$nope": 1}}))
    assert str(error) == "mô hình không biết toán tử truy vấn $nope"
    assert str(error.args[0]) == "the model does not know the query operator $nope"
    assert error.args[0].values == {"op": "$nope"}


def test_an_extended_json_refusal_names_its_place_in_vietnamese(vietnamese):
    """A malformed ``$oid`` in a filter (model/fixtures.py): both the place (the default label
    "the filter") and the problem inside it are shown in Vietnamese."""
    error = _refusal(lambda: fixtures.parse_value('{"_id": {"$oid": "zz"}}'))
    assert str(error) == "bộ lọc: $oid cần 24 chữ số thập lục phân, không phải 'zz'"
    assert str(error.args[0]) == "the filter: $oid needs 24 hexadecimal digits, not 'zz'"


def test_a_number_in_a_refusal_is_written_the_vietnamese_way(vietnamese):
    """An ObjectId time beyond 32 bits (model/objectid.py): the bound is grouped with dots in
    Vietnamese and with commas in the English kept, the value given is echoed as written."""
    error = _refusal(lambda: objectid.parse_time("4294967296"))
    assert str(error) == "thời điểm 4294967296 nằm ngoài khoảng từ 0 đến 4.294.967.295"
    assert str(error.args[0]) == "time 4294967296 is outside 0..4,294,967,295"


def test_a_refusal_stays_english_without_a_language(monkeypatch):
    """Without a language chosen (the command line's default), the same refusal is English."""
    monkeypatch.setattr(i18n, "_chosen", None)
    monkeypatch.delenv("LABKIT_LANG", raising=False)
    error = _refusal(lambda: find([{"a": 1}], {"a": {"$nope": 1}}))
    assert str(error) == "the model does not know the query operator $nope"


def test_a_claim_file_mistake_is_shown_in_vietnamese_with_its_line(vietnamese, tmp_path):
    """An unknown key in a short-form claim file (claims/_short.py): file and line, the claim
    and the problem in Vietnamese."""
    path = tmp_path / "mine.yaml"
    path.write_text("- id: mine.one\n  title: t\n  bogus: 1\n", encoding="utf-8")
    error = _refusal(lambda: claimfiles.read(path))
    assert str(error).startswith(f"{path}:3: nhận định 'mine.one': không có khoá 'bogus'")
    assert "unknown key" in str(error.args[0])


def test_a_claim_id_no_lesson_owns_is_refused_in_vietnamese(vietnamese):
    """A claim ID with a letter no lesson owns (claims/registry.py) is refused in Vietnamese
    as the module registering it is imported."""
    error = _refusal(lambda: claim("Q1", title="t", source="manual", topic="dates",
                                   expected=None))
    assert str(error).startswith("nhận định 'Q1': một ID gồm chữ cái của một bài")


def test_the_commands_small_checks_speak_vietnamese(vietnamese):
    """An unknown engine for ``labkit check`` (run/check.py), server kind (servers/route.py),
    topic (experiments/catalogue.py) and a B-tree page too small (engines/btree_model.py)."""
    assert str(_refusal(lambda: check.parse_engines("nope"))).startswith(
        "không có engine 'nope'; hãy chọn trong: model")
    assert str(_refusal(lambda: route.provide("nosuch"))).startswith(
        "không có loại server 'nosuch'; hãy chọn một trong:")
    assert str(_refusal(lambda: catalogue.select(topics=["nope"]), UnknownClaim)).startswith(
        "không có chủ đề 'nope'; các chủ đề có:")
    assert str(_refusal(lambda: BPlusTree(capacity=2))) == \
        "sức chứa của một trang phải ít nhất là 3 khoá, không phải 2"


def test_a_claim_checks_reason_is_shown_in_vietnamese_and_kept_in_english(vietnamese,
                                                                          tmp_path):
    """A claim that expects a server error, checked on the model with an operator it does
    not know (run/check.py): the row's
    reason is shown in Vietnamese and kept in English (results.json keeps ``reason``); a
    count that differs is noted the same way (claims/expect.py)."""
    path = tmp_path / "mine.yaml"
    path.write_text("- id: mine.error\n  title: t\n  fixture: [{_id: 1}]\n"
                    "  find: {_id: {$geoWithin: {}}}\n  expect: {error: true}\n"
                    "- id: mine.count\n  title: t\n  fixture: [{_id: 1}]\n  find: {}\n"
                    "  expect: {count: 2}\n", encoding="utf-8")
    error_row, count_row = check.run_files([path], ["model"]).run.rows
    assert i18n.english(error_row.reason) == "the model does not support $geoWithin"
    assert error_row.shown_reason == "mô hình không hỗ trợ $geoWithin"
    assert i18n.english(count_row.reason) == "1, not 2"
    assert count_row.shown_reason == "1, không phải 2"
