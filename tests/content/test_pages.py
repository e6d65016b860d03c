"""What the library and card URLs accept, how the library groups a deck of any size by topic, and
how a card names itself in the browser tab."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.factory import create_app
from app.presets import PRESETS
from app.settings import Settings
from tests.factories import OWNER_CARD, card_text, write_card
from tests.helpers.html import HTML, soup_of


def page_of(client: TestClient, url: str, status: int = 200) -> BeautifulSoup:
    """The page at `url` as a browser asks for it."""
    return soup_of(client.get(url, headers=HTML), status)


def test_a_tier_in_any_case_serves_that_depth(client: TestClient) -> None:
    for name in ("Senior", "SENIOR", " senior "):
        soup = page_of(client, f"/cards/{OWNER_CARD}?tier={name}")
        assert soup.select_one('.tier-switch [aria-current="true"]').get_text() == "senior"
        assert soup.select_one(".answer-form input[name=tier]")["value"] == "senior"
    assert client.get(f"/api/cards/{OWNER_CARD}?tier=Principal").json()["tier"] == "principal"


def test_an_unknown_tier_names_the_four_there_are(client: TestClient) -> None:
    soup = page_of(client, f"/cards/{OWNER_CARD}?tier=wizard", status=422)
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


def test_a_level_in_any_case_filters_the_library(deck: TestClient) -> None:
    soup = page_of(deck, "/?level=Senior")
    assert [item["data-card-id"] for item in soup.select(".card-item")] == ["b-card", "d-card"]
    assert soup.select_one("select[name=level] option[selected]")["value"] == "senior"


def test_an_unknown_level_is_refused_with_a_message_instead_of_an_empty_library(client: TestClient) -> None:
    """Chosen: a 422 page that says the level does not exist, rather than "any level" and 0 cards."""
    soup = page_of(client, "/?level=wizard", status=422)
    assert soup.select(".card-item") == []
    assert soup.select_one(".errors").get_text(" ", strip=True) == (
        "There is no level “wizard”: a card's level is junior, middle, senior or principal."
    )


def test_the_tab_title_reads_the_card_title_without_markdown(client: TestClient) -> None:
    soup = page_of(client, f"/cards/{OWNER_CARD}")
    assert soup.title is not None
    assert soup.title.get_text() == (
        "Why does tf.data.Dataset.prefetch(tf.data.AUTOTUNE) go last in a pipeline? · tiercards"
    )


@contextmanager
def serving(settings: Settings, folder: Path) -> Iterator[TestClient]:
    """An app serving the cards written into `folder`."""
    app = create_app(settings.model_copy(update={"content_dir": folder}))
    with TestClient(app) as client:
        yield client
    app.state.db.dispose()


def deck_card(card_id: str, title: str, topics: str, level: str = "middle", demos: str = "") -> str:
    return card_text(
        card_id,
        title,
        **{
            "level: middle": f"level: {level}",
            "topics: [general]": f"topics: [{topics}]",
            "demos: []": f"demos: [{demos}]",
        },
    )


@pytest.fixture
def deck(settings: Settings, tmp_path: Path) -> Iterator[TestClient]:
    """Four cards, two of them with more than one topic; titles sort them a, b, c, d."""
    for card_id, title, topics, level, demos in [
        ("a-card", "A question on prefetch?", "tf.data, performance", "middle", "placement, deficit"),
        ("b-card", "B question on GPUs?", "GPUs", "senior", ""),
        ("c-card", "C question on caching?", "tf.data", "junior", "jitter"),
        ("d-card", "D question on prefetch buffers?", "performance, tf.data", "senior", ""),
    ]:
        write_card(tmp_path, f"{card_id}.md", deck_card(card_id, title, topics, level, demos))
    with serving(settings, tmp_path) as client:
        yield client


def listing(soup: BeautifulSoup) -> dict[str, list[str]]:
    """Each topic heading with the ids of the cards under it, in page order."""
    return {
        group["data-topic"]: [item["data-card-id"] for item in group.select(".card-item")]
        for group in soup.select(".topic-group")
    }


def tags(soup: BeautifulSoup, card_id: str) -> list[str]:
    return [li.get_text() for li in soup.select(f'[data-card-id="{card_id}"] .topics li')]


def test_the_library_lists_each_card_once_under_its_first_topic(deck: TestClient) -> None:
    soup = page_of(deck, "/")
    assert listing(soup) == {"GPUs": ["b-card"], "performance": ["d-card"], "tf.data": ["a-card", "c-card"]}
    headings = [h2.get_text(" ", strip=True) for h2 in soup.select(".topic-group h2")]
    assert headings == ["GPUs · 1 card", "performance · 1 card", "tf.data · 2 cards"]
    # Its other topics stay on the card; the heading's own is not repeated.
    assert tags(soup, "a-card") == ["performance"] and tags(soup, "d-card") == ["tf.data"]
    assert soup.select('[data-card-id="c-card"] .topics') == []


def test_a_topic_filter_lists_every_card_with_that_topic_under_it(deck: TestClient) -> None:
    soup = page_of(deck, "/?topic=performance")
    assert listing(soup) == {"performance": ["a-card", "d-card"]}
    assert tags(soup, "a-card") == ["tf.data"]
    assert soup.select_one("#card-count").get_text() == "2 of 4 cards"


def test_each_card_names_the_demos_it_links(deck: TestClient) -> None:
    soup = page_of(deck, "/")

    def demos(card_id: str) -> list[str]:
        return [li.get_text() for li in soup.select(f'[data-card-id="{card_id}"] .card-demos li')]

    assert demos("a-card") == [PRESETS["placement"].title, PRESETS["deficit"].title]
    assert demos("c-card") == [PRESETS["jitter"].title]
    assert soup.select('[data-card-id="b-card"] .card-demos') == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("level=senior", {"GPUs": ["b-card"], "performance": ["d-card"]}),
        ("q=prefetch", {"performance": ["d-card"], "tf.data": ["a-card"]}),
        ("q=PREFETCH+buffers&level=Senior", {"performance": ["d-card"]}),
        ("topic=tf.data&level=junior", {"tf.data": ["c-card"]}),
        ("topic=GPUs&q=prefetch", {}),
    ],
)
def test_filters_narrow_the_grouped_list(
    deck: TestClient, query: str, expected: dict[str, list[str]]
) -> None:
    soup = page_of(deck, f"/?{query}")
    assert listing(soup) == expected
    shown = sum(map(len, expected.values()))
    assert soup.select_one("#card-count").get_text() == f"{shown} of 4 cards"
    assert (soup.select_one(".empty") is not None) == (shown == 0)


def test_htmx_gets_the_grouped_list_alone(deck: TestClient) -> None:
    response = deck.get("/?level=senior", headers={"HX-Request": "true"})
    soup = BeautifulSoup(response.text, "html.parser")
    assert soup.find("html") is None and soup.select_one("form.filters") is None
    assert listing(soup) == {"GPUs": ["b-card"], "performance": ["d-card"]}


def test_a_thousand_card_library_lists_every_card(settings: Settings, tmp_path: Path) -> None:
    topics = ["tf.data", "GPUs", "serving", "Keras", "profiling"]
    for number in range(1000):
        card_id = f"card-{number:04d}"
        chosen = ", ".join(topics[(number + shift) % len(topics)] for shift in range(1 + number % 3))
        level = ("junior", "middle", "senior", "principal")[number % 4]
        title = f"Question {number:04d}?"
        write_card(
            tmp_path, f"{card_id}.md", deck_card(card_id, title, chosen, level, "placement" * (number % 2))
        )
    with serving(settings, tmp_path) as client:
        soup = page_of(client, "/")
    groups = listing(soup)
    assert sorted(groups) == sorted(topics, key=str.lower) == list(groups)
    listed = [card_id for ids in groups.values() for card_id in ids]
    assert sorted(listed) == [f"card-{number:04d}" for number in range(1000)]
    assert soup.select_one("#card-count").get_text() == "1000 of 1000 cards"
    assert len(soup.select(".card-demos")) == 500
