"""Presets, parameter bounds and the card's models: plain arithmetic, no TensorFlow."""

import subprocess
import sys

import pytest

from app.presets import (
    MAX_RUN_SECONDS,
    PRESETS,
    VARIANT_OVERHEAD_SECONDS,
    ParamError,
    estimate_seconds,
    get_preset,
    model_buffer_mb,
    model_first_batch_ms,
    model_step_ms,
    serial_bound_ms,
    simulate_prefetch,
    time_limit_seconds,
    validate_params,
)

pytestmark = pytest.mark.engine_agnostic

DESIGN_PRESETS = [
    "placement",
    "deficit",
    "jitter",
    "synthetic",
    "memory",
    "to-device",
    "cache",
    "shuffle",
    "interleave",
    "vectorize",
]


def test_every_preset_from_the_design_is_described() -> None:
    assert list(PRESETS) == DESIGN_PRESETS
    for preset in PRESETS.values():
        assert preset.title and preset.description and preset.model
        assert len(preset.variant_names) >= 2
        assert {"input_ms", "compute_ms", "steps"} <= {p.name for p in preset.params}
        for p in preset.params:
            assert p.type == "int" and p.min <= p.default <= p.max and p.unit and p.help
        described = preset.to_dict()
        assert described["variants"][0]["name"] == preset.variant_names[0]


def test_fixed_variant_names() -> None:
    assert get_preset("placement").variant_names == [
        "no-prefetch",
        "prefetch-before-batch",
        "prefetch-last-autotune",
        "prefetch-last-2",
        "no-prefetch-tf-defaults",
    ]
    assert get_preset("deficit").variant_names == ["prefetch-only", "parallel-map"]
    assert get_preset("jitter").variant_names == [
        "buffer-0",
        "buffer-1",
        "buffer-2",
        "buffer-8",
        "buffer-autotune",
    ]
    assert get_preset("synthetic").variant_names == ["real-pipeline", "synthetic-input"]
    assert get_preset("memory").variant_names == ["prefetch-autotune", "prefetch-2"]
    assert get_preset("to-device").variant_names == ["prefetch-to-device", "host-prefetch"]
    assert get_preset("cache").variant_names == [
        "cache-after-map-epoch-1",
        "cache-after-map-epoch-2",
        "cache-before-map-epoch-1",
        "cache-before-map-epoch-2",
    ]
    assert get_preset("shuffle").variant_names == ["buffer-small", "buffer-medium", "buffer-large"]
    assert get_preset("interleave").variant_names == [
        "flat-map",
        "interleave-sequential",
        "interleave-parallel",
    ]
    assert get_preset("vectorize").variant_names == ["map-then-batch", "batch-then-map"]


def test_defaults_are_filled_in() -> None:
    params = validate_params("deficit", params={"input_ms": 40})
    assert params == {"input_ms": 40, "compute_ms": 20, "batch_size": 4, "steps": 40, "workers": 4}


@pytest.mark.parametrize("preset", DESIGN_PRESETS)
def test_defaults_finish_in_about_15_seconds(preset: str) -> None:
    assert estimate_seconds(preset, validate_params(preset, params={})) <= 15
    assert time_limit_seconds(preset, validate_params(preset, params={})) > estimate_seconds(preset, {})


@pytest.mark.parametrize(
    ("preset", "params", "param", "message"),
    [
        ("placement", {"input_ms": 501}, "input_ms", "input_ms must be between 0 and 500"),
        ("placement", {"input_ms": -1}, "input_ms", "input_ms must be between 0 and 500"),
        ("placement", {"steps": 4}, "steps", "steps must be between 5 and 500"),
        ("deficit", {"workers": 17}, "workers", "workers must be between 1 and 16"),
        ("jitter", {"jitter_pct": 101}, "jitter_pct", "jitter_pct must be between 0 and 100"),
        ("memory", {"batch_mb": 0}, "batch_mb", "batch_mb must be between 1 and 128"),
        ("placement", {"compute_ms": "fast"}, "compute_ms", "compute_ms must be an integer"),
        ("placement", {"compute_ms": 2.5}, "compute_ms", "compute_ms must be an integer"),
        ("placement", {"compute_ms": True}, "compute_ms", "compute_ms must be an integer"),
        ("placement", {"workers": 2}, "workers", "unknown parameter 'workers'"),
        ("warp-drive", {}, "preset", "unknown preset 'warp-drive'"),
    ],
)
def test_bad_params_name_the_param_and_range(preset: str, params: dict, param: str, message: str) -> None:
    with pytest.raises(ParamError) as caught:
        validate_params(preset, params=params)
    assert caught.value.param == param
    assert message in caught.value.message


