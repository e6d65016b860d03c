"""The tables `tiercards demo run` and `tiercards demo workers` print without --json."""

from __future__ import annotations

import textwrap
from datetime import datetime
from typing import Any

from app.demos.models import WorkerBeat
from app.demos.presenters.comparison import claim, comparisons, first_batch_rows, memory_rows, noise_view
from app.presets import (
    PRESETS,
)


def result_table_text(doc: dict[str, Any]) -> str:
    """A readable summary of a result document for `tiercards demo run` without --json."""
    env = doc.get("environment") or {}
    spec = PRESETS.get(str(doc.get("preset")))
    lines = [
        f"{spec.title if spec else doc.get('preset')}",
        f"TensorFlow {env.get('tensorflow_version')} on {env.get('device')} · {env.get('cpu_count')} CPUs · "
        f"compute {env.get('compute')}",
        "",
    ]
    said = claim(doc)
    if said is not None:
        lines.append(said)
    noise = noise_view(doc)
    lines += [*textwrap.wrap(f"{noise.text} {noise.detail}".strip(), 100), ""]
    rows = comparisons(doc)
    width = max([len(r.label) for r in rows] + [7])
    lines.append(f"{'variant':<{width}}  {'measured':>8}  {'p90':>8}  {'model':>8}  {'ratio':>6}  verdict")
    for r in rows:
        model = f"{r.model_ms:8.1f}" if r.model_ms is not None else f"{'-':>8}"
        ratio = f"{r.ratio:6.2f}" if r.ratio is not None else f"{'-':>6}"
        lines.append(
            f"{r.label:<{width}}  {r.measured_ms:8.1f}  {r.p90_ms:8.1f}  {model}  {ratio}  {r.verdict_text}"
        )
    basis = {r.basis for r in rows}
    lines.append(f"(measured = the {' / '.join(sorted(basis))} step in ms, warm-up steps left out)")
    firsts = first_batch_rows(doc)
    if firsts:
        lines += ["", "time to the first batch:"]
        for f in firsts:
            model = f"model {f.model_ms:.1f} ms" if f.model_ms is not None else "no model"
            lines.append(f"{f.label:<{width}}  {f.measured_ms:8.1f} ms  {model}  {f.verdict_text}")
    memory = memory_rows(doc)
    if memory:
        lines += ["", "host memory held by the buffer:"]
        for m in memory:
            cap = f"model's cap {m.cap_mb:g} MB" if m.cap_mb is not None else "no fixed cap"
            lines.append(f"{m.label:<{width}}  {m.peak_count} {m.unit}, {m.peak_mb:g} MB  {cap}")
    options = env.get("tf_data_options") or {}
    if options:
        lines += ["", "non-default tf.data options: " + ", ".join(f"{k}={v}" for k, v in options.items())]
    if doc.get("reading"):
        lines += ["", *textwrap.wrap(str(doc["reading"]), 100)]
    return "\n".join(lines)


def gpu_text(worker: WorkerBeat) -> str:
    """Whether it takes GPU demos, and who said so: 'yes (TensorFlow lists one)', 'no (--no-gpu)'."""
    gpu = "gpu" in worker.capabilities
    said = {"on": "--gpu", "off": "--no-gpu"}.get(
        worker.gpu_setting, "TensorFlow lists one" if gpu else "TensorFlow lists none"
    )
    return f"{'yes' if gpu else 'no'} ({said})"


def workers_text(workers: list[WorkerBeat], *, timeout: float, now: datetime) -> str:
    """One line per live worker: what it takes, its GPU, device, TensorFlow and last beat."""
    if not workers:
        return f"No demo worker has beaten in the last {timeout:.0f} s."
    header = ("worker", "capabilities", "GPU", "device", "TensorFlow", "last beat", "running")
    rows = [
        (
            w.name,
            ", ".join(w.capabilities),
            gpu_text(w),
            w.device,
            w.tensorflow_version or "starting",
            f"{max(0.0, (now - w.last_seen).total_seconds()):.0f} s ago",
            w.current_run_id or "-",
        )
        for w in workers
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    )
