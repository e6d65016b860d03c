"""How practice's code is divided: services commit what they write and take keywords; routers
parse, call a service and render, and leave refusals to the error table; the JSON routes live in
the api module."""

import ast
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, APIRouter

from app import PROJECT_ROOT
from app.content.tiers import IMPORTANCES
from app.exceptions import Invalid
from app.practice import rating, scheduling
from app.practice.models import ReviewState
from app.practice.routers import api, card_page, practice_page
from tests.factories import DECK, OWNER_CARD
from tests.helpers.practice import T0, logs, state

PRACTICE = PROJECT_ROOT / "app" / "practice"
ROUTERS = sorted([*(PRACTICE / "routers").glob("*.py"), *PRACTICE.rglob("router.py")])
MODULES = sorted(PRACTICE.rglob("*.py"))


def _calls(path: Path) -> list[str]:
    """The dotted names every call in the file calls (`session.commit`, `HTTPException`)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            names.append(ast.unparse(node.func))
    return names


@pytest.mark.parametrize("path", ROUTERS, ids=lambda p: p.name)
def test_practice_routers_leave_commits_to_services_and_statuses_to_the_error_table(path: Path) -> None:
    calls = _calls(path)
    assert [c for c in calls if c.endswith(".commit")] == []
    assert [c for c in calls if c.split(".")[-1] == "HTTPException"] == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PRACTICE)))
def test_practice_functions_of_more_than_two_parameters_take_keywords(path: Path) -> None:
    crowded = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            positional = [
                a.arg for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")
            ]
            if len(positional) + len(node.args.kwonlyargs) > 2 and len(positional) > 1:
                crowded.append(f"{node.name}({', '.join(positional)})")
    assert crowded == []


def test_no_practice_name_says_it_answers_404() -> None:
    names = [name for path in MODULES for name in _calls(path) if name.endswith("_or_404")]
    assert names == []


def test_the_practice_and_card_pages_json_routes_live_in_the_api_module() -> None:
    def paths(router: APIRouter) -> set[str]:
        return {route.path for route in router.routes if isinstance(route, APIRoute)}

    served = {"/api/practice/due", "/api/cards/{card_id}/schedule", "/api/settings", "/api/attempts"}
    assert served <= paths(api.router)
    assert [p for p in paths(practice_page.router) | paths(card_page.router) if p.startswith("/api/")] == []


def test_a_review_is_stored_when_the_service_returns(app: FastAPI) -> None:
    """No caller commits: another session sees the review at once."""
    with app.state.db.write_sessions() as session:
        scheduling.review(
            session,
            user_id=1,
            card_id=OWNER_CARD,
            tier="middle",
            rating=scheduling.RATING_BY_NAME["good"],
            duration_ms=1000,
            at=T0,
        )
    row = state(app)
    assert isinstance(row, ReviewState) and row.reps == 1
    assert [log.rating for log in logs(app)] == [int(scheduling.RATING_BY_NAME["good"])]


def _rate(app: FastAPI, chosen: str, token: str = "") -> bool:
    """A bare rating of the owner's card at the middle depth, as /practice's form sends it."""
    with app.state.db.write_sessions() as session:
        return rating.rate(
            session,
            user_id=1,
            card=DECK[OWNER_CARD],
            tier="middle",
            rating=chosen,
            seconds=12.0,
            token=token,
            attempt=None,
            points=[],
            now=T0,
        )


def test_a_rating_is_stored_once_and_a_second_send_of_the_same_form_counts_for_nothing(app: FastAPI) -> None:
    assert _rate(app, "good") is True
    assert _rate(app, "good") is False  # the form still names the card as it was before
    assert len(logs(app)) == 1


def test_a_refused_rating_stores_nothing(app: FastAPI) -> None:
    with pytest.raises(Invalid):
        _rate(app, "brilliant")
    assert logs(app) == [] and state(app) is None


def test_the_introduction_order_puts_must_know_first_then_the_most_asked() -> None:
    order = scheduling.introduction_order(DECK.values())
    assert sorted(order) == sorted(DECK)
    ranks = [(IMPORTANCES.index(DECK[c].importance), -DECK[c].frequency) for c in order]
    assert ranks == sorted(ranks)
