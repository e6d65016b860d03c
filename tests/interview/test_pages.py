"""/interview as a person goes through it: the set-up, each question asked alone, the answer
against its card's clock, the model answer and the self-assessment, a follow-up, a reload that
comes back to the same step, the summary, the list of sessions; and every refusal storing nothing."""

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app import PROJECT_ROOT
from app.content.cards import Point
from app.coverage.checker import check
from app.interview.models import InterviewQuestion, InterviewSession
from app.practice.models import Attempt, ReviewLog
from app.storage.base import utcnow
from tests.factories import DECK, OWNER_CARD, write_card
from tests.helpers.html import HTMX, one, soup_of, text_of
from tests.helpers.interview import MISSES_THE_FIFTH, answer, position, rate, start, step
from tests.helpers.practice import review, state
from tests.helpers.speech import audio_file, finish, recording_form

# Cards whose follow-ups name no point: after an answer that misses one, the point itself is asked.
THREE = [card.id for card in DECK.values() if card.follow_ups and not any(f.points for f in card.follow_ups)][
    :3
]


def missed(card_id: str, text: str) -> Point:
    """The first of the card's points the checker does not find in `text`."""
    found = check(DECK[card_id], text).points
    return next(point for point, hit in zip(DECK[card_id].points, found, strict=True) if not hit.covered)


def asked_about(point: Point) -> str:
    return f"Your answer did not get to this: “{point.plain}”. Can you explain it?"


def heading(soup: BeautifulSoup) -> str:
    return one(soup, "#interview-step h2").get_text().strip()


def stored(app: FastAPI, model: type) -> int:
    with app.state.db.read_sessions() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def test_the_set_up_page_offers_each_way_of_choosing_and_is_in_the_navigation(client: TestClient) -> None:
    soup = step(client, "/interview")
    assert one(soup, 'nav[aria-label="Site"] a[href="/interview"]')["aria-current"] == "page"
    sources = {str(box["value"]) for box in soup.select('input[name="source"]')}
    assert sources == {"random", "topic", "due", "assigned"}
    assert one(soup, 'input[name="count"]')["value"] == "3"
    assert {str(o["value"]) for o in soup.select('select[name="tier"] option')} == {
        "junior",
        "middle",
        "senior",
        "principal",
    }
    assert "tf.data" in [o.get_text() for o in soup.select('select[name="topic"] option')]
    assert "None finished yet" in text_of(soup, "main")


def test_a_three_card_interview_asks_each_card_then_its_follow_up_and_sums_up(
    app: FastAPI, client: TestClient
) -> None:
    url = start(client, source="cards", card=THREE, tier="middle")
    for number, card_id in enumerate(THREE, start=1):
        card = DECK[card_id]
        # The question alone: no model answer, no follow-ups, no quiz; the card's clock.
        soup = step(client, url)
        panel = one(soup, "#interview-step")
        assert heading(panel) == card.title.plain
        assert f"Card {number} of 3" in text_of(panel, ".interview-progress")
        assert panel.select(".model-answer, .follow-ups, #quiz, .assessment") == []
        # What the depth expects names the points, so it waits folded until asked for.
        expectation = one(panel, "details.interview-expect")
        assert not expectation.has_attr("open") and "expected" in text_of(expectation, "summary")
        assert one(panel, "[data-timer]")["data-limit"] == str(card.timings.solid)
        # The answer: the model answer, the checker's suggestion, the points to tick and the rating.
        said = f"My answer to {card_id}: {card.points[0].plain}"
        shown = answer(client, url, said, headers=HTMX)
        assert one(shown, "#interview-step .model-answer") is not None
        assert one(shown, ".suggestions") is not None
        assert len(shown.select('.checklist input[name="points"]')) == len(card.points)
        assert [b["data-shortcut"] for b in shown.select("button.rate")] == ["1", "2", "3", "4"]
        rated = rate(client, url, "good" if number != 2 else "hard", points=[card.points[0].key])
        # Then one follow-up, chosen only now: the first point the answer missed, asked about.
        assert heading(rated) == asked_about(missed(card_id, said))
        assert "follow-up" in text_of(rated, ".interview-progress")
        assert one(rated, "[data-timer]")["data-limit"] == str(card.timings.solid)
        answer(client, url, "A follow-up answer.")
        rate(client, url, "easy")
    summary = step(client, url)
    assert heading(summary) == "Summary"
    items = summary.select(".interview-summary > li")
    assert [item["data-card-id"] for item in items] == THREE
    for item, card_id in zip(items, THREE, strict=True):
        card = DECK[card_id]
        assert text_of(item, ".answered-points") == f"1 of {len(card.points)} ticked"
        assert text_of(item, ".answered-time") == f"12 s of ~{card.timings.solid} s"
        assert len(item.select(".interview-follow-up")) == 1
        assert text_of(item, ".interview-follow-up .answered-rating") == "easy"
        point = missed(card_id, f"My answer to {card_id}: {card.points[0].plain}")
        number = card.points.index(point) + 1
        assert text_of(item, ".interview-follow-up .answered-why") == (
            f"Asked because of the answer before it: missed point {number}: {point.plain}"
        )
    # The weakest card (rated hard) is the first to practise again.
    weakest = summary.select(".interview-weakest a")
    assert weakest[0]["href"] == f"/cards/{THREE[1]}?tier=middle"
    # Every answer is an ordinary attempt: in history, rated, and on the schedule.
    mine = client.get("/api/attempts").json()
    # A point asked again is answered as the card's own question, against its points.
    assert sorted(a["kind"] for a in mine) == ["solid"] * 6
    assert all(a["rating"] for a in mine)
    assert all(state(app, card_id=card_id) is not None for card_id in THREE)
    # Listed among the past interviews, linking to its summary.
    listed = step(client, "/interview")
    assert [a["href"] for a in listed.select('section[aria-labelledby="past-heading"] a')] == [url]
    assert listed.select('section[aria-labelledby="resume-heading"]') == []


