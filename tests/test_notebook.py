"""The notebook side without a server: a "not run" card, the note once per lesson, labelled
stand-ins, and no exception where a lesson needs a missing server."""

from __future__ import annotations

import pytest
from helpers import fresh_lab

import labkit
from labkit.errors import ServerUnavailable
from labkit.lessons import notebook
from labkit.run import runner


def _offline():
    raise ServerUnavailable("no MongoDB server is available. Hint: set LABKIT_MONGODB_URI")


@pytest.fixture
def offline(monkeypatch):
    """A fresh kernel-like state: no MongoDB, and the how-to not yet shown."""
    ctx = runner.Context(btree_n=1_000, mongodb_provider=_offline, postgres_provider=_offline)
    fresh_lab(monkeypatch, ctx)
    yield ctx
    ctx.close()


def test_a_claim_that_needs_a_missing_server_is_not_run_and_raises_nothing(offline):
    """labkit.claim() returns a not-run card (verdict "not run") instead of raising."""
    card = labkit.claim("D3", offline)
    assert isinstance(card, notebook.NotRun)
    assert card.verdict == "not-run"


def test_the_how_to_is_shown_once_per_kernel(offline):
    """The first card carries the one-line note (how to get a server on request); later cards
    say nothing more about the server."""
    first, second = labkit.claim("D3", offline), labkit.claim("S2", offline)
    assert "make lab" in first._repr_html_()
    assert "labkit.doctor()" in str(first)
    assert "No MongoDB server here" not in second._repr_html_()
    assert "labkit.doctor()" not in str(second)


def test_stand_ins_are_labelled_recorded_and_predicted(offline):
    """D3 shows the chapter's recorded result and the model's prediction, each named."""
    card = labkit.claim("D3", offline)
    text = str(card)
    assert "recorded by the source document" in text
    assert "mongosh" in text
    assert "labkit's model predicts" in text
    assert "neither is an observation" in text
    table = card.table()
    assert list(table.columns) == ["recorded by the source (real server)",
                                   "labkit's model predicts"]
    assert table.loc["range on the Date field"].tolist() == ['["b", "c"]', '["b", "c"]']


def test_a_stated_expectation_is_not_called_recorded(offline):
    """X2's expectation comes from the manual: it is labelled as stated, never as recorded."""
    text = str(labkit.claim("X2", offline))
    assert "stated by MongoDB's manual" in text
    assert "recorded by" not in text


def test_a_model_that_fails_is_shown_not_raised(offline, monkeypatch):
    """A prediction that raises becomes a labelled line; the card still renders."""
    import dataclasses

    from labkit.experiments import catalogue as claims

    broken = dataclasses.replace(claims.get("D3"), predict=lambda: 1 / 0)
    monkeypatch.setitem(claims.REGISTRY, "D3", broken)
    assert "could not predict" in str(labkit.claim("D3", offline))


def test_on_server_without_a_server_shows_the_model_labelled(offline):
    """on_server() returns a not-run card with the stand-in under the label it was given."""
    card = notebook.on_server("collation", lambda db: 1 / 0, model=lambda: {"bytewise": [1]},
                              model_label="the model predicts", ctx=offline)
    assert isinstance(card, notebook.NotRun)
    assert "the model predicts" in str(card)
    assert "collation: not run" in str(card)


def test_start_lesson_without_a_server_says_the_lesson_still_runs(offline):
    """start_lesson() of a lesson that uses MongoDB explains what happens without one."""
    status = labkit.start_lesson("01")
    assert "not run" in str(status)
    assert "No MongoDB server here" in str(status)
    assert "needs no MongoDB" in str(labkit.start_lesson("04"))


def test_every_claim_that_needs_a_server_has_a_stand_in_beyond_its_expectation():
    """Each MongoDB claim without a model prediction has a recorded result to show instead."""
    from labkit.experiments import catalogue as claims

    lacking = [c.id for c in claims.registered()
               if "mongodb" in c.needs and c.predict is None and not c.recorded]
    assert lacking == []


@pytest.mark.parametrize("claim_id", ["D1", "D3", "S1", "S2", "X5", "B1", "B2", "X1", "X2",
                                      "X3", "X4", "O8"])
def test_model_predictions_agree_with_the_claims(claim_id):
    """Each offline prediction is judged holding by its claim's own judge (the model's view)."""
    from labkit.claims.claim import Observation
    from labkit.experiments import catalogue as claims

    item = claims.get(claim_id)
    verdict, _ = item.verdict_for(Observation(item.predict(), "model", ""))
    assert verdict == "holds"


def _claims_of_lessons() -> list[str]:
    from labkit.experiments.catalogue import registered

    return [item.id for item in registered()]


def test_every_claim_card_built_twice_renders_the_same(monkeypatch, offline_session):
    """Each claim's card, built twice in one lesson (a cell run again), renders the same HTML
    and text, the note, the legend and the footer included; a card built after it says none
    of them again (the lesson says each once)."""
    fresh_lab(monkeypatch, lesson="03")
    for claim_id in _claims_of_lessons():
        try:
            first = labkit.claim(claim_id, offline_session)
            again = labkit.claim(claim_id, offline_session)
        except labkit.ClaimFailed:  # a claim that does not hold raises alike both times
            continue
        assert first._repr_html_() == again._repr_html_(), claim_id
        assert str(first) == str(again), claim_id


def test_the_footer_belongs_to_the_first_card_that_said_it(offline):
    """The first not-run card keeps its footer when shown again after a later card; the later
    card, built twice, never has it."""
    first = labkit.claim("D3", offline)
    later = labkit.claim("S2", offline)
    assert first.footer
    assert not later.footer
    assert labkit.claim("D3", offline).footer
    assert not labkit.claim("S2", offline).footer
