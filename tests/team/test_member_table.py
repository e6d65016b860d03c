"""/team's member table: fifty a page, sorted and filtered over the whole team in SQL, the same
route answering htmx with the table alone, and the numbers a member reads on their own pages."""

from collections.abc import Callable
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts import service
from app.practice import scheduling
from app.practice.models import PracticeDay, ReviewState
from app.storage.base import utcnow
from app.team.members import PAGE_SIZE, STREAK_DAYS, recall_expression
from tests.factories import OWNER_CARD
from tests.helpers.accounts import review_as, user_id
from tests.helpers.html import HTML, HTMX, one, soup_of, text_of
from tests.helpers.practice import add, post_attempt

CACHE = "tf-data-cache-shuffle-order"
PARALLEL = "tf-data-parallel-map-interleave"
TEAM = ["alice", "bob", "lena", "root"]  # the accounts tests' team and the lead


@pytest.fixture
def crowd(team_app: FastAPI, lena: TestClient) -> list[str]:
    """47 more members, so the team is 51: one more than a page."""
    names = [f"member{i:02d}" for i in range(47)]
    with team_app.state.db.write_sessions() as session:
        for name in names:
            service.create_user(session, name=name, role="member")
        session.commit()
    return sorted([*TEAM, *names])


def shown(page: BeautifulSoup) -> list[str]:
    return [str(row["data-member"]) for row in page.select("#member-table tr.member")]


def row_of(page: BeautifulSoup, name: str) -> dict[str, str]:
    row = page.select_one(f'tr.member[data-member="{name}"]')
    assert isinstance(row, Tag), name
    return {str(td["data-field"]): td.get_text(" ", strip=True) for td in row.select("td[data-field]")}


def test_fifty_members_a_page_and_a_pager_to_the_rest(lena: TestClient, crowd: list[str]) -> None:
    first = soup_of(lena.get("/team"))
    assert shown(first) == crowd[:PAGE_SIZE]
    assert text_of(first, "#member-table .count") == "51 members, by name, page 1 of 2."
    assert first.select(".pager a[rel=prev]") == []
    after = one(first, ".pager a[rel=next]")
    assert after["href"] == after["hx-get"] == "/team?sort=name&page=2"
    # The charts draw the members on the page.
    assert [g["data-member"] for g in first.select("svg.bars")[0].select("g.bar-row")] == crowd[:PAGE_SIZE]

    second = soup_of(lena.get(str(after["href"])))
    assert shown(second) == crowd[PAGE_SIZE:]
    assert one(second, ".pager a[rel=prev]")["href"] == "/team?sort=name"
    assert second.select(".pager a[rel=next]") == []

    past = soup_of(lena.get("/team?page=3"))
    assert shown(past) == []
    assert one(past, "#member-table .empty a")["href"] == "/team?sort=name"


def practised(team_app: FastAPI) -> None:
    """root: two cards due, reviewed long ago; bob: one due, three days ago; lena: one card rated
    easy just now (not due, recalled for sure); alice: nothing yet."""
    now = utcnow()
    for card in (CACHE, PARALLEL):
        review_as(team_app, "root", card, "middle", "good", now - timedelta(days=10))
    review_as(team_app, "bob", CACHE, "middle", "good", now - timedelta(days=3))
    review_as(team_app, "lena", CACHE, "middle", "easy", now - timedelta(minutes=5))


