"""POST /api/author/check: what `tiercards content check` would say of a card's text, one problem a
line, and the card at each depth when there is none (the sections GET /api/cards/{id} gives)."""

from fastapi.testclient import TestClient

from tests.factories import WRITTEN, card_text, line_of


def test_problems_come_with_their_lines(author: TestClient) -> None:
    text = card_text(**{"level: middle": "level: expert"})
    response = author.post("/api/author/check", json={"text": text})
    assert response.status_code == 200
    assert response.json() == {
        "problems": [
            {
                "line": line_of(text, "level: expert"),
                "message": "unknown level 'expert' (one of junior, middle, senior, principal)",
            }
        ],
        "card": None,
    }


def test_a_good_card_comes_back_at_each_depth(author: TestClient) -> None:
    body = author.post("/api/author/check", json={"text": card_text("api-card")}).json()
    assert body["problems"] == []
    card = body["card"]
    assert (card["id"], card["level"], card["timings"]) == ("api-card", "middle", {"basics": 20, "solid": 50})
    depths = card["depths"]
    assert list(depths) == ["junior", "middle", "senior", "principal"]
    assert "solid_answer" not in depths["junior"] and "deep_dive" not in depths["middle"]
    assert list(depths["principal"]["go_deeper"]) == ["junior", "middle", "senior", "principal"]
    assert depths["senior"]["deep_dive"]["html"] == f"<p>{WRITTEN['The long-form explanation.']}</p>\n"


def test_a_body_that_is_not_a_card_text_is_refused(author: TestClient) -> None:
    for body in ({}, {"text": 3}, {"text": "x", "extra": 1}, ["text"]):
        assert author.post("/api/author/check", json=body).status_code == 422, body
