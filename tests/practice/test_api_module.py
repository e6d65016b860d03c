"""Practice's JSON routes (paths under /api/) are all served from its `api` router module, and
its page modules serve pages only."""

import pytest

from app.practice.routers import api, card_page, practice_page, progress_page
from tests.helpers.routes import paths_of

pytestmark = pytest.mark.engine_agnostic


def test_the_api_module_serves_progress() -> None:
    assert {"/api/progress"} <= paths_of(api)


def test_practice_page_modules_serve_no_json_route() -> None:
    pages = (card_page, practice_page, progress_page)
    assert sorted(p for module in pages for p in paths_of(module) if p.startswith("/api/")) == []
