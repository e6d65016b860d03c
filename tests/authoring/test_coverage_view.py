"""The preview shows what the coverage checker makes of the card's model answer (Basics and Solid
answer): each point covered or not, with the model answer's sentence that covers it, and the CLI's
warning for a point it does not cover. For a card that is served, the team's agreement with the
checker per point, over the most recent assessed answers to that card: counts only, no answer
text and no names."""

from datetime import timedelta

import pytest
from bs4 import Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.accounts.models import User
from app.accounts.names import SOLO_NAME
from app.authoring import service
from app.content.cards import item_key
from app.coverage.measured import MEASURED
from app.practice.models import AttemptCoverage
from app.storage.base import utcnow
from tests.factories import WRITTEN, card_text, line_of, make_attempt
from tests.helpers.authoring import SERVED, preview_of
from tests.helpers.html import one

# The sample card's two points, as card_text writes them; MODEL_ANSWER puts SECOND in place of
# the second.
FIRST, WRITTEN_SECOND = WRITTEN["The first point a good answer makes"], WRITTEN["The second point"]
SECOND = "batches wait in the buffer"
SAID = "The sample makes its first point."
# The second point is said only in words it does not use, beside a run of terms naming it.
MODEL_ANSWER = {
    "The ~20 second answer.": SAID,
    "The ~50 second answer.": "The buffer, batches, waiting. They are held back until the model asks for them.",
    "2. The second point": f"2. {SECOND}",
}
SECRET = "an answer nobody but its author may read"


def _points(preview: Tag) -> dict[str, Tag]:
    section = one(preview, "[data-section=coverage]")
    return {" ".join(one(li, ".point").get_text().split()): li for li in section.select("li[data-point]")}


def test_each_point_is_shown_covered_by_its_sentence_or_warned_about_in_the_clis_words(
    author: TestClient,
) -> None:
    text = card_text(**MODEL_ANSWER)
    preview = preview_of(author, text)
    shown = _points(preview)
    assert list(shown) == [FIRST, SECOND]
    assert shown[FIRST]["data-covered"] == "yes"
    assert one(shown[FIRST], ".evidence").get_text(strip=True) == SAID
    assert shown[FIRST].select_one(".warning") is None
    assert shown[SECOND]["data-covered"] == "no"
    assert shown[SECOND].select_one(".evidence") is None
    assert " ".join(one(shown[SECOND], ".warning").get_text().split()) == (
        f'line {line_of(text, SECOND)}: warning: answer point "{SECOND}" is not covered by the card\'s own '
        "Basics and Solid answer as the coverage checker reads them: say it in the answer, or add an "
        "'- Explanation:' or '- Said as:' under the point"
    )
    section = one(preview, "[data-section=coverage]")
    assert MEASURED.sentence() in " ".join(section.get_text().split())
    # Not served: there is no team to agree with it.
    assert section.select_one(".coverage-agreement") is None


def test_the_templates_model_answer_covers_none_of_its_points_and_its_placeholders_are_warned_about(
    author: TestClient,
) -> None:
    """The card `tiercards content new` writes: "The ~20 second answer." covers nothing, and every
    text left as the template wrote it is listed with its line, as the CLI warns about it."""
    text = service.scaffold()
    preview = preview_of(author, text)
    shown = _points(preview)
    assert [li["data-covered"] for li in shown.values()] == ["no", "no"]
    assert not preview.select(".coverage-points .evidence")
    warnings = [" ".join(li.get_text().split()) for li in preview.select(".author-warnings li")]
    assert len(warnings) == 16
    basics = "The ~20 second answer."
    assert (
        f'line {line_of(text, basics)}: warning: "{basics}" is the template\'s placeholder text: '
        "replace it with the card's own"
    ) in warnings
    # Warnings do not refuse the card: it shows at every depth.
    assert preview["data-state"] == "card"


def test_a_said_as_the_author_adds_turns_the_warning_into_the_sentence_that_covers_it(
    author: TestClient,
) -> None:
    said = "they are held back until the model asks for them"
    noted = {**MODEL_ANSWER, "2. The second point": f"2. {SECOND}\n   - Said as: {said}"}
    shown = _points(preview_of(author, card_text(**noted)))
    assert shown[SECOND]["data-covered"] == "yes"
    assert (
        one(shown[SECOND], ".evidence").get_text(strip=True)
        == "They are held back until the model asks for them."
    )