def test_a_reload_at_any_step_comes_back_to_that_step(client: TestClient) -> None:
    url = start(client, source="cards", card=[OWNER_CARD], tier="senior")
    assert step(client, url).select_one("#interview-step textarea") is not None
    answer(client, url, "prefetch-answer-kept")
    # Answered, not rated: the reload shows the answer, rateable.
    again = step(client, url)
    assert "prefetch-answer-kept" in text_of(again, "#interview-step .your-answer")
    assert len(again.select("#interview-step button.rate")) == 4
    rate(client, url, "good")
    follow_up = step(client, url)
    assert heading(follow_up) == asked_about(DECK[OWNER_CARD].points[0])
    # Unfinished, it is offered to resume.
    listed = step(client, "/interview")
    assert [a["href"] for a in listed.select('section[aria-labelledby="resume-heading"] a')] == [url]


def test_a_junior_interview_asks_for_the_basics_and_no_follow_up(client: TestClient) -> None:
    card = DECK[OWNER_CARD]
    url = start(client, source="cards", card=[OWNER_CARD], tier="junior")
    assert one(step(client, url), "[data-timer]")["data-limit"] == str(card.timings.basics)
    answer(client, url, "An answer.")
    assert heading(rate(client, url, "again")) == "Summary"
    assert [a["kind"] for a in client.get("/api/attempts").json()] == ["basics"]


