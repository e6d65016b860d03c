"""Dependencies every area's routes share."""

from typing import Annotated

from fastapi import Depends, Request
from starlette.datastructures import FormData


async def read_form(request: Request) -> FormData:
    """The submitted form, read on the loop before any session or lock is taken (declare it
    before the session in a route), so a slow upload never holds a connection."""
    return await request.form()


FormDep = Annotated[FormData, Depends(read_form)]
