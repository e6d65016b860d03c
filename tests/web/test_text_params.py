"""A card id in a list's query is text a database can compare: one with a NUL byte (PostgreSQL's
text cannot hold one) is refused with 422, never a 500."""

import pytest
from fastapi.testclient import TestClient


@pytest.mark.parametrize("path", ["/api/demos", "/api/attempts"])
def test_a_card_id_with_a_nul_byte_is_refused(client: TestClient, path: str) -> None:
    response = client.get(path, params={"card_id": "a6\x00k"})
    assert response.status_code == 422, response.text
    assert "card_id" in response.text


def test_a_history_search_with_a_nul_byte_is_refused(client: TestClient) -> None:
    response = client.get("/progress", params={"q": "prefetch\x00"})
    assert response.status_code == 422, response.text


@pytest.mark.parametrize(
    "path",
    ["/api/practice/due", "/api/cards/tf-data-prefetch-last", "/api/cards/tf-data-prefetch-last/schedule"],
)
@pytest.mark.parametrize("tier", ["", " ", " senior", "wizard"])
def test_a_tier_the_schema_does_not_list_is_refused_naming_the_four(
    client: TestClient, path: str, tier: str
) -> None:
    response = client.get(path, params={"tier": tier})
    assert response.status_code == 422, response.text
    assert "junior, middle, senior or principal" in response.text
