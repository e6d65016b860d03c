"""An author edits a card in the browser: the save is checked as `tiercards content check` checks,
written whole, committed where the content folder is a repository, and served at once; a file
changed on disk since the editor opened it is never overwritten unseen."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.factories import OWNER_CARD
from tests.helpers.authoring import edited, editing_team, git, signed_in, textarea_text
from tests.helpers.html import one, soup_of

OLD = "the buffer holds batches when it is last"
NEW = "the buffer holds whole batches when it is last"


@pytest.fixture
def team(tmp_path: Path) -> Iterator[tuple[FastAPI, Path]]:
    with editing_team(tmp_path) as made:
        yield made


def opened(client: TestClient, card_id: str = OWNER_CARD) -> tuple[str, str]:
    """The editor's text and the base it sends back, as a browser holds them."""
    page = soup_of(client.get(f"/author/cards/{card_id}"))
    base = one(page, "textarea[name=base]").get_text().removeprefix("\n")
    return textarea_text(page), base


def test_a_saved_edit_is_served_at_once_and_committed(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    ada, bob = signed_in(app, "ada"), signed_in(app, "bob")
    text, base = opened(ada)
    saved = ada.post(f"/author/cards/{OWNER_CARD}", data={"text": edited(text, OLD, NEW), "base": base})
    assert saved.status_code == 303 and saved.headers["location"] == f"/author/cards/{OWNER_CARD}?saved=1"
    assert (
        "Saved: the card is served" in one(soup_of(ada.get(saved.headers["location"])), "p.saved").get_text()
    )
    points = bob.get(f"/api/cards/{OWNER_CARD}").json()["sections"]["answer_points"]
    assert NEW in [p["markdown"] for p in points]
    author, committer, subject = git(content, "log", "-1", "--format=%an|%cn|%s").split("|")
    assert (author, committer) == ("ada", "ada")
    # git's 72 characters: the title cut short, saying so.
    assert subject == "Edit Why does tf.data.Dataset.prefetch(tf.data.AUTOTUNE) go last in a p…"


def test_a_file_changed_since_it_was_opened_is_not_overwritten(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    ada = signed_in(app, "ada")
    text, base = opened(ada)
    path = content / f"{OWNER_CARD}.md"
    path.write_text(edited(base, "## Basics\n", "## Basics\nFrom the host. "), encoding="utf-8")
    refused = ada.post(f"/author/cards/{OWNER_CARD}", data={"text": edited(text, OLD, NEW), "base": base})
    assert refused.status_code == 409
    page = soup_of(refused, 409)
    theirs = one(page, "#theirs-heading").find_parent("section")
    mine = one(page, "#mine-heading").find_parent("section")
    assert "From the host." in one(theirs, "tr.changed td.new").get_text()
    assert NEW in one(mine, "tr.changed td.new").get_text()
    assert "From the host." in path.read_text(encoding="utf-8") and NEW not in path.read_text(
        encoding="utf-8"
    )
    # Saving again from the three-way view is a decision made having seen both.
    again = one(page, "form textarea[name=base]").get_text().removeprefix("\n")
    merged = edited(path.read_text(encoding="utf-8"), OLD, NEW)
    assert ada.post(f"/author/cards/{OWNER_CARD}", data={"text": merged, "base": again}).status_code == 303
    assert "From the host." in path.read_text(encoding="utf-8") and NEW in path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ((f"id: {OWNER_CARD}", "id: another-card"), "the id must stay"),
        (("level: middle", "level: expert"), "unknown level"),
    ],
)
def test_a_refused_save_changes_nothing(
    team: tuple[FastAPI, Path], change: tuple[str, str], said: str
) -> None:
    app, content = team
    ada = signed_in(app, "ada")
    text, base = opened(ada)
    before = (content / f"{OWNER_CARD}.md").read_text(encoding="utf-8")
    refused = ada.post(f"/author/cards/{OWNER_CARD}", data={"text": edited(text, *change), "base": base})
    assert refused.status_code == 422
    assert said in one(soup_of(refused, 422), "#save-errors").get_text()
    assert (content / f"{OWNER_CARD}.md").read_text(encoding="utf-8") == before
    assert not (content / "another-card.md").exists()
    assert git(content, "rev-list", "--count", "HEAD") == "1"


def test_a_new_card_is_a_draft_served_to_authors_only(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    ada, bob = signed_in(app, "ada"), signed_in(app, "bob")
    scaffold = textarea_text(soup_of(ada.get("/author")))
    text = scaffold.replace("id: new-card", "id: a-new-card")
    created = ada.post("/author/cards", data={"text": text})
    assert created.headers["location"] == "/author/cards/a-new-card?saved=1"
    assert (content / "a-new-card.md").read_text(encoding="utf-8") == text
    assert "Draft" in one(soup_of(ada.get(created.headers["location"])), ".draft-banner").get_text()
    assert bob.get("/cards/a-new-card").status_code == 404
    assert "a-new-card" not in bob.get("/api/cards").text
    drafts = soup_of(ada.get("/author")).select("#drafts-heading ~ ul a")
    assert [a["href"] for a in drafts] == ["/author/cards/a-new-card"]
    taken = ada.post("/author/cards", data={"text": text})
    assert taken.status_code == 409
    assert "already exists" in one(soup_of(taken, 409), "#save-errors").get_text()


def test_a_folder_that_is_no_repository_still_saves(tmp_path: Path) -> None:
    with editing_team(tmp_path, repository=False) as (app, content):
        ada = signed_in(app, "ada")
        text, base = opened(ada)
        assert (
            ada.post(
                f"/author/cards/{OWNER_CARD}", data={"text": edited(text, OLD, NEW), "base": base}
            ).status_code
            == 303
        )
        assert NEW in (content / f"{OWNER_CARD}.md").read_text(encoding="utf-8")
        assert not (content / ".git").exists()


def test_members_are_shown_neither_the_editor_nor_the_broken_cards(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    (content / "broken.md").write_text("---\nid: broken\n---\n", encoding="utf-8")
    app.state.catalogue.reload()
    bob, ada = signed_in(app, "bob"), signed_in(app, "ada")
    assert one(soup_of(bob.get(f"/author/cards/{OWNER_CARD}")), "h1").get_text() == "Suggest an edit"
    text, base = opened(bob)
    sent = bob.post(f"/author/cards/{OWNER_CARD}", data={"text": edited(text, OLD, NEW), "base": base})
    assert sent.status_code == 422, "a member's post is a suggestion, which needs a reason"
    assert OLD in (content / f"{OWNER_CARD}.md").read_text(encoding="utf-8")
    assert "broken.md" not in bob.get("/").text
    assert "broken.md" in one(soup_of(ada.get("/author")), ".broken").get_text()
    assert str(content) not in ada.get("/author").text
