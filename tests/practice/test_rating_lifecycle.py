"""An answer not yet rated stays rateable after a reload; a rating says when the card comes back
and what is next; Undo takes the latest rating back as if it had never been given."""

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.practice import scheduling
from app.practice.models import ReviewState
from app.storage.base import utcnow
from app.team.models import Assignment
from tests.factories import DECK, OWNER_CARD
from tests.helpers.accounts import user_id
from tests.helpers.html import HTMX, soup_of
from tests.helpers.practice import add, logs, post_attempt, state

CARD = DECK[OWNER_CARD]
ANSWER = "It overlaps input with compute."


def history(client: TestClient, query: str = "") -> BeautifulSoup:
    return soup_of(client.get(f"/cards/{OWNER_CARD}/history{query}", headers=HTMX))


def waiting_line(client: TestClient) -> str:
    """What the history fragment puts in the line at the top of the card page."""
    line = history(client).select_one("#unrated-waiting")
    assert line is not None
    return line.get_text(strip=True)


def submit(client: TestClient, **extra: Any) -> int:
    data = {"tier": "middle", "kind": "solid", "text": ANSWER, "seconds": "12.5", **extra}
    soup = soup_of(client.post(f"/cards/{OWNER_CARD}/answers", headers=HTMX, data=data))
    form = soup.select_one("form.assessment")
    assert form is not None
    return int(str(form["id"]).removeprefix("assessment-"))


def fields(form: Any) -> dict[str, str]:
    return {i["name"]: i.get("value", "") for i in form.select("input[type=hidden]")}


def test_an_answer_left_unrated_comes_back_with_the_model_answer_and_the_rating_form(
    client: TestClient,
) -> None:
    attempt_id = submit(client)
    soup = history(client)  # what a reload of the card page loads
    pending = soup.select_one("#history .unrated")
    assert pending is not None
    assert ANSWER in pending.select_one(".your-answer").get_text()
    assert pending.select_one(".model-answer") is not None
    assert pending.select_one(".suggestions") is not None
    form = pending.select_one(f"form#assessment-{attempt_id}")
    assert [b["value"] for b in form.select(".rating button")] == ["again", "hard", "good", "easy"]
    assert len(form.select("input[name=points]")) == len(CARD.points)
    response = client.post(
        f"/attempts/{attempt_id}/assessment",
        headers=HTMX,
        data=fields(form) | {"rating": "good", "points": ["0"]},
    )
    saved = soup_of(response)
    assert "rated good" in saved.select_one(".saved").get_text()
    assert client.get("/api/attempts").json()[0]["rating"] == "good"
    assert history(client).select_one("#history .unrated form") is None


def test_the_history_names_at_the_top_of_the_page_the_answer_waiting_to_be_rated(client: TestClient) -> None:
    assert waiting_line(client) == ""
    attempt_id = submit(client)
    soup = history(client)  # what a reload of the card page loads
    waiting = soup.select_one('#unrated-waiting[hx-swap-oob="true"]')
    assert (
        waiting is not None and waiting.find_parent(id="history") is None
    )  # swapped in where the page has it
    assert " ".join(waiting.get_text().split()) == "You have an answer waiting to be rated: rate it"
    link = waiting.select_one("a")
    assert link["href"] == f"#unrated-{attempt_id}" and soup.select_one(f"#history #unrated-{attempt_id}")
    rated = client.post(f"/attempts/{attempt_id}/assessment", headers=HTMX, data={"rating": "good"})
    assert rated.status_code == 200
    assert waiting_line(client) == ""


def test_the_card_page_everyone_shares_has_only_the_empty_place_for_the_waiting_answer(
    signed_in: Callable[[str], TestClient],
) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    submit(alice)
    for person in (alice, bob, alice):  # the later ones are served from the page cache
        page = soup_of(person.get(f"/cards/{OWNER_CARD}?tier=middle"))
        (place,) = page.select("#unrated-waiting")
        assert place.get_text(strip=True) == "" and place.find_next("form", class_="answer-form") is not None


def test_history_links_each_unrated_answer_to_where_it_can_be_rated(client: TestClient) -> None:
    older = submit(client)
    newer = submit(client, kind="basics")
    soup = history(client)
    links = soup.select("#history tr.attempt a.rate-link")
    assert {str(a["hx-get"]) for a in links} == {
        f"/cards/{OWNER_CARD}/history?rate={i}" for i in (older, newer)
    }
    # Only the newest comes back by itself; the older one comes back from its link.
    assert soup.select(f"#history form#assessment-{older}") == []
    assert history(client, f"?rate={older}").select_one(f"#history form#assessment-{older}") is not None


def test_an_unrated_follow_up_answer_comes_back_rateable(client: TestClient) -> None:
    attempt_id = submit(client, kind="follow-up", follow_up="0")
    pending = history(client).select_one("#history .unrated")
    assert pending.select_one(f"form#assessment-{attempt_id} .rating button") is not None
    assert ANSWER in pending.get_text()


