"""labkit's own lines that a Vietnamese lesson shows outside its cards: the environment
self-check, the message when no MongoDB server can be had, a wrong argument's error, and the
ObjectId lessons' small demonstrations, in the learner's language; English everywhere else
(issue 21, "The Vietnamese edition leaks English": lessons 00, 04 and 05)."""

from __future__ import annotations

import sys

import pytest

import labkit
from labkit import i18n, servers
from labkit.errors import BadInput, ServerUnavailable
from labkit.experiments import objectid_anatomy, objectid_ordering
from labkit.run import doctor


@pytest.fixture
def vietnamese(monkeypatch):
    """The learner's language is Vietnamese, as ``labkit.language("vi")`` sets it."""
    monkeypatch.setattr(i18n, "_chosen", "vi")


def test_the_self_check_speaks_vietnamese_and_still_counts_the_ways(vietnamese,
                                                                       nothing_available):
    """``labkit.doctor()`` in Vietnamese: each line marked ``[OK]``, ``[CHƯA ĐẠT]`` or, for an
    optional way that is not there, ``[--]``, the three ways to MongoDB named in Vietnamese and
    still counted as ways, the closing line in Vietnamese (lesson 00's first output)."""
    report = doctor.run()
    text = str(report)
    lines = text.splitlines()
    assert all(line.startswith(("[OK] ", "[CHƯA ĐẠT] ", "[--] ")) for line in lines[:-1])
    optional = [line.split(None, 1)[1] for line in lines if line.startswith("[--]")]
    assert "MongoDB qua LABKIT_MONGODB_URI: chưa đặt" in optional
    assert len(report.mongodb_ways) == 3
    assert report.ok  # no server is needed to be ready
    assert lines[-1].startswith("Sẵn sàng, không có server MongoDB")
    for english in ("MongoDB via", "not set", "package ", "Ready without"):
        assert english not in text


def test_the_self_check_stays_english_by_default(monkeypatch, nothing_available):
    """Without a language chosen (the command line, ``labkit doctor --json``) the lines and
    the JSON keep their English words."""
    monkeypatch.setattr(i18n, "_chosen", None)
    monkeypatch.delenv("LABKIT_LANG", raising=False)
    report = doctor.run()
    assert "[--]   MongoDB via LABKIT_MONGODB_URI: not set" in str(report).splitlines()
    assert report.to_dict()["summary"].startswith("Ready without a MongoDB server")


def test_no_server_message_speaks_vietnamese(vietnamese, nothing_available):
    """The server-discovery message a lesson shows (lesson 00 prints it, the not-run card's
    details quote its one-line form): what was tried and the hint, in Vietnamese."""
    with pytest.raises(ServerUnavailable) as caught:
        servers.get_mongodb()
    error = caught.value
    message = str(error)
    assert message.startswith("Không có server MongoDB nào dùng được. Đã thử:")
    assert "  - LABKIT_MONGODB_URI: chưa đặt" in message.splitlines()
    assert "mongod cục bộ: LABKIT_MONGOD trỏ tới " in message
    # The fields stay English (results.json keeps them) and are shown in Vietnamese.
    hint, summary = i18n.shown(error.hint), i18n.shown(error.summary())
    assert hint.startswith("Gợi ý: chỉ cho labkit một server")
    assert message.splitlines()[-1] == hint
    assert "(đã thử LABKIT_MONGODB_URI: chưa đặt;" in summary
    for english in ("Tried", "Hint", "not set", "No MongoDB server"):
        assert english not in message + summary


@pytest.mark.parametrize(("call", "english", "vietnamese_words"), [
    (lambda: labkit.exercise("99.nothing"), "no exercise", "không có bài tập '99.nothing'"),
    (lambda: labkit.claim("Z9"), "no claim", "không có nhận định 'Z9'"),
    (lambda: labkit.language("fr"), "unknown language", "không có ngôn ngữ 'fr'"),
])
def test_a_wrong_argument_is_refused_in_the_learner_s_language(vietnamese, call, english,
                                                                vietnamese_words):
    """A wrong exercise name, claim ID or language in a Vietnamese lesson: BadInput whose
    message is Vietnamese and still names what is known."""
    with pytest.raises(BadInput) as caught:
        call()
    assert vietnamese_words in str(caught.value)
    assert english not in str(caught.value)


