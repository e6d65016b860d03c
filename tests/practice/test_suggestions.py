"""The checker's suggestion on an answer: stored with the answer, shown after "Submit answer" on the
card page, its follow-ups and /practice, the checklist pre-ticked with it, and how often the person's
own ticks agreed with it."""

from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.content.cards import item_key
from app.coverage.checker import check, check_follow_up
from app.coverage.measured import MEASURED
from app.practice import suggestions
from app.practice.models import Attempt, AttemptCoverage
from tests.factories import DECK, OWNER_CARD
from tests.helpers.html import HTMX, one, soup_of, text_of
from tests.helpers.payloads import attempt_payload
from tests.helpers.speech import audio_file, finish, recording_form
from tests.helpers.suggestions import ANSWER, MARKED

CARD = DECK[OWNER_CARD]


def answer(client: TestClient, text: str = ANSWER, **extra: Any) -> BeautifulSoup:
    data = {"tier": "middle", "kind": "solid", "text": text, "seconds": "12.5", **extra}
    return soup_of(client.post(f"/cards/{OWNER_CARD}/answers", data=data, headers=HTMX))


def coverage_rows(app: FastAPI) -> list[tuple[Attempt, AttemptCoverage | None]]:
    with app.state.db.read_sessions() as session:
        query = (
            select(Attempt, AttemptCoverage)
            .outerjoin(AttemptCoverage, AttemptCoverage.attempt_id == Attempt.id)
            .order_by(Attempt.id)
        )
        rows = [(a, c) for a, c in session.execute(query)]
        session.expunge_all()
        return rows


def ticked(soup: BeautifulSoup) -> set[str]:
    return {
        str(box["value"]) for box in soup.select(".checklist input[name=points]") if box.has_attr("checked")
    }


def test_a_typed_answer_stores_the_checkers_suggestion_with_it(app: FastAPI, client: TestClient) -> None:
    answer(client)
    [(_, row)] = coverage_rows(app)
    expected = check(CARD, ANSWER)
    assert row is not None and row.method == expected.method
    assert [(p["id"], p["covered"]) for p in row.points] == [(h.id, h.covered) for h in expected.points]
    assert [ANSWER[p["start"] : p["end"]] for p in row.points if p["covered"]] == [
        ANSWER[h.evidence.start : h.evidence.end] for h in expected.points if h.covered and h.evidence
    ]
    assert [(p["id"], ANSWER[p["start"] : p["end"]]) for p in row.pitfalls] == [
        (h.id, ANSWER[h.evidence.start : h.evidence.end]) for h in expected.pitfalls
    ]
    assert (row.agreed, row.compared) == (None, None)  # not assessed yet


def test_reveals_and_quizzes_get_no_suggestion(app: FastAPI, client: TestClient) -> None:
    reveal = {"tier": "middle", "kind": "solid"}
    assert client.post(f"/cards/{OWNER_CARD}/reveal", data=reveal, headers=HTMX).status_code == 200
    quiz = attempt_payload(kind="quiz", text=None, points=[], choices=[])
    assert client.post(f"/api/cards/{OWNER_CARD}/attempts", json=quiz).status_code == 201, "quiz"
    rows = coverage_rows(app)
    assert len(rows) == 2 and all(row is None for _, row in rows)


def test_the_card_page_marks_the_evidence_and_says_what_each_point_and_pitfall_is(client: TestClient) -> None:
    soup = answer(client)
    quote = one(soup, "#answer-panel .your-answer")
    assert quote.get_text() == ANSWER  # every character, escaped, none lost
    assert quote.find("b") is None
    assert [mark.get_text() for mark in quote.select("mark")] == MARKED
    expected = check(CARD, ANSWER)
    verdicts = [text_of(li, ".verdict") for li in soup.select(".suggested-points li")]
    assert verdicts == ["covered", "not found", "not found", "covered", "not found"]
    assert "correct" not in text_of(soup, ".suggestions").lower()
    pitfalls = soup.select(".suggested-pitfalls li")
    assert len(pitfalls) == len(expected.pitfalls) == 1
    for item, hit in zip(pitfalls, expected.pitfalls, strict=True):
        number = [entry.key for entry in CARD.pitfalls].index(hit.id) + 1
        entry = CARD.pitfalls[number - 1]
        said = ANSWER[hit.evidence.start : hit.evidence.end]
        # Found by words alone, the checker is not sure of it, and says so.
        assert " ".join(item.get_text().split()).startswith(
            f"Check this: “{said}”: pitfall {number}, “{entry.title.plain}”"
        )
        assert entry.body.plain.split()[0] in text_of(item, ".why")
    assert MEASURED.pitfall_sentence() in text_of(soup, ".suggestions")
    note = text_of(soup, ".suggestions .note")
    assert MEASURED.sentence() in note and "a suggestion: your own ticks and rating decide" in note


