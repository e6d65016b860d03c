"""Demo pages: submit from a card, watch a run live, read its result, cancel, run again.

The card page is cached and carries no per-person data: its "Run it live" forms are the same for
everyone, and the person's runs on the card load by htmx from /cards/{card_id}/demo-runs.
"""

import contextlib
import re
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import TypeAdapter, ValidationError
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.dependencies import UserIdDep
from app.content.catalogue import Catalogue
from app.content.dependencies import CardDep, CatalogueDep
from app.demos import runs
from app.demos.dependencies import HeartbeatTimeoutDep, SubmitterDep, check_card
from app.demos.models import DemoRun
from app.demos.presenters.comparison import (
    comparisons,
    environment_view,
    first_batch_rows,
    memory_rows,
    reading_parts,
)
from app.demos.presenters.evidence import evidence
from app.demos.presenters.forms import preset_form
from app.demos.presenters.status import history_rows, run_view
from app.demos.presenters.timeline import timelines
from app.demos.schemas import SubmitKey
from app.exceptions import NotFound, TooMany
from app.presets import ParamError, Preset, get_preset
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import FormDep
from app.web.messages import sentence
from app.web.templating import is_htmx, render

router = APIRouter(tags=["pages"])
_SUBMIT_KEY: TypeAdapter[str] = TypeAdapter(SubmitKey)
# The form's key field, which the page's script fills once per page view (static/js/demo_form.js).
KEY_FIELD = "idempotency_key"


def _as_labelled(spec: Preset, message: str) -> str:
    """A refusal as the form reads: the API's parameter names ("input_ms") become the labels the
    form shows ("input per batch"), in a sentence."""
    for param in spec.params:
        message = re.sub(rf"\b{re.escape(param.name)}\b", param.label.lower(), message)
    return sentence(message)


def _go_to(request: Request, url: str) -> Response:
    """After a form: htmx follows HX-Redirect; a plain browser gets 303 See Other."""
    if is_htmx(request):
        return Response(status_code=200, headers={"HX-Redirect": url})
    return RedirectResponse(url, status_code=303)


def _history_context(session: Any, *, user_id: int, run: DemoRun, timeout: float) -> dict[str, Any]:
    seen = runs.runs_as_seen(session, user_id=user_id, card_id=run.card_id, limit=20, timeout_seconds=timeout)
    heading = "Your runs of demos on this card" if run.card_id else "Your demo runs"
    return {
        "history": history_rows(seen),
        "history_heading": heading,
        "current_run_id": run.id,
        "history_poll": False,
    }


def _run_context(session: Any, *, catalogue: Catalogue, run: DemoRun, timeout: float) -> dict[str, Any]:
    workers = runs.alive_workers(session, timeout_seconds=timeout)
    position = runs.queue_position(session, run) if run.status == "queued" else None
    context: dict[str, Any] = {"run": run_view(run, workers=workers, position=position)}
    if run.status == "done" and run.result:
        plain, findings = reading_parts(run.result.get("reading"))
        context |= {
            "comparisons": comparisons(run.result),
            "first_batches": first_batch_rows(run.result),
            "memory": memory_rows(run.result),
            "reading": plain,
            "findings": findings,
            "timelines": timelines(run.result),
            "environment": environment_view(run.result.get("environment")),
        }
    context["card"] = catalogue.get(run.card_id) if run.card_id else None
    return context


def _status(
    request: Request,
    *,
    session: Any,
    catalogue: Catalogue,
    user_id: int,
    run: DemoRun,
    timeout: float,
    history: bool = False,
    **extra: Any,
) -> HTMLResponse:
    """The live part of the run page; with `history`, the run history beside it too (out of band)."""
    context = _run_context(session, catalogue=catalogue, run=run, timeout=timeout) | extra
    if history:
        context |= _history_context(session, user_id=user_id, run=run, timeout=timeout) | {
            "oob_history": True
        }
    return render(request, "_demo_status.html", **context)


@router.post("/demos", response_class=HTMLResponse)
def submit_demo_form(
    *,
    request: Request,
    form: FormDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    submitter: SubmitterDep,
) -> Response:
    preset = str(form.get("preset") or "")
    card_id = str(form.get("card_id") or "") or None
    card = catalogue.get(card_id) if card_id else None
    spec = get_preset(preset)  # an unknown name is a 422 naming the presets there are
    values = {p.name: str(form.get(p.name, "")) for p in spec.params if form.get(p.name) is not None}

    def form_again(message: str, status_code: int) -> Response:
        # htmx swaps only 2xx and 422 (base.html); a refusal it should show in place is sent as 200.
        code = status_code if status_code == 422 or not is_htmx(request) else 200
        return render(
            request,
            "_demo_form.html",
            status_code=code,
            form=preset_form(preset, values=values, errors=[message]),
            card=card,
        )

    try:
        key = _SUBMIT_KEY.validate_python(form[KEY_FIELD]) if form.get(KEY_FIELD) else None
    except ValidationError:
        return form_again("This form is damaged: reload the page and run it again.", 422)
    try:
        check_card(catalogue, card_id)
        run = submitter.submit(
            session, user_id=user_id, preset=preset, params=values, card_id=card_id, key=key
        ).run
    except runs.KeyReused:
        return form_again(
            "This form was already sent with other values: reload the page to start another run.", 422
        )
    except ParamError as error:
        return form_again(_as_labelled(spec, error.message), 422)
    except TooMany as error:
        return form_again(f"Not queued: {error.message}.", 429)
    except runs.QueueUnavailable as error:
        return form_again(error.message, 503)
    return _go_to(request, f"/demos/{run.id}")


