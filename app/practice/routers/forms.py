"""How refused practice forms read (app/web/messages.py): the fields a person fills in by the
labels the pages give them; anything else the page filled in itself (hidden fields, the timer),
so the person can only send it again."""

from pydantic import ValidationError

from app.exceptions import Invalid, in_words
from app.practice.schemas import RATINGS
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
