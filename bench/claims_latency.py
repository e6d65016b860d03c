"""What the claims model (app/coverage/entailment.py) costs to read one answer, on one CPU
thread: the median CPU time to classify a 150-word answer's work, each of its sentences against
the card's points and pitfalls (about 10 sentences x 15 hypotheses = 150 pairs) plus the whole
answer against each of them (15 pairs), as a ratio to the lexical checker
(`app.coverage.checker.check(card, text)`) on the same answer, measured in the same run, the two
alternating so the host's background noise falls on both. Target (docs/benchmarks.md's 1 s for
Submit's answer, suggestions included): the model's work under 1 s of CPU.

    .venv/bin/python -m bench.claims_latency [--repeats 30]
"""

import argparse
import statistics
import time
from collections.abc import Callable

from app import PROJECT_ROOT
from app.content.catalogue import load
from app.coverage.checker import check
from app.coverage.entailment import Entailment
from app.coverage.methods import sentences
from bench._verdict import run, verdict
from bench.coverage_latency import ANSWER, CARD

HYPOTHESES = 15
MAX_CPU_MS = 1000.0


def cpu_ms(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return (time.process_time() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    card = load(PROJECT_ROOT / "content").cards[CARD]
    claims = [p.plain for p in card.points] + [f.title.plain for f in card.pitfalls]
    claims += [t.title.plain for t in card.truths]
    hypotheses = claims[:HYPOTHESES]
    said = sentences(ANSWER)[:10]
    premises = [s for s in said for _ in hypotheses] + [ANSWER] * len(hypotheses)
    paired = hypotheses * len(said) + hypotheses
    model = Entailment.load(threads=1)

    def lexical() -> object:
        return check(card, ANSWER)

    def claims_model() -> object:
        return model.classify(premises, paired)

    lexical(), claims_model()  # warm-up: the checker's cache, the session's first run
    took: dict[str, list[float]] = {"lexical": [], "model": []}
    for _ in range(args.repeats):
        took["lexical"].append(cpu_ms(lexical))
        took["model"].append(cpu_ms(claims_model))
    base, mine = statistics.median(took["lexical"]), statistics.median(took["model"])
    print(
        f"a {len(ANSWER.split())}-word answer to {CARD}: {len(said)} sentences x {len(hypotheses)} claims "
        f"+ {len(hypotheses)} whole-answer pairs = {len(premises)} pairs, one thread, {args.repeats} runs"
    )
    print(f"baseline lexical check(card, text): median {base:.2f} ms CPU")
    print(
        f"claims model classify: median {mine:.1f} ms CPU ({mine / base:.0f}x the baseline), "
        f"{mine / len(premises):.2f} ms a pair"
    )
    verdict(
        mine < MAX_CPU_MS, f"the model's work for one answer under {MAX_CPU_MS:.0f} ms CPU: {mine:.1f} ms"
    )


if __name__ == "__main__":
    run(main)
