"""POST /api/cards/{card_id}/coverage: which answer points an answer covers and which pitfalls it
asserts, with the stretch of the answer that shows each, beside the figures the checker was
measured at; hostile input refused with a 4xx, and nothing stored either way."""

import json
import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from typer.testing import CliRunner

from app import PROJECT_ROOT
from app.accounts.models import AuditEvent
from app.cli import cli
from app.content.cards import Card
from app.content.catalogue import Catalogue, load
from app.content.dependencies import get_catalogue
from app.coverage import checker, service
from app.coverage.checker import Target
from app.coverage.dependencies import get_pacing
from app.coverage.measured import MEASURED
from app.coverage.pacing import Pacing
from app.practice.models import Attempt, AttemptCoverage
from app.schemas import MAX_ANSWER_CHARS
from tests.factories import DECK, OWNER_CARD
from tests.helpers.accounts import fresh_client, sign_in

CARD = DECK[OWNER_CARD]
COVERS_TWO = "Prefetch overlaps producing the next batch with consuming the current one."
COVERS_TWO_TOO = "The step time becomes max(input, compute) instead of their sum."
MISCONCEIVED = "I think prefetch parallelizes map across many threads."
URL = f"/api/cards/{OWNER_CARD}/coverage"


def checked(client: TestClient, text: str, tier: str = "middle") -> dict[str, Any]:
    response = client.post(URL, json={"tier": tier, "text": text})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def stored_rows(app: FastAPI) -> int:
    with app.state.db.read_sessions() as session:
        return sum(
            session.scalar(select(func.count()).select_from(t)) or 0 for t in (Attempt, AttemptCoverage)
        )


def audit_rows(app: FastAPI) -> int:
    with app.state.db.read_sessions() as session:
        return session.scalar(select(func.count()).select_from(AuditEvent)) or 0


def test_an_answer_saying_two_points_covers_those_two_with_their_evidence(client: TestClient) -> None:
    text = f"{COVERS_TWO}\n{COVERS_TWO_TOO}"
    body = checked(client, text)
    assert [point["id"] for point in body["points"]] == [point.key for point in CARD.points]
    covered = {point["id"]: point["evidence"] for point in body["points"] if point["covered"]}
    overlap, maximum = CARD.points[0].key, CARD.points[1].key
    assert covered == {overlap: COVERS_TWO, maximum: COVERS_TWO_TOO}
    assert all(0 <= point["score"] <= 1 for point in body["points"])
    assert body["pitfalls"] == [] and body["method"] == "lexical"


def test_a_misconception_is_listed_under_pitfalls_with_its_sentence(client: TestClient) -> None:
    text = f"{COVERS_TWO} {MISCONCEIVED}"
    body = checked(client, text)
    believing_it_parallelizes = f"p-{CARD.pitfalls[0].key}"
    # Found by words alone, so the checker is not sure of it: the page reads "check this".
    assert body["pitfalls"] == [{"id": believing_it_parallelizes, "evidence": MISCONCEIVED, "sure": False}]


def test_a_client_joins_an_asserted_pitfall_to_the_cards_own_by_its_id(client: TestClient) -> None:
    """The coverage API and the card API name a pitfall by one id, so a client can look up what
    an asserted pitfall says (and why it is wrong) in the card it already has."""
    card = client.get(f"/api/cards/{OWNER_CARD}").json()
    by_id = {pitfall["id"]: pitfall for pitfall in card["sections"]["pitfalls"]}
    (asserted,) = checked(client, MISCONCEIVED)["pitfalls"]
    assert by_id[asserted["id"]]["statement"]["markdown"] == CARD.pitfalls[0].title.markdown


def test_evidence_is_the_answer_as_written(client: TestClient) -> None:
    """Spacing and backticks as the person typed them, not as the checker normalised them."""
    written = "`prefetch`  overlaps   producing with consuming."
    body = checked(client, f"  {written}\n")
    assert body["points"][0] == {**body["points"][0], "covered": True, "evidence": written}


def test_the_measured_figures_stand_beside_the_suggestions(client: TestClient) -> None:
    measured = checked(client, COVERS_TWO)["measured"]
    assert measured["sentence"] == MEASURED.sentence()
    assert (measured["answers"], measured["cards"]) == (MEASURED.answers, MEASURED.cards)
    assert (measured["precision"], measured["recall"]) == (MEASURED.precision, MEASURED.recall)
    assert measured["pitfall_sentence"] == MEASURED.pitfall_sentence()
    assert (measured["pitfall_precision"], measured["pitfall_recall"]) == (
        MEASURED.pitfall_precision,
        MEASURED.pitfall_recall,
    )


def test_an_answer_covering_nothing_lists_every_point_uncovered(client: TestClient) -> None:
    body = checked(client, "No idea, sorry.", tier="junior")
    assert [(p["covered"], p["evidence"]) for p in body["points"]] == [(False, None)] * len(CARD.points)


