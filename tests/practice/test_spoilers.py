"""The card page gives nothing away before the answer: follow-up answers and the pitfall quiz wait
behind one line until the main answer is given or revealed; what comes after reads quickly on a
phone; and the page's keys are said where a person sees them."""

from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

from tests.factories import DECK, OWNER_CARD
from tests.helpers.html import HTMX, soup_of

WHY = "They give the answer away: they open once you have answered or revealed it."


def card_page(client: TestClient, tier: str = "senior") -> BeautifulSoup:
    response = client.get(f"/cards/{OWNER_CARD}?tier={tier}")
    assert response.status_code == 200, response.text
    return soup_of(response.text)


def spoilers(soup: BeautifulSoup) -> Tag:
    found = soup.select_one("details#spoilers")
    assert found is not None, "the follow-ups and the quiz are not behind their line"
    return found


def send(client: TestClient, action: str, status: int = 200, **form: str) -> BeautifulSoup:
    data = {
        "tier": "senior",
        "kind": "solid",
        "seconds": "9",
        "text": "It overlaps input with compute.",
    } | form
    response = client.post(f"/cards/{OWNER_CARD}/{action}", data=data, headers=HTMX)
    assert response.status_code == status, response.text
    return soup_of(response.text)


def test_follow_up_answers_and_the_quiz_stay_closed_before_the_answer(client: TestClient) -> None:
    soup = card_page(client)
    closed = spoilers(soup)
    assert not closed.has_attr("open")
    # Every follow-up's answer and the quiz are inside it, none outside.
    card = DECK[OWNER_CARD]
    assert len(closed.select(".follow-up .reveal")) == len(card.follow_ups) == len(soup.select(".reveal"))
    assert closed.select_one("#quiz") is not None and len(soup.select("#quiz")) == 1
    summary = closed.find("summary", recursive=False)
    assert summary is not None
    text = " ".join(summary.get_text(" ", strip=True).split())
    assert WHY in text and text.endswith("Show anyway")
    # The page stays the same for everyone: nothing in it says who has answered.
    assert soup.select_one("[data-spoilers]") is None


def test_below_the_follow_up_depth_only_the_quiz_waits(client: TestClient) -> None:
    soup = card_page(client, tier="junior")
    closed = spoilers(soup)
    assert not closed.has_attr("open") and closed.select_one("#quiz") is not None
    assert soup.select(".follow-up") == []


def test_submitting_or_revealing_the_answer_opens_them(client: TestClient) -> None:
    for action in ("answers", "reveal"):
        panel = send(client, action).select_one("#answer-panel")
        assert panel is not None and panel.select_one(".model-answer") is not None
        assert panel["data-spoilers"] == "open", action


def test_a_refused_answer_keeps_them_closed(client: TestClient) -> None:
    panel = send(client, "answers", status=422, text="").select_one("#answer-panel")
    assert panel is not None and panel.select_one("textarea") is not None
    assert not panel.has_attr("data-spoilers")


def review_layout(answer: Tag) -> None:
    """Answer points first; the long answer and the code folded in their own boxes."""
    parts = [child for child in answer.children if isinstance(child, Tag)]
    names = [" ".join(part.get_text(" ", strip=True).split()) for part in parts]
    points = next(i for i, part in enumerate(parts) if part.name == "ol" and "points" in part["class"])
    long_answer = answer.select_one("details.long-answer")
    code = answer.select_one("details.code-block")
    assert long_answer is not None and code is not None, names
    assert points < parts.index(long_answer) < parts.index(code)
    assert long_answer.select_one(".prose") is not None and code.select_one(".code") is not None
    assert "lines" in code.find("summary").get_text()


def test_after_the_answer_points_come_first_and_the_long_parts_fold(client: TestClient) -> None:
    for action in ("answers", "reveal"):
        answer = send(client, action).select_one("#answer-panel .model-answer")
        assert answer is not None
        review_layout(answer)
    rating = send(client, "answers").select_one("#answer-panel .assessment fieldset.rating")
    assert rating is not None and "rating-bar" in rating["class"]
    assert [b["value"] for b in rating.select("button[name=rating]")] == ["again", "hard", "good", "easy"]


def test_practice_after_reveal_reads_the_same_way(client: TestClient) -> None:
    response = client.post(
        "/practice/reveal", headers=HTMX, data={"card_id": OWNER_CARD, "tier": "middle", "seconds": "4"}
    )
    assert response.status_code == 200, response.text
    soup = soup_of(response.text)
    answer = soup.select_one("#practice-card .model-answer")
    assert answer is not None
    review_layout(answer)
    rating = soup.select_one(".practice-rate fieldset.rating")
    assert rating is not None and "rating-bar" in rating["class"]


def test_the_answer_box_is_the_first_stop_and_the_keys_are_said(client: TestClient) -> None:
    soup = card_page(client, tier="middle")
    first = soup.select_one("body").find(["a", "button", "input", "textarea", "select", "summary"])
    assert first is not None and first.get_text(strip=True) == "Answer this card"
    assert first["href"] == "#answer-text" and soup.select_one(first["href"]).name == "textarea"
    keys = soup.select_one(".card-page .keys")
    assert keys is not None
    said = " ".join(keys.get_text(" ", strip=True).split())
    for key in ("A", "Ctrl", "Enter", "1", "4"):
        assert key in [k.get_text() for k in keys.select("kbd")], (key, said)
