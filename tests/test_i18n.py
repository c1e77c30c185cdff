"""labkit's own words in Vietnamese: every message extracted and translated, placeholders kept,
feedback, cards, the report and plots in the learner's language, machine output in English."""

from __future__ import annotations

import ast
import json
import re
import warnings

import polib
import pytest
from helpers import fresh_lab
from helpers import labkit as run_labkit

import labkit
from labkit import errors, i18n
from labkit._paths import PACKAGE
from labkit.errors import BadInput, ServerUnavailable
from labkit.experiments import catalogue as claim_catalogue
from labkit.lessons import questions, translate
from labkit.outputs import report
from labkit.run import runner


def _offline():
    raise ServerUnavailable("no MongoDB server is available. Hint: set LABKIT_MONGODB_URI")


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """A fresh kernel without servers, progress kept in a temporary file."""
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    ctx = runner.Context(btree_n=1_000, mongodb_provider=_offline, postgres_provider=_offline)
    fresh_lab(monkeypatch, ctx)
    yield ctx
    ctx.close()


@pytest.fixture(params=["en", "vi"])
def lang(request, monkeypatch):
    """Each language in turn, as ``labkit.language(code)`` sets it in a lesson."""
    monkeypatch.setattr(i18n, "_chosen", None)
    labkit.language(request.param)
    return request.param


def _catalogue() -> dict[str, polib.POEntry]:
    return {e.msgid: e for e in polib.pofile(str(translate.LABKIT_CATALOGUE)) if not e.obsolete}


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w*(?:[:!][^{}]*)?)\}", text))  # name and format spec


def test_every_message_has_a_vietnamese_translation():
    """Each ``_()``/``N_()`` message of the package (and each label a lesson hands labkit) has a
    finished translation: a new or changed English message fails until it is translated
    (``python -m labkit.lessons.translate messages``, then fill in labkit/locale/vi/labkit.po)."""
    catalogue = _catalogue()
    messages = translate.labkit_messages()
    assert len(messages) > 250
    missing = [m for m in messages if m not in catalogue]
    untranslated = [m for m in messages if m in catalogue and not catalogue[m].msgstr]
    fuzzy = [m for m in messages if m in catalogue and "fuzzy" in catalogue[m].flags]
    assert not missing, ("not in labkit.po (run `python -m labkit.lessons.translate messages`): "
                         f"{missing}")
    assert not untranslated, (untranslated, fuzzy)
    assert not fuzzy, (untranslated, fuzzy)
    assert not set(catalogue) - set(messages), "labkit.po keeps messages the code no longer has"


def test_placeholders_agree():
    """A translation names exactly the ``{placeholders}`` of its English message."""
    wrong = [(e.msgid, e.msgstr) for e in _catalogue().values()
             if _placeholders(e.msgid) != _placeholders(e.msgstr)]
    assert not wrong


def test_an_f_string_cannot_be_a_message(tmp_path):
    """The extractor refuses ``_(f"…")``: its text changes with its values and is never found."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "m.py").write_text('from labkit.i18n import _\nx = 1\nprint(_(f"n = {x}"))\n')
    with pytest.raises(BadInput, match=r"m\.py:3: an f-string"):
        translate.labkit_messages(translate.Layout(tmp_path), package)


def test_update_messages_adds_obsoletes_and_keeps(tmp_path):
    """New messages come in untranslated, vanished ones turn obsolete, translations stay."""
    package = tmp_path / "pkg"
    package.mkdir()
    source = package / "m.py"
    source.write_text('from labkit.i18n import N_, _\nA = N_("kept")\nprint(_("gone {n}"))\n')
    path = tmp_path / "labkit.po"
    layout = translate.Layout(tmp_path)
    assert translate.update_messages(path, layout, package) == {"added": 2, "obsolete": 0}
    catalogue = polib.pofile(str(path))
    catalogue.find("kept").msgstr = "giữ"
    catalogue.save()
    source.write_text('from labkit.i18n import N_, _\nA = N_("kept")\nprint(_("new"))\n')
    assert translate.update_messages(path, layout, package) == {"added": 1, "obsolete": 1}
    catalogue = polib.pofile(str(path))
    assert catalogue.find("kept").msgstr == "giữ"
    assert catalogue.find("new").msgstr == ""
    assert catalogue.find("gone {n}", include_obsolete_entries=True).obsolete


def test_wrong_answer_feedback_is_in_the_lesson_language(offline, lang):
    """A wrong prediction gets "Not quite. Hint: …" in English, "Chưa đúng. Gợi ý: …" in
    Vietnamese, the exercise's own hint translated too."""
    exercise = questions.exercise("01.string_bytes")
    feedback = exercise.check(24)
    assert feedback.correct is False
    if lang == "vi":
        assert feedback.message.startswith("Chưa đúng. Gợi ý: ")
        assert "24 mới chỉ là các ký tự" in feedback.message
    else:
        assert feedback.message.startswith("Not quite. Hint: 24 is the characters alone.")
    unreadable = exercise.check("abc").message
    assert ("không phải là một con số" if lang == "vi" else "is not a number") in unreadable


