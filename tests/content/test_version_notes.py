"""Version notes: a card's sentence checked against a TensorFlow release, shown right beside that
sentence at every depth that shows it, with what the demo behind it last measured here."""

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app import PROJECT_ROOT
from app.accounts.models import LOCAL_USER_ID
from app.cli import cli
from app.content.cards import item_key
from app.content.parser import CardParseError, parse_card
from app.content.tiers import TIERS
from app.demos.models import DemoRun
from app.factory import create_app
from app.presets import validate_params
from app.settings import Settings
from app.storage import migrations
from app.storage.base import utcnow
from tests.factories import OWNER_CARD, card_text, line_of, write_card
from tests.helpers.cards import plain, quiz_results, reveal
from tests.helpers.html import HTMX
from tests.services import database_url

OWNER_FILE = PROJECT_ROOT / "content" / f"{OWNER_CARD}.md"
# The four passages of the owner's card that TensorFlow 2.21's default rewrites contradict.
SERIAL_CLAIMS = (
    "Without `prefetch`, a training step is strictly serial",
    "A `tf.data` pipeline without `prefetch` is a synchronous pull chain.",
    "leaving the tail serial with the consumer",
    "the batching itself stays on the critical path",
)
SERIAL_NOTE = item_key(SERIAL_CLAIMS[0])

NOTE = """
## Version notes
### The short answer of this card
- Checked: TensorFlow 2.21
- Source: tensorflow/python/data/ops/options.py; https://www.tensorflow.org/guide/data_performance
- Relies on: tf.data.Options.experimental_optimization.inject_prefetch
- Demo: placement prefetch-last-2 against no-prefetch
- Parameters: input_ms=40, compute_ms=20

What TensorFlow 2.21 does instead. A second sentence.
"""


def sample(note: str = NOTE, **replace: str) -> str:
    return (
        card_text(**{"The ~20 second answer.": "The short answer of this card, in a sentence."}, **replace)
        + note
    )


def problems(tmp_path: Path, text: str) -> list[tuple[int, str]]:
    with pytest.raises(CardParseError) as caught:
        parse_card(write_card(tmp_path, "card.md", text))
    return [(p.line, p.message) for p in caught.value.problems]


def test_a_note_names_its_quote_release_sources_defaults_and_demo(tmp_path: Path) -> None:
    card = parse_card(write_card(tmp_path, "card.md", sample()))
    (note,) = card.notes
    assert note.quote == "The short answer of this card"
    assert note.checked == "TensorFlow 2.21"
    assert note.sources == (
        "tensorflow/python/data/ops/options.py",
        "https://www.tensorflow.org/guide/data_performance",
    )
    assert note.relies_on == ("tf.data.Options.experimental_optimization.inject_prefetch",)
    assert note.demo is not None
    assert (note.demo.preset, note.demo.variant, note.demo.against) == (
        "placement",
        "prefetch-last-2",
        "no-prefetch",
    )
    assert dict(note.demo.params) == {"input_ms": 40, "compute_ms": 20}
    assert note.summary == "What TensorFlow 2.21 does instead."


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        (
            "### The short answer of this card",
            "### A sentence the card never had",
            "###",
            "quotes text the card does not have",
        ),
        ("- Checked: TensorFlow 2.21", "- Checked: the latest", "Checked", "must name a release"),
        ("- Checked: TensorFlow 2.21\n", "", "###", "needs 'Checked: TensorFlow"),
        (
            "- Source: tensorflow/python/data/ops/options.py; https://www.tensorflow.org/guide/data_performance\n",
            "",
            "###",
            "needs 'Source:'",
        ),
        ("inject_prefetch\n", "inject_everything\n", "Relies on", "unknown TensorFlow default"),
        ("- Demo: placement", "- Demo: teleport", "Demo", "unknown demo preset 'teleport'"),
        (
            "against no-prefetch",
            "against no-such-variant",
            "Demo",
            "placement has no variant 'no-such-variant'",
        ),
        (
            "- Parameters: input_ms=40",
            "- Parameters: input_ms=99999",
            "Parameters",
            "input_ms must be between",
        ),
        ("- Demo: placement", "- Rerun: placement", "Rerun", "unknown version note field 'Rerun'"),
    ],
)
def test_a_broken_note_is_a_problem_on_its_line(
    tmp_path: Path, old: str, new: str, field: str, message: str
) -> None:
    note = NOTE.replace(old, new)
    text = sample(note)
    found = problems(tmp_path, text)
    assert any(message in text_ for _, text_ in found), found
    heading = next(line for line in note.splitlines() if line.startswith("### "))
    anchor = heading if field == "###" else f"- {field}:"
    assert [line for line, text_ in found if message in text_] == [line_of(text, anchor)]


