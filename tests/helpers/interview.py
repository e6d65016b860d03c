"""A mock interview as a person goes through it: starting one, answering and rating the step it is at."""

from typing import Any

import httpx
from bs4 import BeautifulSoup

from tests.helpers.html import one, soup_of

# Covers the owner's points 1 to 4 and misses the fifth, which its first follow-up probes.
MISSES_THE_FIFTH = (
    "It overlaps producing with consuming, so step time becomes max(input, compute). It goes last so "
    "the buffer holds batches. It is one background thread, not a pool of workers."
)


def start(client: httpx.Client, **fields: Any) -> str:
    """Start an interview with these set-up fields; the URL of its page."""
    response = client.post("/interview", data=fields, follow_redirects=False)
    assert response.status_code == 303, response.text
    location = str(response.headers["location"])
    assert location.startswith("/interview/")
    return location


def step(client: httpx.Client, url: str) -> BeautifulSoup:
    return soup_of(client.get(url))


def position(soup: BeautifulSoup) -> str:
    return str(one(soup, '#interview-step input[name="position"]')["value"])


def answer(
    client: httpx.Client, url: str, text: str, seconds: str = "12.5", headers: dict[str, str] | None = None
) -> BeautifulSoup:
    soup = step(client, url)
    return soup_of(
        client.post(
            f"{url}/answer",
            data={"position": position(soup), "text": text, "seconds": seconds},
            headers=headers,
        )
    )


def rate(client: httpx.Client, url: str, rating: str, points: list[str] | None = None) -> BeautifulSoup:
    soup = step(client, url)
    data = {"position": position(soup), "rating": rating, "points": points or []}
    return soup_of(client.post(f"{url}/assessment", data=data))
