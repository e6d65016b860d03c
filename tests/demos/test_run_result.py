"""A run's result document and its reading, made from measurements without TensorFlow.

The measurements here are made up (as the step loop would time them), so each figure the page
shows can be checked against the arithmetic it stands for.
"""

import hashlib
import json
import statistics
import subprocess
import sys
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from app.accounts.models import LOCAL_USER_ID
from app.demos.claims import summary_of
from app.demos.models import DemoRun
from app.demos.presenters.cli_text import result_table_text
from app.demos.presenters.comparison import comparisons, first_batch_rows, memory_rows, noise_view
from app.demos.presenters.status import headline
from app.demos.presenters.timeline import timelines
from app.demos.run_result import Measurement, RunResult, reading, variant_result
from app.presets import (
    AGREEMENT,
    PRESETS,
    WARMUP_STEPS,
    get_preset,
    model_step_ms,
    serial_bound_ms,
    validate_params,
)
from app.presets.results import Step, VariantResult, variants_of
from app.storage.base import utcnow
from tests.factories import OWNER_CARD


def _measured(
    durations: list[float],
    *,
    wait_share: float = 0.5,
    counted: str | None = None,
    element_mb: float = 0.0,
    compute_ms: float | None = None,
) -> Measurement:
    """Steps that each last `durations[k]`, a `wait_share` of it waiting for input (with
    `compute_ms`, the same compute every step and the rest waiting); with `counted`, the producer
    held k % 5 elements before step k."""
    measured = Measurement(counted=counted, element_mb=element_mb)
    start = 0.0
    for k, duration in enumerate(durations):
        held = k % 5 if counted is not None else None
        if held is not None:
            measured.buffered.append(held)
        compute = duration * (1 - wait_share) if compute_ms is None else compute_ms
        measured.steps.append(
            Step(
                start_ms=round(start, 3),
                input_ms=round(
                    max(0.0, duration - compute) if compute_ms is not None else duration * wait_share, 3
                ),
                compute_ms=round(compute, 3),
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


def _scattered(preset: str, variant: str, params: dict[str, int], factor: float) -> list[float]:
    """Steps `factor` times the model on the median, as a busy host scatters them: every fourth
    step held up by a quarter, the rest a few per cent either side."""
    model = model_step_ms(preset, variant=variant, params=params)
    assert model is not None
    spread = [0.97, 1.0, 1.03, 1.25]
    steady = [factor * model * spread[k % 4] for k in range(params["steps"] - WARMUP_STEPS)]
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
        "import app.demos.run_result, app.presets.results\n"
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


def _measure_kwargs(preset: str) -> dict[str, Any]:
    spec, params = get_preset(preset), validate_params(preset, params={})
    if spec.large_batches:
        return {"counted": "batches", "element_mb": float(params["batch_mb"])}
    if spec.large_examples:
        return {"counted": "examples", "element_mb": params["example_kb"] / 1024}
    return {}


# The start of the SHA-256 of each preset's stored result, steady at its model, as stored before
# runs measured their own noise: the same measurements must store the same document.
STORED_BEFORE_NOISE = {
    "placement": "7af3ba55c6a29788",
    "deficit": "6474f8dd66c89207",
    "jitter": "d95ba19e429c2f9e",
    "synthetic": "a891401547dca0d5",
    "memory": "a67f0ca7d674886c",
    "to-device": "fadf448be8e26d83",
    "cache": "50a1e9a55489f98d",
    "shuffle": "f9c65b79939b1468",
    "interleave": "2cde39ed9cb26383",
    "vectorize": "b23245d717898a86",
}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_steady_run_stores_what_it_stored_before_beside_its_noise(preset: str) -> None:
    params = validate_params(preset, params={})
    durations = {name: _at_model(preset, name, params) for name in get_preset(preset).variant_names}
    doc = _result(preset, durations, **_measure_kwargs(preset)).to_doc()
    noise = doc.pop("noise")
    assert hashlib.sha256(json.dumps(doc).encode()).hexdigest()[:16] == STORED_BEFORE_NOISE[preset]
    # Compute within a few per cent from step to step: this run's noise is under the agreement margin.
    assert set(noise["variants"]) == set(get_preset(preset).variant_names)
    assert all(0 <= pct < AGREEMENT * 100 for pct in noise["variants"].values())
    assert noise["busy"] is False


def _placement_with(slow: str, *, factor: float, scattered: bool) -> dict[str, Any]:
    params = validate_params("placement", params={})
    durations = {name: _at_model("placement", name, params) for name in get_preset("placement").variant_names}
    durations[slow] = (_scattered if scattered else _at_model)("placement", slow, params, factor)
    return json.loads(json.dumps(_result("placement", durations).to_doc()))


def test_a_difference_inside_a_noisy_run_s_own_spread_is_no_finding() -> None:
    doc = _placement_with("prefetch-last-autotune", factor=1.12, scattered=True)
    rows = {row.name: row for row in comparisons(doc)}
    last = rows["prefetch-last-autotune"]
    assert last.ratio is not None and last.ratio > 1 + AGREEMENT  # beyond the margin
    noise = doc["noise"]["variants"]["prefetch-last-autotune"]
    assert noise > (last.ratio - 1) * 100  # yet inside what this run's steps scatter by
    assert last.verdict == "noise" and "finding" not in last.verdict_text
    assert f"{noise:.0f} %" in last.verdict_text
    assert doc["noise"]["busy"] is True
    assert "Finding:" not in doc["reading"]
    assert "within this run's noise" in doc["reading"]


def test_on_a_busy_run_a_steady_variant_is_held_to_the_runs_noise_as_the_page_says() -> None:
    """The page says differences under the run's largest scatter are noise; no row below it may
    call a smaller difference a finding, even on a variant whose own steps held steady."""
    params = validate_params("placement", params={})
    durations = {name: _at_model("placement", name, params) for name in get_preset("placement").variant_names}
    durations["no-prefetch"] = _scattered("placement", "no-prefetch", params, 1.0)
    durations["prefetch-last-autotune"] = _at_model("placement", "prefetch-last-autotune", params, 1.15)
    doc = json.loads(json.dumps(_result("placement", durations).to_doc()))
    largest = max(doc["noise"]["variants"].values())
    assert doc["noise"]["busy"] is True and largest > 15
    steady = {row.name: row for row in comparisons(doc)}["prefetch-last-autotune"]
    assert steady.verdict == "noise" and not steady.verdict_text.startswith("finding")
    assert "Finding:" not in doc["reading"]


def test_a_steady_run_with_a_real_difference_declares_it() -> None:
    doc = _placement_with("prefetch-last-autotune", factor=1.15, scattered=False)
    rows = {row.name: row for row in comparisons(doc)}
    assert rows["prefetch-last-autotune"].verdict == "slower"
    assert rows["prefetch-last-autotune"].verdict_text.startswith("finding:")
    assert doc["noise"]["busy"] is False
    assert "Finding: prefetch(AUTOTUNE) last took" in doc["reading"]


def _speedup(doc: dict[str, Any], fast: str, slow: str) -> float:
    by_name = {v["name"]: v for v in doc["variants"]}
    return float(by_name[slow]["median_step_ms"] / by_name[fast]["median_step_ms"])


def _claim(doc: dict[str, Any]) -> str:
    """The history's summary of a run up to its ranking of the variants."""
    said, *ranked = headline(doc).split(" · ")
    assert ranked and ranked[0].startswith("fastest:")
    return said


def test_the_headline_states_the_card_s_claim_first() -> None:
    steady = _placement_with("no-prefetch", factor=1.0, scattered=False)
    speedup = _speedup(steady, "prefetch-last-autotune", "no-prefetch")
    assert (
        _claim(steady)
        == f"prefetch(AUTOTUNE) last: {speedup:.1f}\u00d7 faster than no prefetch, as the card says"
    )
    # Without prefetch the step took no longer than with it: the card's claim did not hold here.
    flat = _placement_with("no-prefetch", factor=0.5, scattered=False)
    model = model_step_ms("placement", variant="no-prefetch", params=flat["params"]) / model_step_ms(
        "placement", variant="prefetch-last-autotune", params=flat["params"]
    )
    assert _claim(flat) == (
        f"prefetch(AUTOTUNE) last: within noise of no prefetch, not as the card says "
        f"(its model: {model:.1f}\u00d7 faster)"
    )
    # Faster, but by far less than the model says.
    short = _placement_with("no-prefetch", factor=0.7, scattered=False)
    speedup = _speedup(short, "prefetch-last-autotune", "no-prefetch")
    assert _claim(short) == (
        f"prefetch(AUTOTUNE) last: {speedup:.1f}\u00d7 faster than no prefetch, not as the card says "
        f"(its model: {model:.1f}\u00d7 faster)"
    )


RUN_ID = "c3" * 16


def _result_page(app: FastAPI, client: TestClient, doc: dict[str, Any]) -> BeautifulSoup:
    with app.state.db.write_sessions() as session:
        session.merge(
            DemoRun(
                id=RUN_ID,
                user_id=LOCAL_USER_ID,
                card_id=OWNER_CARD,
                preset=doc["preset"],
                params=doc["params"],
                status="done",
                progress={},
                result=doc,
                summary=summary_of(doc),
                created_at=utcnow(),
                finished_at=utcnow(),
            )
        )
        session.commit()
    response = client.get(f"/demos/{RUN_ID}")
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "html.parser")


def _text(soup: BeautifulSoup, selector: str) -> str:
    found = soup.select_one(selector)
    assert found is not None, selector
    return " ".join(found.get_text(" ").split())


def test_the_page_of_a_noisy_run_says_the_host_was_busy_and_finds_nothing(
    app: FastAPI, client: TestClient
) -> None:
    doc = _placement_with("prefetch-last-autotune", factor=1.12, scattered=True)
    soup = _result_page(app, client, doc)
    noise = max(doc["noise"]["variants"].values())
    assert f"The host was busy during this run: differences under {noise:.0f} % are noise here" in _text(
        soup, ".noise"
    )
    assert soup.select_one(".findings") is None
    row = soup.select_one('tr[data-variant="prefetch-last-autotune"]')
    assert row is not None and "finding" not in row.get_text()
    assert "verdict-noise" in (row.get("class") or [])


def test_the_page_of_a_steady_run_declares_its_finding_after_the_claim(
    app: FastAPI, client: TestClient
) -> None:
    doc = _placement_with("prefetch-last-2", factor=1.15, scattered=False)
    soup = _result_page(app, client, doc)
    findings = _text(soup, ".findings")
    assert "prefetch(2) last took" in findings
    assert "busy" not in _text(soup, ".noise")
    # The claim is the first thing the result says, before its tables.
    result = soup.select_one(".demo-result")
    assert result is not None
    first = result.find(["p", "h3", "table"])
    assert first is not None and "claim" in (first.get("class") or [])
    speedup = _speedup(doc, "prefetch-last-autotune", "no-prefetch")
    assert first.get_text(" ", strip=True).startswith(
        f"prefetch(AUTOTUNE) last: {speedup:.1f}\u00d7 faster than no prefetch, as the card says"
    )
    history = soup.select_one(f'tr[data-run-id="{RUN_ID}"]')
    assert history is not None and "as the card says" in history.get_text()


def test_the_reading_is_in_short_paragraphs(app: FastAPI, client: TestClient) -> None:
    doc = _placement_with("prefetch-last-autotune", factor=1.15, scattered=False)
    soup = _result_page(app, client, doc)
    paragraphs = [" ".join(p.get_text(" ").split()) for p in soup.select(".reading p")]
    assert len(paragraphs) >= 3
    # The reading's own words, in its order: the preset's sentence first, the warm-up note last.
    assert all(paragraph in doc["reading"] for paragraph in paragraphs)
    assert paragraphs[0].startswith("Without prefetch a step took")
    assert "leave out each variant" in paragraphs[-1]
    for paragraph in paragraphs:
        assert paragraph.count(". ") + 1 <= 4, paragraph
        assert len(paragraph.split()) <= 90, paragraph


def test_a_result_stored_before_runs_measured_their_noise_reads_as_before(
    app: FastAPI, client: TestClient
) -> None:
    doc = _placement_with("no-prefetch", factor=1.15, scattered=False)
    doc.pop("noise")
    rows = {row.name: row for row in comparisons(doc)}
    assert rows["no-prefetch"].verdict == "slower"
    soup = _result_page(app, client, doc)
    assert "noise not measured" in _text(soup, ".noise").lower()
    assert "No prefetch took" in _text(soup, ".findings")


def test_a_wait_that_differs_from_step_to_step_by_design_is_not_noise() -> None:
    """Bursts and overlaps make the input wait differ from step to step; the compute is the same
    fixed work each step, so only its scatter is the host's."""
    params = validate_params("placement", params={})
    durations = {name: _at_model("placement", name, params) for name in get_preset("placement").variant_names}
    durations["prefetch-last-autotune"] = _scattered("placement", "prefetch-last-autotune", params, 1.15)
    doc = _result("placement", durations, compute_ms=float(params["compute_ms"])).to_doc()
    assert doc["noise"]["busy"] is False
    assert doc["noise"]["variants"]["prefetch-last-autotune"] == 0
    assert {r.name: r for r in comparisons(doc)}["prefetch-last-autotune"].verdict == "slower"
    assert "Finding: prefetch(AUTOTUNE) last took" in doc["reading"]


def test_the_cli_table_opens_with_the_claim_and_the_noise() -> None:
    doc = _placement_with("prefetch-last-autotune", factor=1.12, scattered=True)
    lines = [line for line in result_table_text(doc).splitlines() if line]
    assert lines[2] == _claim(doc)
    assert lines[3].startswith("The host was busy during this run: differences under")


def test_a_stored_noise_that_is_no_number_reads_as_not_measured() -> None:
    doc = _placement_with("no-prefetch", factor=1.15, scattered=False)
    doc["noise"] = {"variants": {"no-prefetch": "loud", "prefetch-last-2": True}}
    rows = {row.name: row for row in comparisons(doc)}
    assert rows["no-prefetch"].verdict == "slower"
    doc["noise"] = ["not", "a", "document"]
    assert noise_view(doc).kind == "unmeasured"