def _answered(app: FastAPI, *rows: tuple[str, list[str], list[str], bool]) -> None:
    """Answers to `card_id` the person ticked `ticked` on, the checker having ticked `suggested`;
    `assessed` False for one not assessed yet. The later a row, the more recent the answer."""
    start = utcnow() - timedelta(hours=1)
    with app.state.db.write_sessions() as session:
        for at, (card_id, suggested, ticked, assessed) in enumerate(rows):
            attempt = make_attempt(
                card_id=card_id, text=SECRET, points=ticked, created_at=start + timedelta(minutes=at)
            )
            session.add(attempt)
            session.flush()
            keys = [item_key(FIRST), item_key(WRITTEN_SECOND)]
            session.add(
                AttemptCoverage(
                    attempt_id=attempt.id,
                    method="lexical",
                    points=[
                        {"id": key, "covered": key in suggested, "score": 0.5, "start": None, "end": None}
                        for key in keys
                    ],
                    pitfalls=[],
                    agreed=sum((key in suggested) == (key in ticked) for key in keys) if assessed else None,
                    compared=len(keys) if assessed else None,
                )
            )
        session.commit()


def _agreement(preview: Tag) -> dict[str, dict[str, str]]:
    table = one(preview, "[data-section=coverage] .coverage-agreement")
    return {
        " ".join(one(row, "th").get_text().split()): {
            cell["data-column"]: cell.get_text(strip=True) for cell in row.select("td[data-column]")
        }
        for row in table.select("tbody tr")
    }


def test_a_served_card_shows_the_teams_agreement_per_point_without_answers_or_names(
    author_app: FastAPI, author: TestClient
) -> None:
    first, second = item_key(FIRST), item_key(WRITTEN_SECOND)
    _answered(
        author_app,
        (SERVED, [first], [first], True),  # agreed on both
        (SERVED, [first, second], [first], True),  # the checker ticked the second, the person did not
        (SERVED, [], [first, second], True),  # the person ticked both, the checker neither
        (SERVED, [first], [], False),  # not assessed: nothing to compare
        ("another-card", [first], [], True),  # another card's answer
    )
    preview = preview_of(author, card_text(SERVED, "A served question?"))
    assert _agreement(preview) == {
        FIRST: {"answers": "3", "agreed": "2", "checker-only": "0", "person-only": "1"},
        WRITTEN_SECOND: {"answers": "3", "agreed": "1", "checker-only": "1", "person-only": "1"},
    }
    page = " ".join(preview.get_text().split())
    assert "over the 3 most recent assessed answers to this card from people who share their answers" in page
    assert SECRET not in page and SOLO_NAME not in page


def test_the_agreement_reads_only_the_most_recent_assessed_answers(
    author_app: FastAPI, author: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = item_key(FIRST)
    monkeypatch.setattr(service, "AGREEMENT_ANSWERS", 2)
    _answered(author_app, *[(SERVED, [first], [], True)] * 3, (SERVED, [first], [first], True))
    shown = _agreement(preview_of(author, card_text(SERVED, "A served question?")))
    assert shown[FIRST] == {"answers": "2", "agreed": "1", "checker-only": "1", "person-only": "0"}


def test_the_answers_of_someone_who_hides_theirs_are_not_counted(
    author_app: FastAPI, author: TestClient
) -> None:
    first = item_key(FIRST)
    _answered(author_app, (SERVED, [first], [first], True))
    assert _agreement(preview_of(author, card_text(SERVED, "A served question?")))[FIRST]["answers"] == "1"
    with author_app.state.db.write_sessions() as session:
        session.execute(update(User).values(hide_answers=True))
        session.commit()
    section = one(preview_of(author, card_text(SERVED, "A served question?")), "[data-section=coverage]")
    assert section.select_one(".coverage-agreement") is None


def test_a_served_card_nobody_has_assessed_says_so(author: TestClient) -> None:
    section = one(preview_of(author, card_text(SERVED, "A served question?")), "[data-section=coverage]")
    assert section.select_one(".coverage-agreement") is None
    assert "No one who shares their answers has assessed one to this card yet" in " ".join(
        section.get_text().split()
    )


def test_a_card_too_large_for_the_checker_is_previewed_without_its_view(
    author: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checker's work grows with points times model-answer sentences: past the bound the
    preview still shows the card, and says why the checker's view is left out."""
    monkeypatch.setattr(service, "MAX_CHECKED_PAIRS", 3)
    preview = preview_of(author, card_text(**MODEL_ANSWER))
    section = one(preview, "[data-section=coverage]")
    assert section.select("li[data-point]") == []
    assert "too large for the checker's view: 2 points by 3 sentences" in " ".join(section.get_text().split())
    assert preview.select_one(".author-depth") is not None