def test_right_answer_explains_in_the_lesson_language(offline, lang):
    """The right answer's feedback says why in the lesson's language."""
    exercise = questions.exercise("04.after_top")
    message = exercise.check(0).message
    assert message.startswith("Đúng rồi." if lang == "vi" else "Right.")
    assert ("giá trị 3 byte lớn nhất" if lang == "vi" else "the largest 3-byte value") in message


def test_not_run_card_is_in_the_lesson_language(offline, lang):
    """A not-run card's heading, how-to, stand-in labels and table headings follow the
    language; the verdict code stays ``not-run``."""
    card = labkit.claim("D3", offline)
    text, page = str(card), card._repr_html_()
    assert card.verdict == "not-run"
    if lang == "vi":
        assert "D3: chưa chạy (ở đây không có MongoDB)" in text
        assert "Cách có một server" in text
        assert "labkit.doctor()" in text
        assert "kết quả tài liệu gốc “BSON & ObjectId, phần 2/3” ghi lại" in text
        assert "mô hình của labkit dự đoán" in page
        assert "labkit đã thử:" in page
        assert list(card.table().columns) == ["kết quả tài liệu gốc ghi lại (server thật)",
                                              "mô hình của labkit dự đoán"]
    else:
        assert "D3: not run (no MongoDB here)" in text
        assert "How to get one" in text
        assert "chưa chạy" not in text + page


def test_lesson_labels_are_translated_on_the_card(offline, lang):
    """A ``model_label`` a lesson gives ``on_server`` is shown in the lesson's language."""
    card = labkit.on_server("repair", lambda db: None, model=lambda: {"before": 1},
                            model_label="labkit's model: the census before the repair "
                                        "(no server asked)", ctx=offline)
    expected = ("mô hình của labkit: thống kê kiểu trước khi sửa" if lang == "vi"
                else "labkit's model: the census before the repair")
    assert expected in str(card)


def _run(*ids: str) -> runner.Run:
    with runner.Context(mongodb_provider=_offline, postgres_provider=_offline) as ctx:
        return runner.run([claim_catalogue.get(i) for i in ids], ctx)


def test_report_summary_is_in_the_language_and_results_stay_english(lang, tmp_path):
    """The summary box and verdict words of report.md/html follow the language; results.json
    keeps the English summary, count keys and verdict codes."""
    run = _run("O3", "D3")
    paths = report.write(run, tmp_path)
    lines = report.summary_lines(run)
    page = paths["html"].read_text(encoding="utf-8")
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    if lang == "vi":
        assert lines[0] == "Đã kiểm tra 2 nhận định: 1 nhận định đúng; 1 nhận định chưa chạy."
        assert lines[1] == "Không có MongoDB: 1 nhận định chưa chạy (D3)."
        assert run.summary().startswith("2 nhận định: 1 đúng, 0 không đúng")
        assert "<h1>Báo cáo labkit</h1>" in page
        assert "<html lang='vi'>" in page
        assert "<th>kết luận</th>" in page
        assert "<span class='v holds'>đúng</span>" in page
    else:
        assert lines[0] == "2 claims were checked: 1 claim holds; 1 claim did not run."
        assert "<h1>labkit report</h1>" in page
        assert "<span class='v holds'>holds</span>" in page
    assert data["summary"] == "2 claims: 1 hold, 0 do not hold, 0 findings, 1 not run, 0 error"
    assert data["counts"]["hold"] == 1
    assert [c["verdict"] for c in data["claims"]] == ["holds", "not-run"]


