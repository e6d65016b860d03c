"""Demo fidelity: measured / model per variant for several input/compute pairs, with the strict
checks; submit-to-first-progress on a warm runner against its cold start; the runner child's
memory.

    .venv/bin/python -m bench.demo_fidelity [--steps 30]

Everything runs through the demo child's ChildRunner, the path the worker uses. Exit status 1 if a strict check
fails (placement 30/30: no-prefetch and prefetch-last-autotune within 10 % of 60 and 30 ms;
deficit 60/20: prefetch-only within 10 % of 60 ms and parallel-map at least 2x faster; cache,
shuffle, interleave and vectorize at their defaults: every variant's step, and shuffle's first
batch, within 10 % of the model).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import psutil

from app.demos import child
from app.worker.runner import ChildRunner
from bench._verdict import run, verdict

PLACEMENT_PAIRS = [(30, 30), (20, 40), (40, 20), (10, 50)]
DEFICIT_PAIRS = [(60, 20), (80, 20), (40, 10)]
# Presets whose every modelled figure must hold within STRICT at their defaults.
MODELLED_PRESETS = ("cache", "shuffle", "interleave", "vectorize")
STRICT = 0.10


def measured(v: dict[str, Any]) -> float:
    return float(v["mean_step_ms"] if v["model_basis"] == "mean" else v["median_step_ms"])


def table(title: str, doc: dict[str, Any]) -> None:
    print(f"\n{title}")
    print(f"  {'variant':26s} {'measured':>9s} {'model':>8s} {'ratio':>6s}  basis   within 10%  stalled")
    for v in doc["variants"]:
        ratio = measured(v) / v["model_step_ms"] if v["model_step_ms"] else float("nan")
        ok = "yes" if abs(ratio - 1) <= STRICT else "NO"
        print(
            f"  {v['name']:26s} {measured(v):9.1f} {v['model_step_ms']:8.1f} {ratio:6.3f}  "
            f"{v['model_basis']:6s}  {ok:10s}  {v['stalled_steps']}"
        )


def figures_table(doc: dict[str, Any]) -> None:
    """The first batch and the memory held, for the variants that report them."""
    for v in doc["variants"]:
        if "first_batch_ms" in v:
            ratio = v["first_batch_ms"] / v["model_first_batch_ms"]
            print(
                f"    {v['name']}: first batch {v['first_batch_ms']:.1f} ms, model "
                f"{v['model_first_batch_ms']:.1f} ms, ratio {ratio:.3f}"
            )
        if "peak_buffered_examples" in v:
            print(
                f"    {v['name']}: held {v['peak_buffered_examples']} examples = {v['peak_host_mb']:g} MB, "
                f"model {v['model_buffer_mb']:g} MB, RSS peak {v['rss_peak_mb']:.0f} MB"
            )


def model_checks(doc: dict[str, Any]) -> list[tuple[str, bool]]:
    """Every variant's step, and its first batch where modelled, within 10 % of the model."""
    checks = []
    for v in doc["variants"]:
        figures = [("step", measured(v), v["model_step_ms"])]
        if "first_batch_ms" in v:
            figures.append(("first batch", v["first_batch_ms"], v["model_first_batch_ms"]))
        for what, value, model in figures:
            text = f"{doc['preset']} {v['name']} {what} {value:.1f} ms within 10% of {model:.1f}"
            checks.append((text, within(value, model)))
    if doc["preset"] == "vectorize":
        # A step of four calls stays within the serial bound: no step of map-then-batch stalls.
        stalled = by_name(doc)["map-then-batch"]["stalled_steps"]
        checks.append((f"vectorize map-then-batch: {stalled} stalled steps, none expected", stalled == 0))
    return checks


def by_name(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["name"]: v for v in doc["variants"]}


def within(value: float, target: float) -> bool:
    return abs(value / target - 1) <= STRICT


def strict_checks(placement: dict[str, Any], deficit: dict[str, Any]) -> list[tuple[str, bool]]:
    p, d = by_name(placement), by_name(deficit)
    none = p["no-prefetch"]["median_step_ms"]
    last = p["prefetch-last-autotune"]["median_step_ms"]
    alone = d["prefetch-only"]["median_step_ms"]
    parallel = d["parallel-map"]["median_step_ms"]
    return [
        (f"placement 30/30 no-prefetch {none:.1f} ms within 10% of 60", within(none, 60)),
        (f"placement 30/30 prefetch-last-autotune {last:.1f} ms within 10% of 30", within(last, 30)),
        (f"deficit 60/20 prefetch-only {alone:.1f} ms within 10% of 60", within(alone, 60)),
        (f"deficit 60/20 parallel-map {alone / parallel:.2f}x faster (>= 2x)", alone >= 2 * parallel),
    ]