def test_cards_are_drawn_by_topic_at_random_by_what_is_due_and_by_what_is_assigned(
    app: FastAPI, client: TestClient
) -> None:
    def asked(url: str) -> list[str]:
        with app.state.db.read_sessions() as session:
            interview = session.get(InterviewSession, int(url.rsplit("/", 1)[1]))
            assert interview is not None
            return [q.card_id for q in interview.questions if q.follow_up is None]

    topic = asked(start(client, source="topic", topic="profiling", count="10", tier="senior"))
    assert topic and all("profiling" in DECK[c].topics for c in topic)
    # A draw keeps to the depth: a middle session draws no senior card.
    drawn = asked(start(client, source="random", count="10", tier="middle"))
    assert len(set(drawn)) == 10 and {DECK[c].level for c in drawn} == {"middle"}
    # The deck has no junior card: a junior draw takes its lowest level, served at the junior depth.
    assert {DECK[c].level for c in asked(start(client, source="random", count="5", tier="junior"))} == {
        "middle"
    }
    review(app, "good", utcnow() - timedelta(days=30), card_id=THREE[2])
    assert asked(start(client, source="due", tier="middle")) == [THREE[2]]
    app.state.assigned_cards = lambda **_: [THREE[1], "no-such-card", THREE[0]]
    assert asked(start(client, source="assigned", count="1")) == [THREE[1]]
    # Named cards: each once, in the order named.
    assert asked(start(client, source="cards", card=[THREE[0], THREE[1], THREE[0]])) == THREE[:2]


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"source": "topic", "topic": "no-such-topic"}, "no cards under the topic"),
        ({"source": "topic"}, "Choose a topic for an interview on a topic."),
        ({"source": "topic", "topic": "profiling", "tier": "middle"}, "all above the middle depth"),
        ({"source": "random", "tier": "expert"}, "Depth"),
        ({"source": "random", "count": "0"}, "How many"),
        ({"source": "random", "count": "11"}, "How many"),
        ({"source": "random", "count": "lots"}, "How many"),
        ({"source": "everything"}, "Cards"),
        ({"source": "due"}, "nothing is due"),
        ({"source": "assigned"}, "nothing is assigned"),
        ({"source": "cards", "card": ["no-such-card"]}, "no card with id"),
        ({"source": "cards", "card": THREE + [c for c in DECK if c not in THREE][:8]}, "1 to 10"),
        ({"source": "random", "card": [OWNER_CARD]}, "named cards"),
        ({"source": "cards", "card": ["x" * 121]}, "Cards"),
        ({}, "Cards"),
    ],
)
def test_a_refused_set_up_says_why_and_stores_nothing(
    app: FastAPI, client: TestClient, fields: dict[str, Any], says: str
) -> None:
    response = client.post("/interview", data=fields, follow_redirects=False)
    assert response.status_code == 422
    errors = text_of(soup_of(response, 422), ".errors")
    assert says.lower() in errors.lower()
    assert stored(app, InterviewSession) == 0 and stored(app, InterviewQuestion) == 0


def test_a_refused_answer_or_rating_keeps_the_step_and_stores_nothing(
    app: FastAPI, client: TestClient
) -> None:
    url = start(client, source="cards", card=[OWNER_CARD])
    at = position(step(client, url))
    for data in (
        {"position": at, "text": "   ", "seconds": "3"},
        {"position": at, "text": "typed-and-kept", "seconds": "-1"},
        {"position": at, "text": "typed-and-kept", "seconds": "3", "recording_id": "not-a-recording"},
        {"position": "x", "text": "an answer"},
        {"position": "99999999999999999999", "text": "an answer"},
    ):
        response = client.post(f"{url}/answer", data=data)
        assert response.status_code == 422, data
    kept = soup_of(
        client.post(f"{url}/answer", data={"position": at, "text": "typed-and-kept", "seconds": "-1"}), 422
    )
    assert one(kept, "#interview-step textarea").get_text() == "typed-and-kept"
    assert stored(app, Attempt) == 0
    answer(client, url, "An answer.")
    for data in (
        {"position": at, "rating": "superb"},
        {"position": at},
        {"position": at, "rating": "good", "points": "zz"},
    ):
        assert client.post(f"{url}/assessment", data=data).status_code == 422, data
    again = step(client, url)
    assert len(again.select("#interview-step button.rate")) == 4
    with app.state.db.read_sessions() as session:
        assert session.scalars(select(Attempt.rating)).all() == [None]


def test_a_form_sent_twice_or_from_an_old_tab_is_refused_and_answers_once(
    app: FastAPI, client: TestClient
) -> None:
    url = start(client, source="cards", card=[OWNER_CARD])
    at = position(step(client, url))
    assert client.post(f"{url}/answer", data={"position": at, "text": "first"}).status_code == 200
    for sent in ({"position": at, "text": "second"}, {"position": "1", "rating": "good"}):
        # htmx swaps a 422: the person sees why, and the step the interview is at now.
        kind = "answer" if "text" in sent else "assessment"
        stale = soup_of(client.post(f"{url}/{kind}", data=sent, headers=HTMX), 422)
        assert "reload the page" in text_of(stale, "#interview-step .errors")
        assert len(stale.select("#interview-step button.rate")) == 4
    assert [a["text"] for a in client.get("/api/attempts").json()] == ["first"]


def test_a_session_belongs_to_its_person(team_app: FastAPI, signed_in: Callable[[str], TestClient]) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    url = start(alice, source="cards", card=[OWNER_CARD])
    at = position(step(alice, url))
    assert bob.get(url).status_code == 404
    assert bob.post(f"{url}/answer", data={"position": at, "text": "bob-was-here"}).status_code == 404
    answer(alice, url, "alice-answer")
    assert bob.post(f"{url}/assessment", data={"position": at, "rating": "easy"}).status_code == 404
    assert bob.get("/api/attempts").json() == []
    assert [a["rating"] for a in alice.get("/api/attempts").json()] == [None]
    assert step(bob, "/interview").select(".interview-list a") == []


