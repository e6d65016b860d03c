"""A person runs a small live demo from the card page in headless chromium and reads the result.

The server is `tiercards serve` WITH its worker (the default), so the job goes through the real
queue to a real TensorFlow runner child.
"""

import re
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import Page, expect

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
    expect(page.locator("svg.timeline-svg")).to_have_count(4)
    expect(page.locator("figure.timeline").first.locator("g.bars-compute rect")).to_have_count(8)
    rows = page.locator("table.comparison tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.first).to_contain_text("No prefetch")
    expect(rows.first.locator(".verdict")).not_to_be_empty()
    expect(page.locator(".reading")).to_contain_text("Without prefetch a step took")
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
    expect(page.locator("#demo-form-placement .errors")).to_contain_text("input_ms must be between 0 and 500")
    expect(page).to_have_url(re.compile(rf"/cards/{CARD}$"))