def test_a_practice_reveal_left_unrated_comes_back_after_a_reload(client: TestClient) -> None:
    data = {"card_id": OWNER_CARD, "tier": "middle", "seconds": "18", "text": ANSWER}
    client.post("/practice/reveal", headers=HTMX, data=data)
    soup = soup_of(client.get("/practice"))
    form = soup.select_one("#practice-card form.practice-rate")
    assert form is not None and fields(form)["card_id"] == OWNER_CARD and fields(form)["attempt_id"]
    assert ANSWER in soup.select_one("#practice-card .your-answer").get_text()
    client.post("/practice/rate", headers=HTMX, data=fields(form) | {"rating": "good"})
    assert client.get("/api/attempts").json()[0]["rating"] == "good"


def test_after_rating_the_card_page_says_when_it_comes_back_and_offers_the_next_card(
    app: FastAPI, client: TestClient
) -> None:
    attempt_id = submit(client)
    soup = soup_of(client.post(f"/attempts/{attempt_id}/assessment", headers=HTMX, data={"rating": "good"}))
    row = state(app)
    assert row is not None
    nxt = soup.select_one(".next-review").get_text(" ", strip=True)
    assert nxt.startswith("Next review in") and f"{row.due:%a} {row.due.day} {row.due:%b}" in nxt
    offered = soup.select_one(".next-card a")
    assert offered["href"].startswith("/cards/") and OWNER_CARD not in offered["href"]


