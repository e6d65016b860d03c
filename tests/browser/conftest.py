"""A real server on a free port with its own data folder, and headless Debian chromium."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from app import PROJECT_ROOT
from tests.servers import start_server

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# This machine has no outside network: keep chromium from trying to reach Google's services.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, url = start_server(tmp_path_factory.mktemp("browser-data"), "--no-worker")
    yield url
    process.terminate()
    process.wait(timeout=15)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    yield page
    context.close()
    # A 422 is the app refusing bad input in place, which the page shows; anything else is a bug.
    unexpected = [e for e in errors if "status of 422" not in e]
    assert unexpected == [], f"the page reported errors: {unexpected}"


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    folder = Path(os.environ.get("SCREENSHOT_DIR", PROJECT_ROOT / "screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder
