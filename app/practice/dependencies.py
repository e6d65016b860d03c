"""Loading a person's own attempt; the one "now" a response is computed from; the key
quiz deals sign their items with; the cards a person has been assigned; where the model's
reading of an answer is asked for (`ReaderDep`); and the practice forms
as sent: the answer form read into an attempt (the card page's, /practice's and the mock
interview's alike), a refused one sent back, and how a refused rating reads (app/web/messages.py).
The fields a person fills in are named by the labels the pages give them; anything else the page
filled in itself (hidden fields, the timer), so the person can only send it again."""

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from fastapi import Depends, Request
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse

from app.exceptions import Invalid, NotFound, in_words
from app.jobs.dependencies import QueueDep
from app.practice.assigned import AssignedCards, none_assigned
from app.practice.models import Attempt
from app.practice.readings import Reader
from app.practice.schemas import RATINGS, AttemptIn
from app.schemas import parse_id
from app.storage.base import utcnow
from app.web.dependencies import FormDep, SettingsDep, settings_of
from app.web.messages import form_messages, sentence
from app.web.templating import render

ANSWER_LABELS = {"text": "Your answer"}
ANSWER_UNREADABLE = "The answer could not be read; send it again"
RATING_UNREADABLE = "The rating could not be read; send it again"
RATING_CHOICES = in_words(RATINGS)


def own_attempt(session: Session, *, user_id: int, attempt_id: int) -> Attempt:
    """The person's attempt with that id; someone else's is as unknown as a missing one."""
    attempt = session.get(Attempt, attempt_id)
    if attempt is None or attempt.user_id != user_id:
        raise NotFound(f"no attempt with id {attempt_id}")
    return attempt


def form_attempt(session: Session, *, user_id: int, text: str) -> Attempt | None:
    """The attempt a form names, None when it names none; an id no row can have is a 404."""
    if not text:
        return None
    attempt_id = parse_id(text)
    if attempt_id is None:
        raise NotFound("no attempt with that id")
    return own_attempt(session, user_id=user_id, attempt_id=attempt_id)


# Async so FastAPI runs it inline rather than in its thread pool: it never blocks.
async def get_now() -> datetime:
    """Read once per request and passed to everything the response shows, so every due time
    and "ago" on a page agrees with the others."""
    return utcnow()


NowDep = Annotated[datetime, Depends(get_now)]


# Async, for the reason get_now is: no hop to the thread pool.
async def get_quiz_key(request: Request) -> str:
    return str(settings_of(request).secret_key)


QuizKeyDep = Annotated[str, Depends(get_quiz_key)]


async def assigned_cards(request: Request) -> AssignedCards:
    found: AssignedCards = getattr(request.app.state, "assigned_cards", none_assigned)
    return found


AssignedCardsDep = Annotated[AssignedCards, Depends(assigned_cards)]


async def get_reader(settings: SettingsDep, queue: QueueDep) -> Reader:
    """Where an answer's model reading is asked for: the app's queue, and how recently a worker
    must have beat to take it (its heartbeat timeout)."""
    return Reader(queue, settings.demo_heartbeat_timeout_seconds)


ReaderDep = Annotated[Reader, Depends(get_reader)]


def rating_messages(error: ValidationError | Invalid, choose: str) -> list[str]:
    """What a refused rating says: `choose` for a missing or unknown rating, the reason when the
    attempt takes no rating at all (a reveal), and that the form could not be read otherwise."""
    if isinstance(error, Invalid) and error.field == "attempt":
        return [sentence(error.message)]
    return form_messages(error, {}, RATING_UNREADABLE, {"rating": choose})


def review_to_undo(form: FormData) -> int:
    """The review an undo form names (the card page's and /practice's alike): naming it keeps
    an undo sent twice from taking back two ratings."""
    review_id = parse_id(str(form.get("review") or ""))
    if review_id is None:
        raise Invalid("review", "The rating to undo could not be read; reload the page")
    return review_id


@dataclass(frozen=True)
class AnswerForm:
    """An answer form as sent. The page says what it answers (tier, kind, follow-up), the form
    what was answered; refused, it goes back with what the person typed and the time they had
    taken, so neither the answer nor the clock starts over."""

    request: Request
    form: FormData

    def attempt(
        self,
        *,
        tier: str,
        kind: str,
        follow_up: object = None,
        revealed: bool = False,
        choices: list[str] | None = None,
    ) -> AttemptIn:
        """The attempt the form describes (a ValidationError when it describes none). `choices`, for
        a quiz: the stable ids of the items ticked."""
        typed = not revealed and kind != "quiz"
        return AttemptIn.model_validate(
            {
                "tier": tier,
                "kind": kind,
                # A reveal keeps nothing typed: an answer finished after seeing the model one is a copy.
                "text": self.form.get("text") if typed else None,
                "seconds": self.form.get("seconds") or 0,
                "follow_up": follow_up if follow_up not in (None, "") else None,
                "choices": choices,
                "revealed": revealed,
                "recording_id": (self.form.get("recording_id") or None) if typed else None,
            },
            strict=False,
        )

    def messages(self, error: ValidationError | Invalid, unreadable: str = ANSWER_UNREADABLE) -> list[str]:
        """What a refused answer says: why its recording cannot be saved from (the typing stays),
        or each problem by the field as the page labels it."""
        if isinstance(error, Invalid) and error.field == "recording_id":
            return [sentence(error.message)]
        return form_messages(error, ANSWER_LABELS, unreadable)

    def refused(
        self, page: str, *, fragment: str | None = None, errors: list[str], **context: Any
    ) -> HTMLResponse:
        """The page (or, for htmx, its fragment) again with a 422, the form as sent; `context` may
        say where the clock stands instead (`elapsed`), when the page read the time itself."""
        kept = {"text": self.form.get("text") or "", "elapsed": self.form.get("seconds") or ""}
        return render(self.request, page, fragment, status_code=422, **kept | context, errors=errors)


# Async, as get_now is: handing it out touches nothing that blocks.
async def answer_form(request: Request, form: FormDep) -> AnswerForm:
    return AnswerForm(request, form)


AnswerFormDep = Annotated[AnswerForm, Depends(answer_form)]