def test_the_cli_writes_a_vietnamese_report_with_english_results(tmp_path):
    """``LABKIT_LANG=vi labkit run --claims O3`` prints and writes Vietnamese headings and
    verdict words; results.json keeps its English keys and codes."""
    out = tmp_path / "report"
    result = run_labkit("run", "--claims", "O3", "--out", str(out), "--quiet",
                        env={"LABKIT_LANG": "vi"})
    assert result.returncode == 0, result.stderr
    assert "1 nhận định: 1 đúng" in result.stdout
    assert "Báo cáo: " in result.stdout
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<h1>Báo cáo labkit</h1>" in page
    assert "Đã kiểm tra 1 nhận định" in page
    assert "<span class='v holds'>đúng</span>" in page
    assert "- Kết luận: **đúng** (nhận định về hành vi)" in (out / "report.md").read_text(
        encoding="utf-8")
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert data["claims"][0]["verdict"] == "holds"
    assert data["counts"]["hold"] == 1
    assert data["summary"].startswith("1 claim: 1 hold")


def test_json_output_stays_english(tmp_path):
    """``--json`` prints the same English results.json whatever LABKIT_LANG says."""
    result = run_labkit("run", "--claims", "O3", "--out", str(tmp_path), "--quiet", "--json",
                        env={"LABKIT_LANG": "vi"})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["claims"][0]["verdict"] == "holds"
    assert "hold" in data["counts"]


def test_plots_draw_vietnamese_without_missing_glyphs(lang):
    """Vietnamese titles, labels and legends render with every diacritic in the default font
    (matplotlib warns of a missing glyph; here that warning is an error)."""
    from labkit.outputs import plots

    rows = [{"hex": "65" * 12, "process": "A", "made_at_ms": 1.0},
            {"hex": "66" * 12, "process": "B", "made_at_ms": 2.0}]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = plots.id_rank(rows, "Độ đầy trang lá (tiếng Việt: ắ ằ ẳ ẵ ặ ơ ư đ)")
        assert plots.png_bytes(figure).startswith(b"\x89PNG")
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert ("tiến trình A" in legend) == (lang == "vi")


def test_the_reports_verdict_chart_follows_the_language(lang):
    """The report's chart of verdicts by topic names its topics and verdicts in the
    learner's words."""
    from labkit.experiments import catalogue
    from labkit.outputs import report
    from labkit.run.results import ClaimResult, Result

    item = catalogue.get("O3")
    chart = report.verdict_chart([ClaimResult(item, [Result(item, "not-run", reason="x")])])
    assert ("chưa chạy" in chart) == (lang == "vi")
    assert (">not run<" in chart) == (lang == "en")


def test_tables_and_progress_headings_follow_the_language(lang, monkeypatch, tmp_path):
    """Column headings learners read are translated; the values keep their data."""
    from labkit.outputs import tables

    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    progress = labkit.progress()
    frame = tables.claims()
    if lang == "vi":
        assert list(progress.columns) == ["bài", "ID", "bài tập", "trạng thái", "số lần thử"]
        assert "(Date không phải chuỗi)" in progress["bài tập"].tolist()
        assert list(frame.columns)[:2] == ["chủ đề", "loại"]
    else:
        assert list(progress.columns) == ["lesson", "ID", "exercise", "state", "tries"]
        assert list(frame.columns)[:2] == ["topic", "kind"]


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", ("1,700,000,000", "69.6%", "0.7", "16,777,215")),
    ("vi", ("1.700.000.000", "69,6%", "0,7", "16.777.215")),
])
def test_numbers_follow_the_language(lang, expected, monkeypatch):
    """Numbers and percentages are grouped and pointed as CLDR says for the language (a
    Vietnamese reader takes "1,700" for 1.7: issue "The Vietnamese edition, complete")."""
    monkeypatch.setattr(i18n, "_chosen", lang)
    got = (i18n.number(1_700_000_000), i18n.percent(0.696), i18n.number(0.7),
           i18n.number(16_777_215))
    assert got == expected


