"""/team's numbers for two members with known answers and reviews, read from the page."""

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.demos.models import DemoRun
from app.practice import scheduling
from app.storage.base import utcnow
from tests.factories import OWNER_CARD
from tests.helpers.accounts import review_as, user_id
from tests.helpers.html import soup_of, text_of
from tests.helpers.practice import add, post_attempt, quiz_ids

CACHE = "tf-data-cache-shuffle-order"  # budgets: basics 20 s, solid 60 s
PARALLEL = "tf-data-parallel-map-interleave"


def member_row(page: BeautifulSoup, name: str) -> dict[str, str]:
    row = page.select_one(f'tr.member[data-member="{name}"]')
    assert isinstance(row, Tag), name
    return {str(td["data-field"]): td.get_text(" ", strip=True) for td in row.select("td[data-field]")}


def mean_recall_percent(app: FastAPI, name: str, tier: str) -> str:
    now = utcnow()
    with app.state.db.read_sessions() as session:
        rows = [r for r in scheduling.states_for(session, user_id=user_id(app, name)) if r.tier == tier]
        recall = [scheduling.retrievability(r, now) for r in rows]
    return f"{round(sum(recall) / len(recall) * 100)} %"


def test_every_members_numbers_and_the_teams(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], lena: TestClient
) -> None:
    now = utcnow()
    alice, bob = signed_in("alice"), signed_in("bob")
    post_attempt(alice, OWNER_CARD, seconds=30, rating="good")  # within its 50 s
    post_attempt(alice, CACHE, seconds=90, rating="again")  # over its 60 s
    pitfalls, truths = quiz_ids(alice)
    quiz = alice.post(
        f"/api/cards/{OWNER_CARD}/attempts",
        json={"tier": "junior", "kind": "quiz", "choices": pitfalls[:1], "seconds": 20},
    )
    assert quiz.status_code == 201, quiz.text
    review_as(team_app, "alice", PARALLEL, "middle", "good", now - timedelta(days=10))
    assert bob.put(
        "/api/settings", json={"target_tier": "senior", "desired_retention": 0.9, "new_per_day": 10}
    ).is_success
    post_attempt(bob, OWNER_CARD, text="bob's answer", seconds=10, rating="good")
    review_as(team_app, "bob", PARALLEL, "senior", "good", now - timedelta(days=40))
    add(
        team_app,
        DemoRun(id="a" * 32, user_id=user_id(team_app, "alice"), preset="placement", params={}),
        DemoRun(
            id="b" * 32, user_id=user_id(team_app, "bob"), preset="placement", params={}, status="running"
        ),
    )

    page = soup_of(lena.get("/team"))
    names = [row["data-member"] for row in page.select("tr.member")]
    assert names == ["alice", "bob", "lena", "root"]  # the solo history of single mode is nobody
    score = round((1 + len(truths)) / (len(pitfalls) + len(truths)) * 100)
    assert member_row(page, "alice") == {
        "last_active": "today",
        "reviews_7d": "3",
        "reviews_30d": "4",
        "due": "1",  # the card reviewed 10 days ago; the others are due in minutes
        "overdue": "1",
        "recall": mean_recall_percent(team_app, "alice", "middle"),
        "streak": "1 d",
        "in_time": "1 of 2 (50 %)",
        "quiz_accuracy": f"{score} % (1)",
    }
    assert member_row(page, "bob") == {
        "last_active": "today",
        "reviews_7d": "1",
        "reviews_30d": "1",
        "due": "1",  # at his target depth, senior: the review 40 days ago
        "overdue": "1",
        "recall": mean_recall_percent(team_app, "bob", "senior"),
        "streak": "1 d",
        "in_time": "1 of 1 (100 %)",
        "quiz_accuracy": "\u2013",
    }
    assert member_row(page, "lena")["reviews_30d"] == "0"

    reviews_chart = {
        g["data-member"]: g["data-value"] for g in page.select("svg.bars")[0].select("g.bar-row")
    }
    assert reviews_chart == {"alice": "4", "bob": "1", "lena": "0", "root": "0"}

    hardest = page.select("tr.hard-card")
    assert [row["data-card-id"] for row in hardest] == [CACHE]
    assert text_of(hardest[0], '[data-field="lapse_rate"]').startswith("100 %")

    missed = page.select("ol.missed li")
    assert len(missed) == min(10, len(pitfalls) - 1)
    assert {li["data-item"] for li in missed} <= set(pitfalls[1:])
    assert all("missed 1 time by 1 person" in li.get_text(" ", strip=True) for li in missed)

    demos = {li["data-status"]: text_of(li, "strong") for li in page.select(".demo-counts li")}
    assert demos == {"queued": "1", "running": "1"}
    assert page.select(".content-errors") == []


def test_broken_card_files_are_listed(lena: TestClient, own_content: Path) -> None:
    (own_content / "broken.md").write_text("---\nid: broken\n---\nno sections\n", encoding="utf-8")
    errors = soup_of(lena.get("/team")).select(".content-errors li")
    assert errors and all(text_of(li, "code").startswith("broken.md:") for li in errors)
