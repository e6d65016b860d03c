"""Liveness and readiness for whoever runs the app."""

from typing import Any

from fastapi import APIRouter
from sqlalchemy import text

from app.content.dependencies import CatalogueDep
from app.storage.dependencies import SessionDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz(session: SessionDep, catalogue: CatalogueDep) -> dict[str, Any]:
    session.execute(text("SELECT 1"))
    snapshot = catalogue.snapshot()
    return {
        "status": "ok",
        "database": "ok",
        "cards": len(snapshot.cards),
        "broken_files": len(snapshot.broken),
    }
