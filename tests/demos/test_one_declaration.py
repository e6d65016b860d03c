"""Adding a preset is one declaration: a preset declared only in this file, once registered, is
validated, modelled, drawn on the card page, listed and refused by the API, and run in TensorFlow."""

from collections.abc import Iterator, Mapping

import pytest
from fastapi.testclient import TestClient

from app.demos.presenters.forms import params_text, preset_form
from app.presets import (
    PRESETS,
    VARIANT_OVERHEAD_SECONDS,
    ParamError,
    ParamSpec,
    Preset,
    VariantSpec,
    estimate_seconds,
    model_step_ms,
    register,
    validate_params,
)
from app.presets.declaration import Params
from app.presets.results import VariantResult


def _model(variant: str, p: Params) -> float:
    i, c = float(p["input_ms"]), float(p["compute_ms"])
    return i + c if variant == "plain" else max(i, c)


def _reading(p: Params, v: Mapping[str, VariantResult]) -> str:
    return (
        f"Echo heard plain at {v['plain'].median_step_ms:.1f} ms and prefetched at "
        f"{v['prefetched'].median_step_ms:.1f} ms."
    )


ECHO = Preset(
    name="echo",
    title="Echo: a preset declared in a test",
    description="A tiny producer and step, with and without a prefetch of one batch.",
    model="Plain costs input + compute; prefetched costs max(input, compute).",
    params=(
        ParamSpec("input_ms", "Echo input", 3, 0, 20, "ms", "Producer cost per batch."),
        ParamSpec("compute_ms", "Echo compute", 3, 0, 20, "ms", "Consumer cost per step."),
        ParamSpec("batch_size", "Echo batch", 2, 1, 4, "examples", "Examples per batch."),
        ParamSpec("steps", "Echo steps", 6, 5, 10, "steps", "Steps per variant."),
    ),
    variants=(
        VariantSpec(
            "plain",
            "Plain echo",
            "ds.map(load).batch(B)",
            lambda kit, p: kit.examples().batch(p["batch_size"]),
        ),
        VariantSpec(
            "prefetched",
            "Prefetched echo",
            "ds.map(load).batch(B).prefetch(1)",
            lambda kit, p: kit.examples().batch(p["batch_size"]).prefetch(1),
        ),
    ),
    step_model=_model,
    reading=_reading,
)


@pytest.fixture
def echo() -> Iterator[Preset]:
    register(ECHO)
    yield ECHO
    del PRESETS[ECHO.name]


@pytest.mark.usefixtures("echo")
def test_its_params_are_validated_with_their_bounds() -> None:
    assert validate_params("echo", params={"input_ms": 20}) == {
        "input_ms": 20,
        "compute_ms": 3,
        "batch_size": 2,
        "steps": 6,
    }
    with pytest.raises(ParamError) as caught:
        validate_params("echo", params={"input_ms": 21})
    assert (caught.value.param, caught.value.message) == ("input_ms", "input_ms must be between 0 and 20")
    with pytest.raises(ParamError, match="unknown parameter 'workers'"):
        validate_params("echo", params={"workers": 2})


@pytest.mark.usefixtures("echo")
def test_its_model_gives_the_steps_and_the_estimate() -> None:
    params = validate_params("echo", params={"input_ms": 5, "compute_ms": 7})
    assert model_step_ms("echo", variant="plain", params=params) == 12
    assert model_step_ms("echo", variant="prefetched", params=params) == 7
    # Two variants of 6 steps (plain 6 ms, prefetched 3 ms), +10 %, plus each variant's overhead.
    assert estimate_seconds("echo", {}) == round(6 * 1.1 * (6 + 3) / 1000 + 2 * VARIANT_OVERHEAD_SECONDS, 1)


@pytest.mark.usefixtures("echo")
def test_the_card_page_form_and_run_lists_use_its_labels() -> None:
    form = preset_form("echo")
    assert form.title == ECHO.title
    assert [f.label for f in form.fields] == ["Echo input", "Echo compute", "Echo batch", "Echo steps"]
    assert (form.fields[0].min, form.fields[0].max) == (0, 20)
    assert form.variants == ["Plain echo", "Prefetched echo"]
    assert params_text("echo", {"input_ms": 3, "steps": 6}) == "echo input 3 ms · echo steps 6"


@pytest.mark.usefixtures("echo")
def test_the_api_lists_it_and_refuses_its_out_of_bounds_params(client: TestClient) -> None:
    listed = {p["name"]: p for p in client.get("/api/demo-presets").json()["presets"]}
    assert [v["name"] for v in listed["echo"]["variants"]] == ["plain", "prefetched"]
    assert listed["echo"]["params"][0]["label"] == "Echo input"

    response = client.post("/api/demos", json={"preset": "echo", "params": {"compute_ms": 21}})
    assert response.status_code == 422
    detail = response.json()["detail"][0]
    assert detail["param"] == "compute_ms"
    assert "compute_ms must be between 0 and 20" in detail["msg"]
    assert (detail["min"], detail["max"]) == (0, 20)


@pytest.mark.usefixtures("echo")
def test_it_runs_in_tensorflow_with_its_own_reading() -> None:
    pytest.importorskip("tensorflow")
    from app.demos.child import run_in_process

    doc = run_in_process("echo", params={"steps": 5, "input_ms": 2, "compute_ms": 2})

    assert doc["preset"] == "echo"
    assert [v["name"] for v in doc["variants"]] == ["plain", "prefetched"]
    for v in doc["variants"]:
        assert v["median_step_ms"] > 0 and len(v["steps"]) == 5
    assert [v["model_step_ms"] for v in doc["variants"]] == [4, 2]
    assert doc["reading"].startswith("Echo heard plain at ")
