"""What the preview shows as an author types: every problem `tiercards content check` finds, each
with its line; for a card without problems, the card at each of the four depths with the sections
that depth sees, and the pitfall quiz as it is dealt."""

from fastapi.testclient import TestClient

from app.content.cards import item_key
from tests.factories import WRITTEN, card_text, line_of
from tests.helpers.authoring import SERVED, preview_of, problems, textarea_text
from tests.helpers.html import one, soup_of

EVERY_DEPTH = {"expectations", "points", "basics", "code", "quiz"}
SECTIONS = {
    "junior": EVERY_DEPTH,
    "middle": EVERY_DEPTH | {"solid", "follow_ups"},
    "senior": EVERY_DEPTH | {"solid", "follow_ups", "deep_dive"},
    "principal": EVERY_DEPTH | {"solid", "follow_ups", "deep_dive"},
}
PITFALLS = ("Prefetch makes every step faster", "A bigger buffer always helps")
TRUTHS = ("Prefetch overlaps input with compute",)


def _quiz_card() -> str:
    pitfalls = "".join(f"### {claim}\nWhy it is wrong.\n\n" for claim in PITFALLS)
    truths = "".join(f"### {claim}\nWhy it is true.\n\n" for claim in TRUTHS)
    return card_text(
        **{
            "### A wrong belief a candidate might state\nWhy it is wrong.\n": pitfalls,
            "### A true statement that sounds like it could be a pitfall\nWhy it is true.\n": truths,
        }
    )


def test_the_page_starts_from_the_card_content_new_writes(author: TestClient) -> None:
    page = soup_of(author.get("/author").text)
    text = textarea_text(page)
    assert text.startswith("---\nid: new-card\n") and "## True statements" in text
    # The scaffold itself has no problem: its preview is the card.
    assert page.select_one("#author-preview[data-state=card]") is not None
    assert "A new card starts as a draft (draft: true)" in " ".join(page.get_text().split())
    assert one(page, "#author-form")["action"] == "/author/cards"


def test_a_broken_card_lists_every_problem_with_its_line(author: TestClient) -> None:
    text = card_text(**{"level: middle": "level: expert", "## Basics": "## Basic"})
    found = problems(preview_of(author, text))
    assert (
        f"line {line_of(text, 'level: expert')}: unknown level 'expert' (one of junior, middle, senior, principal)"
        in found
    )
    assert any(p.startswith(f"line {line_of(text, '## Basic')}: unknown section 'Basic'") for p in found)
    assert any("missing section '## Basics'" in p for p in found)
    assert len(found) == 3


def test_a_text_without_frontmatter_says_so_on_line_1(author: TestClient) -> None:
    assert problems(preview_of(author, "")) == [
        "line 1: missing YAML frontmatter: the file must start with a '---' line"
    ]


def test_a_good_card_shows_each_depth_with_the_sections_it_sees(author: TestClient) -> None:
    preview = preview_of(author, card_text())
    assert problems(preview) == []
    depths = {str(panel["data-tier"]): panel for panel in preview.select(".author-depth")}
    assert list(depths) == ["junior", "middle", "senior", "principal"]
    for tier, panel in depths.items():
        assert {str(s["data-section"]) for s in panel.select("[data-section]")} == SECTIONS[tier], tier
    # Each depth is expected to say what its own tier and every tier below it say.
    expected = [[dt.get_text() for dt in panel.select(".expectations dt")] for panel in depths.values()]
    assert expected[0] == ["For a junior"] and expected[3] == [
        "For a junior",
        "For a middle",
        "For a senior",
        "For a principal",
    ]
    senior = depths["senior"]
    assert (
        one(senior, "[data-section=solid] .prose").get_text(strip=True) == WRITTEN["The ~50 second answer."]
    )
    assert [li.get_text(strip=True) for li in senior.select("[data-section=points] li")] == [
        WRITTEN["The first point a good answer makes"],
        WRITTEN["The second point"],
    ]


