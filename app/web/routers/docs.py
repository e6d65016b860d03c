"""Interactive API docs at /docs: Swagger UI 5 vendored under static/ (no CDN, no inline script)."""

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from app.web.templating import render

router = APIRouter(include_in_schema=False)


@router.get("/docs", response_class=HTMLResponse)
def api_docs(request: Request) -> HTMLResponse:
    return render(request, "docs.html")