def test_an_answer_given_aloud_is_saved_from_its_recording(app: FastAPI, client: TestClient) -> None:
    url = start(client, source="cards", card=[OWNER_CARD], tier="middle")
    question = step(client, url)
    recorder = one(question, "#interview-step [data-recorder]")
    assert (recorder["data-action"], recorder["data-kind"]) == (f"/cards/{OWNER_CARD}/recordings", "solid")
    sent = client.post(
        f"/api/cards/{OWNER_CARD}/recordings", files=audio_file(), data=recording_form(tier="middle")
    )
    assert sent.status_code == 202, sent.text
    recording = finish(app, sent.json()["id"])
    data = {
        "position": position(question),
        "text": "The transcript, corrected.",
        "recording_id": recording.id,
    }
    assessing = soup_of(client.post(f"{url}/answer", data=data))
    assert "The transcript, corrected." in text_of(assessing, "#interview-step .your-answer")
    (attempt,) = client.get("/api/attempts").json()
    assert attempt["recording_id"] == recording.id and attempt["seconds"] == recording.duration_s
    # How it was said stays beside the answer while it is rated.
    pace = text_of(assessing, "#interview-step .delivery .delivery-pace")
    assert f"{round((recording.delivery or {})['words_per_minute'])} words a minute" in pace
    # The follow-up's recorder records what it asks: a missed point asked again is the card's own
    # question, read against its points.
    rate(client, url, "good")
    follow_up = one(step(client, url), "#interview-step [data-recorder]")
    assert follow_up["data-kind"] == "solid" and not follow_up.has_attr("data-follow-up")


