"""The ASGI entry point for servers other than `tiercards serve`:
`uvicorn --factory app.main:create_app` (the app itself is built in app/factory.py)."""

from app.factory import create_app

__all__ = ["create_app"]