def test_integers_from_forms_and_json_are_accepted() -> None:
    params = validate_params("placement", params={"input_ms": "45", "compute_ms": 20.0, "steps": None})
    assert (params["input_ms"], params["compute_ms"], params["steps"]) == (45, 20, 40)


def test_a_run_that_would_take_too_long_is_refused() -> None:
    with pytest.raises(ParamError) as caught:
        validate_params("placement", params={"input_ms": 500, "compute_ms": 500, "steps": 500})
    assert caught.value.param == "steps"
    assert f"{MAX_RUN_SECONDS:.0f} s" in caught.value.message


def test_placement_model() -> None:
    p = validate_params("placement", params={"input_ms": 30, "compute_ms": 20, "batch_size": 4})
    assert model_step_ms("placement", variant="no-prefetch", params=p) == 50
    assert model_step_ms("placement", variant="prefetch-last-autotune", params=p) == 30
    assert model_step_ms("placement", variant="prefetch-last-2", params=p) == 30
    # prefetch(2) before batch of 4: 2 of the 4 examples (15 ms) can be ready when the step ends.
    assert model_step_ms("placement", variant="prefetch-before-batch", params=p) == 35
    assert model_step_ms("placement", variant="nonsense", params=p) is None


def test_deficit_synthetic_and_to_device_models() -> None:
    p = validate_params("deficit", params={"input_ms": 60, "compute_ms": 20, "workers": 4})
    assert model_step_ms("deficit", variant="prefetch-only", params=p) == 60
    assert model_step_ms("deficit", variant="parallel-map", params=p) == 20
    assert model_step_ms("deficit", variant="parallel-map", params={**p, "workers": 2}) == 30
    s = validate_params("synthetic", params={"input_ms": 50, "compute_ms": 20})
    assert model_step_ms("synthetic", variant="real-pipeline", params=s) == 50
    assert model_step_ms("synthetic", variant="synthetic-input", params=s) == 20
    assert (
        model_step_ms(
            "to-device", variant="prefetch-to-device", params=validate_params("to-device", params={})
        )
        == 30
    )


def test_jitter_model_goes_from_input_plus_compute_to_compute() -> None:
    p = validate_params("jitter", params={"input_ms": 20, "compute_ms": 30, "jitter_pct": 0})
    assert model_step_ms("jitter", variant="buffer-0", params=p) == 50
    assert model_step_ms("jitter", variant="buffer-8", params=p) == 30
    bursty = validate_params("jitter", params={})
    models = [model_step_ms("jitter", variant=v, params=bursty) for v in get_preset("jitter").variant_names]
    zero, one, two, eight, auto = (m or 0.0 for m in models)
    assert zero > one > two > eight == auto == bursty["compute_ms"]


def test_queue_model() -> None:
    assert simulate_prefetch([10.0] * 5, compute_ms=20.0, buffer=0) == [30.0] * 5
    # With a buffer the first step waits for the first batch, then steps cost max(input, compute).
    assert simulate_prefetch([10.0] * 5, compute_ms=20.0, buffer=1) == [30.0, 20.0, 20.0, 20.0, 20.0]
    assert simulate_prefetch([30.0] * 4, compute_ms=20.0, buffer=2)[1:] == [30.0] * 3
    # A 35 ms batch after fast ones: a buffer of 2 lets the producer start it two 20 ms steps
    # ahead, which hides it; a buffer of 1 gives it only one step's head start.
    costs = [1.0, 1.0, 1.0, 35.0, 1.0]
    assert max(simulate_prefetch(costs, compute_ms=20.0, buffer=2)[2:]) == 20.0
    assert max(simulate_prefetch(costs, compute_ms=20.0, buffer=1)[2:]) > 20.0