def test_a_note_may_not_anchor_on_a_heading(tmp_path: Path) -> None:
    """A callout cannot stand inside a heading, so a quote must come from prose."""
    note = NOTE.replace("### The short answer of this card", "### The first point a good answer makes")
    assert any("not a heading" in message for _, message in problems(tmp_path, sample(note)))


def test_content_check_refuses_a_note_whose_anchor_was_edited_away(tmp_path: Path) -> None:
    folder = tmp_path / "content"
    folder.mkdir()
    edited = OWNER_FILE.read_text(encoding="utf-8").replace("is strictly serial", "is serial", 1)
    write_card(folder, f"{OWNER_CARD}.md", edited)
    result = CliRunner().invoke(cli, ["content", "check", str(folder)])
    assert result.exit_code == 1
    line = line_of(edited, "### Without `prefetch`, a training step is strictly serial")
    assert f"{OWNER_CARD}.md:{line}: version note quotes text the card does not have" in result.output


def test_the_owner_card_keeps_its_words_and_notes_every_serial_claim() -> None:
    card = parse_card(OWNER_FILE)
    quoted = {note.quote for note in card.notes}
    assert set(SERIAL_CLAIMS) <= quoted
    assert all(note.checked == "TensorFlow 2.21" for note in card.notes)
    solid = card.solid.markdown
    assert "Without `prefetch`, a training step is strictly serial" in solid  # the owner's words stay


def beside(soup: BeautifulSoup, quote: str) -> Tag:
    """The note callout standing right after the paragraph or list item that says `quote`."""
    words = plain(quote)
    for note in soup.select("details.version-note"):
        block = note.find_previous_sibling()
        holder = block if block is not None else note.parent
        assert holder is not None
        if words in " ".join(holder.get_text(" ").split()).replace(" ,", ","):
            return note
    raise AssertionError(f"no note beside {quote!r}")


@pytest.mark.parametrize("tier", TIERS)
def test_every_depth_shows_each_note_beside_the_claim_it_shows(client: TestClient, tier: str) -> None:
    card = client.get(f"/api/cards/{OWNER_CARD}", params={"tier": tier}).json()
    expected = {note["quote"] for note in card["sections"]["version_notes"]}
    soup = reveal(client, tier)
    quiz = quiz_results(client, tier)
    shown = [q for q in SERIAL_CLAIMS if q in expected]
    assert "the batching itself stays on the critical path" in shown  # a pitfall's why: every depth
    if tier != "junior":
        assert SERIAL_CLAIMS[0] in shown  # the solid answer
    if tier in ("senior", "principal"):
        assert set(SERIAL_CLAIMS) <= expected  # the deep dive as well
    for quote in shown:
        note = beside(quiz if "batching itself stays" in quote else soup, quote)
        summary = note.select_one("summary")
        assert summary is not None
        assert summary.select_one(".note-flag").get_text(strip=True) == "TensorFlow 2.21"
        assert "Checked against TensorFlow 2.21" in note.get_text(" ")


def test_a_depth_that_hides_a_passage_hides_its_note(client: TestClient) -> None:
    soup = reveal(client, "junior")
    quotes = [q.get_text(" ", strip=True) for q in soup.select("details.version-note q")]
    assert not any("strictly serial" in q for q in quotes)


