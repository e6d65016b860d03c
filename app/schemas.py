"""Input types every domain's request schemas share.

API bodies are validated strictly (JSON must send the types the schema names: no true for 1,
no "3" for 3); forms, which send only text, validate the same models with strict=False.
"""

from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, Field

# The largest value every engine's id column holds (PostgreSQL's INTEGER; SQLite's goes further):
# a larger one is refused with a 422 before the database is asked, which would otherwise fail on it.
MAX_ID = 2**31 - 1
# The longest answer a person may submit, and so the longest text the coverage checker reads.
MAX_ANSWER_CHARS = 20_000


def _integral(value: object) -> object:
    # JSON Schema counts 14.0 as an integer; strict validation alone would refuse it.
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _storable(text: str) -> str:
    # JSON can carry half a surrogate pair ("\ud800"), which no database can store as UTF-8.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (it holds half of a surrogate pair)") from None
    return text


WholeNumber = Annotated[int, BeforeValidator(_integral)]
# A row's id, as a path names it: 1 to MAX_ID, in ASCII digits (pydantic refuses "²" or "٣").
Id = Annotated[int, Field(ge=1, le=MAX_ID)]


def parse_id(text: str) -> int | None:
    """A row's id as a form sends it, or None when no row can have that id. `isdigit` alone
    would let "²" through to int(), which then fails."""
    if not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if 1 <= value <= MAX_ID else None


Storable = AfterValidator(_storable)


def _searchable(text: str) -> str:
    # PostgreSQL's text holds no NUL: a search with one would fail in the database, not say why.
    if "\x00" in text:
        raise ValueError("must not contain a NUL character")
    return _storable(text)


# Text a page searches the database with (a name filter, a history search).
Searchable = AfterValidator(_searchable)
