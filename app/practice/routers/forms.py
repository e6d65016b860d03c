"""How refused practice forms read (app/web/messages.py): the fields a person fills in by the
labels the pages give them; anything else the page filled in itself (hidden fields, the timer),
so the person can only send it again."""

from pydantic import ValidationError
from starlette.datastructures import FormData

from app.exceptions import Invalid, in_words
from app.practice.schemas import RATINGS
from app.schemas import parse_id
from app.web.messages import form_messages, sentence

ANSWER_LABELS = {"text": "Your answer"}
ANSWER_UNREADABLE = "The answer could not be read; send it again"
RATING_UNREADABLE = "The rating could not be read; send it again"
RATING_CHOICES = in_words(RATINGS)


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
