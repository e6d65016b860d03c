"""A real server on a free port with its own data folder, headless Debian chromium, and `site`,
the whole app as a team sees it (tests/helpers/browser.py)."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, ViewportSize, expect, sync_playwright

from app import PROJECT_ROOT
from tests.helpers.browser import VIEWPORT_HEIGHTS, Site, launch_chromium, open_page, running_site
from tests.servers import start_server, stop

# An assertion waits for the page to reach the state it names; on a busy machine that can take
# longer than Playwright's 5 s default, and waiting longer costs a passing test nothing.
expect.set_options(timeout=30_000)


@pytest.fixture(scope="session")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, url = start_server(tmp_path_factory.mktemp("browser-data"), "--no-worker")
    yield url
    stop(process)


@pytest.fixture
def fresh_url(tmp_path: Path) -> Iterator[str]:
    """A server with an empty database of its own: every card is new, nobody has answered one.
    A test asks for it before `page`, so the page closes before its server stops (pytest tears
    down in the reverse order): a page still polling a stopped server reports errors."""
    process, url = start_server(tmp_path, "--no-worker")
    yield url
    stop(process)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    """One driver for every chromium a test launches (a second one in the same thread is refused)."""
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = launch_chromium(playwright)
    yield browser
    browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with open_page(browser, {"width": 1200, "height": 900}) as page:
        yield page


@pytest.fixture(params=[390, 1280], ids=lambda width: f"{width}px")
def viewport(request: pytest.FixtureRequest) -> ViewportSize:
    """A phone and a laptop; `@pytest.mark.parametrize("viewport", [360], indirect=True)` picks
    other widths."""
    width = int(request.param)
    return {"width": width, "height": VIEWPORT_HEIGHTS.get(width, 800)}


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    folder = Path(os.environ.get("SCREENSHOT_DIR", PROJECT_ROOT / "screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The whole site as a team sees it (tests.helpers.browser.running_site)."""
    with running_site(tmp_path_factory.mktemp("site-data")) as site:
        yield site


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that opens `page` on `fresh_url` asks for the server first (see `fresh_url`)."""
    for item in items:
        names = list(getattr(item, "fixturenames", ()))
        if {"page", "fresh_url"} <= set(names) and names.index("page") < names.index("fresh_url"):
            raise pytest.UsageError(f"{item.nodeid}: ask for fresh_url before page")
