"""/progress: recall per card and topic, activity heatmap and streak, missed pitfalls, history search
(the same figures as JSON are /api/progress, in api.py); and where each card stands for the person,
which the library (a page shared by everyone, so cached) loads after it is shown."""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import HTMLResponse

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CatalogueDep
from app.practice import marks, stats
from app.practice.dependencies import NowDep
from app.practice.schemas import Kind
from app.schemas import Searchable
from app.storage.dependencies import SessionDep
from app.web.templating import render

router = APIRouter(tags=["progress"])

SearchText = Annotated[str, Query(max_length=200), Searchable]


@router.get("/progress", response_class=HTMLResponse)
def progress_page(
    request: Request,
    *,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    q: SearchText = "",
    kind: Annotated[Literal["", Kind], Query(title="Kind")] = "",
) -> HTMLResponse:
    """The dashboard; an htmx request (the history search) gets only the history table."""
    snapshot = catalogue.snapshot()
    history, total = stats.search_history(session, user_id=user_id, snapshot=snapshot, q=q, kind=kind or None)
    context: dict[str, Any] = {
        "history": history,
        "history_total": total,
        "history_cap": stats.HISTORY_COUNT_CAP,
        "q": q,
        "kind": kind,
        "cards": snapshot.cards,
        "now": now,
    }
    if request.headers.get("hx-target") != "answer-history":
        context |= stats.overview(session, user_id=user_id, snapshot=snapshot, now=now)
    return render(request, "progress.html", "_progress_history.html", **context)


@router.get("/library/marks", response_class=HTMLResponse)
def library_marks(
    request: Request, *, session: SessionDep, user_id: UserIdDep, catalogue: CatalogueDep, now: NowDep
) -> HTMLResponse:
    """Each served card marked due, new or learned at the person's depth (static/js/library.js
    puts the marks on the library's cards)."""
    served = marks.marks(session, user_id=user_id, card_ids=catalogue.snapshot().cards, now=now)
    return render(request, "_library_marks.html", marks=served, words=marks.MARKS)
