"""The HTML pages, parsed: library filters, tiers, answer-first flow, follow-ups, quiz, escaping."""

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.content.cards import Card
from app.factory import create_app
from app.settings import Settings
from app.web.security import CSRF_COOKIE
from tests.factories import DECK, OWNER_CARD, card_text, write_card
from tests.helpers.practice import dealt_quiz, logs, quiz_ids

HTMX = {"HX-Request": "true"}


def page(client: TestClient, url: str, **kwargs: Any) -> BeautifulSoup:
    response = client.get(url, **kwargs)
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "html.parser")


def post_form(client: TestClient, url: str, data: dict[str, Any], status: int = 200) -> BeautifulSoup:
    response = client.post(url, data=data, headers=HTMX)
    assert response.status_code == status, response.text
    return BeautifulSoup(response.text, "html.parser")


def answer(client: TestClient, text: str = "It overlaps input with compute.", **extra: Any) -> BeautifulSoup:
    data = {"tier": "middle", "kind": "solid", "text": text, "seconds": "12.5", **extra}
    return post_form(client, f"/cards/{OWNER_CARD}/answers", data)


def card_titles(soup: BeautifulSoup) -> list[str]:
    return [item["data-card-id"] for item in soup.select(".card-item")]


def test_library_lists_every_card_with_its_metadata(client: TestClient) -> None:
    soup = page(client, "/")
    assert sorted(card_titles(soup)) == sorted(DECK)
    owner = soup.select_one(f'[data-card-id="{OWNER_CARD}"]')
    assert owner is not None
    text = owner.get_text(" ", strip=True)
    assert "middle" in text and "must-know" in text and "72 %" in text and "performance" in text


@pytest.mark.parametrize(
    ("query", "matches"),
    [
        ("level=senior", lambda card: card.level == "senior"),
        ("topic=performance", lambda card: "performance" in card.topics),
        (
            "q=PREFETCH last",
            lambda card: "prefetch" in card.title.markdown.lower() and "last" in card.title.markdown.lower(),
        ),
        (
            "q=cache&level=senior",
            lambda card: card.level == "senior" and "cache" in card.title.markdown.lower(),
        ),
    ],
)
def test_library_filters_by_level_topic_and_title(
    client: TestClient, query: str, matches: Callable[[Card], bool]
) -> None:
    expected = sorted(card_id for card_id, card in DECK.items() if matches(card))
    assert sorted(card_titles(page(client, f"/?{query}"))) == expected


def test_htmx_gets_the_fragment_and_browsers_the_full_page(client: TestClient) -> None:
    fragment = client.get("/?level=middle", headers=HTMX).text
    assert "<html" not in fragment and 'id="card-count"' in fragment
    assert "<html" in client.get("/?level=middle").text


def test_tier_switch_changes_what_the_card_shows(client: TestClient) -> None:
    junior = page(client, f"/cards/{OWNER_CARD}?tier=junior")
    principal = page(client, f"/cards/{OWNER_CARD}?tier=principal")
    assert junior.select_one('.tier-switch [aria-current="true"]').text == "junior"
    assert not junior.select(".follow-up") and len(principal.select(".follow-up")) == 4
    assert len(junior.select(".expectations dt")) == 1 and len(principal.select(".expectations dt")) == 4
    # Juniors answer the ~20 s basics, everyone else the ~50 s solid answer.
    assert junior.select_one("[data-answer-timer][data-limit]")["data-limit"] == "20"
    assert principal.select_one("[data-answer-timer][data-limit]")["data-limit"] == "50"
    tier_links = principal.select(".tier-switch a")
    assert tier_links[0]["href"] == f"/cards/{OWNER_CARD}?tier=junior"
    assert all(a.get("hx-push-url") == "true" for a in tier_links)


def test_tier_switch_by_htmx_returns_only_the_tier_content(client: TestClient) -> None:
    response = client.get(f"/cards/{OWNER_CARD}?tier=senior", headers=HTMX)
    assert "<html" not in response.text and 'class="tier-switch"' in response.text


def test_model_answer_stays_hidden_until_answered(client: TestClient) -> None:
    soup = page(client, f"/cards/{OWNER_CARD}")
    assert soup.select_one(".model-answer") is None
    assert "strictly serial" not in soup.get_text()


def reveal(client: TestClient, status: int = 200, **form: str) -> BeautifulSoup:
    data = {"tier": "senior", "kind": "solid", "seconds": "7.5", "text": "half an answer"} | form
    return post_form(client, f"/cards/{OWNER_CARD}/reveal", data, status)