def test_the_range_boundary_demonstration_counts_and_speaks_vietnamese(vietnamese):
    """Lesson 04's boundary table: nothing of the second sorts below ``from_datetime``, half of
    the others below the ID made at the second, and the headings are Vietnamese (claim O8;
    pymongo's ``ObjectId.from_datetime``)."""
    second = 1_791_417_600  # 2026-10-08T00:00:00Z
    bound, made = objectid_anatomy.below_in_second(second, others=8)
    heading = "số ID cùng giây đứng trước nó"
    assert bound == {"ID": "cận dưới của giây đó (from_datetime)",
                     "hex": "6ac6dd000000000000000000", heading: "0 trên 8"}
    assert made["hex"][:8] == "6ac6dd00"
    assert made["hex"] != bound["hex"]
    assert made["ID"] == "một ID tạo ở giây đó (cái ở giữa trong 9 ID tạo lúc ấy)"
    # The middle one of the nine made then: four of the other eight always sort below it (one
    # picked at random was the smallest once in nine runs, and the table then showed nothing).
    assert made[heading] == "4 trên 8"


def test_the_clock_skew_example_sorts_b_first_and_speaks_vietnamese(vietnamese):
    """Lesson 05's clock skew: B writes a second after A with a clock two seconds behind, so
    its ID carries an earlier time and sorts first (claim O9, on clock skew)."""
    rows = objectid_ordering.clock_skew(skew_s=-2)
    assert [row["tiến trình"] for row in rows] == ["B", "A"]
    assert rows[0]["ghi lúc (đồng hồ đúng)"] == "2023-11-14T22:13:21Z"
    assert rows[0]["thời điểm ghi trong _id"] == "2023-11-14T22:13:19Z"
    assert rows[1]["_id"] == "6553f1001111111111000000"


def test_the_server_command_speaks_vietnamese(monkeypatch, capsys, nothing_available):
    """``LABKIT_LANG=vi labkit server`` with no way to a server: the first line and the
    error are Vietnamese, and ``--optional`` warns in Vietnamese (it printed "Looking for a
    MongoDB server…", issue 32)."""
    from labkit.cli import main

    monkeypatch.setattr(i18n, "_chosen", None)
    monkeypatch.setenv("LABKIT_LANG", "vi")
    assert main(["server", "--mongodb", "local"]) != 0
    err = capsys.readouterr().err
    assert err.startswith("Đang tìm một server MongoDB…\n"), err
    assert "Looking for" not in err
    assert main(["server", "--mongodb", "local", "--optional", "--", sys.executable, "-c",
                 "pass"]) == 0
    err = capsys.readouterr().err
    assert "Tiếp tục mà không có server MongoDB." in err, err
    assert "Continuing" not in err


def _depth(text: str) -> int:
    """How deep parentheses nest in ``text``: "a (b)" is 1, "a (b (c))" 2."""
    depth = deepest = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        deepest = max(deepest, depth)
    return deepest


def test_a_phrase_set_in_parentheses_holds_none_of_its_own(vietnamese):
    """A claim's kind follows its verdict in parentheses ("phát hiện (…)", the cards and the
    report) and a lesson's title its number ("bài 03 (…)", the score and the warm-ups): each
    read twice nested in Vietnamese ("nhận định khảo sát (theo từng engine)", "Type bracketing
    (so sánh …)"); now each reads with one pair."""
    from labkit import syllabus
    from labkit.claims.claim import KIND_TEXT, kind_text
    from labkit.lessons import recall

    assert [_depth(kind_text(kind)) for kind in KIND_TEXT] == [0] * len(KIND_TEXT)
    assert [lesson.number for lesson in syllabus.LESSONS
            if _depth(i18n._(lesson.title))] == []
    line = i18n._(recall._NOT_YET).format(name="04.warm_up", lesson="03",
                                        title=i18n._(syllabus.LESSONS[3].title))
    assert _depth(line) == 1


@pytest.mark.parametrize(("english", "meant", "misread"), [
    # "chỉ" read as "only": the clock *shows* a time a second early.
    ("B wrote later, but its clock says one second earlier, and the timestamp comes first.",
     "đồng hồ của nó báo giờ sớm hơn một giây", "chỉ sớm hơn"),
    ("no {engine} here: why is on the first card above that says so",
     "xem lý do ở thẻ đầu tiên phía trên báo thiếu {engine}", "nằm ở thẻ đầu tiên phía trên nói"),
])
def test_sentences_a_learner_misread_say_what_they_mean(vietnamese, english, meant, misread):
    """Two Vietnamese sentences a learner could not parse (lesson 06's warm-up hint on clock
    skew, the cards' pointer to an earlier reason) say what the English says."""
    assert meant in i18n._(english)
    assert misread not in i18n._(english)