def test_the_api_lists_the_notes_a_depth_sees(client: TestClient) -> None:
    junior = client.get(f"/api/cards/{OWNER_CARD}", params={"tier": "junior"}).json()
    senior = client.get(f"/api/cards/{OWNER_CARD}", params={"tier": "senior"}).json()
    junior_quotes = {n["quote"] for n in junior["sections"]["version_notes"]}
    senior_quotes = {n["quote"] for n in senior["sections"]["version_notes"]}
    assert SERIAL_CLAIMS[0] not in junior_quotes
    assert junior_quotes < senior_quotes
    serial = next(n for n in senior["sections"]["version_notes"] if n["quote"] == SERIAL_CLAIMS[0])
    assert serial["demo"]["preset"] == "placement"
    assert serial["checked"] == "TensorFlow 2.21"


def finished_run(
    app: FastAPI,
    steps: dict[str, float],
    params: dict[str, int],
    run_id: str = "e" * 32,
    minutes_ago: int = 5,
) -> str:
    """A finished placement run measuring `steps`, at `params` (the rest at their defaults, as a
    submit stores them)."""
    variants = [
        {"name": name, "median_step_ms": ms, "mean_step_ms": ms, "model_step_ms": 30.0}
        for name, ms in steps.items()
    ]
    summary = {"variants": variants, "environment": {"tensorflow_version": "2.21.0"}}
    with app.state.db.write_sessions() as session:
        session.merge(
            DemoRun(
                id=run_id,
                user_id=LOCAL_USER_ID,
                preset="placement",
                params=validate_params("placement", params=params),
                status="done",
                summary=summary,
                result=summary,
                finished_at=utcnow() - timedelta(minutes=minutes_ago),
            )
        )
        session.commit()
    return run_id


def evidence(client: TestClient, key: str, htmx: bool = True) -> BeautifulSoup:
    response = client.get(f"/cards/{OWNER_CARD}/notes/{key}", headers=HTMX if htmx else {})
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "html.parser")


def test_a_note_shows_what_this_server_last_measured_and_offers_the_run(
    client: TestClient, app: FastAPI
) -> None:
    before = evidence(client, SERIAL_NOTE)
    assert "Not measured on this server yet" in before.get_text(" ")
    run_id = finished_run(
        app, {"no-prefetch": 61.0, "no-prefetch-tf-defaults": 31.0, "prefetch-last-2": 30.5}, {"input_ms": 30}
    )
    try:
        soup = evidence(client, SERIAL_NOTE)
        figure = soup.select_one(".figure")
        assert figure is not None
        text = " ".join(figure.get_text(" ").split())
        assert "No prefetch, TensorFlow's defaults took 31.0 ms a step" in text
        assert "No prefetch took 61.0 ms (1.97x as long)" in text
        assert "TensorFlow 2.21.0" in text
        form = soup.select_one("form.demo-form")
        assert form is not None and form["action"] == "/demos"
        assert form.select_one("input[name=preset]")["value"] == "placement"  # type: ignore[index]
        assert soup.select_one("input[name=csrf_token]")["value"]  # type: ignore[index]
    finally:
        with app.state.db.write_sessions() as session:
            session.execute(DemoRun.__table__.delete().where(DemoRun.id == run_id))
            session.commit()


SERIAL_STEPS = {"no-prefetch": 61.0, "no-prefetch-tf-defaults": 31.0}


def _figure_text(soup: BeautifulSoup) -> str:
    figure = soup.select_one(".figure")
    return " ".join(figure.get_text(" ").split()) if figure else ""


def test_only_a_run_at_the_notes_parameters_backs_its_figure(client: TestClient, app: FastAPI) -> None:
    """The serial note names no parameters: a run at the preset's defaults measures it; anyone's
    newer run at other parameters (an input ten times slower) is not its evidence."""
    elsewhere = {name: ms * 9 for name, ms in SERIAL_STEPS.items()}
    runs = [finished_run(app, elsewhere, {"input_ms": 300}, run_id="a" * 32, minutes_ago=1)]
    try:
        assert "Not measured on this server yet" in evidence(client, SERIAL_NOTE).get_text(" ")
        runs.append(finished_run(app, SERIAL_STEPS, {}, run_id="b" * 32, minutes_ago=30))
        text = _figure_text(evidence(client, SERIAL_NOTE))
        assert "took 31.0 ms a step" in text and "279.0" not in text
    finally:
        with app.state.db.write_sessions() as session:
            session.execute(DemoRun.__table__.delete().where(DemoRun.id.in_(runs)))
            session.commit()


