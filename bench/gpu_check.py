"""A GPU host checked in one command: every preset on the real GPU path (a real train step on the
GPU, prefetch_to_device staging batches in its memory), each variant's measured step against its
model.

    python bench/gpu_check.py          (what `make gpu-check` runs)

Every preset runs at its defaults through the demo child's ChildRunner, the path a worker takes, within BUDGET_S
(4 minutes) in all, starting TensorFlow included. Each prints the measured-vs-model table of
bench/demo_fidelity.py.

Tolerance: a variant passes when its measured step (the median, or the mean where the preset's
model is on the mean) is within AGREEMENT (10 %) of its model, the rule the result pages use to
call a measurement a match. One disagreement is explained and does not fail: prefetch(AUTOTUNE)
slower than the model on the presets whose model takes AUTOTUNE for an unbounded buffer (jitter,
memory), because tf.data's autotuner grows the buffer only after the step finds it empty (the
result pages say so too). It is printed as an explained finding.

Exit status:
  0  every preset ran on the GPU and every variant is within the tolerance;
  1  a variant is outside it, or a preset failed, did not run a real GPU train step, or went past
     the time budget;
  3  no GPU: the host has no NVIDIA device, or TensorFlow lists no GPU. Said at once, before
     anything slow runs (the device files are looked at before TensorFlow is started).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

if not __package__:
    # Run as `python bench/gpu_check.py`: the project root, not bench/, on the import path.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from app.demos import child
from app.demos.presenters.comparison import verdict
from app.jobs.child_process import ChildError
from app.presets import AGREEMENT, PRESETS, DemoError
from app.presets.results import VariantResult, variants_of
from app.worker.capabilities import gpu_device_present
from app.worker.runner import ChildRunner
from bench import _verdict  # by module: `verdict` here is the result pages' comparison
from bench.demo_fidelity import table

BUDGET_S = 240.0
MISMATCH = 1
NO_GPU = 3


def explained(preset: str, variant: VariantResult, kind: str) -> bool:
    """prefetch(AUTOTUNE) slower than a model that takes it for an unbounded buffer."""
    return PRESETS[preset].autotune_unbounded and "AUTOTUNE" in variant.label and kind == "slower"


def problems(preset: str, doc: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(what fails the check, explained findings) for one result document."""
    failed: list[str] = []
    findings: list[str] = []
    env = doc["environment"]
    if env.get("compute") != "real":
        failed.append(f"{preset}: the train step was {env.get('compute')}, not real work on the GPU")
    for variant in variants_of(doc):
        measured = variant.measured_step_ms
        _, kind, text = verdict(measured, variant.model_step_ms)
        if kind in ("none", "match"):
            continue
        line = f"{preset} {variant.label}: {measured:.1f} ms against {variant.model_step_ms:.1f} ms, {text}"
        (findings if explained(preset, variant, kind) else failed).append(line)
    return failed, findings


def main() -> int:
    started = time.monotonic()
    if not gpu_device_present():
        print(
            "no GPU here: this host has no NVIDIA device (/dev/nvidia*), so TensorFlow cannot use one. "
            "Run this on a GPU host, with the CUDA build of TensorFlow: pip install '.[gpu]'.",
            file=sys.stderr,
        )
        return NO_GPU
    runner = ChildRunner(child.CHILD)
    try:
        return check(runner, started)
    finally:
        runner.close()


def check(runner: ChildRunner, started: float) -> int:
    def left() -> float:
        return BUDGET_S - (time.monotonic() - started)

    failed: list[str] = []
    findings: list[str] = []
    try:
        runner.warm(timeout_s=left())
    except (ChildError, DemoError) as error:
        print(f"TensorFlow did not start in the demo process: {error.message}", file=sys.stderr)
        return MISMATCH
    gpus: list[str] = runner.ready_info["gpus"]
    if not gpus:
        print(
            "no GPU for TensorFlow: this host has an NVIDIA device but TensorFlow lists no GPU. "
            "Install the CUDA build (pip install '.[gpu]') and check the driver (nvidia-smi).",
            file=sys.stderr,
        )
        return NO_GPU
    print(
        f"TensorFlow {runner.ready_info['tensorflow_version']} on {', '.join(gpus)}, ready in {BUDGET_S - left():.0f} s"
    )
    for preset in PRESETS:
        if left() <= 0:
            failed.append(f"{preset}: not run, the {BUDGET_S:.0f} s budget is spent")
            continue
        try:
            doc = child.run(preset, runner=runner, params={}, timeout_s=left())
        except (ChildError, DemoError) as error:
            failed.append(f"{preset}: {error.message}")
            continue
        table(f"{preset} (defaults {doc['params']})", doc)
        print(f"  {doc['environment']['compute_note']}")
        wrong, explained_here = problems(preset, doc)
        failed += wrong
        findings += explained_here
    print(
        f"\n{len(PRESETS)} presets in {BUDGET_S - left():.0f} s (budget {BUDGET_S:.0f} s), tolerance {AGREEMENT:.0%}:"
    )
    for line in findings:
        print(f"  explained  {line} (AUTOTUNE grows its buffer only after the step finds it empty)")
    for line in failed:
        _verdict.verdict(False, line)
    if not failed:
        _verdict.verdict(True, "every preset ran a real train step on the GPU and matched its model")
    return 0  # a FAIL above is remembered: _verdict.run exits 1 (MISMATCH) for it


if __name__ == "__main__":
    _verdict.run(main)