@router.get("/demos/{run_id}", response_class=HTMLResponse)
def demo_page(
    *,
    request: Request,
    run_id: str,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    timeout: HeartbeatTimeoutDep,
) -> HTMLResponse:
    run = runs.visible_run(session, user_id=user_id, run_id=run_id, timeout_seconds=timeout)
    context = _run_context(session, catalogue=catalogue, run=run, timeout=timeout)
    context |= _history_context(session, user_id=user_id, run=run, timeout=timeout)
    return render(request, "demo_run.html", **context)


@router.get("/demos/{run_id}/status", response_class=HTMLResponse)
def demo_status(
    *,
    request: Request,
    run_id: str,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    timeout: HeartbeatTimeoutDep,
    seen: Annotated[str | None, Query(max_length=16)] = None,
) -> HTMLResponse:
    """The live part of the run page; polled every second while the run is queued or running.

    `seen` is the status the page shows: when it changed, the history beside it is refreshed too.
    """
    run = runs.visible_run(session, user_id=user_id, run_id=run_id, timeout_seconds=timeout)
    changed = is_htmx(request) and seen is not None and seen != run.status
    return _status(
        request,
        session=session,
        catalogue=catalogue,
        user_id=user_id,
        run=run,
        timeout=timeout,
        history=changed,
    )


@router.post("/demos/{run_id}/cancel", response_class=HTMLResponse)
def cancel_demo_form(
    *,
    request: Request,
    run_id: str,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    timeout: HeartbeatTimeoutDep,
) -> Response:
    run = runs.own_run(session, user_id=user_id, run_id=run_id)
    with contextlib.suppress(runs.AlreadyFinished):  # it finished meanwhile: show how
        runs.request_cancel(session, run)
    if not is_htmx(request):
        return RedirectResponse(f"/demos/{run.id}", status_code=303)
    return _status(
        request, session=session, catalogue=catalogue, user_id=user_id, run=run, timeout=timeout, history=True
    )


@router.post("/demos/{run_id}/rerun", response_class=HTMLResponse)
def rerun_demo_form(
    *,
    request: Request,
    run_id: str,
    form: FormDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    submitter: SubmitterDep,
    timeout: HeartbeatTimeoutDep,
) -> Response:
    old = runs.own_run(session, user_id=user_id, run_id=run_id)
    page: dict[str, Any] = {"catalogue": catalogue, "user_id": user_id, "run": old, "timeout": timeout}
    try:
        key = _SUBMIT_KEY.validate_python(form[KEY_FIELD]) if form.get(KEY_FIELD) else None
        run = submitter.resubmit(session, user_id=user_id, old=old, key=key).run
    except ValidationError:
        message = "This form is damaged: reload the page and run it again."
        return _status(request, session=session, **page, rerun_error=message)
    except runs.SUBMIT_REFUSALS as error:
        if not is_htmx(request):
            raise
        return _status(request, session=session, **page, rerun_error=f"Not queued: {error.message}.")
    return _go_to(request, f"/demos/{run.id}")


@router.get("/cards/{card_id}/notes/{note_key}", response_class=HTMLResponse)
def note_evidence(*, request: Request, card: CardDep, note_key: str, session: SessionDep) -> HTMLResponse:
    """What the demo behind one of the card's version notes last measured on this server (anyone's
    run at the note's parameters or the preset's defaults: the figure, never who ran it), and a
    form to run it with the note's parameters."""
    note = next((n for n in card.notes if n.key == note_key and n.demo is not None), None)
    if note is None or note.demo is None:
        raise NotFound(f"the card has no measured note '{note_key[:40]}'")
    demo = note.demo
    run = runs.latest_measuring(
        session,
        preset=demo.preset,
        variants=[demo.variant, *filter(None, [demo.against])],
        params=dict(demo.params),
    )
    figures = evidence(
        demo.preset, variant=demo.variant, against=demo.against, params=dict(demo.params), run=run
    )
    return render(request, "_note_evidence.html", card=card, note=note, evidence=figures)


@router.get("/cards/{card_id}/demo-runs", response_class=HTMLResponse)
def card_demo_runs(
    *,
    request: Request,
    card: CardDep,
    session: SessionDep,
    user_id: UserIdDep,
    timeout: HeartbeatTimeoutDep,
) -> HTMLResponse:
    """The person's runs on this card, for the card page; polls while one of them is active."""
    seen = runs.runs_as_seen(session, user_id=user_id, card_id=card.id, limit=20, timeout_seconds=timeout)
    return render(
        request,
        "_demo_history.html",
        card=card,
        history=history_rows(seen),
        history_heading="Your demo runs on this card",
        history_poll=any(r.status in runs.ACTIVE for r in seen),
        history_url=f"/cards/{card.id}/demo-runs",
        current_run_id=None,
    )
