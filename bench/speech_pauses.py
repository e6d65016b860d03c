"""Pauses heard in the audio against pauses read off the model's word timestamps (the baseline), on
sentences from the deck said by two speech engines with a silence put in mid-sentence, in the same
run (tests/speech/evaluation.py says how). The verdict is on espeak-ng's voices, held out from the
choice of the VAD's settings.

    .venv/bin/python -m bench.speech_pauses [--per-card 1]
"""

import argparse
import tempfile
from pathlib import Path

from app.speech.recogniser import load
from bench._verdict import run, verdict
from tests.speech.evaluation import HELD_OUT, SILENCE_S, TUNED, WITHIN_S, PauseCounts, count_pauses, deck


def line(name: str, counts: dict[str, PauseCounts]) -> str:
    return f"{name}: " + "; ".join(
        f"{method} found {c.found}/{c.clips}, {c.false} false on {c.clips} whole"
        for method, c in counts.items()
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-card", type=int, default=1)
    args = parser.parse_args()
    model = load(None)
    folder = Path(tempfile.mkdtemp(prefix="speech-pauses-"))
    sentences = [sentence for sentence, _ in deck(args.per_card)]
    print(f"{len(sentences)} sentences, a {SILENCE_S} s silence in each, found within {WITHIN_S} s")
    for part, voices in (("tuned (flite)", TUNED), ("held out (espeak-ng)", HELD_OUT)):
        totals = count_pauses(
            model, voices, sentences, folder, each=lambda voice, counts: print(line(" ".join(voice), counts))
        )
        by_voice, by_words = totals["voice"], totals["word timestamps"]
        print(line(part, totals) + f"; ratio {by_voice.found / max(by_words.found, 1):.1f}")
    verdict(
        by_voice.found >= 0.9 * by_voice.clips and by_voice.false * 20 <= by_voice.clips,
        f"held-out voices: {by_voice.found}/{by_voice.clips} silences found, {by_voice.false} false pauses",
    )


if __name__ == "__main__":
    run(main)
