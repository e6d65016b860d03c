"""A run's result document and its reading, made from measurements without TensorFlow.

The measurements here are made up (as the step loop would time them), so each figure the page
shows can be checked against the arithmetic it stands for.
"""

import json
import statistics
import subprocess
import sys

from app import PROJECT_ROOT
from app.demos.claims import summary_of
from app.demos.presenters.comparison import comparisons, first_batch_rows, memory_rows
from app.demos.presenters.timeline import timelines
from app.demos.results import Measurement, RunResult, reading, variant_result
from app.presets import WARMUP_STEPS, get_preset, model_step_ms, serial_bound_ms, validate_params
from app.presets.results import Step, VariantResult, variants_of


def _measured(
    durations: list[float], *, wait_share: float = 0.5, counted: str | None = None, element_mb: float = 0.0
) -> Measurement:
    """Steps that each last `durations[k]`, a `wait_share` of it waiting for input; with
    `counted`, the producer held k % 5 elements before step k."""
    measured = Measurement(counted=counted, element_mb=element_mb)
    start = 0.0
    for k, duration in enumerate(durations):
        held = k % 5 if counted is not None else None
        if held is not None:
            measured.buffered.append(held)
        measured.steps.append(
            Step(
                start_ms=round(start, 3),
                input_ms=round(duration * wait_share, 3),
                compute_ms=round(duration * (1 - wait_share), 3),
                warmup=k < WARMUP_STEPS,
                buffered=held,
            )
        )
        measured.durations_ms.append(duration)
        start += duration
    return measured


def _at_model(preset: str, variant: str, params: dict[str, int], factor: float = 1.0) -> list[float]:
    model = model_step_ms(preset, variant=variant, params=params)
    assert model is not None
    # A slow warm-up, then steps around the model, the slowest a little over it.
    steady = [factor * model * (1 + 0.01 * (k % 3 - 1)) for k in range(params["steps"] - WARMUP_STEPS)]
    return [5 * model] * WARMUP_STEPS + steady


def _result(preset: str, durations: dict[str, list[float]], **measure: object) -> RunResult:
    spec = get_preset(preset)
    params = validate_params(preset, params={})
    variants = [
        variant_result(
            spec,
            name=name,
            params=params,
            measured=_measured(durations[name], **measure),  # type: ignore[arg-type]
            fill_ms=None,
        )
        for name in spec.variant_names
    ]
    return RunResult(
        preset=preset,
        params=params,
        environment={"warmup_steps": WARMUP_STEPS},
        variants=variants,
        reading=reading(spec, params=params, variants=variants),
    )


