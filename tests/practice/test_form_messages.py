"""Every refused form on the practice pages says what is wrong in a sentence that names the field
as the page labels it, and comes back with what the person typed and the time they had taken."""

from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.factories import OWNER_CARD
from tests.helpers.html import HTMX
from tests.helpers.payloads import import_upload
from tests.helpers.practice import dealt_quiz, quiz_ids

ANSWER = {"tier": "middle", "kind": "solid", "seconds": "12.5"}


def refused(client: TestClient, url: str, **kwargs: Any) -> BeautifulSoup:
    response = client.post(url, headers=HTMX, **kwargs)
    assert response.status_code == 422, response.text
    return BeautifulSoup(response.text, "html.parser")


def errors(soup: BeautifulSoup) -> list[str]:
    return [li.get_text(" ", strip=True) for li in soup.select("ul.errors li")]


def test_an_empty_answer_says_so_and_keeps_the_time_taken(client: TestClient) -> None:
    soup = refused(client, f"/cards/{OWNER_CARD}/answers", data=ANSWER | {"text": "  "})
    assert errors(soup) == ["Your answer is empty."]
    # The timer carries on from the time already taken instead of starting over.
    assert soup.select_one(".answer-form input[name=seconds]")["value"] == "12.5"


def test_a_too_long_answer_names_the_limit_and_keeps_the_text(client: TestClient) -> None:
    text = "z" * 20_001
    soup = refused(client, f"/cards/{OWNER_CARD}/answers", data=ANSWER | {"text": text})
    assert errors(soup) == ["Your answer must be at most 20000 characters."]
    assert soup.select_one("textarea").get_text() == text


def test_a_timer_value_the_person_never_typed_reads_as_unreadable(client: TestClient) -> None:
    soup = refused(client, f"/cards/{OWNER_CARD}/answers", data=ANSWER | {"text": "mine", "seconds": "soon"})
    assert errors(soup) == ["The answer could not be read; send it again."]
    assert soup.select_one("textarea").get_text() == "mine"


def test_an_empty_follow_up_answer_says_so(client: TestClient) -> None:
    data = ANSWER | {"kind": "follow-up", "follow_up": "2", "text": ""}
    soup = refused(client, f"/cards/{OWNER_CARD}/answers", data=data)
    assert soup.select_one("li.follow-up")["id"] == "follow-up-2"
    assert errors(soup) == ["Your answer is empty."]


def test_a_rating_left_out_asks_for_one_by_its_choices(client: TestClient) -> None:
    client.post(f"/cards/{OWNER_CARD}/answers", headers=HTMX, data=ANSWER | {"text": "mine"})
    attempt_id = client.get("/api/attempts").json()[0]["id"]
    soup = refused(client, f"/attempts/{attempt_id}/assessment", data={"points": ["0"]})
    assert errors(soup) == ["Choose how it went: again, hard, good or easy."]


def test_a_quiz_that_cannot_be_read_comes_back_as_it_was_seen(client: TestClient) -> None:
    pitfalls, truths = quiz_ids(client)
    dealt = dealt_quiz(client)
    order = dealt.values_of([truths[0], pitfalls[0], pitfalls[1], truths[1]])
    choices = [*dealt.values_of([pitfalls[1]]), "p-gone"]
    data = {"tier": "middle", "seconds": "9", "deal": dealt.deal, "order": order, "choices": choices}
    soup = refused(client, f"/cards/{OWNER_CARD}/quiz", data=data)
    assert errors(soup) == ["The quiz could not be read; send it again."]
    boxes = soup.select("input[name=choices]")
    assert [b["value"] for b in boxes][:4] == order
    assert [b["value"] for b in boxes if b.has_attr("checked")] == dealt.values_of([pitfalls[1]])
    assert soup.select_one("input[name=deal]")["value"] == dealt.deal


def test_a_too_long_answer_on_practice_names_the_limit(client: TestClient) -> None:
    data = {"card_id": OWNER_CARD, "tier": "middle", "seconds": "3", "text": "x" * 20_001}
    soup = refused(client, "/practice/reveal", data=data)
    assert errors(soup) == ["Your answer must be at most 20000 characters."]
    # The clock goes on from the 3 s already taken.
    assert soup.select_one("[data-timer]")["data-elapsed"] == "3.0"


def test_a_practice_timer_value_that_cannot_be_read_is_shown_in_place(client: TestClient) -> None:
    data = {"card_id": OWNER_CARD, "tier": "middle", "seconds": "-4", "text": "typed"}
    soup = refused(client, "/practice/reveal", data=data)
    assert errors(soup) == ["The answer could not be read; send it again."]
    assert soup.select_one("#practice-text").get_text() == "typed"


def test_an_import_that_is_not_json_says_so(client: TestClient) -> None:
    files = {"file": ("notes.json", b"these are my notes", "application/json")}
    soup = refused(client, "/progress/import", files=files)
    assert errors(soup) == ["The file is not JSON: choose a file that tiercards exported."]


def test_an_import_missing_parts_names_them_in_the_file(client: TestClient) -> None:
    files = import_upload(b'{"format": "tiercards-export"}')
    assert errors(refused(client, "/progress/import", files=files)) == [
        "In the file, “exported_at” is required.",
        "In the file, “settings” is required.",
        "In the file, “attempts” is required.",
        "In the file, “review_states” is required.",
        "In the file, “review_logs” is required.",
    ]


def test_an_import_without_a_file_asks_for_one(client: TestClient) -> None:
    soup = refused(client, "/progress/import", data={"nothing": "here"})
    assert errors(soup) == ["Choose a JSON export file to import."]


def test_an_address_with_an_unknown_answer_length_names_it_as_the_page_does(client: TestClient) -> None:
    response = client.get(f"/cards/{OWNER_CARD}?kind=novel", headers={"Accept": "text/html"})
    assert response.status_code == 422
    assert errors(BeautifulSoup(response.text, "html.parser")) == ["Answer length must be basics or solid."]
    response = client.get("/progress?kind=essay", headers={"Accept": "text/html"})
    assert errors(BeautifulSoup(response.text, "html.parser")) == [
        "Kind must be basics, solid, follow-up or quiz."
    ]


def test_the_api_keeps_its_structured_422_body(client: TestClient) -> None:
    body = {"tier": "middle", "kind": "solid", "seconds": -1, "text": "x"}
    detail = client.post(f"/api/cards/{OWNER_CARD}/attempts", json=body).json()["detail"]
    assert detail == [
        {
            "type": "greater_than_equal",
            "loc": ["body", "seconds"],
            "msg": "Input should be greater than or equal to 0",
            "ctx": {"ge": 0.0},
        }
    ]
