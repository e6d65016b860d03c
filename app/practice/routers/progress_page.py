"""/progress: recall per card and topic, activity heatmap and streak, missed pitfalls, history search."""

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from starlette.responses import HTMLResponse

from app.accounts.dependencies import UserIdDep
from app.content.catalogue import Snapshot
from app.content.dependencies import CatalogueDep
from app.practice import preferences, scheduling, stats
from app.practice.dependencies import NowDep
from app.practice.models import ReviewLog
from app.storage.dependencies import SessionDep
from app.web.templating import render

router = APIRouter(tags=["progress"])

SearchText = Annotated[str, Query(max_length=200)]


def _overview(session: Session, *, user_id: int, snapshot: Snapshot, now: datetime) -> dict[str, Any]:
    settings = preferences.load(session, user_id)
    rows = stats.card_progress(
        session, user_id=user_id, snapshot=snapshot, target_tier=settings.target_tier, now=now
    )
    counts = stats.activity_by_day(session, user_id=user_id)
    current, longest = stats.streaks(counts.keys(), now.date())
    known = set(snapshot.cards)
    scheduled = [r for r in rows if r.state != scheduling.NEW]
    recall = [r.retrievability for r in scheduled if r.retrievability is not None and not r.retired]
    reviews = session.scalar(select(func.count()).select_from(ReviewLog).where(ReviewLog.user_id == user_id))
    return {
        "now": now,
        "settings": settings,
        "rows": rows,
        "topics": stats.topic_progress(rows),
        "heatmap": stats.heatmap(counts, today=now.date()),
        "level_labels": stats.LEVEL_LABELS,
        "level_sizes": stats.LEVEL_SIZES,
        "streak": current,
        "longest_streak": longest,
        "active_today": now.date() in counts,
        "forecast": stats.due_forecast(
            session, user_id=user_id, tier=settings.target_tier, now=now, known=known
        ),
        "missed": stats.missed_pitfalls(session, user_id=user_id, snapshot=snapshot),
        "summary": {
            "reviews": int(reviews or 0),
            "cards_scheduled": len({(r.card_id, r.tier) for r in scheduled}),
            "retired": len({r.card_id for r in rows if r.retired}),
            "due_now": len(
                scheduling.due_queue(
                    session, user_id=user_id, tier=settings.target_tier, now=now, known=known
                )
            ),
            "mean_retrievability": sum(recall) / len(recall) if recall else None,
            "streak_days": current,
            "longest_streak_days": longest,
        },
    }


@router.get("/progress", response_class=HTMLResponse)
def progress_page(
    request: Request,
    *,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    q: SearchText = "",
    kind: Annotated[Literal["", "basics", "solid", "follow-up", "quiz"], Query(title="Kind")] = "",
) -> HTMLResponse:
    """The dashboard; an htmx request (the history search) gets only the history table."""
    snapshot = catalogue.snapshot()
    history, total = stats.search_history(session, user_id=user_id, snapshot=snapshot, q=q, kind=kind or None)
    context: dict[str, Any] = {
        "history": history,
        "history_total": total,
        "q": q,
        "kind": kind,
        "cards": snapshot.cards,
        "now": now,
    }
    if request.headers.get("hx-target") != "answer-history":
        context |= _overview(session, user_id=user_id, snapshot=snapshot, now=now)
    return render(request, "progress.html", "_progress_history.html", **context)


class ProgressOut(BaseModel):
    now: datetime
    target_tier: str
    summary: dict[str, Any]
    cards: list[dict[str, Any]]
    topics: list[dict[str, Any]]
    activity: list[dict[str, Any]]
    missed_pitfalls: list[dict[str, Any]]


@router.get("/api/progress", tags=["api"])
def api_progress(
    *, session: SessionDep, user_id: UserIdDep, catalogue: CatalogueDep, now: NowDep
) -> ProgressOut:
    """Recall probability now, stability and lapses per card (per tier) and per topic; daily
    activity over the heatmap's window; streaks; the quiz items most often judged wrong."""
    overview = _overview(session, user_id=user_id, snapshot=catalogue.snapshot(), now=now)
    return ProgressOut(
        now=now,
        target_tier=overview["settings"].target_tier,
        summary=overview["summary"],
        cards=[row.as_json() for row in overview["rows"]],
        topics=[topic.as_json() for topic in overview["topics"]],
        activity=[
            {"date": c.day.isoformat(), "count": c.count} for c in overview["heatmap"].cells if c.count
        ],
        missed_pitfalls=[item.as_json() for item in overview["missed"]],
    )