def test_claim_titles_are_shown_in_the_language_and_stored_in_english(offline, lang, tmp_path):
    """Every claim (registered or a kit claim file's) has a Vietnamese title: the card, the
    report's claim column and headings show it; results.json keeps the English title."""
    from labkit.claims.files import kit_titles

    catalogue = _catalogue()
    titles = [c.title for c in claim_catalogue.registered()] + list(kit_titles())
    assert len(titles) > 60
    assert all(catalogue[t].msgstr and catalogue[t].msgstr != t for t in titles)
    run = _run("O2")
    page = report.write(run, tmp_path)["html"].read_text(encoding="utf-8")
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    english = "Worked example: 1,700,000,000 s, random 3f2a91c8d4, counter 12,345"
    assert data["claims"][0]["title"] == english
    shown = ("Ví dụ mẫu: 1.700.000.000 giây, giá trị ngẫu nhiên 3f2a91c8d4, bộ đếm 12.345"
             if lang == "vi" else english)
    assert f"<td>{shown}</td>" in page
    assert shown in labkit.claim("O2", offline)._repr_html_()


def test_an_observations_note_is_shown_in_the_language_and_kept_in_english(lang):
    """A note with values (O6's tries) is filled in English for results.json and shown
    translated; a note the catalogue does not know is shown as written."""
    from labkit.claims.claim import Observation
    from labkit.i18n import Message, joined
    from labkit.run.results import Result

    item = claim_catalogue.get("O6")
    observation = Observation({}, "e", "1",
                              note=Message("tries until all three landed in one second: {tries}",
                                           tries=1))
    row = Result(item, "holds", observation, joined("; ", [observation.note, "x"]))
    assert row.to_dict()["reason"] == "tries until all three landed in one second: 1; x"
    assert row.shown_reason == ("số lần thử đến khi cả ba rơi vào cùng một giây: 1; x"
                                if lang == "vi" else
                                "tries until all three landed in one second: 1; x")
    unknown = Result(item, "holds", Observation({}, "e", "1", note="a user's note"),
                     "a user's note")
    assert unknown.shown_reason == "a user's note"


def test_lesson_tables_speak_the_language(lang):
    """01's Date/Timestamp table, 03's census and validator, 05's recorded tables and 00's
    claims table: headings and words in the language, values (types, hex, IDs) as they are."""
    from labkit.claims import recorded
    from labkit.experiments import bracketing, dates
    from labkit.model import fixtures
    from labkit.outputs import tables

    stamp = dates.date_and_timestamp()[1]
    census = bracketing.census_by_writer(fixtures.load("orders"))
    stated = bracketing.validator_as_stated()
    made_by = recorded.server_vs_client()
    claims = tables.claims()
    if lang == "vi":
        assert stamp["ý nghĩa"] == "số giây không dấu + một số tăng dần trong giây đó"
        assert stamp["kiểu"] == "Timestamp"
        assert census[0]["ghi bởi"] == "shell (dữ liệu mẫu)"
        assert list(stated.values())[1] == "bị từ chối: mã 121 (DocumentValidationFailure)"
        assert made_by["do ai tạo"].tolist() == ["do server tạo", "do client tạo"]
        assert claims.loc["S1", "chủ đề"] == "thứ tự sắp xếp"
        assert claims.loc["S1", "cần"] == "MongoDB"
    else:
        assert stamp["meaning"] == "unsigned seconds + an increment within the second"
        assert census[0]["written by"] == "the shell (fixture)"
        assert made_by["made by"].tolist() == ["server-generated", "client-generated"]
        assert claims.loc["S1", "topic"] == "sort order"
    assert census[1]["double"] == 1
    assert census[0]["double"] == 0
    assert made_by.iloc[0, 1] == "6ac711f6"


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", ("1,234,567", "69.3%", "+42.1%", "0.123")),
    ("vi", ("1.234.567", "69,3%", "+42,1%", "0,123")),
])
def test_the_reports_values_are_written_in_the_language(lang, expected, monkeypatch):
    """report.readable groups and points numbers as the language does (issue 21: "Numbers in
    English format inside Vietnamese text")."""
    monkeypatch.setattr(i18n, "_chosen", lang)
    got = (report.readable(1_234_567, "index_bytes"), report.readable(0.69314, "uuid4_fill"),
           report.readable(0.421, "random_larger_by"), report.readable(0.123456, "seconds"))
    assert got == expected


