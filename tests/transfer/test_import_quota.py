"""The import quota (IMPORT_ROWS_PER_PERSON): an import that would leave a person more stored
rows (attempts, reviews and schedule states) than it allows is refused whole, with a sentence that
names it; one within it, or one that adds nothing new, merges as before."""

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select

from app.accounts.models import AuditEvent
from app.practice.models import Attempt, ReviewLog, ReviewState
from app.transfer import quota
from app.transfer.models import ImportGuard
from tests.factories import OWNER_CARD, make_attempt
from tests.helpers.html import HTMX
from tests.helpers.payloads import import_upload
from tests.helpers.practice import T0, add, counts, review, write_session

# history(): 3 attempts, 2 review logs and their card's review state.
ROWS = 6
NONE = {"attempts": 0, "review_logs": 0, "review_states": 0}
STORED = {"attempts": 3, "review_logs": 2, "review_states": 1}


def history(app: FastAPI) -> None:
    add(app, *(make_attempt(created_at=T0 + timedelta(minutes=i)) for i in range(3)))
    review(app, "good", T0)
    review(app, "good", T0 + timedelta(days=1))


def exported(client: TestClient) -> dict[str, Any]:
    response = client.get("/api/export.json")
    assert response.status_code == 200
    doc: dict[str, Any] = response.json()
    return doc


def wipe(app: FastAPI) -> None:
    with write_session(app) as session:
        for table in (ReviewLog, ReviewState, Attempt):
            session.execute(delete(table))


def with_another_answer(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` with one more attempt than it had, given an hour after its first."""
    first = doc["attempts"][0]
    later = (T0 + timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    new = first | {"id": max(a["id"] for a in doc["attempts"]) + 1, "created_at": later}
    return doc | {"attempts": [*doc["attempts"], new]}


def imports_audited(app: FastAPI) -> int:
    with app.state.db.read_sessions() as session:
        return session.scalar(select(func.count()).where(AuditEvent.kind == "import")) or 0


def guards(app: FastAPI) -> int:
    with app.state.db.read_sessions() as session:
        return session.scalar(select(func.count()).select_from(ImportGuard)) or 0


def assert_over_quota(response: Any, quota: int) -> None:
    assert response.status_code == 413, response.text
    detail = response.json()["detail"]
    assert "IMPORT_ROWS_PER_PERSON" in detail and f"quota of {quota:,}" in detail
    assert "nothing of it was imported" in detail


@pytest.fixture
def over_quota(app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The person's own export, their history wiped, and a quota one row short of taking it back."""
    history(app)
    doc = exported(client)
    wipe(app)
    monkeypatch.setattr(app.state.settings, "import_rows_per_person", ROWS - 1)
    return doc


def test_an_import_past_the_quota_is_refused_whole_with_a_413_that_names_it(
    app: FastAPI, client: TestClient, over_quota: dict[str, Any]
) -> None:
    doc = over_quota
    audited = imports_audited(app)
    assert_over_quota(client.post("/api/import", json=doc), ROWS - 1)
    assert counts(app) == NONE
    assert imports_audited(app) == audited and guards(app) == 0


def test_an_import_up_to_the_quota_is_merged(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    history(app)
    doc = exported(client)
    wipe(app)
    monkeypatch.setattr(app.state.settings, "import_rows_per_person", ROWS)
    response = client.post("/api/import", json=doc)
    assert response.status_code == 200, response.text
    assert counts(app) == STORED


def test_the_quota_counts_only_the_rows_an_import_would_add(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person at the quota may import their own export again (it adds nothing), but not one
    answer more; raised by one, it takes that answer."""
    history(app)
    doc = exported(client)
    monkeypatch.setattr(app.state.settings, "import_rows_per_person", ROWS)
    again = client.post("/api/import", json=doc)
    assert again.status_code == 200, again.text
    assert again.json()["attempts_already_present"] == 3
    more = with_another_answer(doc)
    assert_over_quota(client.post("/api/import", json=more), ROWS)
    assert counts(app) == STORED
    monkeypatch.setattr(app.state.settings, "import_rows_per_person", ROWS + 1)
    response = client.post("/api/import", json=more)
    assert response.status_code == 200, response.text
    assert response.json()["attempts_added"] == 1


def test_rows_stored_while_a_file_is_judged_still_count(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two imports cannot both take the last room: the claim that starts the merge counts again,
    with the person locked."""
    history(app)
    doc = exported(client)
    wipe(app)
    monkeypatch.setattr(app.state.settings, "import_rows_per_person", ROWS)
    audited = imports_audited(app)
    judged = quota.rows_to_add

    def then_another_answer_lands(*args: Any, **kwargs: Any) -> int:
        adding = judged(*args, **kwargs)
        add(app, make_attempt(created_at=T0 - timedelta(days=1)))
        return adding

    monkeypatch.setattr(quota, "rows_to_add", then_another_answer_lands)
    assert_over_quota(client.post("/api/import", json=doc), ROWS)
    assert counts(app) == NONE | {"attempts": 1}
    assert imports_audited(app) == audited and guards(app) == 0


def test_the_quota_is_each_person_s_own(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    doc = exported(alice)
    answers = [
        {
            "id": i + 1,
            "card_id": OWNER_CARD,
            "tier": "middle",
            "kind": "solid",
            "text": f"answer {i}",
            "seconds": 20.0,
            "points": [],
            "created_at": (T0 + timedelta(minutes=i)).isoformat().replace("+00:00", "Z"),
        }
        for i in range(3)
    ]
    doc = doc | {"attempts": answers}
    monkeypatch.setattr(team_app.state.settings, "import_rows_per_person", 3)
    assert alice.post("/api/import", json=doc).json()["attempts_added"] == 3
    assert_over_quota(alice.post("/api/import", json=with_another_answer(doc)), 3)
    assert bob.post("/api/import", json=doc).json()["attempts_added"] == 3


def test_the_import_page_says_the_quota_in_a_sentence(
    app: FastAPI, client: TestClient, over_quota: dict[str, Any]
) -> None:
    doc = over_quota
    response = client.post("/progress/import", files=import_upload(json.dumps(doc).encode()), headers=HTMX)
    # 422, as the form's other refusals: the page shows it in place of the result.
    assert response.status_code == 422
    assert "Nothing was imported" in response.text and "IMPORT_ROWS_PER_PERSON" in response.text
    assert counts(app) == NONE
