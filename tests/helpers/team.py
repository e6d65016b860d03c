"""A lead's assignments, as the team tests make them and a member's /interview shows them."""

from datetime import timedelta

from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.storage.base import utcnow
from app.web.templating import templates
from tests.helpers.accounts import user_id

CACHE = "tf-data-cache-shuffle-order"


def in_days(days: int) -> str:
    return (utcnow().date() + timedelta(days=days)).isoformat()


def assign(lead: TestClient, **form: object) -> None:
    response = lead.post("/team/assignments", data={"tier": "middle", "due": in_days(3)} | form)
    assert response.status_code == 303, response.text


def interview_panel(app: FastAPI, name: str) -> BeautifulSoup | None:
    """The box /interview shows `name` of the mock interviews assigned to them, as rendered there."""
    with app.state.db.read_sessions() as session:
        snapshot = app.state.catalogue.snapshot()
        panels = app.state.panels.fill(
            "interview", session=session, user_id=user_id(app, name), snapshot=snapshot, now=utcnow()
        )
    if not panels:
        return None
    (panel,) = panels
    html = templates.env.get_template(panel.template).render(p=panel.context, csrf_token="the-token")
    return BeautifulSoup(html, "html.parser")