def test_reveal_without_answering_is_recorded_as_such_and_ends_the_attempt(
    app: FastAPI, client: TestClient
) -> None:
    panel = reveal(client).select_one("#answer-panel")
    assert panel is not None and "strictly serial" in panel.select_one(".model-answer").get_text()
    assert panel.select_one(".deep-dive") is not None  # what a senior sees
    assert "revealed without answering" in panel.select_one(".note").get_text(" ", strip=True).lower()
    # Nothing is left to submit for this attempt: no answer box, no submit, no self-rating.
    assert panel.select("form, textarea, button[type=submit]") == []
    assert panel.select_one(f'a[href="/cards/{OWNER_CARD}?tier=senior&kind=solid"]') is not None
    [stored] = client.get("/api/attempts").json()
    assert (stored["kind"], stored["tier"], stored["revealed"], stored["text"], stored["rating"]) == (
        "solid",
        "senior",
        True,
        None,
        None,
    )
    assert stored["seconds"] == 7.5
    # Scheduled as a miss: FSRS Again, never a pass.
    (log,) = logs(app)
    assert (log.rating, log.attempt_id, log.tier) == (1, stored["id"], "senior")


def test_a_revealed_attempt_reads_so_in_both_histories(client: TestClient) -> None:
    reveal(client)
    row = page(client, f"/cards/{OWNER_CARD}/history", headers=HTMX).select_one("#history .attempt")
    assert row is not None and "revealed without answering" in row.get_text(" ", strip=True)
    assert row.select_one("details") is None  # no answer text to show
    row = page(client, "/progress").select_one(".history-table .attempt")
    assert row is not None and "revealed without answering" in row.get_text(" ", strip=True)


def test_a_revealed_attempt_cannot_be_rated_a_pass_afterwards(app: FastAPI, client: TestClient) -> None:
    reveal(client)
    attempt_id = client.get("/api/attempts").json()[0]["id"]
    soup = post_form(client, f"/attempts/{attempt_id}/assessment", {"rating": "easy"}, 422)
    assert "revealed without answering" in soup.select_one(".errors").get_text()
    practice = {"card_id": OWNER_CARD, "tier": "senior", "attempt_id": str(attempt_id), "rating": "easy"}
    assert client.post("/practice/rate", data=practice | {"seconds": "3"}, headers=HTMX).status_code == 422
    assert [log.rating for log in logs(app)] == [1]
    assert client.get("/api/attempts").json()[0]["rating"] is None


def test_the_api_records_a_reveal_only_without_an_answer(client: TestClient) -> None:
    body = {"tier": "middle", "kind": "solid", "seconds": 4, "revealed": True}
    url = f"/api/cards/{OWNER_CARD}/attempts"
    assert client.post(url, json=body | {"text": "the model answer, pasted"}).status_code == 422
    assert client.post(url, json=body | {"rating": "good"}).status_code == 422
    assert client.post(url, json=body | {"kind": "quiz", "choices": []}).status_code == 422
    created = client.post(url, json=body)
    assert created.status_code == 201 and created.json()["revealed"] is True
    assert client.post(url, json=body | {"revealed": False, "text": "typed"}).json()["revealed"] is False


def test_answering_records_and_shows_model_answer_with_checklist(client: TestClient) -> None:
    soup = answer(client)
    assert "strictly serial" in soup.select_one(".model-answer").get_text()
    assert len(soup.select(".checklist input[type=checkbox]")) == 5
    assert [b["value"] for b in soup.select(".rating button")] == ["again", "hard", "good", "easy"]
    [stored] = client.get("/api/attempts").json()
    assert stored["text"] == "It overlaps input with compute." and stored["seconds"] == 12.5
    assert stored["rating"] is None


def test_self_assessment_saves_points_and_rating_and_refreshes_history(client: TestClient) -> None:
    answer(client)
    attempt_id = client.get("/api/attempts").json()[0]["id"]
    soup = post_form(client, f"/attempts/{attempt_id}/assessment", {"points": ["0", "3"], "rating": "hard"})
    assert "rated hard, 2 of 5 points covered" in soup.select_one(".saved").get_text()
    history = soup.select_one('#history[hx-swap-oob="true"] .attempt')
    assert history is not None and "2 / 5" in history.get_text() and "hard" in history.get_text()
    stored = client.get("/api/attempts").json()[0]
    assert stored["points"] == [0, 3] and stored["rating"] == "hard"


def test_bad_assessment_is_refused_and_changes_nothing(client: TestClient) -> None:
    answer(client)
    attempt_id = client.get("/api/attempts").json()[0]["id"]
    # The page sends the points it shows; another one means the form could not be read.
    soup = post_form(client, f"/attempts/{attempt_id}/assessment", {"points": ["9"], "rating": "good"}, 422)
    assert soup.select_one(".errors").get_text(strip=True) == "The rating could not be read; send it again."
    assert client.get("/api/attempts").json()[0]["rating"] is None