def test_after_rating_the_card_page_offers_the_assigned_card_practice_would_serve_next(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    alice = signed_in("alice")
    last = next(c for c in reversed(scheduling.introduction_order(DECK.values())) if c != OWNER_CARD)
    due = utcnow().date() + timedelta(days=2)
    add(team_app, Assignment(user_id=user_id(team_app, "alice"), tier="middle", card_ids=[last], due=due))
    attempt_id = submit(alice)
    soup = soup_of(alice.post(f"/attempts/{attempt_id}/assessment", headers=HTMX, data={"rating": "good"}))
    offered = soup.select_one(".next-card a")
    assert offered is not None and offered["href"] == f"/cards/{last}?tier=middle"
    # It is new to alice, not due: the line says so.
    assert soup.select_one(".next-card").get_text(" ", strip=True).startswith("Next card:")


def test_undo_takes_back_the_rating_and_the_schedule_is_as_if_it_never_happened(
    app: FastAPI, client: TestClient
) -> None:
    first = submit(client)
    client.post(f"/attempts/{first}/assessment", headers=HTMX, data={"rating": "good"})
    before = _memory(state(app))
    second = submit(client)
    soup = soup_of(client.post(f"/attempts/{second}/assessment", headers=HTMX, data={"rating": "easy"}))
    undo = soup.select_one(".saved button.undo")
    assert undo is not None and len(logs(app)) == 2
    response = client.post(undo["hx-post"], headers=HTMX, data={undo["name"]: undo["value"]})
    assert response.status_code == 200
    again = soup_of(response)
    assert again.select_one(f"form#assessment-{second} .rating button") is not None  # rateable again
    assert [log.attempt_id for log in logs(app)] == [first]
    assert _memory(state(app)) == before
    (kept,) = logs(app)
    with app.state.db.read_sessions() as session:
        replayed = ReviewState()
        scheduling.rebuild(
            replayed, sched=scheduling.scheduler(), reviews=[(kept.rating, kept.review_datetime)]
        )
        assert _memory(replayed) == _memory(
            scheduling.get_state(session, user_id=1, card_id=OWNER_CARD, tier="middle")
        )
    assert [a["rating"] for a in client.get("/api/attempts").json()] == [None, "good"]
    exported = client.get("/api/export.json").json()
    assert [log["rating"] for log in exported["review_logs"]] == [int(scheduling.Rating.Good)]
    # The same undo sent again is stale: refused, and nothing changes.
    stale = client.post(undo["hx-post"], headers=HTMX, data={undo["name"]: undo["value"]})
    assert stale.status_code == 409 and [log.attempt_id for log in logs(app)] == [first]
    assert _memory(state(app)) == before


def test_only_the_latest_rating_can_be_undone(app: FastAPI, client: TestClient) -> None:
    first = submit(client)
    client.post(f"/attempts/{first}/assessment", headers=HTMX, data={"rating": "good"})
    (log,) = logs(app)
    second = submit(client)
    client.post(f"/attempts/{second}/assessment", headers=HTMX, data={"rating": "hard"})
    before = _memory(state(app))
    response = client.post(f"/attempts/{first}/undo", headers=HTMX, data={"review": str(log.id)})
    assert response.status_code == 409
    assert len(logs(app)) == 2 and _memory(state(app)) == before
    assert client.post(f"/attempts/{first}/undo", headers=HTMX, data={"review": "x"}).status_code == 422


def test_undo_on_practice_brings_the_card_back_to_rate(app: FastAPI, client: TestClient) -> None:
    data = {"card_id": OWNER_CARD, "tier": "middle", "seconds": "18", "text": ""}
    form = fields(
        soup_of(client.post("/practice/reveal", headers=HTMX, data=data)).select_one(".practice-rate")
    )
    soup = soup_of(client.post("/practice/rate", headers=HTMX, data=form | {"rating": "good"}))
    assert "Next review in" in soup.select_one(".flash").get_text()
    undo = soup.select_one(".flash form.undo")
    assert undo is not None and len(logs(app)) == 1
    soup = soup_of(client.post(undo["action"], headers=HTMX, data=fields(undo)))
    assert logs(app) == [] and state(app) is None
    rate = soup.select_one("#practice-card form.practice-rate")
    assert rate is not None and fields(rate)["card_id"] == OWNER_CARD
    assert client.post(undo["action"], headers=HTMX, data=fields(undo)).status_code == 409


def _memory(row: ReviewState | None) -> tuple[Any, ...] | None:
    """A card's FSRS memory state, to compare two of them."""
    if row is None:
        return None
    return (
        row.state,
        row.step,
        row.stability,
        row.difficulty,
        row.due,
        row.last_review,
        row.reps,
        row.lapses,
    )


def test_progress_links_each_unrated_answer_to_its_card_where_it_can_be_rated(client: TestClient) -> None:
    attempt_id = submit(client)
    soup = soup_of(client.get("/progress"))
    row = soup.select_one(f'tr.attempt[data-attempt-id="{attempt_id}"]')
    link = row.select_one("a.rate-link")
    assert link is not None and link["href"] == f"/cards/{OWNER_CARD}?tier=middle&rate={attempt_id}"
    card_page = soup_of(client.get(str(link["href"])))
    loads = card_page.select_one("#history")["hx-get"]
    assert loads == f"/cards/{OWNER_CARD}/history?rate={attempt_id}"
    assert history(client, f"?rate={attempt_id}").select_one(f"form#assessment-{attempt_id}") is not None
    assert client.get(f"/cards/{OWNER_CARD}?rate=x").status_code == 422


def test_the_api_undoes_the_latest_rating_once(app: FastAPI, client: TestClient) -> None:
    first = post_attempt(client, rating="good")
    before = _memory(state(app))
    second = post_attempt(client, rating="easy")
    url = f"/api/cards/{OWNER_CARD}/reviews/latest"
    assert client.delete(url, params={"attempt_id": first["id"]}).status_code == 409  # not the latest
    response = client.delete(url, params={"attempt_id": second["id"]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["attempt_id"], body["tier"]) == (second["id"], "middle")
    assert body["schedule"]["reps"] == 1 and _memory(state(app)) == before
    assert [log.attempt_id for log in logs(app)] == [first["id"]]
    again = client.delete(url, params={"attempt_id": second["id"]})
    assert again.status_code == 409 and "latest" in again.json()["detail"]
    assert [log.attempt_id for log in logs(app)] == [first["id"]] and _memory(state(app)) == before
    assert client.delete(url, params={"attempt_id": "x"}).status_code == 422


def test_the_api_undo_of_someone_elses_attempt_is_not_found_and_keeps_their_rating(
    signed_in: Callable[[str], TestClient],
) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    theirs = post_attempt(alice, rating="good")
    url = f"/api/cards/{OWNER_CARD}/reviews/latest"
    response = bob.delete(url, params={"attempt_id": theirs["id"]})
    assert response.status_code == 404 and f"no attempt with id {theirs['id']}" in response.json()["detail"]
    assert alice.get("/api/attempts").json()[0]["rating"] == "good"


def test_a_refused_rating_in_the_history_stays_there_and_stores_nothing(client: TestClient) -> None:
    attempt_id = submit(client)
    form = history(client).select_one(f"#history form#assessment-{attempt_id}")
    response = client.post(
        f"/attempts/{attempt_id}/assessment", headers=HTMX, data=fields(form) | {"rating": "meh"}
    )
    assert response.status_code == 422
    refused = soup_of(response, status=422).select_one(f"form#assessment-{attempt_id}")
    assert refused["hx-target"] == "#history" and fields(refused)["place"] == "history"
    assert refused.select_one(".errors") is not None
    assert client.get("/api/attempts").json()[0]["rating"] is None


def test_a_reveal_counts_as_a_miss_and_cannot_be_undone(app: FastAPI, client: TestClient) -> None:
    revealed = post_attempt(client, revealed=True, text=None, rating=None, points=[])
    before = _memory(state(app))
    response = client.delete(f"/api/cards/{OWNER_CARD}/reviews/latest", params={"attempt_id": revealed["id"]})
    assert response.status_code == 409 and "reveal" in response.json()["detail"]
    assert len(logs(app)) == 1 and _memory(state(app)) == before
