"""/progress and /api/progress: recall, lapses, heatmap and streak, missed pitfalls, history, retired cards."""

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event

from app.practice import stats
from app.storage.base import utcnow
from tests.factories import DECK, OWNER_CARD, card_text, make_attempt, write_card
from tests.helpers.html import HTMX
from tests.helpers.practice import T0, add, post_attempt, quiz_ids, review

SAMPLE = "sample-card"


def page(client: TestClient, url: str = "/progress", **kwargs: object) -> BeautifulSoup:
    response = client.get(url, **kwargs)  # type: ignore[arg-type]
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "html.parser")


@pytest.fixture
def content(content_folder: Path) -> Path:
    """A content folder of our own with one card, served instead of content/."""
    write_card(content_folder, "sample-card.md", card_text(SAMPLE, "A sample question?"))
    return content_folder


def test_an_empty_dashboard_renders_every_section(client: TestClient) -> None:
    soup = page(client)
    headings = [h.get_text(" ", strip=True) for h in soup.select("h2")]
    for expected in (
        "Activity",
        "By topic",
        "By card",
        "Pitfalls most often missed",
        "Answer history",
        "Export and import",
    ):
        assert any(h.startswith(expected) for h in headings), expected
    today = utcnow().date()
    days = soup.select(".heatmap g.day")
    assert days[-1]["data-date"] == today.isoformat()
    assert len(days) == 25 * 7 + today.weekday() + 1  # 26 weeks, Monday first, ending today
    assert {row["data-card-id"] for row in soup.select("tr.card-progress")} == set(DECK)
    assert all(
        row.select_one(".state").get_text() == "not started" for row in soup.select("tr.card-progress")
    )


def test_recall_stability_and_lapses_per_card_and_topic(app: FastAPI, client: TestClient) -> None:
    now = utcnow()
    review(app, "easy", now - timedelta(days=40))
    review(app, "good", now - timedelta(days=30))
    review(app, "again", now - timedelta(days=1))  # forgotten once learnt: a lapse
    review(app, "good", now - timedelta(hours=23))
    body = client.get("/api/progress").json()
    (card,) = [c for c in body["cards"] if c["card_id"] == OWNER_CARD and c["tier"] == "middle"]
    assert card["lapses"] == 1 and card["reps"] == 4 and card["state"] in ("relearning", "review")
    assert 0 < card["retrievability"] <= 1 and card["stability"] > 0
    topics = {t["topic"]: t for t in body["topics"]}
    assert topics["performance"]["lapses"] == 1 and topics["performance"]["cards"] == 1
    assert body["summary"]["reviews"] == 4

    soup = page(client)
    row = soup.select_one(f'tr.card-progress[data-card-id="{OWNER_CARD}"][data-tier="middle"]')
    cells = [td.get_text(" ", strip=True) for td in row.select("td")]
    assert cells[0] == f"middle {card['state']}"
    assert cells[1].startswith(f"{round(card['retrievability'] * 100)} %")
    assert cells[2] == f"{round(card['stability'], 1)} d" and cells[3] == "1"
    assert soup.select_one('tr[data-topic="performance"]') is not None


def test_charts_read_without_colour(app: FastAPI, client: TestClient) -> None:
    now = utcnow()
    review(app, "easy", now - timedelta(days=60))  # long unreviewed: recall below the 90 % target
    add(app, *(make_attempt(created_at=now - timedelta(minutes=i)) for i in range(7)))
    soup = page(client)
    today = soup.select_one(f'.heatmap g.day[data-date="{now.date().isoformat()}"]')
    assert today["data-count"] == "7" and "7 answers or reviews" in today.select_one("title").get_text()
    mark = today.select_one("rect.heat")
    assert int(mark["width"]) > int(soup.select_one(".heatmap rect.heat-1, .legend rect.heat-1")["width"])
    # The review 60 days ago had no typed answer: it counts as activity too.
    assert soup.select_one(".heatmap desc").get_text().startswith("8 answers and reviews on 2 days")
    row = soup.select_one(f'tr.card-progress[data-card-id="{OWNER_CARD}"]')
    assert "below target" in row.get_text() and row.select_one('rect[fill="url(#hatch)"]') is not None
    assert not soup.select("[style]")