def test_empty_answer_is_refused_and_long_answer_keeps_its_text(client: TestClient) -> None:
    response = client.post(
        f"/cards/{OWNER_CARD}/answers",
        headers=HTMX,
        data={"tier": "middle", "kind": "solid", "text": "   ", "seconds": "3"},
    )
    assert response.status_code == 422
    too_long = "z" * 20_001
    response = client.post(
        f"/cards/{OWNER_CARD}/answers",
        headers=HTMX,
        data={"tier": "middle", "kind": "solid", "text": too_long, "seconds": "3"},
    )
    soup = BeautifulSoup(response.text, "html.parser")
    assert response.status_code == 422 and "20000" in soup.select_one(".errors").get_text()
    assert soup.select_one("textarea").get_text() == too_long  # nothing the person typed is lost
    assert client.get("/api/attempts").json() == []


def test_follow_up_answer_is_recorded_against_its_question(client: TestClient) -> None:
    data = {
        "tier": "middle",
        "kind": "follow-up",
        "follow_up": "1",
        "text": "Use from_tensors().repeat()",
        "seconds": "20",
    }
    soup = post_form(client, f"/cards/{OWNER_CARD}/answers", data)
    assert soup.select_one("li.follow-up")["id"] == "follow-up-1"
    assert "from_tensors" in soup.select_one(".model-answer").get_text()
    [stored] = client.get("/api/attempts").json()
    assert stored["kind"] == "follow-up" and stored["follow_up"] == 1


def test_card_page_loads_quiz_and_history_into_place(client: TestClient) -> None:
    soup = page(client, f"/cards/{OWNER_CARD}?tier=senior")
    assert soup.select_one("#quiz")["hx-get"] == f"/cards/{OWNER_CARD}/quiz?tier=senior"
    assert soup.select_one("#history")["hx-get"] == f"/cards/{OWNER_CARD}/history"
    assert soup.select_one("#quiz")["hx-trigger"] == "load"


def test_quiz_and_history_are_whole_pages_without_htmx(client: TestClient) -> None:
    for url in (f"/cards/{OWNER_CARD}/quiz", f"/cards/{OWNER_CARD}/history"):
        soup = page(client, url)
        assert soup.select_one("header.site") is not None and soup.select_one("main section") is not None


def test_quiz_is_shuffled_per_visit(client: TestClient) -> None:
    orders = {
        tuple(
            box["value"]
            for box in page(client, f"/cards/{OWNER_CARD}/quiz", headers=HTMX).select("input[name=choices]")
        )
        for _ in range(6)
    }
    assert len(orders) > 1


def test_quiz_scores_every_item_with_its_why(client: TestClient) -> None:
    dealt = dealt_quiz(client)
    pitfalls, _truths = quiz_ids(client)
    assert len(pitfalls) == 5 and len(dealt.boxes) >= 8
    ticked = dealt.values_of(pitfalls[:3])
    result = post_form(
        client,
        f"/cards/{OWNER_CARD}/quiz",
        {"tier": "middle", "deal": dealt.deal, "choices": ticked, "order": dealt.values, "seconds": "30"},
    )
    items = result.select(".quiz-results li")
    # Shown in the order the person saw, each with its why.
    assert [li["data-item"] for li in items] == [stable for _, stable in dealt.boxes]
    assert all(li.select_one(".why").get_text(strip=True) for li in items)
    assert len(result.select(".quiz-results li.wrong")) == 2
    assert f"{len(items) - 2} of {len(items)}" in result.select_one(".score").get_text()
    [stored] = client.get("/api/attempts").json()
    assert stored["kind"] == "quiz" and sorted(stored["choices"]) == sorted(pitfalls[:3])


def test_the_quiz_form_carries_no_answer_key(client: TestClient) -> None:
    """Nothing in the form tells a pitfall from a true statement: its boxes are named by ids of
    this deal alone, never the stable ids (nor their p-/t- marks) that attempts store."""
    pitfalls, truths = quiz_ids(client)
    first, second = dealt_quiz(client), dealt_quiz(client)
    form = page(client, f"/cards/{OWNER_CARD}/quiz", headers=HTMX).select_one("#quiz form")
    assert form is not None
    for stable in pitfalls + truths:
        assert stable not in str(form) and stable.split("-")[1] not in str(form)
    boxes = [str(box["value"]) for box in form.select("input[name=choices]")]
    assert len(boxes) == len(pitfalls + truths)
    assert not any(value.startswith(("p-", "t-")) for value in boxes)
    assert len({len(value) for value in boxes}) == 1  # all alike
    assert not set(first.values) & set(second.values)  # each deal names them afresh
    assert sorted(s for _, s in first.boxes) == sorted(s for _, s in second.boxes)