def test_the_checklist_starts_with_the_suggestion_and_saves_the_persons_own_ticks(
    app: FastAPI, client: TestClient
) -> None:
    soup = answer(client)
    suggested = set(check(CARD, ANSWER).covered)
    assert ticked(soup) == suggested and len(suggested) >= 2
    form = one(soup, "form.assessment")
    # The person unticks one suggested point and ticks one the checker did not find.
    dropped = sorted(suggested)[0]
    added = next(p.key for p in CARD.points if p.key not in suggested)
    mine = (suggested - {dropped}) | {added}
    saved = soup_of(
        client.post(str(form["action"]), data={"points": sorted(mine), "rating": "hard"}, headers=HTMX)
    )
    assert ticked(saved) == mine
    [(attempt, row)] = coverage_rows(app)
    assert set(attempt.points) == mine and attempt.rating == "hard"
    assert row is not None and (row.agreed, row.compared) == (len(CARD.points) - 2, len(CARD.points))
    # Re-assessing: the agreement follows the latest ticks.
    client.post(str(form["action"]), data={"points": sorted(suggested), "rating": "good"}, headers=HTMX)
    [(_, row)] = coverage_rows(app)
    assert row is not None and (row.agreed, row.compared) == (len(CARD.points), len(CARD.points))


def test_an_assessment_refused_for_want_of_a_rating_keeps_the_persons_ticks(client: TestClient) -> None:
    soup = answer(client)
    suggested = set(check(CARD, ANSWER).covered)
    form = one(soup, "form.assessment")
    mine = set(sorted(suggested)[1:])
    refused = client.post(str(form["action"]), data={"points": sorted(mine)}, headers=HTMX)
    assert refused.status_code == 422
    assert ticked(soup_of(refused, status=422)) == mine


def test_an_answer_rated_as_it_is_sent_is_compared_at_once(app: FastAPI, client: TestClient) -> None:
    payload = attempt_payload(text=ANSWER, points=[], rating="good")
    assert client.post(f"/api/cards/{OWNER_CARD}/attempts", json=payload).status_code == 201
    [(_, row)] = coverage_rows(app)
    suggested = check(CARD, ANSWER).covered
    assert row is not None and (row.agreed, row.compared) == (
        len(CARD.points) - len(suggested),
        len(CARD.points),
    )


def test_a_follow_up_answer_gets_its_suggestion_and_says_where_the_figures_come_from(
    app: FastAPI, client: TestClient
) -> None:
    text = CARD.follow_ups[0].body.plain.split(". ")[0] + "."
    soup = answer(client, text, kind="follow-up", follow_up="0", seconds="20")
    expected = check_follow_up(CARD, index=0, text=text)
    verdicts = [text_of(li, ".verdict") for li in soup.select("li.follow-up .suggested-points li")]
    assert verdicts == ["covered" if h.covered else "not found" for h in expected.points]
    assert "covered" in verdicts
    assert [m.get_text() for m in soup.select("li.follow-up .your-answer mark")]
    note = text_of(soup, "li.follow-up .suggestions .note")
    assert "not on follow-up answers" in note and MEASURED.sentence() in note
    [(_, row)] = coverage_rows(app)
    assert row is not None and [p["id"] for p in row.points] == [h.id for h in expected.points]
    assert (row.agreed, row.compared) == (None, None)


def test_a_follow_up_suggestion_naming_a_claim_the_card_no_longer_has_shows_the_others(
    app: FastAPI, client: TestClient
) -> None:
    """A suggestion stored when the answer was split otherwise (a lead-in on its own) keeps the
    key of a claim that is gone: it is left out, the claims still there are shown."""
    text = CARD.follow_ups[0].body.plain.split(". ")[0] + "."
    answer(client, text, kind="follow-up", follow_up="0", seconds="20")
    [(attempt, row)] = coverage_rows(app)
    assert row is not None
    gone = {"id": item_key("Add parallelism where the time is spent:"), "covered": True, "score": 0.5}
    row.points = [gone | {"start": 0, "end": len(text)}, *row.points]
    shown = suggestions.as_shown(row, card=CARD, attempt=attempt)
    assert shown is not None
    assert [p.covered for p in shown.points] == [
        h.covered for h in check_follow_up(CARD, index=0, text=text).points
    ]
    assert gone["id"] not in shown.covered


