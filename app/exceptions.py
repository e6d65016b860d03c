"""Errors the services raise. They know nothing of HTTP; app/web/errors.py maps each to a status."""

from collections.abc import Iterable, Mapping
from typing import Any


def in_words(names: tuple[str, ...]) -> str:
    """'junior, middle, senior or principal': the choices an `Invalid` message offers."""
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else "".join(names)


class DomainError(Exception):
    """Base: `message` is written for the person who made the request."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(DomainError):
    """The thing does not exist, or belongs to someone else (which reads the same)."""


class Invalid(DomainError):
    """The input is well-formed but not acceptable; `field` names where, as a request body's key."""

    def __init__(self, field: str, message: str, location: str = "body", **extra: Any) -> None:
        super().__init__(message)
        self.field = field
        self.location = location
        self.extra = extra

    def detail(self) -> list[dict[str, Any]]:
        """FastAPI's 422 shape, so the API answers one way whichever layer refused."""
        loc = [self.location, *self.field.split(".")]
        return [{"loc": loc, "msg": self.message, "type": "value_error", **self.extra}]


class InvalidFile(Invalid):
    """A file with problems: the first few (pydantic-style dicts, `loc` inside the file) and how
    many more there were, so a refusal of a huge bad file stays small."""

    def __init__(self, problems: list[dict[str, Any]], more: int = 0) -> None:
        super().__init__("file", f"the file has {len(problems) + more} problems")
        self.problems = problems
        self.more = more

    def detail(self) -> list[dict[str, Any]]:
        return self.problems


class Forbidden(DomainError):
    """The person is signed in but their role does not allow this."""


class NotThisFormat(DomainError):
    """The request body is in a format this route does not read (a form where JSON is wanted)."""


class TooLarge(DomainError):
    """The thing sent is bigger than this server takes (a recording past its byte cap)."""


class Conflict(DomainError):
    """The request is valid but the thing's state forbids it now (a finished run cancelled)."""


class Unavailable(DomainError):
    """A part the request needs (the job queue) cannot be reached; trying later may work."""


class TooMany(DomainError):
    """The person has reached a limit; `retry_after` says when to try again, in seconds."""

    def __init__(self, message: str, retry_after: int = 10) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def field_messages(errors: Iterable[Mapping[str, Any]], whole: str = "") -> list[str]:
    """`field: message` for each pydantic-style error; `whole` names the field of an error about
    the input as a whole (without it, such an error is its message alone)."""
    lines = []
    for error in errors:
        field = ".".join(map(str, error.get("loc", ()))) or whole
        # pydantic prefixes messages from our own validators with "Value error, ".
        message = str(error.get("msg")).removeprefix("Value error, ")
        lines.append(f"{field}: {message}" if field else message)
    return lines