@pytest.mark.parametrize(
    ("sort", "order"),
    [
        ("name", ["alice", "bob", "lena", "root"]),
        ("due", ["root", "bob", "alice", "lena"]),  # the most due first; a tie goes by name
        ("weakest", ["root", "bob", "lena", "alice"]),  # the lowest recall first; none at all last
        ("active", ["lena", "bob", "root", "alice"]),  # the latest day first; never, last
    ],
)
def test_each_sort_order(team_app: FastAPI, lena: TestClient, sort: str, order: list[str]) -> None:
    practised(team_app)
    page = soup_of(lena.get("/team", params={"sort": sort}))
    assert shown(page) == order
    headers = {str(a["data-sort"]): a for a in page.select("#member-table th a.sort")}
    assert set(headers) == {"name", "active", "due", "weakest"}
    assert all(a["href"] == a["hx-get"] == f"/team?sort={key}" for key, a in headers.items())
    current = [th for th in page.select("#member-table th[aria-sort]")]
    assert [th.select_one("a.sort")["data-sort"] for th in current] == [sort]  # type: ignore[index]
    assert row_of(page, "root")["due"] == "2"
    assert row_of(page, "alice")["recall"] == "\u2013"


def test_the_name_filter_keeps_the_sort_and_pages_what_matches(
    team_app: FastAPI, lena: TestClient, crowd: list[str]
) -> None:
    practised(team_app)
    page = soup_of(lena.get("/team", params={"sort": "due", "q": "O"}))
    assert shown(page) == ["root", "bob"]
    assert text_of(page, "#member-table .count") == "2 members whose name contains “O”, by most due."
    assert one(page, 'a.sort[data-sort="name"]')["href"] == "/team?sort=name&q=O"
    assert one(page, "#member-q")["value"] == "O"
    assert one(page, 'input[name="sort"][form="member-filter"]')["value"] == "due"

    members = soup_of(lena.get("/team", params={"q": "member"}))
    assert len(shown(members)) == 47
    assert members.select(".pager") == []
    # A LIKE wildcard is a character like any other.
    nobody = soup_of(lena.get("/team", params={"q": "%"}))
    assert shown(nobody) == []
    assert text_of(nobody, "#member-table .empty") == "No member's name contains “%”."


def test_an_htmx_request_gets_the_table_alone(team_app: FastAPI, lena: TestClient) -> None:
    practised(team_app)
    whole = soup_of(lena.get("/team?sort=due"))
    fragment = soup_of(lena.get("/team?sort=due", headers=HTMX))
    root = fragment.find(True)
    assert isinstance(root, Tag) and root.get("id") == "member-table"
    assert root["hx-target"] == "#member-table" and root["hx-push-url"] == "true"
    assert fragment.select("h1, #assignments, .team-hardest") == []
    assert shown(fragment) == shown(whole) == ["root", "bob", "alice", "lena"]
    assert one(whole, "form#member-filter")["hx-target"] == "#member-table"


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"sort": "loudest"}, "Sort"),
        ({"page": "0"}, "Page"),
        ({"page": "two"}, "Page"),
        ({"page": "100001"}, "Page"),
        ({"q": "x" * 81}, "Name contains"),
        ({"q": "a\x00b"}, "Name contains"),  # PostgreSQL's text holds no NUL
    ],
)
def test_bad_parameters_are_a_page_that_says_which(
    lena: TestClient, params: dict[str, str], named: str
) -> None:
    page = soup_of(lena.get("/team", params=params, headers=HTML), status=422)
    assert named in page.get_text(" ", strip=True)


def test_recall_in_sql_is_fsrs_retrievability(team_app: FastAPI) -> None:
    now = utcnow()
    ages = [
        timedelta(minutes=5),
        timedelta(hours=30),
        timedelta(days=2.5),
        timedelta(days=40),
        timedelta(days=400),
    ]
    for i, age in enumerate(ages):
        card = [OWNER_CARD, CACHE, PARALLEL][i % 3]
        tier = ["junior", "middle", "senior", "principal", "junior"][i]
        review_as(team_app, "alice", card, tier, ["good", "again", "easy", "hard", "good"][i], now - age)
        review_as(team_app, "alice", card, tier, "good", now - age / 2)
    with team_app.state.db.read_sessions() as session:
        dialect = session.get_bind().dialect.name
        rows = session.execute(select(ReviewState, recall_expression(now, dialect))).all()
        assert len(rows) == len(ages)
        for state, recall in rows:
            assert recall == pytest.approx(scheduling.retrievability(state, now), abs=1e-9)
        assert {round(float(recall), 2) for _state, recall in rows} != {1.0}