@pytest.fixture
def sample_app(tmp_path: Path) -> Iterator[FastAPI]:
    """The app serving only the sample card, whose note names parameters."""
    folder = tmp_path / "content"
    folder.mkdir()
    write_card(folder, "sample-card.md", sample())
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=database_url(tmp_path / "data"),
        content_dir=folder,
        secret_key="test-only-secret-key-that-is-long-enough",
        allowed_hosts=["testserver"],
    )
    migrations.upgrade(settings)
    app = create_app(settings)
    yield app
    app.state.db.dispose()


def _sample_note(client: TestClient) -> BeautifulSoup:
    card = parse_card(client.app.state.settings.content_dir / "sample-card.md")  # type: ignore[attr-defined]
    response = client.get(f"/cards/sample-card/notes/{card.notes[0].key}", headers=HTMX)
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "html.parser")


def test_a_note_with_parameters_is_backed_by_a_run_at_them_or_at_the_defaults(sample_app: FastAPI) -> None:
    steps = {"prefetch-last-2": 40.0, "no-prefetch": 60.0}
    with TestClient(sample_app) as client:
        # Half the note's parameters is neither what it names nor the defaults.
        finished_run(sample_app, steps, {"input_ms": 40}, run_id="c" * 32, minutes_ago=1)
        assert "Not measured on this server yet" in _sample_note(client).get_text(" ")
        finished_run(
            sample_app, {"prefetch-last-2": 30.0, "no-prefetch": 60.0}, {}, run_id="d" * 32, minutes_ago=9
        )
        assert "took 30.0 ms" in _figure_text(_sample_note(client))
        finished_run(sample_app, steps, {"input_ms": 40, "compute_ms": 20}, run_id="e" * 32, minutes_ago=5)
        assert "took 40.0 ms" in _figure_text(_sample_note(client))


def test_a_notes_parameters_fill_its_run_form(sample_app: FastAPI) -> None:
    with TestClient(sample_app) as client:
        soup = _sample_note(client)
    assert soup.select_one("input[name=input_ms]")["value"] == "40"  # type: ignore[index]
    assert soup.select_one("input[name=compute_ms]")["value"] == "20"  # type: ignore[index]
    assert soup.select_one("input[name=steps]")["value"] == "40"  # type: ignore[index]  # the default


def test_the_note_evidence_is_a_whole_page_without_htmx(client: TestClient) -> None:
    soup = evidence(client, SERIAL_NOTE, htmx=False)
    heading = soup.select_one("h1")
    assert heading is not None and heading.get_text(strip=True).startswith("TensorFlow 2.21:")
    assert soup.select_one("title") is not None


@pytest.mark.parametrize(
    "key", ["00000000", "x" * 300, item_key("leaving the tail serial with the consumer")]
)
def test_an_unknown_or_unmeasured_note_is_404(client: TestClient, key: str) -> None:
    """The third has no demo: nothing to measure, so no figures page either."""
    assert client.get(f"/cards/{OWNER_CARD}/notes/{key}").status_code == 404


def test_the_card_page_links_each_measured_note_to_its_figures(client: TestClient) -> None:
    soup = reveal(client, "principal")
    measured = soup.select("details.version-note .note-evidence")
    card = parse_card(OWNER_FILE)
    keys = {note.key for note in card.notes if note.demo is not None}
    urls = {link["hx-get"] for link in measured}
    assert urls == {f"/cards/{OWNER_CARD}/notes/{key}" for key in keys}
    assert all(
        re.fullmatch(r"toggle once from:closest details", str(link["hx-trigger"])) for link in measured
    )


def test_notes_need_not_be_there(tmp_path: Path) -> None:
    card = parse_card(write_card(tmp_path, "card.md", card_text()))
    assert card.notes == ()
