"""A domain error reads as the same status and headers whether a page answers it itself or the
error handlers do."""

import pytest

from app.exceptions import Conflict, DomainError, Forbidden, Invalid, NotFound, TooMany, Unavailable
from app.web.errors import as_http, headers_of, status_of

pytestmark = pytest.mark.engine_agnostic


@pytest.mark.parametrize(
    "error",
    [
        NotFound("gone"),
        Forbidden("no"),
        Invalid("name", "bad"),
        Conflict("busy"),
        TooMany("slow down", 7),
        Unavailable("down"),
    ],
)
def test_a_page_answering_an_error_itself_uses_the_handlers_status_and_headers(error: DomainError) -> None:
    http = as_http(error)
    assert status_of(error) == http.status_code
    assert headers_of(error) == http.headers


def test_only_a_limit_says_when_to_try_again() -> None:
    assert headers_of(TooMany("slow down", 42)) == {"Retry-After": "42"}
    assert status_of(TooMany("slow down", 42)) == 429
    assert headers_of(Conflict("busy")) is None
    assert status_of(Conflict("busy")) == 409
