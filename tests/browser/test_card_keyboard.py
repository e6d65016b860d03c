"""The whole card flow from the keyboard alone, counting the keys it takes.

Answer, submit (which reveals the model answer), tick the points covered, rate, answer a
follow-up and rate it, then take the pitfall quiz: no mouse, and focus follows each part of the
page as it is swapped in (to the new part's heading), so the next control is a few Tabs away
instead of a walk from the top of the page. Before focus followed the swaps it took 71 Tabs just
to reach the rating buttons after submitting an answer.
"""

from dataclasses import dataclass, field

import httpx
from playwright.sync_api import Page, expect

from tests.factories import OWNER_CARD
from tests.helpers.browser import is_pitfall

# Keys that move or act (Tab, Enter, Space), not the characters of the answers typed. Measured at
# the middle depth: 59 for the whole flow (47 of them Tab; the quiz's ten statements take 15), and
# 18 from the top of the page to the rating buttons, the "Answer this card" link's Tab and Enter
# included (68 and 27 when the first stop was "Skip to content", nine Tabs short of the box).
MOST_KEYS = 63
MOST_KEYS_TO_RATING = 20
# No step after an update may need more than this many Tabs: a longer walk means focus was lost.
MOST_TABS_A_STEP = 14


@dataclass
class Keyboard:
    page: Page
    presses: list[str] = field(default_factory=list)

    def press(self, key: str) -> None:
        self.presses.append(key)
        self.page.keyboard.press(key)

    def type(self, text: str) -> None:
        self.page.keyboard.type(text)  # typing is the answer itself, not counted

    def focused(self, selector: str) -> bool:
        return bool(
            self.page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector)
        )

    def tab_to(self, selector: str, most: int = MOST_TABS_A_STEP) -> int:
        """Tab forward until the focused element matches `selector`; how many Tabs it took."""
        for tabs in range(most + 1):
            if self.focused(selector):
                return tabs
            self.press("Tab")
        where = self.page.evaluate("document.activeElement && document.activeElement.outerHTML.slice(0, 120)")
        raise AssertionError(f"{most} Tabs did not reach {selector}; focus is on {where}")


