"""The checker's suggestions in the exports: the JSON file carries each answer's, the CSV two columns,
and an import stores them as exported (checked: junk gets a 422 and stores nothing)."""

import csv
import io
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select

from app.coverage.checker import check
from app.practice.models import Attempt, AttemptCoverage, ReviewLog, ReviewState
from tests.factories import DECK, OWNER_CARD
from tests.helpers.html import HTMX, one, soup_of
from tests.helpers.practice import counts, write_session
from tests.helpers.suggestions import ANSWER

CARD = DECK[OWNER_CARD]


def answered_and_assessed(client: TestClient) -> list[str]:
    """A typed answer assessed with one suggested point unticked, a follow-up, a reveal; the ticks."""
    data = {"tier": "middle", "kind": "solid", "text": ANSWER, "seconds": "12"}
    soup = soup_of(client.post(f"/cards/{OWNER_CARD}/answers", data=data, headers=HTMX))
    mine = sorted(check(CARD, ANSWER).covered)[1:]
    action = str(one(soup, "form.assessment")["action"])
    assert client.post(action, data={"points": mine, "rating": "hard"}, headers=HTMX).status_code == 200
    follow_up = {
        "tier": "middle",
        "kind": "follow-up",
        "follow_up": "0",
        "text": "Add parallelism.",
        "seconds": "9",
    }
    client.post(f"/cards/{OWNER_CARD}/answers", data=follow_up, headers=HTMX)
    client.post(f"/cards/{OWNER_CARD}/reveal", data={"tier": "middle", "kind": "solid"}, headers=HTMX)
    return mine


def stored(app: FastAPI) -> list[dict[str, Any]]:
    with app.state.db.read_sessions() as session:
        rows = session.scalars(select(AttemptCoverage).order_by(AttemptCoverage.attempt_id))
        return [
            {k: getattr(row, k) for k in ("method", "points", "pitfalls", "agreed", "compared")}
            for row in rows
        ]


def exported(row: dict[str, Any]) -> dict[str, Any]:
    """A stored suggestion as the file has it: a pitfall by its quiz id, the stored key prefixed."""
    return row | {"pitfalls": [p | {"id": f"p-{p['id']}"} for p in row["pitfalls"]]}


def wipe(app: FastAPI) -> None:
    with write_session(app) as session:
        for table in (ReviewLog, ReviewState, Attempt):
            session.execute(delete(table))


def test_the_json_export_carries_each_answers_suggestion(app: FastAPI, client: TestClient) -> None:
    answered_and_assessed(client)
    attempts = client.get("/api/export.json").json()["attempts"]
    main, follow_up, reveal = attempts
    assert "coverage" not in reveal
    expected = check(CARD, ANSWER)
    coverage = main["coverage"]
    assert coverage["method"] == expected.method
    assert [(p["id"], p["covered"]) for p in coverage["points"]] == [
        (h.id, h.covered) for h in expected.points
    ]
    # A pitfall by the id the card API and the quiz's choices name it by.
    assert [p["id"] for p in coverage["pitfalls"]] == [f"p-{h.id}" for h in expected.pitfalls]
    assert expected.pitfalls
    assert (coverage["agreed"], coverage["compared"]) == (len(CARD.points) - 1, len(CARD.points))
    assert follow_up["coverage"]["agreed"] is None
    assert [main["coverage"], follow_up["coverage"]] == [exported(row) for row in stored(app)]


def test_the_csv_export_says_what_was_suggested_and_how_the_ticks_agreed(client: TestClient) -> None:
    answered_and_assessed(client)
    rows = list(csv.DictReader(io.StringIO(client.get("/api/export.csv?table=attempts").text)))
    main, follow_up, reveal = rows
    assert main["suggested_point_ids"].split() == check(CARD, ANSWER).covered
    assert main["agreed_with_checker"] == f"{len(CARD.points) - 1} of {len(CARD.points)}"
    assert follow_up["agreed_with_checker"] == "" and reveal["suggested_point_ids"] == ""