def test_a_members_numbers_agree_with_their_own_progress(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], lena: TestClient
) -> None:
    now = utcnow()
    alice = signed_in("alice")
    post_attempt(alice, OWNER_CARD, seconds=30, rating="good")
    post_attempt(alice, CACHE, seconds=90, rating="again")
    for days in (1, 2, 3):
        review_as(team_app, "alice", PARALLEL, "middle", "good", now - timedelta(days=days))
    review_as(team_app, "alice", OWNER_CARD, "middle", "hard", now - timedelta(days=20))
    review_as(team_app, "alice", CACHE, "senior", "good", now - timedelta(days=45))

    progress = alice.get("/api/progress").json()
    summary = progress["summary"]
    row = row_of(soup_of(lena.get("/team")), "alice")
    assert row["streak"] == f"{summary['streak_days']} d" == "4 d"
    assert row["due"] == str(summary["due_now"])
    # /progress's mean is over every depth; /team's is at the target depth, which its cards list.
    middle = [
        card["retrievability"] for card in progress["cards"] if card["tier"] == "middle" and card["reps"]
    ]
    assert len(middle) == 3
    assert row["recall"] == f"{round(sum(middle) / len(middle) * 100)} %"
    assert row["reviews_30d"] == "6"  # the one 45 days ago is older
    assert row["reviews_7d"] == "5"
    assert row["last_active"] == "today"

    # A run that ended yesterday is still current, as on /progress; an older one is not.
    bob = signed_in("bob")
    for days in (1, 2, 4):
        review_as(team_app, "bob", PARALLEL, "middle", "good", now - timedelta(days=days))
    review_as(team_app, "lena", PARALLEL, "middle", "good", now - timedelta(days=2))
    page = soup_of(lena.get("/team"))
    assert (
        row_of(page, "bob")["streak"]
        == f"{bob.get('/api/progress').json()['summary']['streak_days']} d"
        == "2 d"
    )
    assert row_of(page, "lena")["streak"] == "0 d"


def test_a_streak_stops_at_a_day_without_practice_and_is_read_back_at_most_streak_days(
    team_app: FastAPI, lena: TestClient
) -> None:
    today = utcnow().date()
    alice, bob = user_id(team_app, "alice"), user_id(team_app, "bob")
    every_day = [
        PracticeDay(user_id=alice, day=today - timedelta(days=n), answers=1) for n in range(STREAK_DAYS + 5)
    ]
    # Bob's day 6 back has only a review of an older answer rated late: no practice of that day.
    bobs = [
        PracticeDay(user_id=bob, day=today - timedelta(days=n), answers=int(n != 6), reviews=1)
        for n in range(1, 30)
    ]
    add(team_app, *every_day, *bobs)
    page = soup_of(lena.get("/team"))
    assert row_of(page, "alice")["streak"] == f"{STREAK_DAYS} d"
    assert row_of(page, "bob")["streak"] == "5 d"  # yesterday back to 5 days ago


def test_a_phone_that_hides_the_headers_still_has_every_sort(lena: TestClient, crowd: list[str]) -> None:
    """The table reflows into cards on a phone and hides its headers: the same four sorts are links
    above it, the current one marked."""
    page = soup_of(lena.get("/team", params={"sort": "due", "q": "m"}))
    links = {str(a["data-sort"]): a for a in page.select("#member-table nav.sort-links a")}
    assert list(links) == ["name", "active", "due", "weakest"]
    assert links["weakest"]["href"] == links["weakest"]["hx-get"] == "/team?sort=weakest&q=m"
    assert [key for key, a in links.items() if a.get("aria-current")] == ["due"]
