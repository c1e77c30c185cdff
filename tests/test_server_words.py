"""What labkit says of a MongoDB server, of a clean-up and of a missing server, in the
learner's language (issue 27): under ``LABKIT_LANG=vi`` the screen is Vietnamese, by default
it is the English it always was, and ``--json`` and results keep the English."""

from __future__ import annotations

import json

import pytest

import labkit.servers
from labkit import i18n, servers
from labkit.cli import main
from labkit.errors import BadInput, CleanupIncomplete
from labkit.i18n import N_, Message
from labkit.run import doctor
from labkit.servers import base, mongo, postgres

GIB = 1024**3
# serverStatus's wiredTiger.cache section, as the server states the cache it runs with
# (the "maximum bytes configured" field: docs.mongodb.com, serverStatus, wiredTiger.cache).
ONE_GB = {"wiredTiger": {"cache": {"maximum bytes configured": GIB}}}
ONE_AND_A_HALF_GB = {"wiredTiger": {"cache": {"maximum bytes configured": 3 * GIB // 2}}}


@pytest.fixture
def language(monkeypatch):
    """Choose the language as the command line does, through LABKIT_LANG ("" for none)."""
    monkeypatch.setattr(i18n, "_chosen", None)

    def choose(code: str) -> None:
        if code:
            monkeypatch.setenv("LABKIT_LANG", code)
        else:
            monkeypatch.delenv("LABKIT_LANG", raising=False)
    return choose


@pytest.mark.parametrize(("status", "asked", "english", "vietnamese"), [
    (ONE_GB, 0.25, "WiredTiger cache 1 GB (labkit asked for 0.25 GB)",
     "cache WiredTiger 1 GB (labkit đã yêu cầu 0,25 GB)"),
    ({}, 0.25, "WiredTiger cache 0.25 GB (set by labkit)",
     "cache WiredTiger 0,25 GB (do labkit đặt)"),
    (ONE_AND_A_HALF_GB, None,
     "WiredTiger cache 1.5 GB (the server's own setting; labkit did not start this server)",
     "cache WiredTiger 1,5 GB (thiết lập riêng của server; labkit không khởi động server này)"),
    ({"ok": 1.0}, None,
     "WiredTiger cache: the server's own setting (not readable: serverStatus has no "
     "wiredTiger.cache section); labkit did not start this server",
     "cache WiredTiger: theo thiết lập riêng của server (không đọc được: serverStatus không có "
     "mục wiredTiger.cache); labkit không khởi động server này"),
])
def test_the_cache_is_said_in_the_learners_language_and_kept_in_english(
        language, status, asked, english, vietnamese):
    """The cache report: Vietnamese with a decimal comma under vi, the same English as before
    by default, and English whatever the language where results keep it."""
    language("")
    assert mongo.cache_report(status, asked)[1].shown() == english
    language("vi")
    _gb, text = mongo.cache_report(status, asked)
    assert text.shown() == vietnamese
    assert text.english() == english


def test_a_cache_out_of_range_is_refused_with_the_learners_decimal_mark(language):
    """mongod's smallest cache is 0.25 GB: "0,25" in Vietnamese, "0.25" in English."""
    language("vi")
    with pytest.raises(BadInput) as refused:
        servers.check_cache_gb(0.1)
    said = i18n.shown(refused.value.args[0])
    assert "từ 0,25 đến 10000 GB" in said
    assert "0,25 là mức nhỏ nhất" in said
    assert i18n.english(refused.value.args[0]) == (
        "WiredTiger cache size 0.1 GB is out of range: it must be a number from 0.25 to 10000 "
        "GB (0.25 is the smallest mongod accepts)")


def test_why_a_database_stays_is_said_in_the_learners_language(language, tmp_path,
                                                               monkeypatch):
    """why_unproven, a PostgreSQL database without a lease end, and a stale database this
    user may not drop: Vietnamese under vi, the old English by default."""
    monkeypatch.setenv(servers.CONFIG_VARIABLE, str(tmp_path / "none"))  # no secret there
    reasons = [servers.why_unproven("labkit_a_1", "labkit:x", owner="alice"),
               servers.why_unproven("labkit_a_1", "labkit:x"), postgres.UNDATED,
               mongo._why_kept(CleanupIncomplete("labkit_a_1", ["t"], "not authorized")),
               mongo._why_kept(RuntimeError("boom"))]
    language("")
    assert [i18n.shown(why) for why in reasons] == [
        "owned by role alice, not by this one: another role's database is never dropped",
        f"there is no secret at {servers.secret_path()} (deleted?), so no mark can be proven; "
        "databases marked before it was made are left alone",
        "its comment holds no lease end (an older labkit's, whose runs held an advisory lock "
        "instead): drop it by hand once no run uses it",
        "left t: not authorized", "could not drop it: RuntimeError: boom"]
    english = [i18n.english(why) for why in reasons]
    language("vi")
    shown = [i18n.shown(why) for why in reasons]
    assert shown[0].startswith("thuộc vai trò alice")
    assert shown[1].startswith("không có khoá bí mật tại")
    assert shown[2].startswith("comment của nó không ghi")
    assert shown[3] == "còn lại t: not authorized"  # the server's own words stay its own
    assert shown[4] == "không xoá được: RuntimeError: boom"
    assert [i18n.english(why) for why in reasons] == english


def _cleaned() -> list[servers.Cleaned]:
    """One user's server after a clean-up, with one database of each kind of reason."""
    return [{"engine": "MongoDB", "server": "MongoDB 8.0.4 (uri: mongodb://h:1/)",
             "removed": [], "in_use": [],
             "unproven": {"labkit_a_1": servers.why_unproven("labkit_a_1", "x", owner="bob")},
             "skipped": {"labkit_b_2": mongo._why_kept(RuntimeError("no"))}}]


def test_labkit_clean_says_why_in_vietnamese_and_its_json_keeps_english(language, capsys,
                                                                       monkeypatch):
    """``labkit clean``'s reasons on screen follow LABKIT_LANG; ``--json`` stays English."""
    monkeypatch.setattr(labkit.servers, "clean_user_servers", _cleaned)
    language("")
    assert main(["clean"]) == 0
    out = capsys.readouterr().out
    assert "  labkit_a_1: owned by role bob, not by this one" in out
    assert "  labkit_b_2: could not drop it: RuntimeError: no" in out
    language("vi")
    assert main(["clean"]) == 0
    out = capsys.readouterr().out
    assert "  labkit_a_1: thuộc vai trò bob" in out
    assert "  labkit_b_2: không xoá được: RuntimeError: no" in out
    assert main(["clean", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)[0]
    assert report["unproven"]["labkit_a_1"].startswith("owned by role bob")
    assert report["skipped"]["labkit_b_2"] == "could not drop it: RuntimeError: no"


def _found_server(monkeypatch) -> None:
    """``servers.provide`` hands back a user's server whose serverStatus said 1.5 GB."""
    def provide(*_args: object) -> servers.MongoServer:
        return servers.MongoServer(uri="mongodb://127.0.0.1:27017", how="uri",
                                   version="8.0.4", cache_gb=1.5,
                                   cache=mongo.cache_report(ONE_AND_A_HALF_GB, None)[1])
    monkeypatch.setattr(labkit.servers, "provide", provide)


def test_labkit_server_says_the_cache_in_vietnamese_and_its_json_keeps_english(
        language, capsys, monkeypatch):
    """``labkit server``'s cache line follows LABKIT_LANG; ``--json``'s cache is English."""
    _found_server(monkeypatch)
    english = ("WiredTiger cache 1.5 GB (the server's own setting; labkit did not start this "
               "server)")
    language("")
    assert main(["server"]) == 0
    assert english in capsys.readouterr().out.splitlines()
    language("vi")
    assert main(["server"]) == 0
    assert ("cache WiredTiger 1,5 GB (thiết lập riêng của server; labkit không khởi động "
            "server này)") in capsys.readouterr().out.splitlines()
    assert main(["server", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cache"] == english


def test_labkit_doctor_says_the_uris_cache_in_the_learners_language(language, monkeypatch):
    """The doctor's LABKIT_MONGODB_URI line names the cache in the learner's words."""
    _found_server(monkeypatch)
    monkeypatch.setenv("LABKIT_MONGODB_URI", "mongodb://127.0.0.1:27017")
    language("")
    assert "; WiredTiger cache 1.5 GB (the server's own setting;" in doctor._mongodb_uri().detail
    language("vi")
    assert "; cache WiredTiger 1,5 GB (thiết lập riêng" in doctor._mongodb_uri().detail


def test_why_no_mongodb_server_is_here_is_said_in_the_learners_language(language,
                                                                        monkeypatch):
    """mongodb_missing: a lesson shows it in the learner's words, a test's skip reason keeps
    its English."""
    monkeypatch.delenv("LABKIT_MONGODB_URI", raising=False)
    monkeypatch.setattr(mongo, "find_mongod", lambda: None)
    monkeypatch.setattr(base, "docker_status", lambda: (False, Message(N_("no Docker socket"))))
    english = ("no MongoDB server: LABKIT_MONGODB_URI is not set, no local mongod was found, "
               "and Docker is not usable (no Docker socket)")
    language("")
    why = servers.mongodb_missing()
    assert why is not None
    assert why.shown() == english
    language("vi")
    why = servers.mongodb_missing()
    assert why is not None
    assert why.english() == english
    assert why.shown() == ("không có server MongoDB: LABKIT_MONGODB_URI chưa được đặt, không "
                           "tìm thấy mongod trên máy, và không dùng được Docker (không có "
                           "socket Docker)")
