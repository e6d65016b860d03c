"""The merge an import runs (the API's and the upload form's alike), for the person asking."""

from collections.abc import Callable
from datetime import timedelta
from typing import Annotated

from fastapi import Depends
from sqlalchemy.orm import Session

from app.accounts import audit
from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CatalogueDep
from app.storage.dependencies import DatabaseDep
from app.transfer import merge as merging
from app.transfer.merge import ImportResult
from app.transfer.reader import ImportFile
from app.web.dependencies import ClientAddressDep, SettingsDep

Merge = Callable[[ImportFile, str], ImportResult]


async def _merger(
    *,
    settings: SettingsDep,
    db: DatabaseDep,
    user_id: UserIdDep,
    address: ClientAddressDep,
    catalogue: CatalogueDep,
) -> Merge:
    """Merging a file in for the person asking, against the cards served then; `via` names the
    route in the audit log. Async: handing it out touches nothing that blocks."""

    def merge(file: ImportFile, via: str) -> ImportResult:
        def record(session: Session) -> None:
            audit.record(session, kind="import", user_id=user_id, actor_id=user_id, address=address, via=via)

        return merging.merge(
            sessions=db.write_sessions,
            reads=db.read_sessions,
            user_id=user_id,
            file=file,
            cards=catalogue.snapshot().cards,
            lease=timedelta(seconds=settings.import_lease_seconds),
            quota=settings.import_rows_per_person,
            on_start=record,
        )

    return merge


MergeDep = Annotated[Merge, Depends(_merger)]
