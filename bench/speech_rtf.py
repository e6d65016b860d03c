"""Real-time factor of the speech model on this CPU for a ~20 s and a ~50 s answer, against the time
to decode the same audio alone, in the same run.

    .venv/bin/python -m bench.speech_rtf [--runs 3] [--voice rms] [--option NAME=VALUE ...]

The answers are the owner card's basics and solid answers, spoken by flite and sent as Ogg Opus
(what a browser records). The model is loaded and warmed first, as a worker keeps it. Printed per
answer: decode alone (the baseline), decode + transcribe, their ratio, and the real-time factor
(decode + transcribe over the audio's length). Then the cold figure: the first answer on a newly
loaded model, with the warm-up a worker does at load and without it. Exit status 1 if a transcript,
warm or the first, would take longer than TARGET x the answer's length after stopping.
"""

import argparse
import multiprocessing
import tempfile
import time
from pathlib import Path
from typing import Any

from app import PROJECT_ROOT
from app.content.parser import parse_card
from app.content.render import to_plain
from app.speech.decode import decode_recording
from app.speech.recogniser import SpeechModel, card_terms, load, resolve
from bench._decode_options import add_option_flag, decode_options
from bench._timing import timed
from bench._verdict import run, verdict
from tests.factories import OWNER_CARD
from tests.speech.clips import encode, speak

MAX_SECONDS = 180
# The transcript should appear within a quarter of the answer's length after stopping.
TARGET = 0.25


def first_answer(
    data: bytes, terms: tuple[str, ...], warm: bool, options: dict[str, Any]
) -> tuple[float, float]:
    """In a process of its own: seconds to load the model, then to transcribe `data` once."""
    started = time.perf_counter()
    model = SpeechModel(resolve(None), warm=warm)
    loaded = time.perf_counter()
    model.transcribe(decode_recording(data, max_seconds=MAX_SECONDS).samples, terms=terms, options=options)
    return loaded - started, time.perf_counter() - loaded


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--voice", default="rms")
    add_option_flag(parser)
    args = parser.parse_args()
    options = decode_options(args.option)
    start = time.perf_counter()
    model = load(None)
    print(
        f"model: {model.folder.name}; verified, loaded and warmed in {time.perf_counter() - start:.2f} s; "
        f"decoding options {options or 'as shipped'}"
    )
    card = parse_card(PROJECT_ROOT / "content" / f"{OWNER_CARD}.md")
    terms = card_terms(card)
    folder = Path(tempfile.mkdtemp(prefix="speech-rtf-"))
    worst = 0.0
    answers: list[tuple[bytes, float]] = []
    for label, text in (("basics", card.basics), ("solid", card.solid)):
        wav = speak(" ".join(to_plain(text.markdown).split()), voice=args.voice, folder=folder)
        data = encode(wav, container="ogg")
        seconds = decode_recording(data, max_seconds=MAX_SECONDS).seconds
        answers.append((data, seconds))

        def both(data: bytes = data) -> None:
            model.transcribe(
                decode_recording(data, max_seconds=MAX_SECONDS).samples, terms=terms, options=options
            )

        baseline = timed(lambda data=data: decode_recording(data, max_seconds=MAX_SECONDS), args.runs)
        total = timed(both, args.runs)
        factor = total / seconds
        worst = max(worst, factor)
        print(
            f"{label} answer, {seconds:.1f} s of Ogg Opus: decode alone {baseline:.3f} s (baseline), "
            f"decode + transcribe {total:.2f} s, ratio {total / baseline:.1f}, real-time factor {factor:.3f} "
            f"(target {TARGET})"
        )
        if options:
            # The decoding as shipped, timed in the same run: on a shared machine only this
            # ratio compares the options fairly.
            shipped = timed(
                lambda data=data: model.transcribe(
                    decode_recording(data, max_seconds=MAX_SECONDS).samples, terms=terms
                ),
                args.runs,
            )
            print(
                f"  as shipped {shipped:.2f} s (real-time factor {shipped / seconds:.3f}); "
                f"with the options {total / shipped:.2f}x that"
            )
    # Cold: the first answer (the short one, where a one-off cost shows most) in a new process, on a
    # model warmed at load as a worker's is, and on one that is not (what the warm-up saves).
    data, seconds = answers[0]
    cold = {}
    with multiprocessing.get_context("spawn").Pool(1, maxtasksperchild=1) as pool:
        for warm in (True, False):
            load_s, cold[warm] = pool.apply(first_answer, (data, terms, warm, options))
            print(
                f"new process, {'warmed' if warm else 'not warmed'} at load: load {load_s:.2f} s, first "
                f"answer ({seconds:.1f} s) {cold[warm]:.2f} s, real-time factor {cold[warm] / seconds:.3f}"
            )
    verdict(worst <= TARGET, f"warm real-time factor {worst:.3f} within {TARGET}")
    verdict(
        cold[True] / seconds <= TARGET,
        f"the first answer after the worker starts is within {TARGET} too: {cold[True] / seconds:.3f}",
    )


if __name__ == "__main__":
    run(main)
