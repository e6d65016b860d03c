"""Who may use the author preview: people whose role authors (authors and admins; in single mode
the local user, who is an admin)."""

from typing import Annotated

from fastapi import Depends

from app.accounts.dependencies import CurrentPersonDep
from app.accounts.middleware import Principal
from app.exceptions import Forbidden
from app.web.dependencies import SettingsDep


async def require_author(principal: CurrentPersonDep) -> Principal:
    if not principal.powers.authors:
        raise Forbidden("only an author or an admin may use the author preview")
    return principal


AuthorDep = Annotated[Principal, Depends(require_author)]


async def get_checks_per_minute(settings: SettingsDep) -> int:
    return settings.author_checks_per_minute


ChecksPerMinuteDep = Annotated[int, Depends(get_checks_per_minute)]


async def get_proposals_per_hour(settings: SettingsDep) -> int:
    return settings.proposals_per_hour


ProposalsPerHourDep = Annotated[int, Depends(get_proposals_per_hour)]
