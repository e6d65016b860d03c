"""How answers given aloud were said, over time and out of the app: "Pace and fillers" on
/progress (the newest 50), the API's progress, the JSON and CSV exports, and imports that check
the figures' ranges and that only spoken kinds of answer carry them."""

import csv
import io
import json
from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete

from app.practice import stats
from app.practice.models import Attempt
from app.storage.base import utcnow
from app.transfer.schemas import MAX_DELIVERY_COUNT, MAX_WORDS_PER_MINUTE
from app.web.templating import templates
from tests.factories import make_attempt
from tests.helpers.html import soup_of
from tests.helpers.practice import add, counts, write_session


def spoken(count: int, *, start_wpm: float = 120.0) -> list[Attempt]:
    """`count` answers given aloud, a day apart, the newest last, each a little faster."""
    now = utcnow()
    return [
        make_attempt(
            created_at=now - timedelta(days=count - i),
            words_per_minute=start_wpm + i,
            filler_count=i % 4,
            long_pauses=i % 2,
        )
        for i in range(count)
    ]


def test_pace_and_fillers_shows_spoken_answers_oldest_first(app: FastAPI, client: TestClient) -> None:
    add(app, *spoken(3), make_attempt(text="typed, not said"))
    rows = soup_of(client.get("/progress")).select(".pace-fillers tr.spoken-answer")
    assert [row.select_one(".pace").get_text(" ", strip=True).split(" ")[0] for row in rows] == [
        "120",
        "121",
        "122",
    ]
    assert [row.select_one(".fillers").get_text(strip=True) for row in rows] == ["0", "1", "2"]
    assert [row.select_one(".long-pauses").get_text(strip=True) for row in rows] == ["0", "1", "0"]
    body = client.get("/api/progress").json()
    assert [s["words_per_minute"] for s in body["spoken"]] == [120.0, 121.0, 122.0]


def test_pace_and_fillers_shows_only_the_newest_50(app: FastAPI, client: TestClient) -> None:
    add(app, *spoken(53))
    rows = soup_of(client.get("/progress")).select(".pace-fillers tr.spoken-answer")
    assert len(rows) == 50
    assert rows[0].select_one(".pace").get_text(strip=True).startswith("123 wpm")
    assert len(client.get("/api/progress").json()["spoken"]) == 50


def test_without_spoken_answers_the_panel_says_how_to_get_one(client: TestClient) -> None:
    panel = soup_of(client.get("/progress")).select_one(".pace-fillers")
    assert "No answers given aloud yet" in panel.get_text()


def test_exports_carry_the_figures_and_an_import_restores_them(app: FastAPI, client: TestClient) -> None:
    add(app, *spoken(2), make_attempt(text="typed"))
    doc = client.get("/api/export.json").json()
    figures = [
        (a.get("words_per_minute"), a.get("filler_count"), a.get("long_pauses")) for a in doc["attempts"]
    ]
    assert sorted(figures, key=str) == sorted([(120.0, 0, 0), (121.0, 1, 1), (None, None, None)], key=str)
    typed = next(a for a in doc["attempts"] if a["text"] == "typed")
    assert not {"words_per_minute", "filler_count", "long_pauses"} & set(typed)  # as before there were any
    table = list(csv.DictReader(io.StringIO(client.get("/api/export.csv").text)))
    assert sorted(row["words_per_minute"] for row in table) == ["", "120.0", "121.0"]
    assert sorted(row["long_pauses"] for row in table) == ["", "0", "1"]
    with write_session(app) as session:
        session.execute(delete(Attempt))
    response = client.post("/api/import", json=doc)
    assert response.status_code == 200, response.text
    again = client.get("/api/export.json").json()
    restored = [
        (a.get("words_per_minute"), a.get("filler_count"), a.get("long_pauses")) for a in again["attempts"]
    ]
    assert sorted(restored, key=str) == sorted(figures, key=str)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        pytest.param({"words_per_minute": 601.0}, "words_per_minute", id="too-fast"),
        pytest.param({"words_per_minute": -1.0}, "words_per_minute", id="negative-pace"),
        pytest.param({"filler_count": 10_001}, "filler_count", id="too-many-fillers"),
        pytest.param({"long_pauses": -2}, "long_pauses", id="negative-pauses"),
        pytest.param({"kind": "quiz", "text": None, "choices": [], "score": 0.5}, None, id="on-a-quiz"),
        pytest.param({"revealed": True, "text": None, "rating": None, "points": []}, None, id="on-a-reveal"),
    ],
)
def test_an_import_with_impossible_figures_is_refused_naming_them(
    app: FastAPI, client: TestClient, change: dict[str, Any], field: str | None
) -> None:
    add(app, *spoken(1))
    doc = client.get("/api/export.json").json()
    with write_session(app) as session:
        session.execute(delete(Attempt))
    doc["attempts"][0].update(change)
    response = client.post(
        "/api/import", content=json.dumps(doc), headers={"content-type": "application/json"}
    )
    assert response.status_code == 422, response.text
    (problem,) = response.json()["detail"]
    assert problem["loc"][:2] == ["attempts", 0]
    if field is None:
        assert "belong only to a basics, solid or follow-up answer" in problem["msg"]
    else:
        assert problem["loc"][2] == field
    assert counts(app)["attempts"] == 0


def test_figures_stored_past_the_export_s_bounds_still_export(app: FastAPI, client: TestClient) -> None:
    """A row stored before its figures were bounded (or by an older version) exports, held to the
    bounds an import accepts, so the file still imports."""
    add(app, make_attempt(words_per_minute=700.0, filler_count=MAX_DELIVERY_COUNT + 5, long_pauses=-1))
    response = client.get("/api/export.json")
    assert response.status_code == 200, response.text
    (attempt,) = response.json()["attempts"]
    assert attempt["words_per_minute"] == MAX_WORDS_PER_MINUTE
    assert (attempt["filler_count"], attempt["long_pauses"]) == (MAX_DELIVERY_COUNT, 0)
    assert client.get("/api/export.csv").status_code == 200
    with write_session(app) as session:
        session.execute(delete(Attempt))
    assert client.post("/api/import", json=response.json()).status_code == 200
    assert counts(app)["attempts"] == 1


def test_pace_and_fillers_says_how_many_it_shows_from_the_bound_of_its_query(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stats, "SPOKEN_SHOWN", 3)
    add(app, *spoken(4))
    panel = soup_of(client.get("/progress")).select_one(".pace-fillers")
    assert len(panel.select("tr.spoken-answer")) == 3
    assert "the newest 3" in panel.select_one("h2").get_text()


def test_pace_and_fillers_marks_the_band_the_pace_is_measured_against(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(templates.env.globals, "pace_band", (120, 160))
    add(app, *spoken(1))
    panel = soup_of(client.get("/progress")).select_one(".pace-fillers")
    meter = panel.select_one("tr.spoken-answer meter")
    assert (meter["low"], meter["high"], meter["value"]) == ("120", "160", "120.0")
    assert "120\u2013160 words a minute" in panel.get_text()
