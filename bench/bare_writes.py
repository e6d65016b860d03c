"""The baseline for bench/answer_writes.py and bench/mixed_load.py: a bare Starlette endpoint that
inserts one row with sqlite3 (POST) or reads the newest five (GET)."""

import json
import os
import sqlite3
import threading

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

_local = threading.local()


def _connection() -> sqlite3.Connection:
    if not hasattr(_local, "db"):
        db = sqlite3.connect(os.environ["BARE_DB"], isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA busy_timeout=10000")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("CREATE TABLE IF NOT EXISTS answers (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        _local.db = db
    return _local.db  # type: ignore[no-any-return]


def insert(request_body: bytes) -> int:
    cursor = _connection().execute("INSERT INTO answers (body) VALUES (?)", (request_body.decode(),))
    return int(cursor.lastrowid or 0)


async def post(request: Request) -> Response:
    row_id = insert(await request.body())
    return Response(json.dumps({"id": row_id}), status_code=201, media_type="application/json")


async def recent(request: Request) -> Response:
    rows = _connection().execute("SELECT id, body FROM answers ORDER BY id DESC LIMIT 5").fetchall()
    return Response(json.dumps([{"id": i, "body": b} for i, b in rows]), media_type="application/json")


app = Starlette(routes=[Route("/", post, methods=["POST"]), Route("/", recent, methods=["GET"])])