def test_an_unknown_card_is_404(client: TestClient) -> None:
    response = client.post("/api/cards/no-such-card/coverage", json={"tier": "middle", "text": COVERS_TWO})
    assert response.status_code == 404 and "no-such-card" in response.json()["detail"]


@pytest.mark.parametrize(
    "body",
    [
        {"tier": "expert", "text": COVERS_TWO},
        {"tier": "middle"},
        {"text": COVERS_TWO},
        {"tier": "middle", "text": ""},
        {"tier": "middle", "text": " \n\t "},
        {"tier": "middle", "text": 42},
        {"tier": "middle", "text": [COVERS_TWO]},
        {"tier": 2, "text": COVERS_TWO},
        {"tier": "middle", "text": COVERS_TWO, "kind": "solid"},
        {"tier": "middle", "text": "x" * (MAX_ANSWER_CHARS + 1)},
        [COVERS_TWO],
    ],
)
def test_bad_input_is_422_and_stores_nothing(app: FastAPI, client: TestClient, body: Any) -> None:
    response = client.post(URL, json=body)
    assert response.status_code == 422, response.text
    assert stored_rows(app) == 0


def test_half_a_surrogate_pair_is_422(client: TestClient) -> None:
    raw = '{"tier": "middle", "text": "prefetch \\ud800 overlaps"}'
    response = client.post(URL, content=raw, headers={"Content-Type": "application/json"})
    assert response.status_code == 422, response.text


