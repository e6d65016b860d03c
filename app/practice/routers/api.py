"""The practice JSON API (OpenAPI at /docs): attempts, the due queue, a card's schedule, settings,
progress, and the export and import of a person's history."""

import pathlib
import tempfile
from collections.abc import AsyncIterator
from datetime import datetime
from typing import IO, Annotated, Any, BinaryIO, cast

import anyio
from fastapi import APIRouter, Depends, Path, Query, Request, status
from starlette.datastructures import UploadFile
from starlette.responses import JSONResponse, Response, StreamingResponse

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CardDep, CatalogueDep, TierQuery, chosen_tier
from app.content.parser import ID_PATTERN
from app.content.tiers import TIERS
from app.exceptions import InvalidFile, NotFound, NotThisFormat
from app.practice import attempts, export, import_file, import_merge, preferences, scheduling, stats
from app.practice import export_csv as csv_tables
from app.practice.dependencies import AssignedCardsDep, MergeDep, NowDep, own_attempt
from app.practice.export_csv import CsvTable
from app.practice.export_schema import ExportDoc
from app.practice.import_merge import ImportResult
from app.practice.models import ReviewState
from app.practice.preferences import PracticeSettings
from app.practice.schemas import (
    AttemptIn,
    AttemptOut,
    DueOut,
    ProgressOut,
    QueueItem,
    ScheduleOut,
    TierSchedule,
    UndoneOut,
)
from app.schemas import MAX_ID
from app.storage.base import utcnow
from app.storage.dependencies import DatabaseDep, SessionDep, WriteSessionDep
from app.web.dependencies import ClientAddressDep, SettingsDep

# Tags per route, as the OpenAPI groups had them before export and progress joined this module.
router = APIRouter(prefix="/api")


@router.post("/cards/{card_id}/attempts", status_code=status.HTTP_201_CREATED, tags=["api"])
def create_attempt(
    *, card: CardDep, data: AttemptIn, session: WriteSessionDep, user_id: UserIdDep, now: NowDep
) -> AttemptOut:
    return attempts.as_out(attempts.record(session, card=card, user_id=user_id, data=data, now=now), card)


