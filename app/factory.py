"""The composition root: builds the web app from `Settings` (state, middleware, routers, each
domain's template filters, the panels one area adds to another's page, error pages) and nothing
else. It sits above every domain, and no package of app/ imports it: app/main.py re-exports it
(the CLI hands uvicorn the string "app.main:create_app"), and the benchmarks and tests build the
app with it.

Nothing here (or anything it imports) imports TensorFlow.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi.telemetry import TelemetryConfig

from app import PROJECT_ROOT
from app.accounts.middleware import SESSION_COOKIE, Authentication
from app.accounts.routers import account, admin, oidc, sign_in
from app.accounts.routers import api as accounts_api
from app.authoring.routers import api as authoring_api
from app.authoring.routers import pages as authoring_pages
from app.authoring.routers import reviews as authoring_reviews
from app.backups.routers.backup_box import backups_panel
from app.content import filters as content_filters
from app.content.catalogue import Catalogue
from app.content.routers import api as content_api
from app.content.routers import pages as content_pages
from app.coverage.routers import api as coverage_api
from app.demos import filters as demo_filters
from app.demos.routers import api as demos_api
from app.demos.routers import pages as demos_pages
from app.interview.routers import api as interview_api
from app.interview.routers import pages as interview_pages
from app.ops.routers import health, prometheus
from app.practice import filters as practice_filters
from app.practice.routers import api as practice_api
from app.practice.routers import card_page, practice_page, progress_page
from app.settings import Settings, get_settings
from app.speech import filters as speech_filters
from app.speech.routers import api as speech_api
from app.speech.routers import pages as speech_pages
from app.storage.database import Database
from app.team import assignments as team_assignments
from app.team.routers import pages as team_pages
from app.transfer.routers import api as transfer_api
from app.transfer.routers import import_page
from app.web.errors import install_error_pages
from app.web.guards import RequestGuard
from app.web.openapi import document_api
from app.web.page_cache import PageCache
from app.web.panels import PanelHook, Panels
from app.web.request_log import RequestLog
from app.web.routers import docs
from app.web.security import SecurityMiddleware, require_csrf
from app.web.templating import templates

ROUTERS = (
    sign_in,
    account,
    accounts_api,
    admin,
    oidc,
    content_pages,
    content_api,
    coverage_api,
    card_page,
    practice_api,
    transfer_api,
    health,
    prometheus,
    docs,
    practice_page,
    interview_pages,
    interview_api,
    progress_page,
    import_page,
    demos_pages,
    demos_api,
    team_pages,
    authoring_pages,
    authoring_api,
    authoring_reviews,
    speech_pages,
    speech_api,
)
# Every domain's own template filters and globals.
FILTERS = (
    content_filters.register,
    practice_filters.register,
    demo_filters.register,
    speech_filters.register,
)
# Which area's boxes stand on which page: /practice shows the person's open assignments on top,
# /interview the mock interviews assigned to them.
PANELS: dict[str, tuple[PanelHook, ...]] = {
    "practice": (team_pages.assigned_panel,),
    "interview": (team_pages.assigned_interviews_panel,),
    "account": (authoring_reviews.suggested_edits_panel,),
    "admin": (backups_panel,),
}

NO_TELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        app.state.db.dispose()
        queue = getattr(app.state, "job_queue", None)
        if queue is not None:
            queue.close()

    app = FastAPI(
        title="tiercards",
        summary="Practise technical-interview questions at four depths.",
        lifespan=lifespan,
        dependencies=[Depends(require_csrf)],
        docs_url=None,
        redoc_url=None,
        # The app counts and logs its requests itself (app/web/request_log.py); FastAPI's
        # OpenTelemetry hooks would only look, on every request, for a provider nobody set up.
        telemetry=NO_TELEMETRY,
    )
    app.state.settings = settings
    app.state.db = Database(settings)
    app.state.catalogue = Catalogue(settings.content_dir, settings.content_poll_seconds)
    app.state.panels = Panels(PANELS)
    app.state.assigned_cards = team_assignments.assigned_card_ids
    app.state.assigned_interviews = team_assignments.assigned_interview_ids
    for register in FILTERS:
        register(templates.env)
    # The last added runs first: the request's id, access line and metrics around everything,
    # then security headers, then the guards, then who is asking (so the page cache serves only
    # people allowed to see), then the cache.
    app.state.signed_in = {}
    app.add_middleware(PageCache, version=app.state.catalogue.snapshot)
    app.add_middleware(Authentication, settings=settings, db=app.state.db, remembered=app.state.signed_in)
    app.add_middleware(RequestGuard, settings=settings)
    app.add_middleware(
        SecurityMiddleware,
        secret_key=settings.secret_key,
        session_cookie=SESSION_COOKIE if settings.auth_mode == "accounts" else None,
        production=settings.is_production,
    )
    app.add_middleware(RequestLog)
    app.mount("/static", StaticFiles(directory=PROJECT_ROOT / "static"), name="static")
    for area in ROUTERS:
        app.include_router(area.router)
    document_api(app)
    install_error_pages(app)
    return app
