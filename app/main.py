"""Builds the web app. Everything it needs comes from `Settings`; nothing here imports TensorFlow."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles

from app import PROJECT_ROOT
from app.content.catalogue import Catalogue
from app.db import Database
from app.errors import install_error_pages
from app.page_cache import PageCache
from app.routes import (
    api,
    cards,
    demo_api,
    demos,
    docs,
    health,
    library,
    practice,
    progress,
    transfer,
)
from app.security import SecurityMiddleware, require_csrf
from app.settings import Settings, get_settings


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        app.state.db.dispose()
        queue = getattr(app.state, "demo_queue", None)
        if queue is not None:
            queue.close()

    app = FastAPI(
        title="tiercards",
        summary="Practise technical-interview questions at four depths.",
        lifespan=lifespan,
        dependencies=[Depends(require_csrf)],
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.db = Database(settings)
    app.state.catalogue = Catalogue(settings.content_dir, settings.content_poll_seconds)
    # Added first, so it runs inside SecurityMiddleware and every page still gets its headers.
    app.add_middleware(PageCache, catalogue=app.state.catalogue)
    app.add_middleware(
        SecurityMiddleware,
        secret_key=settings.secret_key,
        secure_cookie=settings.environment == "production",
    )
    app.mount("/static", StaticFiles(directory=PROJECT_ROOT / "static"), name="static")
    for area in (library, cards, api, health, docs, practice, progress, transfer, demos, demo_api):
        app.include_router(area.router)
    install_error_pages(app)
    return app
