"""Who is asking: the dependency every per-person route takes."""

from typing import Annotated

from fastapi import Depends

from app.accounts.models import LOCAL_USER_ID


async def current_user_id() -> int:
    """The single local user until accounts exist; every query already filters on it."""
    return LOCAL_USER_ID


UserIdDep = Annotated[int, Depends(current_user_id)]
