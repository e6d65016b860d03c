"""Dependencies every area's routes share."""

from typing import Annotated

from fastapi import Depends, Request
from starlette.datastructures import FormData

from app.settings import Settings


def settings_of(request: Request) -> Settings:
    """This app's settings (several apps may share one process, so never `get_settings()`)."""
    settings: Settings = request.app.state.settings
    return settings


# Dependencies that only read the app's state are async: a plain `def` one costs its request a hop
# to the thread pool and back, each waking the loop from another thread.
async def app_settings(request: Request) -> Settings:
    return settings_of(request)


SettingsDep = Annotated[Settings, Depends(app_settings)]


async def read_form(request: Request) -> FormData:
    """The submitted form, read on the loop before any session or lock is taken (declare it
    before the session in a route), so a slow upload never holds a connection."""
    return await request.form()


FormDep = Annotated[FormData, Depends(read_form)]


async def client_address(request: Request) -> str | None:
    """Who connected: behind a trusted proxy, the visitor's address it reported, never the
    proxy's own (app/web/guards.py decides it). What throttling and the audit log name."""
    address: str | None = request.state.client_address
    return address


ClientAddressDep = Annotated[str | None, Depends(client_address)]
