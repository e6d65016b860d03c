"""The "Run it live" forms: one per preset a card lists, with each parameter's label and bounds.

The same for everyone, so the cached card page can hold them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.presets import (
    PRESETS,
    ParamSpec,
    estimate_seconds,
    get_preset,
)


@dataclass(frozen=True)
class ParamField:
    name: str
    label: str
    unit: str
    help: str
    min: int
    max: int
    value: int | str


@dataclass(frozen=True)
class PresetForm:
    name: str
    title: str
    description: str
    model: str
    needs_gpu: bool
    estimate_seconds: float
    variants: list[str]
    fields: list[ParamField]
    errors: list[str] = field(default_factory=list)


def _field(spec: ParamSpec, value: int | str | None = None) -> ParamField:
    return ParamField(
        spec.name,
        spec.label,
        spec.unit,
        spec.help,
        spec.min,
        spec.max,
        spec.default if value is None else value,
    )


def preset_form(
    name: str, *, values: dict[str, Any] | None = None, errors: list[str] | None = None
) -> PresetForm:
    spec = get_preset(name)
    values = values or {}
    return PresetForm(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        model=spec.model,
        needs_gpu=spec.needs_gpu,
        estimate_seconds=estimate_seconds(spec.name, spec.defaults()),
        variants=[v.label for v in spec.variants],
        fields=[_field(p, values.get(p.name)) for p in spec.params],
        errors=errors or [],
    )


def preset_forms(names: tuple[str, ...] | list[str]) -> list[PresetForm]:
    """Forms for the presets a card lists, in its order; unknown names are skipped."""
    return [preset_form(name) for name in names if name in PRESETS]


def params_text(preset: str, params: dict[str, Any]) -> str:
    """'input 30 ms · compute 30 ms · batch 4 · 40 steps'."""
    spec = PRESETS.get(preset)
    units = {p.name: p.unit for p in spec.params} if spec else {}
    parts = []
    for name, value in params.items():
        label = (spec.param_label(name) if spec else name).lower()
        unit = units.get(name, "")
        parts.append(
            f"{label} {value}{'' if unit in ('', 'steps', 'examples', 'calls', 'batches', 'shards') else ' ' + unit}"
        )
    return " · ".join(parts)
