"""A person answers the owner's card in headless chromium and meets the checker's suggestion: the
evidence highlighted, the checklist pre-ticked with it; they untick one, rate, and what is saved is
theirs. When the entailment model's reading arrives, it re-ticks a checklist nobody has touched
yet, and leaves one the person changed."""

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from app.coverage.checker import check
from app.demos.models import WorkerBeat
from app.jobs.queue import claims_lanes_for
from app.practice import readings
from app.practice.models import Attempt
from app.storage.database import Database
from tests.factories import DECK, OWNER_CARD
from tests.helpers.demos import demo_settings_for
from tests.helpers.suggestions import ANSWER, MARKED

CARD = DECK[OWNER_CARD]


def test_the_suggestion_pre_ticks_and_the_persons_ticks_are_saved(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/cards/{OWNER_CARD}?tier=middle")
    page.fill("#answer-text", ANSWER)
    page.click("text=Submit answer")
    # Focus moves to the new content, as after every other swap.
    expect(page.locator("#answer-heading")).to_be_focused()
    marks = page.locator("#answer-panel .your-answer mark")
    expect(marks).to_have_text(MARKED)
    expect(page.locator("#answer-panel .suggestions")).to_contain_text("your own ticks and rating decide")
    suggested = check(CARD, ANSWER).covered
    boxes = page.locator("#answer-panel .checklist input[name=points]")
    checked = boxes.evaluate_all("boxes => boxes.filter(b => b.checked).map(b => b.value)")
    assert checked == suggested and len(suggested) >= 2
    page.locator(f'#answer-panel .checklist input[value="{suggested[0]}"]').uncheck()
    page.click("#answer-panel .rating button[value=hard]")
    expect(page.locator("#answer-panel .saved")).to_contain_text(
        f"rated hard, {len(suggested) - 1} of {len(CARD.points)} points covered"
    )
    latest = httpx.get(f"{base_url}/api/attempts", params={"card_id": OWNER_CARD}).json()[0]
    assert (latest["text"], latest["rating"], latest["point_ids"]) == (ANSWER, "hard", suggested[1:])


@pytest.fixture
def fresh_db(fresh_url: str, tmp_path: Path) -> Iterator[Database]:
    """`fresh_url`'s database, with a beat as a worker whose entailment model loaded leaves: the
    server asks it for a reading of each answer."""
    db = Database(demo_settings_for(tmp_path))
    with db.write_sessions() as session:
        lanes = list(claims_lanes_for(False))
        session.add(WorkerBeat(name="reader:1", device="CPU", compute="simulated", capabilities=lanes))
        session.commit()
    yield db
    db.dispose()


def _models_reading_arrives(db: Database, covered: set[str]) -> None:
    """The reading a worker would store: this time it is sure of `covered` alone."""
    with db.write_sessions() as session:
        attempt_id = session.scalars(select(Attempt.id).order_by(Attempt.id.desc())).first()
        assert attempt_id is not None
        lexical = check(CARD, ANSWER)
        points = tuple(replace(hit, covered=hit.id in covered, sure=True) for hit in lexical.points)
        assert readings.store(
            session, attempt_id=attempt_id, coverage=replace(lexical, points=points, method="claims")
        )


def _expect_ticked(page: Page, ticked: list[str]) -> None:
    for point_id in CARD.point_ids:
        box = page.locator(f'#answer-panel .checklist input[value="{point_id}"]')
        expect(box).to_be_checked(checked=point_id in ticked)


def test_the_models_reading_re_ticks_the_checklist_the_person_has_not_touched(
    fresh_url: str, fresh_db: Database, page: Page
) -> None:
    page.goto(f"{fresh_url}/cards/{OWNER_CARD}?tier=middle")
    page.fill("#answer-text", ANSWER)
    page.click("text=Submit answer")
    expect(page.locator("#answer-panel .suggestion")).to_have_attribute("data-reading", "waiting")
    lexical = check(CARD, ANSWER).covered
    _expect_ticked(page, lexical)
    model = CARD.point_ids[-1]
    assert model not in lexical
    _models_reading_arrives(fresh_db, {model})
    expect(page.locator("#answer-panel .suggestion")).to_have_attribute("data-reading", "done")
    _expect_ticked(page, [model])


def test_the_models_reading_leaves_a_checklist_the_person_changed(
    fresh_url: str, fresh_db: Database, page: Page
) -> None:
    page.goto(f"{fresh_url}/cards/{OWNER_CARD}?tier=middle")
    page.fill("#answer-text", ANSWER)
    page.click("text=Submit answer")
    expect(page.locator("#answer-panel .suggestion")).to_have_attribute("data-reading", "waiting")
    lexical = check(CARD, ANSWER).covered
    page.locator(f'#answer-panel .checklist input[value="{lexical[0]}"]').uncheck()
    _models_reading_arrives(fresh_db, {CARD.point_ids[-1]})
    expect(page.locator("#answer-panel .suggestion")).to_have_attribute("data-reading", "done")
    # The reading's own verdicts are shown; the ticks stay the person's.
    expect(page.locator("#answer-panel .suggested-points li.covered")).to_have_count(1)
    _expect_ticked(page, lexical[1:])
