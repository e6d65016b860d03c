"""Practice's JSON routes (paths under /api/) are all served from its `api` router module, and
its page modules serve pages only."""

from types import ModuleType

import pytest
from fastapi.routing import APIRoute

from app.practice.routers import api, card_page, export, practice_page, progress_page

pytestmark = pytest.mark.engine_agnostic


def _paths(module: ModuleType) -> set[str]:
    return {route.path for route in module.router.routes if isinstance(route, APIRoute)}


def test_the_api_module_serves_progress_export_and_import() -> None:
    assert {"/api/progress", "/api/export.json", "/api/export.csv", "/api/import"} <= _paths(api)


def test_practice_page_modules_serve_no_json_route() -> None:
    pages = (card_page, export, practice_page, progress_page)
    assert sorted(p for module in pages for p in _paths(module) if p.startswith("/api/")) == []
    assert "/progress/import" in _paths(export)
