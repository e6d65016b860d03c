"""A card marked `draft: true` is its authors' until the mark goes: the library, the card pages and
the card API never show it, and the same file without the mark is served. `tiercards content new`
writes a draft, and a card that leaves draft with the template's text still in it is not served.
The library page, which everyone shares, names no broken file, and no problem names a folder of
the server's."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli
from app.content.catalogue import load
from app.content.scaffold import new_card
from app.factory import create_app
from app.settings import Settings
from tests.factories import card_text, drafted, line_of, undrafted, write_card
from tests.helpers.html import HTML, soup_of

DRAFT_ID = "drafted-card"
NOWHERE = {"library": False, "api list": False, "page": False, "api card": False}
EVERYWHERE = dict.fromkeys(NOWHERE, True)


@pytest.fixture
def folder(settings: Settings, tmp_path: Path) -> Iterator[tuple[TestClient, Path]]:
    """An app serving the cards of an empty folder of the test's own."""
    content = tmp_path / "content"
    content.mkdir()
    app = create_app(settings.model_copy(update={"content_dir": content}))
    with TestClient(app) as client:
        yield client, content
    app.state.db.dispose()


def shown(client: TestClient, card_id: str) -> dict[str, bool]:
    """Where a person finds the card: the library page, the card list, its page, its JSON."""
    library = soup_of(client.get("/", headers=HTML))
    return {
        "library": card_id in [item["data-card-id"] for item in library.select(".card-item")],
        "api list": card_id in [card["id"] for card in client.get("/api/cards").json()["cards"]],
        "page": client.get(f"/cards/{card_id}", headers=HTML).status_code == 200,
        "api card": client.get(f"/api/cards/{card_id}").status_code == 200,
    }


def test_a_draft_is_shown_nowhere_and_the_same_card_without_the_mark_everywhere(
    folder: tuple[TestClient, Path],
) -> None:
    client, content = folder
    text = card_text(DRAFT_ID, "A question still being written?")
    path = write_card(content, f"{DRAFT_ID}.md", drafted(text))
    assert shown(client, DRAFT_ID) == NOWHERE
    assert client.get(f"/cards/{DRAFT_ID}", headers=HTML).status_code == 404
    assert client.get(f"/api/cards/{DRAFT_ID}").status_code == 404
    # Nothing is wrong with a draft: it is not a broken file either.
    assert client.get("/api/cards").json()["broken"] == []
    path.write_text(text, encoding="utf-8")
    assert shown(client, DRAFT_ID) == EVERYWHERE


def test_content_new_writes_a_draft_that_is_not_served(
    folder: tuple[TestClient, Path], settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, content = folder
    in_folder = settings.model_copy(update={"content_dir": content})
    monkeypatch.setattr("app.cli.content.get_settings", lambda: in_folder)
    result = CliRunner().invoke(cli, ["content", "new", "fresh-card", "--title", "Why does it drain?"])
    assert result.exit_code == 0, result.output
    assert "as a draft" in result.stdout and "draft: true" in result.stdout
    assert list(load(content).drafts) == ["fresh-card"]
    assert shown(client, "fresh-card") == NOWHERE
    assert client.get("/api/cards").json()["broken"] == []


def test_a_card_out_of_draft_with_the_templates_text_is_not_served_and_says_why(
    folder: tuple[TestClient, Path],
) -> None:
    client, content = folder
    text = undrafted(new_card(DRAFT_ID, title="A question still being written?"))
    write_card(content, f"{DRAFT_ID}.md", text)
    assert shown(client, DRAFT_ID) == NOWHERE
    broken = client.get("/api/cards").json()["broken"]
    assert len(broken) == 16 and {item["path"] for item in broken} == {f"{DRAFT_ID}.md"}
    assert {
        "path": f"{DRAFT_ID}.md",
        "line": line_of(text, "The ~20 second answer."),
        "message": '"The ~20 second answer." is the template\'s placeholder text: replace it before the '
        "card leaves draft (draft: true keeps it to authors)",
    } in broken


def test_the_library_names_no_broken_file_and_no_problem_names_a_folder(
    folder: tuple[TestClient, Path],
) -> None:
    client, content = folder
    write_card(content, "good.md", card_text("good-card"))
    write_card(content, "wizard.md", card_text("wizard-card", **{"level: middle": "level: wizard"}))
    (content / "more").mkdir()
    write_card(content / "more", "again.md", card_text("good-card", "The same id again?"))
    library = soup_of(client.get("/", headers=HTML))
    assert [item["data-card-id"] for item in library.select(".card-item")] == ["good-card"]
    page = library.get_text(" ", strip=True)
    assert library.select(".broken") == [] and "could not be loaded" not in page
    assert not any(name in page for name in ("wizard.md", "again.md", "unknown level"))
    # The card API still lists them, by file name, for whoever needs to fix them.
    broken = client.get("/api/cards").json()["broken"]
    assert [(item["path"], item["message"]) for item in broken] == [
        ("again.md", "duplicate id 'good-card' (also in good.md)"),
        ("wizard.md", "unknown level 'wizard' (one of junior, middle, senior, principal)"),
    ]


def test_an_id_is_taken_once_across_cards_and_drafts(tmp_path: Path) -> None:
    write_card(tmp_path, "a.md", drafted(card_text("same-id")))
    second = write_card(tmp_path, "b.md", card_text("same-id", title="Another?"))
    snapshot = load(tmp_path)
    assert (list(snapshot.drafts), list(snapshot.cards)) == (["same-id"], [])
    [problem] = snapshot.problems
    assert (problem.path, problem.message) == (second, "duplicate id 'same-id' (also in a.md)")
