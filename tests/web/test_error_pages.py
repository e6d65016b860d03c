"""Error pages a browser sees: they say what went wrong once, in words."""

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.helpers.html import HTML

pytestmark = pytest.mark.engine_agnostic


def test_a_page_that_does_not_exist_says_not_found_once(client: TestClient) -> None:
    response = client.get("/no-such-page", headers=HTML)
    assert response.status_code == 404
    main = BeautifulSoup(response.text, "html.parser").select_one("main")
    assert main is not None
    assert main.get_text(" ", strip=True).lower().count("not found") == 1
