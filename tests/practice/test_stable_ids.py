"""Attempts name answer points and quiz items by ids from their text: reordering a card keeps what
they refer to; rows and exports from before the ids are converted (migration 0005, version-1 import)."""

from pathlib import Path
from typing import Any

from alembic import command
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Column, MetaData, Table, delete, insert, select
from sqlalchemy.orm import Session

from app.content.parser import parse_card
from app.practice import quiz
from app.practice.models import Attempt
from app.settings import Settings
from app.storage import migrations
from app.storage.base import utcnow
from app.storage.database import make_engine
from tests.factories import card_text, make_attempt, write_card
from tests.helpers.practice import post_attempt, quiz_ids, write_session
from tests.services import database_url

SAMPLE = "sample-card"
POINTS = [
    "Overlap producing with consuming",
    "The buffer holds whole batches",
    "A background thread fills it",
]
PITFALLS = ["Prefetch adds worker threads", "Prefetch fixes a slow input"]
TRUTHS = ["A pipeline may prefetch twice", "AUTOTUNE sizes the buffer as it runs"]


def sample(points: list[str], pitfalls: list[str], truths: list[str]) -> str:
    """The sample card with these answer points, pitfalls and true statements, in this order."""

    def entries(headings: list[str], why: str) -> str:
        return "".join(f"### {heading}\n{why}\n\n" for heading in headings)

    return card_text(
        SAMPLE,
        **{
            "1. The first point a good answer makes\n2. The second point": "\n".join(
                f"{number}. {point}" for number, point in enumerate(points, start=1)
            ),
            "### A wrong belief a candidate might state\nWhy it is wrong.\n": entries(pitfalls, "Wrong."),
            "### A true statement that sounds like it could be a pitfall\nWhy it is true.\n": entries(
                truths, "True."
            ),
        },
    )


def sections(client: TestClient) -> dict[str, Any]:
    body: dict[str, Any] = client.get(f"/api/cards/{SAMPLE}", params={"tier": "principal"}).json()
    return dict(body["sections"])


def statements(client: TestClient) -> dict[str, str]:
    """Each quiz item's statement by its id, as the card is served now."""
    served = sections(client)
    return {e["id"]: e["statement"]["markdown"] for e in served["pitfalls"] + served["true_statements"]}


def missed(client: TestClient) -> dict[str, int]:
    return {m["statement"]: m["missed"] for m in client.get("/api/progress").json()["missed_pitfalls"]}


def test_reordering_a_card_keeps_what_earlier_attempts_name(client: TestClient, content_folder: Path) -> None:
    write_card(content_folder, "sample-card.md", sample(POINTS, PITFALLS, TRUTHS))
    pitfalls, truths = quiz_ids(client, SAMPLE)
    # Flags the first pitfall and, wrongly, the first true statement; misses the second pitfall.
    post_attempt(
        client, SAMPLE, kind="quiz", text=None, choices=[pitfalls[0], truths[0]], points=[], rating=None
    )
    post_attempt(client, SAMPLE, points=[0, 2])
    assert missed(client) == {PITFALLS[1]: 1, TRUTHS[0]: 1}
    [answer, quiz_attempt] = client.get("/api/attempts").json()

    # Points rotated, pitfalls and true statements swapped. A new file name shows it at once.
    (content_folder / "sample-card.md").unlink()
    write_card(content_folder, "reordered.md", sample(POINTS[1:] + POINTS[:1], PITFALLS[::-1], TRUTHS[::-1]))

    assert missed(client) == {PITFALLS[1]: 1, TRUTHS[0]: 1}
    [answer_now, quiz_now] = client.get("/api/attempts").json()
    assert {statements(client)[c] for c in quiz_now["choices"]} == {PITFALLS[0], TRUTHS[0]}
    assert quiz_now["score"] == quiz_attempt["score"] == 0.5
    assert answer_now["point_ids"] == answer["point_ids"] and answer_now["points"] == [1, 2]
    served = [p["markdown"] for p in sections(client)["answer_points"]]
    assert {served[i] for i in answer_now["points"]} == {POINTS[0], POINTS[2]}
    history = client.get(f"/cards/{SAMPLE}/history", headers={"HX-Request": "true"}).text
    assert "2 / 3" in history


def test_points_may_be_sent_by_id_and_unknown_ids_are_refused(
    client: TestClient, content_folder: Path
) -> None:
    write_card(content_folder, "sample-card.md", sample(POINTS, PITFALLS, TRUTHS))
    ids = [p["id"] for p in sections(client)["answer_points"]]
    stored = post_attempt(client, SAMPLE, points=[ids[2], 0])
    assert (stored["points"], stored["point_ids"]) == ([0, 2], [ids[0], ids[2]])
    for bad in (["0123abcd"], ["2"]):  # an id the card lacks; a position sent as text
        response = client.post(
            f"/api/cards/{SAMPLE}/attempts",
            json={"tier": "middle", "kind": "solid", "text": "x", "seconds": 1, "points": bad},
        )
        assert response.status_code == 422 and "points" in str(response.json()["detail"])


