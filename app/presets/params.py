"""Parameters several presets take, declared once: name, label, bounds, unit and help."""

from __future__ import annotations

from app.presets.declaration import ParamSpec
from app.presets.schedule import WARMUP_STEPS


def input_ms(default: int) -> ParamSpec:
    return ParamSpec(
        "input_ms",
        "Input per batch",
        default,
        0,
        500,
        "ms",
        "Producer cost per batch: time to read and decode one batch.",
    )


def compute_ms(default: int) -> ParamSpec:
    return ParamSpec(
        "compute_ms",
        "Compute per step",
        default,
        0,
        500,
        "ms",
        "Consumer cost per step: one training step on the accelerator.",
    )


def batch_size(default: int) -> ParamSpec:
    return ParamSpec(
        "batch_size",
        "Batch size",
        default,
        1,
        64,
        "examples",
        "Examples per batch; the input cost of a batch is split evenly over them.",
    )


def steps(default: int) -> ParamSpec:
    return ParamSpec(
        "steps",
        "Steps per variant",
        default,
        5,
        500,
        "steps",
        f"Training steps per variant (the first {WARMUP_STEPS} are warm-up and left out of the statistics).",
    )


def batch_mb(help: str) -> ParamSpec:
    return ParamSpec("batch_mb", "Batch in memory", 16, 1, 128, "MB", help)


JITTER_PCT = ParamSpec(
    "jitter_pct",
    "Burstiness",
    80,
    0,
    100,
    "%",
    "Burstiness: slow batches cost input_ms x (1 + jitter), fast ones input_ms x "
    "(1 - jitter), so the mean stays input_ms.",
)
BURST_LEN = ParamSpec(
    "burst_len",
    "Burst length",
    8,
    1,
    32,
    "batches",
    "How many slow batches come in a row (then as many fast ones).",
)
