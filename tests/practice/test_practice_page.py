"""/practice and its API: the queue, the answer flow, settings validation, the schedule endpoint."""

from datetime import UTC, datetime, timedelta

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.content.tiers import IMPORTANCES
from app.storage.base import utcnow
from tests.factories import DECK, OWNER_CARD
from tests.helpers.html import HTMX, soup_of
from tests.helpers.practice import counts, logs, post_attempt, review, state

PARALLEL = "tf-data-parallel-map-interleave"
CACHE = "tf-data-cache-shuffle-order"
# A new person takes up to this many new cards a day (their settings can change it).
DEFAULT_NEW_PER_DAY = 10


def current_card(soup: BeautifulSoup) -> str | None:
    field = soup.select_one('#practice-card input[name="card_id"]')
    return str(field["value"]) if field else None


def test_a_first_visit_serves_new_cards_must_know_and_most_asked_first(client: TestClient) -> None:
    soup = soup_of(client.get("/practice"))
    assert current_card(soup) == OWNER_CARD
    assert "new card" in soup.select_one(".practice-tags").get_text()
    summary = soup.select_one("#queue-summary").get_text(" ", strip=True)
    new_today = min(DEFAULT_NEW_PER_DAY, len(DECK))
    assert "0 due" in summary and f"{new_today} new left today" in summary and "depth middle" in summary
    new = [DECK[c["card_id"]] for c in client.get("/api/practice/due").json()["new"]]
    assert len(new) == new_today and new[0].id == OWNER_CARD
    # Must-know before good-to-know before nice-to-know; within each, the most often asked first.
    ranks = [(IMPORTANCES.index(card.importance), -card.frequency) for card in new]
    assert ranks == sorted(ranks)
    # The answer flow: a countdown for the middle depth's ~50 s solid answer, and the keys.
    assert soup.select_one("#practice-card [data-timer]")["data-limit"] == "50"
    assert soup.select_one('[data-shortcut="reveal"]') is not None
    assert soup.select_one('script[src="/static/js/practice.js"]') is not None


def test_due_cards_come_first_most_overdue_first(app: FastAPI, client: TestClient) -> None:
    now = utcnow()
    review(app, "good", now - timedelta(days=3), card_id=CACHE)
    review(app, "good", now - timedelta(days=9), card_id=PARALLEL)
    soup = soup_of(client.get("/practice"))
    assert current_card(soup) == PARALLEL
    assert "overdue by 9 d" in soup.select_one(".practice-tags").get_text(" ", strip=True)
    due = client.get("/api/practice/due").json()
    assert [d["card_id"] for d in due["due"]] == [PARALLEL, CACHE]
    assert due["due"][0]["overdue_seconds"] > due["due"][1]["overdue_seconds"] > 0
    assert due["due"][0]["due"].endswith("Z") and due["new"][0]["card_id"] == OWNER_CARD