def latency(runner: ChildRunner, repeats: int = 5) -> dict[str, float]:
    """Seconds from submit to the first progress message and to the first measured step, for a
    cold runner (child not started: includes importing TensorFlow) and a warm one (median)."""
    runner.close()
    small = {"steps": 5, "input_ms": 1, "compute_ms": 1, "batch_size": 1}

    def timed() -> tuple[float, float]:
        seen: dict[str, float] = {}

        def note(progress: dict[str, Any]) -> None:
            now = time.perf_counter()
            seen.setdefault("message", now)
            if progress["steps_done"] >= 1:
                seen.setdefault("step", now)

        start = time.perf_counter()
        child.run("synthetic", runner=runner, params=small, on_progress=note)
        return seen["message"] - start, seen["step"] - start

    cold_message, cold_step = timed()
    warm = [timed() for _ in range(repeats)]
    return {
        "cold_message": cold_message,
        "cold_step": cold_step,
        "warm_message": statistics.median(m for m, _ in warm),
        "warm_step": statistics.median(s for _, s in warm),
    }


def tf_defaults_evidence(steps: int) -> list[tuple[str, float]]:
    """In this process: the placement no-prefetch pipeline (30/30) under different option sets.

    Shows what TensorFlow's default rewrites do to a pipeline written without prefetch.
    """
    from app.demos import pipelines  # sets TensorFlow's log level before importing it

    tf = pipelines.tf

    params = {"input_ms": 30, "compute_ms": 30, "batch_size": 4, "steps": steps}
    rows: list[tuple[str, float]] = []
    cases: list[tuple[str, dict[str, bool]]] = [
        ("TF defaults (no options set)", {}),
        ("inject_prefetch off only", {"inject_prefetch": False}),
        ("map_and_batch_fusion off only", {"map_and_batch_fusion": False}),
        ("both off (what the demo runs)", {"inject_prefetch": False, "map_and_batch_fusion": False}),
    ]
    for label, switches in cases:
        options = tf.data.Options()
        for name, value in switches.items():
            setattr(options.experimental_optimization, name, value)
        ds = pipelines.build_variant("placement", variant="no-prefetch", params=params).dataset.with_options(
            options
        )
        it = iter(ds)
        times = []
        for _ in range(steps):
            start = time.perf_counter()
            next(it)
            time.sleep(0.030)
            times.append((time.perf_counter() - start) * 1000)
        rows.append((label, statistics.median(times[2:])))
    return rows


def child_rss_mb(runner: ChildRunner) -> float:
    pid = runner.child_pid
    return psutil.Process(pid).memory_info().rss / 2**20 if pid else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30, help="steps per variant (default 30)")
    args = parser.parse_args()
    runner = ChildRunner(child.CHILD)
    try:
        lat = latency(runner)
        rss_idle = child_rss_mb(runner)
        docs: dict[tuple[str, int, int], dict[str, Any]] = {}
        for i, c in PLACEMENT_PAIRS:
            doc = child.run(
                "placement", runner=runner, params={"input_ms": i, "compute_ms": c, "steps": args.steps}
            )
            docs[("placement", i, c)] = doc
            table(f"placement input {i} ms, compute {c} ms", doc)
        for i, c in DEFICIT_PAIRS:
            doc = child.run(
                "deficit", runner=runner, params={"input_ms": i, "compute_ms": c, "steps": args.steps}
            )
            docs[("deficit", i, c)] = doc
            table(f"deficit input {i} ms, compute {c} ms, 4 workers", doc)
        modelled: list[dict[str, Any]] = []
        for preset in ("jitter", "synthetic", "memory", *MODELLED_PRESETS):
            doc = child.run(preset, runner=runner, params={})
            table(f"{preset} (defaults {doc['params']})", doc)
            if preset == "memory":
                for v in doc["variants"]:
                    print(f"    {v['name']}: {v['buffer_note']}")
            figures_table(doc)
            if preset in MODELLED_PRESETS:
                modelled.append(doc)
        rss_after = child_rss_mb(runner)
        print("\nplacement no-prefetch, input 30 ms, compute 30 ms (textbook 60, with overlap 30):")
        for label, ms in tf_defaults_evidence(min(args.steps, 20)):
            print(f"  {label:32s} {ms:6.1f} ms")
        env = docs[("placement", 30, 30)]["environment"]
        print(
            f"\nTensorFlow {env['tensorflow_version']}, device {env['device']}, {env['cpu_count']} CPUs, "
            f"compute {env['compute']}"
        )
        print(f"non-default tf.data options: {env['tf_data_options']}")
        print(
            f"\nsubmit to first progress: cold runner {lat['cold_message']:.2f} s, warm runner "
            f"{lat['warm_message'] * 1000:.1f} ms ({lat['warm_message'] / lat['cold_message']:.4f} of cold)"
        )
        print(
            f"submit to first measured step: cold runner {lat['cold_step']:.2f} s, warm runner "
            f"{lat['warm_step'] * 1000:.1f} ms ({lat['warm_step'] / lat['cold_step']:.4f} of cold; "
            "target < 2 s)"
        )
        print(f"runner child RSS: {rss_idle:.0f} MB after warm-up, {rss_after:.0f} MB after the table")
        checks = strict_checks(docs[("placement", 30, 30)], docs[("deficit", 60, 20)])
        checks += [check for doc in modelled for check in model_checks(doc)]
        warm = lat["warm_step"]
        checks.append((f"warm runner: submit to first measured step {warm:.3f} s < 2 s", warm < 2.0))
        print("\nstrict checks:")
        for text, ok in checks:
            verdict(ok, text)
    finally:
        runner.close()


if __name__ == "__main__":
    run(main)