def test_streaks_count_consecutive_utc_days() -> None:
    today = date(2026, 3, 10)
    days = [today - timedelta(days=n) for n in (0, 1, 2, 5, 6, 7, 8)]
    assert stats.streaks(days, today) == (3, 4)
    # Nothing yet today: yesterday's run still counts until the day is over.
    assert stats.streaks(days[1:], today) == (2, 4)
    assert stats.streaks(days[3:], today) == (0, 4)
    assert stats.streaks([], today) == (0, 0)


def test_the_streak_on_the_page_comes_from_answers_and_reviews(app: FastAPI, client: TestClient) -> None:
    now = utcnow()
    add(app, make_attempt(created_at=now), make_attempt(created_at=now - timedelta(days=1)))
    review(app, "good", now - timedelta(days=2), card_id="tf-data-cache-shuffle-order")  # no attempt
    assert client.get("/api/progress").json()["summary"]["streak_days"] == 3
    assert "3 days current streak" in page(client).select_one(".summary-tiles").get_text(" ", strip=True)


def test_pitfalls_most_often_missed(client: TestClient) -> None:
    pitfalls, truths = quiz_ids(client)
    for choices in (pitfalls[1:], [*pitfalls[1:], truths[0]], pitfalls):
        post_attempt(client, kind="quiz", text=None, choices=choices, points=[], rating=None)
    missed = client.get("/api/progress").json()["missed_pitfalls"]
    assert (missed[0]["item"], missed[0]["missed"], missed[0]["seen"], missed[0]["kind"]) == (
        pitfalls[0],
        2,
        3,
        "pitfall",
    )
    assert (missed[1]["item"], missed[1]["missed"], missed[1]["kind"]) == (truths[0], 1, "true statement")
    first = page(client).select_one(".missed li")
    assert first["data-item"] == pitfalls[0] and "2 of 3" in first.get_text()
    assert "you did not flag this pitfall" in first.get_text()


def test_answer_history_search(client: TestClient) -> None:
    post_attempt(client, text="The buffer drains when input is slower.")
    post_attempt(client, text="Parallel map adds workers; 100% of the gap.")
    post_attempt(client, "tf-data-cache-shuffle-order", text="cache before shuffle")
    assert len(page(client).select("#answer-history tr.attempt")) == 3
    found = page(client, "/progress?q=BUFFER").select("#answer-history tr.attempt")
    assert len(found) == 1 and "buffer drains" in found[0].get_text()
    # Wildcards are literal, and card titles are searched too.
    assert len(page(client, "/progress?q=%25").select("tr.attempt")) == 1
    assert len(page(client, "/progress?q=shuffle go").select("tr.attempt")) == 1
    fragment = client.get("/progress?q=workers", headers=HTMX | {"HX-Target": "answer-history"})
    assert "<html" not in fragment.text and fragment.text.count('class="attempt"') == 1
    assert len(page(client, "/progress?kind=quiz").select("tr.attempt")) == 0
    assert len(page(client, "/progress?q=&kind=").select("tr.attempt")) == 3  # the form's "any kind"
    assert client.get("/progress?kind=essay").status_code == 422


def test_a_card_edited_in_content_keeps_its_history(client: TestClient, content: Path) -> None:
    post_attempt(client, SAMPLE, text="first try", rating="good")
    before = client.get(f"/api/cards/{SAMPLE}/schedule").json()
    # Rename the file and reword the card: the id is the key.
    (content / "sample-card.md").unlink()
    write_card(content, "renamed.md", card_text(SAMPLE, "A reworded sample question?"))
    soup = page(client)
    row = soup.select_one(f'tr.card-progress[data-card-id="{SAMPLE}"]')
    assert "A reworded sample question?" in row.get_text() and "retired" not in row.get_text()
    assert row.select_one("td:nth-of-type(5)").get_text(strip=True) == "1"  # one review
    history = soup.select_one(f'#answer-history tr[data-card-id="{SAMPLE}"]')
    assert "A reworded sample question?" in history.get_text() and "first try" in history.get_text()
    after = client.get(f"/api/cards/{SAMPLE}/schedule").json()
    assert after == before | {"retrievability": after["retrievability"]}


