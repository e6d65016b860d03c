"""The baseline for bench/card_page.py: a bare Starlette endpoint returning fixed bytes."""

import os
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

BODY = Path(os.environ["BARE_PAGE_FILE"]).read_bytes()


async def page(_request: Request) -> Response:
    return Response(BODY, media_type="text/html; charset=utf-8")


app = Starlette(routes=[Route("/", page), Route("/cards/{card_id}", page)])
