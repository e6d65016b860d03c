"""The export and import JSON routes are all served from transfer's `api` router module, and the
import form's page module serves the page only."""

import pytest

from app.transfer.routers import api, import_page
from tests.helpers.routes import paths_of

pytestmark = pytest.mark.engine_agnostic


def test_the_api_module_serves_export_and_import() -> None:
    assert {"/api/export.json", "/api/export.csv", "/api/import"} <= paths_of(api)


def test_the_import_page_module_serves_no_json_route() -> None:
    assert sorted(p for p in paths_of(import_page) if p.startswith("/api/")) == []
    assert "/progress/import" in paths_of(import_page)