def test_the_card_flow_from_the_keyboard_alone(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/cards/{OWNER_CARD}?tier=middle")
    expect(page.locator("#quiz input[name=choices]").first).to_be_attached()  # loaded into place
    keys = Keyboard(page)

    # Past the site's links by the skip link, then to the answer box.
    keys.tab_to(".skip-link", 1)
    keys.press("Enter")
    keys.tab_to("#answer-text")

    # Answer, and submit: the model answer and the self-rating come in, and focus goes with them.
    keys.type("Prefetch overlaps preparing the next batch with the training step on this one.")
    keys.tab_to(".answer-form button[type=submit]:not([formaction])")
    keys.press("Enter")
    expect(page.locator("#answer-panel .model-answer")).to_be_visible()
    expect(page.locator("#answer-heading")).to_be_focused()

    # The checker found the first point and the checklist starts with it ticked: tick the second
    # as well, then rate "good".
    boxes = page.locator("#answer-panel .checklist input[type=checkbox]")
    expect(boxes.first).to_be_checked()
    keys.tab_to("#answer-panel .checklist input[type=checkbox]")
    keys.press("Tab")
    keys.press("Space")
    keys.tab_to('#answer-panel .rating button[value="good"]')
    to_rating = len(keys.presses)
    keys.press("Enter")
    expect(page.locator("#answer-panel .saved")).to_contain_text("rated good, 2 of 5 points covered")
    # Focus comes back to the rating pressed, once the update settles: carry on from there.
    expect(page.locator('#answer-panel .rating button[value="good"]')).to_be_focused()

    # The first follow-up: answer it, then rate it "easy".
    keys.tab_to("#follow-up-0 textarea")
    keys.type("Measure with a synthetic input: from_tensors(batch).repeat().")
    keys.tab_to("#follow-up-0 button[type=submit]")
    keys.press("Enter")
    expect(page.locator("#follow-up-0 .model-answer")).to_be_visible()
    expect(page.locator("#follow-up-0 h3")).to_be_focused()
    keys.tab_to('#follow-up-0 .rating button[value="easy"]')
    keys.press("Enter")
    expect(page.locator("#follow-up-0 .saved")).to_contain_text("rated easy")
    expect(page.locator('#follow-up-0 .rating button[value="easy"]')).to_be_focused()

    # The quiz: tick every statement that would cost the question, and check the picks.
    keys.tab_to("#quiz input[name=choices]")
    boxes = page.locator("#quiz input[name=choices]")
    for index in range(boxes.count()):
        if index:
            keys.press("Tab")
        expect(boxes.nth(index)).to_be_focused()
        if is_pitfall(boxes.nth(index)):
            keys.press("Space")
            expect(boxes.nth(index)).to_be_checked()
    keys.tab_to("#quiz button[type=submit]")
    keys.press("Enter")
    expect(page.locator("#quiz .score")).to_contain_text("100 %")
    expect(page.locator("#quiz-heading")).to_be_focused()

    count = len(keys.presses)
    print(
        f"keyboard-only card flow: {count} keys ({keys.presses.count('Tab')} Tab), {to_rating} to the rating"
    )
    assert to_rating <= MOST_KEYS_TO_RATING, (
        f"{to_rating} keys to the rating: {' '.join(keys.presses[:to_rating])}"
    )
    assert count <= MOST_KEYS, f"{count} keys: {' '.join(keys.presses)}"


def test_the_answer_box_is_one_tab_away_and_keys_submit_and_rate(fresh_url: str, page: Page) -> None:
    page.goto(f"{fresh_url}/cards/{OWNER_CARD}?tier=middle")
    keys = Keyboard(page)
    keys.press("Tab")
    expect(page.locator(":focus")).to_have_text("Answer this card")
    keys.press("Enter")
    expect(page.locator("#answer-text")).to_be_focused()
    assert keys.presses == ["Tab", "Enter"]

    # "a" outside a text field goes back to the box; in the box it is only a letter.
    page.locator("#answer-heading").focus()
    page.keyboard.press("a")
    expect(page.locator("#answer-text")).to_be_focused()
    expect(page.locator("#answer-text")).to_have_value("")
    keys.type("Prefetch overlaps the next batch's input with this step's compute. 3")
    expect(page.locator("#answer-panel .model-answer")).to_have_count(0)  # the digit was typed
    keys.press("Control+Enter")
    expect(page.locator("#answer-panel .model-answer")).to_be_visible()
    expect(page.locator("#answer-heading")).to_be_focused()

    # 1-4 rate the answer once its rating is on screen and focus is out of the text fields.
    keys.press("3")
    expect(page.locator("#answer-panel .saved")).to_contain_text("rated good")

    # Cmd+Enter sends a follow-up's answer from its box, as Ctrl+Enter does.
    box = page.locator("#follow-up-0 textarea")
    box.fill("Measure it with a synthetic input.")
    box.press("Meta+Enter")
    expect(page.locator("#follow-up-0 .model-answer")).to_be_visible()
    stored = {a["kind"]: a for a in httpx.get(f"{fresh_url}/api/attempts").json()}
    assert sorted(stored) == ["follow-up", "solid"] and stored["solid"]["rating"] == "good"
    assert stored["solid"]["text"].endswith("compute. 3")


def test_follow_ups_and_the_quiz_wait_for_the_answer(fresh_url: str, page: Page) -> None:
    url = f"{fresh_url}/cards/{OWNER_CARD}?tier=middle"
    page.goto(url)
    expect(page.locator("#quiz input[name=choices]").first).to_be_attached()
    show = page.locator("#spoilers > summary")
    expect(show).to_contain_text(
        "They give the answer away: they open once you have answered or revealed it."
    )
    expect(page.locator("#follow-up-0")).to_be_hidden()
    expect(page.locator("#quiz input[name=choices]").first).to_be_hidden()

    # "Show anyway", from the keyboard: they open, and focus goes to what opened.
    show.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#follow-up-0")).to_be_visible()
    expect(page.locator("#quiz input[name=choices]").first).to_be_visible()
    expect(page.locator("#follow-ups-heading")).to_be_focused()

    # Closed again on the next visit; submitting the answer opens them in place.
    page.goto(url)
    expect(page.locator("#follow-up-0")).to_be_hidden()
    page.fill("#answer-text", "Prefetch overlaps input with compute.")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator("#follow-up-0")).to_be_visible()
    expect(page.locator("#answer-heading")).to_be_focused()

    # Having answered it once, the person finds them open on every later visit.
    page.goto(url)
    expect(page.locator("#history tr.attempt")).to_have_count(1)
    expect(page.locator("#follow-up-0")).to_be_visible()
    expect(show).to_be_hidden()
