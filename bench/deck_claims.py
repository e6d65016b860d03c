"""Which claims of the deck are shown live, and what this host measures for them.

    .venv/bin/python -m bench.deck_claims [--markdown]

Runs every demo preset that a card links (or that a card's version note names) once, at its
defaults, through the worker's ChildRunner (the worker's path), then prints for each card: each linked preset's
variants as measured / model, and each version note's variant against the one it compares with.
A preset that needs a GPU is listed as not run on a host without one. Each figure is a ratio from
the same run, so a busy host moves numerator and denominator together. Target (docs/benchmarks.md): every
variant with a model within 10 % of it; prefetch(AUTOTUNE) slower than a model that takes it for an
unbounded buffer is the finding the result pages explain (bench/gpu_check.py's rule), not a miss.
"""

from __future__ import annotations

import argparse
from typing import Any

from app import PROJECT_ROOT
from app.content.catalogue import load
from app.demos import child
from app.demos.presenters.comparison import verdict as compare
from app.presets import PRESETS
from app.presets.results import VariantResult, variants_of
from app.worker.capabilities import gpu_device_present
from app.worker.runner import ChildRunner
from bench._verdict import run, verdict
from bench.gpu_check import explained


def _variants(doc: dict[str, Any]) -> dict[str, VariantResult]:
    return {v.name: v for v in variants_of(doc)}


def _fidelity(doc: dict[str, Any]) -> str:
    """Each variant's measured / model, then the spread the preset shows: slowest / fastest."""
    parts = []
    for v in variants_of(doc):
        if v.model_step_ms:
            parts.append(f"{v.name} {v.measured_step_ms / v.model_step_ms:.2f}")
    steps = {v.name: v.measured_step_ms for v in variants_of(doc)}
    slowest, fastest = max(steps, key=steps.__getitem__), min(steps, key=steps.__getitem__)
    spread = f"{slowest} / {fastest} = {steps[slowest] / steps[fastest]:.2f}x"
    return ", ".join(parts) + f" (spread: {spread})"


def _verdicts(docs: dict[str, dict[str, Any] | None]) -> None:
    """Each run preset's variants against their models, as the result pages judge them."""
    for preset, doc in docs.items():
        if doc is None:
            continue
        for v in variants_of(doc):
            _, kind, text = compare(v.measured_step_ms, v.model_step_ms)
            if kind == "none":
                continue
            line = f"{preset} {v.name}: {v.measured_step_ms:.1f} ms against {v.model_step_ms:.1f} ms, {text}"
            if explained(preset, v, kind):
                print(f"explained {line} (AUTOTUNE grows its buffer only after the step finds it empty)")
            else:
                verdict(kind == "match", line)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", action="store_true", help="one table row per card")
    args = parser.parse_args()
    cards = load(PROJECT_ROOT / "content").cards
    wanted = sorted(
        {p for card in cards.values() for p in card.demos}
        | {n.demo.preset for card in cards.values() for n in card.notes if n.demo}
    )
    runner = ChildRunner(child.CHILD)
    docs: dict[str, dict[str, Any] | None] = {}
    try:
        for preset in wanted:
            if PRESETS[preset].needs_gpu and not gpu_device_present():
                docs[preset] = None
                continue
            docs[preset] = child.run(preset, runner=runner, params={})
    finally:
        runner.close()
    if args.markdown:
        print(
            "| card | live demos (measured / model per variant) | version notes (variant vs the one compared) |"
        )
        print("| --- | --- | --- |")
    for card in cards.values():
        demos = []
        for preset in card.demos:
            doc = docs.get(preset)
            demos.append(f"{preset}: " + ("not run (needs a GPU)" if doc is None else _fidelity(doc)))
        notes = []
        for note in card.notes:
            if note.demo is None or docs.get(note.demo.preset) is None:
                continue
            doc = docs[note.demo.preset]
            assert doc is not None
            variants = _variants(doc)
            mine = variants[note.demo.variant].measured_step_ms
            text = f"{note.demo.preset} {note.demo.variant} {mine:.1f} ms"
            if note.demo.against:
                theirs = variants[note.demo.against].measured_step_ms
                text += f" vs {note.demo.against} {theirs:.1f} ms ({mine / theirs:.2f}x as long)"
            if text not in notes:  # two notes measured by one comparison
                notes.append(text)
        if args.markdown:
            print(f"| `{card.id}` | {'; '.join(demos) or 'none'} | {'; '.join(notes) or '-'} |")
        else:
            print(f"\n{card.id}")
            for line in demos or ["(no live demo)"]:
                print(f"  demo  {line}")
            for line in notes:
                print(f"  note  {line}")
    print()
    _verdicts(docs)


if __name__ == "__main__":
    run(main)