def test_the_daily_new_card_limit_holds_and_nothing_due_says_when_the_next_card_is(
    app: FastAPI, client: TestClient
) -> None:
    assert (
        client.put(
            "/api/settings", json={"target_tier": "middle", "desired_retention": 0.9, "new_per_day": 1}
        ).status_code
        == 200
    )
    post_attempt(client, rating="easy")  # the one new card allowed today
    soup = soup_of(client.get("/practice"))
    assert current_card(soup) is None
    text = soup.select_one("#practice-card").get_text(" ", strip=True)
    assert "Nothing due right now" in text
    row = state(app)
    assert row is not None
    tomorrow = (utcnow() + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    next_due = min(row.due, tomorrow)
    assert soup.select_one(".next-due time")["datetime"] == next_due.isoformat()
    assert f"at {next_due:%Y-%m-%d %H:%M} UTC" in text
    assert f"{len(DECK) - 1} more wait for tomorrow" in text
    assert client.get("/api/practice/due").json()["next_due"] is not None


def test_reveal_without_typing_then_rate_records_one_review(app: FastAPI, client: TestClient) -> None:
    soup = soup_of(
        client.post(
            "/practice/reveal",
            headers=HTMX,
            data={"card_id": OWNER_CARD, "tier": "middle", "seconds": "31.5", "text": ""},
        )
    )
    assert soup.select_one(".model-answer") is not None
    assert "Revealed without answering" not in soup.get_text()  # practice ratings do count
    buttons = soup.select("button[data-shortcut]")
    assert [b["data-shortcut"] for b in buttons] == ["1", "2", "3", "4"]
    assert [b["value"] for b in buttons] == ["again", "hard", "good", "easy"]
    assert "10 min" in buttons[2].get_text()  # what "good" would schedule a new card for
    form = {i["name"]: i.get("value", "") for i in soup.select(".practice-rate input[type=hidden]")}
    assert "attempt_id" not in form and counts(app)["attempts"] == 0
    soup = soup_of(client.post("/practice/rate", headers=HTMX, data=form | {"rating": "good"}))
    assert "Rated good" in soup.select_one(".flash").get_text() and current_card(soup) == PARALLEL
    assert soup.select_one('#queue-summary[hx-swap-oob="true"]') is not None
    (log,) = logs(app)
    assert (log.rating, log.review_duration_ms, log.attempt_id, log.tier) == (3, 31_500, None, "middle")
    # The same form sent again (a double click, a reload) counts once.
    soup = soup_of(client.post("/practice/rate", headers=HTMX, data=form | {"rating": "good"}))
    assert "already rated" in soup.select_one(".flash").get_text() and len(logs(app)) == 1


def test_a_typed_answer_is_recorded_and_rated_with_its_points(app: FastAPI, client: TestClient) -> None:
    client.put("/api/settings", json={"target_tier": "junior", "desired_retention": 0.9, "new_per_day": 10})
    soup = soup_of(client.get("/practice"))
    assert soup.select_one("#practice-card [data-timer]")["data-limit"] == "20"  # junior: basics
    soup = soup_of(
        client.post(
            "/practice/reveal",
            headers=HTMX,
            data={
                "card_id": OWNER_CARD,
                "tier": "junior",
                "seconds": "18",
                "text": "It overlaps input and compute.",
            },
        )
    )
    assert soup.select_one(".your-answer").get_text() == "It overlaps input and compute."
    form = {i["name"]: i.get("value", "") for i in soup.select(".practice-rate input[type=hidden]")}
    assert form["attempt_id"]
    assert len(soup.select(".practice-rate .checklist input[name=points]")) == 5
    client.post("/practice/rate", headers=HTMX, data=form | {"rating": "hard", "points": ["0", "1"]})
    (attempt,) = client.get("/api/attempts").json()
    assert (attempt["kind"], attempt["tier"], attempt["rating"], attempt["points"]) == (
        "basics",
        "junior",
        "hard",
        [0, 1],
    )
    (log,) = logs(app)
    assert (log.attempt_id, log.rating, log.tier) == (attempt["id"], 2, "junior")


def test_a_too_long_typed_answer_is_refused_and_nothing_is_stored(app: FastAPI, client: TestClient) -> None:
    soup = soup_of(
        client.post(
            "/practice/reveal",
            headers=HTMX,
            data={"card_id": OWNER_CARD, "tier": "middle", "seconds": "3", "text": "x" * 20_001},
        ),
        status=422,
    )
    assert soup.select_one(".errors") is not None and soup.select_one("textarea").get_text() == "x" * 20_001
    assert counts(app) == {"attempts": 0, "review_logs": 0, "review_states": 0}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("target_tier", "expert", "Target depth must be junior, middle, senior or principal."),
        ("desired_retention", "1.5", "Desired retention must be at most 0.99."),
        ("desired_retention", "0.5", "Desired retention must be at least 0.7."),
        ("desired_retention", "ninety", "Desired retention must be a number."),
        ("new_per_day", "-1", "New cards per day must be at least 0."),
        ("new_per_day", "101", "New cards per day must be at most 100."),
        ("new_per_day", "2.5", "New cards per day must be a whole number."),
        ("new_per_day", "", "New cards per day must be a whole number."),
    ],
)
def test_bad_settings_get_422_and_a_message_and_nothing_is_saved(
    client: TestClient, field: str, value: str, message: str
) -> None:
    good = {"target_tier": "senior", "desired_retention": "0.85", "new_per_day": "5"}
    soup = soup_of(client.post("/practice/settings", headers=HTMX, data=good | {field: value}), status=422)
    # One sentence naming the field as the form labels it; what was typed stays in the form.
    assert [li.get_text() for li in soup.select(".errors li")] == [message]
    assert "Nothing was saved" in soup.get_text()
    kept = {field.get("name"): field.get("value") for field in soup.select("input[name]")}
    assert field == "target_tier" or kept[field] == value
    assert client.get("/api/settings").json() == {
        "target_tier": "middle",
        "desired_retention": 0.9,
        "new_per_day": 10,
    }


