"""A person runs a small live demo from the card page in headless chromium and reads the result.

The server is `tiercards serve` WITH its worker (the default), so the job goes through the real
queue to a real TensorFlow runner child.
"""

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import APIRequestContext, Browser, Locator, Page, expect

from app.presets import PRESETS
from tests.helpers.browser import CHROMIUM, CHROMIUM_ARGS
from tests.servers import start_server

CARD = "tf-data-prefetch-last"


@pytest.fixture(scope="module")
def served_with_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, url = start_server(tmp_path_factory.mktemp("demo-browser-data"))
    yield url
    family = psutil.Process(process.pid).children(recursive=True)
    assert family, "serve started no worker"
    process.terminate()
    assert process.wait(timeout=30) == 0
    # SIGTERM to serve stops its worker, and the worker its TensorFlow child.
    _gone, alive = psutil.wait_procs(family, timeout=15)
    assert alive == [], f"left running after serve stopped: {alive}"


def test_run_a_small_demo_from_the_card_and_see_timelines_and_table(
    page: Page, served_with_worker: str, screenshot_dir: Path
) -> None:
    page.goto(f"{served_with_worker}/cards/{CARD}")
    section = page.locator("#demos")
    expect(section.locator("h2")).to_have_text("Run it live")
    expect(page.locator("#demo-history")).to_contain_text("No demo runs yet")
    form = page.locator("#demo-form-placement")
    form.locator('input[name="steps"]').fill("8")
    form.locator('input[name="input_ms"]').fill("10")
    form.locator('input[name="compute_ms"]').fill("10")
    form.locator('input[name="batch_size"]').fill("2")
    form.locator("button[type=submit]").click()

    expect(page).to_have_url(re.compile(r"/demos/[0-9a-f]{32}$"))
    status = page.locator("#demo-status")
    expect(status).to_have_attribute("data-status", "done", timeout=90_000)
    variants = len(PRESETS["placement"].variants)
    expect(page.locator("svg.timeline-svg")).to_have_count(variants)
    expect(page.locator("figure.timeline").first.locator("g.bars-compute rect")).to_have_count(8)
    rows = page.locator("table.comparison tbody tr")
    expect(rows).to_have_count(variants)
    expect(rows.first).to_contain_text("No prefetch")
    expect(rows.first.locator(".verdict")).not_to_be_empty()
    expect(page.locator(".reading")).to_contain_text("Without prefetch a step took")
    # The verdict comes first: on a phone it is read before the tables are scrolled past.
    verdict = page.locator(".reading").evaluate("el => el.getBoundingClientRect().bottom")
    table = page.locator("table.comparison").first.evaluate("el => el.getBoundingClientRect().top")
    assert verdict < table, (verdict, table)
    expect(page.locator("dl.environment")).to_contain_text("TensorFlow")
    expect(page.locator("#demo-history .demo-history-row")).to_have_count(1)
    expect(page.locator("#demo-history .demo-history-row")).to_contain_text("Done")
    page.screenshot(path=str(screenshot_dir / "demo-result.png"), full_page=True)

    # Back on the card, the person's run is listed (loaded by htmx, not part of the cached page).
    page.goto(f"{served_with_worker}/cards/{CARD}")
    expect(page.locator("#demo-history .demo-history-row")).to_have_count(1)
    expect(page.locator("#demo-history .demo-history-row")).to_contain_text("fastest:")


def test_an_out_of_range_value_is_refused_in_place(page: Page, served_with_worker: str) -> None:
    page.goto(f"{served_with_worker}/cards/{CARD}")
    form = page.locator("#demo-form-placement")
    # Past the browser's own min/max check: the server's bound is the one that counts.
    form.locator('input[name="input_ms"]').evaluate("el => el.removeAttribute('max')")
    form.locator('input[name="input_ms"]').fill("600")
    form.locator("button[type=submit]").click()
    expect(page.locator("#demo-form-placement .errors")).to_have_text(
        "Input per batch must be between 0 and 500."
    )
    expect(page).to_have_url(re.compile(rf"/cards/{CARD}$"))


def _runs_on_card(request: APIRequestContext, base_url: str) -> set[str]:
    found = request.get(f"{base_url}/api/demos", params={"card_id": CARD}).json()["runs"]
    return {run["run_id"] for run in found}


def _run_it(page: Page, click: Callable[[Locator], None] = Locator.click) -> str:
    """Press "Run it live" on the card page; the id of the run the browser is taken to."""
    click(page.locator("#demo-form-placement button[type=submit]"))
    expect(page).to_have_url(re.compile(r"/demos/[0-9a-f]{32}$"))
    return page.url.rsplit("/", 1)[1]


def _cancel(page: Page, base_url: str, run_ids: set[str]) -> None:
    """Queued runs cancelled, so that the next test's person has room (three may wait)."""
    token = page.locator('meta[name="csrf-token"]').get_attribute("content") or ""
    for run_id in run_ids:
        assert page.request.post(f"{base_url}/api/demos/{run_id}/cancel", headers={"X-CSRF-Token": token}).ok


# base_url's server has no worker: runs stay queued, where they are counted.


def test_a_double_click_on_run_starts_one_run(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/cards/{CARD}")
    before = _runs_on_card(page.request, base_url)
    run_id = _run_it(page, Locator.dblclick)
    # The second click's request may still be on its way: give it time to land.
    page.wait_for_timeout(1000)
    assert _runs_on_card(page.request, base_url) - before == {run_id}
    _cancel(page, base_url, {run_id})


def test_run_again_after_going_back_is_a_new_run(browser: Browser, base_url: str) -> None:
    # Playwright turns the back-forward cache off; people's browsers have it on. Pages are sent
    # no-store, which keeps Chromium from caching them, but other browsers may still show one from
    # that cache, with the key that started the first run: both ways must start a new run.
    with_cache = browser.browser_type.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, ignore_default_args=["--disable-back-forward-cache"]
    )
    try:
        page = with_cache.new_page()
        page.goto(f"{base_url}/cards/{CARD}")
        before = _runs_on_card(page.request, base_url)
        first = _run_it(page)
        page.go_back(wait_until="commit")
        expect(page.locator("#demo-form-placement")).to_be_visible()
        again = _run_it(page)
        page.go_back(wait_until="commit")
        expect(page.locator("#demo-form-placement")).to_be_visible()
        # As a browser does when it shows the page from its back-forward cache: showing it again
        # replaces the key the page was left with.
        key = page.locator('#demo-form-placement input[name="idempotency_key"]')
        shown = key.input_value()
        page.evaluate("dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))")
        assert key.input_value() not in ("", shown)
        third = _run_it(page)
        assert len({first, again, third}) == 3
        assert _runs_on_card(page.request, base_url) - before == {first, again, third}
        _cancel(page, base_url, {first, again, third})
    finally:
        with_cache.close()