def test_web_side_modules_do_not_import_tensorflow() -> None:
    code = (
        "import sys, app.presets, app.demos.child, app.worker.runner; "
        "assert 'tensorflow' not in sys.modules, 'tensorflow imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_serial_bound_is_the_slowest_batch_plus_compute() -> None:
    assert serial_bound_ms("placement", params=validate_params("placement", params={})) == 60
    jitter = validate_params("jitter", params={"input_ms": 20, "compute_ms": 30, "jitter_pct": 50})
    assert serial_bound_ms("jitter", params=jitter) == 30 + 30
    assert (
        serial_bound_ms(
            "memory",
            params=validate_params("memory", params={"compute_ms": 10, "jitter_pct": 0}),
            extra_input_ms=5,
        )
        == 40
    )


def test_a_run_whose_buffer_could_outgrow_the_memory_limit_is_refused() -> None:
    # AUTOTUNE can buffer the whole run: 128 MB x (50 steps + 2) is far past 3 GB less TensorFlow.
    with pytest.raises(ParamError, match="lower batch_mb or steps") as refused:
        validate_params("memory", params={"batch_mb": 128, "steps": 50}, memory_limit_mb=3072)
    assert refused.value.param == "batch_mb"
    assert (
        validate_params("memory", params={"batch_mb": 16, "steps": 50}, memory_limit_mb=3072)["batch_mb"]
        == 16
    )
    assert validate_params("placement", params={"steps": 200, "input_ms": 50}, memory_limit_mb=3072)


def test_placement_under_tensorflow_defaults_is_modelled_as_overlapped() -> None:
    p = validate_params("placement", params={"input_ms": 30, "compute_ms": 20})
    assert model_step_ms("placement", variant="no-prefetch-tf-defaults", params=p) == 30
    assert model_step_ms("placement", variant="no-prefetch", params=p) == 50


def test_cache_model_reads_memory_only_after_the_map_in_epoch_2() -> None:
    p = validate_params("cache", params={"input_ms": 40, "compute_ms": 10, "batch_size": 2, "steps": 20})
    models = {v: model_step_ms("cache", variant=v, params=p) for v in get_preset("cache").variant_names}
    assert models == {
        "cache-after-map-epoch-1": 50,
        "cache-after-map-epoch-2": 10,
        "cache-before-map-epoch-1": 50,
        "cache-before-map-epoch-2": 50,
    }
    # Each epoch-2 variant first reads a whole epoch (20 batches of 40 ms input), untimed but not free.
    steps_s = 20 * (50 + 10 + 50 + 50) / 1000
    assert estimate_seconds("cache", p) == round(
        1.1 * (steps_s + 2 * 20 * 40 / 1000) + 4 * VARIANT_OVERHEAD_SECONDS, 1
    )


def test_interleave_model_divides_the_input_by_the_shards_read_at_once() -> None:
    p = validate_params("interleave", params={"input_ms": 80, "compute_ms": 10, "shards": 4})
    assert model_step_ms("interleave", variant="flat-map", params=p) == 80
    assert model_step_ms("interleave", variant="interleave-sequential", params=p) == 80
    assert model_step_ms("interleave", variant="interleave-parallel", params=p) == 20
    # Bounded below by the step: more shards than input / compute buy nothing.
    assert model_step_ms("interleave", variant="interleave-parallel", params={**p, "shards": 16}) == 10
    assert get_preset("interleave").thread_pool_param == "shards"


def test_vectorize_model_pays_the_call_cost_per_example_or_per_batch() -> None:
    p = validate_params(
        "vectorize", params={"input_ms": 16, "compute_ms": 10, "batch_size": 4, "call_ms": 20}
    )
    assert model_step_ms("vectorize", variant="map-then-batch", params=p) == 4 * 20 + 16 + 10
    assert model_step_ms("vectorize", variant="batch-then-map", params=p) == 20 + 16 + 10
    # The longest step allowed counts one call per example, so map-then-batch never reads as stalled.
    assert serial_bound_ms("vectorize", params=p) == 16 + 4 * 20 + 10


def test_shuffle_model_fills_the_buffer_before_the_first_batch() -> None:
    p = validate_params(
        "shuffle",
        params={
            "input_ms": 40,
            "compute_ms": 20,
            "batch_size": 2,
            "small_buffer": 16,
            "large_buffer": 128,
            "example_kb": 512,
        },
    )
    # 16 examples fill the buffer, then the batch takes 1 more; each example costs 40 / 2 ms.
    assert model_first_batch_ms("shuffle", variant="buffer-small", params=p) == (16 + 1) * 20
    assert model_first_batch_ms("shuffle", variant="buffer-large", params=p) == (128 + 1) * 20
    assert model_buffer_mb("shuffle", variant="buffer-small", params=p) == 8
    assert model_buffer_mb("shuffle", variant="buffer-large", params=p) == 64
    assert model_step_ms("shuffle", variant="buffer-large", params=p) == 60
    assert (
        model_first_batch_ms(
            "placement", variant="no-prefetch", params=validate_params("placement", params={})
        )
        is None
    )
    # The estimate counts each buffer's fill on top of the steps.
    fills = (17 + 49 + 129) * 20 / 1000
    assert estimate_seconds("shuffle", p) == round(
        1.1 * (3 * 15 * 60 / 1000 + fills) + 3 * VARIANT_OVERHEAD_SECONDS, 1
    )