def test_the_result_modules_load_without_tensorflow() -> None:
    code = (
        "import sys\n"
        "import app.demos.results, app.presets.results\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'tensorflow' or m == 'app.demos.pipelines'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_a_variant_s_figures_leave_out_the_warm_up_and_sit_beside_its_model() -> None:
    params = validate_params("placement", params={})
    durations = {name: _at_model("placement", name, params) for name in get_preset("placement").variant_names}
    result = _result("placement", durations)
    doc = json.loads(json.dumps(result.to_doc()))
    for variant in doc["variants"]:
        kept = durations[variant["name"]][WARMUP_STEPS:]
        assert variant["median_step_ms"] == round(statistics.median(kept), 3)
        assert variant["mean_step_ms"] == round(statistics.fmean(kept), 3)
        assert variant["median_step_ms"] <= variant["p90_step_ms"] <= max(kept)
        assert variant["model_step_ms"] == model_step_ms("placement", variant=variant["name"], params=params)
        assert variant["measured_over_model"] == round(
            variant["median_step_ms"] / variant["model_step_ms"], 3
        )
        assert variant["stalled_steps"] == 0
        assert [s["warmup"] for s in variant["steps"]] == [k < WARMUP_STEPS for k in range(params["steps"])]
    # Every variant measured within 10 % of its model: the reading says so and finds nothing.
    assert "Within 10% of the model" in doc["reading"] and "Finding:" not in doc["reading"]
    assert f"leave out each variant's first {WARMUP_STEPS} steps" in doc["reading"]
    assert [row.verdict for row in comparisons(doc)] == ["match"] * len(doc["variants"])


def test_a_variant_far_from_its_model_and_a_step_held_up_from_outside_are_named() -> None:
    params = validate_params("placement", params={})
    durations = {name: _at_model("placement", name, params) for name in get_preset("placement").variant_names}
    # 15 % slower than its model: a finding, yet within what the model allows any step.
    durations["no-prefetch"] = _at_model("placement", "no-prefetch", params, factor=1.15)
    held_up = 2 * serial_bound_ms("placement", params=params) + 50
    durations["prefetch-last-2"][WARMUP_STEPS + 3] = held_up
    result = _result("placement", durations)
    doc = result.to_doc()
    by_name = {v["name"]: v for v in doc["variants"]}
    assert by_name["prefetch-last-2"]["stalled_steps"] == 1
    assert by_name["no-prefetch"]["stalled_steps"] == 0
    slow = by_name["no-prefetch"]
    off = (slow["median_step_ms"] / slow["model_step_ms"] - 1) * 100
    assert (
        f"Finding: {slow['label']} took {slow['median_step_ms']:.1f} ms (median) against a model of "
        f"{slow['model_step_ms']:.1f} ms ({off:+.0f}%)."
    ) in doc["reading"]
    assert "Something outside the pipeline held them up" in doc["reading"]
    rows = {row.name: row for row in comparisons(doc)}
    assert rows["no-prefetch"].verdict == "slower" and rows["prefetch-last-2"].verdict == "match"


def test_what_a_buffer_held_is_counted_beside_its_cap() -> None:
    params = validate_params("memory", params={})
    spec = get_preset("memory")
    durations = {name: _at_model("memory", name, params) for name in spec.variant_names}
    result = _result("memory", durations, counted="batches", element_mb=float(params["batch_mb"]))
    doc = json.loads(json.dumps(result.to_doc()))
    held = max(k % 5 for k in range(WARMUP_STEPS, params["steps"]))
    for variant in doc["variants"]:
        assert variant["peak_buffered_batches"] == held
        assert variant["peak_host_mb"] == held * params["batch_mb"]
        assert all(step["buffered_batches"] == k % 5 for k, step in enumerate(variant["steps"]))
    caps = {v["name"]: v["model_buffer_mb"] for v in doc["variants"]}
    assert caps == {"prefetch-autotune": None, "prefetch-2": 2.0 * params["batch_mb"]}
    # The preset's own sentence reads the typed figures: the peaks it names are the counted ones.
    assert f"prefetch(AUTOTUNE) held up to {held} batches" in doc["reading"]
    rows = memory_rows(doc)
    assert [(r.peak_count, r.unit, r.cap_mb) for r in rows] == [
        (held, "batches", caps["prefetch-autotune"]),
        (held, "batches", caps["prefetch-2"]),
    ]


def test_the_first_batch_is_measured_where_the_preset_models_it() -> None:
    params = validate_params("shuffle", params={})
    spec = get_preset("shuffle")
    durations = {name: _at_model("shuffle", name, params) for name in spec.variant_names}
    result = _result("shuffle", durations, counted="examples", element_mb=params["example_kb"] / 1024)
    doc = result.to_doc()
    rows = first_batch_rows(doc)
    assert [r.name for r in rows] == spec.variant_names
    for row, variant in zip(rows, doc["variants"], strict=True):
        assert row.measured_ms == variant["steps"][0]["input_ms"] == variant["first_batch_ms"]
        assert row.model_ms == variant["model_first_batch_ms"] is not None
    # A preset without a first-batch model carries no such figure.
    placement = _result("placement", {n: [30.0] * 20 for n in get_preset("placement").variant_names})
    assert not first_batch_rows(placement.to_doc())
    assert all("first_batch_ms" not in v for v in placement.to_doc()["variants"])


def test_a_stored_variant_reads_back_as_it_was_written_and_its_summary_without_steps() -> None:
    params = validate_params("memory", params={})
    durations = {name: _at_model("memory", name, params) for name in get_preset("memory").variant_names}
    result = _result("memory", durations, counted="batches", element_mb=float(params["batch_mb"]))
    stored = json.loads(json.dumps(result.to_doc()))
    assert variants_of(stored) == result.variants
    assert [VariantResult.from_doc(v).to_doc() for v in stored["variants"]] == stored["variants"]
    summary = variants_of(summary_of(stored))
    assert all(not v.steps for v in summary)
    assert [v.median_step_ms for v in summary] == [v.median_step_ms for v in result.variants]
    assert [v.buffer for v in summary] == [v.buffer for v in result.variants]


def test_the_timeline_draws_every_stored_step_on_one_scale() -> None:
    params = validate_params("placement", params={})
    spec = get_preset("placement")
    durations = {name: _at_model("placement", name, params) for name in spec.variant_names}
    doc = _result("placement", durations).to_doc()
    drawn = timelines(doc)
    assert [t.name for t in drawn] == spec.variant_names
    for timeline, variant in zip(drawn, doc["variants"], strict=True):
        computes = next(lane for lane in timeline.lanes if lane.kind == "compute").bars
        assert len(computes) == len(variant["steps"]) == params["steps"]
        assert f"median step {variant['median_step_ms']:.1f} ms" in timeline.summary
        assert timeline.warmup_x > timeline.plot_left  # the warm-up is marked off
