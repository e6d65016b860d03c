"""The ASGI entry point for servers other than `tiercards serve`:
`uvicorn --factory app.main:create_app` (the app itself is built in app/web/factory.py)."""

from app.web.factory import create_app

__all__ = ["create_app"]
