"""Word error rate of the speech model on flite clips of sentences from the deck, primed as shipped
with the card's own terms against the same with no terms ("unprimed") in the same run
(bench/speech_priming.py compares the priming choices per voice and card; bench/speech_fillers.py
measures the fillers).

    .venv/bin/python -m bench.speech_wer [--per-card 2] [--voices rms,slt,awb,kal] [--option NAME=VALUE ...]

The sentences come from the basics and solid answers of every card except the owner's
(tf-data-prefetch-last), whose sentences are the ones the term rules were looked at on; each clip
is primed with the terms of the card it comes from. WER is pooled (all errors / all words). Exit
status 1 if priming makes the WER worse.
"""

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.speech.accuracy import word_error_rate
from app.speech.decode import decode_recording
from app.speech.recogniser import SpeechModel, load
from bench._decode_options import add_option_flag, decode_options
from bench._verdict import run, verdict
from tests.speech.clips import VOICES, speak
from tests.speech.evaluation import HELD_OUT, STATED_VOICES, deck, hear, pooled

MAX_SECONDS = 180


def heard(model: SpeechModel, clip: Path, terms: tuple[str, ...], options: dict[str, Any]) -> str:
    recording = decode_recording(clip.read_bytes(), max_seconds=MAX_SECONDS)
    return model.transcribe(recording.samples, terms=terms, options=options).text


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-card", type=int, default=2)
    parser.add_argument("--voices", default=",".join(VOICES))
    add_option_flag(parser)
    args = parser.parse_args()
    options = decode_options(args.option)
    voices = args.voices.split(",")
    model = load(None)
    print(f"model: {model.folder.name}; decoding options {options or 'as shipped'}")
    folder = Path(tempfile.mkdtemp(prefix="speech-wer-"))
    chosen = deck(args.per_card)
    results: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for voice in voices:
        runs: dict[str, list[tuple[str, str]]] = {"unprimed": [], "primed": []}
        for sentence, terms in chosen:
            clip = speak(sentence, voice=voice, folder=folder)
            runs["unprimed"].append((sentence, heard(model, clip, (), options)))
            runs["primed"].append((sentence, heard(model, clip, terms, options)))
        results[voice] = runs
        baseline, primed = pooled(runs["unprimed"]), pooled(runs["primed"])
        print(
            f"{voice}: {len(chosen)} sentences, WER unprimed {baseline:.3f}, primed {primed:.3f}, "
            f"ratio {primed / baseline:.2f}"
        )
    everything: Callable[[str], list[tuple[str, str]]] = lambda kind: [  # noqa: E731
        pair for runs in results.values() for pair in runs[kind]
    ]
    baseline, primed = pooled(everything("unprimed")), pooled(everything("primed"))
    worst = max(word_error_rate(said, text) for said, text in everything("primed"))
    print(
        f"all voices: WER unprimed {baseline:.3f} (baseline), primed {primed:.3f}, ratio {primed / baseline:.2f}; "
        f"worst primed clip {worst:.3f}"
    )
    held = hear(model, STATED_VOICES, deck(1), folder)
    print(
        f"held-out voices ({', '.join(' '.join(v) for v in STATED_VOICES)}; of {HELD_OUT}), as shipped: "
        f"WER {held.word_error_rate:.3f} on {held.clips} clips"
    )
    verdict(
        primed <= baseline,
        f"priming does not make the WER worse: {primed:.3f} primed, {baseline:.3f} unprimed",
    )


if __name__ == "__main__":
    run(main)