def test_the_longest_answer_an_attempt_takes_is_checked(client: TestClient) -> None:
    text = (COVERS_TWO + " ") * (MAX_ANSWER_CHARS // (len(COVERS_TWO) + 1))
    assert len(text.strip()) <= MAX_ANSWER_CHARS
    assert checked(client, text)["points"][0]["covered"] is True


def test_a_check_stores_nothing(app: FastAPI, client: TestClient) -> None:
    checked(client, f"{COVERS_TWO} {MISCONCEIVED}")
    assert stored_rows(app) == 0


def test_a_post_without_the_csrf_token_is_refused(anonymous_client: TestClient) -> None:
    response = anonymous_client.post(URL, json={"tier": "middle", "text": COVERS_TWO})
    assert response.status_code == 403


def test_strangers_are_refused_where_sign_in_is_required(team_app: FastAPI) -> None:
    with TestClient(team_app) as stranger:
        response = stranger.post(URL, json={"tier": "middle", "text": COVERS_TWO})
    assert response.status_code == 401


def test_the_api_schema_documents_the_route_and_its_answer(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    operation = schema["paths"]["/api/cards/{card_id}/coverage"]["post"]
    answer = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    shape = schema["components"]["schemas"][answer.rsplit("/", 1)[1]]
    assert {"points", "pitfalls", "method", "measured"} <= set(shape["properties"])
    asked = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert set(schema["components"]["schemas"][asked.rsplit("/", 1)[1]]["properties"]) == {"tier", "text"}


def test_a_cards_checker_is_built_once_for_every_answer_checked_against_it(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a card's points into what answers are scored against is most of a check's work:
    it is done once per card as served, not once per answer."""
    built: list[str] = []
    build = checker.point_targets

    def counted(card: Card) -> list[Target]:
        built.append(card.id)
        return build(card)

    monkeypatch.setattr(checker, "point_targets", counted)
    first = checked(client, f"{COVERS_TWO} {MISCONCEIVED}")
    assert checked(client, f"{COVERS_TWO} {MISCONCEIVED}") == first
    checked(client, COVERS_TWO_TOO)
    assert built == [OWNER_CARD]


def test_an_edited_card_is_checked_as_edited(app: FastAPI, client: TestClient, tmp_path: Path) -> None:
    folder = tmp_path / "content"
    folder.mkdir()
    source = PROJECT_ROOT / "content" / f"{OWNER_CARD}.md"
    card_file = folder / source.name
    card_file.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    catalogue = Catalogue(folder, poll_seconds=0)
    app.dependency_overrides[get_catalogue] = lambda: catalogue
    assert checked(client, COVERS_TWO)["points"][0]["covered"] is True
    edited = source.read_text(encoding="utf-8").replace(
        "1. overlap producing with consuming", "1. shuffle files"
    )
    card_file.write_text(edited, encoding="utf-8")
    os.utime(card_file, (time.time() + 5, time.time() + 5))
    after = [point["id"] for point in checked(client, COVERS_TWO)["points"]]
    assert after == [point.key for point in load(folder).cards[OWNER_CARD].points] != list(CARD.point_ids)


LIMIT = 3
PAST_THE_LIMIT = re.compile(
    rf"you made {LIMIT} coverage checks in the last minute \(at most {LIMIT} a minute\): try again in (\d+) s"
)


def test_past_coverage_checks_per_minute_a_person_gets_429_and_others_still_check(
    team_app: FastAPI,
) -> None:
    team_app.state.settings = team_app.state.settings.model_copy(update={"coverage_checks_per_minute": LIMIT})
    alice, bob = (sign_in(fresh_client(team_app), name) for name in ("alice", "bob"))
    signed_in = audit_rows(team_app)
    for _ in range(LIMIT):
        checked(alice, COVERS_TWO)
    refused = alice.post(URL, json={"tier": "middle", "text": COVERS_TWO})
    assert refused.status_code == 429
    said = PAST_THE_LIMIT.fullmatch(refused.json()["detail"])
    assert said is not None, refused.json()
    assert refused.headers["Retry-After"] == said.group(1) and 1 <= int(said.group(1)) <= 60
    assert checked(bob, COVERS_TWO)["points"][0]["covered"] is True
    # Counted in memory: neither the checks nor the refusal wrote anything.
    assert stored_rows(team_app) == 0 and audit_rows(team_app) == signed_in


def test_in_single_mode_the_local_user_is_held_to_the_limit(app: FastAPI, client: TestClient) -> None:
    app.state.settings = app.state.settings.model_copy(update={"coverage_checks_per_minute": LIMIT})
    for _ in range(LIMIT):
        checked(client, COVERS_TWO)
    refused = client.post(URL, json={"tier": "middle", "text": COVERS_TWO})
    assert refused.status_code == 429 and PAST_THE_LIMIT.fullmatch(refused.json()["detail"])
    assert int(refused.headers["Retry-After"]) >= 1
    assert stored_rows(app) == 0


def test_a_check_sent_while_the_persons_last_is_under_way_is_429(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, release = threading.Event(), threading.Event()
    real = service.coverage_document

    def held(card: Card, text: str) -> Any:
        started.set()
        assert release.wait(10)
        return real(card, text)

    monkeypatch.setattr(service, "coverage_document", held)
    body = {"tier": "middle", "text": COVERS_TWO}
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(client.post, URL, json=body)
        assert started.wait(10)
        try:
            second = client.post(URL, json=body)
        finally:
            release.set()
        assert first.result().status_code == 200
    assert second.status_code == 429
    assert second.json() == {
        "detail": "you have a coverage check under way: send the next once it has answered"
    }
    assert second.headers["Retry-After"] == "1"
    # Once the first has answered, the next goes.
    assert checked(client, COVERS_TWO)["points"][0]["covered"] is True


def test_the_api_schema_names_the_429(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/api/cards/{card_id}/coverage"]["post"]
    assert "COVERAGE_CHECKS_PER_MINUTE" in operation["responses"]["429"]["description"]


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=50),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)
BODIES = st.fixed_dictionaries(
    {"tier": st.sampled_from(["junior", "middle", "senior", "principal"]) | JSON, "text": st.text() | JSON},
    optional={"extra": JSON},
)


@given(body=BODIES | JSON)
@settings(max_examples=150, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_body_for_a_served_card_makes_a_5xx(app: FastAPI, client: TestClient, body: Any) -> None:
    """The schema fuzz's card ids are made up; here the card is real, so the checker runs on
    whatever text gets past validation, and anything else is a 422."""
    # More checks in a minute than COVERAGE_CHECKS_PER_MINUTE lets one person make.
    unlimited = Pacing(per_minute=1_000_000)
    app.dependency_overrides.setdefault(get_pacing, lambda: unlimited)
    response = client.post(URL, json=body)
    assert response.status_code in (200, 422), response.text
    text = body.get("text") if isinstance(body, dict) else None
    valid = (
        set(body if isinstance(body, dict) else ()) == {"tier", "text"}
        and body["tier"] in ("junior", "middle", "senior", "principal")
        and isinstance(text, str)
        and text.strip() != ""
        and len(text.strip()) <= MAX_ANSWER_CHARS
        and not any("\ud800" <= char <= "\udfff" for char in text)
    )
    assert (response.status_code == 200) == valid, body
    if valid:
        assert len(response.json()["points"]) == len(CARD.points)


CLI_ANSWER = (
    "Prefetch overlaps producing the next batch with consuming the current one.\n"
    "I think prefetch parallelizes map across many threads."
)


def test_the_clis_json_read_by_words_is_the_apis_document(client: TestClient) -> None:
    result = CliRunner().invoke(
        cli, ["coverage", OWNER_CARD, "--method", "lexical", "--tier", "Senior", "--json"], input=CLI_ANSWER
    )
    code, out, err = result.exit_code, result.stdout, result.stderr
    assert code == 0, err
    api = client.post(f"/api/cards/{OWNER_CARD}/coverage", json={"tier": "senior", "text": CLI_ANSWER})
    assert json.loads(out) == api.json()
