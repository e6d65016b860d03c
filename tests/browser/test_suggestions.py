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

from app.coverage.checker import check, check_follow_up
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


def _models_reading_arrives(db: Database, covered: set[str], *, follow_up: str | None = None) -> None:
    """The reading a worker would store of the newest answer: this time it is sure of `covered`
    alone (of the main answer's points; a follow-up's, `follow_up`, all of its own)."""
    with db.write_sessions() as session:
        attempt_id = session.scalars(select(Attempt.id).order_by(Attempt.id.desc())).first()
        assert attempt_id is not None
        if follow_up is None:
            lexical = check(CARD, ANSWER)
            points = tuple(replace(hit, covered=hit.id in covered, sure=True) for hit in lexical.points)
        else:
            lexical = check_follow_up(CARD, index=0, text=follow_up)
            points = tuple(replace(hit, covered=True, sure=True) for hit in lexical.points)
        assert readings.store(
            session, attempt_id=attempt_id, coverage=replace(lexical, points=points, method="claims")
        )


def _expect_ticked(page: Page, ticked: list[str]) -> None:
    for point_id in CARD.point_ids:
        box = page.locator(f'#answer-panel .checklist input[value="{point_id}"]')
        expect(box).to_be_checked(checked=point_id in ticked)


def _answered_while_the_model_reads(page: Page, url: str) -> list[str]:
    """The answer submitted on the owner's card; the points the words pre-ticked."""
    page.goto(f"{url}/cards/{OWNER_CARD}?tier=middle")
    page.fill("#answer-text", ANSWER)
    page.click("text=Submit answer")
    expect(page.locator("#answer-panel .suggestion")).to_have_attribute("data-reading", "waiting")
    return check(CARD, ANSWER).covered


def test_the_models_reading_re_ticks_the_checklist_the_person_has_not_touched(
    fresh_url: str, fresh_db: Database, page: Page
) -> None:
    lexical = _answered_while_the_model_reads(page, fresh_url)
    _expect_ticked(page, lexical)
    model = CARD.point_ids[-1]
    assert model not in lexical
    _models_reading_arrives(fresh_db, {model})
    expect(page.locator("#answer-panel .suggestion")).to_have_attribute("data-reading", "done")
    _expect_ticked(page, [model])


def test_the_models_reading_leaves_a_checklist_the_person_changed(
    fresh_url: str, fresh_db: Database, page: Page
) -> None:
    lexical = _answered_while_the_model_reads(page, fresh_url)
    page.locator(f'#answer-panel .checklist input[value="{lexical[0]}"]').uncheck()
    _models_reading_arrives(fresh_db, {CARD.point_ids[-1]})
    expect(page.locator("#answer-panel .suggestion")).to_have_attribute("data-reading", "done")
    # The reading's own verdicts are shown; the ticks stay the person's.
    expect(page.locator("#answer-panel .suggested-points li.covered")).to_have_count(1)
    _expect_ticked(page, lexical[1:])


def test_a_reading_that_arrives_after_the_rating_leaves_the_saved_ticks(
    fresh_url: str, fresh_db: Database, page: Page
) -> None:
    lexical = _answered_while_the_model_reads(page, fresh_url)
    page.click("#answer-panel .rating button[value=good]")
    expect(page.locator("#answer-panel .saved")).to_be_visible()
    _models_reading_arrives(fresh_db, {CARD.point_ids[-1]})
    expect(page.locator("#answer-panel .suggestion")).to_have_attribute("data-reading", "done")
    _expect_ticked(page, lexical)


def test_a_follow_ups_reading_leaves_the_main_answers_checklist(
    fresh_url: str, fresh_db: Database, page: Page
) -> None:
    lexical = _answered_while_the_model_reads(page, fresh_url)
    said = "Profile the input pipeline first, then parallelize map and read the files in parallel."
    page.fill("#follow-up-0 textarea", said)
    page.click("#follow-up-0 .actions button[type=submit]")
    expect(page.locator("#follow-up-0 .suggestion")).to_have_attribute("data-reading", "waiting")
    _models_reading_arrives(fresh_db, set(), follow_up=said)
    expect(page.locator("#follow-up-0 .suggestion")).to_have_attribute("data-reading", "done")
    _expect_ticked(page, lexical)
