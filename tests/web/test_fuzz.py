"""The API fuzzed from its own OpenAPI schema (schemathesis, every check): no request makes a
5xx, and every response matches what the schema says, for valid and invalid input alike.

Runs in-process against the ASGI app on its own database, with a CSRF token, a fixed seed and a
bounded number of examples per operation, so a failure can be replayed.
"""

import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from app import PROJECT_ROOT
from app.factory import create_app
from app.settings import Settings
from app.storage import migrations
from app.web.security import CSRF_COOKIE, signed_token
from tests.services import database_url

EXAMPLES = 40
# Operations whose bodies have rules JSON Schema cannot state, so a schema-valid body can still be
# refused with 422 (and must be): a demo's card must be served and its parameters must fit its
# preset, its time budget and the memory limit; an import's review logs may only name attempts of
# the same file; a recording's audio must be a sound file whose kind its first bytes tell, and fit
# the card's follow-ups; an interview's answer sends its text, a recording or how it was passed
# over, and one of them only. Every other check still runs on them.
CROSS_FIELD_RULES = {
    ("POST", "/api/demos"),
    ("POST", "/api/import"),
    ("POST", "/api/cards/{card_id}/recordings"),
    ("POST", "/api/interviews/{session_id}/answers"),
}

_data_dir = Path(tempfile.mkdtemp(prefix="tiercards-fuzz-"))
_settings = Settings(
    data_dir=_data_dir,
    database_url=database_url(_data_dir),
    content_dir=PROJECT_ROOT / "content",
    secret_key="fuzz-only-secret-key-that-is-long-enough-0123",
    content_poll_seconds=0,
    demo_submits_per_minute=100_000,
    author_checks_per_minute=100_000,
    coverage_checks_per_minute=100_000,
    allowed_hosts=["testserver", "localhost"],
)
migrations.upgrade(_settings)
APP = create_app(_settings)
TOKEN = signed_token(_settings.secret_key)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


# One test an operation, by name: schemathesis's own parametrize gives every operation the same
# test id, and a parallel run that groups tests by id would run only one of them.
OPERATIONS = sorted((result.ok().method.upper(), result.ok().path) for result in schema.get_all_operations())


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_the_api_keeps_its_schema_and_never_fails(method: str, path: str) -> None:
    excluded = [positive_data_acceptance] if (method, path) in CROSS_FIELD_RULES else []

    @given(case=schema[path][method].as_strategy())
    @settings(max_examples=EXAMPLES, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    def call_and_validate(case: schemathesis.Case) -> None:
        case.call_and_validate(
            headers={"X-CSRF-Token": TOKEN, "Cookie": f"{CSRF_COOKIE}={TOKEN}"}, excluded_checks=excluded
        )

    call_and_validate()
