"""The ways a demo can end without a result document."""

from __future__ import annotations

from app.exceptions import DomainError, Invalid
from app.presets.base import ParamSpec


class DemoError(DomainError):
    """Base class of every way a demo can end without a result document."""


class ParamError(DemoError, Invalid):
    """A parameter (or the preset name) is not acceptable; `param` names it, with its bounds."""

    def __init__(self, param: str, message: str, spec: ParamSpec | None = None) -> None:
        field = param if param in ("preset", "card_id") else f"params.{param}"
        bounds = {"min": spec.min, "max": spec.max} if spec is not None else {}
        Invalid.__init__(self, field, message, location="body", param=param, **bounds)
        self.param = param


class PresetUnavailable(DemoError):
    """The preset cannot run on this worker's hardware (to-device without a GPU)."""


class DemoCancelled(DemoError):
    """The person cancelled the run."""


class DemoTimedOut(DemoError):
    """The run went past its time limit; the runner killed its process."""


class DemoCrashed(DemoError):
    """The runner's child process died mid-job (killed, out of memory, a native crash)."""


class DemoFailed(DemoError):
    """The pipeline raised an error; the child process is still healthy.

    `detail` carries the child's traceback for the worker's log (not for the page).
    """

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail
