"""The library marks each card for the person: new, due or learned at the depth they practise at,
loaded after the shared (cached) page."""

from datetime import timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.practice.dependencies import get_now
from tests.factories import OWNER_CARD
from tests.helpers.html import one, soup_of, text_of
from tests.helpers.practice import T0, review

CACHE = "tf-data-cache-shuffle-order"


def marked(client: TestClient) -> dict[str, str]:
    soup = soup_of(client.get("/library/marks"))
    return {str(li["data-card-id"]): str(li["data-mark"]) for li in soup.select(".card-marks li")}


def test_each_card_is_new_then_learned_then_due_at_the_persons_depth(
    app: FastAPI, client: TestClient
) -> None:
    served = app.state.catalogue.snapshot().cards
    app.dependency_overrides[get_now] = lambda: T0
    assert marked(client) == dict.fromkeys(served, "new")

    review(app, "easy", T0 - timedelta(days=1))  # the owner's card at the middle depth: days away
    review(app, "again", T0 - timedelta(days=1), card_id=CACHE)  # due again within minutes
    review(app, "easy", T0 - timedelta(days=1), card_id=CACHE, tier="senior")  # another depth
    marks = marked(client)
    assert (marks[OWNER_CARD], marks[CACHE]) == ("learned", "due")
    assert list(marks.values()).count("new") == len(served) - 2
    soup = soup_of(client.get("/library/marks"))
    line = text_of(soup, ".marks-line")
    assert line.startswith(f"For you at the middle depth: 1 due {len(served) - 2} new 1 learned")
    assert one(soup, ".marks-line a")["href"] == "/practice"

    # Weeks later the owner's card has come due; at the senior depth it is the other that is learned.
    app.dependency_overrides[get_now] = lambda: T0 + timedelta(days=60)
    assert marked(client)[OWNER_CARD] == "due"
    assert client.put(
        "/api/settings", json={"target_tier": "senior", "desired_retention": 0.9, "new_per_day": 5}
    ).is_success
    app.dependency_overrides[get_now] = lambda: T0
    marks = marked(client)
    assert (marks[OWNER_CARD], marks[CACHE]) == ("new", "learned")


def test_the_library_itself_stays_the_same_for_everyone_and_loads_the_marks(client: TestClient) -> None:
    review_free = soup_of(client.get("/"))
    loader = one(review_free, "#library-marks")
    assert (loader["hx-get"], loader["hx-trigger"]) == ("/library/marks", "load")
    badge = one(review_free, f'.card-item[data-card-id="{OWNER_CARD}"] [data-mark]')
    assert badge.has_attr("hidden") and not badge.get_text(strip=True)
    # The filtered list an htmx request gets loads them again.
    listed = soup_of(client.get("/?q=prefetch", headers={"HX-Request": "true"}))
    assert one(listed, "#library-marks")["hx-get"] == "/library/marks"