def test_practice_shows_the_suggestion_and_pre_ticks_it(app: FastAPI, client: TestClient) -> None:
    client.put("/api/settings", json={"target_tier": "middle", "desired_retention": 0.9, "new_per_day": 10})
    data = {"card_id": OWNER_CARD, "tier": "middle", "seconds": "18", "text": ANSWER}
    soup = soup_of(client.post("/practice/reveal", headers=HTMX, data=data))
    assert [m.get_text() for m in soup.select("#practice-card .your-answer mark")] == MARKED
    suggested = set(check(CARD, ANSWER).covered)
    assert ticked(soup) == suggested
    form = {i["name"]: i.get("value", "") for i in soup.select(".practice-rate input[type=hidden]")}
    mine = sorted(suggested)[1:]
    # Sent without a rating, the form comes back with the person's ticks, not the suggestion's.
    refused = client.post("/practice/rate", headers=HTMX, data=form | {"points": mine})
    assert ticked(soup_of(refused, status=422)) == set(mine)
    client.post("/practice/rate", headers=HTMX, data=form | {"rating": "good", "points": mine})
    [(attempt, row)] = coverage_rows(app)
    assert attempt.points == [p.key for p in CARD.points if p.key in mine]
    assert row is not None and (row.agreed, row.compared) == (len(CARD.points) - 1, len(CARD.points))


def test_an_answer_without_a_stored_suggestion_shows_none(app: FastAPI, client: TestClient) -> None:
    soup = answer(client)
    with app.state.db.write_sessions() as session:
        session.execute(AttemptCoverage.__table__.delete())
        session.commit()
    attempt_id = one(soup, "form.assessment")["action"]
    # The 422 of an assessment without a rating shows the checklist again, now without a suggestion.
    again = soup_of(client.post(str(attempt_id), data={"points": []}, headers=HTMX), status=422)
    assert not again.select(".suggestions") and ticked(again) == set()


def test_progress_says_how_often_the_checker_and_the_person_agreed(app: FastAPI, client: TestClient) -> None:
    for mine in (sorted(check(CARD, ANSWER).covered), []):
        soup = answer(client)
        action = str(one(soup, "form.assessment")["action"])
        client.post(action, data={"points": mine, "rating": "good"}, headers=HTMX)
    compared = 2 * len(CARD.points)
    agreed = len(CARD.points) + len(CARD.points) - len(check(CARD, ANSWER).covered)
    soup = soup_of(client.get("/progress"))
    row = one(soup, f'tr.card-progress[data-card-id="{OWNER_CARD}"]')
    assert f"the checker and you agreed on {agreed} of {compared} points" in text_of(row, ".agreement")
    others = [r for r in soup.select("tr.card-progress") if r["data-card-id"] != OWNER_CARD]
    assert others and not any(r.select(".agreement") for r in others)


def test_an_answer_from_a_recordings_edited_transcript_gets_its_suggestion(
    app: FastAPI, client: TestClient
) -> None:
    response = client.post(f"/api/cards/{OWNER_CARD}/recordings", files=audio_file(), data=recording_form())
    assert response.status_code == 202, response.text
    recording = finish(app, response.json()["id"])
    soup = answer(client, recording_id=recording.id)  # the transcript, edited into ANSWER
    assert [m.get_text() for m in soup.select("#answer-panel .your-answer mark")] == MARKED
    [(attempt, row)] = coverage_rows(app)
    assert attempt.recording_id == recording.id
    assert row is not None and [p["covered"] for p in row.points] == [
        h.covered for h in check(CARD, ANSWER).points
    ]


def test_progress_reads_the_agreement_of_the_latest_answers_only_and_says_so(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Years of assessed answers cost /progress no more than its cap of them: the oldest fall out,
    and the page says over how many answers it counted."""
    monkeypatch.setattr(suggestions, "AGREEMENT_READ", 2)
    for mine in ([], [], sorted(check(CARD, ANSWER).covered)):
        soup = answer(client)
        client.post(
            str(one(soup, "form.assessment")["action"]), data={"points": mine, "rating": "good"}, headers=HTMX
        )
    soup = soup_of(client.get("/progress"))
    row = one(soup, f'tr.card-progress[data-card-id="{OWNER_CARD}"]')
    compared = 2 * len(CARD.points)
    agreed = len(CARD.points) + len(CARD.points) - len(check(CARD, ANSWER).covered)
    assert f"the checker and you agreed on {agreed} of {compared} points" in text_of(row, ".agreement")
    assert "over your latest 2 assessed answers" in text_of(soup, "#agreement-window")
