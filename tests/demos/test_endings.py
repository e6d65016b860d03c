"""How a run that ended without a result is told on its page: what happened and what to do,
never the error's own text (it can carry paths and internals; the worker's log keeps it)."""

import pytest

from app.demos.execution import ending
from app.jobs.child_process import ChildCancelled, ChildCrashed, ChildFailed, ChildTimedOut
from app.presets import ParamError

pytestmark = pytest.mark.engine_agnostic

SECRET = "/srv/tiercards/secret_key at 0x7f00"


@pytest.mark.parametrize(
    "error",
    [ChildFailed(f"ValueError: {SECRET}", "Traceback …"), RuntimeError(SECRET), OSError(2, SECRET)],
)
def test_errors_are_named_by_kind_without_their_text(error: Exception) -> None:
    status, message = ending("run", error=error, cancelled=False, stopping=False, limit_s=60)
    assert status == "failed"
    assert SECRET not in message and "log" in message
    assert type(error).__name__ in message or "ValueError" in message


@pytest.mark.parametrize(
    ("error", "cancelled", "stopping", "status"),
    [
        (ChildCancelled("x"), True, False, "cancelled"),
        (ChildCancelled("x"), False, True, "interrupted"),
        (ChildCrashed("the demo process died"), False, True, "interrupted"),
        (ChildCrashed("the demo process died"), False, False, "failed"),
        (ChildTimedOut("x"), False, False, "failed"),
        (ParamError("steps", "steps must be between 5 and 500"), False, False, "failed"),
    ],
)
def test_each_ending_has_its_status(error: Exception, cancelled: bool, stopping: bool, status: str) -> None:
    assert ending("run", error=error, cancelled=cancelled, stopping=stopping, limit_s=60)[0] == status
