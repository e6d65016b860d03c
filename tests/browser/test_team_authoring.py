"""Authoring as a team, in chromium on a laptop and on a phone: bob, a member, suggests a fix to
the owner's card from its page; ada, an author, reads the diff on /author/reviews and accepts it;
the card reads the new way for everyone at once, bob's earlier answer keeps its history, and the
content folder's git log holds the commit, bob its author and ada its committer."""

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from tests.factories import OWNER_CARD
from tests.helpers.accounts import sign_in
from tests.helpers.authoring import content_repository, git
from tests.helpers.browser import add_people, axe_violations, described, save_screenshot, signed_in_page
from tests.helpers.clients import csrf_client
from tests.helpers.payloads import attempt_payload
from tests.servers import data_env, start_server, stop

PEOPLE = {"bob": ("member", "bob pass phrase 22"), "ada": ("author", "ada pass phrase 333")}
OLD = "the buffer holds batches when it is last"
NEW = "placed last, the buffer holds whole batches"
REASON = "Say what the buffer holds in the words people use"


@pytest.fixture
def team(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A server in AUTH_MODE=accounts on a content folder that is a repository of its own."""
    content = content_repository(tmp_path / "content")
    env = {**os.environ, **data_env(tmp_path), "AUTH_MODE": "accounts", "CONTENT_DIR": str(content)}
    add_people(env, PEOPLE)
    process, url = start_server(
        tmp_path, "--no-worker", env={"AUTH_MODE": "accounts", "CONTENT_DIR": str(content)}
    )
    yield url, content
    stop(process)


@pytest.fixture
def signed_in(
    browser: Browser, team: tuple[str, Path], viewport: ViewportSize
) -> Iterator[Callable[[str], Page]]:
    url, _ = team
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def open_as(name: str) -> Page:
        context = browser.new_context(viewport=viewport)
        contexts.append(context)
        return signed_in_page(context, url, name, PEOPLE[name][1], errors)

    yield open_as
    for context in contexts:
        context.close()
    assert errors == []


def _bob(url: str) -> httpx.Client:
    return sign_in(csrf_client(url, page="/login"), "bob", PEOPLE["bob"][1])


def test_a_suggested_fix_is_reviewed_accepted_and_committed(
    signed_in: Callable[[str], Page], team: tuple[str, Path], viewport: ViewportSize, screenshot_dir: Path
) -> None:
    url, content = team
    width = viewport["width"]
    script = _bob(url)  # bob answered the card before the edit, as a script would
    done = script.post(
        f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload(text="it overlaps", points=[2])
    )
    assert done.status_code == 201, done.text
    bob = signed_in("bob")
    bob.goto(f"{url}/cards/{OWNER_CARD}?tier=middle")
    bob.click("text=Suggest an edit")
    expect(bob.locator("h1")).to_have_text("Suggest an edit")
    box = bob.locator("#card-source")
    box.fill(box.input_value().replace(OLD, NEW))
    expect(bob.locator("#author-preview")).to_contain_text(NEW)
    bob.fill("#suggest-reason", REASON)
    save_screenshot(bob, screenshot_dir, f"suggest-edit-{width}")
    bob.click("text=Send for review")
    expect(bob.locator("#suggested-edits")).to_contain_text("waiting for review")

    ada = signed_in("ada")
    ada.goto(f"{url}/author/reviews")
    ada.click(f"text={REASON}")
    expect(ada.locator("table.diff tr.changed td.new").first).to_contain_text(NEW)
    expect(ada.locator(".history-change")).to_contain_text("was reworded")
    assert axe_violations(ada) == [], described(axe_violations(ada))
    save_screenshot(ada, screenshot_dir, f"review-edit-{width}")
    ada.click("text=Accept and save the card")
    expect(ada.locator("#status")).to_contain_text("Accepted by ada")

    served = script.get(f"/api/cards/{OWNER_CARD}").json()["sections"]["answer_points"]
    assert NEW in [point["markdown"] for point in served]  # for everyone, with no restart
    bob.goto(f"{url}/account")
    expect(bob.locator("#suggested-edits")).to_contain_text("accepted")
    save_screenshot(bob, screenshot_dir, f"suggestion-accepted-{width}")
    [kept] = script.get(f"/api/attempts?card_id={OWNER_CARD}").json()
    assert kept["text"] == "it overlaps"
    assert git(content, "log", "-1", "--format=%an|%cn") == "bob|ada"
    assert REASON in git(content, "log", "-1", "--format=%B")
    assert NEW in (content / f"{OWNER_CARD}.md").read_text(encoding="utf-8")