def test_a_card_deleted_from_content_keeps_its_history_and_shows_retired(
    client: TestClient, content: Path
) -> None:
    post_attempt(client, SAMPLE, text="my answer", rating="again")
    (content / "sample-card.md").unlink()
    soup = page(client)
    row = soup.select_one(f'tr.card-progress[data-card-id="{SAMPLE}"]')
    assert "retired" in row.select_one(".retired-badge").get_text() and "retired" in row["class"]
    history = soup.select_one(f'#answer-history tr[data-card-id="{SAMPLE}"]')
    assert "retired" in history.get_text() and "my answer" in history.get_text()
    schedule = client.get(f"/api/cards/{SAMPLE}/schedule")
    assert schedule.status_code == 200 and schedule.json()["retired"] is True
    assert schedule.json()["state"] == "learning"
    body = client.get("/api/progress").json()
    assert body["summary"]["retired"] == 1
    assert [c["retired"] for c in body["cards"] if c["card_id"] == SAMPLE] == [True]
    # Practice no longer serves it, though it is due.
    assert client.get("/api/practice/due").json()["due"] == []
    assert "Nothing due" in client.get("/practice").text
    # Bring the file back and the card is simply there again, history and all.
    write_card(content, "sample-card.md", card_text(SAMPLE, "A sample question?"))
    schedule = client.get(f"/api/cards/{SAMPLE}/schedule").json()
    assert schedule["retired"] is False and schedule["reps"] == 1


def test_a_deleted_card_s_quizzes_are_left_out_of_missed_pitfalls(client: TestClient, content: Path) -> None:
    post_attempt(client, SAMPLE, kind="quiz", text=None, choices=[], points=[], rating=None)
    assert client.get("/api/progress").json()["missed_pitfalls"]
    (content / "sample-card.md").unlink()
    assert client.get("/api/progress").json()["missed_pitfalls"] == []
    assert page(client).select_one(".missed") is None


def test_activity_counts_utc_days(app: FastAPI) -> None:
    add(
        app,
        make_attempt(created_at=datetime.fromisoformat("2026-03-02T23:59:59+00:00")),
        make_attempt(created_at=datetime.fromisoformat("2026-03-03T00:00:00+00:00")),
        make_attempt(created_at=datetime.fromisoformat("2026-03-03T09:00:00+14:00")),
    )  # 2 March, 19:00 UTC
    review(app, "good", T0 + timedelta(days=1))  # 3 March, a review without an attempt
    with app.state.db.read_sessions() as session:
        counts = stats.activity_by_day(session, user_id=1)
    assert counts == {date(2026, 3, 2): 2, date(2026, 3, 3): 2}


def test_a_long_history_says_how_many_answers_up_to_a_thousand(app: FastAPI, client: TestClient) -> None:
    add(app, *(make_attempt(created_at=T0 + timedelta(seconds=i)) for i in range(stats.HISTORY_COUNT_CAP)))
    count = page(client).select_one("#answer-history .count").get_text()
    assert count.startswith("1000 attempts, newest 50 shown")
    add(app, make_attempt(created_at=T0 - timedelta(days=1)))
    count = page(client).select_one("#answer-history .count").get_text()
    assert count.startswith("1,000+ attempts, newest 50 shown")


def test_the_dashboard_reads_no_review_log_and_no_unbounded_answers(app: FastAPI, client: TestClient) -> None:
    """Its figures come from the counts kept per day and per quiz statement: a long history costs
    a row a day, not a row an answer."""
    post_attempt(client, rating="again")
    pitfalls, _truths = quiz_ids(client)
    post_attempt(client, kind="quiz", text=None, choices=pitfalls[:1], points=[], rating=None)
    statements: list[str] = []

    def seen(_connection: object, _cursor: object, statement: str, *_rest: object) -> None:
        statements.append(" ".join(statement.split()))

    event.listen(app.state.db.engine, "before_cursor_execute", seen)
    try:
        soup = page(client)
    finally:
        event.remove(app.state.db.engine, "before_cursor_execute", seen)
    assert soup.select_one("#answer-history .count").get_text().startswith("2 attempts")
    assert not [s for s in statements if "FROM review_logs" in s]
    # The checker's agreement per card still sums the assessed answers' coverage rows.
    unbounded = [
        s for s in statements if "FROM attempts" in s and "LIMIT" not in s and "attempt_coverage" not in s
    ]
    assert unbounded == []
