"""An author writes a card in headless chromium: problems appear with their lines while typing,
without submitting and without the text box losing focus; fixed, they go and the card shows at
the depth picked; a problem's line can be jumped to; the download is the text typed; and the text
survives a reload in this browser (never on the server)."""

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.factories import OWNER_CARD

BOX = "#card-source"
LEVEL_PROBLEM = "line 4: unknown level 'expert' (one of junior, middle, senior, principal)"


def _focused_in_box(page: Page) -> bool:
    return bool(page.evaluate("document.activeElement && document.activeElement.id === 'card-source'"))


def _select(page: Page, snippet: str) -> None:
    """Put the caret in the box over the first `snippet`, as a person selecting it would."""
    page.locator(BOX).focus()
    page.evaluate(
        """([selector, snippet]) => {
             const box = document.querySelector(selector);
             const start = box.value.indexOf(snippet);
             box.setSelectionRange(start, start + snippet.length);
           }""",
        [BOX, snippet],
    )


def _problems(page: Page) -> list[str]:
    return [" ".join(text.split()) for text in page.locator(".author-problems li").all_inner_texts()]


def test_problems_follow_the_typing_and_the_box_keeps_focus(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/author")
    expect(page.locator("#author-preview")).to_have_attribute("data-state", "card")

    _select(page, "level: middle")
    page.keyboard.type("level: expert")
    expect(page.locator(".author-problems li")).to_have_count(1)
    assert _problems(page) == [LEVEL_PROBLEM]
    assert _focused_in_box(page)
    # Still typing where it was: the update swapped only the preview.
    assert page.evaluate(f"document.querySelector('{BOX}').selectionStart") == page.evaluate(
        f"document.querySelector('{BOX}').value.indexOf('level: expert') + 'level: expert'.length"
    )

    _select(page, "expert")
    page.keyboard.type("senior")
    expect(page.locator("#author-preview")).to_have_attribute("data-state", "card")
    expect(page.locator(".author-problems")).to_have_count(0)
    expect(page.locator(".author-card-title")).to_have_text("A new question?")
    assert _focused_in_box(page)
    # Nothing was submitted: still the page it was, with no reload.
    assert page.url == f"{base_url}/author"


def test_each_depth_shows_what_it_sees(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/author")
    middle = page.locator("#depth-middle")
    expect(middle).to_be_visible()  # the scaffold's own level, first
    expect(page.locator("#depth-junior")).to_be_hidden()
    expect(middle.locator("[data-section=follow_ups]")).to_be_visible()
    page.get_by_role("radio", name="junior").check()
    junior = page.locator("#depth-junior")
    expect(junior).to_be_visible()
    expect(middle).to_be_hidden()
    expect(junior.locator("[data-section=solid]")).to_have_count(0)
    expect(junior.locator("[data-section=quiz] li")).to_have_count(2)
    # The picked depth stays picked while the text changes.
    _select(page, "The ~20 second answer.")
    page.keyboard.type("A new basics answer.")
    expect(junior.locator("[data-section=basics]")).to_contain_text("A new basics answer.")
    expect(junior).to_be_visible()


def test_a_problem_s_line_selects_that_line(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/author")
    _select(page, "level: middle")
    page.keyboard.type("level: expert")
    page.locator(".author-problems button", has_text="line 4").click()
    assert _focused_in_box(page)
    assert (
        page.evaluate(
            f"(b => b.value.slice(b.selectionStart, b.selectionEnd))(document.querySelector('{BOX}'))"
        )
        == "level: expert"
    )


def test_the_download_is_the_text_typed(page: Page, base_url: str, tmp_path: Path) -> None:
    page.goto(f"{base_url}/author")
    _select(page, "new-card")
    page.keyboard.type("my-first-card")
    page.locator(BOX).press("End")
    page.keyboard.type("\n<b>raw</b> and “quotes” stay as typed\n")
    typed = page.locator(BOX).input_value()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download the file").click()
    saved = tmp_path / "saved.md"
    download.value.save_as(saved)
    assert download.value.suggested_filename == "my-first-card.md"
    assert saved.read_text(encoding="utf-8") == typed


def test_the_text_survives_a_reload_until_started_over(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/author")
    blank = page.locator(BOX).input_value()
    _select(page, "level: middle")
    page.keyboard.type("level: expert")
    expect(page.locator(".author-problems li")).to_have_count(1)
    page.reload()
    expect(page.locator(BOX)).to_have_value(blank.replace("level: middle", "level: expert"))
    expect(page.locator("[data-draft-note]")).to_be_visible()
    expect(page.locator(".author-problems li")).to_have_text([LEVEL_PROBLEM])
    page.get_by_role("button", name="Start over from a blank card").click()
    expect(page.locator(BOX)).to_have_value(blank)
    expect(page.locator("#author-preview")).to_have_attribute("data-state", "card")
    page.reload()
    expect(page.locator(BOX)).to_have_value(blank)
    expect(page.locator("[data-draft-note]")).to_be_hidden()


def test_a_card_opened_from_its_page_shows_its_file_whatever_draft_is_kept(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/author")
    _select(page, "level: middle")
    page.keyboard.type("level: expert")
    expect(page.locator(".author-problems li")).to_have_count(1)
    page.goto(f"{base_url}/cards/{OWNER_CARD}")
    page.get_by_role("link", name="Edit the card").click()
    expect(page.locator(BOX)).to_have_value(re.compile(f"^---\nid: {OWNER_CARD}\n"))
    expect(page.locator("[data-draft-note]")).to_be_hidden()
    _select(page, "level: middle")
    page.keyboard.type("level: senior")
    page.reload()
    expect(page.locator(BOX)).to_have_value(re.compile("level: senior"))
    page.goto(f"{base_url}/author")
    expect(page.locator(BOX)).to_have_value(re.compile("level: expert"))


NOTE = """
## Version notes
### The ~50 second answer.
- Checked: TensorFlow 2.21
- Source: tensorflow/python/data/ops/options.py
- Demo: placement no-prefetch against prefetch-last-autotune

What TensorFlow 2.21 does to it.
"""


def test_a_version_note_opens_without_asking_for_a_demo(page: Page, base_url: str) -> None:
    """What a note's demo measured needs the card served, which a card being written is not."""
    page.goto(f"{base_url}/author")
    page.locator(BOX).fill(page.locator(BOX).input_value() + NOTE)
    note = page.locator("#depth-middle .version-note")
    expect(note).to_be_visible()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    note.locator("summary").click()
    expect(note).to_contain_text("What TensorFlow 2.21 does to it.")
    expect(note.locator(".note-evidence")).to_be_hidden()
    page.wait_for_timeout(700)
    assert asked == []