def test_a_box_of_another_deal_is_refused_and_nothing_is_stored(client: TestClient) -> None:
    first, second = dealt_quiz(client), dealt_quiz(client)
    pitfalls, _truths = quiz_ids(client)
    for choices in (second.values_of(pitfalls[:1]), pitfalls[:1]):
        data = {
            "tier": "middle",
            "deal": first.deal,
            "choices": choices,
            "order": first.values,
            "seconds": "3",
        }
        soup = post_form(client, f"/cards/{OWNER_CARD}/quiz", data, status=422)
        assert "The quiz could not be read; send it again." in soup.get_text()
    assert client.get("/api/attempts").json() == []


def test_stored_html_in_an_answer_is_shown_as_text(client: TestClient) -> None:
    answer(client, text="<script>alert('x')</script>")
    raw = client.get(f"/cards/{OWNER_CARD}/history", headers=HTMX).text
    assert "<script>alert" not in raw and "&lt;script&gt;alert" in raw


def test_posting_a_form_without_csrf_token_is_forbidden(anonymous_client: TestClient) -> None:
    anonymous_client.get("/")
    response = anonymous_client.post(
        f"/cards/{OWNER_CARD}/answers", data={"tier": "middle", "kind": "solid", "text": "x", "seconds": "1"}
    )
    assert response.status_code == 403


def test_csrf_token_is_accepted_as_a_form_field(anonymous_client: TestClient) -> None:
    soup = page(anonymous_client, f"/cards/{OWNER_CARD}")
    token = soup.select_one('meta[name="csrf-token"]')["content"]
    assert soup.select_one(".answer-form input[name=csrf_token]")["value"] == token
    response = anonymous_client.post(
        f"/cards/{OWNER_CARD}/answers",
        data={"tier": "middle", "kind": "solid", "text": "x", "seconds": "1", "csrf_token": token},
    )
    assert response.status_code == 200


def test_unknown_card_page_is_a_404_page(client: TestClient) -> None:
    response = client.get("/cards/nope", headers={"Accept": "text/html"})
    assert response.status_code == 404
    assert "No card with id 'nope'." in BeautifulSoup(response.text, "html.parser").get_text()


@pytest.fixture
def own_content(settings: Settings, tmp_path: Path) -> Iterator[tuple[TestClient, Path]]:
    """An app serving cards from an empty temporary folder."""
    app = create_app(settings.model_copy(update={"content_dir": tmp_path}))
    with TestClient(app) as client:
        yield client, tmp_path
    app.state.db.dispose()


def test_a_broken_card_is_left_out_while_others_are_served_and_the_api_says_why(
    own_content: tuple[TestClient, Path],
) -> None:
    client, folder = own_content
    write_card(folder, "good.md", card_text("good-card", title="A good question?"))
    write_card(folder, "broken.md", card_text("broken-card", **{"level: middle": "level: wizard"}))
    soup = page(client, "/")
    assert card_titles(soup) == ["good-card"]
    # The library is everyone's: what is wrong in a file is for authors, not shown there.
    assert soup.select(".broken") == [] and "wizard" not in soup.get_text()
    [problem] = client.get("/api/cards").json()["broken"]
    assert (problem["path"], problem["line"]) == ("broken.md", 4)
    assert problem["message"].startswith("unknown level 'wizard'")


def test_edited_card_file_is_served_without_restart(own_content: tuple[TestClient, Path]) -> None:
    client, folder = own_content
    path = write_card(folder, "live.md", card_text("live-card", title="Before the edit?"))
    assert "Before the edit?" in page(client, "/cards/live-card").get_text()
    assert "Before the edit?" in page(client, "/cards/live-card").get_text()  # now from the page cache
    path.write_text(card_text("live-card", title="After the edit, longer?"), encoding="utf-8")
    assert "After the edit, longer?" in page(client, "/cards/live-card").get_text()
    path.unlink()
    assert client.get("/cards/live-card").status_code == 404


def test_cached_card_page_carries_each_visitors_own_csrf_token(app: FastAPI) -> None:
    tokens = []
    for _ in range(2):
        with TestClient(app) as visitor:
            soup = page(visitor, f"/cards/{OWNER_CARD}")
            token = soup.select_one('meta[name="csrf-token"]')["content"]
            assert token == visitor.cookies[CSRF_COOKIE]
            assert soup.select_one(".answer-form input[name=csrf_token]")["value"] == token
            tokens.append(token)
    assert tokens[0] != tokens[1]
