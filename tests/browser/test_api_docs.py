"""The API docs in headless chromium: "Try it out" on a POST records an answer, and the page says
how API clients sign their requests."""

import json
import uuid

from playwright.sync_api import Page, expect

from tests.factories import OWNER_CARD
from tests.helpers.payloads import attempt_payload


def test_try_it_out_records_an_attempt(page: Page, base_url: str) -> None:
    marker = f"recorded from the API docs {uuid.uuid4().hex}"
    page.goto(f"{base_url}/docs")
    operation = page.locator(".opblock-post", has=page.locator('[data-path="/api/cards/{card_id}/attempts"]'))
    operation.locator(".opblock-summary").click()
    operation.get_by_role("button", name="Try it out").click()
    operation.locator('tr[data-param-name="card_id"] input').fill(OWNER_CARD)
    operation.locator("textarea.body-param__text").fill(json.dumps(attempt_payload(text=marker)))
    operation.get_by_role("button", name="Execute").click()

    code = operation.locator(".live-responses-table .response .response-col_status")
    expect(code).to_have_text("201", timeout=15_000)
    attempts = page.request.get(f"{base_url}/api/attempts", params={"card_id": OWNER_CARD}).json()
    assert [a["text"] for a in attempts if a["text"] == marker] == [marker]


def test_the_page_says_how_clients_authenticate(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/docs")
    help_text = page.locator("#api-auth")
    expect(help_text).to_contain_text("X-CSRF-Token")
    expect(help_text).to_contain_text("tiercards_csrf")
    expect(help_text).to_contain_text("Authorization: Bearer")
