"""A team in AUTH_MODE=accounts, in chromium: alice answers a card; bob, another member, cannot
see her answer anywhere; lena, a lead, sees both of them on /team, on a laptop and on a phone."""

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.helpers.browser import add_people, axe_violations, described, signed_in_page
from tests.servers import data_env, start_server, stop

CARD = "tf-data-prefetch-last"
MARKER = "alices-answer-3b9e: prefetch overlaps input with compute"
PEOPLE = {
    "alice": ("member", "alice pass phrase 1"),
    "bob": ("member", "bob pass phrase 22"),
    "lena": ("lead", "lena pass phrase 333"),
}
ACCOUNTS = {"AUTH_MODE": "accounts"}


@pytest.fixture
def team_url(tmp_path: Path) -> Iterator[str]:
    """A server in AUTH_MODE=accounts whose people were added with `tiercards users add`."""
    env = {**os.environ, **data_env(tmp_path), **ACCOUNTS}
    add_people(env, PEOPLE)
    process, url = start_server(tmp_path, "--no-worker", env=ACCOUNTS)
    yield url
    stop(process)


@pytest.fixture
def signed_in(browser: Browser, team_url: str) -> Iterator[Callable[[str], Page]]:
    """A page with cookies of its own per person, signed in through /login."""
    contexts = []
    errors: list[str] = []

    def open_as(name: str) -> Page:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        return signed_in_page(context, team_url, name, PEOPLE[name][1], errors)

    yield open_as
    for context in contexts:
        context.close()
    # bob is refused /team on purpose; anything else the pages report is a bug (a CSP violation).
    assert [e for e in errors if "status of 403" not in e] == []


def test_members_see_only_their_own_answers_and_the_lead_sees_the_team(
    signed_in: Callable[[str], Page], team_url: str
) -> None:
    alice = signed_in("alice")
    alice.goto(f"{team_url}/cards/{CARD}?tier=middle")
    alice.fill("#answer-text", MARKER)
    alice.click("text=Submit answer")
    expect(alice.locator("#answer-panel .model-answer")).to_be_visible()
    alice.click("#answer-panel .rating button[value=good]")
    expect(alice.locator("#answer-panel .saved")).to_contain_text("rated good")

    bob = signed_in("bob")
    bob.goto(f"{team_url}/progress")
    expect(bob.locator("h1")).to_have_text("Progress")
    assert MARKER not in bob.content()
    answers = bob.request.get(f"{team_url}/api/attempts")
    assert answers.ok and answers.json() == []
    refused = bob.goto(f"{team_url}/team")
    assert refused is not None and refused.status == 403
    # bob hides his answers with the toggle /account loads into place.
    bob.goto(f"{team_url}/account")
    toggle = bob.locator("#answer-privacy button")
    expect(toggle).to_have_text("Hide my answers from leads")
    toggle.click()
    expect(bob.locator("#answer-privacy .privacy-state")).to_have_attribute("data-hidden", "true")

    lena = signed_in("lena")
    lena.goto(f"{team_url}/team")
    rows = lena.locator("tr.member")
    expect(rows).to_have_count(3)
    alices_row = lena.locator('tr.member[data-member="alice"]')
    expect(alices_row.locator('[data-field="reviews_7d"]')).to_have_text("1")
    expect(alices_row.locator('[data-field="in_time"]')).to_contain_text("1 of 1")
    expect(lena.locator('tr.member[data-member="bob"]')).to_contain_text("answers hidden")
    expect(lena.locator('svg.bars g.bar-row[data-member="alice"]').first).to_have_attribute("data-value", "1")
    lena.set_viewport_size({"width": 390, "height": 844})
    expect(alices_row).to_be_visible()

    lena.goto(f"{team_url}/team/members/alice")
    expect(lena.locator("tr.attempt")).to_have_count(1)
    lena.locator("tr.attempt summary").click()
    expect(lena.locator(".their-answer")).to_have_text(MARKER)


def test_the_lead_finds_cards_by_typing_and_ticks_them_by_keyboard_on_a_phone(
    signed_in: Callable[[str], Page], team_url: str
) -> None:
    lena = signed_in("lena")
    lena.set_viewport_size({"width": 390, "height": 844})
    lena.goto(f"{team_url}/team")
    picker = lena.locator("[data-card-picker]")
    cards = picker.locator(".picker-list li")
    every = cards.count()
    search = picker.get_by_label("Find a card")
    expect(search).to_be_visible()
    search.fill("prefetch last")
    expect(cards.locator("visible=true")).to_have_count(1)
    expect(picker.locator(".picker-count")).to_contain_text(f"1 of {every} cards shown")
    lena.keyboard.press("Enter")  # does not send the form half filled in
    expect(lena).to_have_url(f"{team_url}/team")
    lena.keyboard.press("Tab")
    lena.keyboard.press("Space")
    expect(picker.locator(f'input[value="{CARD}"]')).to_be_checked()
    expect(picker.locator(".picker-count")).to_contain_text("1 chosen")
    search.fill("")
    expect(cards.locator("visible=true")).to_have_count(every)
    assert lena.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert [v for v in axe_violations(lena) if v["impact"] in ("serious", "critical")] == [], described(
        axe_violations(lena)
    )
    lena.fill("input[name=due]", "2099-01-01")
    lena.click(".assign-form button[type=submit]")
    expect(lena.locator("tr.assignment .done-count")).to_have_text("0 of 2")


def test_the_lead_sorts_and_filters_the_members_in_place(
    signed_in: Callable[[str], Page], team_url: str
) -> None:
    bob = signed_in("bob")
    bob.goto(f"{team_url}/cards/{CARD}?tier=middle")
    bob.fill("#answer-text", "prefetch overlaps the input pipeline with the step")
    bob.click("text=Submit answer")
    bob.click("#answer-panel .rating button[value=good]")
    expect(bob.locator("#answer-panel .saved")).to_contain_text("rated good")

    lena = signed_in("lena")
    lena.goto(f"{team_url}/team")
    rows = lena.locator("#member-table tr.member")
    expect(rows).to_have_count(3)
    assert [rows.nth(i).get_attribute("data-member") for i in range(3)] == ["alice", "bob", "lena"]
    lena.click('#member-table a.sort[data-sort="active"]')
    expect(lena).to_have_url(f"{team_url}/team?sort=active")
    expect(rows.first).to_have_attribute("data-member", "bob")  # the only one who practised
    expect(lena.locator("#member-table th[aria-sort=descending] a.sort")).to_have_text("Last active")
    # Focus lands on the new table, where a keyboard or screen reader user carries on.
    expect(lena.locator("#member-table")).to_be_focused()
    assert [v for v in axe_violations(lena) if v["impact"] in ("serious", "critical")] == [], described(
        axe_violations(lena)
    )

    search = lena.get_by_label("Name contains")
    search.press_sequentially("li")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-member", "alice")
    expect(lena).to_have_url(f"{team_url}/team?q=li&sort=active")
    expect(search).to_be_focused()  # typing goes on where it was
