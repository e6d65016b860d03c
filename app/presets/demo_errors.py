"""The ways a preset can refuse to run, or a demo run in this process be cancelled; how a job run
in the worker's child process ends without a result is app/jobs/child_process.py's."""

from __future__ import annotations

from app.exceptions import DomainError, Invalid
from app.presets.declaration import ParamSpec


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