@router.get("/attempts", tags=["api"])
def list_attempts(
    *,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    card_id: Annotated[str | None, Query(max_length=120, pattern=ID_PATTERN.pattern)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> list[AttemptOut]:
    cards = catalogue.snapshot().cards
    made = attempts.history(session, user_id=user_id, card_id=card_id, limit=limit)
    return [attempts.as_out(a, cards.get(a.card_id)) for a in made]


@router.get("/practice/due", tags=["api", "practice"])
def api_due(
    *,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    tier: TierQuery,
    assigned: AssignedCardsDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> DueOut:
    """Cards due now at the person's target tier (or `tier`), most overdue first, then new ones
    (the person's assigned cards before the others)."""
    settings = preferences.load(session, user_id)
    settings = settings.model_copy(update={"target_tier": chosen_tier(tier, settings.target_tier)})
    snapshot = catalogue.snapshot()
    first = assigned(session=session, user_id=user_id, snapshot=snapshot, now=now)
    queue = scheduling.served_queue(
        session, user_id=user_id, cards=snapshot.cards.values(), settings=settings, now=now, first=first
    )
    shown = [d.card_id for d in queue.due[:limit]]
    states = {
        row.card_id: row
        for row in scheduling.states_for(session, user_id=user_id, card_ids=shown)
        if row.tier == queue.tier
    }

    def item(card_id: str, row: ReviewState | None) -> QueueItem:
        return QueueItem(
            card_id=card_id,
            title=snapshot.cards[card_id].title.markdown,
            tier=queue.tier,
            state=scheduling.state_name(row),
            due=row.due if row else None,
            overdue_seconds=(now - row.due).total_seconds() if row else None,
            retrievability=scheduling.retrievability(row, now) if row else None,
            stability=row.stability if row else None,
        )

    return DueOut(
        now=now,
        tier=queue.tier,
        due=[item(d.card_id, states.get(d.card_id)) for d in queue.due[:limit]],
        new=[item(card_id, None) for card_id in queue.new[:limit]],
        due_count=len(queue.due),
        new_today=queue.new_today,
        new_per_day=queue.new_per_day,
        next_due=queue.next_due,
    )


def tier_schedule(tier: str, *, row: ReviewState | None, now: datetime) -> TierSchedule:
    return TierSchedule(
        tier=tier,
        state=scheduling.state_name(row),
        due=row.due if row else None,
        retrievability=scheduling.retrievability(row, now) if row else None,
        stability=row.stability if row else None,
        difficulty=row.difficulty if row else None,
        last_review=row.last_review if row else None,
        reps=row.reps if row else 0,
        lapses=row.lapses if row else 0,
    )


@router.get("/cards/{card_id}/schedule", tags=["api", "practice"])
def api_schedule(
    *,
    card_id: Annotated[str, Path(max_length=120)],
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    tier: TierQuery,
) -> ScheduleOut:
    """The card's FSRS schedule at `tier` (default: the target tier), and at every tier in `tiers`.

    A card never reviewed at a tier has state "new" and no due time. A card deleted from
    content/ that has history answers with `retired: true`.
    """
    rows = {row.tier: row for row in scheduling.states_for(session, user_id=user_id, card_ids=[card_id])}
    card = catalogue.get(card_id)
    if card is None and not rows:
        raise NotFound(f"no card with id '{card_id}'")
    chosen = chosen_tier(tier, preferences.load(session, user_id).target_tier)
    return ScheduleOut(
        card_id=card_id,
        retired=card is None,
        **tier_schedule(chosen, row=rows.get(chosen), now=now).model_dump(),
        tiers={t: tier_schedule(t, row=rows.get(t), now=now) for t in TIERS},
    )


@router.delete(
    "/cards/{card_id}/reviews/latest",
    tags=["api", "practice"],
    responses={
        404: {"description": "No attempt of yours has that id"},
        409: {
            "description": "The card's latest rating is not the named attempt's (already undone, or rated since)"
        },
    },
)
def api_undo_rating(
    *,
    card_id: Annotated[str, Path(max_length=120, pattern=ID_PATTERN.pattern)],
    attempt_id: Annotated[int, Query(ge=1, le=MAX_ID, description="the attempt whose rating to take back")],
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
) -> UndoneOut:
    """Undo: take back the person's latest rating of the card, which must be `attempt_id`'s. The
    review goes from the log (and from exports), the card's schedule is replayed from the reviews
    left, and the attempt is unrated again, to rate afresh. Sent twice, the second is a 409;
    someone else's attempt is a 404, as a missing one is."""
    own_attempt(session, user_id=user_id, attempt_id=attempt_id)
    removed = attempts.take_back(session, user_id=user_id, card_id=card_id, attempt_id=attempt_id)
    row = scheduling.get_state(session, user_id=user_id, card_id=card_id, tier=removed.tier)
    return UndoneOut(
        card_id=card_id,
        tier=removed.tier,
        attempt_id=removed.attempt_id,
        schedule=tier_schedule(removed.tier, row=row, now=now),
    )


@router.get("/settings", tags=["api", "practice"])
def api_get_settings(session: SessionDep, user_id: UserIdDep) -> PracticeSettings:
    return preferences.load(session, user_id)


@router.put("/settings", tags=["api", "practice"])
def api_put_settings(
    *, data: PracticeSettings, session: WriteSessionDep, user_id: UserIdDep
) -> PracticeSettings:
    preferences.save(session, user_id=user_id, settings=data)
    return data


@router.get("/progress", tags=["progress", "api"])
def api_progress(
    *, session: SessionDep, user_id: UserIdDep, catalogue: CatalogueDep, now: NowDep
) -> ProgressOut:
    """Recall probability now, stability and lapses per card (per tier) and per topic; daily
    activity over the heatmap's window; streaks; the quiz items most often judged wrong."""
    overview = stats.overview(session, user_id=user_id, snapshot=catalogue.snapshot(), now=now)
    return ProgressOut(
        now=now,
        target_tier=overview["settings"].target_tier,
        summary=overview["summary"],
        cards=[row.as_json() for row in overview["rows"]],
        topics=[topic.as_json() for topic in overview["topics"]],
        activity=[
            {"date": c.day.isoformat(), "count": c.count} for c in overview["heatmap"].cells if c.count
        ],
        missed_pitfalls=[item.as_json() for item in overview["missed"]],
        spoken=[answer.as_json() for answer in overview["spoken"]],
    )


def _attachment(name: str) -> dict[str, str]:
    # A person's whole history: no browser or proxy cache may keep a copy.
    return {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}


# How much of a spooled export is read from its file at a time.
READ_BYTES = 64 * 1024


def _streamed(file: IO[bytes], *, media_type: str, name: str) -> StreamingResponse:
    """The written export in `file` as the response body: every row is read before the status goes
    out, so a failure still answers 500 and nothing can fail after the first byte."""
    return StreamingResponse(_read_off_the_loop(file), media_type=media_type, headers=_attachment(name))


async def _read_off_the_loop(file: IO[bytes]) -> AsyncIterator[bytes]:
    """The file a piece at a time, each read on the thread pool, closed (which deletes it) when
    the response ends, however it ends: a disk file's reads and close are the only work left."""
    try:
        while chunk := await anyio.to_thread.run_sync(file.read, READ_BYTES):
            yield chunk
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(file.close)


async def _spool_folder(settings: SettingsDep) -> pathlib.Path:
    # The data folder, not /tmp: that may be memory (tmpfs), and a long history's file is large.
    return settings.data_dir / "tmp"


SpoolFolderDep = Annotated[pathlib.Path, Depends(_spool_folder)]


# Exports being written at once are bounded (see export.EXPORTS_AT_ONCE).
_BUSY: dict[int | str, dict[str, Any]] = {
    429: {"description": "As many exports as the server writes at once are being written"}
}


@router.get("/export.json", response_model=ExportDoc, tags=["export"], responses=_BUSY)
def export_json(
    *,
    session: SessionDep,
    db: DatabaseDep,
    folder: SpoolFolderDep,
    user_id: UserIdDep,
    address: ClientAddressDep,
) -> StreamingResponse:
    """All of the person's attempts, review states, review logs and settings: what import reads.
    While EXPORTS_AT_ONCE exports are being written: 429."""
    now = utcnow()
    with export.writing_turn():
        export.record(session, user_id=user_id, address=address, format="json")
        file = export.spooled(export.document(db.read_sessions, user_id=user_id, now=now), folder=folder)
    return _streamed(file, media_type="application/json", name=f"tiercards-{now:%Y%m%d}.json")


@router.get("/export.csv", response_class=Response, tags=["export"], responses=_BUSY)
def export_csv(
    *,
    session: SessionDep,
    db: DatabaseDep,
    folder: SpoolFolderDep,
    user_id: UserIdDep,
    address: ClientAddressDep,
    catalogue: CatalogueDep,
    table: Annotated[CsvTable, Query()] = "attempts",
) -> StreamingResponse:
    """One table as CSV: `attempts` (default), `schedule` (review states) or `reviews` (the log).
    While EXPORTS_AT_ONCE exports are being written: 429."""
    now = utcnow()
    cards = catalogue.snapshot().cards
    with export.writing_turn():
        export.record(session, user_id=user_id, address=address, format=f"csv {table}")
        file = export.spooled(
            csv_tables.table(db.read_sessions, user_id=user_id, table=table, now=now, cards=cards),
            folder=folder,
        )
    return _streamed(file, media_type="text/csv; charset=utf-8", name=f"tiercards-{table}-{now:%Y%m%d}.csv")


# Small files stay in memory; larger ones go to disk as they arrive, and are read a row at a time.
SPOOL_IN_MEMORY_BYTES = 1024 * 1024


def _no_import_running(session: SessionDep, user_id: UserIdDep) -> None:
    import_merge.refuse_while_running(session, user_id)


async def _spooled_body(
    request: Request, _free: Annotated[None, Depends(_no_import_running)]
) -> AsyncIterator[IO[bytes]]:
    # A form's body is read whole by the CSRF check before this; only JSON is streamed here (a
    # body sent with no type, as `curl --data-binary` can, is read as JSON too).
    if request.headers.get("content-type", "").split(";")[0].strip().lower() not in ("", "application/json"):
        raise NotThisFormat("send the export file as the body, with Content-Type: application/json")
    # UploadFile writes to the spool off the loop once it has gone to disk; it closes it below.
    spool = UploadFile(cast(BinaryIO, tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY_BYTES)))  # noqa: SIM115
    try:
        async for chunk in request.stream():
            await spool.write(chunk)
        yield spool.file
    finally:
        await spool.close()


@router.post(
    "/import",
    tags=["export"],
    response_model=ImportResult,
    responses={
        415: {"description": "The body is not sent as application/json"},
        422: {"description": "The first 50 problems in `detail`, how many more in `more_problems`"},
        429: {"description": "Another import of yours is still running"},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ExportDoc"}}},
        }
    },
)
def import_json(
    body: Annotated[IO[bytes], Depends(_spooled_body)], merge: MergeDep
) -> ImportResult | JSONResponse:
    """Merge an export back in (idempotent: see docs/scheduling.md). Malformed input: 422, nothing
    stored. While another import of the person's runs: 429."""
    # Sync: the file is read and merged on the thread pool, each batch its own write transaction.
    try:
        file = import_file.read(body)
    except InvalidFile as error:
        return JSONResponse({"detail": error.problems, "more_problems": error.more}, status_code=422)
    return merge(file, "api")
