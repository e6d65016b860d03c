"""The JSON API: cards per tier, attempts stored and listed, bad input refused with nothing stored."""

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.factories import OWNER_CARD
from tests.helpers.payloads import attempt_payload
from tests.helpers.practice import attempts_of, post_attempt


def stored(client: TestClient) -> list[dict[str, Any]]:
    response = client.get("/api/attempts")
    assert response.status_code == 200
    return list(response.json())


def test_card_list_has_metadata_for_every_card(client: TestClient) -> None:
    body = client.get("/api/cards").json()
    owner = next(c for c in body["cards"] if c["id"] == OWNER_CARD)
    assert owner["level"] == "middle" and owner["importance"] == "must-know"
    assert owner["frequency"] == 0.72 and owner["timings"] == {"basics": 20, "solid": 50}
    assert body["broken"] == []


@pytest.mark.parametrize(
    ("tier", "present", "absent", "go_deeper"),
    [
        (
            "junior",
            {"answer_points", "basics", "code", "pitfalls"},
            {"solid_answer", "follow_ups", "deep_dive"},
            1,
        ),
        ("middle", {"solid_answer", "follow_ups"}, {"deep_dive"}, 2),
        ("senior", {"solid_answer", "follow_ups", "deep_dive"}, set(), 3),
        ("principal", {"solid_answer", "follow_ups", "deep_dive", "true_statements"}, set(), 4),
    ],
)
def test_each_tier_sees_its_sections(
    client: TestClient, tier: str, present: set[str], absent: set[str], go_deeper: int
) -> None:
    body = client.get(f"/api/cards/{OWNER_CARD}", params={"tier": tier}).json()
    sections = body["sections"]
    assert body["tier"] == tier
    assert present <= set(sections) and not absent & set(sections)
    assert len(sections["go_deeper"]) == go_deeper
    assert len(sections["answer_points"]) == 5 and len(sections["pitfalls"]) == 5


def test_card_defaults_to_its_own_level(client: TestClient) -> None:
    assert client.get(f"/api/cards/{OWNER_CARD}").json()["tier"] == "middle"


def test_principal_sees_all_four_follow_ups_with_answers(client: TestClient) -> None:
    follow_ups = client.get(f"/api/cards/{OWNER_CARD}?tier=principal").json()["sections"]["follow_ups"]
    assert len(follow_ups) == 4
    assert all(f["answer"]["markdown"] for f in follow_ups)


def test_unknown_card_is_404_and_unknown_tier_422(client: TestClient) -> None:
    assert client.get("/api/cards/no-such-card").status_code == 404
    response = client.get(f"/api/cards/{OWNER_CARD}?tier=wizard")
    assert response.status_code == 422
    assert response.json()["detail"][0]["msg"] == "tier must be junior, middle, senior or principal"


def test_posting_an_attempt_stores_it_and_answers_201(client: TestClient) -> None:
    response = client.post(attempts_of(), json=attempt_payload())
    assert response.status_code == 201
    body = response.json()
    assert isinstance(body["id"], int)
    assert body["card_id"] == OWNER_CARD and body["points"] == [0, 1] and body["rating"] == "good"
    assert body["created_at"].endswith(("Z", "+00:00"))
    assert [a["id"] for a in stored(client)] == [body["id"]]


def test_attempts_are_listed_newest_first_and_filtered_by_card(client: TestClient) -> None:
    first = post_attempt(client)["id"]
    second = post_attempt(client, kind="follow-up", follow_up=2, points=[])["id"]
    other = post_attempt(client, "tf-data-cache-shuffle-order", points=[])["id"]
    assert [a["id"] for a in stored(client)] == [other, second, first]
    only_owner = client.get("/api/attempts", params={"card_id": OWNER_CARD}).json()
    assert [a["id"] for a in only_owner] == [second, first]


def test_quiz_attempt_is_scored_from_choices(client: TestClient) -> None:
    card = client.get(f"/api/cards/{OWNER_CARD}").json()["sections"]
    pitfalls = [p["id"] for p in card["pitfalls"]]
    perfect = client.post(
        attempts_of(), json=attempt_payload(kind="quiz", text=None, choices=pitfalls, rating=None, points=[])
    )
    assert perfect.status_code == 201 and perfect.json()["score"] == 1.0
    truths = [t["id"] for t in card["true_statements"]]
    backwards = post_attempt(client, kind="quiz", text=None, choices=truths, rating=None, points=[])
    assert backwards["score"] == 0.0


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"text": ""}, "text"),
        ({"text": "   "}, "text"),
        ({"text": "x" * 20_001}, "text"),
        ({"rating": "meh"}, "rating"),
        ({"seconds": -1}, "seconds"),
        ({"tier": "wizard"}, "tier"),
        ({"kind": "essay"}, "kind"),
        ({"points": [7]}, "points"),
        ({"kind": "follow-up", "follow_up": 9}, "follow_up"),
        ({"kind": "follow-up"}, "follow_up"),
        ({"kind": "quiz", "choices": ["p0", "zz"], "text": None}, "choices"),
        ({"kind": "quiz", "choices": ["p0"]}, "text"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_attempts_get_422_and_store_nothing(
    client: TestClient, overrides: dict[str, Any], field: str
) -> None:
    response = client.post(attempts_of(), json=attempt_payload(**overrides))
    assert response.status_code == 422
    assert field in str(response.json()["detail"])
    assert stored(client) == []


def test_attempt_on_unknown_card_is_404(client: TestClient) -> None:
    assert client.post(attempts_of("no-such-card"), json=attempt_payload()).status_code == 404
    assert stored(client) == []


def test_an_answer_of_exactly_20000_characters_is_accepted(client: TestClient) -> None:
    assert client.post(attempts_of(), json=attempt_payload(text="y" * 20_000)).status_code == 201


def test_state_changing_requests_need_the_csrf_token(anonymous_client: TestClient) -> None:
    anonymous_client.get("/")
    missing = anonymous_client.post(f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload())
    wrong = anonymous_client.post(
        f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload(), headers={"X-CSRF-Token": "forged.token"}
    )
    assert missing.status_code == 403 and wrong.status_code == 403
    assert anonymous_client.get("/api/attempts").json() == []


def test_responses_carry_security_headers(client: TestClient) -> None:
    headers = client.get("/").headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"


def test_healthz_and_openapi(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    paths = client.get("/openapi.json").json()["paths"]
    assert {
        "/api/cards",
        "/api/cards/{card_id}",
        "/api/cards/{card_id}/attempts",
        "/api/attempts",
        "/healthz",
        "/readyz",
    } <= set(paths)
    assert "/metrics" not in paths
    assert client.get("/docs").status_code == 200