def test_the_check_matrix_speaks_the_language(lang):
    """``labkit check``'s terminal matrix: its heading, verdict words and engine list follow
    the language."""
    from labkit.outputs import matrix
    from labkit.run import check

    result = check.run_files([check.claimfiles.KIT_CLAIMS / "lesson01_dates.yaml"], ["model"])
    text = matrix.matrix_table(result)
    if lang == "vi":
        assert text.startswith("nhận định")
        assert "Các engine:" in text
        assert "dự đoán: đúng" in text  # the model's cells are predictions
    else:
        assert text.startswith("claim")
        assert "Engines:" in text
        assert "predicts: holds" in text


# The exceptions whose text a learner reads (the command line's ``Error:`` line, a notebook's
# traceback, a lesson's "I could not read that", a check's "not run" reason): every labkit
# error, Unreadable and NotSupported.
_SHOWN_ERRORS = {name for name, value in vars(errors).items() if isinstance(value, type)
                 and (issubclass(value, errors.LabkitError)
                      or value in (errors.Unreadable, errors.NotSupported))}


def _english_text(node: ast.expr) -> bool:
    """Whether ``node`` is a sentence written in place: a string literal with a word in it, an
    f-string, a sum or ``%`` of such, or ``_()``/``.format`` of one (translated as it is raised,
    so that files, which keep English, get the learner's language)."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and re.search(r"[A-Za-z]{2,}", node.value) is not None
    if isinstance(node, ast.BinOp):
        return _english_text(node.left) or _english_text(node.right)
    if isinstance(node, ast.Call):
        called = ast.unparse(node.func)
        return called == "_" or (called.endswith(".format") and isinstance(node.func,
                                                                              ast.Attribute)
                                 and _english_text(node.func.value))
    return False


def _untranslated_raises(package) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            called = node.exc.func
            name = called.attr if isinstance(called, ast.Attribute) else ast.unparse(called)
            if name not in _SHOWN_ERRORS:
                continue
            given = [*node.exc.args, *(k.value for k in node.exc.keywords
                                       if k.arg in ("hint", "tried", "message"))]
            given += [item for value in given if isinstance(value, ast.List | ast.Tuple)
                      for item in value.elts]  # tried=[...]
            if any(_english_text(value) for value in given):
                found.append(f"{path.relative_to(package.parent)}:{node.lineno}: "
                             f"{ast.unparse(node.exc)[:80]}")
    return found


def test_no_error_a_learner_reads_is_raised_in_plain_english():
    """Issue 27: a labkit error (BadInput, ServerUnavailable, ServerStartError, …) or an
    Unreadable answer is raised with a ``Message(N_("…"), …)``, its hint too, never with a
    literal sentence, an f-string or a text translated at raise time: the English stays where
    files keep it and the learner reads their own language."""
    assert {"BadInput", "ServerUnavailable", "ServerStartError", "Unreadable",
            "NotSupported"} <= _SHOWN_ERRORS
    assert _untranslated_raises(PACKAGE) == []


def test_the_scan_for_plain_english_raises_finds_each_form(tmp_path):
    """The scan above can fail: each way of raising plain English is found, a message is not."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "m.py").write_text(
        'raise BadInput("no claim matches")\n'
        'raise errors.ServerUnavailable(f"{x} is gone")\n'
        'raise ServerStartError(Message(N_("it failed")), hint="try again")\n'
        'raise Unreadable(_("{v} is not a time").format(v=v))\n'
        'raise ServerUnavailable(Message(N_("none")), tried=["Docker: off"])\n'
        'raise BadInput(Message(N_("{n} is out of range"), n=n))\n'
        'raise CannotJudge(Message(N_("no ICU")), library="ICU")\n'
        'raise TypeError(f"a bug: {x!r}")\n', encoding="utf-8")
    assert [line.split(":")[1] for line in _untranslated_raises(package)] == \
        ["1", "2", "3", "4", "5"]


def test_every_language_has_its_name():
    """A sentence that names a language (a number read as another language writes it) finds
    every language labkit speaks in ``LANGUAGE_NAMES``, beside ``LANGUAGES``: a new language
    is one more entry in each, in the same module."""
    assert set(i18n.LANGUAGE_NAMES) == set(i18n.LANGUAGES)