def _attempt_v1(number: int, card_id: str = SAMPLE, **fields: Any) -> dict[str, Any]:
    """An attempt as a version-1 export wrote it: points and choices by position."""
    return {
        "id": number,
        "card_id": card_id,
        "tier": "middle",
        "kind": "solid",
        "text": f"answer {number}",
        "seconds": 20.0,
        "rating": "good",
        "points": [],
        "created_at": f"2026-03-0{number}T09:30:00Z",
    } | fields


def without_ids(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in a.items() if k != "id"} for a in doc["attempts"]]


def test_a_version_1_export_imports_into_ids(app: FastAPI, client: TestClient, content_folder: Path) -> None:
    write_card(content_folder, "sample-card.md", sample(POINTS, PITFALLS, TRUTHS))
    points = [p["id"] for p in sections(client)["answer_points"]]
    pitfalls, truths = quiz_ids(client, SAMPLE)
    quiz_fields = {"kind": "quiz", "text": None, "rating": None, "score": 0.5}
    doc = {
        "format": "tiercards-export",
        "version": 1,
        "exported_at": "2026-03-09T10:00:00Z",
        "settings": {"target_tier": "middle", "desired_retention": 0.9, "new_per_day": 10},
        "attempts": [
            _attempt_v1(1, points=[0, 2]),
            _attempt_v1(2, **quiz_fields, choices=["t0", "p1"]),
            _attempt_v1(3, points=[1, 7]),  # past the end of the card's points
            _attempt_v1(4, "a-retired-card", points=[1]),
            _attempt_v1(5, "a-retired-card", **quiz_fields, choices=["p0"]),
        ],
        "review_states": [],
        "review_logs": [],
    }
    assert client.post("/api/import", json=doc).json()["attempts_added"] == 5
    stored = {a["text"] or a["created_at"][:10]: a for a in client.get("/api/attempts").json()}
    assert (stored["answer 1"]["point_ids"], stored["answer 1"]["points"]) == ([points[0], points[2]], [0, 2])
    assert stored["2026-03-02"]["choices"] == [truths[0], pitfalls[1]]
    assert (stored["answer 3"]["point_ids"], stored["answer 3"]["points"]) == ([points[1], "#7"], [1])
    assert (stored["answer 4"]["point_ids"], stored["answer 4"]["points"]) == (["#1"], [])
    assert stored["2026-03-05"]["choices"] == ["p0"]
    # Importing it again adds nothing; the version-2 export of the result imports back whole.
    assert client.post("/api/import", json=doc).json()["attempts_already_present"] == 5
    exported = client.get("/api/export.json").json()
    assert exported["version"] == 2
    with write_session(app) as session:
        session.execute(delete(Attempt))
    assert client.post("/api/import", json=exported).json()["attempts_added"] == 5
    assert without_ids(client.get("/api/export.json").json()) == without_ids(exported)


# The attempts table as revision 0004 made it: the model has gained columns since (0010 the
# reveal, 0015 how an answer was said aloud).
LATER_COLUMNS = ("id", "revealed", "recording_id", "words_per_minute", "filler_count", "long_pauses")
ATTEMPTS_0004 = Table(
    "attempts",
    MetaData(),
    *(Column(c.name, c.type) for c in Attempt.__table__.c if c.name not in LATER_COLUMNS),
)


def _stored(settings: Settings) -> list[tuple[list[Any], list[str] | None]]:
    engine = make_engine(settings)
    try:
        with Session(engine) as session:
            query = select(Attempt.points, Attempt.choices).order_by(Attempt.id)
            return [(points, choices) for points, choices in session.execute(query)]
    finally:
        engine.dispose()


def test_migration_0005_turns_positions_into_ids_and_back(tmp_path: Path) -> None:
    folder = tmp_path / "content"
    folder.mkdir()
    card = parse_card(write_card(folder, "sample-card.md", sample(POINTS, PITFALLS, TRUTHS)))
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=database_url(tmp_path / "data"),
        content_dir=folder,
        secret_key="test-only-secret-key-that-is-long-enough",
    )
    migrations.upgrade(settings, "0004")
    positional: list[tuple[str, list[Any], list[str] | None]] = [
        (SAMPLE, [0, 2], ["p1", "t0"]),
        (SAMPLE, [1, 7], ["p0", "p9"]),  # past the ends of the card's lists
        ("a-retired-card", [1], ["t0"]),
        (SAMPLE, [], None),
    ]
    engine = make_engine(settings)
    with engine.begin() as connection:
        rows = [make_attempt(card_id=c, points=p, choices=ch) for c, p, ch in positional]
        connection.execute(
            insert(ATTEMPTS_0004),
            [
                {c.name: getattr(row, c.name) for c in ATTEMPTS_0004.c} | {"created_at": utcnow()}
                for row in rows
            ],
        )
    engine.dispose()

    migrations.upgrade(settings)
    old = quiz.positional_ids(card)
    assert _stored(settings) == [
        ([card.point_ids[0], card.point_ids[2]], sorted([old["p1"], old["t0"]])),
        ([card.point_ids[1], "#7"], sorted([old["p0"], "p9"])),
        (["#1"], ["t0"]),
        ([], None),
    ]

    engine = make_engine(settings, migrating=True)
    try:
        with engine.begin() as connection:
            config = migrations.alembic_config()
            config.attributes |= {"connection": connection, "settings": settings}
            command.downgrade(config, "0004")
    finally:
        engine.dispose()
    assert _stored(settings) == [(points, choices) for _, points, choices in positional]
