"""What a card's version note shows from the demo that measures it: the last figure this server
measured, and the form to run it again with the parameters that show the effect."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.demos.models import DemoRun
from app.demos.presenters.forms import PresetForm, preset_form
from app.presets import get_preset
from app.presets.results import variants_of


@dataclass(frozen=True)
class Figure:
    label: str
    step_ms: float
    model_ms: float | None


@dataclass(frozen=True)
class Evidence:
    preset_title: str
    variant: Figure | None
    against: Figure | None
    finished_at: datetime | None
    params: list[tuple[str, Any]]
    tensorflow: str | None
    form: PresetForm

    @property
    def ratio(self) -> float | None:
        """How many times longer a step of the compared variant took than the note's variant."""
        if self.variant is None or self.against is None or not self.variant.step_ms:
            return None
        return self.against.step_ms / self.variant.step_ms


def _figure(preset: str, *, name: str, run: DemoRun) -> Figure | None:
    spec = get_preset(preset)
    for variant in variants_of(run.summary):
        if variant.name == name:
            return Figure(spec.variant(name).label, variant.measured_step_ms, variant.model_step_ms)
    return None


def evidence(
    preset: str, *, variant: str, against: str | None, params: Mapping[str, int], run: DemoRun | None
) -> Evidence:
    """The figures `run` measured for `variant` (and `against`), and the form with `params`."""
    spec = get_preset(preset)
    form = preset_form(preset, values=dict(params))
    if run is None:
        return Evidence(spec.title, None, None, None, [], None, form)
    environment = (run.summary or {}).get("environment") or {}
    return Evidence(
        preset_title=spec.title,
        variant=_figure(preset, name=variant, run=run),
        against=_figure(preset, name=against, run=run) if against else None,
        finished_at=run.finished_at,
        params=[(spec.param_label(name), value) for name, value in (run.params or {}).items()],
        tensorflow=environment.get("tensorflow_version"),
        form=form,
    )