def test_the_follow_up_that_probes_the_missed_point_is_asked_against_its_own_target(
    client: TestClient,
) -> None:
    card = DECK[OWNER_CARD]
    url = start(client, source="cards", card=[OWNER_CARD], tier="middle")
    answer(client, url, MISSES_THE_FIFTH)
    rate(client, url, "good")
    asked = step(client, url)
    assert heading(asked) == card.follow_ups[0].title.plain
    recorder = one(asked, "#interview-step [data-recorder]")
    assert (recorder["data-kind"], recorder["data-follow-up"]) == ("follow-up", "0")
    # Its target: its model answer said at an interview's pace, in whole tens of seconds.
    words = len(card.follow_ups[0].body.plain.split())
    clock = one(asked, "#interview-step [data-timer]")
    assert clock["aria-label"] == "time left" and int(clock["data-limit"]) == max(20, -(-words // 25) * 10)
    assessing = answer(client, url, "The follow-up answer.", seconds="7")
    assert "7 s" in text_of(assessing, "#interview-step .took")
    rate(client, url, "good")
    summary = step(client, url)
    assert text_of(summary, ".interview-follow-up .answered-why").endswith(
        f"missed point 5: {card.points[4].plain}"
    )


def listed(client: TestClient) -> dict[str, list[str]]:
    """The hrefs /interview lists under Resume and under Past interviews."""
    soup = step(client, "/interview")
    return {
        name: [str(a["href"]) for a in soup.select(f'section[aria-labelledby="{name}-heading"] li a')]
        for name in ("resume", "past")
    }


def only_attempt(client: TestClient) -> int:
    [attempt] = client.get("/api/attempts").json()
    return int(attempt["id"])


def test_a_last_answer_rated_on_the_card_page_finishes_the_interview(client: TestClient) -> None:
    url = start(client, source="cards", card=[OWNER_CARD], tier="junior")
    answer(client, url, "An answer.")
    rated = client.post(f"/attempts/{only_attempt(client)}/assessment", data={"rating": "good"})
    assert rated.status_code == 200
    summary = step(client, url)
    assert heading(summary) == "Summary"
    assert "Finished" in text_of(summary, "#interview-step")
    assert listed(client) == {"resume": [], "past": [url]}


def test_undoing_the_last_rating_makes_the_interview_unfinished_again(
    app: FastAPI, client: TestClient
) -> None:
    url = start(client, source="cards", card=[OWNER_CARD], tier="junior")
    answer(client, url, "An answer.")
    rate(client, url, "good")
    assert listed(client) == {"resume": [], "past": [url]}
    attempt_id = only_attempt(client)
    with app.state.db.read_sessions() as session:
        review_id = session.scalar(select(ReviewLog.id).where(ReviewLog.attempt_id == attempt_id))
    undone = client.post(f"/attempts/{attempt_id}/undo", data={"review": str(review_id)})
    assert undone.status_code == 200
    assert len(step(client, url).select("#interview-step button.rate")) == 4
    assert listed(client) == {"resume": [url], "past": []}
    rate(client, url, "easy")
    assert heading(step(client, url)) == "Summary" and listed(client)["past"] == [url]


def test_a_follow_up_removed_from_its_card_is_skipped(client: TestClient, content_folder: Path) -> None:
    text = (PROJECT_ROOT / "content" / f"{OWNER_CARD}.md").read_text(encoding="utf-8")
    write_card(content_folder, f"{OWNER_CARD}.md", text)
    whole = start(client, source="cards", card=[OWNER_CARD], tier="middle")
    answer(client, whole, "An answer.")
    rate(client, whole, "good")
    answer(client, whole, "A follow-up answer.")
    rate(client, whole, "good")
    halfway = start(client, source="cards", card=[OWNER_CARD], tier="middle")
    answer(client, halfway, "An answer.")
    rate(client, halfway, "hard")
    assert "follow-up" in text_of(step(client, halfway), ".interview-progress")
    # The card as edited: its follow-ups are gone.
    head, _, rest = text.partition("## Follow-ups")
    write_card(content_folder, f"{OWNER_CARD}.md", head + "## Pitfalls" + rest.partition("## Pitfalls")[2])
    for url in (whole, halfway):
        summary = step(client, url)
        assert heading(summary) == "Summary", url
        assert one(summary, f'li.interview-card[data-card-id="{OWNER_CARD}"]') is not None
    assert listed(client)["past"] == [halfway, whole]


def test_the_set_up_form_names_each_way_of_choosing_as_a_person_reads_it(client: TestClient) -> None:
    soup = step(client, "/interview")
    labels = {str(box["value"]): box.parent.get_text().strip() for box in soup.select('input[name="source"]')}
    assert labels["assigned"] == "Cards assigned to me to review"
    assert one(soup, 'select[name="topic"] option[value=""]').get_text() == "Choose a topic"


def test_skip_and_i_dont_know_are_kept_as_said_and_move_on_to_the_next_card(
    app: FastAPI, client: TestClient
) -> None:
    url = start(client, source="cards", card=THREE[:2], tier="middle")
    question = step(client, url)
    buttons = {
        str(b["value"]): b.get_text().strip()
        for b in question.select('#interview-step button[name="outcome"]')
    }
    assert buttons == {"skipped": "Skip", "dont-know": "I don't know"}
    skipped = soup_of(client.post(f"{url}/pass", data={"position": position(question), "outcome": "skipped"}))
    assert heading(skipped) == DECK[THREE[1]].title.plain
    data = {"position": position(skipped), "outcome": "dont-know", "seconds": "4"}
    summary = soup_of(client.post(f"{url}/pass", data=data, headers=HTMX))
    assert heading(summary) == "Summary"
    assert [text_of(li, ".answered-outcome") for li in summary.select(".interview-card")] == [
        "Skipped.",
        "Said “I don't know”.",
    ]
    # A skip leaves the card's schedule alone; "I don't know" counts as a miss.
    (attempt,) = client.get("/api/attempts").json()
    assert (attempt["card_id"], attempt["revealed"]) == (THREE[1], True)


@pytest.mark.parametrize(
    "fields", [{"outcome": "maybe"}, {"outcome": ""}, {"outcome": "skipped", "position": "9"}]
)
def test_a_refused_pass_says_why_and_stores_nothing(
    app: FastAPI, client: TestClient, fields: dict[str, str]
) -> None:
    url = start(client, source="cards", card=THREE[:1], tier="middle")
    response = client.post(f"{url}/pass", data={"position": position(step(client, url))} | fields)
    assert response.status_code == 422
    assert text_of(soup_of(response, 422), "#interview-step .errors")
    with app.state.db.read_sessions() as session:
        assert session.scalar(select(func.count()).where(InterviewQuestion.outcome.is_not(None))) == 0
    assert stored(app, Attempt) == 0
