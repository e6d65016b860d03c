"""Input types every domain's request schemas share.

API bodies are validated strictly (JSON must send the types the schema names: no true for 1,
no "3" for 3); forms, which send only text, validate the same models with strict=False.
"""

from typing import Annotated

from pydantic import AfterValidator, BeforeValidator


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
Storable = AfterValidator(_storable)