def test_saved_settings_change_the_depth_and_refresh_the_card(client: TestClient) -> None:
    data = {"target_tier": "principal", "desired_retention": "0.95", "new_per_day": "3"}
    soup = soup_of(client.post("/practice/settings", headers=HTMX, data=data))
    assert soup.select_one(".saved") is not None
    assert soup.select_one('#practice-card[hx-swap-oob="true"]') is not None
    assert client.get("/api/settings").json() == {
        "target_tier": "principal",
        "desired_retention": 0.95,
        "new_per_day": 3,
    }
    page = soup_of(client.get("/practice"))
    assert "principal" in page.select_one("#queue-summary").get_text()
    assert page.select_one("#target-tier option[selected]")["value"] == "principal"
    # Without htmx the same form gives back the whole page.
    full = client.post("/practice/settings", data=data)
    assert full.status_code == 200 and "<html" in full.text


def test_settings_and_ratings_need_the_csrf_token(anonymous_client: TestClient) -> None:
    anonymous_client.get("/practice")
    data = {"target_tier": "senior", "desired_retention": "0.9", "new_per_day": "5"}
    assert anonymous_client.post("/practice/settings", data=data).status_code == 403
    assert anonymous_client.post("/practice/rate", data={"card_id": OWNER_CARD}).status_code == 403
    assert anonymous_client.put("/api/settings", json={"target_tier": "junior"}).status_code == 403


def test_the_settings_api_validates_too(client: TestClient) -> None:
    response = client.put("/api/settings", json={"target_tier": "junior", "desired_retention": 2})
    assert response.status_code == 422
    assert client.get("/api/settings").json()["target_tier"] == "middle"


def test_rating_an_unknown_rating_or_card_is_refused(app: FastAPI, client: TestClient) -> None:
    data = {"card_id": OWNER_CARD, "tier": "middle", "seconds": "3", "token": "", "rating": "perfect"}
    soup = soup_of(client.post("/practice/rate", headers=HTMX, data=data), status=422)
    assert soup.select_one(".errors").get_text(strip=True) == (
        "Choose how well you recalled it: again, hard, good or easy."
    )
    assert client.post("/practice/rate", headers=HTMX, data=data | {"card_id": "nope"}).status_code == 404
    assert (
        client.post(
            "/practice/rate", headers=HTMX, data=data | {"rating": "good", "seconds": "-4"}
        ).status_code
        == 422
    )
    assert counts(app)["review_logs"] == 0


def test_the_schedule_endpoint(app: FastAPI, client: TestClient) -> None:
    assert client.get("/api/cards/no-such-card/schedule").status_code == 404
    assert client.get(f"/api/cards/{OWNER_CARD}/schedule?tier=expert").status_code == 422
    new = client.get(f"/api/cards/{OWNER_CARD}/schedule").json()
    assert (new["state"], new["due"], new["retrievability"], new["tier"]) == ("new", None, None, "middle")
    reviewed_at = datetime.now(UTC) - timedelta(days=2)
    review(app, "easy", reviewed_at, tier="senior")
    body = client.get(f"/api/cards/{OWNER_CARD}/schedule?tier=senior").json()
    assert body["state"] == "review" and body["tier"] == "senior" and body["retired"] is False
    due = datetime.fromisoformat(body["due"])
    assert body["due"].endswith("Z") and due.utcoffset() == timedelta(0)
    assert 0 < body["retrievability"] < 1 and body["stability"] > 1
    assert body["tiers"]["senior"]["due"] == body["due"] and body["tiers"]["junior"]["state"] == "new"


def test_practice_pages_use_no_inline_scripts_or_styles(client: TestClient) -> None:
    for response in (
        client.get("/practice"),
        client.post(
            "/practice/reveal", headers=HTMX, data={"card_id": OWNER_CARD, "tier": "middle", "seconds": "1"}
        ),
    ):
        soup = soup_of(response)
        assert not soup.select("[style]")
        assert all(script.get("src") for script in soup.select("script"))