def test_an_export_imports_back_with_its_suggestions(app: FastAPI, client: TestClient) -> None:
    answered_and_assessed(client)
    doc = client.get("/api/export.json").json()
    before = stored(app)
    wipe(app)
    assert stored(app) == []
    response = client.post("/api/import", json=doc)
    assert response.status_code == 200, response.text
    assert stored(app) == before
    # Imported as they were: the answer page and /progress read them as before.
    progress = soup_of(client.get("/progress"))
    row = one(progress, f'tr.card-progress[data-card-id="{OWNER_CARD}"]')
    assert f"agreed on {len(CARD.points) - 1} of {len(CARD.points)} points" in row.get_text(" ")


def test_a_file_naming_pitfalls_by_their_bare_key_still_imports(app: FastAPI, client: TestClient) -> None:
    """Files exported before pitfalls were named by their quiz id hold the key alone."""
    answered_and_assessed(client)
    doc = client.get("/api/export.json").json()
    before = stored(app)
    for pitfall in _main(doc)["pitfalls"]:
        pitfall["id"] = pitfall["id"].removeprefix("p-")
    wipe(app)
    assert client.post("/api/import", json=doc).status_code == 200
    assert stored(app) == before and before[0]["pitfalls"]


def test_an_import_computes_no_suggestion_for_an_answer_without_one(app: FastAPI, client: TestClient) -> None:
    answered_and_assessed(client)
    doc = client.get("/api/export.json").json()
    for attempt in doc["attempts"]:
        attempt.pop("coverage", None)
    wipe(app)
    assert client.post("/api/import", json=doc).status_code == 200
    with app.state.db.read_sessions() as session:
        assert session.scalar(select(func.count()).select_from(AttemptCoverage)) == 0
        assert session.scalar(select(func.count()).select_from(Attempt)) == 3


def _main(doc: dict[str, Any]) -> dict[str, Any]:
    coverage: dict[str, Any] = doc["attempts"][0]["coverage"]
    return coverage


@pytest.mark.parametrize(
    "breakage",
    [
        lambda d: _main(d)["points"][0].update(start=0, end=len(ANSWER) + 1),  # past the text
        lambda d: _main(d)["points"][0].update(start=5, end=5),
        lambda d: _main(d)["points"][0].update(start=5, end=None),
        lambda d: _main(d)["points"][0].update(start=-1, end=3),
        lambda d: _main(d)["points"][0].update(score=2.0),
        lambda d: _main(d)["points"][0].update(id="<script>"),
        lambda d: _main(d)["points"][0].update(surprise=1),
        lambda d: _main(d).update(points=_main(d)["points"] * 30),
        lambda d: _main(d).update(agreed=9, compared=2),
        lambda d: _main(d).update(agreed=None),
        lambda d: _main(d).update(method=""),
        lambda d: _main(d).update(method="x" * 33),
        lambda d: _main(d)["pitfalls"].append({"id": "0badf00d"}),
        lambda d: _main(d)["pitfalls"][0].update(id="t-" + _main(d)["pitfalls"][0]["id"][2:]),
        lambda d: _main(d)["pitfalls"][0].update(id="p-p-" + _main(d)["pitfalls"][0]["id"][2:]),
        lambda d: _main(d).update(points="all"),
        lambda d: d["attempts"][2].update(coverage=_main(d)),  # on a reveal
    ],
)
def test_junk_suggestions_in_an_import_get_422_and_store_nothing(
    app: FastAPI, client: TestClient, breakage: Any
) -> None:
    answered_and_assessed(client)
    doc = client.get("/api/export.json").json()
    wipe(app)
    breakage(doc)
    response = client.post("/api/import", json=doc)
    assert response.status_code == 422, response.text
    assert isinstance(response.json()["detail"], list)
    assert counts(app) == {"attempts": 0, "review_logs": 0, "review_states": 0} and stored(app) == []