def test_the_depth_shown_first_is_the_card_level_or_the_one_picked(author: TestClient) -> None:
    senior_card = card_text(**{"level: middle": "level: senior"})
    page = soup_of(author.post("/author", data={"text": senior_card}).text)
    assert one(page, "input[name=tier]:checked")["value"] == "senior"
    page = soup_of(author.post("/author", data={"text": senior_card, "tier": "Junior"}).text)
    assert one(page, "input[name=tier]:checked")["value"] == "junior"


def test_the_quiz_is_dealt_with_every_statement_and_its_answer(author: TestClient) -> None:
    text = _quiz_card()
    preview = preview_of(author, text)
    wanted = {f"p-{item_key(c)}" for c in PITFALLS} | {f"t-{item_key(c)}" for c in TRUTHS}
    for panel in preview.select(".author-depth"):
        items = panel.select("[data-section=quiz] li")
        assert {str(li["data-item"]) for li in items} == wanted
        for li in items:
            claim = one(li, ".statement").get_text(strip=True)
            verdict = one(li, ".truth").get_text(strip=True)
            assert ("costs you the question" in verdict) == (claim in PITFALLS), claim
    # The same text deals the same order, so the quiz holds still while the author types.
    again = preview_of(author, text)
    assert [li["data-item"] for li in again.select("[data-section=quiz] li")] == [
        li["data-item"] for li in preview.select("[data-section=quiz] li")
    ]


def test_the_author_raw_html_shows_as_text(author: TestClient) -> None:
    text = card_text(**{"The ~20 second answer.": "The <b>short</b> answer <script>alert(1)</script>"})
    basics = one(preview_of(author, text), "#depth-junior [data-section=basics] .prose")
    assert basics.select("b, script") == []
    assert "<b>short</b>" in basics.get_text()


def test_a_card_whose_id_is_served_says_where_from(author: TestClient) -> None:
    served = preview_of(author, card_text(SERVED))
    note = served.select_one(".note")
    assert note is not None and f"{SERVED}.md" in note.get_text()
    assert preview_of(author, card_text("brand-new-card")).select_one(".note") is None


def test_without_scripts_check_now_answers_the_whole_page_with_the_text_kept(author: TestClient) -> None:
    text = card_text(**{"level: middle": "level: expert"})
    page = soup_of(author.post("/author", data={"text": text}).text)
    assert one(page, "h1").get_text() == "Write a card"
    assert textarea_text(page) == text
    assert problems(one(page, "#author-preview")) == [
        f"line {line_of(text, 'level:')}: unknown level 'expert' (one of junior, middle, senior, principal)"
    ]


# A note on the card's Solid answer, quoting its words as card_text writes them.
NOTE = f"""
## Version notes
### {WRITTEN["The ~50 second answer."]}
- Checked: TensorFlow 2.21
- Source: tensorflow/python/data/ops/options.py
- Demo: placement no-prefetch against prefetch-last-autotune

What TensorFlow 2.21 does to it.
"""


def test_a_version_note_stands_beside_its_words_where_a_depth_shows_them(author: TestClient) -> None:
    preview = preview_of(author, card_text("noted-card") + NOTE)
    assert problems(preview) == []
    assert preview.select("#depth-junior .version-note") == []  # juniors see no solid answer
    for tier in ("middle", "senior", "principal"):
        notes = preview.select(f"#depth-{tier} [data-section=solid] .version-note")
        assert len(notes) == 1, tier
        assert "What TensorFlow 2.21 does to it." in notes[0].get_text()


def test_a_true_statement_that_shows_no_words_is_listed_as_a_problem(author: TestClient) -> None:
    old = "### A true statement that sounds like it could be a pitfall"
    text = card_text(**{old: "### [](https://example.com)"})
    assert problems(preview_of(author, text)) == [
        f"line {line_of(text, '### [](https://example.com)')}: true statement heading shows no words "
        "(a bare link or image reads as nothing): write them after '### '"
    ]
