"""What the library and card URLs accept, and how a card names itself in the browser tab."""

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.factories import OWNER_CARD

HTML = {"Accept": "text/html"}


def soup_of(client: TestClient, url: str, status: int = 200) -> BeautifulSoup:
    response = client.get(url, headers=HTML)
    assert response.status_code == status, response.text
    return BeautifulSoup(response.text, "html.parser")


def test_a_tier_in_any_case_serves_that_depth(client: TestClient) -> None:
    for name in ("Senior", "SENIOR", " senior "):
        soup = soup_of(client, f"/cards/{OWNER_CARD}?tier={name}")
        assert soup.select_one('.tier-switch [aria-current="true"]').get_text() == "senior"
        assert soup.select_one(".answer-form input[name=tier]")["value"] == "senior"
    assert client.get(f"/api/cards/{OWNER_CARD}?tier=Principal").json()["tier"] == "principal"


def test_an_unknown_tier_names_the_four_there_are(client: TestClient) -> None:
    soup = soup_of(client, f"/cards/{OWNER_CARD}?tier=wizard", status=422)
    # The page calls the tier its depth; the API, which calls it tier, says so in its own words.
    api = client.get(f"/api/cards/{OWNER_CARD}?tier=wizard").json()["detail"]
    assert api == [
        {
            "loc": ["query", "tier"],
            "msg": "tier must be junior, middle, senior or principal",
            "type": "value_error",
        }
    ]
    assert soup.select_one(".errors").get_text(" ", strip=True) == (
        "Depth must be junior, middle, senior or principal."
    )


def test_a_level_in_any_case_filters_the_library(client: TestClient) -> None:
    soup = soup_of(client, "/?level=Senior")
    assert [item["data-card-id"] for item in soup.select(".card-item")] == ["tf-data-parallel-map-interleave"]
    assert soup.select_one("select[name=level] option[selected]")["value"] == "senior"


def test_an_unknown_level_is_refused_with_a_message_instead_of_an_empty_library(client: TestClient) -> None:
    """Chosen: a 422 page that says the level does not exist, rather than "any level" and 0 cards."""
    soup = soup_of(client, "/?level=wizard", status=422)
    assert soup.select(".card-item") == []
    assert soup.select_one(".errors").get_text(" ", strip=True) == (
        "There is no level “wizard”: a card's level is junior, middle, senior or principal."
    )


def test_the_tab_title_reads_the_card_title_without_markdown(client: TestClient) -> None:
    soup = soup_of(client, f"/cards/{OWNER_CARD}")
    assert soup.title is not None
    assert soup.title.get_text() == (
        "Why does tf.data.Dataset.prefetch(tf.data.AUTOTUNE) go last in a pipeline? · tiercards"
    )
